#pragma once
/// \file treetextview.h
/// A read-only text view of a sentence's trees: the dependency tree as an aligned
/// table (id, word, tag, head, relation) and the constituency tree as indented
/// brackets. The plain-text fallback every other view can be checked against.

#include <QPlainTextEdit>

#include "core/data/analysis.h"
#include "core/data/sentence.h"

namespace treelens {

/// The text shown by TreeTextView (also used by tests and the clipboard).
QString formatTreesAsText(const Sentence &sentence, const Analysis *analysis = nullptr);

class TreeTextView : public QPlainTextEdit {
    Q_OBJECT
public:
    explicit TreeTextView(QWidget *parent = nullptr);
    void setSentence(const Sentence &sentence, const Analysis *analysis = nullptr);
    void showMessage(const QString &message);
};

} // namespace treelens
