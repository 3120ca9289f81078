// One aggregated phrase: semantic and syntactic attention over its sequence (see phraseview.h).
#include "viz/phraseview.h"

#include <algorithm>
#include <cmath>

#include <QPainter>

namespace treelens {

namespace {

constexpr double kMargin = 12.0;
constexpr double kCellW = 64.0, kCellH = 20.0;
constexpr double kRowLabel = 64.0;
constexpr double kColumnLabels = 64.0; // rotated child labels
constexpr double kTitle = 26.0, kCaption = 20.0, kFooter = 22.0, kGap = 28.0;

QString elide(const std::string &s, int n)
{
    const QString q = QString::fromStdString(s);
    return q.size() <= n ? q : q.left(n - 1) + QChar(0x2026);
}

double panelWidth(const PhraseView::Panel &p)
{
    const double cols = std::max(1, p.node.length);
    const int streams = p.node.syn.empty() ? 1 : 2;
    return streams * (kRowLabel + cols * kCellW) + (streams - 1) * kGap;
}

double panelHeight(const PhraseView::Panel &p)
{
    const double heads = static_cast<double>(std::max(p.node.sem.size(), std::size_t(1)));
    return kCaption + kColumnLabels + heads * kCellH + kFooter;
}

} // namespace

PhraseView::PhraseView(QWidget *parent) : PaintedExportView(parent)
{
    m_hint = tr("A pair analysed by a model that aggregates phrases level by level: click a phrase of either tree.");
}

void PhraseView::setPanels(const QString &title, std::vector<Panel> panels)
{
    m_title = title;
    m_panels = std::move(panels);
    updateGeometry();
    setMinimumSize(sizeHint());
    update();
}

void PhraseView::clear(const QString &hint)
{
    m_hint = hint;
    m_title.clear();
    m_panels.clear();
    updateGeometry();
    setMinimumSize(sizeHint());
    update();
}

QSize PhraseView::sizeHint() const
{
    double w = 420, h = 80;
    if (!m_panels.empty()) {
        h = kMargin + kTitle;
        for (const auto &p : m_panels) {
            w = std::max(w, 2 * kMargin + panelWidth(p) + kColumnLabels); // the last rotated label reaches past its column
            h += panelHeight(p) + 8.0;
        }
        h += kMargin;
    }
    return QSize(static_cast<int>(std::ceil(w)), static_cast<int>(std::ceil(h)));
}

void PhraseView::paint(QPainter &p, const QSizeF &size) const
{
    if (m_panels.empty()) {
        p.setPen(Qt::gray);
        p.drawText(QRectF(QPointF(0, 0), size), Qt::AlignCenter | Qt::TextWordWrap, m_hint);
        return;
    }
    QFont bold = font();
    bold.setBold(true);
    QFont small = font();
    small.setPointSizeF(font().pointSizeF() * 0.85);
    double y = kMargin;
    p.setFont(bold);
    p.setPen(Qt::black);
    p.drawText(QRectF(kMargin, y, size.width() - 2 * kMargin, kTitle), Qt::AlignLeft | Qt::AlignVCenter, m_title);
    y += kTitle;
    for (const Panel &panel : m_panels) {
        const AggregationNode &n = panel.node;
        p.setFont(font());
        p.setPen(Qt::black);
        p.drawText(QRectF(kMargin, y, size.width() - 2 * kMargin, kCaption), Qt::AlignLeft | Qt::AlignVCenter,
                   panel.caption + tr("  —  level %1, aggregated at step %2 of %3")
                                       .arg(n.level)
                                       .arg(panel.steps - n.level)
                                       .arg(panel.steps));
        y += kCaption;
        double x = kMargin;
        const std::vector<std::vector<float>> *streams[2] = {&n.sem, &n.syn};
        const QString names[2] = {tr("semantic"), tr("syntactic")};
        for (int s = 0; s < 2; ++s) {
            const auto &rows = *streams[s];
            if (rows.empty())
                continue;
            const double top = y + kColumnLabels;
            // Column labels, rotated, bottom-aligned above the cells.
            p.setFont(small);
            p.setPen(QColor(0x40, 0x40, 0x40));
            for (int c = 0; c < n.length; ++c) {
                const QString label = c < static_cast<int>(panel.labels.size()) ? elide(panel.labels[static_cast<std::size_t>(c)], 14)
                                                                                : QString::number(c);
                p.save();
                p.translate(x + kRowLabel + (c + 0.5) * kCellW + 4, top - 4);
                p.rotate(-35);
                p.drawText(QPointF(0, 0), label);
                p.restore();
            }
            p.setFont(bold);
            p.setPen(Qt::black);
            p.drawText(QRectF(x, y, kRowLabel, kColumnLabels - 4), Qt::AlignLeft | Qt::AlignBottom, names[s]);
            p.setFont(small);
            for (std::size_t h = 0; h < rows.size(); ++h) {
                const double ry = top + static_cast<double>(h) * kCellH;
                p.setPen(Qt::black);
                p.drawText(QRectF(x, ry, kRowLabel - 4, kCellH), Qt::AlignRight | Qt::AlignVCenter, tr("head %1").arg(h + 1));
                for (int c = 0; c < n.length && c < static_cast<int>(rows[h].size()); ++c) {
                    const double w = rows[h][static_cast<std::size_t>(c)];
                    const QRectF cell(x + kRowLabel + c * kCellW, ry, kCellW - 1, kCellH - 1);
                    const QColor fill = sequentialColor(w);
                    p.fillRect(cell, fill);
                    p.setPen(textOnColor(fill));
                    p.drawText(cell, Qt::AlignCenter, QString::number(w, 'f', 2));
                }
            }
            // The children's columns framed: start and end are the node's own boundary tokens.
            p.setPen(QPen(QColor(0x30, 0x30, 0x30), 1.0, Qt::DotLine));
            p.setBrush(Qt::NoBrush);
            if (n.length > 2)
                p.drawRect(QRectF(x + kRowLabel + kCellW - 0.5, top - 0.5, (n.length - 2) * kCellW, rows.size() * kCellH));
            x += kRowLabel + n.length * kCellW + kGap;
        }
        y += kColumnLabels + static_cast<double>(std::max<std::size_t>(n.sem.size(), 1)) * kCellH;
        p.setFont(small);
        p.setPen(QColor(0x40, 0x40, 0x40));
        QStringList foot;
        if (n.normSem >= 0)
            foot << tr("‖w^e‖ = %1").arg(n.normSem, 0, 'f', 3);
        if (n.normSyn >= 0)
            foot << tr("‖w^n‖ = %1").arg(n.normSyn, 0, 'f', 3);
        foot << tr("rows: the start token's attention per head (each row sums to 1); dotted: the children");
        p.drawText(QRectF(kMargin, y + 2, size.width() - 2 * kMargin, kFooter - 2), Qt::AlignLeft | Qt::AlignVCenter,
                   foot.join(QStringLiteral("   ")));
        y += kFooter + 8.0;
    }
}

} // namespace treelens
