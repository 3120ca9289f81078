// What the dependency view's overlays show (see dependencyview.h): the attention,
// relation-gate and composition weights on the tree arcs and their hover texts, the
// attention arcs below the words, and the legends that explain them.
#include "viz/dependencyscene.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include <QFontMetricsF>
#include <QGraphicsLineItem>
#include <QGraphicsRectItem>
#include <QGraphicsScene>
#include <QGraphicsSimpleTextItem>
#include <QPen>

#include "core/data/overlays.h"
#include "viz/surprisalscale.h"

namespace treelens {

using namespace dependency;

bool DependencyView::relationMode() const
{
    if (!m_showAttention || !m_data.analysis || !m_data.analysis->relations || m_data.analysis->wordToken.empty())
        return false;
    const Analysis &a = *m_data.analysis;
    return selectedAttention(a, m_state) != nullptr && headValue(a.relationGate, m_state, 0, 0) >= 0;
}

double DependencyView::gateOf(int fromToken, int toToken) const
{
    return m_data.analysis ? headValue(m_data.analysis->relationGate, m_state, fromToken, toToken) : -1;
}

int DependencyView::tokenOf(int word) const
{
    const Analysis &a = *m_data.analysis;
    if (word < 0)
        return 0; // the [root] token
    return word < static_cast<int>(a.wordToken.size()) ? a.wordToken[static_cast<std::size_t>(word)] : -1;
}

QString DependencyView::relationPairText(int from, int to) const
{
    // "nsubj" / "1:2, tree distance 3 (1 up, 2 down)" / "[none], tree distance 5 (beyond T)".
    const Analysis &a = *m_data.analysis;
    const TokenRelations &r = *a.relations;
    const int i = tokenOf(from), j = tokenOf(to);
    if (i < 0 || j < 0 || i >= r.n || j >= r.n)
        return QString();
    const auto [up, down] = r.dist(i, j);
    const QString name = QString::fromStdString(r.name(i, j));
    const Matrix *m = selectedAttention(a, m_state);
    QString text = QStringLiteral("relation %1, tree distance %2 (%3 up, %4 down)").arg(name).arg(up + down).arg(up).arg(down);
    text += QStringLiteral("; %1 attention %2, gate %3 (layer %4, head %5)")
                .arg(attentionVariantName(a, m_state))
                .arg(m ? static_cast<double>(m->at(i, j)) : 0.0, 0, 'f', 3)
                .arg(gateOf(i, j), 0, 'f', 3)
                .arg(m_state.layer + 1)
                .arg(m_state.head + 1);
    return text;
}

bool DependencyView::colouredByAttention() const
{
    return m_showAttention && m_data.analysis && selectedAttention(*m_data.analysis, m_state) != nullptr
        && !m_data.analysis->wordToken.empty();
}

bool DependencyView::recursiveMode() const
{
    return m_showAttention && m_data.analysis && overlay::hasComposition(*m_data.analysis) &&
           m_data.analysis->nodeAttention.front().headWord >= 0;
}

int DependencyView::recursiveHeight(int head, const std::vector<int> &heights) const
{
    const auto &nodes = m_data.analysis->nodeAttention;
    for (std::size_t v = 0; v < nodes.size() && v < heights.size(); ++v)
        if (nodes[v].headWord == head)
            return heights[v];
    return 0;
}

QString DependencyView::recursiveBranchName() const
{
    return m_data.analysis->heads > 1 ? QStringLiteral("branch %1").arg(m_state.head + 1) : QStringLiteral("attention over the children");
}

double DependencyView::recursiveWeight(int head, int dependent, const char *array) const
{
    const auto &nodes = m_data.analysis->nodeAttention;
    for (const NodeAttention &na : nodes) {
        if (na.headWord != head)
            continue;
        // targets: the head word itself (-(head + 1), DTT) and the children (a word -(t + 1) or a node id).
        int child = 0;
        for (std::size_t k = 0; k < na.targets.size(); ++k) {
            const int t = na.targets[k];
            const int token = t < 0 ? -1 - t : (t < static_cast<int>(nodes.size()) ? nodes[static_cast<std::size_t>(t)].headWord : -1);
            const bool own = k == 0 && token == head;
            if (token == dependent) {
                const int b = m_state.head;
                if (std::string(array) == overlay::kNodeMemberAttention)
                    return b >= 0 && b < static_cast<int>(na.weights.size()) && k < na.weights[static_cast<std::size_t>(b)].size()
                               ? static_cast<double>(na.weights[static_cast<std::size_t>(b)][k])
                               : -1;
                // The edge traversal's attention [branch, k, k] over the children: mean over the querying edges.
                const auto it = na.arrays.find(array);
                if (own || it == na.arrays.end() || it->second.shape.size() != 3)
                    return -1;
                const NamedArray &m = it->second;
                const int kk = m.shape[1];
                if (b < 0 || b >= m.shape[0] || child >= kk)
                    return -1;
                double sum = 0;
                for (int r = 0; r < kk; ++r)
                    sum += static_cast<double>(m.data[static_cast<std::size_t>((b * kk + r) * kk + child)]);
                return sum / kk;
            }
            if (!own)
                ++child;
        }
    }
    return -1;
}

QString DependencyView::wordText(int word) const
{
    const auto &tokens = m_data.sentence->tokens;
    if (word < 0 || word >= static_cast<int>(tokens.size()))
        return QStringLiteral("ROOT");
    return QString::fromStdString(tokens[static_cast<std::size_t>(word)].text);
}

QString DependencyView::arcText(int dependent, int head) const
{
    const auto &dep = *m_data.sentence->dependency;
    const QString rel = QString::fromStdString(dep.deprels[static_cast<std::size_t>(dependent)]);
    QString text = head < 0 ? QStringLiteral("%1: %2 (word %3)").arg(rel, wordText(dependent)).arg(dependent + 1)
                            : QStringLiteral("%1: %2 ← %3").arg(rel, wordText(dependent), wordText(head));
    if (relationMode())
        return text + QStringLiteral(" — ") + relationPairText(dependent, head);
    if (head >= 0 && recursiveMode()) {
        text += QStringLiteral(", composition weight %1 (%2)").arg(recursiveWeight(head, dependent, overlay::kNodeMemberAttention), 0, 'f', 3).arg(recursiveBranchName());
        const double fwd = recursiveWeight(head, dependent, overlay::kNodeEdgeForwardAttention), bwd = recursiveWeight(head, dependent, overlay::kNodeEdgeBackwardAttention);
        if (fwd >= 0)
            text += QStringLiteral("; edge traversal: forward edge %1, backward edge %2").arg(fwd, 0, 'f', 3).arg(bwd, 0, 'f', 3);
        const double own = recursiveWeight(head, head, overlay::kNodeMemberAttention);
        if (own >= 0)
            text += QStringLiteral("; %1's own word %2").arg(wordText(head)).arg(own, 0, 'f', 3);
        return text;
    }
    if (head >= 0 && colouredByAttention()) {
        // A causal head sees the arc only as its later word attending the earlier one.
        const bool causal = m_data.analysis->causalAttention;
        const int from = causal ? std::max(dependent, head) : dependent, to = causal ? std::min(dependent, head) : head;
        const QString pair = causal ? QStringLiteral(" %1 \u2192 %2").arg(wordText(from), wordText(to)) : QString();
        text += QStringLiteral(", attention%1 %2 (layer %3, head %4)")
                    .arg(pair)
                    .arg(static_cast<double>(wordAttention(*m_data.analysis, m_state, from, to)), 0, 'f', 3)
                    .arg(m_state.layer + 1)
                    .arg(m_state.head + 1);
        if (causal)
            text += QStringLiteral(": the only direction a causal head sees this arc in");
    }
    return text;
}

std::vector<DependencyView::AttentionArc> DependencyView::attentionPairs(int words) const
{
    std::vector<AttentionArc> out;
    if (!m_showAttention || !m_data.analysis || !selectedAttention(*m_data.analysis, m_state))
        return out;
    const Analysis &a = *m_data.analysis;
    const int n = std::min(words, static_cast<int>(a.wordToken.size()));
    const bool relation = relationMode();
    const DependencyTree *tree = m_data.sentence ? (m_data.sentence->dependency ? &*m_data.sentence->dependency : nullptr) : nullptr;
    auto isTreeArc = [&](int from, int to) {
        return tree && from < static_cast<int>(tree->heads.size()) && tree->heads[static_cast<std::size_t>(from)] == to + 1;
    };
    const bool focus = m_state.focusWord >= 0 && m_state.focusWord < n;
    const bool topK = !focus && n > kAllPairsMaxWords;
    for (int from = focus ? m_state.focusWord : 0; from < (focus ? m_state.focusWord + 1 : n); ++from) {
        std::vector<AttentionArc> row;
        for (int to = 0; to < n; ++to) {
            if (to == from)
                continue; // self-attention has no arc
            if (a.causalAttention && to > from)
                continue; // not possible for a causal model: no arc at all, not one of weight 0
            if (relation && isTreeArc(from, to))
                continue; // drawn above the words as the tree arc
            const float w = wordAttention(a, m_state, from, to);
            if (static_cast<double>(w) >= m_state.threshold)
                row.push_back({nullptr, from, to, w});
        }
        if (topK && static_cast<int>(row.size()) > kTopPerRow) {
            std::stable_sort(row.begin(), row.end(), [](const AttentionArc &x, const AttentionArc &y) { return x.weight > y.weight; });
            row.resize(static_cast<std::size_t>(kTopPerRow));
        }
        out.insert(out.end(), row.begin(), row.end());
    }
    return out;
}

void DependencyView::addAttentionArcs(const std::vector<WordInfo> &words, double wordRowH)
{
    const int n = static_cast<int>(words.size());
    // Attention below the words, mirrored: deeper for longer spans (log-scaled so
    // sentence-long arcs stay on screen). Rightward and leftward arcs use
    // different endpoints and depths so i → j and j → i never coincide.
    const bool relation = relationMode();
    std::vector<AttentionArc> pairs = attentionPairs(n);
    m_topKApplied = !(m_state.focusWord >= 0 && m_state.focusWord < n) && n > kAllPairsMaxWords;
    const double y0 = wordRowH + 4 + surprisalBandSpace(); // below the surprisal band
    // Weak arcs first so strong ones are drawn on top.
    std::stable_sort(pairs.begin(), pairs.end(), [](const AttentionArc &x, const AttentionArc &y) { return x.weight < y.weight; });
    for (AttentionArc &p : pairs) {
        const int span = std::abs(p.to - p.from);
        const bool rightward = p.to > p.from;
        const double off = rightward ? 2.5 : -2.5;
        const double depth = (14 + 24 * std::log2(1.0 + span)) * (rightward ? 1.0 : 0.8);
        const double x1 = words[static_cast<std::size_t>(p.from)].center + off;
        const double x2 = words[static_cast<std::size_t>(p.to)].center + off;
        QPainterPath path;
        path.moveTo(x1, y0);
        path.cubicTo(x1, y0 + depth * 4 / 3, x2, y0 + depth * 4 / 3, x2, y0 + kArrowLength - 0.5);
        ArcItem *item = nullptr;
        QString text;
        if (relation) {
            // Colour = gate, width = attention; dashed: a pair the model sees as [none] (beyond T).
            const int ti = tokenOf(p.from), tj = tokenOf(p.to);
            const TokenRelations &rel = *m_data.analysis->relations;
            const bool none = rel.kind(ti, tj) == TokenRelations::Kind::None;
            QColor c = sequentialColor(std::max(0.0, gateOf(ti, tj)));
            c.setAlphaF(0.85f);
            item = new ArcItem(path, arrowAt(QPointF(x2, y0), QPointF(0, -1)), c, relationArcWidth(p.weight),
                               none ? Qt::DashLine : Qt::SolidLine);
            text = QStringLiteral("%1 → %2: ").arg(wordText(p.from), wordText(p.to)) + relationPairText(p.from, p.to);
        } else {
            item = new ArcItem(path, arrowAt(QPointF(x2, y0), QPointF(0, -1)), attentionArcColor(p.weight), attentionArcWidth(p.weight));
            text = QStringLiteral("attention %1 → %2: %3 (layer %4, head %5)")
                       .arg(wordText(p.from), wordText(p.to))
                       .arg(static_cast<double>(p.weight), 0, 'f', 3)
                       .arg(m_state.layer + 1)
                       .arg(m_state.head + 1);
        }
        item->onHover = [this, text] { Q_EMIT hovered(text); };
        item->setToolTip(text);
        item->setData(0, QStringLiteral("attention-arc"));
        item->setZValue(1);
        m_scene->addItem(item);
        p.item = item;
        m_attentionArcs.push_back(p);
    }
    // Report pairs in row order (from, then to), independent of drawing order.
    std::sort(m_attentionArcs.begin(), m_attentionArcs.end(),
              [](const AttentionArc &x, const AttentionArc &y) { return std::make_pair(x.from, x.to) < std::make_pair(y.from, y.to); });
}

bool DependencyView::surprisalShown() const
{
    return m_showSurprisal && m_data.analysis && !m_data.analysis->surprisal.empty() && m_data.sentence &&
           m_data.analysis->surprisal.size() == m_data.sentence->tokens.size();
}

double DependencyView::surprisalBandSpace() const
{
    return surprisalShown() ? kSurprisalBandHeight + 3.0 : 0.0;
}

void DependencyView::addWordBands()
{
    m_surprisalBands.clear();
    m_attributionBands.clear();
    if (surprisalShown())
        addSurprisalBand();
    addAttributionBands(surprisalBandSpace()); // under the surprisal band when there is one
}

void DependencyView::addSurprisalBand()
{
    const SurprisalScale scale(m_data.analysis.get());
    std::vector<QRectF> rects;
    double top = 0.0;
    for (QGraphicsItem *w : m_wordItems) {
        rects.push_back(w->sceneBoundingRect());
        top = std::max(top, rects.back().bottom() + 2.0);
    }
    for (SurprisalBandItem *band : treelens::addSurprisalBand(*m_scene, scale, rects, top, kSurprisalBandHeight)) {
        band->setData(0, QStringLiteral("surprisal"));
        band->setData(1, band->word());
        band->onHover = [this](const QString &text) { Q_EMIT hovered(text); };
        m_surprisalBands.push_back(band);
    }
    // The key under everything drawn (the attention arcs hang below the words).
    const QRectF drawn = m_scene->itemsBoundingRect();
    const double left = m_wordItems.empty() ? drawn.left() : m_wordItems.front()->sceneBoundingRect().left();
    const SurprisalKey key = addSurprisalKey(*m_scene, scale, QPointF(left, drawn.bottom() + 12.0), scaledFont(font(), 8.5),
                                             QColor(30, 30, 30));
    for (QGraphicsItem *item : key.items)
        item->setData(0, QStringLiteral("surprisal-key"));
    m_notes << SurprisalScale::bandNote();
}

void DependencyView::addAttributionBands(double below)
{
    // Attributions (the Explain dock): a band under each word, diverging colours.
    if (const NamedArray *attr = m_data.analysis ? overlay::wordAttribution(*m_data.analysis) : nullptr;
        attr && attr->data.size() == m_wordItems.size()) {
        double largest = 0.0;
        bool negative = false;
        for (float v : attr->data) {
            largest = std::max(largest, std::abs(static_cast<double>(v)));
            negative = negative || v < 0;
        }
        for (std::size_t i = 0; i < m_wordItems.size(); ++i) {
            const QRectF w = m_wordItems[i]->sceneBoundingRect();
            const double v = attr->data[i];
            auto *band = m_scene->addRect(QRectF(w.left() + 1, w.bottom() + 2 + below, w.width() - 2, 6), QPen(QColor(150, 150, 150), 0.4),
                                          QBrush(divergingColor(largest > 0 ? v / largest : 0.0)));
            band->setData(0, QStringLiteral("attribution"));
            band->setData(1, static_cast<int>(i));
            band->setToolTip(tr("attribution of \u201c%1\u201d: %2").arg(wordText(static_cast<int>(i))).arg(v, 0, 'f', 5));
            m_attributionBands.push_back(band);
        }
        m_notes << (negative ? tr("Bands under the words: each word's attribution to the prediction (Explain dock): red raises "
                                 "it, blue lowers it; the largest |attribution| is %1")
                                   .arg(largest, 0, 'f', 4)
                             : tr("Bands under the words: each word's share of the attention rolled out to the prediction "
                                  "(Explain dock; not a gradient); the largest is %1")
                                   .arg(largest, 0, 'f', 4));
    }
}

double DependencyView::addLegend(const QPointF &topLeft, bool attentionKey)
{
    if (relationMode())
        return addRelationLegend(topLeft, attentionKey);
    const QFont font9 = scaledFont(font(), 9.0);
    const QFont font8 = scaledFont(font(), 8.5);
    const QFontMetricsF fm9(font9), fm8(font8);
    double y = topLeft.y();
    const double x = topLeft.x();
    if (recursiveMode()) {
        addLegendText(QStringLiteral("Tree arcs: how the head's subtree composes each dependent (attention it receives, mean over the "
                                     "querying members), %1; colour and width = weight")
                          .arg(recursiveBranchName()),
                      font9, QPointF(x, y));
        y += fm9.height() + 3;
        y += addColourBar(QPointF(x, y), QStringLiteral("weight (0–1)"));
        bool edges = false;
        for (const auto &na : m_data.analysis->nodeAttention)
            edges = edges || na.arrays.count(overlay::kNodeEdgeForwardAttention);
        if (edges) {
            addLegendText(QStringLiteral("Label colour: the edge traversal's forward-edge attention on that arc (same scale); "
                                         "hover an arc for the backward edge"),
                          font8, QPointF(x, y));
            y += fm8.height() + 3;
        }
        return y - topLeft.y();
    }
    const QString kind = (!m_state.weightedAttention && !m_data.analysis->attentionRaw.empty())
        ? QStringLiteral("softmax")
        : QStringLiteral("attention");
    const bool causal = m_data.analysis->causalAttention;
    addLegendText(QStringLiteral("Tree arc colour: %1 %2, layer %3 head %4")
                      .arg(kind,
                           causal ? QStringLiteral("of the later word to the earlier one (the only direction a causal head "
                                                   "sees an arc in)")
                                  : QStringLiteral("dependent → head"))
                      .arg(m_state.layer + 1)
                      .arg(m_state.head + 1),
                  font9, QPointF(x, y));
    y += fm9.height() + 3;
    // Gradient bar 0..1 sampled from the same colour map the arcs use.
    y += addColourBar(QPointF(x, y), QStringLiteral("weight (0–1)"));
    if (causal) { // arcs to later words are not possible: none drawn, not arcs of weight 0
        addLegendText(QStringLiteral("Attention to later words: ") + causalNote(), font9, QPointF(x, y));
        y += fm9.height() + 3;
    }
    if (attentionKey) {
        QString caption = QStringLiteral("Arcs below the words: attention query → key, weight ≥ %1").arg(m_state.threshold, 0, 'g', 3);
        if (m_topKApplied)
            caption += QStringLiteral(" (strongest %1 per word)").arg(kTopPerRow);
        else if (m_state.focusWord >= 0)
            caption += QStringLiteral(" (from the focus word only)");
        addLegendText(caption, font9, QPointF(x, y));
        y += fm9.height() + 3;
        double kx = x;
        for (float w : {0.1f, 0.25f, 0.5f, 1.0f}) {
            auto *line = m_scene->addLine(kx, y + 6, kx + 28, y + 6,
                                          QPen(attentionArcColor(w), attentionArcWidth(w), Qt::SolidLine, Qt::FlatCap));
            line->setData(0, QStringLiteral("legend"));
            const QString s = QString::number(static_cast<double>(w), 'g', 2);
            addLegendText(s, font8, QPointF(kx + 32, y + 6 - fm8.height() / 2));
            kx += 32 + fm8.horizontalAdvance(s) + 14;
        }
        y += 14;
    }
    return y - topLeft.y();
}

QGraphicsSimpleTextItem *DependencyView::addLegendText(const QString &text, const QFont &font, const QPointF &pos)
{
    auto *t = m_scene->addSimpleText(text, font);
    t->setBrush(QColor(30, 30, 30));
    t->setPos(pos);
    t->setData(0, QStringLiteral("legend"));
    return t;
}

double DependencyView::addColourBar(const QPointF &topLeft, const QString &unit)
{
    const QFont font8 = scaledFont(font(), 8.5);
    const QFontMetricsF fm8(font8);
    const double x = topLeft.x(), y = topLeft.y(), barW = 180, barH = 10;
    auto addText = [&](const QString &s, const QPointF &pos) { addLegendText(s, font8, pos); };
    auto *bar = m_scene->addRect(QRectF(x, y, barW, barH), QPen(QColor(120, 120, 120), 0.5),
                                 QBrush(sequentialGradient(QPointF(x, 0), QPointF(x + barW, 0))));
    bar->setData(0, QStringLiteral("legend"));
    for (double v : {0.0, 0.25, 0.5, 0.75, 1.0}) {
        const double tx = x + v * barW;
        auto *tick = m_scene->addLine(tx, y + barH, tx, y + barH + 3, QPen(QColor(120, 120, 120), 0.6));
        tick->setData(0, QStringLiteral("legend"));
        const QString s = QString::number(v, 'g', 2);
        addText(s, QPointF(tx - fm8.horizontalAdvance(s) / 2, y + barH + 3));
    }
    addText(unit, QPointF(x + barW + 10, y - 1));
    return barH + 3 + fm8.height() + 6;
}

double DependencyView::addRelationLegend(const QPointF &topLeft, bool attentionKey)
{
    const QFont font9 = scaledFont(font(), 9.0);
    const QFont font8 = scaledFont(font(), 8.5);
    const QFontMetricsF fm9(font9), fm8(font8);
    double y = topLeft.y();
    const double x = topLeft.x();
    addLegendText(QStringLiteral("Colour: the relation gate g of the query word (0: plain score S\u1d49, 1: relation score S\u02b3), "
                                 "layer %1 head %2")
                      .arg(m_state.layer + 1)
                      .arg(m_state.head + 1),
                  font9, QPointF(x, y));
    y += fm9.height() + 3;
    y += addColourBar(QPointF(x, y), QStringLiteral("gate g"));
    QString caption = QStringLiteral("Width: %1 attention query \u2192 key; tree arcs above (dependent \u2192 head)")
                          .arg(attentionVariantName(*m_data.analysis, m_state));
    if (attentionKey) {
        caption += QStringLiteral(", other pairs below (weight \u2265 %1").arg(m_state.threshold, 0, 'g', 3);
        if (m_topKApplied)
            caption += QStringLiteral(", strongest %1 per word").arg(kTopPerRow);
        else if (m_state.focusWord >= 0)
            caption += QStringLiteral(", from the focus word only");
        caption += QStringLiteral(")");
    }
    addLegendText(caption, font9, QPointF(x, y));
    y += fm9.height() + 3;
    double kx = x;
    const QColor keyColor = sequentialColor(0.5);
    for (double w : {0.1, 0.25, 0.5, 1.0}) {
        auto *line = m_scene->addLine(kx, y + 6, kx + 28, y + 6, QPen(keyColor, relationArcWidth(w), Qt::SolidLine, Qt::FlatCap));
        line->setData(0, QStringLiteral("legend"));
        const QString s = QString::number(w, 'g', 2);
        addLegendText(s, font8, QPointF(kx + 32, y + 6 - fm8.height() / 2));
        kx += 32 + fm8.horizontalAdvance(s) + 14;
    }
    if (attentionKey) {
        kx += 10;
        auto *solid = m_scene->addLine(kx, y + 6, kx + 28, y + 6, QPen(QColor(90, 90, 90), 1.6, Qt::SolidLine, Qt::FlatCap));
        solid->setData(0, QStringLiteral("legend"));
        const QString s1 = QStringLiteral("tree arc or infilled a:b pair (tree distance \u2264 T)");
        addLegendText(s1, font8, QPointF(kx + 32, y + 6 - fm8.height() / 2));
        kx += 32 + fm8.horizontalAdvance(s1) + 14;
        auto *dashed = m_scene->addLine(kx, y + 6, kx + 28, y + 6, QPen(QColor(90, 90, 90), 1.6, Qt::DashLine, Qt::FlatCap));
        dashed->setData(0, QStringLiteral("legend"));
        addLegendText(QStringLiteral("[none]: farther apart"), font8, QPointF(kx + 32, y + 6 - fm8.height() / 2));
    }
    y += 14;
    return y - topLeft.y();
}

void DependencyView::addLegendAbove(double left, double top, bool attentionKey)
{
    // Lay the legend out once off-scene to learn its height, then place it above.
    const double h = addLegend(QPointF(left, 0), attentionKey);
    for (QGraphicsItem *item : m_scene->items())
        if (item->data(0).toString() == QLatin1String("legend"))
            item->moveBy(0, top - h - 14);
}

} // namespace treelens
