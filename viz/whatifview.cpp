// The what-if comparison (see whatifview.h): one scene, laid out top to bottom.
#include "viz/whatifview.h"

#include <algorithm>
#include <cmath>
#include <map>

#include <QFontMetricsF>
#include <QGraphicsPathItem>
#include <QGraphicsScene>
#include <QGraphicsSimpleTextItem>
#include <QLinearGradient>
#include <QPainter>
#include <QPainterPath>

#include "core/eval/bracketeval.h"
#include "core/formats/ptb.h"
#include "core/probing/attentiontree.h"

namespace treelens {

namespace {

constexpr double kMarginPt = 16.0;
constexpr double kWordGapPt = 18.0;
const QColor kEdited(0xd9, 0x5f, 0x02);
const QColor kRemoved(150, 150, 150);
const QColor kInk(0x22, 0x22, 0x22);

QFont fontOf(const QFont &base, double pt, bool bold = false)
{
    QFont f = base;
    f.setPointSizeF(pt);
    f.setBold(bold);
    return f;
}

QString signedText(double v, int decimals = 3)
{
    return (v >= 0 ? QStringLiteral("+") : QStringLiteral("\u2212")) + QString::number(std::abs(v), 'f', decimals);
}

/// An arc from x0 to x1 at baseline y, bulging up (dir -1) or down (dir +1) by `height`.
QPainterPath arcPath(double x0, double x1, double y, double height, int dir)
{
    QPainterPath p(QPointF(x0, y));
    p.cubicTo(QPointF(x0, y + dir * height * 1.33), QPointF(x1, y + dir * height * 1.33), QPointF(x1, y));
    return p;
}

} // namespace

WhatIfView::WhatIfView(QWidget *parent) : QGraphicsView(parent)
{
    m_scene = new QGraphicsScene(this);
    m_scene->setBackgroundBrush(Qt::white);
    setScene(m_scene);
    setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing);
    setDragMode(QGraphicsView::ScrollHandDrag);
    setAlignment(Qt::AlignLeft | Qt::AlignTop);
    rebuild();
}

void WhatIfView::setComparison(const Comparison &comparison)
{
    m_comparison = comparison;
    m_delta = comparison.beforeAnalysis && comparison.afterAnalysis
                  ? compareAnalyses(*comparison.beforeAnalysis, *comparison.afterAnalysis)
                  : AnalysisDelta();
    rebuild();
}

void WhatIfView::setState(const ViewState &state)
{
    m_state = state;
    rebuild();
}

void WhatIfView::setQuantity(Quantity quantity)
{
    m_quantity = quantity;
    rebuild();
}

bool WhatIfView::hasGates() const
{
    return m_comparison.afterAnalysis && !m_comparison.afterAnalysis->relationGate.empty() && m_comparison.beforeAnalysis &&
           !m_comparison.beforeAnalysis->relationGate.empty();
}

QSizeF WhatIfView::exportSize() const { return m_scene->sceneRect().size(); }

void WhatIfView::renderTo(QPainter *painter, const QRectF &target)
{
    painter->save();
    painter->fillRect(target, Qt::white);
    painter->setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing);
    m_scene->render(painter, target, m_scene->sceneRect(), Qt::KeepAspectRatio);
    painter->restore();
}

