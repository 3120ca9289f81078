#pragma once
/// \file querysyntaxhelp.h
/// The Corpus dock's "?" (issue 48): a concise cheat sheet of the two pattern languages the
/// query field takes, Grew requests (docs/grew.md) and Tregex patterns (docs/tregex.md), with
/// examples that are inserted into the field with one click. A non-modal tool window, so
/// the user can keep it open while typing.

#include <QDialog>
#include <QStringList>

class QTextBrowser;

namespace treelens {

class QuerySyntaxHelp : public QDialog {
    Q_OBJECT
public:
    explicit QuerySyntaxHelp(QWidget *parent = nullptr);

    /// The examples the sheet offers, in its order.
    static QStringList examples();
    /// Inserts example `index` as a click on it does (emits exampleChosen).
    void chooseExample(int index);
    QTextBrowser *browser() const { return m_text; }

Q_SIGNALS:
    void exampleChosen(const QString &pattern);

private:
    QTextBrowser *m_text = nullptr;
};

} // namespace treelens
