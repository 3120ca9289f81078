#pragma once
/// \file whatifpanel.h
/// The What-if dock (issue 33): the comparison of the analysis before the first tree
/// edit and now (WhatIfView), the edits as an undo list (QUndoView: a click goes back
/// to that state), a line for edits in the edit language (the keyboard's way to edit:
/// "head 4=14", Enter applies), the last refusal in red, and buttons to undo, redo,
/// revert, export the comparison (PNG/SVG/PDF) and save the edited tree (CoNLL-U or
/// PTB).
#include <QWidget>

#include "core/data/viewstate.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QUndoView;

namespace treelens {

class AnalysisDocument;
class TreeEditor;
class WhatIfView;

class WhatIfPanel : public QWidget {
    Q_OBJECT
public:
    WhatIfPanel(TreeEditor *editor, AnalysisDocument *document, QWidget *parent = nullptr);

    WhatIfView *view() const { return m_view; }
    QLineEdit *editLine() const { return m_line; }
    /// "Change of": 0 attention, 1 relation gate (enabled for a Dependency-Transformer).
    QComboBox *quantityBox() const { return m_quantity; }
    /// The refusal shown (empty when none).
    QString refusalText() const;
    /// Brings the comparison up to date with the editor and the document.
    void refresh();
    /// Writes the edited tree: CoNLL-U (.conllu) or PTB brackets (any other name).
    bool saveTree(const QString &path, QString *error = nullptr);

private:
    void applyLine();
    TreeEditor *m_editor;
    AnalysisDocument *m_document;
    WhatIfView *m_view = nullptr;
    QUndoView *m_undo = nullptr;
    QLineEdit *m_line = nullptr;
    QLabel *m_refusal = nullptr;
    QComboBox *m_quantity = nullptr;
    QPushButton *m_export = nullptr, *m_save = nullptr, *m_revert = nullptr;
};

} // namespace treelens
