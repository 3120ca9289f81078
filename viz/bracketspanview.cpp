#include "viz/bracketspanview.h"

#include <algorithm>
#include <cmath>
#include <set>

#include <QPainter>

#include "viz/plotstyle.h"

namespace treelens {

namespace {

constexpr double kLabelMargin = 74.0;
constexpr double kLegendHeight = 24.0;
constexpr double kWordBand = 24.0;
constexpr double kLevelGap = 11.0;
constexpr double kWordPadding = 16.0;

int maxLevel(const std::vector<WordSpan> &spans)
{
    const auto levels = spanLevels(spans);
    return levels.empty() ? -1 : *std::max_element(levels.begin(), levels.end());
}

} // namespace

// ---------------------------------------------------------------------------
// Pure helpers

std::vector<WordSpan> scoredBrackets(const std::vector<WordSpan> &brackets, int n)
{
    std::set<WordSpan> out;
    for (const auto &b : brackets)
        if (b.second - b.first >= 2 && !(b.first == 0 && b.second == n) && b.first >= 0 && b.second <= n)
            out.insert(b);
    return {out.begin(), out.end()};
}

EdgeClasses classifyBrackets(const std::vector<WordSpan> &gold, const std::vector<WordSpan> &predicted, int n)
{
    return classifyEdges(scoredBrackets(gold, n), scoredBrackets(predicted, n));
}

std::vector<int> spanLevels(const std::vector<WordSpan> &spans)
{
    // Inner spans first: a span's level only depends on shorter spans.
    std::vector<int> order(spans.size());
    for (std::size_t i = 0; i < order.size(); ++i)
        order[i] = static_cast<int>(i);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
        const auto &sa = spans[static_cast<std::size_t>(a)];
        const auto &sb = spans[static_cast<std::size_t>(b)];
        return sa.second - sa.first < sb.second - sb.first;
    });
    std::vector<int> level(spans.size(), 0);
    for (std::size_t k = 0; k < order.size(); ++k) {
        const auto &outer = spans[static_cast<std::size_t>(order[k])];
        int l = 0;
        for (std::size_t m = 0; m < k; ++m) {
            const auto &inner = spans[static_cast<std::size_t>(order[m])];
            if (inner != outer && inner.first >= outer.first && inner.second <= outer.second)
                l = std::max(l, level[static_cast<std::size_t>(order[m])] + 1);
        }
        level[static_cast<std::size_t>(order[k])] = l;
    }
    return level;
}

// ---------------------------------------------------------------------------
// BracketSpanView

BracketSpanView::BracketSpanView(QWidget *parent) : WordDiagramView(parent) {}

void BracketSpanView::setSentence(const std::vector<std::string> &words, const std::vector<WordSpan> &gold,
                                  const std::vector<WordSpan> &predicted, bool predictedKnown)
{
    const int n = static_cast<int>(words.size());
    m_words = words;
    m_gold = scoredBrackets(gold, n);
    m_predictedKnown = predictedKnown;
    m_classes = predictedKnown ? classifyBrackets(gold, predicted, n) : EdgeClasses{};
    updateGeometry();
    update();
}

void BracketSpanView::clear()
{
    setSentence({}, {}, {}, true);
}

int BracketSpanView::goldLevels() const
{
    return maxLevel(m_gold) + 1;
}

int BracketSpanView::predictedLevels() const
{
    std::vector<WordSpan> predicted = m_classes.correct;
    predicted.insert(predicted.end(), m_classes.wrong.begin(), m_classes.wrong.end());
    return maxLevel(predicted) + 1;
}

QSize BracketSpanView::minimumSizeHint() const
{
    return QSize(static_cast<int>(std::ceil(naturalWidth(m_words, kLabelMargin, kWordPadding))),
                 static_cast<int>(std::ceil(exportSize().height())));
}

QSizeF BracketSpanView::exportSize() const
{
    const int levels = std::max(goldLevels(), 2) + std::max(predictedLevels(), 2);
    return QSizeF(naturalWidth(m_words, kLabelMargin, kWordPadding), kLegendHeight + kWordBand + levels * kLevelGap + 28.0);
}

