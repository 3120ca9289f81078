#include "viz/structuralarcview.h"

#include <algorithm>
#include <cmath>
#include <set>

#include <QPainter>
#include <QPainterPath>

#include "viz/plotstyle.h"

namespace treelens {

namespace {

const QColor kPunctInk(165, 165, 165);

constexpr double kLabelMargin = 74.0; ///< left margin ("probe MST")
constexpr double kLegendHeight = 24.0;
constexpr double kWordBand = 24.0;
constexpr double kNaturalHeight = 84.0; ///< height of the tallest arc
constexpr double kWordPadding = 14.0;

/// An arc from x1 to x2 on baseline y, bulging `height` up (negative: down).
QPainterPath arcPath(double x1, double x2, double y, double height)
{
    QPainterPath path(QPointF(x1, y));
    const double c = y - height * 4.0 / 3.0;
    const double inset = (x2 - x1) * 0.04;
    path.cubicTo(QPointF(x1 + inset, c), QPointF(x2 - inset, c), QPointF(x2, y));
    return path;
}

} // namespace

StructuralArcView::StructuralArcView(QWidget *parent) : WordDiagramView(parent) {}

void StructuralArcView::setSentence(const std::vector<std::string> &words, const std::vector<char> &punct,
                                    const std::vector<WordSpan> &gold, const std::vector<WordSpan> &predicted)
{
    m_words = words;
    m_punct = punct;
    // The gold edges as classifyEdges normalises them: i < j, sorted, unique.
    m_classes = classifyEdges(gold, predicted);
    m_gold = classifyEdges(gold, {}).missed;
    updateGeometry();
    update();
}

void StructuralArcView::clear() { setSentence({}, {}, {}, {}); }

QSize StructuralArcView::minimumSizeHint() const
{
    return QSize(static_cast<int>(std::ceil(naturalWidth(m_words, kLabelMargin, kWordPadding))), 170);
}

QSizeF StructuralArcView::exportSize() const
{
    return QSizeF(naturalWidth(m_words, kLabelMargin, kWordPadding), kLegendHeight + 2 * kNaturalHeight + kWordBand + 16.0);
}

void StructuralArcView::paintContent(QPainter *painter, const QRectF &rect) const
{
    const QFont wordsFont = wordFont();
    const QFont labelFont = smallFont();

    // Legend.
    painter->setFont(labelFont);
    const QFontMetricsF sfm(labelFont);
    const QPen goldPen(kDiagramGoldInk, 1.6);
    const QPen missedPen(kDiagramGoldInk, 1.6, Qt::DashLine);
    const QPen correctPen(kDiagramCorrectInk, 2.0);
    const QPen wrongPen(kDiagramWrongInk, 2.2);
    const double lx = paintLineLegend(painter, rect, kLegendHeight,
                                      {{goldPen, QObject::tr("gold edge")},
                                       {missedPen, QObject::tr("gold edge the probe missed")},
                                       {correctPen, QObject::tr("predicted, correct")},
                                       {wrongPen, QObject::tr("predicted, wrong")}});
    const double ly = rect.top() + kLegendHeight / 2.0;
    painter->setPen(kPunctInk);
    painter->drawText(QPointF(lx, ly + sfm.ascent() / 2.0 - 1.0), QObject::tr("grey: punctuation (not in the trees)"));

    // Vertical layout: legend, gold arcs, words, predicted arcs.
    const double arcSpace = std::max(20.0, (rect.height() - kLegendHeight - kWordBand - 8.0) / 2.0);
    const double goldBase = rect.top() + kLegendHeight + arcSpace;
    const double predBase = goldBase + kWordBand;
    const QFontMetricsF fm(wordsFont);
    std::vector<double> x;
    for (const auto &[left, right] : wordCells(m_words, fm, rect.left() + kLabelMargin, rect.right() - 12.0, kWordPadding))
        x.push_back((left + right) / 2.0);
    const int n = static_cast<int>(m_words.size());
    const double span = n > 1 ? x.back() - x.front() : 1.0;
    auto height = [&](const WordSpan &e) {
        const double dx = x[static_cast<std::size_t>(e.second)] - x[static_cast<std::size_t>(e.first)];
        return std::max(8.0, (arcSpace - 6.0) * std::sqrt(std::clamp(dx / span, 0.0, 1.0)));
    };
    auto valid = [&](const WordSpan &e) { return e.first >= 0 && e.second < n && e.first < e.second; };

    // Side labels.
    painter->setFont(labelFont);
    painter->setPen(QColor(60, 60, 60));
    painter->drawText(QRectF(rect.left() + 4.0, goldBase - arcSpace, kLabelMargin - 8.0, arcSpace),
                      Qt::AlignLeft | Qt::AlignBottom | Qt::TextWordWrap, QObject::tr("gold MST"));
    painter->drawText(QRectF(rect.left() + 4.0, predBase, kLabelMargin - 8.0, arcSpace),
                      Qt::AlignLeft | Qt::AlignTop | Qt::TextWordWrap, QObject::tr("probe MST"));

    painter->setBrush(Qt::NoBrush);
    const std::set<WordSpan> missed(m_classes.missed.begin(), m_classes.missed.end());
    for (const auto &e : m_gold) {
        if (!valid(e))
            continue;
        painter->setPen(missed.count(e) ? missedPen : goldPen);
        painter->drawPath(arcPath(x[static_cast<std::size_t>(e.first)], x[static_cast<std::size_t>(e.second)],
                                  goldBase - 2.0, height(e)));
    }
    for (const auto *list : {&m_classes.correct, &m_classes.wrong}) {
        painter->setPen(list == &m_classes.wrong ? wrongPen : correctPen);
        for (const auto &e : *list)
            if (valid(e))
                painter->drawPath(arcPath(x[static_cast<std::size_t>(e.first)], x[static_cast<std::size_t>(e.second)],
                                          predBase + 2.0, -height(e)));
    }

    // Words.
    painter->setFont(wordsFont);
    for (int i = 0; i < n; ++i) {
        const bool punct = i < static_cast<int>(m_punct.size()) && m_punct[static_cast<std::size_t>(i)];
        painter->setPen(punct ? kPunctInk : QColor(20, 20, 20));
        const double w = fm.horizontalAdvance(diagramWordLabel(m_words[static_cast<std::size_t>(i)])) + 8.0;
        painter->drawText(QRectF(x[static_cast<std::size_t>(i)] - w / 2.0, goldBase, w, kWordBand), Qt::AlignCenter,
                          diagramWordLabel(m_words[static_cast<std::size_t>(i)]));
    }
}

} // namespace treelens
