// The dependency view's layouts (see dependencyview.h): the words and tree arcs of
// the sentence, laid out displaCy-style (word columns, arc slots and levels) or
// top-down by Graphviz (the hierarchical layout).
#include "viz/dependencyscene.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include <QFontMetricsF>
#include <QGraphicsScene>

#include "core/data/overlays.h"
#include "viz/graphlayout.h"

namespace treelens {

using namespace dependency;

void DependencyView::collect(std::vector<WordInfo> &words, std::vector<Arc> &arcs) const
{
    const auto &tokens = m_data.sentence->tokens;
    const int n = static_cast<int>(tokens.size());
    words.assign(static_cast<std::size_t>(n), WordInfo{});
    for (int i = 0; i < n; ++i) {
        const Token &t = tokens[static_cast<std::size_t>(i)];
        words[static_cast<std::size_t>(i)].text = QString::fromStdString(t.text);
        // UPOS first; corpora without it often still have a language-specific tag.
        std::string tag = (!t.upos.empty() && t.upos != "_") ? t.upos : t.xpos;
        if (tag == "_")
            tag.clear();
        words[static_cast<std::size_t>(i)].tag = QString::fromStdString(tag);
    }
    arcs.clear();
    if (!m_data.sentence->dependency)
        return;
    const DependencyTree &tree = *m_data.sentence->dependency;
    const bool coloured = colouredByAttention();
    const bool relation = relationMode();
    const std::vector<int> recHeights = recursiveMode() ? recursiveNodeHeights(m_data.analysis->nodeAttention) : std::vector<int>{};
    const int m = std::min(n, static_cast<int>(tree.heads.size()));
    for (int i = 0; i < m; ++i) {
        const int h = tree.heads[static_cast<std::size_t>(i)];
        // Partial parses (-1) and out-of-range heads have no arc to draw.
        if (h < 0 || h > n || h - 1 == i)
            continue;
        Arc a;
        a.dependent = i;
        a.head = h - 1;
        a.relation = i < static_cast<int>(tree.deprels.size()) ? QString::fromStdString(tree.deprels[static_cast<std::size_t>(i)])
                                                                : QString();
        if (relation) {
            // Width: the selected attention dependent → head ([root] for the root arc); colour: the gate.
            const Matrix *att = selectedAttention(*m_data.analysis, m_state);
            const int ti = tokenOf(i), tj = tokenOf(a.head);
            a.weight = (ti >= 0 && tj >= 0 && ti < att->rows && tj < att->cols) ? static_cast<double>(att->at(ti, tj)) : 0.0;
            a.gate = std::max(0.0, gateOf(ti, tj));
            a.color = sequentialColor(a.gate);
            a.width = relationArcWidth(a.weight);
        } else if (a.head >= 0 && recursiveMode()) {
            // The head's composition: the weight its subtree gave this dependent (selected branch);
            // grey while the composition step has not reached the head's node.
            if (recursivePending(recursiveHeight(a.head, recHeights), m_state.aggregationStep)) {
                a.color = QColor(0xc8, 0xc8, 0xc8);
            } else {
                a.weight = std::max(0.0, recursiveWeight(a.head, i, overlay::kNodeMemberAttention));
                a.color = sequentialColor(a.weight);
                a.width = 1.0 + 4.0 * a.weight;
                a.edgeWeight = recursiveWeight(a.head, i, overlay::kNodeEdgeForwardAttention);
            }
        } else if (a.head >= 0 && coloured) {
            // A causal head sees the arc only as its later word attending the earlier one.
            const bool causal = m_data.analysis->causalAttention;
            a.weight = wordAttention(*m_data.analysis, m_state, causal ? std::max(i, a.head) : i, causal ? std::min(i, a.head) : a.head);
            a.color = sequentialColor(a.weight);
        } else {
            a.color = QColor(40, 40, 40);
        }
        arcs.push_back(a);
    }
}

void DependencyView::buildArcs(std::vector<WordInfo> &words, std::vector<Arc> &arcs)
{
    const int n = static_cast<int>(words.size());
    const QFont wordFont = scaledFont(font(), 10.5);
    const QFont tagFont = scaledFont(font(), 8.5);
    const QFont labelFont = scaledFont(font(), 9.0);
    const QFontMetricsF wm(wordFont), tm(tagFont);
    const double labelH = labelSize(QStringLiteral("Xg"), labelFont).height();
    const double levelStep = labelH + 6;

    // Endpoint slots: at each word, arcs going left come first (shortest leftmost),
    // then the root arrow, then arcs going right (longest leftmost). With this
    // order nested arcs never cross at a shared word.
    for (int w = 0; w < n; ++w) {
        std::vector<std::pair<double, int>> order; // (sort key, arc index)
        for (std::size_t k = 0; k < arcs.size(); ++k) {
            const Arc &a = arcs[k];
            if (a.head < 0) {
                if (a.dependent == w)
                    order.push_back({0.0, static_cast<int>(k)});
                continue;
            }
            if (a.head != w && a.dependent != w)
                continue;
            const int other = a.head == w ? a.dependent : a.head;
            // Left: key in (-n, 0), increasing with length; right: key in (0, n), decreasing with length.
            order.push_back({other < w ? -(n - (w - other)) / double(n + 1) - 1.0 : 1.0 + (n - (other - w)) / double(n + 1),
                             static_cast<int>(k)});
        }
        std::sort(order.begin(), order.end());
        auto &info = words[static_cast<std::size_t>(w)];
        for (const auto &o : order)
            info.slots.push_back(o.second);
        const double textW = std::max(wm.horizontalAdvance(info.text), info.tag.isEmpty() ? 0.0 : tm.horizontalAdvance(info.tag));
        info.width = std::max(textW, (static_cast<double>(info.slots.size()) - 1) * kSlotSpacing + 10);
    }

    // Gaps between columns; widened below so every label fits on its arc.
    std::vector<double> gaps(static_cast<std::size_t>(std::max(0, n - 1)), kWordGap);
    auto computeCenters = [&] {
        double x = 0;
        for (int i = 0; i < n; ++i) {
            auto &info = words[static_cast<std::size_t>(i)];
            if (i > 0)
                x += words[static_cast<std::size_t>(i - 1)].width / 2 + gaps[static_cast<std::size_t>(i - 1)] + info.width / 2;
            info.center = x;
        }
    };
    auto slotX = [&](int word, int arcIndex) {
        const auto &info = words[static_cast<std::size_t>(word)];
        const auto it = std::find(info.slots.begin(), info.slots.end(), arcIndex);
        const double k = static_cast<double>(it - info.slots.begin());
        return info.center + (k - (static_cast<double>(info.slots.size()) - 1) / 2) * kSlotSpacing;
    };

    std::vector<int> order(arcs.size());
    for (std::size_t k = 0; k < arcs.size(); ++k)
        order[k] = static_cast<int>(k);
    std::stable_sort(order.begin(), order.end(), [&](int x, int y) {
        const Arc &a = arcs[static_cast<std::size_t>(x)], &b = arcs[static_cast<std::size_t>(y)];
        const int la = a.right() - a.left(), lb = b.right() - b.left();
        return la != lb ? la < lb : a.left() < b.left();
    });

    // Shortest arcs first, so an arc's label constraint sees its inner arcs' final
    // widths; widening only ever lengthens arcs, so one pass suffices.
    computeCenters();
    for (int k : order) {
        const Arc &a = arcs[static_cast<std::size_t>(k)];
        if (a.head < 0)
            continue;
        const double need = labelSize(a.relation, labelFont).width() + 2 * kCorner + 6;
        const double have = std::abs(slotX(a.head, k) - slotX(a.dependent, k));
        if (have < need) {
            const double extra = (need - have) / (a.right() - a.left());
            for (int g = a.left(); g < a.right(); ++g)
                gaps[static_cast<std::size_t>(g)] += extra;
            computeCenters();
        }
    }

    // Levels: above every arc nested inside, and above any arc on the same level
    // whose span overlaps (only crossing, non-projective arcs), so labels never meet.
    int maxLevel = 0;
    std::vector<int> placed;
    for (int k : order) {
        Arc &a = arcs[static_cast<std::size_t>(k)];
        if (a.head < 0)
            continue;
        int level = 1;
        for (int p : placed) {
            const Arc &b = arcs[static_cast<std::size_t>(p)];
            if (b.left() >= a.left() && b.right() <= a.right())
                level = std::max(level, b.level + 1);
        }
        for (bool clash = true; clash;) {
            clash = false;
            for (int p : placed) {
                const Arc &b = arcs[static_cast<std::size_t>(p)];
                if (b.level == level && std::max(a.left(), b.left()) < std::min(a.right(), b.right())) {
                    clash = true;
                    ++level;
                    break;
                }
            }
        }
        a.level = level;
        maxLevel = std::max(maxLevel, level);
        placed.push_back(k);
    }

    addWordItems(words, false);
    for (int i = 0; i < n; ++i)
        m_wordItems[static_cast<std::size_t>(i)]->setPos(words[static_cast<std::size_t>(i)].center, 0);
    const double wordRowH = n > 0 ? static_cast<WordItem *>(m_wordItems.front())->height() : wm.height();

    const double yBase = -3.0;
    const double yRoot = yBase - (maxLevel + 1) * levelStep - 4;
    for (std::size_t k = 0; k < arcs.size(); ++k) {
        const Arc &a = arcs[k];
        const int ki = static_cast<int>(k);
        const double dx = slotX(a.dependent, ki);
        QPainterPath path;
        if (a.head < 0) {
            path.moveTo(dx, yRoot);
            path.lineTo(dx, yBase - kArrowLength + 0.5);
            addTreeArc(a, path, arrowAt(QPointF(dx, yBase), QPointF(0, 1)), QPointF(dx, yRoot));
            continue;
        }
        const double hx = slotX(a.head, ki);
        const double yTop = yBase - kArrowLength - a.level * levelStep + 4;
        const double s = dx > hx ? 1.0 : -1.0;
        const double r = std::min(kCorner, std::abs(dx - hx) / 2);
        path.moveTo(hx, yBase);
        path.lineTo(hx, yTop + r);
        path.quadTo(hx, yTop, hx + s * r, yTop);
        path.lineTo(dx - s * r, yTop);
        path.quadTo(dx, yTop, dx, yTop + r);
        path.lineTo(dx, yBase - kArrowLength + 0.5);
        addTreeArc(a, path, arrowAt(QPointF(dx, yBase), QPointF(0, 1)), QPointF((hx + dx) / 2, yTop));
    }

    addAttentionArcs(words, wordRowH);

    if (colouredByAttention() || recursiveMode()) {
        const double top = m_scene->itemsBoundingRect().top();
        const double legendX = n > 0 ? words.front().center - words.front().width / 2 : 0;
        addLegendAbove(legendX, top, true);
    }
}

bool DependencyView::buildHierarchical(std::vector<WordInfo> &words, std::vector<Arc> &arcs, QString *error)
{
    const int n = static_cast<int>(words.size());
    const QFont labelFont = scaledFont(font(), 9.0);
    addWordItems(words, true);
    GraphLayoutRequest request;
    // A node is at least as wide as the label of its incoming edge: the label sits
    // just above the node, so siblings then have room for their labels side by side.
    std::vector<QString> incoming(static_cast<std::size_t>(n));
    for (const Arc &a : arcs)
        if (a.head >= 0)
            incoming[static_cast<std::size_t>(a.dependent)] = a.relation;
    for (int i = 0; i < n; ++i) {
        QSizeF size = m_wordItems[static_cast<std::size_t>(i)]->boundingRect().size();
        if (!incoming[static_cast<std::size_t>(i)].isEmpty())
            size.setWidth(std::max(size.width(), labelSize(incoming[static_cast<std::size_t>(i)], labelFont).width() + 8));
        // The drawn box is the node dot lays out, so edges end on its border.
        static_cast<WordItem *>(m_wordItems[static_cast<std::size_t>(i)])->setMinimumWidth(size.width());
        request.nodeSizes.push_back(size);
    }
    // Children in sentence order so dot keeps left dependents left of right ones.
    std::vector<int> edgeArc;
    for (int h = 0; h < n; ++h)
        for (std::size_t k = 0; k < arcs.size(); ++k)
            if (arcs[k].head == h) {
                request.edges.push_back({h, arcs[k].dependent});
                edgeArc.push_back(static_cast<int>(k));
            }
    // Room for a relation label between ranks.
    request.rankSeparation = labelSize(QStringLiteral("Xg"), labelFont).height() * 2 + 14;
    request.nodeSeparation = 14;
    Result<GraphLayoutResult> layout = layoutGraph(request);
    if (!layout.ok()) {
        *error = QString::fromStdString(layout.error().message);
        return false;
    }
    if (layout->centers.size() != static_cast<std::size_t>(n) || layout->edgePaths.size() != request.edges.size()) {
        *error = QStringLiteral("the layout returned a different number of nodes or edges");
        return false;
    }
    for (int i = 0; i < n; ++i) {
        QGraphicsItem *item = m_wordItems[static_cast<std::size_t>(i)];
        const QRectF r = item->boundingRect();
        const QPointF c = layout->centers[static_cast<std::size_t>(i)];
        item->setPos(c.x(), c.y() - r.center().y());
    }
    const double labelH = labelSize(QStringLiteral("Xg"), labelFont).height();
    // Labels on one row that still touch (slanted edges converge) are pushed
    // apart left to right so none overlaps.
    auto separateLabels = [&] {
        std::vector<QGraphicsItem *> labels;
        for (QGraphicsItem *item : m_scene->items())
            if (item->data(0).toString() == QLatin1String("relation-label"))
                labels.push_back(item);
        std::sort(labels.begin(), labels.end(), [](QGraphicsItem *x, QGraphicsItem *y) { return x->x() < y->x(); });
        for (std::size_t i = 1; i < labels.size(); ++i) {
            // Moving right can only create clashes with labels further right, which
            // are handled when their turn comes.
            for (bool moved = true; moved;) {
                moved = false;
                for (std::size_t j = 0; j < i; ++j) {
                    const QRectF pr = labels[j]->sceneBoundingRect(), cr = labels[i]->sceneBoundingRect();
                    if (pr.intersects(cr)) {
                        labels[i]->moveBy(pr.right() + 2 - cr.left(), 0);
                        moved = true;
                    }
                }
            }
        }
    };
    for (std::size_t e = 0; e < request.edges.size(); ++e) {
        const Arc &a = arcs[static_cast<std::size_t>(edgeArc[e])];
        QPainterPath path = layout->edgePaths[e];
        const QRectF target = m_wordItems[static_cast<std::size_t>(a.dependent)]->sceneBoundingRect();
        QPointF end = path.elementCount() > 0 ? path.currentPosition() : target.center();
        // dot's splines end on the node or short of it; the arrow ends at the box top.
        QPointF dir = end - path.pointAtPercent(0.92);
        if (path.isEmpty()) {
            const QRectF from = m_wordItems[static_cast<std::size_t>(a.head)]->sceneBoundingRect();
            path.moveTo(from.center().x(), from.bottom());
            path.lineTo(target.center().x(), target.top() - kArrowLength);
            end = QPointF(target.center().x(), target.top());
            dir = QPointF(0, 1);
        }
        const QPolygonF arrow = arrowAt(end, dir);
        // The label rides on the edge just above the arrowhead, where siblings'
        // edges are as far apart as their (label-wide) nodes.
        const double labelY = target.top() - kArrowLength - labelH / 2 - 3;
        QPointF at = path.pointAtPercent(0.5);
        for (int step = 100; step >= 0; --step) {
            const QPointF p = path.pointAtPercent(step / 100.0);
            if (p.y() <= labelY) {
                at = p;
                break;
            }
        }
        addTreeArc(a, path, arrow, at);
    }
    separateLabels();
    for (const Arc &a : arcs) {
        if (a.head >= 0)
            continue;
        const QRectF r = m_wordItems[static_cast<std::size_t>(a.dependent)]->sceneBoundingRect();
        QPainterPath path;
        const double x = r.center().x();
        path.moveTo(x, r.top() - 30);
        path.lineTo(x, r.top() - kArrowLength + 0.5);
        addTreeArc(a, path, arrowAt(QPointF(x, r.top()), QPointF(0, 1)), QPointF(x, r.top() - 30));
    }
    if (colouredByAttention() || recursiveMode()) {
        const QRectF b = m_scene->itemsBoundingRect();
        addLegendAbove(b.left(), b.top(), false);
    }
    return true;
}

} // namespace treelens
