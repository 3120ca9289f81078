#include "viz/probecurveplot.h"

#include <cmath>

#include "viz/plotstyle.h"

namespace treelens {

namespace {

constexpr int kProbesShown = 3;

QString curveKey(const ProbeCurvePoint &p)
{
    QString k = QString::fromStdString(p.task);
    if (!p.variant.empty())
        k += QStringLiteral(" [%1]").arg(QString::fromStdString(p.variant));
    // The probed layer as a person names it: embeddings, or L1..L from 1.
    k += p.layer == 0 ? QStringLiteral(" embeddings") : QStringLiteral(" L%1").arg(p.layer);
    if (!p.pooling.empty())
        k += QStringLiteral(" %1").arg(QString::fromStdString(p.pooling));
    return k;
}

QColor curveColor(int i)
{
    static const QColor colors[] = {QColor(0x1f, 0x77, 0xb4), QColor(0xd6, 0x27, 0x28), QColor(0x2c, 0xa0, 0x2c),
                                    QColor(0x94, 0x67, 0xbd)};
    return colors[i % 4];
}

} // namespace

ProbeCurvePlot::ProbeCurvePlot(QWidget *parent) : QCustomPlot(parent)
{
    setMinimumSize(320, 220);
    styleAxis(xAxis);
    styleAxis(yAxis);
    styleAxis(yAxis2);
    xAxis->setLabel(tr("epoch"));
    yAxis2->setLabel(tr("dev metric (dashed)"));
    yAxis2->setVisible(true);
    // Losses fall by orders of magnitude in the first epochs: a log scale keeps
    // the later epochs readable.
    yAxis->setScaleType(QCPAxis::stLogarithmic);
    yAxis->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
    yAxis->setLabel(tr("train loss (solid, log scale)"));
    putLegendBelow(this); // off the curves
}

void ProbeCurvePlot::clearCurves()
{
    clearGraphs();
    m_colorIndex = 0;
    m_keys.clear();
    m_points = 0;
    replot();
}

void ProbeCurvePlot::addPoint(const ProbeCurvePoint &p, const QString &model)
{
    const QString key = model.isEmpty() ? curveKey(p) : model + QStringLiteral(" · ") + curveKey(p);
    QCPGraph *train = nullptr, *dev = nullptr;
    for (int i = 0; i < graphCount(); ++i) {
        QCPGraph *g = graph(i);
        if (g->property("probeKey").toString() == key)
            (g->property("dev").toBool() ? dev : train) = g;
    }
    if (!train) {
        // A new probe: drop the oldest one shown.
        m_keys.push_back(key);
        if (static_cast<int>(m_keys.size()) > kProbesShown) {
            const QString old = m_keys.front();
            m_keys.erase(m_keys.begin());
            for (int i = graphCount() - 1; i >= 0; --i)
                if (graph(i)->property("probeKey").toString() == old)
                    removeGraph(i);
        }
        const QColor color = curveColor(m_colorIndex++);
        train = addGraph(xAxis, yAxis);
        train->setProperty("probeKey", key);
        train->setProperty("dev", false);
        train->setName(key + tr(" train loss"));
        train->setPen(QPen(color, 1.6));
        train->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, 4));
        dev = addGraph(xAxis, yAxis2);
        dev->setProperty("probeKey", key);
        dev->setProperty("dev", true);
        dev->setName(key + tr(" dev metric"));
        dev->setPen(QPen(color, 1.6, Qt::DashLine));
        dev->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, 4));
    }
    train->addData(p.epoch, p.trainLoss);
    if (std::isfinite(p.devMetric))
        dev->addData(p.epoch, p.devMetric);
    ++m_points;
    rescaleAxes();
    replot(QCustomPlot::rpQueuedReplot);
}

} // namespace treelens
