// The what-if comparison (see whatifview.h): one scene, laid out top to bottom.
#include "viz/whatifview.h"

#include <algorithm>
#include <cmath>
#include <map>

#include <QFontMetricsF>
#include <QResizeEvent>
#include <QTransform>
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

struct WhatIfView::Fonts {
    explicit Fonts(const QFont &base)
        : title(fontOf(base, 12.0, true)), text(fontOf(base, 9.5)), small(fontOf(base, 8.0)), word(fontOf(base, 10.5)),
          prediction(fontOf(base, 10.0, true)), relabel(fontOf(base, 8.0, true))
    {
    }
    QFont title, text, small, word, prediction, relabel;
};

class WhatIfView::TextLines {
public:
    TextLines(QGraphicsScene *scene, QStringList &lines) : m_scene(scene), m_lines(lines) {}
    /// Adds `line` under the last one; its item carries data(0) = `kind`.
    QGraphicsSimpleTextItem *add(const QString &line, const QFont &f, const QColor &color, const char *kind)
    {
        auto *t = m_scene->addSimpleText(line, f);
        t->setBrush(color);
        t->setPos(0, m_y);
        t->setData(0, QString::fromLatin1(kind));
        m_y += QFontMetricsF(f).height() + 2;
        m_lines << line;
        return t;
    }
    void skip(double gap) { m_y += gap; }
    double y() const { return m_y; }

private:
    QGraphicsScene *m_scene;
    QStringList &m_lines;
    double m_y = 0.0;
};

struct WhatIfView::TreeRow {
    const DependencyTree *after = nullptr;
    const DependencyTree *before = nullptr; ///< the tree as it was, when it has as many words
    std::vector<double> centre;             ///< each word's centre
    std::map<std::pair<int, int>, int> level; ///< (left, right) -> the arc's level above the words
    double base = 0.0;                      ///< the words' baseline (the arcs stand on it)
    double wordHeight = 0.0;
    /// How high the arc between words a and b rises.
    double arcHeight(int a, int b) const
    {
        const auto it = level.find({std::min(a, b), std::max(a, b)});
        return 6.0 + 17.0 * (it == level.end() ? 1 : it->second);
    }
};

namespace {

/// Each arc's level: one above the highest arc inside its span (the arcs of both
/// trees, so a replaced arc gets its own level), so nested arcs and their labels
/// never touch.
std::map<std::pair<int, int>, int> arcLevels(const DependencyTree &after, const DependencyTree *before, int n)
{
    std::map<std::pair<int, int>, int> level; // (left, right) -> level
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
    return level;
}

} // namespace

void WhatIfView::rebuild()
{
    m_scene->clear();
    m_deltaArcs.clear();
    m_nodeBars.clear();
    m_lines.clear();
    const Comparison &c = m_comparison;
    const Fonts fonts(font());
    TextLines lines(m_scene, m_lines);
    if (!c.after || !c.before) {
        lines.add(tr("No edits yet: drag a word onto its new head, or use a tree's context menu."), fonts.text,
                  QColor(110, 110, 110), "note");
    } else {
        addEdits(lines, fonts);
        addPrediction(lines, fonts);
        addReadingNotes(lines, fonts);
        addChangeNotes(lines, fonts);
        addTree(lines.y() + 10, fonts);
    }
    m_scene->setSceneRect(m_scene->itemsBoundingRect().adjusted(-kMarginPt, -kMarginPt, kMarginPt, kMarginPt));
    fitToViewport();
}

void WhatIfView::fitToViewport()
{
    constexpr double kMinFitScale = 0.45; // smaller text is unreadable: scroll instead
    const QRectF scene = m_scene->sceneRect();
    const QSizeF view = viewport()->size();
    if (scene.isEmpty() || view.isEmpty())
        return;
    const double fit = std::min(view.width() / scene.width(), view.height() / scene.height());
    const double scale = std::clamp(fit, kMinFitScale, 1.0);
    setTransform(QTransform::fromScale(scale, scale));
}

void WhatIfView::resizeEvent(QResizeEvent *event)
{
    QGraphicsView::resizeEvent(event);
    fitToViewport();
}