void BracketSpanView::paintContent(QPainter *painter, const QRectF &rect) const
{
    const QFont wordsFont = wordFont();
    const QFont labelFont = smallFont();
    const QPen goldPen(kDiagramGoldInk, 1.6);
    const QPen missedPen(kDiagramGoldInk, 1.6, Qt::DashLine);
    const QPen correctPen(kDiagramCorrectInk, 2.0);
    const QPen wrongPen(kDiagramWrongInk, 2.0);

    // Legend.
    painter->setFont(labelFont);
    const QFontMetricsF sfm(labelFont);
    std::vector<std::pair<QPen, QString>> legend = {{goldPen, QObject::tr("gold bracket")}};
    if (m_predictedKnown) {
        legend.emplace_back(missedPen, QObject::tr("gold, not predicted"));
        legend.emplace_back(correctPen, QObject::tr("predicted, in gold"));
        legend.emplace_back(wrongPen, QObject::tr("predicted, not in gold"));
    }
    paintLineLegend(painter, rect, kLegendHeight, legend);

    const int goldRows = std::max(goldLevels(), 1);
    const int predRows = std::max(predictedLevels(), 1);
    // Share the spare height between the two sides.
    const double spare = std::max(0.0, rect.height() - kLegendHeight - kWordBand - 16.0 - (goldRows + predRows) * kLevelGap);
    const double bandTop = rect.top() + kLegendHeight + goldRows * kLevelGap + 8.0 + spare / 2.0;
    const double bandBottom = bandTop + kWordBand;
    const QFontMetricsF fm(wordsFont);
    const auto cells = wordCells(m_words, fm, rect.left() + kLabelMargin, rect.right() - 12.0, kWordPadding);
    const int n = static_cast<int>(m_words.size());

    painter->setFont(labelFont);
    painter->setPen(QColor(60, 60, 60));
    painter->drawText(QRectF(rect.left() + 4.0, bandTop - goldRows * kLevelGap - 6.0, kLabelMargin - 8.0,
                             goldRows * kLevelGap + 2.0),
                      Qt::AlignLeft | Qt::AlignBottom, QObject::tr("gold"));
    painter->drawText(QRectF(rect.left() + 4.0, bandBottom + 2.0, kLabelMargin - 8.0, 2.0 * sfm.height() + 4.0),
                      Qt::AlignLeft | Qt::AlignTop, m_predictedKnown ? QObject::tr("predicted") : QObject::tr("predicted:\nn/a"));

    // One bracket: a line over its words with short ticks towards them.
    auto drawSpan = [&](const WordSpan &s, int level, bool above) {
        if (s.first < 0 || s.second > n || s.first >= s.second)
            return;
        const double xl = cells[static_cast<std::size_t>(s.first)].first + 5.0;
        const double xr = cells[static_cast<std::size_t>(s.second - 1)].second - 5.0;
        const double y = above ? bandTop - 3.0 - (level + 1) * kLevelGap + 4.0 : bandBottom + 3.0 + (level + 1) * kLevelGap - 4.0;
        const double tick = above ? 5.0 : -5.0;
        const QPointF points[] = {QPointF(xl, y + tick), QPointF(xl, y), QPointF(xr, y), QPointF(xr, y + tick)};
        painter->drawPolyline(points, 4);
    };
    const std::set<WordSpan> missed(m_classes.missed.begin(), m_classes.missed.end());
    const std::vector<int> goldLevel = spanLevels(m_gold);
    for (std::size_t i = 0; i < m_gold.size(); ++i) {
        painter->setPen(m_predictedKnown && missed.count(m_gold[i]) ? missedPen : goldPen);
        drawSpan(m_gold[i], goldLevel[i], true);
    }
    std::vector<WordSpan> predicted = m_classes.correct;
    predicted.insert(predicted.end(), m_classes.wrong.begin(), m_classes.wrong.end());
    const std::set<WordSpan> wrong(m_classes.wrong.begin(), m_classes.wrong.end());
    const std::vector<int> predLevel = spanLevels(predicted);
    for (std::size_t i = 0; i < predicted.size(); ++i) {
        painter->setPen(wrong.count(predicted[i]) ? wrongPen : correctPen);
        drawSpan(predicted[i], predLevel[i], false);
    }

    painter->setFont(wordsFont);
    painter->setPen(QColor(20, 20, 20));
    for (int i = 0; i < n; ++i) {
        const auto &c = cells[static_cast<std::size_t>(i)];
        painter->drawText(QRectF(c.first, bandTop, c.second - c.first, kWordBand), Qt::AlignCenter,
                          diagramWordLabel(m_words[static_cast<std::size_t>(i)]));
    }
}

} // namespace treelens
