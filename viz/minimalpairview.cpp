#include "viz/minimalpairview.h"

#include <algorithm>
#include <cmath>

#include <QFontMetricsF>
#include <QPainter>
#include <QPainterPath>

namespace treelens {

namespace {

constexpr double kLabelW = 44.0, kRowH = 50.0, kLine = 17.0, kPad = 8.0;

double at(const std::vector<double> &v, int i) { return i >= 0 && i < static_cast<int>(v.size()) ? v[static_cast<std::size_t>(i)] : std::nan(""); }

QString wordAt(const std::vector<std::string> &w, int i)
{
    return i >= 0 && i < static_cast<int>(w.size()) ? QString::fromStdString(w[static_cast<std::size_t>(i)]) : QString();
}

} // namespace

MinimalPairView::MinimalPairView(QWidget *parent) : PaintedExportView(parent) {}

void MinimalPairView::setPair(std::optional<PairDrawing> pair)
{
    m_pair = std::move(pair);
    updateGeometry();
    update();
}

QStringList MinimalPairView::titleLines() const
{
    QStringList lines;
    if (!m_pair)
        return lines;
    const PairDrawing &d = *m_pair;
    const QString name = d.phenomenon.isEmpty() ? tr("Pair %1").arg(d.id) : tr("Pair %1 · %2").arg(d.id, d.phenomenon);
    if (!d.skipped.isEmpty()) {
        lines << tr("%1: not scored (%2)").arg(name, d.skipped);
        return lines;
    }
    const double margin = d.goodLogprob - d.badLogprob;
    lines << (margin > 0 ? tr("%1: the model prefers the good sentence by %2 nats").arg(name).arg(margin, 0, 'f', 2)
                         : tr("%1: the model prefers the bad sentence by %2 nats").arg(name).arg(-margin, 0, 'f', 2));
    if (const QString badge = ablationBadge(d.ablated); !badge.isEmpty())
        lines << badge;
    lines << tr("%1: good %2, bad %3; under each word its surprisal (nats)")
                 .arg(d.score)
                 .arg(d.goodLogprob, 0, 'f', 2)
                 .arg(d.badLogprob, 0, 'f', 2);
    if (d.tree)
        lines << tr("arcs: the good sentence's dependency tree (%1); red: the arc of the word that differs and its subject's")
                     .arg(d.treeSource.isEmpty() ? tr("as given") : d.treeSource);
    else
        lines << tr("no dependency tree of these words (a pair made from the open corpus has its treebank tree)");
    return lines;
}

QString MinimalPairView::divergenceLine() const
{
    if (!m_pair || !m_pair->skipped.isEmpty())
        return {};
    const PairDrawing &d = *m_pair;
    if (d.diverge < 0)
        return tr("The two sentences have the same words.");
    const double g = at(d.goodSurprisal, d.diverge), b = at(d.badSurprisal, d.diverge);
    QString text = tr("Word %1, where they differ: “%2” %3 nats in the good sentence, “%4” %5 nats in the bad")
                       .arg(d.diverge + 1)
                       .arg(wordAt(d.goodWords, d.diverge))
                       .arg(g, 0, 'f', 2)
                       .arg(wordAt(d.badWords, d.diverge))
                       .arg(b, 0, 'f', 2);
    if (std::isfinite(g) && std::isfinite(b))
        text += tr(" (bad − good: %1)").arg(b - g, 0, 'f', 2);
    return text;
}

double MinimalPairView::scaleTop() const
{
    double top = 1.0;
    if (m_pair)
        for (const auto *v : {&m_pair->goodSurprisal, &m_pair->badSurprisal})
            for (double s : *v)
                if (std::isfinite(s))
                    top = std::max(top, s);
    return std::ceil(top);
}

MinimalPairView::Layout MinimalPairView::layout() const
{
    Layout l;
    const QFontMetricsF fm(font());
    const PairDrawing &d = *m_pair;
    const int columns = static_cast<int>(std::max(d.goodWords.size(), d.badWords.size()));
    double x = kPad + kLabelW;
    for (int i = 0; i < columns; ++i) {
        const double w = std::max({46.0, fm.horizontalAdvance(wordAt(d.goodWords, i)) + 12.0,
                                   fm.horizontalAdvance(wordAt(d.badWords, i)) + 12.0});
        l.x.push_back(x);
        l.width.push_back(w);
        x += w + 4.0;
    }
    l.right = x + kPad;
    if (d.tree)
        for (std::size_t i = 0; i < d.tree->heads.size(); ++i)
            if (d.tree->heads[i] > 0)
                l.maxArc = std::max(l.maxArc, std::abs(d.tree->heads[i] - 1 - static_cast<int>(i)));
    l.arcTop = kPad + kLine * (titleLines().size() + 0.4);
    const double arcs = d.tree ? std::min(24.0 + 16.0 * l.maxArc, 190.0) + 14.0 : 6.0;
    l.goodY = l.arcTop + arcs;
    l.badY = l.goodY + kRowH + 8.0;
    l.bottom = l.badY + kRowH + 2.0 * kLine + 30.0;
    return l;
}

QSize MinimalPairView::sizeHint() const
{
    if (!m_pair)
        return QSize(420, 80);
    const Layout l = layout();
    const QFontMetricsF fm(font());
    double text = 0.0;
    for (const QString &line : titleLines())
        text = std::max(text, fm.horizontalAdvance(line));
    text = std::max(text, fm.horizontalAdvance(divergenceLine()));
    return QSize(static_cast<int>(std::max(l.right, text + 2 * kPad)), static_cast<int>(l.bottom));
}

void MinimalPairView::paintArcs(QPainter &p, const Layout &l) const
{
    const PairDrawing &d = *m_pair;
    const int n = static_cast<int>(std::min(d.tree->heads.size(), l.x.size()));
    auto centre = [&](int i) { return l.x[static_cast<std::size_t>(i)] + l.width[static_cast<std::size_t>(i)] / 2.0; };
    const double base = l.goodY - 4.0;
    QFont small = font();
    small.setPointSizeF(std::max(6.5, font().pointSizeF() * 0.85));
    p.setFont(small);
    // The agreement: the changed word's own arc and its subject's (nsubj, nsubj:pass); for a
    // copula or an auxiliary the subject of the word it hangs on (UD puts the subject there:
    // "The keys are on the table").
    const std::string dRel = d.diverge >= 0 && d.diverge < n ? d.tree->deprels[static_cast<std::size_t>(d.diverge)] : std::string();
    const int dHead = d.diverge >= 0 && d.diverge < n ? d.tree->heads[static_cast<std::size_t>(d.diverge)] - 1 : -1;
    const bool function = dRel == "cop" || dRel.rfind("aux", 0) == 0;
    for (int i = 0; i < n; ++i) {
        const int h = d.tree->heads[static_cast<std::size_t>(i)] - 1;
        const bool subjectOfHost = function && h == dHead && d.tree->deprels[static_cast<std::size_t>(i)].rfind("nsubj", 0) == 0;
        const bool subject = h == d.diverge && d.tree->deprels[static_cast<std::size_t>(i)].rfind("nsubj", 0) == 0;
        const bool hot = d.diverge >= 0 && (i == d.diverge || subject || subjectOfHost);
        const QColor ink = hot ? ablationColor() : QColor(70, 70, 70);
        p.setPen(QPen(ink, hot ? 2.0 : 1.1));
        const QString label = QString::fromStdString(d.tree->deprels[static_cast<std::size_t>(i)]);
        if (h < 0 || h >= n) { // the root
            p.drawLine(QPointF(centre(i), l.arcTop + 4.0), QPointF(centre(i), base));
            p.drawText(QPointF(centre(i) + 3.0, l.arcTop + 12.0), label);
            continue;
        }
        const double x1 = centre(h), x2 = centre(i);
        const double height = std::min(24.0 + 16.0 * (std::abs(h - i) - 1), base - l.arcTop - 14.0);
        QPainterPath path(QPointF(x1, base));
        path.cubicTo(QPointF(x1, base - height * 1.33), QPointF(x2, base - height * 1.33), QPointF(x2, base));
        p.setBrush(Qt::NoBrush);
        p.drawPath(path);
        // the arrowhead at the dependent
        QPainterPath head;
        head.moveTo(x2, base);
        head.lineTo(x2 - 3.5, base - 7.0);
        head.lineTo(x2 + 3.5, base - 7.0);
        head.closeSubpath();
        p.fillPath(head, ink);
        const QFontMetricsF fm(small);
        const double w = fm.horizontalAdvance(label);
        const QRectF box((x1 + x2) / 2.0 - w / 2.0 - 2.0, base - height - fm.height() / 2.0 - 1.0, w + 4.0, fm.height());
        p.fillRect(box, Qt::white);
        p.drawText(box, Qt::AlignCenter, label);
    }
    p.setFont(font());
}

void MinimalPairView::paintRow(QPainter &p, const Layout &l, const std::vector<std::string> &words,
                               const std::vector<double> &surprisal, double y, const QString &label) const
{
    const double top = scaleTop();
    p.setPen(QColor(90, 90, 90));
    p.drawText(QRectF(kPad, y, kLabelW - 4.0, 20.0), Qt::AlignLeft | Qt::AlignVCenter, label);
    for (std::size_t i = 0; i < words.size() && i < l.x.size(); ++i) {
        const QRectF word(l.x[i], y, l.width[i], 20.0);
        p.setPen(QColor(20, 20, 20));
        p.drawText(word, Qt::AlignCenter, QString::fromStdString(words[i]));
        const QRectF band(l.x[i] + 2.0, y + 22.0, l.width[i] - 4.0, 22.0);
        const double s = at(surprisal, static_cast<int>(i));
        if (std::isfinite(s)) {
            const QColor fill = sequentialColor(s / top);
            p.fillRect(band, fill);
            p.setPen(textOnColor(fill));
            p.drawText(band, Qt::AlignCenter, QString::number(s, 'f', 1));
        } else {
            QPainterPath area;
            area.addRect(band);
            paintHatch(p, area);
        }
    }
}

void MinimalPairView::paint(QPainter &p, const QSizeF &) const
{
    p.setFont(font());
    if (!m_pair) {
        p.setPen(QColor(90, 90, 90));
        p.drawText(QRectF(kPad, kPad, 420, 60), Qt::AlignLeft | Qt::TextWordWrap,
                   tr("Choose a pair in the list: it is drawn here on its tree, with each word's surprisal in both sentences."));
        return;
    }
    const PairDrawing &d = *m_pair;
    const QStringList lines = titleLines();
    for (int i = 0; i < lines.size(); ++i) {
        QFont f = font();
        f.setBold(i == 0);
        p.setFont(f);
        const bool badge = !d.ablated.empty() && lines[i] == ablationBadge(d.ablated);
        const bool wrong = i == 0 && d.skipped.isEmpty() && d.goodLogprob <= d.badLogprob;
        p.setPen(badge || wrong ? ablationColor() : i == 0 ? QColor(20, 20, 20) : QColor(85, 85, 85));
        p.drawText(QPointF(kPad, kPad + kLine * (i + 1) - 4.0), lines[i]);
    }
    p.setFont(font());
    if (!d.skipped.isEmpty())
        return;
    const Layout l = layout();
    if (d.diverge >= 0 && d.diverge < static_cast<int>(l.x.size())) {
        const std::size_t k = static_cast<std::size_t>(d.diverge);
        const QRectF frame(l.x[k] - 2.0, l.goodY - 3.0, l.width[k] + 4.0, l.badY + 47.0 - l.goodY);
        p.fillRect(frame, QColor(255, 240, 200));
        p.setPen(QPen(QColor(200, 130, 0), 1.6));
        p.drawRect(frame);
    }
    if (d.tree)
        paintArcs(p, l);
    paintRow(p, l, d.goodWords, d.goodSurprisal, l.goodY, tr("good"));
    paintRow(p, l, d.badWords, d.badSurprisal, l.badY, tr("bad"));
    p.setPen(QColor(20, 20, 20));
    const double y = l.badY + kRowH + 4.0;
    p.drawText(QPointF(kPad, y + 12.0), divergenceLine());
    // the scale
    const double top = scaleTop();
    const QRectF bar(kPad + kLabelW, y + kLine + 6.0, 160.0, 10.0);
    p.fillRect(bar, sequentialGradient(bar.topLeft(), bar.topRight()));
    p.setPen(QColor(60, 60, 60));
    p.drawText(QPointF(kPad, bar.bottom()), QStringLiteral("0"));
    p.drawText(QPointF(bar.right() + 6.0, bar.bottom()), tr("%1 nats of surprisal; hatched: nothing predicts the word").arg(top, 0, 'f', 0));
}

} // namespace treelens