void WhatIfView::addEdits(TextLines &lines, const Fonts &fonts) const
{
    const Comparison &c = m_comparison;
    lines.add(c.edits.size() == 1 ? tr("What if the tree were different? 1 edit")
                                  : tr("What if the tree were different? %1 edits").arg(c.edits.size()),
              fonts.title, kInk, "note");
    for (int k = 0; k < c.edits.size(); ++k)
        lines.add(QStringLiteral("%1. %2").arg(k + 1).arg(c.edits[k]), fonts.text, kEdited, "note");
    lines.skip(4);
}

void WhatIfView::addPrediction(TextLines &lines, const Fonts &fonts)
{
    const Comparison &c = m_comparison;
    const AnalysisDelta &d = m_delta;
    if (!d.hasPrediction)
        return;
    lines.add(tr("Prediction: %1 \u2192 %2").arg(QString::fromStdString(d.labelBefore), QString::fromStdString(d.labelAfter)),
              fonts.prediction, kInk, "prediction");
    const auto &pb = c.beforeAnalysis->prediction->probabilities, &pa = c.afterAnalysis->prediction->probabilities;
    for (std::size_t k = 0; k < d.labels.size() && k < pa.size() && k < pb.size(); ++k) {
        const double before = pb[k], after = pa[k];
        auto *t = lines.add(QStringLiteral("%1: %2 \u2192 %3 (%4)")
                                .arg(QString::fromStdString(d.labels[k]))
                                .arg(before, 0, 'f', 3)
                                .arg(after, 0, 'f', 3)
                                .arg(signedText(after - before)),
                            fonts.text, kInk, "prediction");
        // Two bars: before (grey), after (the change's colour), 0..1 over 160 pt.
        const double x = 260, h = 5, top = t->pos().y() + 2;
        m_scene->addRect(QRectF(x, top, 160, h), QPen(QColor(200, 200, 200), 0.5), QBrush(Qt::NoBrush));
        m_scene->addRect(QRectF(x, top, 160 * before, h), Qt::NoPen, QBrush(QColor(170, 170, 170)));
        m_scene->addRect(QRectF(x, top + h + 1, 160 * after, h), Qt::NoPen,
                         QBrush(divergingColor(after - before >= 0 ? 0.8 : -0.8)));
    }
    if (d.labels.size() == 1 || d.labels.empty())
        lines.add(tr("score %1 \u2192 %2 (%3)").arg(d.scoreBefore, 0, 'f', 4).arg(d.scoreAfter, 0, 'f', 4).arg(signedText(d.scoreAfter - d.scoreBefore, 4)),
                  fonts.text, kInk, "prediction");
}

void WhatIfView::addReadingNotes(TextLines &lines, const Fonts &fonts) const
{
    const Comparison &c = m_comparison;
    if (c.readsTree) {
        if (!m_delta.changed())
            lines.add(tr("Nothing the model computed changed (within 1e-6)."), fonts.text, noteColor(), "note");
        return;
    }
    lines.add(tr("%1 does not read the edited tree: its analysis is the same; only comparisons with the tree change.")
                  .arg(c.model.isEmpty() ? tr("This model") : c.model),
              fonts.text, noteColor(), "note");
    const auto sb = arcShares(*c.before, *c.beforeAnalysis), sa = arcShares(*c.after, *c.afterAnalysis);
    if (sb.empty() || sb.size() != sa.size())
        return;
    int bl = 0, bh = 0;
    for (std::size_t l = 0; l < sa.size(); ++l)
        for (std::size_t h = 0; h < sa[l].size(); ++h)
            if (sa[l][h] > sa[static_cast<std::size_t>(bl)][static_cast<std::size_t>(bh)]) {
                bl = static_cast<int>(l);
                bh = static_cast<int>(h);
            }
    lines.add(tr("Most syntactic head on the edited tree: layer %1, head %2: %3% of the arcs (%4% on the tree before)")
                  .arg(bl + 1)
                  .arg(bh + 1)
                  .arg(std::lround(100 * sa[static_cast<std::size_t>(bl)][static_cast<std::size_t>(bh)]))
                  .arg(std::lround(100 * sb[static_cast<std::size_t>(bl)][static_cast<std::size_t>(bh)])),
              fonts.text, kInk, "note");
}

