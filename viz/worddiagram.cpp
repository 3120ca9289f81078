#include "viz/worddiagram.h"

#include <algorithm>
#include <cmath>
#include <set>

#include <QLabel>
#include <QListWidget>
#include <QScrollArea>
#include <QSplitter>
#include <QVBoxLayout>
#include <QObject>
#include <QPainter>

#include "viz/plotstyle.h"
#include "viz/qcustomplot.h"

namespace treelens {

namespace {

WordSpan normalised(WordSpan e)
{
    if (e.first > e.second)
        std::swap(e.first, e.second);
    return e;
}

double cellWidth(const std::string &word, const QFontMetricsF &fm, double padding)
{
    return std::max(fm.horizontalAdvance(diagramWordLabel(word)) + padding, 30.0);
}

} // namespace

EdgeClasses classifyEdges(const std::vector<WordSpan> &gold, const std::vector<WordSpan> &predicted)
{
    std::set<WordSpan> g, p;
    for (const auto &e : gold)
        g.insert(normalised(e));
    for (const auto &e : predicted)
        p.insert(normalised(e));
    EdgeClasses out;
    for (const auto &e : p)
        (g.count(e) ? out.correct : out.wrong).push_back(e);
    for (const auto &e : g)
        if (!p.count(e))
            out.missed.push_back(e);
    return out;
}

QString elidedWord(const std::string &word, int maxChars)
{
    QString s = QString::fromStdString(word);
    if (s.size() > maxChars)
        s = s.left(maxChars - 1) + QChar(0x2026);
    return s;
}

QString diagramWordLabel(const std::string &word) { return elidedWord(word, 14); }

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

QString joinedWords(const std::vector<std::string> &words)
{
    QStringList list;
    for (const auto &w : words)
        list << QString::fromStdString(w);
    return list.join(QLatin1Char(' '));
}

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

// ---------------------------------------------------------------------------
// WordDiagramView

WordDiagramView::WordDiagramView(QWidget *parent) : QWidget(parent)
{
    setAutoFillBackground(true);
    QPalette p = palette();
    p.setColor(QPalette::Window, Qt::white);
    setPalette(p);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
}

QSize WordDiagramView::sizeHint() const { return exportSize().toSize(); }

void WordDiagramView::renderTo(QPainter *painter, const QRectF &target)
{
    painter->save();
    painter->fillRect(target, Qt::white);
    paintDiagram(painter, target);
    painter->restore();
}

void WordDiagramView::paintEvent(QPaintEvent *)
{
    QPainter painter(this);
    painter.fillRect(rect(), Qt::white);
    paintDiagram(&painter, QRectF(rect()));
}

void WordDiagramView::paintDiagram(QPainter *painter, const QRectF &rect) const
{
    painter->save();
    painter->setRenderHint(QPainter::Antialiasing, true);
    painter->setRenderHint(QPainter::TextAntialiasing, true);
    if (!paintNoSentence(painter, rect, words(), wordFont()))
        paintContent(painter, rect);
    painter->restore();
}

QFont WordDiagramView::wordFont() { return plotFont(10.0); }
QFont WordDiagramView::smallFont() { return plotFont(8.5); }

double WordDiagramView::naturalWidth(const std::vector<std::string> &words, double labelMargin, double padding)
{
    return wordDiagramWidth(words, QFontMetricsF(plotFont(10.0)), labelMargin, padding);
}

void renderPlotAndDiagram(QPainter *painter, const QRectF &target, const QSizeF &natural, QCustomPlot *plot,
                          const QSizeF &plotSize, WordDiagramView *diagram, bool withDiagram,
                          const std::function<void()> &afterLayout)
{
    const double sx = target.width() / natural.width(), sy = target.height() / natural.height();
    const QSize size(static_cast<int>(std::ceil(plotSize.width())), static_cast<int>(std::ceil(plotSize.height())));
    layOutPlotAt(plot, size);
    if (afterLayout)
        afterLayout();
    paintPlot(plot, painter,
              QRectF(target.left() + (natural.width() - plotSize.width()) / 2.0 * sx, target.top(), plotSize.width() * sx,
                     plotSize.height() * sy),
              size);
    plot->setViewport(plot->rect());
    if (!withDiagram)
        return;
    painter->save();
    painter->translate(target.left(), target.top() + (plotSize.height() + 10.0) * sy);
    painter->scale(sx, sy);
    diagram->renderTo(painter, QRectF(0.0, 0.0, natural.width(), diagram->exportSize().height()));
    painter->restore();
}

QListWidget *newSentenceList(const QString &objectName, const QString &toolTip)
{
    auto *list = new QListWidget;
    list->setObjectName(objectName);
    list->setToolTip(toolTip);
    list->setMinimumWidth(220);
    return list;
}

QLabel *newSentenceLabel()
{
    auto *label = new QLabel;
    label->setWordWrap(true);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    return label;
}

QScrollArea *newScrollArea(QWidget *widget)
{
    auto *scroll = new QScrollArea;
    scroll->setWidget(widget);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    return scroll;
}

QSplitter *newSplit(Qt::Orientation orientation, QWidget *first, QWidget *second, int firstStretch, int secondStretch)
{
    auto *split = new QSplitter(orientation);
    split->addWidget(first);
    split->addWidget(second);
    split->setStretchFactor(0, firstStretch);
    split->setStretchFactor(1, secondStretch);
    split->setChildrenCollapsible(false);
    return split;
}

void layOutView(QWidget *view, QLayout *top, QWidget *body)
{
    auto *layout = new QVBoxLayout(view);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(top);
    layout->addWidget(body, 1);
}

bool beginExport(QPainter *painter, const QRectF &target, const QSizeF &natural)
{
    painter->save();
    painter->fillRect(target, Qt::white);
    painter->restore();
    return !natural.isEmpty();
}

void selectListRow(QListWidget *list, int row, const std::function<void()> &show)
{
    if (row < -1 || row >= list->count())
        return;
    if (list->currentRow() == row) {
        show();
        return;
    }
    list->setCurrentRow(row);
}

} // namespace treelens
