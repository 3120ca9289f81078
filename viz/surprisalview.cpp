#include "viz/surprisalview.h"

#include <algorithm>
#include <cmath>

#include <QFontMetricsF>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QToolTip>

#include "viz/surprisalscale.h"

namespace treelens {

namespace {

constexpr double kMargin = 12.0;
constexpr double kKeyBarWidth = 160.0;
constexpr double kKeyBarHeight = 9.0;

QFont sizedFont(const QFont &base, double pt, bool bold = false)
{
    QFont f = base;
    f.setPointSizeF(pt);
    f.setBold(bold);
    return f;
}

/// A piece as a label: line breaks and tabs would break the text.
QString visible(QString text)
{
    text.replace(QLatin1Char('\n'), QChar(0x21b5)).replace(QLatin1Char('\t'), QChar(0x21e5)).remove(QLatin1Char('\r'));
    return text;
}

} // namespace

SurprisalView::SurprisalView(QWidget *parent) : PaintedExportView(parent)
{
    setMouseTracking(true);
}

void SurprisalView::setData(const ViewData &data)
{
    m_data = data;
    updateGeometry();
    update();
}

void SurprisalView::setState(const ViewState &state)
{
    m_state = state; // nothing here depends on the layer or head
}

QSize SurprisalView::sizeHint() const
{
    const SurprisalScale scale(m_data.analysis.get());
    const QFontMetricsF fm(sizedFont(font(), 9.0));
    double slot = 46.0;
    for (int w = 0; w < scale.wordCount(); ++w)
        slot = std::max(slot, std::min(90.0, fm.horizontalAdvance(scale.word(w)) + 12.0));
    const int width = static_cast<int>(std::clamp(90.0 + slot * scale.wordCount(), 560.0, 2400.0));
    return QSize(width, 420);
}

QString SurprisalView::title() const
{
    const SurprisalScale scale(m_data.analysis.get());
    if (scale.empty())
        return QStringLiteral("Surprisal per word \u2014 this model computes none");
    QString t = QStringLiteral("Surprisal per word");
    QStringList facts;
    if (const auto lp = scale.logprob())
        facts << QStringLiteral("log p(sentence) = %1 nats").arg(*lp, 0, 'f', 2).replace(QLatin1Char('-'), QChar(0x2212));
    if (scale.predictedCount() > 0)
        facts << QStringLiteral("mean surprisal %1 nats over %2 of %3 words")
                     .arg(scale.mean(), 0, 'f', 2)
                     .arg(scale.predictedCount())
                     .arg(scale.wordCount());
    return facts.isEmpty() ? t : t + QStringLiteral(" \u2014 ") + facts.join(QStringLiteral(", "));
}

QStringList SurprisalView::titleLines() const
{
    QStringList lines;
    const Analysis *a = m_data.analysis.get();
    if (!a || a->surprisal.empty())
        return lines;
    lines << QStringLiteral("Each bar: \u2212log p(word | the words before it), split into the word's pieces from the first "
                            "(each the piece's own \u2212log p given everything before it; hover for them); hatched: %1")
                 .arg(SurprisalScale::noPredictionLabel());
    if (!a->ablated.empty())
        lines << QStringLiteral("Made with heads switched off: %1").arg(ablationBadge(a));
    if (const QString unknown = unknownWordsNote(a); !unknown.isEmpty())
        lines << unknown;
    return lines;
}

double SurprisalView::wordLabelHeight(double slot, bool *rotated) const
{
    const SurprisalScale scale(m_data.analysis.get());
    const QFontMetricsF fm(sizedFont(font(), 9.0));
    double widest = 0.0;
    for (int w = 0; w < scale.wordCount(); ++w)
        widest = std::max(widest, fm.horizontalAdvance(scale.word(w)));
    *rotated = widest + 4.0 > slot;
    return (*rotated ? std::min(widest, 140.0) : fm.height()) + 8.0;
}

SurprisalView::Layout SurprisalView::layout(const QSizeF &size) const
{
    Layout l;
    const QFontMetricsF title(sizedFont(font(), 11.0, true)), small(sizedFont(font(), 8.5)), label(sizedFont(font(), 9.0));
    for (const QString &line : titleLines())
        l.lines << wrapToWidth(line, sizedFont(font(), 8.5), std::max(200.0, size.width() - 2 * kMargin));
    // The title wraps too: its facts (log p, mean surprisal) make it wider than a short sentence's bars.
    const int titleRows = static_cast<int>(wrapToWidth(this->title(), sizedFont(font(), 11.0, true),
                                                       std::max(200.0, size.width() - 2 * kMargin)).size());
    l.linesTop = kMargin + std::max(1, titleRows) * title.height() + 4.0;
    const double top = l.linesTop + l.lines.size() * (small.height() + 1.0) + 10.0 + label.height();
    const double left = kMargin + label.height() + 8.0 + label.horizontalAdvance(QStringLiteral("000")) + 8.0;
    const double right = size.width() - kMargin;
    const int n = std::max(1, SurprisalScale(m_data.analysis.get()).wordCount());
    const double slot = std::max(1.0, (right - left) / n);
    const double labels = wordLabelHeight(slot, &l.rotated);
    const double key = kKeyBarHeight + 3.0 + small.height() + 4.0;
    const double bottom = size.height() - kMargin - key - 10.0 - labels;
    l.plot = QRectF(QPointF(left, top), QPointF(right, std::max(top + 40.0, bottom)));
    l.keyTop = l.plot.bottom() + labels + 10.0;
    l.bars = placeBars(l.plot);
    return l;
}

std::vector<SurprisalView::Bar> SurprisalView::placeBars(const QRectF &plot) const
{
    std::vector<Bar> out;
    const SurprisalScale scale(m_data.analysis.get());
    const int n = scale.wordCount();
    if (n == 0)
        return out;
    const double slot = plot.width() / n;
    const double width = std::min(slot * 0.72, 64.0);
    const double perNat = plot.height() / scale.top();
    for (int w = 0; w < n; ++w) {
        Bar bar;
        bar.word = w;
        bar.nats = scale.value(w);
        bar.predicted = scale.predicted(w);
        const double x = plot.left() + (w + 0.5) * slot - width / 2.0;
        if (!bar.predicted) {
            bar.rect = QRectF(x, plot.top(), width, plot.height()); // the whole column, hatched
            out.push_back(bar);
            continue;
        }
        bar.rect = QRectF(x, plot.bottom() - bar.nats * perNat, width, bar.nats * perNat);
        double y = plot.bottom();
        for (int p : scale.pieces(w)) {
            const double v = scale.pieceValue(p);
            if (!std::isfinite(v))
                continue;
            bar.segments.push_back({p, v, QRectF(x, y - v * perNat, width, v * perNat)});
            y -= v * perNat;
        }
        out.push_back(bar);
    }
    return out;
}

std::vector<SurprisalView::Bar> SurprisalView::bars(const QSizeF &size) const
{
    return layout(size).bars;
}

QString SurprisalView::textAt(const QPointF &pos, const QSizeF &size) const
{
    const Layout l = layout(size);
    const SurprisalScale scale(m_data.analysis.get());
    if (l.bars.empty() || pos.y() < l.plot.top() || pos.y() > l.keyTop)
        return QString();
    const double slot = l.plot.width() / static_cast<double>(l.bars.size());
    const int w = static_cast<int>(std::floor((pos.x() - l.plot.left()) / slot));
    if (w < 0 || w >= static_cast<int>(l.bars.size()))
        return QString();
    for (const Segment &s : l.bars[static_cast<std::size_t>(w)].segments)
        if (s.rect.contains(pos))
            return scale.pieceHover(w, s.piece);
    return scale.wordText(w);
}

void SurprisalView::mouseMoveEvent(QMouseEvent *event)
{
    const QString text = textAt(event->position(), size());
    if (text != m_lastHover) {
        m_lastHover = text;
        Q_EMIT hovered(text);
    }
    if (text.isEmpty())
        QToolTip::hideText();
    else
        QToolTip::showText(event->globalPosition().toPoint(), text, this);
    PaintedExportView::mouseMoveEvent(event);
}

void SurprisalView::paint(QPainter &p, const QSizeF &size) const
{
    p.fillRect(QRectF(QPointF(0, 0), size), Qt::white);
    const Layout l = layout(size);
    paintTitle(p, l, size);
    if (l.bars.empty())
        return;
    paintAxis(p, l);
    paintBars(p, l);
    paintWords(p, l);
    paintKey(p, l);
}

void SurprisalView::paintTitle(QPainter &p, const Layout &l, const QSizeF &size) const
{
    p.setPen(QColor(20, 20, 20));
    p.setFont(sizedFont(font(), 11.0, true));
    const QStringList titleRows = wrapToWidth(title(), p.font(), std::max(200.0, size.width() - 2 * kMargin));
    const QFontMetricsF titleMetrics(p.font());
    for (int i = 0; i < titleRows.size(); ++i)
        p.drawText(QPointF(kMargin, kMargin + i * titleMetrics.height() + titleMetrics.ascent()), titleRows[i]);
    p.setFont(sizedFont(font(), 8.5));
    const QFontMetricsF fm(p.font());
    const int keyLines = titleLines().isEmpty() ? 0 : static_cast<int>(
                             wrapToWidth(titleLines().front(), p.font(), std::max(200.0, size.width() - 2 * kMargin)).size());
    double y = l.linesTop;
    for (int i = 0; i < l.lines.size(); ++i) {
        p.setPen(i < keyLines ? QColor(60, 60, 60) : noteColor());
        p.drawText(QPointF(kMargin, y + fm.ascent()), l.lines[i]);
        y += fm.height() + 1.0;
    }
}

void SurprisalView::paintAxis(QPainter &p, const Layout &l) const
{
    const SurprisalScale scale(m_data.analysis.get());
    const QFont tick = sizedFont(font(), 8.5), label = sizedFont(font(), 9.0);
    const QFontMetricsF fm(tick);
    p.setFont(tick);
    for (double v = 0.0; v <= scale.top() + 1e-9; v += scale.tickStep()) {
        const double y = l.plot.bottom() - v / scale.top() * l.plot.height();
        p.setPen(QPen(QColor(225, 225, 225), 1.0, v > 0 ? Qt::DotLine : Qt::SolidLine));
        p.drawLine(QPointF(l.plot.left(), y), QPointF(l.plot.right(), y));
        p.setPen(QPen(QColor(80, 80, 80), 1.0));
        p.drawLine(QPointF(l.plot.left() - 3.0, y), QPointF(l.plot.left(), y));
        const QString text = QString::number(v, 'g', 4);
        p.drawText(QPointF(l.plot.left() - 5.0 - fm.horizontalAdvance(text), y + fm.ascent() / 2.0 - 1.0), text);
    }
    p.setPen(QPen(QColor(80, 80, 80), 1.0));
    p.drawLine(l.plot.bottomLeft(), l.plot.topLeft());
    p.drawLine(l.plot.bottomLeft(), l.plot.bottomRight());
    // The axis' label, running upwards beside the ticks.
    p.save();
    p.setFont(label);
    p.translate(kMargin + QFontMetricsF(label).ascent(), l.plot.center().y());
    p.rotate(-90.0);
    p.drawText(QRectF(-l.plot.height() / 2.0, -QFontMetricsF(label).ascent(), l.plot.height(), QFontMetricsF(label).height()),
               Qt::AlignCenter, axisLabel());
    p.restore();
}

void SurprisalView::paintBars(QPainter &p, const Layout &l) const
{
    const SurprisalScale scale(m_data.analysis.get());
    const QFont small = sizedFont(font(), 8.0);
    const QFontMetricsF fm(small);
    p.setFont(small);
    for (const Bar &bar : l.bars) {
        if (!bar.predicted) {
            QPainterPath column;
            column.addRect(bar.rect);
            paintHatch(p, column, 5.0);
            // Marked in words, running up the column.
            p.save();
            p.setPen(QColor(90, 90, 90));
            p.translate(bar.rect.center());
            p.rotate(-90.0);
            p.drawText(QRectF(-bar.rect.height() / 2.0, -bar.rect.width() / 2.0, bar.rect.height(), bar.rect.width()),
                       Qt::AlignCenter, SurprisalScale::noPredictionLabel());
            p.restore();
            continue;
        }
        if (bar.segments.empty()) // no piece values: the word's bar in one piece
            p.fillRect(bar.rect, scale.color(bar.nats));
        for (const Segment &s : bar.segments) {
            const QColor fill = scale.color(s.nats);
            p.fillRect(s.rect, fill);
            const QString text = visible(scale.pieceText(s.piece));
            if (bar.segments.size() > 1 && s.rect.height() >= fm.height() + 2.0 && fm.horizontalAdvance(text) + 4.0 <= s.rect.width()) {
                p.setPen(textOnColor(fill));
                p.drawText(s.rect, Qt::AlignCenter, text);
            }
        }
        // White lines between the pieces, so the stack reads as parts.
        p.setPen(QPen(Qt::white, 1.2));
        for (std::size_t k = 1; k < bar.segments.size(); ++k)
            p.drawLine(bar.segments[k].rect.bottomLeft(), bar.segments[k].rect.bottomRight());
        p.setPen(QPen(QColor(90, 90, 90), 0.6));
        p.setBrush(Qt::NoBrush);
        p.drawRect(bar.rect);
        const QString value = QString::number(bar.nats, 'f', 2);
        if (fm.horizontalAdvance(value) <= bar.rect.width() + 12.0) {
            p.setPen(QColor(40, 40, 40));
            p.drawText(QPointF(bar.rect.center().x() - fm.horizontalAdvance(value) / 2.0, bar.rect.top() - 3.0), value);
        }
    }
}

void SurprisalView::paintWords(QPainter &p, const Layout &l) const
{
    const SurprisalScale scale(m_data.analysis.get());
    const QFont label = sizedFont(font(), 9.0);
    const QFontMetricsF fm(label);
    p.setFont(label);
    p.setPen(QColor(30, 30, 30));
    for (const Bar &bar : l.bars) {
        const QString word = fm.elidedText(scale.word(bar.word), Qt::ElideRight, 140.0);
        const double x = bar.rect.center().x();
        if (!l.rotated) {
            p.drawText(QPointF(x - fm.horizontalAdvance(word) / 2.0, l.plot.bottom() + 4.0 + fm.ascent()), word);
            continue;
        }
        // Turned to run upwards, ending at the axis.
        p.save();
        p.translate(x + fm.ascent() / 2.0 - 1.0, l.plot.bottom() + 6.0 + fm.horizontalAdvance(word));
        p.rotate(-90.0);
        p.drawText(QPointF(0, 0), word);
        p.restore();
    }
}

void SurprisalView::paintKey(QPainter &p, const Layout &l) const
{
    const SurprisalScale scale(m_data.analysis.get());
    const QFont small = sizedFont(font(), 8.5);
    const QFontMetricsF fm(small);
    p.setFont(small);
    const QRectF bar(l.plot.left(), l.keyTop, kKeyBarWidth, kKeyBarHeight);
    p.fillRect(bar, sequentialGradient(bar.topLeft(), bar.topRight()));
    p.setPen(QPen(QColor(120, 120, 120), 0.5));
    p.drawRect(bar);
    for (double v = 0.0; v <= scale.top() + 1e-9; v += scale.tickStep()) {
        const double x = bar.left() + v / scale.top() * bar.width();
        p.drawLine(QPointF(x, bar.bottom()), QPointF(x, bar.bottom() + 3.0));
        const QString text = QString::number(v, 'g', 4);
        p.drawText(QPointF(x - fm.horizontalAdvance(text) / 2.0, bar.bottom() + 3.0 + fm.ascent()), text);
    }
    p.setPen(QColor(30, 30, 30));
    const QString unit = SurprisalScale::unit();
    p.drawText(QPointF(bar.right() + 8.0, bar.top() + fm.ascent() - 1.0), unit);
    bool unpredicted = false;
    for (const Bar &b : l.bars)
        unpredicted = unpredicted || !b.predicted;
    if (!unpredicted)
        return;
    const QRectF swatch(bar.right() + 8.0 + fm.horizontalAdvance(unit) + 16.0, bar.top(), 16.0, bar.height());
    QPainterPath area;
    area.addRect(swatch);
    paintHatch(p, area, 3.0);
    p.setPen(QColor(30, 30, 30));
    p.drawText(QPointF(swatch.right() + 4.0, bar.top() + fm.ascent() - 1.0), SurprisalScale::noPredictionLabel());
}

} // namespace treelens
