#pragma once
/// \file dependencyscene.h
/// Private to the dependency view (dependencyview.cpp, dependencylayout.cpp,
/// dependencypaint.cpp, dependencyoverlays.cpp): the geometry of its scene, the
/// word and arc items it is drawn with (defined in dependencypaint.cpp), the arc
/// colours and widths, and the records its layout works on (DependencyView::WordInfo
/// and DependencyView::Arc). Not for other views.

#include <algorithm>
#include <functional>
#include <vector>

#include <QColor>
#include <QFont>
#include <QGraphicsItem>
#include <QGraphicsPathItem>
#include <QPainterPath>
#include <QPointF>
#include <QPolygonF>
#include <QRectF>
#include <QSizeF>
#include <QString>

#include "core/data/analysis.h"
#include "core/data/viewstate.h"
#include "viz/dependencyview.h"

class QGraphicsSceneHoverEvent;
class QGraphicsSceneMouseEvent;
class QPainter;
class QStyleOptionGraphicsItem;
class QWidget;

namespace treelens {

struct DependencyView::WordInfo {
    QString text;
    QString tag;
    double width = 0;   // column width: word, tag and arc endpoints
    double center = 0;  // x of the column centre (arcs layout)
    std::vector<int> slots; // arc indices attached to this word, left to right
};

struct DependencyView::Arc {
    int dependent = -1;
    int head = -1;      // -1: root
    QString relation;
    int level = 0;      // arcs layout: 1 = lowest
    QColor color;
    double weight = -1; // attention dependent → head, -1 when not coloured
    double gate = -1;   // relation mode: the gate of dependent → head
    double width = 0;   // relation mode: the pen width (attention); 0: the default
    double edgeWeight = -1; // recursive DTT + edges: the forward edge's attention, -1 when none
    int left() const { return head < 0 ? dependent : std::min(dependent, head); }
    int right() const { return head < 0 ? dependent : std::max(dependent, head); }
};

namespace dependency {

// Geometry in scene units (points). Chosen so 9 pt labels never touch: one arc
// level is a label's height plus a margin.
inline constexpr double kWordGap = 16.0;      // minimum white space between two word columns
inline constexpr double kSlotSpacing = 7.0;   // distance between arc endpoints on one word
inline constexpr double kCorner = 6.0;        // radius of an arc's rounded corners
inline constexpr double kArrowLength = 7.0;
inline constexpr double kArrowHalfWidth = 3.5;
inline constexpr double kLabelPadX = 3.0;
inline constexpr double kLabelPadY = 1.0;
inline constexpr double kTreeArcWidth = 1.8;
inline constexpr double kMargin = 16.0;

inline QFont scaledFont(const QFont &base, double pointSize, bool bold = false)
{
    QFont f = base;
    f.setPointSizeF(pointSize);
    f.setBold(bold);
    return f;
}

/// A scene item drawn highlighted while the mouse is over it, which says so through
/// onHover (the view reports the hovered word's or arc's text).
template <class Item>
class HoverItem : public Item {
public:
    using Item::Item;
    std::function<void()> onHover;

protected:
    void hoverEnterEvent(QGraphicsSceneHoverEvent *) override
    {
        m_hover = true;
        this->update();
        if (onHover)
            onHover();
    }
    void hoverLeaveEvent(QGraphicsSceneHoverEvent *) override
    {
        m_hover = false;
        this->update();
    }
    bool m_hover = false;
};

/// A word with its UPOS tag underneath; origin at the centre of the word's top edge.
class WordItem : public HoverItem<QGraphicsItem> {
public:
    WordItem(const QString &word, const QString &tag, const QFont &wordFont, const QFont &tagFont, bool boxed);
    QRectF boundingRect() const override { return m_rect; }
    void paint(QPainter *p, const QStyleOptionGraphicsItem *, QWidget *) override;
    double height() const { return m_wordH + 1 + m_tagH; }
    /// Marks the focus word (its outgoing attention is what the arcs show).
    void setHighlighted(bool on);
    /// Widens the (boxed) item, centred, to at least `width`.
    void setMinimumWidth(double width);
    std::function<void()> onClick;

protected:
    void mousePressEvent(QGraphicsSceneMouseEvent *event) override;

private:
    QString m_word, m_tag;
    QFont m_wordFont, m_tagFont;
    bool m_boxed;
    bool m_highlighted = false;
    double m_wordW = 0, m_tagW = 0, m_wordH = 0, m_tagH = 0;
    QRectF m_rect;
};

/// An arc (tree dependency or attention) with an arrowhead; the pen colour is the
/// arc's colour. Hovering widens it and reports its text.
class ArcItem : public HoverItem<QGraphicsPathItem> {
public:
    ArcItem(const QPainterPath &path, const QPolygonF &arrow, const QColor &color, double width,
            Qt::PenStyle style = Qt::SolidLine);
    QRectF boundingRect() const override { return m_bounds; }
    QPainterPath shape() const override { return m_shape; }
    void paint(QPainter *p, const QStyleOptionGraphicsItem *, QWidget *) override;

private:
    QPolygonF m_arrow;
    QPainterPath m_shape;
    QRectF m_bounds;
};

/// The size of a relation label's box (text and padding).
QSizeF labelSize(const QString &text, const QFont &font);
/// An arrowhead: a triangle with its tip at `tip`, pointing along `direction`.
QPolygonF arrowAt(const QPointF &tip, const QPointF &direction);
/// Attention arcs: one hue, the weight as opacity (and width, attentionArcWidth).
QColor attentionArcColor(float weight);
double attentionArcWidth(float weight);
/// Relation mode: arcs are coloured by the gate, so width alone carries the weight.
double relationArcWidth(double weight);
/// A Dependency-Transformer value of the selected layer/head between tokens r and c (-1: unavailable).
double headValue(const std::vector<std::vector<Matrix>> &maps, const ViewState &state, int r, int c);

} // namespace dependency

} // namespace treelens
