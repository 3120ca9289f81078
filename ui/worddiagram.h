#pragma once
/// \file worddiagram.h
/// What the probing dock's word diagrams share (the structural probes' arc view
/// and the unsupervised-parsing bracket view): their colours, word labels and
/// cells, the "no sentence" placeholder and a legend of line samples.

#include <string>
#include <utility>
#include <vector>

#include <QColor>
#include <QFontMetricsF>
#include <QPen>
#include <QRectF>
#include <QString>

class QPainter;

namespace treelens {

inline const QColor kDiagramGoldInk(70, 70, 70);
inline const QColor kDiagramCorrectInk(26, 135, 60);
inline const QColor kDiagramWrongInk(214, 39, 40);

/// A word as a diagram labels it: at most 14 characters, cut with "…".
QString diagramWordLabel(const std::string &word);

/// The first words of a sentence, cut at about `maxChars` characters with " …".
QString sentencePreview(const std::vector<std::string> &words, int maxChars = 60);

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

} // namespace treelens
