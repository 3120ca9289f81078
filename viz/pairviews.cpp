// The pair workbench's views (see pairviews.h).
#include "viz/pairviews.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QVBoxLayout>

#include "core/data/overlays.h"
#include "viz/plotstyle.h"
#include "viz/qcustomplot.h"

namespace treelens {

namespace {

constexpr double kMargin = 12.0;
constexpr double kWordGap = 10.0;
constexpr double kWordHeight = 22.0;
constexpr double kArcSpace = 46.0;   // above the question row / below the answer row
constexpr double kBarSpace = 26.0;   // gate and interaction bars
constexpr double kBridge = 70.0;    // between the rows

const NamedArray *gate(const Analysis &a, const char *name)
{
    const auto it = a.gates.find(name);
    return it == a.gates.end() ? nullptr : &it->second;
}

/// Value [layer][word] of a [layers, words] array, or NaN.
double at2(const NamedArray *arr, int layer, int word)
{
    if (!arr || arr->shape.size() != 2 || layer < 0 || layer >= arr->shape[0] || word < 0 || word >= arr->shape[1])
        return std::numeric_limits<double>::quiet_NaN();
    return arr->data[static_cast<std::size_t>(layer) * arr->shape[1] + word];
}

struct Row {
    std::vector<QRectF> boxes;
    double width = 0;
};

Row layoutRow(const QFontMetricsF &fm, const std::vector<std::string> &words, double y)
{
    Row r;
    double x = kMargin;
    for (const auto &w : words) {
        const double width = std::max(24.0, fm.horizontalAdvance(QString::fromStdString(w)) + 10.0);
        r.boxes.emplace_back(x, y, width, kWordHeight);
        x += width + kWordGap;
    }
    r.width = x + kMargin;
    return r;
}

/// Group boundaries of the selected head as thin separators and alternating shading.
void drawGroups(QPainter &p, const Analysis &a, const Row &row, int head)
{
    const NamedArray *gid = gate(a, overlay::kTokenGroupId);
    if (!gid || gid->shape.size() != 2 || head >= gid->shape[0])
        return;
    const int n = std::min<int>(gid->shape[1], static_cast<int>(row.boxes.size()));
    for (int i = 0; i < n; ++i) {
        const int g = static_cast<int>(gid->data[static_cast<std::size_t>(head) * gid->shape[1] + i]);
        QRectF r = row.boxes[static_cast<std::size_t>(i)].adjusted(-kWordGap / 2, -3, kWordGap / 2, 3);
        p.fillRect(r, g % 2 ? QColor(235, 240, 250) : QColor(250, 245, 232));
        if (i > 0 && static_cast<int>(gid->data[static_cast<std::size_t>(head) * gid->shape[1] + i - 1]) != g) {
            p.setPen(QPen(QColor(90, 90, 90), 1.5, Qt::DashLine));
            p.drawLine(QPointF(r.left(), r.top() - 6), QPointF(r.left(), r.bottom() + 6));
        }
    }
}

void drawWords(QPainter &p, const std::vector<std::string> &words, const Row &row)
{
    p.setPen(Qt::black);
    for (std::size_t i = 0; i < words.size() && i < row.boxes.size(); ++i)
        p.drawText(row.boxes[i], Qt::AlignCenter, QString::fromStdString(words[i]));
}

/// Within-group attention of the selected layer/head as arcs on one side of the row.
void drawArcs(QPainter &p, const Analysis &a, const Row &row, const ViewState &s, bool above)
{
    if (s.layer >= static_cast<int>(a.attention.size()) || s.head >= static_cast<int>(a.attention[static_cast<std::size_t>(s.layer)].size()))
        return;
    const Matrix &m = a.attention[static_cast<std::size_t>(s.layer)][static_cast<std::size_t>(s.head)];
    // Words to the model's tokens (the Dependency-Transformer's [root] comes first).
    auto tok = [&a](int word) { return word < static_cast<int>(a.wordToken.size()) ? a.wordToken[static_cast<std::size_t>(word)] : word; };
    const int n = static_cast<int>(row.boxes.size());
    for (int i = 0; i < n; ++i) {
        if (s.focusWord >= 0 && i != s.focusWord)
            continue;
        for (int j = 0; j < n; ++j) {
            if (tok(i) >= m.rows || tok(j) >= m.cols)
                continue;
            const double w = m.at(tok(i), tok(j));
            if (i == j || w < s.threshold)
                continue;
            const QRectF &from = row.boxes[static_cast<std::size_t>(i)], &to = row.boxes[static_cast<std::size_t>(j)];
            const double y = above ? from.top() - 2 : from.bottom() + 2;
            const double x0 = from.center().x(), x1 = to.center().x();
            const double h = std::min(kArcSpace - 8, 12 + std::abs(x1 - x0) * 0.35);
            QPainterPath path(QPointF(x0, y));
            path.cubicTo(QPointF(x0, above ? y - h : y + h), QPointF(x1, above ? y - h : y + h), QPointF(x1, y));
            QColor c = sequentialColor(w);
            c.setAlphaF(0.35 + 0.65 * w);
            p.setPen(QPen(c, 1.0 + 3.0 * w));
            p.drawPath(path);
            p.setBrush(c);
            p.drawEllipse(QPointF(x1, y), 2.5, 2.5);
            p.setBrush(Qt::NoBrush);
        }
    }
}

/// The Dependency-Transformer: each word's mean relation gate g over its row (its
/// keys) in the selected layer/head; empty for other families.
std::vector<double> wordRelationGates(const Analysis &a, int layer, int head)
{
    std::vector<double> out;
    const Matrix *gate = headMatrix(a.relationGate, layer, head);
    if (!gate)
        return out;
    const Matrix &g = *gate;
    for (std::size_t k = 0; k < a.wordToken.size(); ++k) {
        const int r = a.wordToken[k];
        double sum = 0;
        for (int c = 0; c < g.cols; ++c)
            sum += static_cast<double>(g.at(r, c));
        out.push_back(g.cols > 0 ? sum / g.cols : 0.0);
    }
    return out;
}

/// Bars under (or over) each word: `values` in [0, max].
void drawBars(QPainter &p, const Row &row, const std::vector<double> &values, double maxValue, double y, double height,
              const QColor &color, bool downwards)
{
    for (std::size_t i = 0; i < values.size() && i < row.boxes.size(); ++i) {
        if (!std::isfinite(values[i]))
            continue;
        const double h = maxValue > 0 ? height * std::clamp(values[i] / maxValue, 0.0, 1.0) : 0.0;
        const QRectF &b = row.boxes[i];
        const QRectF bar(b.center().x() - 6, downwards ? y : y + height - h, 12, h);
        p.fillRect(bar, color);
        p.setPen(QPen(color.darker(130), 0.5));
        p.drawRect(QRectF(b.center().x() - 6, y, 12, height));
    }
}

/// The caption above the drawing, with the pair's score when the model predicts one.
QString headline(const Analysis &q, const QString &caption)
{
    QString head = caption;
    if (q.prediction)
        head += PairBridgeView::tr("   score %1, %2 (p = %3)")
                    .arg(q.prediction->score, 0, 'f', 3)
                    .arg(QString::fromStdString(q.prediction->label))
                    .arg(q.prediction->probabilities.size() > 1 ? q.prediction->probabilities[1] : 0.0, 0, 'f', 2);
    return head;
}

/// Each word's gate strength in the layer: GGSA's mean of G over D, or (`relationGates`,
/// the Dependency-Transformer) the word's mean relation gate g of the layer/head.
std::vector<double> gateStrength(const Analysis &a, int layer, int head, bool relationGates)
{
    if (relationGates)
        return wordRelationGates(a, layer, head);
    std::vector<double> out;
    for (int i = 0; i < static_cast<int>(a.words.size()); ++i)
        out.push_back(at2(gate(a, overlay::kTokenGateMean), layer, i));
    return out;
}

/// Where the lines between the two rows go.
struct Bridge {
    const Row *question;
    const Row *answer;
    double top;    ///< under the question's bars
    double bottom; ///< over the answer's bars
    double middle; ///< where the pooled question vector sits
    int layer;
    int head;
};

/// One Transformer over both sentences (a cross-encoder): its word-to-word attention of
/// the layer/head between the rows, relative to the largest, and what the lines are.
void drawCrossAttention(QPainter &p, const Matrix &cross, const Bridge &b)
{
    // Each weight is a share of a row spread over both sentences (about 1/n each when even):
    // drawn relative to the largest, as the pooled vector's weights are.
    double maxW = 0;
    for (int i = 0; i < cross.rows; ++i)
        for (int j = 0; j < cross.cols; ++j)
            maxW = std::max<double>(maxW, cross.at(i, j));
    for (int i = 0; i < cross.rows && i < static_cast<int>(b.question->boxes.size()); ++i)
        for (int j = 0; j < cross.cols && j < static_cast<int>(b.answer->boxes.size()); ++j) {
            const double w = maxW > 0 ? cross.at(i, j) / maxW : 0.0;
            if (w < 0.3)
                continue;
            QColor c = sequentialColor(w);
            c.setAlphaF(0.25 + 0.75 * w);
            p.setPen(QPen(c, 0.5 + 3.5 * w));
            p.drawLine(QPointF(b.question->boxes[static_cast<std::size_t>(i)].center().x(), b.top),
                       QPointF(b.answer->boxes[static_cast<std::size_t>(j)].center().x(), b.bottom));
        }
    p.setPen(Qt::darkGray);
    // Beside the lines, not over them.
    double right = kMargin;
    for (const Row *row : {b.question, b.answer})
        if (!row->boxes.empty())
            right = std::max(right, row->boxes.back().right());
    p.drawText(QPointF(right + 24, (b.top + b.bottom) / 2 + 4),
               PairBridgeView::tr("one Transformer reads both sentences: lines = layer %1 head %2's attention from the first "
                                  "sentence's words to the second's, relative to the largest (%3); under 30% of it not drawn")
                   .arg(b.layer + 1)
                   .arg(b.head + 1)
                   .arg(maxW, 0, 'f', 3));
}

/// Attention pooling over the answer from the question vector `v` (one row of weights).
void drawPooling(QPainter &p, const Matrix &alpha, QPointF v, const Bridge &b)
{
    double maxA = 0;
    for (int j = 0; j < alpha.cols; ++j)
        maxA = std::max<double>(maxA, alpha.at(0, j));
    for (int j = 0; j < alpha.cols && j < static_cast<int>(b.answer->boxes.size()); ++j) {
        const double w = maxA > 0 ? alpha.at(0, j) / maxA : 0;
        QColor c = sequentialColor(w);
        c.setAlphaF(0.25 + 0.75 * w);
        p.setPen(QPen(c, 0.5 + 4.0 * w));
        p.drawLine(v, QPointF(b.answer->boxes[static_cast<std::size_t>(j)].center().x(), b.bottom));
    }
    p.setPen(Qt::black);
    p.drawText(QPointF(v.x() + 10, v.y() + 4), PairBridgeView::tr("v_q: attention pooling over the answer (max %1)").arg(maxA, 0, 'f', 2));
}

/// Why a model draws nothing between the rows (no attention between the sentences).
QString noBridgeText(const Analysis &q)
{
    if (overlay::hasAggregationNodes(q))
        return PairBridgeView::tr("eq. (9) on both roots' span embeddings [w\u1d49; w\u207f]: no attention between the "
                                  "sentences; each phrase's attention over its children is on the constituency trees above");
    if (overlay::hasComposition(q))
        return overlay::hasCellGates(q)
                   ? PairBridgeView::tr("Tai et al.'s head on both root vectors; each node's attention over its children is "
                                        "on the trees above (a Tree-LSTM in cross mode takes that attention's query from "
                                        "the other sentence)")
                   : PairBridgeView::tr("Tai et al.'s head on both root vectors: no attention between the sentences; each "
                                        "node's composition is on the trees above");
    if (!q.relationGate.empty())
        return PairBridgeView::tr("pair head on the two [root] vectors (h\u00d7 = h\u2081\u2299h\u2082, h\u208a = "
                                  "|h\u2081 \u2212 h\u2082|): no attention between the sentences");
    return PairBridgeView::tr("v_q (max pooling: no question-to-answer attention)");
}

/// What goes between the rows: a cross-encoder's attention, the pooled question vector's
/// attention over the answer, or why there is none, with the pooled vector as a dot. `width`:
/// the drawing's. Returns whether the model is a cross-encoder.
bool drawBridge(QPainter &p, const Analysis &q, const Bridge &b, double width)
{
    const Analysis &a = q.second.front();
    const Row &qRow = *b.question;
    const double vx = qRow.boxes.empty() ? width / 2 : (qRow.boxes.front().left() + qRow.boxes.back().right()) / 2;
    const QPointF v(vx, b.middle);
    // One Transformer over both sentences (a cross-encoder): one word-to-word matrix per layer and head.
    const bool crossEncoder = q.layers > 0 && q.heads > 0 && static_cast<int>(q.crossAttention.size()) == q.layers * q.heads &&
                              q.crossAttention.front().rows == static_cast<int>(q.words.size()) &&
                              q.crossAttention.front().cols == static_cast<int>(a.words.size());
    if (crossEncoder) {
        const int k = std::clamp(b.layer, 0, q.layers - 1) * q.heads + std::clamp(b.head, 0, q.heads - 1);
        drawCrossAttention(p, q.crossAttention[static_cast<std::size_t>(k)], b);
        return true;
    }
    if (!q.crossAttention.empty() && q.crossAttention.front().rows == 1) {
        drawPooling(p, q.crossAttention.front(), v, b);
    } else {
        p.setPen(Qt::gray);
        p.drawText(QPointF(v.x() + 10, v.y() + 4), noBridgeText(q));
    }
    // The pooled question vector the other models compare.
    p.setBrush(QColor(80, 80, 80));
    p.setPen(Qt::NoPen);
    p.drawEllipse(v, 5, 5);
    p.setBrush(Qt::NoBrush);
    return false;
}

/// The key under the drawing: what the arcs, bars and lines of this model are.
QString keyText(const Analysis &q, const ViewState &s, bool relationGates, bool crossEncoder)
{
    const int layer = s.layer, h = s.head;
    if (overlay::hasAggregationNodes(q))
        return PairBridgeView::tr("Tree Aggregation Transformer: its attention lives on the trees' phrases (the "
                                  "constituency tabs above, head %1 of %2: the semantic stream's heads first)")
            .arg(h + 1)
            .arg(q.heads);
    if (relationGates)
        return PairBridgeView::tr("layer %1, head %2: arcs = attention ≥ %3 (softmax of the gated score); orange bars = "
                                  "the word's mean relation gate g (0 plain, 1 relation score)")
            .arg(layer + 1)
            .arg(h + 1)
            .arg(s.threshold, 0, 'f', 2);
    if (crossEncoder)
        return PairBridgeView::tr("layer %1, head %2: arcs = attention within each sentence ≥ %3 (each word's row also "
                                  "attends to the other sentence: the lines between them)")
            .arg(layer + 1)
            .arg(h + 1)
            .arg(s.threshold, 0, 'f', 2);
    return PairBridgeView::tr("layer %1, head %2: arcs = within-group attention ≥ %3, shading/dashes = the head's "
                              "groups; orange bars = gate strength (mean of G)")
        .arg(layer + 1)
        .arg(h + 1)
        .arg(s.threshold, 0, 'f', 2);
}

} // namespace

// ------------------------------------------------------------------ PairBridgeView

PairBridgeView::PairBridgeView(QWidget *parent) : PaintedExportView(parent) {}

void PairBridgeView::setData(const ViewData &data)
{
    m_analysis = data.analysis;
    updateGeometry();
    setMinimumSize(sizeHint());
    update();
}

void PairBridgeView::setState(const ViewState &state)
{
    m_state = state;
    update();
}

void PairBridgeView::setCaption(const QString &caption)
{
    m_caption = caption;
    update();
}

QSize PairBridgeView::sizeHint() const
{
    QFontMetricsF fm(font());
    double w = 400;
    if (m_analysis) {
        w = std::max(w, layoutRow(fm, m_analysis->words, 0).width);
        if (!m_analysis->second.empty())
            w = std::max(w, layoutRow(fm, m_analysis->second.front().words, 0).width);
    }
    const double h = 40 + kArcSpace + kWordHeight + kBarSpace + kBridge + kBarSpace + kWordHeight + kArcSpace + 40;
    return QSize(static_cast<int>(w), static_cast<int>(h));
}

void PairBridgeView::paint(QPainter &p, const QSizeF &size) const
{
    QFont bold = font();
    bold.setBold(true);
    if (!m_analysis) {
        p.setPen(Qt::gray);
        p.drawText(QRectF(QPointF(0, 0), size), Qt::AlignCenter, tr("Select a candidate to see the pair."));
        return;
    }
    const Analysis &q = *m_analysis;
    QFontMetricsF fm(font());
    const double y = 24;
    p.setFont(bold);
    p.setPen(Qt::black);
    p.drawText(QPointF(kMargin, y - 6), headline(q, m_caption));
    p.setFont(font());
    const int layer = m_state.layer, h = m_state.head;
    const double qRowY = y + kArcSpace;
    const Row qRow = layoutRow(fm, q.words, qRowY);
    drawGroups(p, q, qRow, h);
    drawArcs(p, q, qRow, m_state, true);
    drawWords(p, q.words, qRow);
    // Gate strength (GGSA: mean of G over D; the Dependency-Transformer: the word's mean
    // relation gate) of the question words, as bars below them.
    const bool relationGates = !q.relationGate.empty();
    const double barTop = qRowY + kWordHeight + 4;
    drawBars(p, qRow, gateStrength(q, layer, h, relationGates), 1.0, barTop, kBarSpace - 10, QColor(230, 159, 0), true);

    if (q.second.empty()) {
        p.setPen(noteColor());
        p.drawText(QPointF(kMargin, barTop + kBarSpace + 20), tr("A single sentence: no answer to draw."));
        return;
    }
    const Analysis &a = q.second.front();
    const double aRowY = barTop + kBarSpace + kBridge + kBarSpace;
    const Row aRow = layoutRow(fm, a.words, aRowY);
    // Interaction residual norms (iGGSA) above the answer words, gate bars below.
    const NamedArray *inter = gate(a, overlay::kPairInteractionNorm);
    std::vector<double> aInter;
    double interMax = 0;
    for (int i = 0; i < static_cast<int>(a.words.size()); ++i) {
        aInter.push_back(at2(inter, layer, i));
        if (std::isfinite(aInter.back()))
            interMax = std::max(interMax, aInter.back());
    }
    const double interTop = aRowY - kBarSpace;
    drawBars(p, aRow, aInter, interMax, interTop, kBarSpace - 10, QColor(0, 114, 178), false);

    // Composition attention: question vector -> answer words.
    const Bridge bridge{&qRow, &aRow, barTop + kBarSpace - 6, interTop - 4, barTop + kBarSpace + 14, layer, h};
    const bool crossEncoder = drawBridge(p, q, bridge, size.width());

    drawGroups(p, a, aRow, h);
    drawArcs(p, a, aRow, m_state, false);
    drawWords(p, a.words, aRow);
    drawBars(p, aRow, gateStrength(a, layer, h, relationGates), 1.0, aRowY + kWordHeight + kArcSpace - kBarSpace + 6,
             kBarSpace - 10, QColor(230, 159, 0), true);

    p.setPen(Qt::darkGray);
    QString key = keyText(q, m_state, relationGates, crossEncoder);
    if (inter)
        key += tr("; blue bars = question-interaction residual ‖R̃‖ (max %1)").arg(interMax, 0, 'f', 2);
    p.drawText(QPointF(kMargin, size.height() - 10), key);
}

// ------------------------------------------------------------------ SliceBarChart

SliceBarChart::SliceBarChart(QWidget *parent) : QWidget(parent), m_plot(new QCustomPlot(this))
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_plot);
    setMinimumHeight(220);
}

