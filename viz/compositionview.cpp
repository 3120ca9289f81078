// The bottom-up composition of a recursive tree model (see compositionview.h).
#include "viz/compositionview.h"

#include <algorithm>
#include <cmath>

#include <QMouseEvent>
#include <QFontMetricsF>
#include <QPainter>
#include <QPainterPath>

#include "core/data/overlays.h"

namespace treelens {

namespace {

constexpr double kMargin = 16.0;
constexpr double kHeader = 136.0;    // title, prediction, legend
constexpr double kLevel = 58.0;      // vertical distance between heights
constexpr double kNodeH = 22.0;
constexpr double kWordGap = 14.0;
constexpr double kPanelGap = 36.0;
constexpr double kPanelW = 420.0;
constexpr double kCell = 38.0, kCellH = 18.0;
const QColor kInk(0x22, 0x22, 0x22), kMuted(0x88, 0x88, 0x88), kPending(0xc8, 0xc8, 0xc8), kCurrent(0xd9, 0x5f, 0x02);

QFont sized(const QFont &f, double pt, bool bold = false)
{
    QFont g(f);
    g.setPointSizeF(pt);
    g.setBold(bold);
    return g;
}

QString elide(const QString &s, int n)
{
    return s.size() <= n ? s : s.left(n - 1) + QChar(0x2026);
}

void drawColourBar(QPainter &p, const QRectF &r, const QFont &font)
{
    p.fillRect(r, sequentialGradient(r.topLeft(), r.topRight()));
    p.setPen(QPen(kInk, 0.6));
    p.drawRect(r);
    p.setFont(font);
    for (double v : {0.0, 0.5, 1.0}) {
        const double x = r.left() + v * r.width();
        p.drawLine(QPointF(x, r.bottom()), QPointF(x, r.bottom() + 3));
        p.drawText(QRectF(x - 20, r.bottom() + 3, 40, 14), Qt::AlignHCenter | Qt::AlignTop, QString::number(v));
    }
}

bool segmentHits(QPointF a, QPointF b, const QRectF &r)
{
    // No sample point lies outside the segment's bounding box (compared by hand: a
    // vertical segment's box has no width, and QRectF::intersects says false for it).
    if (r.right() < std::min(a.x(), b.x()) || r.left() > std::max(a.x(), b.x()) || r.bottom() < std::min(a.y(), b.y()) ||
        r.top() > std::max(a.y(), b.y()))
        return false;
    // Sampled: boxes are at least 22 px tall and segments cross them at most steeply.
    const double len = std::hypot(b.x() - a.x(), b.y() - a.y());
    const int n = std::max(2, static_cast<int>(std::ceil(len / 3.0)));
    for (int i = 1; i < n; ++i) {
        const double t = static_cast<double>(i) / n;
        if (r.contains(a + (b - a) * t))
            return true;
    }
    return false;
}

bool polylineHits(const QPolygonF &line, const std::vector<QRectF> &obstacles)
{
    for (int i = 0; i + 1 < line.size(); ++i)
        for (const QRectF &r : obstacles)
            if (segmentHits(line[i], line[i + 1], r))
                return true;
    return false;
}

double polylineLength(const QPolygonF &line)
{
    double len = 0;
    for (int i = 0; i + 1 < line.size(); ++i)
        len += std::hypot(line[i + 1].x() - line[i].x(), line[i + 1].y() - line[i].y());
    return len;
}

} // namespace

QPolygonF routeTreeEdge(QPointF from, QPointF to, const std::vector<QRectF> &obstacles, double bandBelowFrom, double bandAboveTo)
{
    std::vector<QRectF> grown;
    for (const QRectF &r : obstacles)
        grown.push_back(r.adjusted(-3, -3, 3, 3));
    const QPolygonF straight{from, to};
    if (!polylineHits(straight, grown))
        return straight;
    // Down the clear gap beside a box in the way: leave the parent into the free band under
    // its level, run down at x, then into the member from the free band above it.
    std::vector<double> xs{to.x(), from.x()};
    double below = from.y(); // under every box in the way
    for (const QRectF &r : grown)
        if (segmentHits(from, to, r)) {
            xs.push_back(r.left() - 4.0);
            xs.push_back(r.right() + 4.0);
            below = std::max(below, r.bottom() + 6.0);
        }
    QPolygonF best;
    double bestLen = 0;
    const double yA = std::min(to.y(), from.y() + bandBelowFrom), yB = std::max(yA, to.y() - bandAboveTo);
    // Turn towards the member as soon as the boxes in the way are passed (a long low leg
    // along the words crossed other edges); failing that, in the band above the member.
    for (double yTurn : {std::clamp(below, yA, yB), yB}) {
        for (double x : xs) {
            QPolygonF line{from, QPointF(x, yA), QPointF(x, yTurn), to};
            if (polylineHits(line, grown))
                continue;
            // Shortest, with a run down close to the member preferred: a long last leg
            // under the boxes crosses the edges of the nodes it passes.
            const double len = polylineLength(line) + 1.5 * std::abs(x - to.x());
            if (best.isEmpty() || len < bestLen) {
                best = line;
                bestLen = len;
            }
        }
        if (!best.isEmpty())
            break;
    }
    return best.isEmpty() ? straight : best;
}

std::vector<CompositionView::Edge> CompositionView::routeEdges() const
{
    std::vector<Edge> out;
    if (!applies())
        return out;
    const auto &nodes = m_data.analysis->nodeAttention;
    for (std::size_t v = 0; v < nodes.size() && v < m_layout.nodes.size(); ++v) {
        const NodeAttention &na = nodes[v];
        for (std::size_t k = 0; k < na.targets.size(); ++k) {
            const int t = na.targets[k];
            QPointF to;
            int targetNode = -1;
            if (t < 0 && static_cast<std::size_t>(-1 - t) < m_layout.words.size()) {
                to = m_layout.words[static_cast<std::size_t>(-1 - t)] - QPointF(0, 12);
            } else if (t >= 0 && static_cast<std::size_t>(t) < m_layout.nodes.size()) {
                to = m_layout.nodes[static_cast<std::size_t>(t)] - QPointF(0, kNodeH / 2.0);
                targetNode = t;
            } else {
                continue;
            }
            const QPointF from = m_layout.nodes[v] + QPointF(0, kNodeH / 2.0);
            // Every other node's box is in the way; the member's own is its end.
            std::vector<QRectF> obstacles;
            for (std::size_t o = 0; o < m_layout.nodeRects.size(); ++o)
                if (o != v && static_cast<int>(o) != targetNode)
                    obstacles.push_back(m_layout.nodeRects[o]);
            out.push_back({static_cast<int>(v), k, routeTreeEdge(from, to, obstacles, (kLevel - kNodeH) / 2.0, 8.0)});
        }
    }
    return out;
}

CompositionView::CompositionView(QWidget *parent) : PaintedExportView(parent)
{
    setMouseTracking(true);
}

bool CompositionView::applies() const
{
    return m_data.analysis && overlay::hasComposition(*m_data.analysis);
}

int CompositionView::steps() const
{
    if (!applies() || m_data.analysis->nodeAttention.empty())
        return 0;
    const auto h = recursiveNodeHeights(m_data.analysis->nodeAttention);
    return *std::max_element(h.begin(), h.end());
}

void CompositionView::setData(const ViewData &data)
{
    m_data = data;
    m_selected = -1;
    m_hover = -1;
    relayout();
}

void CompositionView::setState(const ViewState &state)
{
    m_state = state;
    update();
}

void CompositionView::selectNode(int node)
{
    m_selected = node;
    update();
}

void CompositionView::relayout()
{
    m_layout = Layout();
    if (applies()) {
        const Analysis &a = *m_data.analysis;
        const QFontMetricsF wordFm(sized(font(), 10.5)), nodeFm(sized(font(), 9.5, true));
        double x = kMargin;
        for (const auto &w : a.words) {
            const double width = wordFm.horizontalAdvance(QString::fromStdString(w));
            m_layout.words.push_back(QPointF(x + width / 2.0, 0));
            x += width + kWordGap;
        }
        const auto heights = recursiveNodeHeights(a.nodeAttention);
        const int H = heights.empty() ? 0 : *std::max_element(heights.begin(), heights.end());
        m_layout.top = kHeader;
        const double wordY = kHeader + H * kLevel + 24.0;
        for (auto &w : m_layout.words)
            w.setY(wordY);
        for (std::size_t v = 0; v < a.nodeAttention.size(); ++v) {
            const NodeAttention &na = a.nodeAttention[v];
            double cx = 0;
            if (na.headWord >= 0 && na.headWord < static_cast<int>(m_layout.words.size())) {
                cx = m_layout.words[static_cast<std::size_t>(na.headWord)].x(); // a dependency node sits above its head word
            } else {
                int n = 0;
                for (int t : na.targets) {
                    const QPointF c = t < 0 ? (static_cast<std::size_t>(-1 - t) < m_layout.words.size() ? m_layout.words[static_cast<std::size_t>(-1 - t)] : QPointF())
                                            : (static_cast<std::size_t>(t) < v ? m_layout.nodes[static_cast<std::size_t>(t)] : QPointF());
                    cx += c.x();
                    ++n;
                }
                cx /= std::max(1, n);
            }
            const double y = kHeader + (H - heights[v]) * kLevel + kNodeH / 2.0;
            m_layout.nodes.push_back(QPointF(cx, y));
            const double w = std::max(26.0, nodeFm.horizontalAdvance(nodeText(static_cast<int>(v))) + 12.0);
            m_layout.nodeRects.push_back(QRectF(cx - w / 2.0, y - kNodeH / 2.0, w, kNodeH));
        }
        m_layout.treeWidth = std::max(x, 360.0);
        m_layout.treeHeight = wordY + 30.0;
    }
    m_edges = routeEdges(); // once per layout: painting (every hover) reuses them
    updateGeometry();
    setMinimumSize(sizeHint());
    update();
}

QSize CompositionView::sizeHint() const
{
    if (!applies())
        return QSize(520, 120);
    const Analysis &a = *m_data.analysis;
    // The panel: header, member grid (branches + extra rows), κ/α bars, gates.
    std::size_t members = 1;
    for (const auto &na : a.nodeAttention)
        members = std::max(members, na.targets.size());
    const double panelW = std::max(kPanelW, 110.0 + static_cast<double>(members) * kCell);
    const double panelH = 420.0 + std::max(0, a.heads) * kCellH;
    return QSize(static_cast<int>(m_layout.treeWidth + kPanelGap + panelW + kMargin),
                 static_cast<int>(std::max(m_layout.treeHeight, kHeader + panelH)));
}

QString CompositionView::nodeText(int node) const
{
    const Analysis &a = *m_data.analysis;
    const NodeAttention &na = a.nodeAttention[static_cast<std::size_t>(node)];
    if (na.headWord >= 0 && na.headWord < static_cast<int>(a.words.size()))
        return QStringLiteral("[%1]").arg(QString::fromStdString(a.words[static_cast<std::size_t>(na.headWord)]));
    return QString::fromStdString(na.label.empty() ? std::string("node") : na.label);
}

double CompositionView::memberWeight(int node, std::size_t member) const
{
    const NodeAttention &na = m_data.analysis->nodeAttention[static_cast<std::size_t>(node)];
    const int b = std::clamp(m_state.head, 0, std::max(0, static_cast<int>(na.weights.size()) - 1));
    if (na.weights.empty() || member >= na.weights[static_cast<std::size_t>(b)].size())
        return -1;
    return static_cast<double>(na.weights[static_cast<std::size_t>(b)][member]);
}

int CompositionView::nodeAt(const QPointF &pos) const
{
    for (std::size_t v = 0; v < m_layout.nodeRects.size(); ++v)
        if (m_layout.nodeRects[v].adjusted(-3, -3, 3, 3).contains(pos))
            return static_cast<int>(v);
    return -1;
}

void CompositionView::mouseMoveEvent(QMouseEvent *event)
{
    const int v = nodeAt(event->position());
    if (v == m_hover)
        return;
    m_hover = v;
    if (v >= 0 && applies()) {
        const NodeAttention &na = m_data.analysis->nodeAttention[static_cast<std::size_t>(v)];
        QString text = QStringLiteral("node %1 %2, words %3–%4, state norm %5").arg(v).arg(nodeText(v)).arg(na.start + 1).arg(na.end).arg(
            static_cast<double>(na.norm), 0, 'f', 3);
        for (std::size_t k = 0; k < na.targets.size(); ++k) {
            const double w = memberWeight(v, k);
            if (w >= 0)
                text += QStringLiteral("; member %1: %2").arg(k + 1).arg(w, 0, 'f', 3);
        }
        Q_EMIT hovered(text);
    }
    update();
}

void CompositionView::mousePressEvent(QMouseEvent *event)
{
    const int v = nodeAt(event->position());
    if (v >= 0) {
        m_selected = v == m_selected ? -1 : v;
        update();
        return;
    }
    for (std::size_t w = 0; w < m_layout.words.size(); ++w)
        if (std::abs(event->position().x() - m_layout.words[w].x()) < 12 && std::abs(event->position().y() - m_layout.words[w].y()) < 12)
            Q_EMIT wordClicked(static_cast<int>(w));
}

struct CompositionView::Fonts {
    explicit Fonts(const QFont &base)
        : title(sized(base, 11.0, true)), body(sized(base, 9.5)), small(sized(base, 8.5)), bold(sized(base, 9.5, true))
    {
    }
    QFont title, body, small, bold;
};

int CompositionView::selectedBranch() const
{
    return std::clamp(m_state.head, 0, std::max(0, m_data.analysis->heads - 1));
}

void CompositionView::paint(QPainter &p, const QSizeF &size) const
{
    p.fillRect(QRectF(QPointF(0, 0), size), Qt::white);
    p.setRenderHint(QPainter::Antialiasing);
    const Fonts fonts(font());
    p.setPen(kInk);
    if (!applies()) {
        p.setFont(fonts.body);
        p.drawText(QRectF(kMargin, kMargin, size.width() - 2 * kMargin, 60), Qt::AlignLeft | Qt::TextWordWrap,
                   tr("The composition view shows recursive tree models (Tree-LSTM with attention, CTT, DTT, DTT + edges): "
                      "load one of them to see how each node of its tree composes its members."));
        return;
    }
    const auto heights = recursiveNodeHeights(m_data.analysis->nodeAttention);
    const int H = steps();
    const int step = (m_state.aggregationStep > 0 && m_state.aggregationStep <= H) ? m_state.aggregationStep : 0;
    paintHeader(p, fonts, step, H);
    paintEdges(p, step, heights);
    const int detail = detailedNode(step, heights);
    paintNodes(p, fonts, step, heights, detail);
    paintWords(p);
    if (detail >= 0 && detail < static_cast<int>(m_data.analysis->nodeAttention.size()))
        paintDetail(p, fonts, detail, heights);
}

void CompositionView::paintHeader(QPainter &p, const Fonts &fonts, int step, int lastStep) const
{
    const Analysis &a = *m_data.analysis;
    const QString branchName = a.heads > 1 ? tr("branch %1 of %2").arg(selectedBranch() + 1).arg(a.heads) : tr("attention over the children");
    p.setFont(fonts.title);
    const QString stepText = step == 0 ? tr("all %1 nodes composed").arg(a.nodeAttention.size())
                                       : tr("step %1 of %2: the nodes of height %1 compose their members").arg(step).arg(lastStep);
    const QString title = tr("Bottom-up composition, %1 — %2").arg(branchName, stepText);
    p.drawText(QPointF(kMargin, kMargin + 12), title);
    if (const QString badge = ablationBadge(&a); !badge.isEmpty()) { // the branches switched off, beside the title
        const QPen pen = p.pen();
        p.setPen(ablationColor());
        p.drawText(QPointF(kMargin + QFontMetricsF(fonts.title).horizontalAdvance(title) + 14, kMargin + 12), badge);
        p.setPen(pen);
    }
    p.setFont(fonts.body);
    if (a.prediction) {
        const Prediction &pr = *a.prediction;
        QString text = tr("Prediction: %1").arg(QString::fromStdString(pr.label));
        if (!pr.probabilities.empty())
            text += tr(" (probability %1").arg(static_cast<double>(*std::max_element(pr.probabilities.begin(), pr.probabilities.end())), 0, 'f', 3) +
                    (pr.labels.size() == 5 ? tr(", relatedness %1)").arg(static_cast<double>(pr.score), 0, 'f', 2) : QStringLiteral(")"));
        if (!a.second.empty())
            text += tr(" — for the pair; this is the first sentence's tree");
        p.drawText(QPointF(kMargin, kMargin + 32), text);
    }
    p.drawText(QPointF(kMargin, kMargin + 52), tr("Edges: attention each member receives (mean over the querying members); colour and width = weight"));
    drawColourBar(p, QRectF(kMargin, kMargin + 58, 150, 9), fonts.small);
    p.setFont(fonts.small);
    p.setPen(kMuted);
    p.drawText(QPointF(kMargin, kMargin + 94), tr("dashed: a dependency node's own head word · grey: not composed yet · orange: composed at this step"));
}

void CompositionView::paintEdges(QPainter &p, int step, const std::vector<int> &heights) const
{
    // An edge goes around the boxes of the nodes it is not joining (a straight line
    // through one read as that node's child): routed in relayout().
    const auto &nodes = m_data.analysis->nodeAttention;
    for (const Edge &e : edges()) {
        const NodeAttention &na = nodes[static_cast<std::size_t>(e.node)];
        const bool pending = step > 0 && heights[static_cast<std::size_t>(e.node)] > step;
        const int t = na.targets[e.member];
        const bool own = e.member == 0 && na.headWord >= 0 && t == -1 - na.headWord;
        const double w = memberWeight(e.node, e.member);
        QPen pen = pending || w < 0 ? QPen(kPending, 1.0) : QPen(sequentialColor(w), 1.0 + 5.0 * w);
        pen.setCapStyle(Qt::RoundCap);
        pen.setJoinStyle(Qt::RoundJoin);
        if (own)
            pen.setStyle(Qt::DashLine);
        p.setPen(pen);
        p.setBrush(Qt::NoBrush);
        p.drawPolyline(e.route);
    }
}

int CompositionView::detailedNode(int step, const std::vector<int> &heights) const
{
    const auto &nodes = m_data.analysis->nodeAttention;
    int detail = m_hover >= 0 ? m_hover : (m_selected >= 0 ? m_selected : static_cast<int>(nodes.size()) - 1);
    if (m_hover < 0 && m_selected < 0 && step > 0)
        for (std::size_t v = 0; v < nodes.size(); ++v)
            if (heights[v] == step) {
                detail = static_cast<int>(v);
                break;
            }
    return detail;
}

void CompositionView::paintNodes(QPainter &p, const Fonts &fonts, int step, const std::vector<int> &heights, int detail) const
{
    const auto &nodes = m_data.analysis->nodeAttention;
    for (std::size_t v = 0; v < nodes.size(); ++v) {
        const bool pending = step > 0 && heights[v] > step, current = step > 0 && heights[v] == step;
        const QRectF r = m_layout.nodeRects[v];
        QPen border(pending ? kPending : (current ? kCurrent : kMuted), current || static_cast<int>(v) == detail ? 2.2 : 0.9);
        if (pending)
            border.setStyle(Qt::DashLine);
        p.setPen(border);
        p.setBrush(Qt::white);
        p.drawRoundedRect(r, 4, 4);
        p.setFont(nodes[v].label.rfind('@', 0) == 0 ? sized(font(), 9.5, false) : fonts.bold);
        p.setPen(pending ? kPending : kInk);
        p.drawText(r, Qt::AlignCenter, nodeText(static_cast<int>(v)));
    }
}

void CompositionView::paintWords(QPainter &p) const
{
    const Analysis &a = *m_data.analysis;
    p.setFont(sized(font(), 10.5));
    p.setPen(kInk);
    for (std::size_t w = 0; w < m_layout.words.size(); ++w)
        p.drawText(QRectF(m_layout.words[w].x() - 60, m_layout.words[w].y() - 10, 120, 20), Qt::AlignCenter,
                   QString::fromStdString(a.words[w]));
}

void CompositionView::paintDetail(QPainter &p, const Fonts &fonts, int detail, const std::vector<int> &heights) const
{
    const Analysis &a = *m_data.analysis;
    const NodeAttention &na = a.nodeAttention[static_cast<std::size_t>(detail)];
    const double x = m_layout.treeWidth + kPanelGap;
    double y = kHeader;
    p.setFont(fonts.title);
    p.setPen(kInk);
    QString span;
    for (int i = na.start; i < na.end && i < static_cast<int>(a.words.size()); ++i)
        span += (span.isEmpty() ? QString() : QStringLiteral(" ")) + QString::fromStdString(a.words[static_cast<std::size_t>(i)]);
    p.drawText(QPointF(x, y), na.headWord >= 0 ? tr("Node %1: %2, %3").arg(detail).arg(nodeText(detail), QString::fromStdString(na.label))
                                               : tr("Node %1: %2").arg(detail).arg(nodeText(detail)));
    y += 18;
    p.setFont(fonts.body);
    p.drawText(QRectF(x, y, kPanelW, 32), Qt::TextWordWrap, tr("“%1” (words %2–%3), height %4, state norm %5")
                                                                .arg(elide(span, 60))
                                                                .arg(na.start + 1)
                                                                .arg(na.end)
                                                                .arg(heights[static_cast<std::size_t>(detail)])
                                                                .arg(static_cast<double>(na.norm), 0, 'f', 2));
    y += 40;
    y = paintMemberGrid(p, fonts, na, x, y);
    y += 14;
    y = paintBranchWeights(p, fonts, x, y);
    paintCellGates(p, fonts, na, x, y);
}

double CompositionView::paintMemberGrid(QPainter &p, const Fonts &fonts, const NodeAttention &na, double x, double y) const
{
    const Analysis &a = *m_data.analysis;
    const auto &nodes = a.nodeAttention;
    const int branch = selectedBranch();
    auto memberName = [&](int t) {
        if (t < 0 && static_cast<std::size_t>(-1 - t) < a.words.size())
            return QString::fromStdString(a.words[static_cast<std::size_t>(-1 - t)]);
        return t >= 0 && t < static_cast<int>(nodes.size()) ? nodeText(t) : QStringLiteral("?");
    };
    p.setFont(fonts.small);
    for (std::size_t k = 0; k < na.targets.size(); ++k) {
        p.save();
        p.translate(x + 100 + (static_cast<double>(k) + 0.5) * kCell, y + 50);
        p.rotate(-50);
        p.drawText(QPointF(0, 0), elide(memberName(na.targets[k]), 12));
        p.restore();
    }
    y += 56;
    std::vector<std::pair<QString, std::vector<float>>> rows;
    for (std::size_t b = 0; b < na.weights.size(); ++b)
        rows.push_back({a.heads > 1 ? tr("branch %1").arg(b + 1) : tr("α (children)"), na.weights[b]});
    for (const char *edge : {overlay::kNodeEdgeForwardAttention, overlay::kNodeEdgeBackwardAttention}) {
        const auto it = na.arrays.find(edge);
        if (it == na.arrays.end() || it->second.shape.size() != 3)
            continue;
        const NamedArray &m = it->second;
        const int kk = m.shape[1];
        std::vector<float> row(na.targets.size(), -1.0f);
        const std::size_t offset = na.targets.size() - static_cast<std::size_t>(kk); // the head word has no edge
        for (int c = 0; c < kk; ++c) {
            double sum = 0;
            for (int r = 0; r < kk; ++r)
                sum += static_cast<double>(m.data[static_cast<std::size_t>((branch * kk + r) * kk + c)]);
            row[offset + static_cast<std::size_t>(c)] = static_cast<float>(sum / kk);
        }
        rows.push_back({std::string(edge) == overlay::kNodeEdgeForwardAttention ? tr("fwd edges b%1").arg(branch + 1) : tr("bwd edges b%1").arg(branch + 1), row});
    }
    if (const auto it = na.arrays.find(overlay::kNodeForgetGates); it != na.arrays.end() && it->second.shape.size() == 2) {
        const NamedArray &f = it->second;
        std::vector<float> row;
        for (int c = 0; c < f.shape[0]; ++c) {
            double sum = 0;
            for (int j = 0; j < f.shape[1]; ++j)
                sum += static_cast<double>(f.data[static_cast<std::size_t>(c * f.shape[1] + j)]);
            row.push_back(static_cast<float>(sum / f.shape[1]));
        }
        rows.push_back({tr("forget (mean)"), row});
    }
    for (const auto &[name, values] : rows) {
        p.setPen(kInk);
        p.setFont(fonts.small);
        p.drawText(QRectF(x, y, 98, kCellH), Qt::AlignVCenter | Qt::AlignLeft, name);
        for (std::size_t k = 0; k < values.size(); ++k) {
            const QRectF cell(x + 100 + static_cast<double>(k) * kCell, y, kCell - 2, kCellH - 2);
            if (values[k] < 0) {
                p.setPen(QPen(kPending, 0.6));
                p.setBrush(Qt::NoBrush);
                p.drawRect(cell);
                continue;
            }
            const QColor fill = sequentialColor(static_cast<double>(values[k]));
            p.fillRect(cell, fill);
            p.setPen(textOnColor(fill, kInk));
            p.drawText(cell, Qt::AlignCenter, QString::number(static_cast<double>(values[k]), 'f', 2));
        }
        y += kCellH;
    }
    return y;
}

double CompositionView::paintBranchWeights(QPainter &p, const Fonts &fonts, double x, double y) const
{
    const Analysis &a = *m_data.analysis;
    const auto kappa = a.gates.find(overlay::kCompositionBranchKappa), alpha = a.gates.find(overlay::kCompositionBranchAlpha);
    if (kappa == a.gates.end() || alpha == a.gates.end())
        return y;
    const int branch = selectedBranch();
    p.setFont(fonts.bold);
    p.setPen(kInk);
    p.drawText(QPointF(x, y + 10), tr("The model's branch weights: κ scales, α mixes"));
    y += 18;
    double top = 1e-6;
    for (float v : kappa->second.data)
        top = std::max(top, std::abs(static_cast<double>(v)));
    for (float v : alpha->second.data)
        top = std::max(top, std::abs(static_cast<double>(v)));
    const int n = static_cast<int>(kappa->second.data.size());
    const double barH = 70.0, groupW = std::min(60.0, (kPanelW - 40) / std::max(1, n));
    p.setFont(fonts.small);
    for (int b = 0; b < n; ++b) {
        const double gx = x + 10 + b * groupW;
        const double values[2] = {static_cast<double>(kappa->second.data[static_cast<std::size_t>(b)]),
                                  static_cast<double>(alpha->second.data[static_cast<std::size_t>(b)])};
        for (int s = 0; s < 2; ++s) {
            const double h = barH * std::abs(values[s]) / top;
            const QRectF bar(gx + s * (groupW / 2 - 2), y + barH - h, groupW / 2 - 4, h);
            p.fillRect(bar, s == 0 ? QColor(0x4c, 0x72, 0xb0) : QColor(0xdd, 0x84, 0x52));
            if (b == branch)
                p.setPen(QPen(kInk, 1.2)), p.drawRect(bar);
        }
        p.setPen(kInk);
        p.drawText(QRectF(gx, y + barH + 2, groupW, 14), Qt::AlignHCenter, tr("b%1").arg(b + 1));
    }
    p.fillRect(QRectF(x + 10, y + barH + 20, 10, 10), QColor(0x4c, 0x72, 0xb0));
    p.drawText(QPointF(x + 24, y + barH + 29), tr("κ"));
    p.fillRect(QRectF(x + 50, y + barH + 20, 10, 10), QColor(0xdd, 0x84, 0x52));
    p.drawText(QPointF(x + 64, y + barH + 29), tr("α (largest |value| %1)").arg(top, 0, 'f', 3));
    return y + barH + 40;
}

void CompositionView::paintCellGates(QPainter &p, const Fonts &fonts, const NodeAttention &na, double x, double y) const
{
    const auto it = na.arrays.find(overlay::kNodeCellGates);
    if (it == na.arrays.end() || it->second.shape.size() != 2 || it->second.shape[0] != 5)
        return;
    const NamedArray &g = it->second;
    p.setFont(fonts.bold);
    p.setPen(kInk);
    p.drawText(QPointF(x, y + 10), tr("Tree-LSTM cell of the node (mean over the memory)"));
    y += 16;
    const char *names[] = {"input i", "output o", "update u", "cell c", "hidden h"};
    p.setFont(fonts.small);
    for (int k = 0; k < 5; ++k) {
        double sum = 0;
        for (int j = 0; j < g.shape[1]; ++j)
            sum += static_cast<double>(g.data[static_cast<std::size_t>(k * g.shape[1] + j)]);
        const double mean = sum / g.shape[1];
        p.setPen(kInk);
        p.drawText(QRectF(x, y, 98, kCellH), Qt::AlignVCenter, tr(names[k]));
        const double w = std::clamp(std::abs(mean), 0.0, 1.0) * 200.0;
        p.fillRect(QRectF(x + 100, y + 3, w, kCellH - 6), mean >= 0 ? QColor(0x4c, 0x72, 0xb0) : QColor(0xc4, 0x4e, 0x52));
        p.drawText(QRectF(x + 106 + w, y, 80, kCellH), Qt::AlignVCenter, QString::number(mean, 'f', 3));
        y += kCellH;
    }
}

} // namespace treelens
