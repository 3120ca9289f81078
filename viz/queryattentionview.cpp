// The attention statistic of a pattern's occurrences as a heatmap (see queryattentionview.h).
#include "viz/queryattentionview.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <QVBoxLayout>

#include "viz/plotstyle.h"
#include "viz/qcustomplot.h"

namespace treelens {

namespace {

QString signedOffset(int offset) { return offset > 0 ? QStringLiteral("+%1").arg(offset) : QString::number(offset); }

QString interval(const QueryAttentionFigure::Cell &c)
{
    return QStringLiteral("%1 [%2, %3], n = %4").arg(c.mean, 0, 'f', 3).arg(c.low, 0, 'f', 3).arg(c.high, 0, 'f', 3).arg(c.n);
}

} // namespace

QueryAttentionView::QueryAttentionView(QWidget *parent) : QWidget(parent)
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_plot = new QCustomPlot(this);
    m_plot->setMinimumSize(300, 240);
    m_plot->setBackground(Qt::white);
    layout->addWidget(m_plot);
    m_title = new PlotTitle(m_plot, plotFont(kPlotTitlePt, true));
    m_plot->plotLayout()->insertRow(0);
    m_plot->plotLayout()->addElement(0, 0, m_title);
    const MatrixPlotParts parts = addMatrixPlot(m_plot);
    m_map = parts.map;
    m_scale = parts.scale;
    m_map->setGradient([] {
        QCPColorGradient g = viridisGradient();
        g.setNanHandling(QCPColorGradient::nhTransparent);
        return g;
    }());
    m_scale->axis()->setLabel(tr("mean attention"));
    m_plot->xAxis->setLabel(tr("head"));
    m_plot->yAxis->setLabel(tr("layer"));
    QSharedPointer<QCPAxisTickerFixed> ticker(new QCPAxisTickerFixed);
    ticker->setTickStep(1.0);
    ticker->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
    m_plot->xAxis->setTicker(ticker);
    m_plot->yAxis->setTicker(ticker);
    m_selection = new QCPItemRect(m_plot);
    m_selection->setPen(QPen(QColor(0xd5, 0x5e, 0x00), 2.5));
    m_selection->setBrush(Qt::NoBrush);
    m_selection->setSelectable(false);
    m_selection->setVisible(false);
    connect(m_plot, &QCustomPlot::mousePress, this, &QueryAttentionView::clicked);
    connect(m_plot, &QCustomPlot::mouseMove, this, &QueryAttentionView::hover);
    rebuild();
}

void QueryAttentionView::setFigure(QueryAttentionFigure figure)
{
    m_figure = std::move(figure);
    m_selLayer = m_selHead = -1;
    if (m_figure.baseline.empty())
        m_baseline = false;
    rebuild();
}

void QueryAttentionView::setShowBaseline(bool baseline)
{
    const bool show = baseline && !m_figure.baseline.empty();
    if (show == m_baseline)
        return;
    m_baseline = show;
    rebuild();
}

void QueryAttentionView::setSelected(int layer, int head)
{
    m_selLayer = layer;
    m_selHead = head;
    rebuild();
}

const std::vector<QueryAttentionFigure::Cell> &QueryAttentionView::shown() const
{
    return m_baseline ? m_figure.baseline : m_figure.cells;
}

double QueryAttentionView::valueAt(int layer, int head) const
{
    const auto &cells = shown();
    const int k = layer * m_figure.heads + head;
    if (layer < 0 || head < 0 || layer >= m_figure.layers || head >= m_figure.heads || k >= static_cast<int>(cells.size()) ||
        cells[static_cast<std::size_t>(k)].n == 0)
        return std::numeric_limits<double>::quiet_NaN();
    return cells[static_cast<std::size_t>(k)].mean;
}

