#pragma once
/// \file surprisalscale.h
/// A language model's surprisal (Analysis::surprisal per word, Analysis::pieceSurprisal per
/// piece: nats, −log p given everything before) as every view draws it: the band under the
/// words of the dependency and constituency views and the surprisal view (surprisalview.h).
/// One sequential, colour-blind-safe scale (viridis, sequentialColor) from 0 to the sentence's
/// largest surprisal rounded up to a whole tick, drawn with its unit ("surprisal, nats"); hover
/// texts with the exact value and what it is conditioned on; a word nothing predicts (its
/// pieces include the sequence's first piece) is hatched (paintHatch), never a colour of the
/// scale, and its hover says why.

#include <cmath>
#include <functional>
#include <optional>
#include <vector>

#include <QColor>
#include <QFont>
#include <QGraphicsRectItem>
#include <QRectF>
#include <QString>

#include "core/data/analysis.h"

class QGraphicsItem;
class QGraphicsScene;
class QGraphicsSceneHoverEvent;

namespace treelens {

class SurprisalScale {
public:
    /// The surprisal of `analysis` (null, or one without surprisal: empty()). Keeps the
    /// pointer: the analysis must outlive the scale.
    explicit SurprisalScale(const Analysis *analysis = nullptr);

    bool empty() const { return m_words == 0; }
    /// The words with a surprisal entry (Analysis::surprisal, in word order).
    int wordCount() const { return m_words; }
    /// Word `word`'s surprisal in nats; NaN when nothing predicts it (or no such word).
    double value(int word) const;
    bool predicted(int word) const;
    /// The scale's top in nats: the largest surprisal rounded up to a whole tick (at least one tick).
    double top() const { return m_top; }
    /// The distance between the scale's ticks (1, 2, 5, 10, ... nats).
    double tickStep() const { return m_step; }
    /// The colour of `nats` on the scale (viridis of nats / top, clamped).
    QColor color(double nats) const;

    /// The word as the input has it.
    QString word(int word) const;
    /// Indices into Analysis::pieces of the word's pieces, in order (none: the tokenizer gave it none).
    std::vector<int> pieces(int word) const;
    /// Piece `piece` as a person reads it (Analysis::pieceText, else the vocabulary's spelling).
    QString pieceText(int piece) const;
    /// −log p of the piece given the pieces before it, nats; NaN for the sequence's first piece.
    double pieceValue(int piece) const;

    /// The hover text of a word: "surprisal of “old”: 4.21 nats = −log p(“old” | “The”)", with its
    /// pieces' shares when it has several; for a word without a prediction, the reason.
    QString wordText(int word) const;
    /// The hover text of one piece of a word: its own −log p and the word's total.
    QString pieceHover(int word, int piece) const;
    /// Why the word has no surprisal ("" when it has one).
    QString noPredictionReason(int word) const;

    /// The predicted words, their mean surprisal (NaN without any), the sentence's log p.
    int predictedCount() const;
    double mean() const;
    std::optional<double> logprob() const;

    /// "surprisal, nats": the scale's label everywhere.
    static QString unit();
    /// "no prediction (first piece)": the key of the hatching.
    static QString noPredictionLabel();
    /// The tree views' line above the tree that says what the band is.
    static QString bandNote();

private:
    /// The words before `word` that condition it ("“The keys to”", "“… the cabinet”";
    /// "the beginning of the text" for the first word after a beginning-of-sequence token).
    QString context(int word) const;

    const Analysis *m_a = nullptr;
    int m_words = 0;
    double m_top = 1.0;
    double m_step = 1.0;
};

/// A word's cell of the band under a tree view's words: its surprisal's colour, or hatched when
/// nothing predicts the word; its tooltip is SurprisalScale::wordText, also passed to onHover
/// when the mouse enters it.
class SurprisalBandItem : public QGraphicsRectItem {
public:
    SurprisalBandItem(const QRectF &rect, int word, const SurprisalScale &scale);
    int word() const { return m_word; }
    double nats() const { return m_nats; }
    /// Hatched: no prediction.
    bool hatched() const { return !std::isfinite(m_nats); }
    QString text() const { return m_text; }
    std::function<void(const QString &)> onHover;

    void paint(QPainter *painter, const QStyleOptionGraphicsItem *option, QWidget *widget) override;

protected:
    void hoverEnterEvent(QGraphicsSceneHoverEvent *event) override;

private:
    int m_word;
    double m_nats;
    QString m_text;
};

/// Adds the band: one SurprisalBandItem per word of the scale that has a rectangle in
/// `wordRects` (scene coordinates; an empty one: none), spanning the word's width, from `top`,
/// `height` tall. Returns the items in word order.
std::vector<SurprisalBandItem *> addSurprisalBand(QGraphicsScene &scene, const SurprisalScale &scale,
                                                  const std::vector<QRectF> &wordRects, double top, double height);

/// What addSurprisalKey() drew.
struct SurprisalKey {
    QRectF rect;                        ///< scene rectangle used
    std::vector<QGraphicsItem *> items; ///< for the caller to tag
};
/// The band's key with its top-left at `topLeft`: the colour bar from 0 to the scale's top with
/// its ticks and unit ("surprisal, nats"), and a hatched swatch "no prediction (first piece)"
/// when a word has none. `font`'s size sets the text; `ink` its colour.
SurprisalKey addSurprisalKey(QGraphicsScene &scene, const SurprisalScale &scale, const QPointF &topLeft, const QFont &font,
                             const QColor &ink);

} // namespace treelens
