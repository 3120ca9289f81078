// The dependency view's scene items and arc styles (see dependencyscene.h) and how
// the view adds its words and tree arcs (with their relation labels) to the scene.
#include "viz/dependencyscene.h"

#include <algorithm>
#include <cmath>

#include <QFontMetricsF>
#include <QGraphicsScene>
#include <QGraphicsSceneHoverEvent>
#include <QGraphicsSceneMouseEvent>
#include <QPainter>
#include <QPainterPathStroker>
#include <QPen>
#include <QStyleOptionGraphicsItem>

namespace treelens {

namespace dependency {

WordItem::WordItem(const QString &word, const QString &tag, const QFont &wordFont, const QFont &tagFont, bool boxed)
    : m_word(word), m_tag(tag), m_wordFont(wordFont), m_tagFont(tagFont), m_boxed(boxed)
{
    const QFontMetricsF wm(wordFont), tm(tagFont);
    m_wordW = wm.horizontalAdvance(word);
    m_tagW = tag.isEmpty() ? 0.0 : tm.horizontalAdvance(tag);
    m_wordH = wm.height();
    m_tagH = tm.height();
    const double w = std::max(m_wordW, m_tagW);
    m_rect = QRectF(-w / 2, 0, w, m_wordH + 1 + m_tagH);
    if (m_boxed)
        m_rect.adjust(-5, -3, 5, 3);
    setAcceptHoverEvents(true);
    setCursor(Qt::PointingHandCursor);
}

void WordItem::paint(QPainter *p, const QStyleOptionGraphicsItem *, QWidget *)
{
    p->setRenderHint(QPainter::Antialiasing);
    p->setRenderHint(QPainter::TextAntialiasing);
    if (m_boxed) {
        p->setPen(QPen(QColor(150, 150, 150), 0.8));
        p->setBrush(m_highlighted ? QColor(255, 236, 170) : m_hover ? QColor(235, 240, 250) : QColor(Qt::white));
        p->drawRoundedRect(m_rect.adjusted(0.5, 0.5, -0.5, -0.5), 4, 4);
    } else if (m_hover || m_highlighted) {
        p->setPen(Qt::NoPen);
        p->setBrush(m_highlighted ? QColor(255, 236, 170) : QColor(235, 240, 250));
        p->drawRoundedRect(m_rect.adjusted(-2, -1, 2, 1), 3, 3);
    }
    p->setPen(Qt::black);
    p->setFont(m_wordFont);
    p->drawText(QRectF(-m_wordW / 2 - 1, 0, m_wordW + 2, m_wordH), Qt::AlignCenter, m_word);
    if (!m_tag.isEmpty()) {
        p->setPen(QColor(90, 90, 90));
        p->setFont(m_tagFont);
        p->drawText(QRectF(-m_tagW / 2 - 1, m_wordH + 1, m_tagW + 2, m_tagH), Qt::AlignCenter, m_tag);
    }
}

void WordItem::setHighlighted(bool on)
{
    m_highlighted = on;
    update();
}

void WordItem::setMinimumWidth(double width)
{
    if (width <= m_rect.width())
        return;
    prepareGeometryChange();
    m_rect.setLeft(-width / 2);
    m_rect.setRight(width / 2);
}

void WordItem::mousePressEvent(QGraphicsSceneMouseEvent *event)
{
    // Accepting the press keeps the view from starting a hand-drag on a word.
    if (event->button() == Qt::LeftButton && onClick) {
        event->accept();
        onClick();
        return;
    }
    QGraphicsItem::mousePressEvent(event);
}

ArcItem::ArcItem(const QPainterPath &path, const QPolygonF &arrow, const QColor &color, double width, Qt::PenStyle style)
    : HoverItem<QGraphicsPathItem>(path), m_arrow(arrow)
{
    QPen pen(color, width, style, Qt::FlatCap, Qt::RoundJoin);
    setPen(pen);
    setBrush(Qt::NoBrush);
    setAcceptHoverEvents(true);
    QPainterPathStroker stroker;
    // Thin arcs are hard to hit: the hover shape is at least 7 pt wide.
    stroker.setWidth(std::max(7.0, width + 3.0));
    m_shape = stroker.createStroke(path);
    m_shape.addPolygon(arrow);
    m_bounds = path.boundingRect().united(arrow.boundingRect()).adjusted(-width * 2, -width * 2, width * 2, width * 2);
}

void ArcItem::paint(QPainter *p, const QStyleOptionGraphicsItem *, QWidget *)
{
    p->setRenderHint(QPainter::Antialiasing);
    QPen pen = this->pen();
    if (m_hover)
        pen.setWidthF(pen.widthF() * 1.8 + 0.5);
    p->setPen(pen);
    p->setBrush(Qt::NoBrush);
    p->drawPath(path());
    if (!m_arrow.isEmpty()) {
        p->setPen(Qt::NoPen);
        p->setBrush(pen.color());
        p->drawPolygon(m_arrow);
    }
}

namespace {

/// Text on a white rounded box, centred on its position (relation labels, "root").
class LabelItem : public QGraphicsItem {
public:
    LabelItem(const QString &text, const QFont &font, const QColor &color = QColor(30, 30, 30), const QColor &fill = Qt::white)
        : m_text(text), m_font(font), m_color(color), m_fill(fill)
    {
        const QFontMetricsF fm(font);
        const double w = fm.horizontalAdvance(text) + 2 * kLabelPadX;
        const double h = fm.height() + 2 * kLabelPadY;
        m_rect = QRectF(-w / 2, -h / 2, w, h);
    }
    QRectF boundingRect() const override { return m_rect; }
    void paint(QPainter *p, const QStyleOptionGraphicsItem *, QWidget *) override
    {
        p->setRenderHint(QPainter::Antialiasing);
        p->setPen(Qt::NoPen);
        p->setBrush(m_fill);
        p->drawRoundedRect(m_rect, 2, 2);
        p->setPen(m_color);
        p->setFont(m_font);
        p->drawText(m_rect, Qt::AlignCenter, m_text);
    }

private:
    QString m_text;
    QFont m_font;
    QColor m_color;
    QColor m_fill;
    QRectF m_rect;
};

} // namespace

QSizeF labelSize(const QString &text, const QFont &font)
{
    const QFontMetricsF fm(font);
    return {fm.horizontalAdvance(text) + 2 * kLabelPadX, fm.height() + 2 * kLabelPadY};
}

QPolygonF arrowAt(const QPointF &tip, const QPointF &direction)
{
    // Triangle with its tip at `tip`, pointing along `direction`.
    const double len = std::hypot(direction.x(), direction.y());
    const QPointF d = len > 0 ? direction / len : QPointF(0, 1);
    const QPointF n(-d.y(), d.x());
    const QPointF base = tip - d * kArrowLength;
    return QPolygonF({tip, base + n * kArrowHalfWidth, base - n * kArrowHalfWidth});
}

QColor attentionArcColor(float weight)
{
    // One hue for attention arcs so they never compete with the viridis-coloured
    // tree arcs; weight is encoded by width and opacity.
    QColor c(35, 70, 150);
    c.setAlphaF(static_cast<float>(std::clamp(0.15 + 0.85 * static_cast<double>(weight), 0.0, 1.0)));
    return c;
}

double attentionArcWidth(float weight) { return 0.6 + 4.0 * std::clamp(static_cast<double>(weight), 0.0, 1.0); }

/// Relation mode: arcs are coloured by the gate, so width alone carries the weight.
double relationArcWidth(double weight) { return 0.8 + 5.0 * std::clamp(weight, 0.0, 1.0); }

/// A Dependency-Transformer value of the selected layer/head between tokens r and c (-1: unavailable).
double headValue(const std::vector<std::vector<Matrix>> &maps, const ViewState &state, int r, int c)
{
    const Matrix *m = headMatrix(maps, state.layer, state.head);
    if (!m || r < 0 || c < 0 || r >= m->rows || c >= m->cols)
        return -1;
    return static_cast<double>(m->at(r, c));
}

} // namespace dependency

using namespace dependency;

void DependencyView::addWordItems(const std::vector<WordInfo> &words, bool boxed)
{
    const QFont wordFont = scaledFont(font(), 10.5);
    const QFont tagFont = scaledFont(font(), 8.5);
    for (std::size_t i = 0; i < words.size(); ++i) {
        auto *item = new WordItem(words[i].text, words[i].tag, wordFont, tagFont, boxed);
        const int index = static_cast<int>(i);
        const QString text = QStringLiteral("word %1: %2%3")
                                 .arg(index + 1)
                                 .arg(words[i].text)
                                 .arg(words[i].tag.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(words[i].tag));
        item->onClick = [this, index] { Q_EMIT wordClicked(index); };
        item->onHover = [this, text] { Q_EMIT hovered(text); };
        item->setData(0, QStringLiteral("word"));
        item->setData(1, index);
        item->setToolTip(text);
        item->setZValue(4);
        item->setHighlighted(index == m_state.focusWord);
        m_scene->addItem(item);
        m_wordItems.push_back(item);
    }
}

void DependencyView::addTreeArc(const Arc &arc, const QPainterPath &path, const QPolygonF &arrow, const QPointF &labelAt)
{
    auto *item = new ArcItem(path, arrow, arc.color, arc.width > 0 ? arc.width : kTreeArcWidth);
    const QString text = arcText(arc.dependent, arc.head);
    item->onHover = [this, text] { Q_EMIT hovered(text); };
    item->setToolTip(text);
    item->setData(0, QStringLiteral("tree-arc"));
    item->setData(1, arc.relation);
    item->setZValue(2);
    m_scene->addItem(item);
    m_treeArcs.push_back({item, {arc.dependent, arc.head}});

    const QString labelText = arc.head < 0 ? QStringLiteral("root") : arc.relation;
    if (!labelText.isEmpty()) {
        const QColor chip = arc.edgeWeight >= 0 ? sequentialColor(arc.edgeWeight) : QColor(Qt::white);
        auto *label = new LabelItem(labelText, scaledFont(font(), 9.0), textOnColor(chip, QColor(30, 30, 30)), chip);
        label->setPos(labelAt);
        label->setToolTip(text);
        label->setData(0, QStringLiteral("relation-label"));
        label->setData(1, labelText);
        // Labels above every arc so crossing (non-projective) arcs never hide text.
        label->setZValue(3);
        m_scene->addItem(label);
    }
}

} // namespace treelens
