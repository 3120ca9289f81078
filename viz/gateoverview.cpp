#include "viz/gateoverview.h"

#include <algorithm>
#include <cmath>

#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <QVBoxLayout>

#include "viz/plotstyle.h"

namespace treelens {

GateMeans gateMeans(const Matrix &gate, const TokenRelations &relations)
{
    const int n = std::min({gate.rows, gate.cols, relations.n});
    double all = 0.0, arcs = 0.0;
    int nAll = 0, nArcs = 0;
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
            if (i == j)
                continue;
            const double g = static_cast<double>(gate.at(i, j));
            all += g;
            ++nAll;
            if (relations.kind(i, j) == TokenRelations::Kind::Arc) {
                arcs += g;
                ++nArcs;
            }
        }
    return {nAll > 0 ? all / nAll : std::nan(""), nArcs > 0 ? arcs / nArcs : std::nan("")};
}

namespace {

/// The selected cell's outline (drawn over the map, like the attention overview's).
class CellOutline : public QCPItemRect {
public:
    explicit CellOutline(QCustomPlot *plot) : QCPItemRect(plot) { setSelectable(false); }

protected:
    void draw(QCPPainter *painter) override
    {
        const QRectF r = QRectF(topLeft->pixelPosition(), bottomRight->pixelPosition()).normalized();
        painter->setBrush(Qt::NoBrush);
        painter->setRenderHint(QPainter::Antialiasing, true);
        painter->setPen(QPen(QColor(230, 30, 30), 3.0));
        painter->drawRect(r.adjusted(1.5, 1.5, -1.5, -1.5));
    }
};

} // namespace

GateOverview::GateOverview(QWidget *parent) : QWidget(parent)
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_plot = new QCustomPlot(this);
    m_plot->setMinimumSize(280, 220);
    m_plot->setBackground(Qt::white);
    layout->addWidget(m_plot);
    m_title = new PlotTitle(m_plot, plotFont(kPlotTitlePt, true));
    m_plot->plotLayout()->insertRow(0);
    m_plot->plotLayout()->addElement(0, 0, m_title);
    // Layer 1 at the top; the colour scale as tall as the map.
    const MatrixPlotParts parts = addMatrixPlot(m_plot);
    m_map = parts.map;
    parts.scale->axis()->setLabel(QStringLiteral("mean gate g (0: plain score, 1: relation score)"));
    m_plot->xAxis->setLabel(QStringLiteral("head"));
    m_plot->yAxis->setLabel(QStringLiteral("layer"));

    connect(m_plot, &QCustomPlot::mouseMove, this, [this](QMouseEvent *e) {
        int l = -1, h = -1;
        if (!hitCell(e->position(), &l, &h)) {
            QToolTip::hideText();
            return;
        }
        const GateMeans &g = m_means[static_cast<std::size_t>(l * m_heads + h)];
        const QString text = QStringLiteral("Layer %1, head %2: mean gate %3 over all token pairs, %4 over the tree's arcs "
                                            "(click to select)")
                                 .arg(l + 1)
                                 .arg(h + 1)
                                 .arg(g.all, 0, 'f', 3)
                                 .arg(g.arcs, 0, 'f', 3);
        Q_EMIT hovered(text);
        QToolTip::showText(e->globalPosition().toPoint(), text, m_plot);
    });
    connect(m_plot, &QCustomPlot::mousePress, this, [this](QMouseEvent *e) {
        int l = -1, h = -1;
        if (e->button() == Qt::LeftButton && hitCell(e->position(), &l, &h))
            Q_EMIT cellActivated(l, h);
    });
    rebuild();
}

void GateOverview::setData(const ViewData &data)
{
    m_data = data;
    rebuild();
}

void GateOverview::setState(const ViewState &state)
{
    m_state = state;
    updateSelection();
    m_plot->replot();
}

double GateOverview::cellValue(int layer, int head) const
{
    if (layer < 0 || head < 0 || layer >= m_layers || head >= m_heads)
        return std::nan("");
    return m_means[static_cast<std::size_t>(layer * m_heads + head)].all;
}

QString GateOverview::cellLabel(int layer, int head) const
{
    if (layer < 0 || head < 0 || layer >= m_layers || head >= m_heads)
        return QString();
    const GateMeans &g = m_means[static_cast<std::size_t>(layer * m_heads + head)];
    QString text = QString::number(g.all, 'f', 2);
    if (!std::isnan(g.arcs))
        text += QStringLiteral("\narcs %1").arg(g.arcs, 0, 'f', 2);
    return text;
}

std::pair<int, int> GateOverview::selectedCell() const
{
    if (!m_selection)
        return {-1, -1};
    return {m_state.layer, m_state.head};
}

QStringList GateOverview::titleLines() const { return m_title->lineTexts(); }