QString QueryAttentionView::cellToolTip(int layer, int head) const
{
    const int k = layer * m_figure.heads + head;
    if (layer < 0 || head < 0 || layer >= m_figure.layers || head >= m_figure.heads || k >= static_cast<int>(m_figure.cells.size()))
        return QString();
    QStringList lines;
    lines << tr("Layer %1, head %2").arg(layer + 1).arg(head + 1);
    lines << tr("%1 → %2: mean %3 (95 % interval)").arg(m_figure.from, m_figure.to, interval(m_figure.cells[static_cast<std::size_t>(k)]));
    if (k < static_cast<int>(m_figure.baseline.size()))
        lines << tr("baseline, offset %1: %2").arg(signedOffset(m_figure.baselineOffset), interval(m_figure.baseline[static_cast<std::size_t>(k)]));
    lines << tr("Click to list the occurrences behind this cell");
    return lines.join(QLatin1Char('\n'));
}

QStringList QueryAttentionView::cellTexts() const
{
    QStringList out;
    for (const QCPItemText *t : m_texts)
        out << t->text();
    return out;
}

QStringList QueryAttentionView::titleLines() const
{
    QStringList out{m_title->text()};
    return out + m_title->lineTexts();
}

QPointF QueryAttentionView::cellCentre(int layer, int head) const
{
    return QPointF(m_plot->xAxis->coordToPixel(head + 1), m_plot->yAxis->coordToPixel(layer + 1));
}

bool QueryAttentionView::cellAt(const QPointF &pos, int *layer, int *head) const
{
    if (m_figure.layers <= 0 || m_figure.heads <= 0)
        return false;
    const int h = static_cast<int>(std::lround(m_plot->xAxis->pixelToCoord(pos.x()))) - 1;
    const int l = static_cast<int>(std::lround(m_plot->yAxis->pixelToCoord(pos.y()))) - 1;
    if (h < 0 || l < 0 || h >= m_figure.heads || l >= m_figure.layers || !m_plot->axisRect()->rect().contains(pos.toPoint()))
        return false;
    *layer = l;
    *head = h;
    return true;
}

void QueryAttentionView::clicked(QMouseEvent *event)
{
    int layer = -1, head = -1;
    if (event->button() == Qt::LeftButton && cellAt(event->position(), &layer, &head)) {
        setSelected(layer, head);
        Q_EMIT cellClicked(layer, head);
    }
}

void QueryAttentionView::hover(QMouseEvent *event)
{
    int layer = -1, head = -1;
    if (cellAt(event->position(), &layer, &head))
        QToolTip::showText(event->globalPosition().toPoint(), cellToolTip(layer, head), m_plot);
    else
        QToolTip::hideText();
}

