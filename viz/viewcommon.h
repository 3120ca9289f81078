#pragma once
/// \file viewcommon.h
/// What every view shares: the selection it draws (ViewState, core/data/viewstate.h:
/// layer, head, attention kind, focus word, threshold), the data, the colour
/// scale, and the interface the exporter (viewexport.h) renders through.

#include <cstddef>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <QColor>
#include <QLinearGradient>
#include <QRectF>
#include <QSizeF>
#include <QFont>
#include <QString>
#include <QStringList>
#include <QWidget>

#include "core/data/analysis.h"
#include "core/data/sentence.h"
#include "core/data/viewstate.h"

class QPainter;
class QPainterPath;

namespace treelens {

/// The words and constituents a tree pattern bound in one sentence (the Corpus dock's query,
/// docs/query.md "In the app"): the tree views outline each and label it with the pattern's
/// node names (viz/patternmarks.h). Plain data; the dock makes it, ViewData carries it.
struct PatternMarks {
    std::string sentenceId;     ///< the sentence the marks belong to (its id and word count)
    std::size_t words = 0;
    QString pattern;            ///< the pattern as typed (the views' note)
    int occurrences = 0;        ///< its occurrences in the sentence
    struct Mark {
        QString name;           ///< the pattern node ("V", "obj", "_root_")
        int first = 0, last = 0;///< the words it covers, 0-based, inclusive
        QString label;          ///< a constituent's label (Tregex); "" for a word a Grew request bound
        bool phrase = false;    ///< a constituent (a Tregex node), not one word (a Grew node)
        int colour = 0;         ///< the node's place among the pattern's names (patternMarkColor)
        int occurrence = 0;     ///< which occurrence of the sentence, from 0
    };
    std::vector<Mark> marks;
    /// Whether the marks are `s`'s: the same id and number of words.
    bool fits(const Sentence &s) const { return s.id == sentenceId && s.tokens.size() == words; }
};

/// The data a view shows. Either pointer may be null (no sentence yet, no model).
struct ViewData {
    ViewData(std::shared_ptr<const Sentence> s = nullptr, std::shared_ptr<const Analysis> a = nullptr,
             std::shared_ptr<const PatternMarks> m = nullptr)
        : sentence(std::move(s)), analysis(std::move(a)), marks(std::move(m))
    {
    }
    std::shared_ptr<const Sentence> sentence;
    std::shared_ptr<const Analysis> analysis;
    /// The corpus query's marks for `sentence` (null: none; the tree views draw them).
    std::shared_ptr<const PatternMarks> marks;
};

/// Recursive tree models (Analysis::nodeAttention in post-order): each node's height,
/// 1 + the largest height of a node child (1 when all its members are words).
std::vector<int> recursiveNodeHeights(const std::vector<NodeAttention> &nodes);
/// Whether a recursive model's node of `height` is still pending at composition step
/// `step` (ViewState::aggregationStep: 0 = all composed).
inline bool recursivePending(int height, int step) { return step > 0 && height > step; }

/// A colour-blind-safe sequential colour map (viridis) for values in [0, 1]
/// (clamped). Used for probabilities everywhere so views agree.
QColor sequentialColor(double value);
/// A diverging colour map for signed values in [-1, 1] (clamped): blue below 0, white
/// at 0, red above (differences, attributions).
QColor divergingColor(double value);
/// White or `ink`, whichever reads better on `fill` (labels on coloured cells).
QColor textOnColor(const QColor &fill, const QColor &ink = QColor(0x22, 0x22, 0x22));

/// sequentialColor() as a horizontal gradient from `from` to `to` (colour bars of legends).
QLinearGradient sequentialGradient(const QPointF &from, const QPointF &to);

/// maps[layer][head] when it exists and is not empty, else nullptr (attention,
/// relation gates: any per-layer, per-head matrices of an Analysis).
const Matrix *headMatrix(const std::vector<std::vector<Matrix>> &maps, int layer, int head);

/// The attention matrix the state selects, or nullptr when the analysis has none
/// for that layer/head. Indexed by the analysis' tokens.
const Matrix *selectedAttention(const Analysis &analysis, const ViewState &state);

/// Which attention `state` selects, as figures name it: "after ×C" / "softmax
/// before ×C" for models with a constituent prior; "combined (gated)" / "plain
/// softmax(Sᵉ)" / "relation softmax(Sʳ)" for the Dependency-Transformer; "" for
/// models with one attention.
QString attentionVariantName(const Analysis &analysis, const ViewState &state);
/// The same for file names: "" (the default attention), "-raw" (before the
/// structural weighting) or "-relation".
QString attentionVariantSuffix(const Analysis &analysis, const ViewState &state);

/// Attention (over words, not tokens) from word `from` to word `to` in the
/// selected layer/head: maps words to tokens through Analysis::wordToken.
/// Returns 0 when unavailable.
float wordAttention(const Analysis &analysis, const ViewState &state, int from, int to);

/// A causal model (Analysis::causalAttention: a decoder-only language model) computes no
/// attention from a unit to a later one: those cells and arcs are not possible, which is not
/// the same as attention 0, so the views draw them hatched (paintHatch) or not at all and say
/// so with this line: "not possible: a causal model's word attends only to itself and the
/// words before it" (`unit`: "word", "piece"; its plural adds an "s").
QString causalNote(const QString &unit = QStringLiteral("word"));
/// Whether the cell (row `r` attends column `c`) of `analysis`' attention is not possible: a
/// causal model's unit attending a later unit (c > r). Rows and columns in the model's order.
inline bool causallyMasked(const Analysis &analysis, int r, int c) { return analysis.causalAttention && c > r; }

/// Fills `area` the way every view marks what does not exist (a causal model's attention to a
/// later unit, a word nothing predicts): light grey with darker grey diagonal lines every
/// `spacing` units of the painter. Both greys have r = g = b, which no colour of a scale has.
void paintHatch(QPainter &painter, const QPainterPath &area, double spacing = 5.0);
/// The hatching's background and line colours.
QColor hatchFill();
QColor hatchInk();

/// Figures say in their own text what they cannot show (a reader of an exported
/// file has no status bar): words the model does not know, a model without a
/// constituent prior, where the trees came from.

/// Above this share of words missing from the model's vocabulary a figure warns
/// that the model saw mostly its unknown token. With the shipped English model
/// (8,000 words) ordinary English sentences miss 0–25% (names, rare terms),
/// German and French ones 70–90%, Spanish ~45%.
inline constexpr double kUnknownWordWarningRate = 0.3;

/// "5 of 8 words (62%) are not in the model's vocabulary …" when more than
/// kUnknownWordWarningRate of the words (punctuation aside) are unknown; below that, a note naming
/// the unknown words (up to six); "" when none are unknown, and when the
/// model has no word vocabulary to check (Analysis::unknownWords unset).
QString unknownWordsNote(const Analysis *analysis);

/// The heads switched off when the analysis was made (Analysis::ablated), as every view and
/// figure caption names them: "L3 H2 ablated", "L3 H2, L4 (every head) ablated"; "" when none.
QString ablationBadge(const Analysis *analysis);
/// The same badge for heads numbered from 0 (head -1: a whole layer).
QString ablationBadge(const std::vector<std::pair<int, int>> &ablated);
/// The colour of that badge: a strong red, since every number on the view is changed by it.
QColor ablationColor();

/// "This model has no constituent prior …" for an analysis with attention but no
/// prior (a plain Transformer; other families are named: "A ggsa model has no
/// constituent prior …"); "" otherwise.
QString noPriorNote(const Analysis *analysis);

/// Where the sentence's tree of `kind` came from, as the sentence's metadata says:
/// gold from the corpus file (for PTB files with the traces and function tags that
/// are not shown, counted), or predicted by the parser (named); "" when the sentence
/// does not say (a hand-made sentence) or has no such tree.
QString treeSourceNote(const Sentence &sentence, TreeKind kind);

/// The colour of those notes: a caution, not an error.
QColor noteColor();

/// `text` broken into lines of at most `width` (in the font's units) at spaces,
/// greedily; a word longer than the width (a file's path) is cut after a '/', '-',
/// '_' or '.' where it can be, else between characters. Figures wrap their captions
/// so that a long note never sets a figure's width.
QStringList wrapToWidth(const QString &text, const QFont &font, double width);

/// Implemented by every view so it can be exported offscreen to PNG/SVG/PDF.
class ExportableView {
public:
    virtual ~ExportableView() = default;
    /// The natural size of the whole content in points (1/72 in), not the viewport.
    virtual QSizeF exportSize() const = 0;
    /// Paints the whole content into `target` (in the painter's coordinates),
    /// on a white background. Must work on a widget that was never shown.
    virtual void renderTo(QPainter *painter, const QRectF &target) = 0;
    /// A short name used in file names and titles ("constituency", "prior", ...).
    virtual QString exportName() const = 0;
};

/// A widget that paints itself with QPainter at its size hint (in pixels, exported
/// at 0.75 pt per pixel): the screen and every export draw through one paint().
class PaintedExportView : public QWidget, public ExportableView {
public:
    explicit PaintedExportView(QWidget *parent = nullptr);
    QSizeF exportSize() const override;
    void renderTo(QPainter *painter, const QRectF &target) override;

protected:
    void paintEvent(QPaintEvent *event) override;
    /// Draws the content into a `size` area at the origin.
    virtual void paint(QPainter &p, const QSizeF &size) const = 0;
};

} // namespace treelens

namespace treelens {
/// Versions of the drawing libraries, for the About dialog ("2.1.1").
QString qcustomplotVersion();
} // namespace treelens