void SliceBarChart::setData(const QString &title, const QString &metric, const QStringList &slices,
                            const QStringList &systems, const std::vector<std::vector<double>> &values)
{
    m_plot->clearPlottables();
    if (m_plot->plotLayout()->rowCount() > 1)
        m_plot->plotLayout()->removeAt(0), m_plot->plotLayout()->simplify();
    styleChart(m_plot, metric);
    addPlotTitle(m_plot, title, plotFont(kPlotTitlePt, true));
    QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
    for (int i = 0; i < slices.size(); ++i)
        ticker->addTick(i + 1, slices[i]);
    m_plot->xAxis->setTicker(ticker);
    m_plot->xAxis->setTickLabelRotation(slices.size() > 5 ? 30 : 0);
    m_plot->xAxis->setRange(0.3, slices.size() + 0.7);
    m_plot->yAxis->setRange(0, 1.0);
    static const QColor colors[] = {QColor(0, 114, 178), QColor(230, 159, 0), QColor(0, 158, 115)};
    const double width = 0.8 / std::max<qsizetype>(1, systems.size());
    auto *group = new QCPBarsGroup(m_plot);
    for (int s = 0; s < systems.size() && s < static_cast<int>(values.size()); ++s) {
        auto *bars = new QCPBars(m_plot->xAxis, m_plot->yAxis);
        bars->setName(systems[s]);
        bars->setWidth(width);
        bars->setBrush(colors[s % 3]);
        bars->setPen(QPen(colors[s % 3].darker(130)));
        bars->setBarsGroup(group);
        for (int i = 0; i < slices.size() && i < static_cast<int>(values[static_cast<std::size_t>(s)].size()); ++i)
            if (std::isfinite(values[static_cast<std::size_t>(s)][static_cast<std::size_t>(i)]))
                bars->addData(i + 1, values[static_cast<std::size_t>(s)][static_cast<std::size_t>(i)]);
    }
    m_plot->legend->setVisible(systems.size() > 1);
    m_plot->replot();
}