void QueryAttentionView::rebuild()
{
    const QueryAttentionFigure &f = m_figure;
    for (QCPItemText *t : m_texts)
        m_plot->removeItem(t);
    m_texts.clear();
    std::vector<PlotTitle::Line> lines;
    if (f.layers <= 0 || f.heads <= 0) {
        m_title->setText(f.occurrences == 0 && !f.from.isEmpty()
                             ? tr("No attention from %1 to %2: no occurrence with both words and attention").arg(f.from, f.to)
                             : tr("Attention between two pattern nodes: run it from the Corpus dock"));
        m_title->setLines({});
        m_map->data()->clear();
        m_selection->setVisible(false);
        m_plot->replot();
        return;
    }
    m_title->setText(m_baseline ? tr("Baseline: attention from %1 to the word at offset %2").arg(f.from, signedOffset(f.baselineOffset))
                                : tr("Attention %1 → %2: the mean over %3 occurrence(s) in %4 sentence(s)")
                                      .arg(f.from, f.to)
                                      .arg(f.occurrences)
                                      .arg(f.sentences));
    const QColor grey(60, 60, 60);
    lines.push_back({tr("%1 · %2").arg(f.model, f.pattern), grey});
    if (f.baselineOffset != 0)
        lines.push_back({tr("baseline: the word at offset %1 from %2, where %3 is in %4 of %5 occurrences (%6 with such a word)")
                             .arg(signedOffset(f.baselineOffset), f.from, f.to)
                             .arg(f.baselineHits)
                             .arg(f.occurrences)
                             .arg(f.baselineOccurrences),
                         grey});
    if (f.skipped > 0)
        lines.push_back({tr("%1 occurrence(s) left out: a node bound to the anchor or to a constituent of several words, "
                            "or no attention")
                             .arg(f.skipped),
                         noteColor()});
    if (f.causal && f.later > 0)
        lines.push_back({tr("a causal model: in %1 occurrence(s) %2 comes after %3, attention 0 there by construction")
                             .arg(f.later)
                             .arg(f.to, f.from),
                         noteColor()});
    m_title->setLines(lines);

    // One scale for both grids, so switching to the baseline compares.
    double upper = 1e-6;
    for (const auto *grid : {&f.cells, &f.baseline})
        for (const auto &c : *grid)
            if (c.n > 0 && std::isfinite(c.mean))
                upper = std::max(upper, c.mean);
    m_map->data()->setSize(f.heads, f.layers);
    m_map->data()->setRange(QCPRange(1, f.heads), QCPRange(1, f.layers));
    const QCPRange range(0.0, upper);
    m_map->setDataRange(range);
    m_scale->setDataRange(range);
    m_scale->axis()->setLabel(m_baseline ? tr("mean attention (baseline)") : tr("mean attention"));
    const QFont cellFont = plotFont(f.layers * f.heads > 144 ? kPlotTickPt - 1.5 : kPlotTickPt);
    for (int l = 0; l < f.layers; ++l)
        for (int h = 0; h < f.heads; ++h) {
            const double v = valueAt(l, h);
            m_map->data()->setCell(h, l, v);
            if (!std::isfinite(v) || f.layers * f.heads > 400)
                continue;
            auto *t = new QCPItemText(m_plot);
            t->position->setCoords(h + 1, l + 1);
            t->setText(QString::number(v, 'f', 3)); // as `treelens-cli query --stat` writes them
            t->setFont(cellFont);
            t->setTextAlignment(Qt::AlignCenter);
            const QColor cell = QColor::fromRgb(m_map->gradient().color(v, range));
            t->setColor(cell.lightnessF() > 0.55 ? QColor(20, 20, 20) : QColor(250, 250, 250));
            t->setSelectable(false);
            m_texts.push_back(t);
        }
    m_plot->xAxis->setRange(0.5, f.heads + 0.5);
    m_plot->yAxis->setRange(0.5, f.layers + 0.5);
    const bool selected = m_selLayer >= 0 && m_selHead >= 0 && m_selLayer < f.layers && m_selHead < f.heads;
    m_selection->setVisible(selected);
    if (selected) {
        m_selection->topLeft->setCoords(m_selHead + 0.5, m_selLayer + 0.5);
        m_selection->bottomRight->setCoords(m_selHead + 1.5, m_selLayer + 1.5);
    }
    m_plot->replot();
}

QSizeF QueryAttentionView::exportSize() const
{
    const int heads = std::max(m_figure.heads, 1), layers = std::max(m_figure.layers, 1);
    return QSizeF(std::max(heads * 46.0 + 170.0, static_cast<double>(m_title->neededWidth()) + 120.0),
                  layers * 30.0 + 110.0 + m_title->linesHeight());
}

void QueryAttentionView::renderTo(QPainter *painter, const QRectF &target)
{
    const QSizeF natural = exportSize();
    const QSize size(static_cast<int>(std::ceil(natural.width())), static_cast<int>(std::ceil(natural.height())));
    painter->save();
    painter->fillRect(target, Qt::white);
    painter->restore();
    paintPlot(m_plot, painter, target, size);
    m_plot->setViewport(m_plot->rect());
}

} // namespace treelens