void GateOverview::rebuild()
{
    m_plot->clearItems();
    m_selection = nullptr;
    m_means.clear();
    m_layers = m_heads = 0;
    const Analysis *a = m_data.analysis.get();
    if (a && a->relations) {
        m_layers = static_cast<int>(a->relationGate.size());
        for (const auto &heads : a->relationGate)
            m_heads = std::max(m_heads, static_cast<int>(heads.size()));
        for (int l = 0; l < m_layers; ++l)
            for (int h = 0; h < m_heads; ++h) {
                const auto &heads = a->relationGate[static_cast<std::size_t>(l)];
                m_means.push_back(h < static_cast<int>(heads.size()) ? gateMeans(heads[static_cast<std::size_t>(h)], *a->relations)
                                                                     : GateMeans{std::nan(""), std::nan("")});
            }
    }
    std::vector<PlotTitle::Line> lines;
    if (m_layers > 0 && m_heads > 0) {
        m_title->setText(QStringLiteral("Mean relation gate per layer and head"));
        lines.push_back({QStringLiteral("how much each head follows the tree: the colour and first number are the mean gate g "
                                        "over all token pairs (i \u2260 j) of this sentence, \"arcs\" the mean over the tree's "
                                        "arcs only"),
                         QColor(60, 60, 60)});
    } else {
        m_title->setText(QStringLiteral("Relation gate per layer and head \u2014 not available"));
        if (a)
            lines.push_back({QStringLiteral("This model has no relation gate: it mixes no relation score into its attention"),
                             noteColor()});
    }
    if (const QString note = unknownWordsNote(a); !note.isEmpty())
        lines.push_back({note, noteColor()});
    if (const QString badge = ablationBadge(a); !badge.isEmpty())
        lines.insert(lines.begin(), {badge, ablationColor()});
    m_title->setLines(std::move(lines));

    QCPColorMapData *d = m_map->data();
    const int rows = std::max(m_layers, 1), cols = std::max(m_heads, 1);
    d->setSize(cols, rows);
    d->setRange(QCPRange(0, cols - 1), QCPRange(0, rows - 1));
    d->fill(std::nan(""));
    QSharedPointer<QCPAxisTickerText> xt(new QCPAxisTickerText), yt(new QCPAxisTickerText);
    const QFont cellFont = plotFont(kPlotTickPt);
    for (int l = 0; l < m_layers; ++l) {
        yt->addTick(l, QString::number(l + 1));
        for (int h = 0; h < m_heads; ++h) {
            const double v = cellValue(l, h);
            d->setCell(h, l, v);
            auto *t = new QCPItemText(m_plot);
            t->position->setCoords(h, l);
            t->setText(cellLabel(l, h));
            t->setFont(cellFont);
            t->setTextAlignment(Qt::AlignCenter);
            t->setColor(!std::isnan(v) && v > 0.7 ? QColor(20, 20, 20) : QColor(250, 250, 250));
            t->setSelectable(false);
        }
    }
    for (int h = 0; h < m_heads; ++h)
        xt->addTick(h, QString::number(h + 1));
    xt->setSubTickCount(0);
    yt->setSubTickCount(0);
    m_plot->xAxis->setTicker(xt);
    m_plot->yAxis->setTicker(yt);
    m_map->setVisible(m_layers > 0 && m_heads > 0);
    m_plot->xAxis->setRange(-0.5, cols - 0.5);
    m_plot->yAxis->setRange(-0.5, rows - 0.5);
    updateSelection();
    m_plot->replot();
}

void GateOverview::updateSelection()
{
    if (m_selection) {
        m_plot->removeItem(m_selection);
        m_selection = nullptr;
    }
    if (m_state.layer < 0 || m_state.head < 0 || m_state.layer >= m_layers || m_state.head >= m_heads)
        return;
    m_selection = new CellOutline(m_plot);
    m_selection->topLeft->setCoords(m_state.head - 0.5, m_state.layer - 0.5);
    m_selection->bottomRight->setCoords(m_state.head + 0.5, m_state.layer + 0.5);
}

bool GateOverview::hitCell(const QPointF &pos, int *layer, int *head) const
{
    if (m_layers == 0 || !m_plot->axisRect()->rect().contains(pos.toPoint()))
        return false;
    const int h = static_cast<int>(std::lround(m_plot->xAxis->pixelToCoord(pos.x())));
    const int l = static_cast<int>(std::lround(m_plot->yAxis->pixelToCoord(pos.y())));
    if (l < 0 || h < 0 || l >= m_layers || h >= m_heads)
        return false;
    *layer = l;
    *head = h;
    return true;
}

QSizeF GateOverview::exportSize() const
{
    const double cell = 78.0;
    return QSizeF(std::max(std::max(m_heads, 1) * cell + 200.0, static_cast<double>(m_title->neededWidth())),
                  std::max(m_layers, 1) * cell + 110.0 + m_title->linesHeight());
}

void GateOverview::renderTo(QPainter *painter, const QRectF &target)
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
