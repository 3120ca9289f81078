#include "viz/heatmapview.h"

#include <algorithm>
#include <cmath>

#include <QFontMetricsF>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <QVBoxLayout>

#include "viz/heatmaplabels.h"
#include "viz/plotstyle.h"

namespace treelens {

namespace {

constexpr double kTickPt = kPlotTickPt;
constexpr double kMinTickPt = 6.5; // the smallest token label before labels are thinned
constexpr double kTitlePt = kPlotTitlePt;

/// Every k-th token label, with k chosen so labels of `labelExtent` pixels do
/// not overlap when one cell is `pixelsPerCell` wide.
int labelStep(double pixelsPerCell, double labelExtent)
{
    if (pixelsPerCell <= 0.0)
        return 1;
    return std::max(1, static_cast<int>(std::ceil(labelExtent * 1.15 / pixelsPerCell)));
}

void setTokenTicks(QCPAxis *axis, const std::vector<std::string> &tokens, int n, int step)
{
    QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
    for (int i = 0; i < n; i += step)
        ticker->addTick(i, tokenLabel(tokens, i));
    ticker->setSubTickCount(0);
    axis->setTicker(ticker);
}

/// `g` with cells that hold NaN (cellMasked) left transparent, for an item to mark.
QCPColorGradient withTransparentNan(QCPColorGradient g)
{
    g.setNanHandling(QCPColorGradient::nhTransparent);
    return g;
}

} // namespace

HeatmapView::HeatmapView(QWidget *parent) : QWidget(parent)
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_plot = new QCustomPlot(this);
    m_plot->setMinimumSize(320, 280);
    m_plot->setBackground(Qt::white);
    layout->addWidget(m_plot);

    m_title = new PlotTitle(m_plot, plotFont(kTitlePt, true));
    m_plot->plotLayout()->insertRow(0);
    m_plot->plotLayout()->addElement(0, 0, m_title);

    // Row 0 (the first query token) at the top; the colour scale as tall as the map.
    const MatrixPlotParts parts = addMatrixPlot(m_plot);
    m_map = parts.map;
    m_map->setGradient(withTransparentNan(viridisGradient()));
    m_scale = parts.scale;
    m_margins = parts.margins;

    connect(m_plot, &QCustomPlot::mouseMove, this,
            [this](QMouseEvent *e) { handleHover(e->position(), e->globalPosition().toPoint()); });
    // Labels are thinned for the size the map actually got; re-check after each
    // layout (converges at once: thinning hardly changes the margins).
    connect(m_plot, &QCustomPlot::afterReplot, this, [this] {
        if (updateTicks(m_plot->axisRect()->width(), m_plot->axisRect()->height()))
            m_plot->replot(QCustomPlot::rpQueuedReplot);
    });
}

void HeatmapView::setData(const ViewData &data)
{
    m_data = data;
    rebuild();
}

void HeatmapView::setState(const ViewState &state)
{
    m_state = state;
    rebuild();
}

const std::vector<std::string> &HeatmapView::axisTokens() const
{
    return m_data.analysis->tokens;
}

double HeatmapView::exportCellPoints(int n) const
{
    (void)n;
    return 22.0;
}

double HeatmapView::exportSideLimit() const
{
    return 720.0;
}

void HeatmapView::rebuild()
{
    prepareMatrix();
    const Matrix *m = currentMatrix();
    m_rows = m ? std::min(m->rows, m->cols) : 0;
    m_tickStep = 0;
    const int n = m_rows;

    const Figure figure = describe(m);
    m_title->setText(figure.title);
    if (figure.nearIsBright) {
        m_map->setGradient(withTransparentNan(viridisGradient().inverted()));
        m_scale->setGradient(viridisGradient().inverted());
    }
    m_scale->axis()->setLabel(figure.scaleLabel);
    m_map->setDataRange(QCPRange(0.0, figure.upper));
    m_scale->setDataRange(QCPRange(0.0, figure.upper));
    m_plot->xAxis->setLabel(figure.xLabel);
    m_plot->yAxis->setLabel(figure.yLabel);

    fillMap(m, n);
    m_plot->clearItems();
    if (n > 0)
        addItems(n);

    std::vector<PlotTitle::Line> lines;
    for (const TitleLine &line : figure.lines)
        lines.push_back({line.text, line.color,
                         line.box ? PlotTitle::Glyph::BracketBox : line.hatch ? PlotTitle::Glyph::Hatch : PlotTitle::Glyph::None});
    lines.push_back({unknownWordsNote(m_data.analysis.get()), noteColor()});
    lines.insert(lines.begin(), {ablationBadge(m_data.analysis.get()), ablationColor()});
    lines.erase(std::remove_if(lines.begin(), lines.end(), [](const PlotTitle::Line &l) { return l.text.isEmpty(); }),
                lines.end());
    m_title->setLines(std::move(lines));

    updateTicks(m_plot->axisRect()->width(), m_plot->axisRect()->height());
    m_plot->replot();
}

void HeatmapView::fillMap(const Matrix *m, int n)
{
    // Cell (key = column c, value = row r) sits at coordinate (c, r).
    QCPColorMapData *d = m_map->data();
    d->setSize(std::max(n, 1), std::max(n, 1));
    d->setRange(QCPRange(0, std::max(n - 1, 0)), QCPRange(0, std::max(n - 1, 0)));
    if (n > 0) {
        for (int r = 0; r < n; ++r)
            for (int c = 0; c < n; ++c)
                d->setCell(c, r, cellMasked(r, c) ? std::nan("") : static_cast<double>(m->at(r, c)));
    } else {
        d->fill(std::nan(""));
    }
    m_map->setVisible(n > 0);
    const double hi = std::max(n, 1) - 0.5;
    m_plot->xAxis->setRange(-0.5, hi);
    m_plot->yAxis->setRange(-0.5, hi);
}