void WhatIfView::rebuild()
{
    m_scene->clear();
    m_deltaArcs.clear();
    m_nodeBars.clear();
    m_lines.clear();
    const Comparison &c = m_comparison;
    const QFont title = fontOf(font(), 12.0, true), text = fontOf(font(), 9.5), small = fontOf(font(), 8.0),
                wordFont = fontOf(font(), 10.5);
    double y = 0.0;
    auto addLine = [&](const QString &line, const QFont &f, const QColor &color, const char *kind) {
        auto *t = m_scene->addSimpleText(line, f);
        t->setBrush(color);
        t->setPos(0, y);
        t->setData(0, QString::fromLatin1(kind));
        y += QFontMetricsF(f).height() + 2;
        m_lines << line;
        return t;
    };
    if (!c.after || !c.before) {
        addLine(tr("No edits yet: drag a word onto its new head, or use a tree's context menu."), text, QColor(110, 110, 110), "note");
        m_scene->setSceneRect(m_scene->itemsBoundingRect().adjusted(-kMarginPt, -kMarginPt, kMarginPt, kMarginPt));
        return;
    }
    addLine(c.edits.size() == 1 ? tr("What if the tree were different? 1 edit")
                                : tr("What if the tree were different? %1 edits").arg(c.edits.size()),
            title, kInk, "note");
    for (int k = 0; k < c.edits.size(); ++k)
        addLine(QStringLiteral("%1. %2").arg(k + 1).arg(c.edits[k]), text, kEdited, "note");
    y += 4;

    // The prediction, before -> after.
    const AnalysisDelta &d = m_delta;
    if (d.hasPrediction) {
        addLine(tr("Prediction: %1 \u2192 %2").arg(QString::fromStdString(d.labelBefore), QString::fromStdString(d.labelAfter)),
                fontOf(font(), 10.0, true), kInk, "prediction");
        const auto &pb = c.beforeAnalysis->prediction->probabilities, &pa = c.afterAnalysis->prediction->probabilities;
        for (std::size_t k = 0; k < d.labels.size() && k < pa.size() && k < pb.size(); ++k) {
            const double before = pb[k], after = pa[k];
            auto *t = addLine(QStringLiteral("%1: %2 \u2192 %3 (%4)")
                                  .arg(QString::fromStdString(d.labels[k]))
                                  .arg(before, 0, 'f', 3)
                                  .arg(after, 0, 'f', 3)
                                  .arg(signedText(after - before)),
                              text, kInk, "prediction");
            // Two bars: before (grey), after (the change's colour), 0..1 over 160 pt.
            const double x = 260, h = 5, top = t->pos().y() + 2;
            m_scene->addRect(QRectF(x, top, 160, h), QPen(QColor(200, 200, 200), 0.5), QBrush(Qt::NoBrush));
            m_scene->addRect(QRectF(x, top, 160 * before, h), Qt::NoPen, QBrush(QColor(170, 170, 170)));
            m_scene->addRect(QRectF(x, top + h + 1, 160 * after, h), Qt::NoPen,
                             QBrush(divergingColor(after - before >= 0 ? 0.8 : -0.8)));
        }
        if (d.labels.size() == 1 || d.labels.empty())
            addLine(tr("score %1 \u2192 %2 (%3)").arg(d.scoreBefore, 0, 'f', 4).arg(d.scoreAfter, 0, 'f', 4).arg(signedText(d.scoreAfter - d.scoreBefore, 4)),
                    text, kInk, "prediction");
    }
    if (!c.readsTree) {
        addLine(tr("%1 does not read the edited tree: its analysis is the same; only comparisons with the tree change.")
                    .arg(c.model.isEmpty() ? tr("This model") : c.model),
                text, noteColor(), "note");
        const auto sb = arcShares(*c.before, *c.beforeAnalysis), sa = arcShares(*c.after, *c.afterAnalysis);
        if (!sb.empty() && sb.size() == sa.size()) {
            int bl = 0, bh = 0;
            for (std::size_t l = 0; l < sa.size(); ++l)
                for (std::size_t h = 0; h < sa[l].size(); ++h)
                    if (sa[l][h] > sa[static_cast<std::size_t>(bl)][static_cast<std::size_t>(bh)]) {
                        bl = static_cast<int>(l);
                        bh = static_cast<int>(h);
                    }
            addLine(tr("Most syntactic head on the edited tree: layer %1, head %2: %3% of the arcs (%4% on the tree before)")
                        .arg(bl + 1)
                        .arg(bh + 1)
                        .arg(std::lround(100 * sa[static_cast<std::size_t>(bl)][static_cast<std::size_t>(bh)]))
                        .arg(std::lround(100 * sb[static_cast<std::size_t>(bl)][static_cast<std::size_t>(bh)])),
                    text, kInk, "note");
        }
    } else if (!d.changed()) {
        addLine(tr("Nothing the model computed changed (within 1e-6)."), text, noteColor(), "note");
    }
    if (!d.gates.empty()) {
        const auto most = std::max_element(d.gates.begin(), d.gates.end(), [](const HeadDelta &a, const HeadDelta &b) { return a.maxAbs < b.maxAbs; });
        addLine(tr("Largest change of a relation gate: %1 at layer %2, head %3").arg(signedText(most->change)).arg(most->layer + 1).arg(most->head + 1),
                text, kInk, "note");
    }
    if (!d.nodes.empty()) {
        int gone = 0, added = 0;
        for (const NodeDelta &n : d.nodes) {
            gone += n.before && !n.after;
            added += n.after && !n.before;
        }
        addLine(tr("Tree nodes the model composes: %1 kept, %2 gone, %3 new")
                    .arg(static_cast<int>(d.nodes.size()) - gone - added)
                    .arg(gone)
                    .arg(added),
                text, kInk, "note");
    }
    // A model that induces a tree (Tree Transformer): its brackets against the tree before and after.
    if (c.before->constituency && c.after->constituency && c.beforeAnalysis && c.afterAnalysis &&
        c.beforeAnalysis->inducedTree && c.afterAnalysis->inducedTree && !(*c.before->constituency == *c.after->constituency)) {
        const double f0 = compareTrees(*c.before->constituency, *c.beforeAnalysis->inducedTree, false).f1();
        const double f1 = compareTrees(*c.after->constituency, *c.afterAnalysis->inducedTree, false).f1();
        addLine(tr("The model's induced tree against the tree: unlabelled F1 %1 \u2192 %2").arg(f0, 0, 'f', 1).arg(f1, 0, 'f', 1), text,
                kInk, "note");
    }
    if (c.before->constituency && c.after->constituency && !(*c.before->constituency == *c.after->constituency)) {
        addLine(tr("Constituency tree before: %1").arg(QString::fromStdString(writePtbTree(*c.before->constituency))), small, kRemoved, "note");
        addLine(tr("Constituency tree after:  %1").arg(QString::fromStdString(writePtbTree(*c.after->constituency))), small, kEdited, "note");
    }
    y += 10;

    // The edited dependency tree with the attention change below the words.
    const auto &words = c.after->tokens;
    const int n = static_cast<int>(words.size());
    if (c.after->dependency && c.after->dependency->size() == static_cast<std::size_t>(n) && n > 0) {
        const QFontMetricsF fm(wordFont);
        std::vector<double> centre(static_cast<std::size_t>(n));
        double x = 0;
        for (int i = 0; i < n; ++i) {
            const double w = fm.horizontalAdvance(QString::fromStdString(words[static_cast<std::size_t>(i)].text));
            centre[static_cast<std::size_t>(i)] = x + w / 2;
            x += w + kWordGapPt;
        }
        // Arcs above: their height grows with the span; the baseline leaves room for the tallest.
        const DependencyTree &after = *c.after->dependency;
        const DependencyTree *before = c.before->dependency && c.before->dependency->size() == after.size() ? &*c.before->dependency : nullptr;
        // Each arc's level: one above the highest arc inside its span (the arcs of both
        // trees, so a replaced arc gets its own level), so nested arcs and their labels
        // never touch.
        std::map<std::pair<int, int>, int> level; // (left, right) -> level
        {
            std::vector<std::pair<int, int>> spans;
            for (int i = 0; i < n; ++i)
                for (const DependencyTree *t : {&after, before})
                    if (t && t->heads[static_cast<std::size_t>(i)] - 1 >= 0) {
                        const int h = t->heads[static_cast<std::size_t>(i)] - 1;
                        spans.emplace_back(std::min(i, h), std::max(i, h));
                    }
            std::sort(spans.begin(), spans.end(), [](const auto &a, const auto &b) { return a.second - a.first < b.second - b.first; });
            for (const auto &sp : spans) {
                int l = 1;
                for (const auto &[inner, innerLevel] : level)
                    if (inner != sp && inner.first >= sp.first && inner.second <= sp.second)
                        l = std::max(l, innerLevel + 1);
                level[sp] = std::max(level[sp], l);
            }
        }
        int top = 1;
        for (const auto &[sp, l] : level)
            top = std::max(top, l);
        auto arcHeight = [&level](int a, int b) {
            const auto it = level.find({std::min(a, b), std::max(a, b)});
            return 6.0 + 17.0 * (it == level.end() ? 1 : it->second);
        };
        const double base = y + 6.0 + 17.0 * top + 20;
        for (int i = 0; i < n; ++i) {
            auto *t = m_scene->addSimpleText(QString::fromStdString(words[static_cast<std::size_t>(i)].text), wordFont);
            t->setBrush(kInk);
            t->setPos(centre[static_cast<std::size_t>(i)] - fm.horizontalAdvance(t->text()) / 2, base + 2);
            t->setData(0, QStringLiteral("word"));
            t->setData(1, i);
        }
        auto drawArc = [&](int dep, int head, const QColor &color, double width, Qt::PenStyle style, const char *kind, const QString &label) {
            const double x0 = centre[static_cast<std::size_t>(head)], x1 = centre[static_cast<std::size_t>(dep)];
            auto *p = m_scene->addPath(arcPath(x0, x1, base, arcHeight(dep, head), -1), QPen(color, width, style));
            p->setData(0, QString::fromLatin1(kind));
            p->setData(1, QStringLiteral("%1-%2").arg(dep + 1).arg(head + 1));
            // An arrowhead at the dependent.
            QPainterPath arrow;
            arrow.moveTo(x1, base);
            arrow.lineTo(x1 - 3.5, base - 7);
            arrow.lineTo(x1 + 3.5, base - 7);
            arrow.closeSubpath();
            m_scene->addPath(arrow, Qt::NoPen, QBrush(color));
            if (!label.isEmpty()) {
                auto *l = m_scene->addSimpleText(label, small);
                l->setBrush(color);
                l->setPos((x0 + x1) / 2 - QFontMetricsF(small).horizontalAdvance(label) / 2,
                          base - arcHeight(dep, head) - QFontMetricsF(small).height() + 2);
            }
        };
        for (int i = 0; i < n; ++i) {
            const int h = after.heads[static_cast<std::size_t>(i)] - 1;
            const int hb = before ? before->heads[static_cast<std::size_t>(i)] - 1 : h;
            const QString label = QString::fromStdString(after.deprels[static_cast<std::size_t>(i)]);
            const bool relabelled = before && before->deprels[static_cast<std::size_t>(i)] != after.deprels[static_cast<std::size_t>(i)];
            if (hb != h && hb >= 0)
                drawArc(i, hb, kRemoved, 1.2, Qt::DashLine, "removed-arc", QString());
            if (h < 0) {
                auto *r = m_scene->addSimpleText(QStringLiteral("root"), small);
                r->setBrush(hb != h ? kEdited : kInk);
                r->setPos(centre[static_cast<std::size_t>(i)] + 4, base - QFontMetricsF(small).height() - 1);
                continue;
            }
            const bool edited = hb != h;
            drawArc(i, h, edited ? kEdited : QColor(90, 90, 90), edited ? 2.6 : 1.4, Qt::SolidLine, edited ? "edited-arc" : "tree-arc",
                    relabelled && !edited ? QString() : label);
            if (relabelled && !edited) {
                // The arc as it was, its new label in the edit colour.
                const double x0 = centre[static_cast<std::size_t>(h)], x1 = centre[static_cast<std::size_t>(i)];
                auto *l = m_scene->addSimpleText(label, fontOf(font(), 8.0, true));
                l->setBrush(kEdited);
                l->setPos((x0 + x1) / 2 - QFontMetricsF(small).horizontalAdvance(label) / 2,
                          base - arcHeight(i, h) - QFontMetricsF(small).height() + 2);
            }
        }
        // The change below the words: after − before of the selected layer/head's
        // attention (or relation gate), word to word.
        const bool gates = m_quantity == Quantity::Gate && hasGates();
        auto value = [this, gates](const Analysis &a, int i, int j) -> double {
            if (!gates)
                return wordAttention(a, m_state, i, j);
            const Matrix *m = headMatrix(a.relationGate, m_state.layer, m_state.head);
            const int r = a.wordToken[static_cast<std::size_t>(i)], col = a.wordToken[static_cast<std::size_t>(j)];
            return m && r >= 0 && col >= 0 && r < m->rows && col < m->cols ? m->at(r, col) : 0.0;
        };
        const double below = base + fm.height() + 8;
        double largest = 0.0;
        std::vector<DeltaArc> arcs;
        if (c.beforeAnalysis && c.afterAnalysis && c.beforeAnalysis->wordToken.size() == static_cast<std::size_t>(n) &&
            c.afterAnalysis->wordToken.size() == static_cast<std::size_t>(n)) {
            for (int i = 0; i < n; ++i) {
                std::vector<DeltaArc> row;
                for (int j = 0; j < n; ++j) {
                    if (i == j)
                        continue;
                    const double change = value(*c.afterAnalysis, i, j) - value(*c.beforeAnalysis, i, j);
                    largest = std::max(largest, std::abs(change));
                    if (std::abs(change) >= 0.02)
                        row.push_back({i, j, change});
                }
                std::sort(row.begin(), row.end(), [](const DeltaArc &a, const DeltaArc &b) { return std::abs(a.change) > std::abs(b.change); });
                if (n > 30 && row.size() > 3)
                    row.resize(3);
                arcs.insert(arcs.end(), row.begin(), row.end());
            }
        }
        const double scale = std::max(largest, 0.05);
        double lowest = below;
        for (const DeltaArc &a : arcs) {
            const double x0 = centre[static_cast<std::size_t>(a.from)], x1 = centre[static_cast<std::size_t>(a.to)];
            const double height = 8.0 + 6.0 * std::sqrt(static_cast<double>(std::abs(a.to - a.from))) * 1.6;
            auto *p = m_scene->addPath(arcPath(x0, x1, below, height, +1),
                                       QPen(divergingColor(a.change / scale), 0.8 + 3.2 * std::abs(a.change) / scale));
            p->setData(0, QStringLiteral("delta-arc"));
            p->setData(1, QStringLiteral("%1-%2").arg(a.from + 1).arg(a.to + 1));
            p->setToolTip(tr("%1 %2 \u2192 %3: %4")
                              .arg(gates ? tr("gate") : tr("attention"))
                              .arg(QString::fromStdString(words[static_cast<std::size_t>(a.from)].text),
                                   QString::fromStdString(words[static_cast<std::size_t>(a.to)].text), signedText(a.change, 4)));
            lowest = std::max(lowest, below + height * 1.05);
        }
        m_deltaArcs = arcs;
        // A recursive model's nodes: a bar over each node's span, a row per span length.
        if (!d.nodes.empty()) {
            double top = lowest + 10, maxChange = 0.0;
            for (const NodeDelta &nd : d.nodes)
                if (nd.before && nd.after)
                    maxChange = std::max(maxChange, std::abs(nd.normAfter - nd.normBefore));
            std::vector<std::vector<std::pair<double, double>>> rows; // occupied x ranges per row
            std::vector<NodeDelta> nodes = d.nodes;
            std::sort(nodes.begin(), nodes.end(), [](const NodeDelta &a, const NodeDelta &b) { return a.end - a.start < b.end - b.start; });
            for (const NodeDelta &nd : nodes) {
                if (nd.start < 0 || nd.end > n || nd.end <= nd.start)
                    continue;
                const double x0 = centre[static_cast<std::size_t>(nd.start)] - 8, x1 = centre[static_cast<std::size_t>(nd.end - 1)] + 8;
                std::size_t r = 0;
                for (; r < rows.size(); ++r)
                    if (std::none_of(rows[r].begin(), rows[r].end(), [&](const auto &o) { return x0 < o.second && o.first < x1; }))
                        break;
                if (r == rows.size())
                    rows.emplace_back();
                rows[r].push_back({x0, x1});
                const double change = nd.normAfter - nd.normBefore;
                const QRectF bar(x0, top + 11.0 * static_cast<double>(r), x1 - x0, 7);
                QPen pen = nd.after && !nd.before ? QPen(kEdited, 1.6) : QPen(QColor(120, 120, 120), 0.6, nd.after ? Qt::SolidLine : Qt::DashLine);
                const QBrush brush = nd.before && nd.after ? QBrush(divergingColor(maxChange > 0 ? change / maxChange : 0.0)) : QBrush(Qt::white);
                auto *item = m_scene->addRect(bar, pen, brush);
                item->setData(0, QStringLiteral("node"));
                item->setToolTip(tr("node %1 (words %2\u2013%3): %4").arg(QString::fromStdString(nd.label)).arg(nd.start + 1).arg(nd.end)
                                     .arg(nd.before && nd.after ? tr("norm %1 \u2192 %2").arg(nd.normBefore, 0, 'f', 3).arg(nd.normAfter, 0, 'f', 3)
                                          : nd.after ? tr("new") : tr("gone")));
                m_nodeBars.push_back({nd.start, nd.end, nd.before, nd.after, change});
            }
            lowest = top + 11.0 * static_cast<double>(rows.size()) + 4;
            auto *key = m_scene->addSimpleText(
                tr("Bars: the nodes the model composes, over their words, coloured by the change of the node state's norm "
                   "(largest %1); dashed: gone, orange: new").arg(maxChange, 0, 'f', 3),
                small);
            key->setBrush(kInk);
            key->setPos(0, lowest);
            key->setData(0, QStringLiteral("legend"));
            lowest += QFontMetricsF(small).height() + 2;
        }
        // The legend: the diverging bar from −largest to +largest.
        double ly = lowest + 16;
        auto *caption = m_scene->addSimpleText(
            c.afterAnalysis && !c.afterAnalysis->attention.empty()
                ? tr("Below the words: change of the %1, layer %2 head %3 (after \u2212 before; |change| \u2265 0.02)")
                      .arg(gates ? tr("relation gate g") : tr("attention"))
                      .arg(m_state.layer + 1)
                      .arg(m_state.head + 1)
                : tr("This model has no attention matrices between the words."),
            small);
        caption->setBrush(kInk);
        caption->setPos(0, ly);
        caption->setData(0, QStringLiteral("legend"));
        ly += QFontMetricsF(small).height() + 4;
        if (c.afterAnalysis && !c.afterAnalysis->attention.empty()) {
            QLinearGradient g(QPointF(0, 0), QPointF(200, 0));
            for (int k = 0; k <= 10; ++k)
                g.setColorAt(k / 10.0, divergingColor(-1.0 + 0.2 * k));
            auto *bar = m_scene->addRect(QRectF(0, ly, 200, 9), QPen(QColor(180, 180, 180), 0.5), QBrush(g));
            bar->setData(0, QStringLiteral("legend"));
            for (int k = 0; k < 3; ++k) {
                auto *t = m_scene->addSimpleText(k == 1 ? QStringLiteral("0") : signedText((k - 1) * scale, 2), small);
                t->setBrush(kInk);
                t->setPos(100.0 * k - QFontMetricsF(small).horizontalAdvance(t->text()) / 2, ly + 11);
            }
            auto *key = m_scene->addSimpleText(tr("orange: arcs the edits made; dashed grey: the arcs they replaced"), small);
            key->setBrush(kEdited);
            key->setPos(230, ly);
        }
    }
    m_scene->setSceneRect(m_scene->itemsBoundingRect().adjusted(-kMarginPt, -kMarginPt, kMarginPt, kMarginPt));
}

} // namespace treelens
