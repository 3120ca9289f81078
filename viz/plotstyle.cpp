#include "viz/plotstyle.h"

#include <QPainter>
#include <QPainterPath>
#include <QPicture>

#include <algorithm>
#include <cmath>

#include "viz/viewcommon.h"

namespace treelens {

QFont plotFont(double pt, bool bold)
{
    QFont f;
    f.setPointSizeF(pt);
    f.setBold(bold);
    return f;
}

QCPColorGradient viridisGradient()
{
    QCPColorGradient g;
    g.clearColorStops();
    for (int i = 0; i <= 8; ++i)
        g.setColorStopAt(i / 8.0, sequentialColor(i / 8.0));
    g.setColorInterpolation(QCPColorGradient::ciRGB);
    g.setLevelCount(256);
    return g;
}

namespace {

constexpr double kLinePt = 8.5;
constexpr int kWrapWidth = 460;   ///< lines wrap here so a long note cannot widen the plot
constexpr int kGlyphWidth = 20;   ///< a glyph and its gap before the text

} // namespace

PlotTitle::PlotTitle(QCustomPlot *plot, const QFont &font) : QCPTextElement(plot, QString(), font) {}

void PlotTitle::setLines(std::vector<Line> lines) { m_lines = std::move(lines); }

QStringList PlotTitle::lineTexts() const
{
    QStringList out;
    for (const Line &l : m_lines)
        out << l.text;
    return out;
}

void PlotTitle::drawBracketBox(QPainter *painter, const QRectF &rect)
{
    painter->save();
    painter->setBrush(Qt::NoBrush);
    painter->setRenderHint(QPainter::Antialiasing, true);
    painter->setPen(QPen(QColor(0, 0, 0, 200), 3.2));
    painter->drawRect(rect);
    painter->setPen(QPen(Qt::white, 1.4));
    painter->drawRect(rect);
    painter->restore();
}

QRect PlotTitle::lineBounds(const Line &line) const
{
    const QFontMetrics fm(plotFont(kLinePt));
    const int glyph = line.glyph == Glyph::None ? 0 : kGlyphWidth;
    QRect r = fm.boundingRect(QRect(0, 0, kWrapWidth - glyph, 100000), Qt::TextWordWrap | Qt::AlignLeft, line.text);
    r.setWidth(r.width() + glyph);
    return r;
}

int PlotTitle::titleHeight() const
{
    return mText.isEmpty() ? 0 : QFontMetrics(mFont).boundingRect(0, 0, 0, 0, Qt::TextDontClip, mText).height();
}

int PlotTitle::linesHeight() const
{
    int h = 0;
    for (const Line &l : m_lines)
        h += lineBounds(l).height() + 2;
    return h;
}

int PlotTitle::neededWidth() const
{
    int w = mText.isEmpty() ? 0 : QFontMetrics(mFont).horizontalAdvance(mText);
    for (const Line &l : m_lines)
        w = std::max(w, lineBounds(l).width());
    return w + mMargins.left() + mMargins.right() + 16;
}

QSize PlotTitle::minimumOuterSizeHint() const
{
    QSize s = QCPTextElement::minimumOuterSizeHint();
    s.rheight() += linesHeight();
    for (const Line &l : m_lines)
        s.setWidth(std::max(s.width(), lineBounds(l).width() + mMargins.left() + mMargins.right()));
    return s;
}

QSize PlotTitle::maximumOuterSizeHint() const
{
    QSize s = QCPTextElement::maximumOuterSizeHint();
    s.rheight() += linesHeight();
    return s;
}

void PlotTitle::draw(QCPPainter *painter)
{
    const QRect whole = mRect;
    mRect.setHeight(titleHeight());
    if (!mText.isEmpty())
        QCPTextElement::draw(painter);
    mRect = whole;
    painter->setFont(plotFont(kLinePt));
    int y = whole.top() + titleHeight() + 2;
    for (const Line &l : m_lines) {
        const QRect b = lineBounds(l);
        const int left = whole.left() + std::max(0, (whole.width() - b.width()) / 2);
        int textLeft = left;
        if (l.glyph != Glyph::None) {
            const int h = std::min(b.height(), QFontMetrics(plotFont(kLinePt)).height());
            const QRectF glyph(left + 2, y + h * 0.2, kGlyphWidth - 8, h * 0.6);
            if (l.glyph == Glyph::BracketBox) {
                drawBracketBox(painter, glyph);
            } else {
                QPainterPath box;
                box.addRect(glyph);
                paintHatch(*painter, box, 3.0);
            }
            textLeft += kGlyphWidth;
        }
        painter->setPen(l.color);
        painter->drawText(QRect(textLeft, y, b.width() - (textLeft - left), b.height()), Qt::TextWordWrap | Qt::AlignLeft,
                          l.text);
        y += b.height() + 2;
    }
}

CausalHatch::CausalHatch(QCustomPlot *plot, int n, QCPAxis *key, QCPAxis *value) : QCPItemRect(plot), m_n(n)
{
    setSelectable(false);
    for (QCPItemPosition *p : {topLeft, bottomRight})
        if (key && value)
            p->setAxes(key, value);
    if (key && value)
        setClipAxisRect(key->axisRect());
    // The map's outer cell edges: row and column coordinates run 0..n-1.
    topLeft->setCoords(-0.5, -0.5);
    bottomRight->setCoords(n - 0.5, n - 0.5);
}

void CausalHatch::draw(QCPPainter *painter)
{
    if (m_n < 2)
        return;
    const QPointF tl = topLeft->pixelPosition(), br = bottomRight->pixelPosition();
    const double n = m_n;
    auto at = [&](double col, double row) {
        return QPointF(tl.x() + col * (br.x() - tl.x()) / n, tl.y() + row * (br.y() - tl.y()) / n);
    };
    // The cells right of the diagonal as one staircase: along the top and the right edge,
    // then back up the steps.
    QPolygonF steps{at(1, 0), at(n, 0), at(n, n - 1)};
    for (int r = m_n - 2; r >= 0; --r) {
        steps << at(r + 1, r + 1) << at(r + 1, r);
    }
    QPainterPath area;
    area.addPolygon(steps);
    area.closeSubpath();
    const double cell = std::abs(br.x() - tl.x()) / n;
    paintHatch(*painter, area, std::clamp(cell * 0.5, 3.0, 6.0));
}

MatrixPlotParts addMatrixPlot(QCustomPlot *plot)
{
    MatrixPlotParts parts;
    styleAxis(plot->xAxis);
    styleAxis(plot->yAxis);
    // Row 0 at the top, like a matrix.
    plot->yAxis->setRangeReversed(true);
    parts.map = new QCPColorMap(plot->xAxis, plot->yAxis);
    parts.map->setInterpolate(false);
    parts.map->setTightBoundary(false);
    parts.map->setGradient(viridisGradient());
    parts.map->setDataRange(QCPRange(0.0, 1.0));
    parts.map->setSelectable(QCP::stNone);
    parts.scale = new QCPColorScale(plot);
    plot->plotLayout()->addElement(1, 1, parts.scale);
    parts.scale->setType(QCPAxis::atRight);
    parts.scale->setBarWidth(14);
    parts.scale->axis()->setLabelFont(plotFont(kPlotAxisLabelPt));
    parts.scale->axis()->setTickLabelFont(plotFont(kPlotTickPt));
    parts.map->setColorScale(parts.scale);
    parts.scale->setDataRange(QCPRange(0.0, 1.0));
    parts.scale->setGradient(viridisGradient());
    // The colour scale spans exactly the height of the map.
    parts.margins = new QCPMarginGroup(plot);
    plot->axisRect()->setMarginGroup(QCP::msTop | QCP::msBottom, parts.margins);
    parts.scale->setMarginGroup(QCP::msTop | QCP::msBottom, parts.margins);
    return parts;
}

void styleAxis(QCPAxis *axis)
{
    axis->grid()->setVisible(false);
    axis->setSubTicks(false);
    axis->setTickLength(0, 3);
    axis->setTickLabelFont(plotFont(kPlotTickPt));
    axis->setLabelFont(plotFont(kPlotAxisLabelPt));
    axis->setBasePen(QPen(QColor(80, 80, 80), 1));
    axis->setTickPen(QPen(QColor(80, 80, 80), 1));
}

void layOutPlotAt(QCustomPlot *plot, const QSize &size)
{
    plot->setViewport(QRect(QPoint(0, 0), size));
    plot->plotLayout()->update(QCPLayoutElement::upPreparation);
    plot->plotLayout()->setOuterRect(QRect(QPoint(0, 0), size));
    plot->plotLayout()->update(QCPLayoutElement::upMargins);
    plot->plotLayout()->update(QCPLayoutElement::upLayout);
}

void styleChart(QCustomPlot *plot, const QString &yLabel)
{
    plot->setBackground(Qt::white);
    styleAxis(plot->xAxis);
    styleAxis(plot->yAxis);
    plot->yAxis->grid()->setVisible(true);
    plot->yAxis->grid()->setPen(QPen(QColor(225, 225, 225), 1, Qt::DotLine));
    plot->yAxis->setLabel(yLabel);
}

QCPTextElement *addPlotTitle(QCustomPlot *plot, const QString &text, const QFont &font)
{
    auto *title = new QCPTextElement(plot, text, font);
    plot->plotLayout()->insertRow(0);
    plot->plotLayout()->addElement(0, 0, title);
    return title;
}

void putLegendBelow(QCustomPlot *plot, int columns)
{
    plot->legend->setVisible(true);
    plot->legend->setFont(plotFont(kPlotTickPt));
    plot->axisRect()->insetLayout()->take(plot->legend);
    plot->plotLayout()->addElement(1, 0, plot->legend);
    plot->legend->setFillOrder(QCPLegend::foColumnsFirst);
    plot->legend->setWrap(columns);
    plot->plotLayout()->setRowStretchFactor(1, 0.001);
}

void paintPlot(QCustomPlot *plot, QPainter *painter, const QRectF &target, const QSize &size)
{
    if (size.isEmpty() || target.isEmpty())
        return;
    QPicture picture;
    {
        QCPPainter qp(&picture);
        qp.setMode(QCPPainter::pmVectorized);
        qp.setMode(QCPPainter::pmNoCaching);
        qp.setMode(QCPPainter::pmNonCosmetic);
        plot->toPainter(&qp, size.width(), size.height());
        qp.end();
    }
    painter->save();
    painter->translate(target.topLeft());
    painter->scale(target.width() / size.width(), target.height() / size.height());
    // QPicture::play scales by the target device's DPI over the picture's; undo
    // that so the plot fills `target` on any device (PDF at 72, PNG at 300 dpi).
    if (QPaintDevice *device = painter->device(); device && device->logicalDpiX() > 0 && device->logicalDpiY() > 0)
        painter->scale(static_cast<double>(picture.logicalDpiX()) / device->logicalDpiX(),
                       static_cast<double>(picture.logicalDpiY()) / device->logicalDpiY());
    painter->drawPicture(QPointF(0, 0), picture);
    painter->restore();
    // toPainter leaves the layout at the export size; lay it out for the widget again.
    plot->replot(QCustomPlot::rpQueuedReplot);
}

} // namespace treelens
