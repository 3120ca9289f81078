#pragma once
/// \file surprisalview.h
/// A language model's surprisal per word (Analysis::surprisal, nats): one bar per word, as
/// tall as −log p(word | the words before it), split into the word's pieces stacked from the
/// first (each segment the piece's own −log p given everything before it,
/// Analysis::pieceSurprisal, coloured on the scale the tree views' bands use:
/// surprisalscale.h); a word nothing predicts (its pieces include the sequence's first piece)
/// is a hatched column marked "no prediction (first piece)", never a bar of 0. The title gives
/// the sentence's log-probability (Analysis::logprob) and the mean surprisal of the predicted
/// words; lines under it say what a bar is, which heads were switched off
/// (Analysis::ablated) and how many words the model did not know; the y axis is labelled
/// "surprisal (nats)", the colour key "surprisal, nats". Hover: the word's value and what it
/// is conditioned on, or a piece's (its readable text, Analysis::pieceText). The view
/// registry's "surprisal" entry; exports through PaintedExportView (PNG/SVG/PDF).

#include <memory>
#include <vector>

#include <QRectF>
#include <QString>
#include <QStringList>

#include "viz/viewcommon.h"

namespace treelens {

class SurprisalView : public PaintedExportView {
    Q_OBJECT
public:
    explicit SurprisalView(QWidget *parent = nullptr);
    void setData(const ViewData &data);
    void setState(const ViewState &state);

    QString exportName() const override { return QStringLiteral("surprisal"); }
    QSize sizeHint() const override;

    /// One piece's segment of a bar.
    struct Segment {
        int piece = -1;   ///< index into Analysis::pieces
        double nats = 0;  ///< the piece's own −log p
        QRectF rect;
    };
    /// One word's bar (or, without a prediction, its hatched column).
    struct Bar {
        int word = -1;
        double nats = 0;        ///< NaN: no prediction
        bool predicted = false;
        QRectF rect;            ///< the bar; the whole column when hatched
        std::vector<Segment> segments; ///< bottom to top, the word's pieces in order
    };
    /// The bars as drawn at `size` (the widget's pixels; the export's at sizeHint()). For tests.
    std::vector<Bar> bars(const QSizeF &size) const;
    /// The title (log p of the sentence, mean surprisal) and the lines under it.
    QString title() const;
    QStringList titleLines() const;
    /// What hovering `pos` (at `size`) says: a piece's or word's surprisal, "" elsewhere.
    QString textAt(const QPointF &pos, const QSizeF &size) const;
    /// The y axis' label.
    static QString axisLabel() { return QStringLiteral("surprisal (nats)"); }

Q_SIGNALS:
    void hovered(const QString &text);

protected:
    void paint(QPainter &p, const QSizeF &size) const override;
    void mouseMoveEvent(QMouseEvent *event) override;

private:
    /// Where everything goes at one size.
    struct Layout {
        QRectF plot;              ///< the axes' area (0 nats at its bottom)
        QStringList lines;        ///< the lines under the title, wrapped
        double linesTop = 0;
        bool rotated = false;     ///< word labels turned to run upwards
        double keyTop = 0;        ///< the colour key's top
        std::vector<Bar> bars;
    };
    Layout layout(const QSizeF &size) const;
    /// The bars' rectangles in `plot`.
    std::vector<Bar> placeBars(const QRectF &plot) const;
    void paintTitle(QPainter &p, const Layout &l, const QSizeF &size) const;
    void paintAxis(QPainter &p, const Layout &l) const;
    void paintBars(QPainter &p, const Layout &l) const;
    void paintWords(QPainter &p, const Layout &l) const;
    void paintKey(QPainter &p, const Layout &l) const;
    /// The room the word labels take under the axis.
    double wordLabelHeight(double slot, bool *rotated) const;

    ViewData m_data;
    ViewState m_state;
    QString m_lastHover;
};

} // namespace treelens
