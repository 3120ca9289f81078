#include "viz/linkprobabilityplot.h"

#include <algorithm>
#include <cmath>

#include "viz/plotstyle.h"

namespace treelens {

LinkProbabilityPlot::LinkProbabilityPlot(QWidget *parent) : QCustomPlot(parent)
{
    setMinimumSize(320, 220);
    styleAxis(xAxis);
    styleAxis(yAxis);
    xAxis->setLabel(tr("size of the smallest gold constituent holding both words (words)"));
    yAxis->setLabel(tr("mean link probability"));
    // The legend under the axes (lines may run anywhere inside), so the title
    // above spans the whole width and nothing is clipped.
    putLegendBelow(this);
    m_title = addPlotTitle(this, tr("Run the link-probs task to see this chart."), plotFont(kPlotAxisLabelPt));
    xAxis->setRange(-0.4, LinkBucketCount - 0.6);
    setReport(nullptr);
}

void LinkProbabilityPlot::setReport(const LinkProbabilityReport *links, const QString &model)
{
    clearGraphs();
    if (!links || links->layers <= 0 || links->perLayer.empty()) {
        m_title->setText(tr("Run the link-probs task to see this chart."));
        QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
        for (int k = 0; k < LinkBucketCount; ++k)
            ticker->addTick(k, QString::fromLatin1(linkBucketName(k)));
        xAxis->setTicker(ticker);
        yAxis->setRange(0, 1);
        legend->setVisible(false);
        replot();
        return;
    }
    legend->setVisible(true);
    // Every layer shares the gaps: the bucket counts go under the ticks.
    const LinkLayerStats &first = links->perLayer.front();
    QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
    for (int k = 0; k < LinkBucketCount; ++k) {
        const long n = first.bucketCount[static_cast<std::size_t>(k)];
        ticker->addTick(k, (n == 1 ? tr("%1\n%2 gap") : tr("%1\n%2 gaps")).arg(QString::fromLatin1(linkBucketName(k))).arg(n));
    }
    xAxis->setTicker(ticker);
    const int L = links->layers;
    QCPColorGradient gradient = viridisGradient(); // color() is not const
    double lo = 1.0, hi = 0.0;
    for (int l = 0; l < L && l < static_cast<int>(links->perLayer.size()); ++l) {
        const LinkLayerStats &st = links->perLayer[static_cast<std::size_t>(l)];
        QCPGraph *g = addGraph();
        // Sequential colours (viridis without its pale yellow end): early layers dark.
        const QColor c = QColor::fromRgb(gradient.color(L > 1 ? 0.85 * l / (L - 1) : 0.0, QCPRange(0, 1)));
        g->setPen(QPen(c, 1.8));
        g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, c, 6));
        g->setProperty("layer", l);
        // Empty buckets have no mean: the line joins the buckets that have gaps.
        for (int k = 0; k < LinkBucketCount; ++k)
            if (st.bucketCount[static_cast<std::size_t>(k)] > 0) {
                const double m = st.bucketMean[static_cast<std::size_t>(k)];
                g->addData(k, m);
                lo = std::min(lo, m);
                hi = std::max(hi, m);
            }
        const QString rho = std::isfinite(st.spearman) ? QString::number(st.spearman, 'f', 3) : QStringLiteral("n/a");
        g->setName(tr("layer %1: mean %2, ρ = %3").arg(l + 1).arg(st.mean, 0, 'f', 3).arg(rho));
    }
    m_title->setText((model.isEmpty() ? QString() : model + QStringLiteral("\n")) +
                     tr("Link probability between adjacent words by constituent size, %1 sentences\n"
                        "ρ: Spearman correlation of link probability and −size over every gap")
                         .arg(links->sentences.size()));
    xAxis->setRange(-0.4, LinkBucketCount - 0.6);
    if (hi < lo) {
        yAxis->setRange(0, 1);
    } else {
        const double pad = std::max(0.02, 0.08 * (hi - lo));
        yAxis->setRange(std::max(0.0, lo - pad), std::min(1.0, hi + pad));
    }
    replot();
}

} // namespace treelens
