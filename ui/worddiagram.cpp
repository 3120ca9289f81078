#include "ui/worddiagram.h"

#include <algorithm>

#include <QObject>
#include <QPainter>

namespace treelens {

QString diagramWordLabel(const std::string &word)
{
    QString s = QString::fromStdString(word);
    if (s.size() > 14)
        s = s.left(13) + QChar(0x2026);
    return s;
}

QString sentencePreview(const std::vector<std::string> &words, int maxChars)
{
    QString out;
    for (const auto &word : words) {
        const QString w = QString::fromStdString(word);
        if (!out.isEmpty() && out.size() + 1 + w.size() > maxChars)
            return out + QStringLiteral(" …");
        if (!out.isEmpty())
            out += QLatin1Char(' ');
        out += w;
    }
    return out;
}

namespace {
double cellWidth(const std::string &word, const QFontMetricsF &fm, double padding)
{
    return std::max(fm.horizontalAdvance(diagramWordLabel(word)) + padding, 30.0);
}
} // namespace

std::vector<std::pair<double, double>> wordCells(const std::vector<std::string> &words, const QFontMetricsF &fm,
                                                 double left, double right, double padding)
{
    std::vector<double> widths;
    double total = 0.0;
    for (const auto &w : words) {
        widths.push_back(cellWidth(w, fm, padding));
        total += widths.back();
    }
    const double scale = total > 0.0 && right - left > total ? (right - left) / total : 1.0;
    std::vector<std::pair<double, double>> cells;
    double x = left;
    for (double w : widths) {
        cells.emplace_back(x, x + w * scale);
        x += w * scale;
    }
    return cells;
}

double wordDiagramWidth(const std::vector<std::string> &words, const QFontMetricsF &fm, double labelMargin,
                        double padding)
{
    double total = 0.0;
    for (const auto &w : words)
        total += cellWidth(w, fm, padding);
    return std::max(labelMargin + total + 12.0, 480.0);
}

bool paintNoSentence(QPainter *painter, const QRectF &rect, const std::vector<std::string> &words, const QFont &font)
{
    if (!words.empty())
        return false;
    painter->setFont(font);
    painter->setPen(QColor(120, 120, 120));
    painter->drawText(rect, Qt::AlignCenter, QObject::tr("No sentence selected."));
    return true;
}

double paintLineLegend(QPainter *painter, const QRectF &rect, double height,
                       const std::vector<std::pair<QPen, QString>> &entries)
{
    const QFontMetricsF fm(painter->font());
    double x = rect.left() + 6.0;
    const double y = rect.top() + height / 2.0;
    for (const auto &[pen, text] : entries) {
        painter->setPen(pen);
        painter->drawLine(QPointF(x, y), QPointF(x + 22.0, y));
        painter->setPen(QColor(40, 40, 40));
        painter->drawText(QPointF(x + 27.0, y + fm.ascent() / 2.0 - 1.0), text);
        x += 27.0 + fm.horizontalAdvance(text) + 14.0;
    }
    return x;
}

} // namespace treelens
