#pragma once
/// \file bracketspanview.h
/// Unsupervised parsing over one sentence (TreeLens issue 6): the gold brackets
/// above the words and the model's induced brackets below, and the bracket
/// bookkeeping of core/eval/inductioneval.cpp's F1.

#include <string>
#include <vector>

#include "viz/worddiagram.h"

namespace treelens {

/// The brackets the F1 counts (core/eval/inductioneval.cpp): [start, end) of at
/// least two words, not the whole sentence of n words; sorted, unique.
std::vector<WordSpan> scoredBrackets(const std::vector<WordSpan> &brackets, int n);

/// Predicted brackets in gold (correct), not in gold (wrong), gold brackets not
/// predicted (missed), over scoredBrackets() of both.
EdgeClasses classifyBrackets(const std::vector<WordSpan> &gold, const std::vector<WordSpan> &predicted, int n);

/// Drawing level of every span (same order): 0 for a span that contains no
/// other span of the list, else 1 + the highest level of the spans it contains.
std::vector<int> spanLevels(const std::vector<WordSpan> &spans);

/// Gold brackets above the words, predicted below, each as a bracket line over
/// the words it spans, nested spans stacked outward; predicted brackets in gold
/// dark green, the others red; gold brackets not predicted dashed.
class BracketSpanView : public WordDiagramView {
    Q_OBJECT
public:
    explicit BracketSpanView(QWidget *parent = nullptr);

    /// `predictedKnown` false draws the gold brackets only (no model prediction).
    void setSentence(const std::vector<std::string> &words, const std::vector<WordSpan> &gold,
                     const std::vector<WordSpan> &predicted, bool predictedKnown = true);
    void clear();

    const std::vector<std::string> &words() const override { return m_words; }
    const std::vector<WordSpan> &gold() const { return m_gold; }     ///< scored gold brackets
    const EdgeClasses &brackets() const { return m_classes; }       ///< as drawn

    QSize minimumSizeHint() const override;
    QSizeF exportSize() const override;
    QString exportName() const override { return QStringLiteral("induction-brackets"); }

protected:
    void paintContent(QPainter *painter, const QRectF &rect) const override;

private:
    int goldLevels() const;
    int predictedLevels() const;

    std::vector<std::string> m_words;
    std::vector<WordSpan> m_gold;
    EdgeClasses m_classes;
    bool m_predictedKnown = true;
};

} // namespace treelens