QSizeF SliceBarChart::exportSize() const
{
    return QSizeF(480, 300);
}

void SliceBarChart::renderTo(QPainter *painter, const QRectF &target)
{
    paintPlot(m_plot, painter, target, QSize(640, 400));
}

// ------------------------------------------------------------------ ScoreScatterPlot

ScoreScatterPlot::ScoreScatterPlot(QWidget *parent) : QWidget(parent), m_plot(new QCustomPlot(this))
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_plot);
    setMinimumHeight(240);
    connect(m_plot, &QCustomPlot::mousePress, this, [this](QMouseEvent *e) {
        if (m_x.empty())
            return;
        const double px = e->position().x(), py = e->position().y();
        int best = -1;
        double bestD = 1e18;
        for (std::size_t i = 0; i < m_x.size(); ++i) {
            const double dx = m_plot->xAxis->coordToPixel(m_x[i]) - px, dy = m_plot->yAxis->coordToPixel(m_y[i]) - py;
            if (dx * dx + dy * dy < bestD) {
                bestD = dx * dx + dy * dy;
                best = static_cast<int>(i);
            }
        }
        if (best >= 0 && bestD < 100)
            Q_EMIT pairClicked(best);
    });
}

void ScoreScatterPlot::setData(const QString &xName, const QString &yName, const std::vector<double> &x,
                               const std::vector<double> &y, const std::vector<bool> &correct)
{
    m_x = x;
    m_y = y;
    m_plot->clearGraphs();
    if (m_plot->plotLayout()->rowCount() > 1)
        m_plot->plotLayout()->removeAt(0), m_plot->plotLayout()->simplify();
    styleChart(m_plot, yName);
    m_plot->xAxis->setLabel(xName);
    addPlotTitle(m_plot, tr("Pair scores: %1 vs %2").arg(xName, yName), plotFont(kPlotTitlePt, true));
    for (int label = 0; label < 2; ++label) {
        auto *g = m_plot->addGraph();
        g->setName(label ? tr("correct answer") : tr("wrong answer"));
        g->setLineStyle(QCPGraph::lsNone);
        const QColor c = label ? QColor(213, 94, 0) : QColor(0, 114, 178, 120);
        g->setScatterStyle(QCPScatterStyle(label ? QCPScatterStyle::ssDisc : QCPScatterStyle::ssCircle, c, c, label ? 6 : 4));
        for (std::size_t i = 0; i < x.size() && i < y.size() && i < correct.size(); ++i)
            if (correct[i] == static_cast<bool>(label))
                g->addData(x[i], y[i]);
    }
    m_plot->rescaleAxes();
    m_plot->legend->setVisible(true);
    m_plot->replot();
}

QSizeF ScoreScatterPlot::exportSize() const
{
    return QSizeF(400, 360);
}

void ScoreScatterPlot::renderTo(QPainter *painter, const QRectF &target)
{
    paintPlot(m_plot, painter, target, QSize(540, 480));
}

} // namespace treelens