void WhatIfView::addChangeNotes(TextLines &lines, const Fonts &fonts) const
{
    const Comparison &c = m_comparison;
    const AnalysisDelta &d = m_delta;
    if (!d.gates.empty()) {
        const auto most = std::max_element(d.gates.begin(), d.gates.end(), [](const HeadDelta &a, const HeadDelta &b) { return a.maxAbs < b.maxAbs; });
        lines.add(tr("Largest change of a relation gate: %1 at layer %2, head %3").arg(signedText(most->change)).arg(most->layer + 1).arg(most->head + 1),
                  fonts.text, kInk, "note");
    }
    if (!d.nodes.empty()) {
        int gone = 0, added = 0;
        for (const NodeDelta &n : d.nodes) {
            gone += n.before && !n.after;
            added += n.after && !n.before;
        }
        lines.add(tr("Tree nodes the model composes: %1 kept, %2 gone, %3 new")
                      .arg(static_cast<int>(d.nodes.size()) - gone - added)
                      .arg(gone)
                      .arg(added),
                  fonts.text, kInk, "note");
    }
    const bool treeChanged = c.before->constituency && c.after->constituency && !(*c.before->constituency == *c.after->constituency);
    // A model that induces a tree (Tree Transformer): its brackets against the tree before and after.
    if (treeChanged && c.beforeAnalysis && c.afterAnalysis && c.beforeAnalysis->inducedTree && c.afterAnalysis->inducedTree) {
        const double f0 = compareTrees(*c.before->constituency, *c.beforeAnalysis->inducedTree, false).f1();
        const double f1 = compareTrees(*c.after->constituency, *c.afterAnalysis->inducedTree, false).f1();
        lines.add(tr("The model's induced tree against the tree: unlabelled F1 %1 \u2192 %2").arg(f0, 0, 'f', 1).arg(f1, 0, 'f', 1),
                  fonts.text, kInk, "note");
    }
    if (treeChanged) {
        lines.add(tr("Constituency tree before: %1").arg(QString::fromStdString(writePtbTree(*c.before->constituency))), fonts.small, kRemoved, "note");
        lines.add(tr("Constituency tree after:  %1").arg(QString::fromStdString(writePtbTree(*c.after->constituency))), fonts.small, kEdited, "note");
    }
}

void WhatIfView::addTree(double top, const Fonts &fonts)
{
    const Comparison &c = m_comparison;
    const auto &words = c.after->tokens;
    const int n = static_cast<int>(words.size());
    if (!c.after->dependency || c.after->dependency->size() != static_cast<std::size_t>(n) || n == 0)
        return;
    const QFontMetricsF fm(fonts.word);
    TreeRow row;
    row.centre.resize(static_cast<std::size_t>(n));
    double x = 0;
    for (int i = 0; i < n; ++i) {
        const double w = fm.horizontalAdvance(QString::fromStdString(words[static_cast<std::size_t>(i)].text));
        row.centre[static_cast<std::size_t>(i)] = x + w / 2;
        x += w + kWordGapPt;
    }
    // Arcs above: their height grows with the span; the baseline leaves room for the tallest.
    row.after = &*c.after->dependency;
    row.before = c.before->dependency && c.before->dependency->size() == row.after->size() ? &*c.before->dependency : nullptr;
    row.level = arcLevels(*row.after, row.before, n);
    int highest = 1;
    for (const auto &[sp, l] : row.level)
        highest = std::max(highest, l);
    row.base = top + 6.0 + 17.0 * highest + 20;
    row.wordHeight = fm.height();
    addWords(row, fonts);
    addTreeArcs(row, fonts);
    // The change below the words: after − before of the selected layer/head's
    // attention (or relation gate), word to word.
    const bool gates = m_quantity == Quantity::Gate && hasGates();
    double largest = 0.0;
    const std::vector<DeltaArc> arcs = findDeltaArcs(n, gates, &largest);
    const double scale = std::max(largest, 0.05);
    double lowest = addDeltaArcs(row, arcs, scale, gates, row.base + row.wordHeight + 8);
    m_deltaArcs = arcs;
    if (!m_delta.nodes.empty())
        lowest = addNodeBars(row, lowest + 10, fonts);
    addLegend(lowest + 16, scale, gates, fonts);
}