QStringList HeatmapView::titleLines() const
{
    return m_title->lineTexts();
}

QString HeatmapView::scaleLabel() const
{
    return m_scale->axis()->label();
}

bool HeatmapView::updateTicks(double columnPixels, double rowPixels)
{
    const int n = m_rows;
    if (n <= 0) {
        if (m_tickStep == -1)
            return false;
        m_tickStep = -1;
        QSharedPointer<QCPAxisTickerText> empty(new QCPAxisTickerText);
        m_plot->xAxis->setTicker(empty);
        m_plot->yAxis->setTicker(empty);
        return true;
    }
    const std::vector<std::string> &tokens = axisTokens();
    const double perRow = rowPixels / n, perColumn = columnPixels / n;
    // A small pane (the plots' tab under the trees) first gets smaller labels, down to
    // kMinTickPt; only below that are labels thinned (8 words once lost every other one),
    // each axis for its own length: the pane is wide and short, so the columns keep every
    // label where the rows cannot (17 tokens lost 8 on both axes).
    const double fullHeight = QFontMetricsF(plotFont(kTickPt)).height();
    const double pt = std::clamp(kTickPt * std::min(perRow, perColumn) / (fullHeight * 1.15), kMinTickPt, kTickPt);
    const QFontMetricsF fm(plotFont(pt));
    const int step = labelStep(perRow, fm.height());
    // Horizontal labels only when every label fits its column.
    double widest = 0.0;
    for (int i = 0; i < n; ++i)
        widest = std::max(widest, fm.horizontalAdvance(tokenLabel(tokens, i)));
    const bool rotate = widest + 4.0 > perColumn;
    const int columnStep = rotate ? labelStep(perColumn, fm.height()) : 1;
    if (step == m_tickStep && columnStep == m_columnStep && rotate == m_rotated && std::abs(pt - m_tickPt) < 0.05)
        return false;
    m_tickStep = step;
    m_columnStep = columnStep;
    m_rotated = rotate;
    m_tickPt = pt;
    m_plot->xAxis->setTickLabelFont(plotFont(pt));
    m_plot->yAxis->setTickLabelFont(plotFont(pt));
    setTokenTicks(m_plot->xAxis, tokens, n, columnStep);
    setTokenTicks(m_plot->yAxis, tokens, n, step);
    m_plot->xAxis->setTickLabelRotation(rotate ? 90.0 : 0.0);
    return true;
}

int HeatmapView::rowCount() const
{
    return m_rows;
}

double HeatmapView::cellValue(int r, int c) const
{
    if (r < 0 || c < 0 || r >= m_rows || c >= m_rows)
        return std::nan("");
    return m_map->data()->cell(c, r);
}

void HeatmapView::handleHover(const QPointF &pos, const QPoint &globalPos)
{
    if (m_rows <= 0 || !m_plot->axisRect()->rect().contains(pos.toPoint())) {
        QToolTip::hideText();
        return;
    }
    const int c = static_cast<int>(std::lround(m_plot->xAxis->pixelToCoord(pos.x())));
    const int r = static_cast<int>(std::lround(m_plot->yAxis->pixelToCoord(pos.y())));
    if (r < 0 || c < 0 || r >= m_rows || c >= m_rows)
        return;
    const QString text = cellText(r, c);
    Q_EMIT hovered(text);
    QToolTip::showText(globalPos, text, m_plot);
}

QString HeatmapView::cellText(int r, int c) const
{
    if (r < 0 || c < 0 || r >= m_rows || c >= m_rows || !m_data.analysis)
        return QString();
    return describeCell(r, c);
}

QSizeF HeatmapView::exportSize() const
{
    const int n = std::max(m_rows, 1);
    // Cells between ~3 and 30 pt: small sentences are not blown up, long ones
    // stay on a page (labels are thinned instead).
    const double side = std::clamp(n * exportCellPoints(n), 240.0, exportSideLimit());
    double widest = 0.0;
    if (m_rows > 0) {
        const QFontMetricsF fm(plotFont(kTickPt));
        const std::vector<std::string> &tokens = axisTokens(); // the labels the axes show (a piece view's pieces)
        for (int i = 0; i < m_rows; ++i)
            widest = std::max(widest, fm.horizontalAdvance(tokenLabel(tokens, i)));
    }
    // At least as wide as the title and its lines (a short sentence's map is narrower). The title sits
    // in the map's column, beside the colour scale's (its bar, ticks and label: about 120 pt), so the
    // whole view needs that much more; without it a short causal map's title was cut on both sides.
    return QSizeF(std::max(side + widest + 150.0, static_cast<double>(m_title->neededWidth()) + 120.0),
                  side + widest + 90.0 + m_title->linesHeight());
}

void HeatmapView::renderTo(QPainter *painter, const QRectF &target)
{
    const QSizeF natural = exportSize();
    const QSize size(static_cast<int>(std::ceil(natural.width())), static_cast<int>(std::ceil(natural.height())));
    painter->save();
    painter->fillRect(target, Qt::white);
    painter->restore();
    // Lay the map out at the export size first so label thinning fits it.
    layOutPlotAt(m_plot, size);
    updateTicks(m_plot->axisRect()->width(), m_plot->axisRect()->height());
    paintPlot(m_plot, painter, target, size);
    m_plot->setViewport(m_plot->rect());
    // The queued replot lays the widget out again and afterReplot re-thins its labels.
    m_tickStep = 0;
}

} // namespace treelens
