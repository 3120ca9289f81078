// Drawing the constituency view's laid-out trees (see constituencyview.h): the edges
// (with a TAT's or recursive model's node attention), the phrase, bracket and word
// boxes with their overlay colours and hover texts, and the induced-only brackets
// under the words.
#include "viz/constituencyview.h"

#include <algorithm>
#include <cmath>

#include <QFontMetricsF>
#include <QGraphicsEllipseItem>
#include <QGraphicsPathItem>
#include <QGraphicsScene>
#include <QGraphicsSimpleTextItem>
#include <QPainterPath>

#include "core/base/numbering.h"
#include "core/data/overlays.h"
#include "viz/constituencystyle.h"
#include "viz/patternmarks.h"
#include "viz/surprisalscale.h"

namespace treelens {

using namespace constituency;

namespace {

QColor textOn(const QColor &fill)
{
    return textOnColor(fill, kInk);
}

QString fmt(double v) { return QString::number(v, 'f', 3); }

/// Words as a person counts them: "words 4–7" (core/base/numbering.h).
QString spanLabel(std::pair<int, int> s)
{
    return QString::fromStdString(wordSpanText(s.first, s.second));
}

/// A text item centred on its parent's origin.
void addCentredText(QGraphicsItem *parent, const QString &text, const QFont &font, const QColor &color)
{
    auto *item = new QGraphicsSimpleTextItem(text, parent);
    item->setFont(font);
    item->setBrush(color);
    const QRectF r = item->boundingRect();
    item->setPos(-r.width() / 2.0, -r.height() / 2.0);
    // Hover/click look-ups walk to the parent box.
    item->setAcceptedMouseButtons(Qt::NoButton);
}

/// The Explain dock's word attributions summed over a node's words: every node gets a
/// badge with its total, coloured against the largest total of the tree.
struct AttributionTotals {
    const NamedArray *array = nullptr; ///< per word; null: no badges
    double largest = 0.0;              ///< the largest |total| of the tree's nodes
    double over(std::pair<int, int> span) const
    {
        double sum = 0.0;
        for (int w = std::max(0, span.first); array && w < span.second && w < static_cast<int>(array->data.size()); ++w)
            sum += array->data[static_cast<std::size_t>(w)];
        return sum;
    }
};

/// The badge at the top-right corner of a node's `item` (a word's at its bottom-right corner:
/// the POS tag sits above the word, and a badge at the top covered it, issue 47): the total
/// over its words, diverging colours.
QGraphicsEllipseItem *addAttributionBadge(QGraphicsPathItem *item, double total, double largest, bool word)
{
    const QRectF box = item->shape().boundingRect();
    // A word's box is tight around its text: the badge just outside its right edge.
    const QRectF at = word ? QRectF(box.right() - 1.0, box.bottom() - 7.0, 9.0, 9.0) : QRectF(box.right() - 4.0, box.top() - 5.0, 9.0, 9.0);
    auto *badge = new QGraphicsEllipseItem(at, item);
    badge->setBrush(divergingColor(total / largest));
    badge->setPen(QPen(QColor(120, 120, 120), 0.5));
    badge->setData(0, QStringLiteral("attribution"));
    badge->setData(1, QVariant::fromValue(total));
    return badge;
}

} // namespace

struct ConstituencyView::NodeLook {
    QPainterPath shape;
    QBrush fill{Qt::white};
    QPen pen{kBorder, 0.8};
    QColor text = kInk;
    QStringList hover; ///< joined by newlines
};

QColor ConstituencyView::notApplicableColor() { return kNotApplicable; }

QString ConstituencyView::spanText(std::pair<int, int> span) const
{
    QStringList w;
    for (int i = span.first; i < span.second && i < static_cast<int>(m_words.size()); ++i)
        w << m_words[static_cast<std::size_t>(i)];
    QString text = w.join(QLatin1Char(' '));
    if (text.size() > 60)
        text = text.left(57) + QStringLiteral("…");
    return QStringLiteral("“%1”").arg(text);
}

ConstituencyView::DrawnTree ConstituencyView::drawTree(const TreeGraph &graph, QPointF topLeft, bool compare)
{
    QGraphicsScene *s = scene();
    DrawnTree drawn;
    const GraphLayoutResult &layout = graph.layout;
    const QPointF offset = topLeft - layout.bounds.topLeft();
    drawn.rect = layout.bounds.translated(offset);
    drawn.words.assign(m_words.size(), nullptr);

    const bool overlay = overlayActive();
    // A node's words as its badge counts them (a word node without an index has none).
    auto badgeSpan = [](const TreeGraph::Node &node) -> std::optional<std::pair<int, int>> {
        if (node.kind != TreeGraph::Kind::Word)
            return node.span;
        if (node.word >= 0)
            return std::make_pair(node.word, node.word + 1);
        return std::nullopt;
    };
    AttributionTotals attribution{m_data.analysis ? overlay::wordAttribution(*m_data.analysis) : nullptr};
    if (attribution.array)
        for (const auto &node : graph.nodes)
            if (const auto span = badgeSpan(node))
                attribution.largest = std::max(attribution.largest, std::abs(attribution.over(*span)));

    drawTreeEdges(graph, offset);

    for (std::size_t i = 0; i < graph.nodes.size() && i < layout.centers.size(); ++i) {
        const TreeGraph::Node &node = graph.nodes[i];
        const NodeLook look = nodeLook(node, compare, overlay);
        QGraphicsPathItem *item = nodeItem(node, look, layout.centers[i] + offset, drawn);
        QString itemHover = look.hover.join(QLatin1Char('\n'));
        const auto span = badgeSpan(node);
        if (attribution.array && attribution.largest > 0 && span) {
            const double total = attribution.over(*span);
            QGraphicsItem *badge = addAttributionBadge(item, total, attribution.largest, node.kind == TreeGraph::Kind::Word);
            itemHover += (itemHover.isEmpty() ? QString() : QStringLiteral("\n")) +
                         QStringLiteral("attribution over its words: %1").arg(total, 0, 'f', 5);
            drawn.attributionBadges.push_back({badge, *span});
        }
        item->setData(kHoverKey, itemHover);
        item->setToolTip(itemHover);
        s->addItem(item);
        drawn.nodes.push_back(item);
    }
    return drawn;
}

bool ConstituencyView::patternMarksShown() const
{
    return m_data.marks && m_data.sentence && m_data.marks->fits(*m_data.sentence) && !m_data.marks->marks.empty();
}

void ConstituencyView::drawPatternMarks(const TreeGraph &graph, DrawnTree &drawn)
{
    if (!patternMarksShown())
        return;
    for (const PatternMarkGroup &g : groupPatternMarks(*m_data.marks)) {
        // The node drawn for it: a constituent by its words and label; a word (or a part-of-speech
        // tag or leaf a Tregex node bound: the view folds them into the word's box) by its leaf.
        QGraphicsItem *target = nullptr;
        for (std::size_t i = 0; i < graph.nodes.size() && i < drawn.nodes.size() && !target; ++i) {
            const TreeGraph::Node &n = graph.nodes[i];
            if (g.phrase && n.kind == TreeGraph::Kind::Phrase && n.span == std::make_pair(g.first, g.last + 1) && n.text == g.label)
                target = drawn.nodes[i];
        }
        if (!target && g.first == g.last && g.first >= 0 && g.first < static_cast<int>(drawn.words.size()))
            target = drawn.words[static_cast<std::size_t>(g.first)];
        if (!target)
            continue;
        // The node with its children (a word's tag above it).
        const QRectF rect = target->sceneBoundingRect()
                                .united(target->mapRectToScene(target->childrenBoundingRect()))
                                .adjusted(-3.0, -3.0, 3.0, 3.0);
        drawn.patternMarks.push_back(addPatternMark(scene(), rect, g, 0.5));
    }
}

void ConstituencyView::drawTreeEdges(const TreeGraph &graph, QPointF offset)
{
    const GraphLayoutResult &layout = graph.layout;
    QPen edgePen(kEdge, 0.9);
    edgePen.setCapStyle(Qt::RoundCap);
    const bool nodeAttention = nodeAttentionActive();
    for (std::size_t e = 0; e < graph.edges.size() && e < layout.edgePaths.size(); ++e) {
        QPen pen = edgePen;
        QString tip;
        const int parentTat = graph.nodes[static_cast<std::size_t>(graph.edges[e].first)].tatNode;
        const bool waiting = m_tat && parentTat >= 0 && parentTat < static_cast<int>(m_tat->nodes.size()) &&
                             aggregationPhase(*m_tat, m_tat->nodes[static_cast<std::size_t>(parentTat)].level, m_state.aggregationStep) ==
                                 AggregationPhase::Pending;
        if (waiting) {
            // Not aggregated yet at this step: the edge carries no weight.
            pen = QPen(kPendingInk, 0.6, Qt::DashLine, Qt::RoundCap);
        } else if (nodeAttention && recursivePendingEdge(graph, graph.edges[e].first)) {
            // A recursive model's node not composed yet at this step.
            pen = QPen(kPendingInk, 0.6, Qt::DashLine, Qt::RoundCap);
        } else if (nodeAttention) {
            // A TAT phrase's aggregation weight on this child (the selected head): colour and width.
            const double w = nodeAttentionWeight(graph, graph.edges[e].first, graph.edges[e].second);
            if (w >= 0) {
                pen = QPen(sequentialColor(w), 0.9 + 4.0 * w, Qt::SolidLine, Qt::RoundCap);
                tip = QStringLiteral("%1 attends to %2 with weight %3 (%4)")
                          .arg(graph.nodes[static_cast<std::size_t>(graph.edges[e].first)].text,
                               graph.nodes[static_cast<std::size_t>(graph.edges[e].second)].text)
                          .arg(w, 0, 'f', 3)
                          .arg(nodeHeadName());
            }
        }
        auto *item = scene()->addPath(layout.edgePaths[e].translated(offset), pen);
        item->setZValue(0);
        if (!tip.isEmpty()) {
            item->setToolTip(tip);
            item->setData(0, QStringLiteral("node-attention"));
            item->setData(1, pen.widthF());
        } else {
            item->setAcceptedMouseButtons(Qt::NoButton);
        }
    }
}

ConstituencyView::NodeLook ConstituencyView::nodeLook(const TreeGraph::Node &node, bool compare, bool overlay)
{
    NodeLook look;
    std::optional<double> value;
    bool notApplicable = false;
    if (overlay) {
        if (m_overlay == Overlay::Cohesion && node.kind != TreeGraph::Kind::Word) {
            value = cohesion(node.span);
            notApplicable = node.span.second - node.span.first < 2;
        } else if (m_overlay == Overlay::FocusAttention) {
            value = focusAttention(node.span);
        }
    }
    if (node.kind == TreeGraph::Kind::Word)
        lookOfWord(node, overlay, look);
    else
        lookOfPhrase(node, compare, notApplicable, look);
    if (overlay && m_overlay == Overlay::FocusAttention && m_data.analysis->causalAttention &&
        node.span.first > m_state.focusWord) {
        // Words after the focus word: a causal model's word never attends them (not attention 0).
        look.fill = hatchFill();
        look.text = kInk;
        look.hover << causalNote();
    } else if (value) {
        lookOfValue(node, *value, look);
    }
    return look;
}

void ConstituencyView::lookOfPhrase(const TreeGraph::Node &node, bool compare, bool notApplicable, NodeLook &look)
{
    const bool dot = node.kind == TreeGraph::Kind::Dot;
    const QSizeF size = dot ? QSizeF(kDotSize, kDotSize)
                            : QSizeF(std::max(24.0, QFontMetricsF(phraseFont()).horizontalAdvance(node.text) + 12.0),
                                     kNodeHeight);
    const QRectF r(-size.width() / 2.0, -size.height() / 2.0, size.width(), size.height());
    if (dot)
        look.shape.addEllipse(r);
    else
        look.shape.addRoundedRect(r, 4.0, 4.0);
    if (dot)
        look.fill = QColor(0xb0, 0xb0, 0xb0);
    look.hover << QStringLiteral("%1 %2 %3")
                      .arg(dot ? QStringLiteral("induced bracket") : node.text, spanLabel(node.span), spanText(node.span));
    if (compare) {
        const auto compared = comparedSpan(node.span);
        if (m_sharedKept.count(compared)) {
            look.pen = QPen(kShared, 2.2);
            look.hover << QStringLiteral("shared: also an induced bracket");
        } else if (m_missingKept.count(compared)) {
            look.pen = QPen(kMissing, 1.6, Qt::DashLine);
            look.hover << QStringLiteral("missing: not among the induced brackets");
        } else {
            look.hover << QStringLiteral("not compared (whole sentence, or one word once punctuation is removed)");
        }
    }
    if (notApplicable) {
        look.fill = kNotApplicable;
        look.hover << QStringLiteral("one word: cohesion does not apply (C of a word with itself is 0 by construction)");
    }
    if (m_tat && node.tatNode >= 0 && node.tatNode < static_cast<int>(m_tat->nodes.size())) {
        const auto phase = aggregationPhase(*m_tat, m_tat->nodes[static_cast<std::size_t>(node.tatNode)].level, m_state.aggregationStep);
        m_tatPhases.push_back({node.tatNode, static_cast<int>(phase)});
        if (phase == AggregationPhase::Pending) {
            look.fill = kPendingFill;
            look.text = kPendingInk;
            look.pen = QPen(kPendingInk, 0.8, Qt::DashLine);
        } else if (phase == AggregationPhase::Current) {
            look.pen = QPen(kCurrentStep, 2.6);
        }
        if (node.tatNode == m_selectedTat)
            look.pen = QPen(Qt::black, 2.6);
        look.hover << tatHoverLines(node.tatNode);
    }
}

void ConstituencyView::lookOfWord(const TreeGraph::Node &node, bool overlay, NodeLook &look) const
{
    const double w = QFontMetricsF(wordFont()).horizontalAdvance(node.text) + 8.0;
    look.shape.addRoundedRect(QRectF(-w / 2.0, -kNodeHeight / 2.0, w, kNodeHeight), 3.0, 3.0);
    look.pen = QPen(overlay ? kBorder : QColor(0xc8, 0xc8, 0xc8), 0.7);
    look.hover << QStringLiteral("“%1” word %2%3")
                      .arg(node.text)
                      .arg(node.word + 1)
                      .arg(node.pos.isEmpty() ? QString() : QStringLiteral(", %1").arg(node.pos));
    if (node.word == m_state.focusWord && node.word >= 0) {
        look.pen = QPen(Qt::black, 2.0);
        look.hover << QStringLiteral("focus word");
    }
}

void ConstituencyView::lookOfValue(const TreeGraph::Node &node, double value, NodeLook &look) const
{
    const QString layerText = QStringLiteral("layer %1").arg(m_state.layer + 1);
    const QString focusName = (m_state.focusWord >= 0 && m_state.focusWord < static_cast<int>(m_words.size()))
                                  ? m_words[static_cast<std::size_t>(m_state.focusWord)]
                                  : QString();
    look.fill = sequentialColor(value);
    look.text = textOn(look.fill.color());
    if (m_overlay == Overlay::Cohesion)
        look.hover << QStringLiteral("%1 %2 cohesion at %3: %4")
                          .arg(node.kind == TreeGraph::Kind::Dot ? QStringLiteral("bracket") : node.text,
                               spanLabel(node.span), layerText, fmt(value));
    else if (node.kind == TreeGraph::Kind::Word)
        look.hover << QStringLiteral("attention from “%1” (%2, head %3): %4")
                          .arg(focusName, layerText)
                          .arg(m_state.head + 1)
                          .arg(fmt(value));
    else
        look.hover << QStringLiteral("attention from “%1” (%2, head %3), summed over %4 words: %5")
                          .arg(focusName, layerText)
                          .arg(m_state.head + 1)
                          .arg(node.span.second - node.span.first)
                          .arg(fmt(value));
}

QGraphicsPathItem *ConstituencyView::nodeItem(const TreeGraph::Node &node, const NodeLook &look, QPointF centre,
                                              DrawnTree &drawn) const
{
    auto *item = new QGraphicsPathItem(look.shape);
    item->setBrush(look.fill);
    item->setPen(look.pen);
    QPointF at = centre;
    if (node.kind == TreeGraph::Kind::Dot) {
        drawn.phrases.push_back({item, node.span});
    } else if (node.kind == TreeGraph::Kind::Phrase) {
        addCentredText(item, node.text, phraseFont(), look.text);
        drawn.phrases.push_back({item, node.span});
        if (m_tat && node.tatNode >= 0) {
            item->setData(kTatNodeKey, node.tatNode);
            item->setCursor(Qt::PointingHandCursor);
        }
    } else {
        addCentredText(item, node.text, wordFont(), look.text);
        if (!node.pos.isEmpty()) {
            // The leaf node is tag over word: the box takes the lower part, the
            // tag (small, grey: it annotates the word) sits above it as a child
            // so hovering or clicking it means the word.
            at.ry() += kPosHeight / 2.0;
            auto *tag = new QGraphicsSimpleTextItem(node.pos, item);
            tag->setFont(posFont());
            tag->setBrush(kPos);
            const QRectF r = tag->boundingRect();
            tag->setPos(-r.width() / 2.0, -kNodeHeight / 2.0 - kPosHeight + (kPosHeight - r.height()) / 2.0);
        }
        item->setData(kWordKey, node.word);
        item->setCursor(Qt::PointingHandCursor);
        if (node.word >= 0 && node.word < static_cast<int>(drawn.words.size()))
            drawn.words[static_cast<std::size_t>(node.word)] = item;
    }
    item->setPos(at);
    item->setZValue(1);
    return item;
}

double ConstituencyView::drawSurprisalBand(const DrawnTree &tree, double top)
{
    m_surprisalBands.clear();
    if (!surprisalShown())
        return top;
    const SurprisalScale scale(m_data.analysis.get());
    std::vector<QRectF> rects;
    double bandTop = top;
    for (const QGraphicsPathItem *w : tree.words) {
        rects.push_back(w ? w->sceneBoundingRect() : QRectF());
        if (w)
            bandTop = std::max(bandTop, rects.back().bottom() + 3.0);
    }
    for (SurprisalBandItem *band : addSurprisalBand(*scene(), scale, rects, bandTop, 8.0)) {
        band->setData(kHoverKey, band->text()); // the view's hover reads this
        band->setData(kWordKey, band->word());  // a click on the band chooses the word, as on the leaf
        m_surprisalBands.push_back(band);
    }
    return bandTop + 8.0;
}

double ConstituencyView::drawSurprisalKey(const DrawnTree &tree, double top)
{
    if (m_surprisalBands.empty())
        return top;
    const SurprisalScale scale(m_data.analysis.get());
    return addSurprisalKey(*scene(), scale, QPointF(tree.rect.left(), top + 12.0), smallFont(), kInk).rect.bottom();
}

bool ConstituencyView::surprisalShown() const
{
    return m_showSurprisal && m_data.analysis && !m_data.analysis->surprisal.empty() &&
           m_data.analysis->surprisal.size() == m_words.size();
}

void ConstituencyView::drawExtraBrackets(const DrawnTree &tree, double top)
{
    if (m_extra.empty())
        return;
    QGraphicsScene *s = scene();
    const QFontMetricsF fm(smallFont());
    // Nested extra brackets (a near right-branching induced tree) each need their
    // own row; past this many rows the rest are listed as text instead of
    // growing a staircase hundreds of rows tall.
    constexpr std::size_t kMaxRows = 10;
    constexpr double kRowHeight = 21.0;
    // Greedy row assignment by start (interval colouring, optimal for intervals):
    // a bracket goes on the first row where neither it nor its label collides.
    std::vector<double> rowEnd;
    std::vector<std::pair<int, int>> listed;
    QPen pen(kExtra, 1.4);
    pen.setCapStyle(Qt::FlatCap);
    for (const auto &span : m_extra) {
        if (span.first < 0 || span.second > static_cast<int>(tree.words.size()))
            continue;
        const QGraphicsPathItem *first = tree.words[static_cast<std::size_t>(span.first)];
        const QGraphicsPathItem *last = tree.words[static_cast<std::size_t>(span.second - 1)];
        if (!first || !last)
            continue;
        const double x0 = first->sceneBoundingRect().left() + 1.0;
        const double x1 = last->sceneBoundingRect().right() - 1.0;
        const QString label = spanLabel(span);
        const double labelW = fm.horizontalAdvance(label);
        const double cx = (x0 + x1) / 2.0;
        const double left = std::min(x0, cx - labelW / 2.0);
        const double right = std::max(x1, cx + labelW / 2.0);
        std::size_t row = 0;
        while (row < rowEnd.size() && rowEnd[row] + 4.0 > left)
            ++row;
        if (row >= kMaxRows) {
            listed.push_back(span);
            continue;
        }
        if (row == rowEnd.size())
            rowEnd.push_back(right);
        else
            rowEnd[row] = right;
        const double y = top + 8.0 + static_cast<double>(row) * kRowHeight;
        QPainterPath p;
        p.moveTo(x0, y - 5.0);
        p.lineTo(x0, y);
        p.lineTo(x1, y);
        p.lineTo(x1, y - 5.0);
        auto *item = s->addPath(p, pen);
        const auto c = cohesion(span);
        const QString hover = QStringLiteral("extra: induced bracket %1 %2 is not a parser constituent")
                                  .arg(spanLabel(span), spanText(span)) +
                              (c ? QStringLiteral("\ncohesion at layer %1: %2").arg(m_state.layer + 1).arg(fmt(*c))
                                 : QString());
        item->setData(kHoverKey, hover);
        item->setToolTip(hover);
        auto *text = addText(s, label, smallFont(), kExtra, QPointF(cx - labelW / 2.0, y + 1.0));
        text->setData(kHoverKey, hover);
        text->setToolTip(hover);
    }
    if (listed.empty())
        return;
    // The rest as wrapped text lines, as wide as the tree. Wrapped here, not by wrapToWidth:
    // that breaks at any space, and a label ("words 4–7") stays whole on one line.
    const double width = std::max(tree.rect.width(), 400.0);
    double y = top + 8.0 + static_cast<double>(rowEnd.size()) * kRowHeight + 4.0;
    QString line = QStringLiteral("%1 more extra brackets:").arg(listed.size());
    auto flush = [&]() {
        addText(s, line, smallFont(), kExtra, QPointF(tree.rect.left(), y));
        y += fm.height() + 2.0;
        line.clear();
    };
    for (const auto &span : listed) {
        const QString label = spanLabel(span);
        if (!line.isEmpty() && fm.horizontalAdvance(line + QLatin1Char(' ') + label) > width)
            flush();
        line += (line.isEmpty() ? QString() : QStringLiteral(" ")) + label;
    }
    flush();
}

} // namespace treelens