void WhatIfView::addWords(const TreeRow &row, const Fonts &fonts)
{
    const auto &words = m_comparison.after->tokens;
    const QFontMetricsF fm(fonts.word);
    for (std::size_t i = 0; i < row.centre.size(); ++i) {
        auto *t = m_scene->addSimpleText(QString::fromStdString(words[i].text), fonts.word);
        t->setBrush(kInk);
        t->setPos(row.centre[i] - fm.horizontalAdvance(t->text()) / 2, row.base + 2);
        t->setData(0, QStringLiteral("word"));
        t->setData(1, static_cast<int>(i));
    }
}

void WhatIfView::addTreeArc(const TreeRow &row, int dep, int head, const QColor &color, double width, Qt::PenStyle style,
                            const char *kind, const QString &label, const Fonts &fonts)
{
    const double base = row.base;
    const double x0 = row.centre[static_cast<std::size_t>(head)], x1 = row.centre[static_cast<std::size_t>(dep)];
    auto *p = m_scene->addPath(arcPath(x0, x1, base, row.arcHeight(dep, head), -1), QPen(color, width, style));
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
        auto *l = m_scene->addSimpleText(label, fonts.small);
        l->setBrush(color);
        l->setPos((x0 + x1) / 2 - QFontMetricsF(fonts.small).horizontalAdvance(label) / 2,
                  base - row.arcHeight(dep, head) - QFontMetricsF(fonts.small).height() + 2);
    }
}

void WhatIfView::addTreeArcs(const TreeRow &row, const Fonts &fonts)
{
    const DependencyTree &after = *row.after;
    const DependencyTree *before = row.before;
    const double base = row.base;
    for (int i = 0; i < static_cast<int>(row.centre.size()); ++i) {
        const int h = after.heads[static_cast<std::size_t>(i)] - 1;
        const int hb = before ? before->heads[static_cast<std::size_t>(i)] - 1 : h;
        const QString label = QString::fromStdString(after.deprels[static_cast<std::size_t>(i)]);
        const bool relabelled = before && before->deprels[static_cast<std::size_t>(i)] != after.deprels[static_cast<std::size_t>(i)];
        if (hb != h && hb >= 0)
            addTreeArc(row, i, hb, kRemoved, 1.2, Qt::DashLine, "removed-arc", QString(), fonts);
        if (h < 0) {
            auto *r = m_scene->addSimpleText(QStringLiteral("root"), fonts.small);
            r->setBrush(hb != h ? kEdited : kInk);
            r->setPos(row.centre[static_cast<std::size_t>(i)] + 4, base - QFontMetricsF(fonts.small).height() - 1);
            continue;
        }
        const bool edited = hb != h;
        addTreeArc(row, i, h, edited ? kEdited : QColor(90, 90, 90), edited ? 2.6 : 1.4, Qt::SolidLine,
                   edited ? "edited-arc" : "tree-arc", relabelled && !edited ? QString() : label, fonts);
        if (relabelled && !edited) {
            // The arc as it was, its new label in the edit colour.
            const double x0 = row.centre[static_cast<std::size_t>(h)], x1 = row.centre[static_cast<std::size_t>(i)];
            auto *l = m_scene->addSimpleText(label, fonts.relabel);
            l->setBrush(kEdited);
            l->setPos((x0 + x1) / 2 - QFontMetricsF(fonts.small).horizontalAdvance(label) / 2,
                      base - row.arcHeight(i, h) - QFontMetricsF(fonts.small).height() + 2);
        }
    }
}

