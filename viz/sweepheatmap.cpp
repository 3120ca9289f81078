#include "viz/sweepheatmap.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QToolTip>

namespace treelens {

namespace {

constexpr double kCellW = 54.0, kCellH = 34.0, kLeft = 56.0, kTitleLine = 17.0, kHeadRow = 20.0, kLegendW = 130.0;

double pointsOf(const SweepCell &c) { return c.accuracyChange.valid ? 100.0 * c.accuracyChange.change : 0.0; }

} // namespace

SweepHeatmap::SweepHeatmap(QWidget *parent) : PaintedExportView(parent) { setMouseTracking(true); }

void SweepHeatmap::setFigure(SweepFigure figure)
{
    m_figure = std::move(figure);
    m_selLayer = m_selHead = -1;
    updateGeometry();
    update();
}

void SweepHeatmap::setSelected(int layer, int head)
{
    m_selLayer = layer;
    m_selHead = head;
    update();
}

const SweepCell *SweepHeatmap::find(int layer, int head) const
{
    for (const SweepCell &c : m_figure.cells)
        if (c.layer == layer && c.head == head)
            return &c;
    return nullptr;
}

QStringList SweepHeatmap::titleLines() const
{
    QStringList lines;
    lines << tr("%1: change of minimal-pair accuracy when a head is switched off").arg(m_figure.model);
    const QString base = m_figure.ablated.empty() ? tr("with every head on")
                                                  : tr("with %1 as the baseline").arg(ablationBadge(m_figure.ablated));
    lines << tr("%1 — %2 pairs, %3 % correct %4; points; red: worse without the head, blue: better")
                 .arg(m_figure.pairs)
                 .arg(m_figure.baselinePairs)
                 .arg(100.0 * m_figure.baseline, 0, 'f', 1)
                 .arg(base);
    lines << tr("each cell: the change, and under it how many pairs it flips to wrong / to right");
    return lines;
}

QRectF SweepHeatmap::cellRect(int layer, int head) const
{
    const double top = kTitleLine * titleLines().size() + 12.0 + kHeadRow;
    const int col = head < 0 ? m_figure.heads : head;
    return QRectF(kLeft + col * kCellW, top + layer * kCellH, kCellW, kCellH);
}

QSize SweepHeatmap::sizeHint() const
{
    if (m_figure.layers <= 0)
        return QSize(420, 120);
    const QRectF last = cellRect(m_figure.layers - 1, -1);
    const QFontMetricsF fm(font());
    double titleWidth = 0.0;
    for (const QString &line : titleLines())
        titleWidth = std::max(titleWidth, fm.horizontalAdvance(line));
    return QSize(static_cast<int>(std::max(last.right() + kLegendW, titleWidth + 24.0)), static_cast<int>(last.bottom() + 24.0));
}

double SweepHeatmap::largestChange() const
{
    double top = 0.1;
    for (const SweepCell &c : m_figure.cells)
        top = std::max(top, std::abs(pointsOf(c)));
    return top;
}

double SweepHeatmap::pointsAt(int layer, int head) const
{
    const SweepCell *c = find(layer, head);
    return c ? pointsOf(*c) : std::numeric_limits<double>::quiet_NaN();
}

bool SweepHeatmap::cellAt(const QPointF &pos, int *layer, int *head) const
{
    for (int l = 0; l < m_figure.layers; ++l)
        for (int h = -1; h < m_figure.heads; ++h)
            if (cellRect(l, h).contains(pos) && find(l, h)) {
                *layer = l;
                *head = h;
                return true;
            }
    return false;
}

QPointF SweepHeatmap::cellCentre(int layer, int head) const { return cellRect(layer, head).center(); }

void SweepHeatmap::paint(QPainter &p, const QSizeF &) const
{
    QFont f = font();
    p.setFont(f);
    if (m_figure.layers <= 0) {
        p.setPen(QColor(90, 90, 90));
        p.drawText(QRectF(8, 8, 400, 100), Qt::AlignLeft | Qt::TextWordWrap,
                   tr("No sweep yet: score pairs, then Sweep heads (every head switched off in turn)."));
        return;
    }
    const QStringList lines = titleLines();
    for (int i = 0; i < lines.size(); ++i) {
        QFont tf = f;
        tf.setBold(i == 0);
        p.setFont(tf);
        p.setPen(i == 0 ? QColor(20, 20, 20) : QColor(85, 85, 85));
        p.drawText(QPointF(8, kTitleLine * (i + 1)), lines[i]);
    }
    p.setFont(f);
    p.setPen(QColor(30, 30, 30));
    for (int h = 0; h <= m_figure.heads; ++h) {
        const QRectF r = cellRect(0, h < m_figure.heads ? h : -1);
        p.drawText(QRectF(r.left(), r.top() - kHeadRow, r.width(), kHeadRow), Qt::AlignCenter,
                   h < m_figure.heads ? QStringLiteral("H%1").arg(h + 1) : tr("all"));
    }
    for (int l = 0; l < m_figure.layers; ++l) {
        const QRectF r = cellRect(l, 0);
        p.drawText(QRectF(0, r.top(), kLeft - 6, r.height()), Qt::AlignRight | Qt::AlignVCenter, QStringLiteral("L%1").arg(l + 1));
    }
    const double top = largestChange();
    QFont small = f;
    small.setPointSizeF(std::max(6.0, f.pointSizeF() * 0.8));
    // A cell without a change (none measured: no pair read; or a head off in the baseline) is
    // hatched, never the white of "no change".
    for (int l = 0; l < m_figure.layers; ++l)
        for (int h = -1; h < m_figure.heads; ++h) {
            const SweepCell *c = find(l, h);
            if (c && c->accuracyChange.valid)
                continue;
            const QRectF r = cellRect(l, h);
            QPainterPath area;
            area.addRect(r);
            paintHatch(p, area);
            p.setPen(QColor(60, 60, 60));
            p.drawText(r, Qt::AlignCenter, c ? tr("n/a") : tr("off"));
        }
    for (const SweepCell &c : m_figure.cells) {
        if (!c.accuracyChange.valid)
            continue;
        const QRectF r = cellRect(c.layer, c.head);
        const double v = pointsOf(c);
        const double shown = std::abs(v) < 0.05 ? 0.0 : v; // below the 0.1 points written: no change
        // divergingColor: red above 0; here red means worse (a negative change).
        const QColor fill = divergingColor(-shown / top);
        p.fillRect(r, fill);
        p.setPen(QPen(QColor(200, 200, 200), 0.8));
        p.drawRect(r);
        p.setPen(textOnColor(fill));
        p.setFont(f);
        p.drawText(r.adjusted(0, 2, 0, -r.height() / 2 + 4), Qt::AlignCenter, QString::asprintf("%+.1f", shown));
        p.setFont(small);
        p.drawText(r.adjusted(0, r.height() / 2 - 2, 0, -2), Qt::AlignCenter,
                   QStringLiteral("%1/%2").arg(c.flippedToWrong.size()).arg(c.flippedToRight.size()));
    }
    p.setFont(f);
    if (m_selLayer >= 0 && find(m_selLayer, m_selHead)) {
        p.setPen(QPen(QColor(20, 20, 20), 2.5));
        p.setBrush(Qt::NoBrush);
        p.drawRect(cellRect(m_selLayer, m_selHead).adjusted(-1.5, -1.5, 1.5, 1.5));
    }
    // The legend: the scale's ends and its middle.
    const QRectF last = cellRect(0, -1);
    const double lx = last.right() + 20.0;
    const double values[] = {-top, 0.0, top};
    for (int i = 0; i < 3; ++i) {
        const QRectF box(lx, last.top() + i * 22.0, 14, 14);
        p.fillRect(box, divergingColor(-values[i] / top));
        p.setPen(QColor(180, 180, 180));
        p.drawRect(box);
        p.setPen(QColor(30, 30, 30));
        p.drawText(QPointF(lx + 20, box.bottom() - 2), i == 1 ? QStringLiteral("0") : QString::asprintf("%+.1f", values[i]));
    }
}

void SweepHeatmap::mousePressEvent(QMouseEvent *event)
{
    int l = -1, h = -1;
    if (event->button() == Qt::LeftButton && cellAt(event->position(), &l, &h)) {
        setSelected(l, h);
        Q_EMIT cellClicked(l, h);
    }
}

void SweepHeatmap::mouseMoveEvent(QMouseEvent *event)
{
    int l = -1, h = -1;
    if (!cellAt(event->position(), &l, &h)) {
        QToolTip::hideText();
        return;
    }
    const SweepCell *c = find(l, h);
    const QString name = h < 0 ? tr("L%1, every head").arg(l + 1) : tr("L%1 H%2").arg(l + 1).arg(h + 1);
    QString text = tr("%1 switched off: accuracy %2 % (%3 points").arg(name).arg(100.0 * c->accuracy, 0, 'f', 1).arg(pointsOf(*c), 0, 'f', 2);
    if (c->accuracyChange.valid)
        text += tr(", 95 % interval %1 to %2").arg(100.0 * c->accuracyChange.low, 0, 'f', 2).arg(100.0 * c->accuracyChange.high, 0, 'f', 2);
    text += ")";
    if (c->marginChange.valid)
        text += tr("; mean margin %1 nats").arg(c->marginChange.change, 0, 'f', 3);
    text += tr("; flips %1 pairs to wrong, %2 to right over %3 pairs — click to list them")
                .arg(c->flippedToWrong.size())
                .arg(c->flippedToRight.size())
                .arg(c->pairs);
    QToolTip::showText(event->globalPosition().toPoint(), text, this);
}

} // namespace treelens
