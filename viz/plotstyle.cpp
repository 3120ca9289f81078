#include "viz/plotstyle.h"

#include <QPainter>
#include <QPicture>

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