double WhatIfView::changedValue(const Analysis &a, int i, int j, bool gates) const
{
    if (!gates)
        return wordAttention(a, m_state, i, j);
    const Matrix *m = headMatrix(a.relationGate, m_state.layer, m_state.head);
    const int r = a.wordToken[static_cast<std::size_t>(i)], col = a.wordToken[static_cast<std::size_t>(j)];
    return m && r >= 0 && col >= 0 && r < m->rows && col < m->cols ? m->at(r, col) : 0.0;
}

std::vector<WhatIfView::DeltaArc> WhatIfView::findDeltaArcs(int n, bool gates, double *largest) const
{
    const Comparison &c = m_comparison;
    std::vector<DeltaArc> arcs;
    *largest = 0.0;
    if (!c.beforeAnalysis || !c.afterAnalysis || c.beforeAnalysis->wordToken.size() != static_cast<std::size_t>(n) ||
        c.afterAnalysis->wordToken.size() != static_cast<std::size_t>(n))
        return arcs;
    for (int i = 0; i < n; ++i) {
        std::vector<DeltaArc> row;
        for (int j = 0; j < n; ++j) {
            if (i == j)
                continue;
            const double change = changedValue(*c.afterAnalysis, i, j, gates) - changedValue(*c.beforeAnalysis, i, j, gates);
            *largest = std::max(*largest, std::abs(change));
            if (std::abs(change) >= 0.02)
                row.push_back({i, j, change});
        }
        std::sort(row.begin(), row.end(), [](const DeltaArc &a, const DeltaArc &b) { return std::abs(a.change) > std::abs(b.change); });
        if (n > 30 && row.size() > 3)
            row.resize(3);
        arcs.insert(arcs.end(), row.begin(), row.end());
    }
    return arcs;
}

double WhatIfView::addDeltaArcs(const TreeRow &row, const std::vector<DeltaArc> &arcs, double scale, bool gates, double below)
{
    const auto &words = m_comparison.after->tokens;
    double lowest = below;
    for (const DeltaArc &a : arcs) {
        const double x0 = row.centre[static_cast<std::size_t>(a.from)], x1 = row.centre[static_cast<std::size_t>(a.to)];
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
    return lowest;
}

double WhatIfView::addNodeBars(const TreeRow &row, double top, const Fonts &fonts)
{
    const AnalysisDelta &d = m_delta;
    const int n = static_cast<int>(row.centre.size());
    double maxChange = 0.0;
    for (const NodeDelta &nd : d.nodes)
        if (nd.before && nd.after)
            maxChange = std::max(maxChange, std::abs(nd.normAfter - nd.normBefore));
    // A row per span length: shorter spans first, each bar in the first row where it fits.
    std::vector<std::vector<std::pair<double, double>>> rows; // occupied x ranges per row
    std::vector<NodeDelta> nodes = d.nodes;
    std::sort(nodes.begin(), nodes.end(), [](const NodeDelta &a, const NodeDelta &b) { return a.end - a.start < b.end - b.start; });
    for (const NodeDelta &nd : nodes) {
        if (nd.start < 0 || nd.end > n || nd.end <= nd.start)
            continue;
        const double x0 = row.centre[static_cast<std::size_t>(nd.start)] - 8, x1 = row.centre[static_cast<std::size_t>(nd.end - 1)] + 8;
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
    double lowest = top + 11.0 * static_cast<double>(rows.size()) + 4;
    auto *key = m_scene->addSimpleText(
        tr("Bars: the nodes the model composes, over their words, coloured by the change of the node state's norm "
           "(largest %1); dashed: gone, orange: new").arg(maxChange, 0, 'f', 3),
        fonts.small);
    key->setBrush(kInk);
    key->setPos(0, lowest);
    key->setData(0, QStringLiteral("legend"));
    lowest += QFontMetricsF(fonts.small).height() + 2;
    return lowest;
}

void WhatIfView::addLegend(double top, double scale, bool gates, const Fonts &fonts)
{
    const Comparison &c = m_comparison;
    const QFont &small = fonts.small;
    double ly = top;
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
    if (!c.afterAnalysis || c.afterAnalysis->attention.empty())
        return;
    // The diverging bar from −largest to +largest.
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

} // namespace treelens
