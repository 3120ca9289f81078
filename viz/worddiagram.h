#pragma once
/// \file worddiagram.h
/// What the probing results' word diagrams share (the structural probes' arc
/// view, viz/structuralarcview.h, and the unsupervised-parsing bracket view,
/// viz/bracketspanview.h): predicted against gold edges or brackets, their
/// colours, word labels and cells, the "no sentence" placeholder, a legend of
/// line samples, and WordDiagramView, the widget both derive from. Also the
/// composition of a plot above a diagram that the results views export.

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <QColor>
#include <QFontMetricsF>
#include <QPen>
#include <QRectF>
#include <QString>
#include <QWidget>

#include "viz/viewcommon.h"

class QCustomPlot;
class QLabel;
class QLayout;
class QListWidget;
class QPainter;
class QScrollArea;
class QSplitter;

namespace treelens {

/// A word pair (an edge i–j) or a half-open word span [start, end).
using WordSpan = std::pair<int, int>;

/// Predicted edges (or brackets) against gold ones, for drawing.
struct EdgeClasses {
    std::vector<WordSpan> correct; ///< predicted and gold
    std::vector<WordSpan> wrong;   ///< predicted, not gold
    std::vector<WordSpan> missed;  ///< gold, not predicted
};

/// Splits undirected edges into correct / wrong / missed. Edges are normalised
/// to i < j; each list is sorted and free of duplicates.
EdgeClasses classifyEdges(const std::vector<WordSpan> &gold, const std::vector<WordSpan> &predicted);

inline const QColor kDiagramGoldInk(70, 70, 70);
inline const QColor kDiagramCorrectInk(26, 135, 60);
inline const QColor kDiagramWrongInk(214, 39, 40);

/// `word` of at most `maxChars` characters: longer ones cut with "…".
QString elidedWord(const std::string &word, int maxChars);

/// A word as a diagram labels it: elidedWord(word, 14).
QString diagramWordLabel(const std::string &word);

/// The first words of a sentence, cut at about `maxChars` characters with " …".
QString sentencePreview(const std::vector<std::string> &words, int maxChars = 60);

/// The words joined by spaces (a list row's tooltip, a sentence label).
QString joinedWords(const std::vector<std::string> &words);

/// Left and right x of every word cell laid out in [left, right]: each cell is
/// the label's width + `padding` (at least 30), stretched to fill the range.
std::vector<std::pair<double, double>> wordCells(const std::vector<std::string> &words, const QFontMetricsF &fm,
                                                 double left, double right, double padding);

/// The width the words need unstretched, plus `labelMargin` on the left and 12 on
/// the right, at least 480.
double wordDiagramWidth(const std::vector<std::string> &words, const QFontMetricsF &fm, double labelMargin,
                        double padding);

/// Draws "No sentence selected." in `rect` and returns true when `words` is empty.
bool paintNoSentence(QPainter *painter, const QRectF &rect, const std::vector<std::string> &words,
                     const QFont &font);

/// Line samples with their texts, left to right on the middle line of the band
/// `height` high at the top of `rect` (in the painter's current font); returns
/// the x after the last entry.
double paintLineLegend(QPainter *painter, const QRectF &rect, double height,
                       const std::vector<std::pair<QPen, QString>> &entries);

/// A word diagram on a white background: its natural size is exportSize(), it
/// paints on screen and into exports through paintContent().
class WordDiagramView : public QWidget, public ExportableView {
    Q_OBJECT
public:
    /// The sentence's words (none: the diagram says "No sentence selected.").
    virtual const std::vector<std::string> &words() const = 0;
    QSize sizeHint() const override;
    void renderTo(QPainter *painter, const QRectF &target) override;

protected:
    explicit WordDiagramView(QWidget *parent = nullptr);
    void paintEvent(QPaintEvent *event) override;
    /// Paints the diagram of words() (never empty) into `rect`, antialiased; the
    /// painter's state is restored afterwards.
    virtual void paintContent(QPainter *painter, const QRectF &rect) const = 0;
    static QFont wordFont();  ///< the words: 10 pt
    static QFont smallFont(); ///< legends and side labels: 8.5 pt
    /// Width of `words` laid out with `labelMargin` and `padding` in the 10 pt word font.
    static double naturalWidth(const std::vector<std::string> &words, double labelMargin, double padding);

private:
    void paintDiagram(QPainter *painter, const QRectF &rect) const;
};

/// Paints `plot` laid out at `plotSize` at the top of `target`, centred, and
/// `diagram` (when it has words) 10 points below it, across the width; `natural`
/// is the size of both together (`target` is that size scaled).
/// `afterLayout` runs once the plot is laid out at its export size, before it paints.
void renderPlotAndDiagram(QPainter *painter, const QRectF &target, const QSizeF &natural, QCustomPlot *plot,
                          const QSizeF &plotSize, WordDiagramView *diagram, bool withDiagram,
                          const std::function<void()> &afterLayout = {});

// ---------------------------------------------------------------------------
// The parts the results views (structural probes, unsupervised parsing) share

/// A results view's sentence list (worst first): its object name and tooltip, at least 220 wide.
QListWidget *newSentenceList(const QString &objectName, const QString &toolTip);
/// The selected sentence's label: wrapped, selectable.
QLabel *newSentenceLabel();
/// A frameless scroll area that resizes `widget` (a diagram or a plot) to its width.
QScrollArea *newScrollArea(QWidget *widget);
/// `first` and `second` side by side (Qt::Horizontal) or stacked, stretched
/// `firstStretch` : `secondStretch`, neither collapsible.
QSplitter *newSplit(Qt::Orientation orientation, QWidget *first, QWidget *second, int firstStretch, int secondStretch);
/// `top` above `body`, filling `view` with margins of 4.
void layOutView(QWidget *view, QLayout *top, QWidget *body);
/// Clears `target` to white for an export; false when there is nothing to export
/// (an empty `natural` size).
bool beginExport(QPainter *painter, const QRectF &target, const QSizeF &natural);

/// Selects row `row` (-1 clears) of a results view's sentence list, which shows
/// the selection when its current row changes; `show` re-shows it when `row` is
/// already the current row. A row outside the list is ignored.
void selectListRow(QListWidget *list, int row, const std::function<void()> &show);

} // namespace treelens
