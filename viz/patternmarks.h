#pragma once
/// \file patternmarks.h
/// How the tree views draw the corpus query's marks (PatternMarks, viewcommon.h; issue 48):
/// an outline in the pattern node's colour around a word or a constituent, tinted inside,
/// with the node names bound to it on a small chip at its top-left corner; and the note
/// that says what the outlines are. The dependency view outlines the words (a Tregex
/// constituent: one box over its words), the constituency view the word's leaf or the
/// constituent's node.
///
/// The items carry data(0) = "pattern-mark", data(1) = the names ("V, S"), data(2) and
/// data(3) = the first and last word (0-based), for tests and tools; the chips data(0) =
/// "pattern-mark-names".

#include <vector>

#include <QColor>
#include <QRectF>
#include <QString>
#include <QStringList>

#include "viz/viewcommon.h"

class QGraphicsItem;
class QGraphicsScene;

namespace treelens {

/// The colour of the pattern's `index`-th node name (Okabe–Ito, colour-blind safe; cycles).
QColor patternMarkColor(int index);

/// The marks of one thing drawn: a word or a constituent, with every name bound to it.
struct PatternMarkGroup {
    int first = 0, last = 0; ///< the words, 0-based, inclusive
    QString label;           ///< the constituent's label ("" for a word)
    bool phrase = false;
    QStringList names;       ///< each once, in the pattern's order
    int colour = 0;          ///< the first name's colour index
    int inner = 0;           ///< how many other groups lie strictly inside its words (outlines nest)
};

/// `marks` grouped by what they outline: a word (a Grew node; a Tregex node over one word
/// that is a leaf or a part-of-speech tag is still a phrase here, with its label) or a
/// constituent, ordered by first word then length.
std::vector<PatternMarkGroup> groupPatternMarks(const PatternMarks &marks);

/// Adds the outline of `group` around `rect` (scene coordinates) with its names' chip to
/// `scene`, at depth `z`; returns the outline (the chip is its child).
QGraphicsItem *addPatternMark(QGraphicsScene *scene, const QRectF &rect, const PatternMarkGroup &group, double z);

/// The line the views write above the tree: "Corpus query: 2 occurrences here; outlined: the
/// words and constituents bound to V, S".
QString patternMarksNote(const PatternMarks &marks);

} // namespace treelens
