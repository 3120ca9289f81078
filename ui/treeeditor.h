#pragma once
/// \file treeeditor.h
/// Editing the shown sentence's trees in the app (issue 33): the tree views ask for
/// edits in the edit language (core/data/treeedit.h); the editor checks each on the
/// spot against the document's sentence (a refusal says which rule it breaks and
/// changes nothing), keeps the accepted ones on a QUndoStack, and sends the edited
/// sentence to be analysed again off the GUI thread (analysisRequested(): the main
/// window runs its sentence pipeline). It remembers the sentence and the analysis
/// before the first edit, which the comparison shows next to the document's current
/// ones. A sentence the user opens anew (typed, from a corpus) ends the edits.
/// GUI thread only.
#include <memory>

#include <QObject>
#include <QStringList>

#include "core/data/analysis.h"
#include "core/data/sentence.h"
#include "ui/session/analysisdocument.h"

class QUndoStack;

namespace treelens {

class TreeEditor : public QObject {
    Q_OBJECT
public:
    explicit TreeEditor(AnalysisDocument *document, QObject *parent = nullptr);
    ~TreeEditor() override;

    QUndoStack *undoStack() const { return m_stack; }
    /// Applies `edit` (the edit language) to the document's sentence; false (and
    /// refused()) when it cannot be read or breaks a rule of its tree.
    bool edit(const QString &edit);
    /// Back to the tree before the first edit (the edits stay on the stack for redo).
    void revert();
    /// The edits applied now, in order (the undo stack up to its index).
    QStringList edits() const;
    bool hasEdits() const { return !edits().isEmpty(); }
    /// The sentence and its analysis before the first edit (null without edits).
    std::shared_ptr<const Sentence> originalSentence() const { return m_original; }
    std::shared_ptr<const Analysis> originalAnalysis() const { return m_originalAnalysis; }
    /// Whether the document's current analysis is of the edited sentence (not still
    /// the one before the last edit, while it is being analysed).
    bool upToDate() const { return !m_pending; }
    /// Whether a model of `analysis`'s family reads the tree the edits changed: the
    /// Dependency-Transformer and the dependency recursive models read the dependency
    /// tree, the Tree Aggregation Transformer and the constituency recursive models the
    /// constituency tree; the others read words only.
    bool modelReadsEditedTree(const Analysis &analysis) const;
    /// The message of the last refusal ("" after an accepted edit).
    QString lastRefusal() const { return m_refusal; }

Q_SIGNALS:
    /// The edited sentence (or the one before an undone edit) to analyse again.
    void analysisRequested(std::shared_ptr<const Sentence> sentence);
    /// An edit was refused: which rule it breaks.
    void refused(const QString &message);
    /// The edits or the comparison changed (an edit, undo, redo, a new analysis, a reset).
    void changed();

private:
    friend class TreeEditCommand;
    void show(std::shared_ptr<const Sentence> sentence);
    void onDocumentChanged(AnalysisDocument::Changes what);

    AnalysisDocument *m_document;
    QUndoStack *m_stack;
    std::shared_ptr<const Sentence> m_original;
    std::shared_ptr<const Analysis> m_originalAnalysis;
    bool m_pending = false;   ///< an analysis we asked for has not arrived yet
    QString m_refusal;
};

} // namespace treelens
