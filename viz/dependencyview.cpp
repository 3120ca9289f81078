#include "viz/dependencyview.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <utility>

#include <QFontMetricsF>
#include <QGraphicsPathItem>
#include <QGraphicsScene>
#include <QGraphicsSceneHoverEvent>
#include <QGraphicsSceneMouseEvent>
#include <QKeyEvent>
#include <QLinearGradient>
#include <QPainter>
#include <QPainterPathStroker>
#include <QScrollBar>
#include <QStyleOptionGraphicsItem>
#include <QWheelEvent>

#include "core/data/overlays.h"
#include "viz/graphlayout.h"

namespace treelens {

namespace {

// Geometry in scene units (points). Chosen so 9 pt labels never touch: one arc
// level is a label's height plus a margin.
constexpr double kWordGap = 16.0;      // minimum white space between two word columns
constexpr double kSlotSpacing = 7.0;   // distance between arc endpoints on one word
constexpr double kCorner = 6.0;        // radius of an arc's rounded corners
constexpr double kArrowLength = 7.0;
constexpr double kArrowHalfWidth = 3.5;
constexpr double kLabelPadX = 3.0;
constexpr double kLabelPadY = 1.0;
constexpr double kTreeArcWidth = 1.8;
constexpr double kMargin = 16.0;

QFont scaledFont(const QFont &base, double pointSize, bool bold = false)
{
    QFont f = base;
    f.setPointSizeF(pointSize);
    f.setBold(bold);
    return f;
}

/// A word with its UPOS tag underneath; origin at the centre of the word's top edge.
class WordItem : public QGraphicsItem {
public:
    WordItem(const QString &word, const QString &tag, const QFont &wordFont, const QFont &tagFont, bool boxed)
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
    QRectF boundingRect() const override { return m_rect; }
    void paint(QPainter *p, const QStyleOptionGraphicsItem *, QWidget *) override
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
    double height() const { return m_wordH + 1 + m_tagH; }
    /// Marks the focus word (its outgoing attention is what the arcs show).
    void setHighlighted(bool on)
    {
        m_highlighted = on;
        update();
    }
    /// Widens the (boxed) item, centred, to at least `width`.
    void setMinimumWidth(double width)
    {
        if (width <= m_rect.width())
            return;
        prepareGeometryChange();
        m_rect.setLeft(-width / 2);
        m_rect.setRight(width / 2);
    }
    std::function<void()> onClick;
    std::function<void()> onHover;

protected:
    void mousePressEvent(QGraphicsSceneMouseEvent *event) override
    {
        // Accepting the press keeps the view from starting a hand-drag on a word.
        if (event->button() == Qt::LeftButton && onClick) {
            event->accept();
            onClick();
            return;
        }
        QGraphicsItem::mousePressEvent(event);
    }
    void hoverEnterEvent(QGraphicsSceneHoverEvent *) override
    {
        m_hover = true;
        update();
        if (onHover)
            onHover();
    }
    void hoverLeaveEvent(QGraphicsSceneHoverEvent *) override
    {
        m_hover = false;
        update();
    }

private:
    QString m_word, m_tag;
    QFont m_wordFont, m_tagFont;
    bool m_boxed;
    bool m_hover = false;
    bool m_highlighted = false;
    double m_wordW = 0, m_tagW = 0, m_wordH = 0, m_tagH = 0;
    QRectF m_rect;
};

/// An arc (tree dependency or attention) with an arrowhead; the pen colour is the
/// arc's colour. Hovering widens it and reports its text.
class ArcItem : public QGraphicsPathItem {
public:
    ArcItem(const QPainterPath &path, const QPolygonF &arrow, const QColor &color, double width,
            Qt::PenStyle style = Qt::SolidLine)
        : QGraphicsPathItem(path), m_arrow(arrow)
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
    QRectF boundingRect() const override { return m_bounds; }
    QPainterPath shape() const override { return m_shape; }
    void paint(QPainter *p, const QStyleOptionGraphicsItem *, QWidget *) override
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
    std::function<void()> onHover;

protected:
    void hoverEnterEvent(QGraphicsSceneHoverEvent *) override
    {
        m_hover = true;
        update();
        if (onHover)
            onHover();
    }
    void hoverLeaveEvent(QGraphicsSceneHoverEvent *) override
    {
        m_hover = false;
        update();
    }

private:
    QPolygonF m_arrow;
    QPainterPath m_shape;
    QRectF m_bounds;
    bool m_hover = false;
};

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

} // namespace

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

DependencyView::DependencyView(QWidget *parent) : QGraphicsView(parent)
{
    m_scene = new QGraphicsScene(this);
    m_scene->setBackgroundBrush(Qt::white);
    setScene(m_scene);
    setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing | QPainter::SmoothPixmapTransform);
    setDragMode(QGraphicsView::ScrollHandDrag);
    setTransformationAnchor(QGraphicsView::AnchorUnderMouse);
    setResizeAnchor(QGraphicsView::AnchorViewCenter);
    setAlignment(Qt::AlignLeft | Qt::AlignVCenter);
    setBackgroundBrush(Qt::white);
    rebuild();
}

void DependencyView::setData(const ViewData &data)
{
    m_data = data;
    rebuild();
}

void DependencyView::setState(const ViewState &state)
{
    m_state = state;
    rebuild();
}

void DependencyView::setLayout(Layout layout)
{
    if (layout == m_layout)
        return;
    m_layout = layout;
    rebuild();
}

void DependencyView::setShowAttention(bool show)
{
    if (show == m_showAttention)
        return;
    m_showAttention = show;
    rebuild();
}

std::vector<QGraphicsItem *> DependencyView::wordItems() const { return m_wordItems; }

std::vector<std::pair<QGraphicsItem *, std::pair<int, int>>> DependencyView::treeArcItems() const { return m_treeArcs; }

std::vector<DependencyView::AttentionArc> DependencyView::attentionArcItems() const { return m_attentionArcs; }

QSizeF DependencyView::exportSize() const { return m_scene->sceneRect().size(); }

void DependencyView::renderTo(QPainter *painter, const QRectF &target)
{
    painter->save();
    painter->fillRect(target, Qt::white);
    painter->setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing | QPainter::SmoothPixmapTransform);
    m_scene->render(painter, target, m_scene->sceneRect(), Qt::KeepAspectRatio);
    painter->restore();
}

void DependencyView::wheelEvent(QWheelEvent *event)
{
    if (event->modifiers() & Qt::ControlModifier) {
        const double steps = event->angleDelta().y() / 120.0;
        const double factor = std::pow(1.15, steps);
        const double current = transform().m11();
        // Keep the zoom in a range where text stays legible and the view usable.
        if ((factor > 1 && current < 8.0) || (factor < 1 && current > 0.1))
            scale(factor, factor);
        event->accept();
        return;
    }
    // Dependency arcs are wide and flat: when nothing scrolls vertically, the
    // plain wheel scrolls horizontally so long sentences can be read with it.
    if (verticalScrollBar()->maximum() == 0 && event->angleDelta().x() == 0) {
        QScrollBar *h = horizontalScrollBar();
        h->setValue(h->value() - event->angleDelta().y());
        event->accept();
        return;
    }
    QGraphicsView::wheelEvent(event);
}

void DependencyView::keyPressEvent(QKeyEvent *event)
{
    // The keys zoom about the view's centre (the wheel about the point under the mouse,
    // which may be anywhere while a key is pressed).
    auto centred = [this](const std::function<void()> &zoom) {
        setTransformationAnchor(QGraphicsView::AnchorViewCenter);
        zoom();
        setTransformationAnchor(QGraphicsView::AnchorUnderMouse);
    };
    if (event->key() == Qt::Key_Plus || event->key() == Qt::Key_Equal) {
        centred([this] { scale(1.15, 1.15); });
        return;
    }
    if (event->key() == Qt::Key_Minus) {
        centred([this] { scale(1 / 1.15, 1 / 1.15); });
        return;
    }
    if (event->key() == Qt::Key_0) {
        centred([this] { resetTransform(); });
        return;
    }
    QGraphicsView::keyPressEvent(event);
}

bool DependencyView::relationMode() const
{
    if (!m_showAttention || !m_data.analysis || !m_data.analysis->relations || m_data.analysis->wordToken.empty())
        return false;
    const Analysis &a = *m_data.analysis;
    return selectedAttention(a, m_state) != nullptr && headValue(a.relationGate, m_state, 0, 0) >= 0;
}

double DependencyView::gateOf(int fromToken, int toToken) const
{
    return m_data.analysis ? headValue(m_data.analysis->relationGate, m_state, fromToken, toToken) : -1;
}

int DependencyView::tokenOf(int word) const
{
    const Analysis &a = *m_data.analysis;
    if (word < 0)
        return 0; // the [root] token
    return word < static_cast<int>(a.wordToken.size()) ? a.wordToken[static_cast<std::size_t>(word)] : -1;
}

QString DependencyView::relationPairText(int from, int to) const
{
    // "nsubj" / "1:2, tree distance 3 (1 up, 2 down)" / "[none], tree distance 5 (beyond T)".
    const Analysis &a = *m_data.analysis;
    const TokenRelations &r = *a.relations;
    const int i = tokenOf(from), j = tokenOf(to);
    if (i < 0 || j < 0 || i >= r.n || j >= r.n)
        return QString();
    const auto [up, down] = r.dist(i, j);
    const QString name = QString::fromStdString(r.name(i, j));
    const Matrix *m = selectedAttention(a, m_state);
    QString text = QStringLiteral("relation %1, tree distance %2 (%3 up, %4 down)").arg(name).arg(up + down).arg(up).arg(down);
    text += QStringLiteral("; %1 attention %2, gate %3 (layer %4, head %5)")
                .arg(attentionVariantName(a, m_state))
                .arg(m ? static_cast<double>(m->at(i, j)) : 0.0, 0, 'f', 3)
                .arg(gateOf(i, j), 0, 'f', 3)
                .arg(m_state.layer + 1)
                .arg(m_state.head + 1);
    return text;
}

bool DependencyView::colouredByAttention() const
{
    return m_showAttention && m_data.analysis && selectedAttention(*m_data.analysis, m_state) != nullptr
        && !m_data.analysis->wordToken.empty();
}

bool DependencyView::recursiveMode() const
{
    return m_showAttention && m_data.analysis && overlay::hasComposition(*m_data.analysis) &&
           m_data.analysis->nodeAttention.front().headWord >= 0;
}

int DependencyView::recursiveHeight(int head, const std::vector<int> &heights) const
{
    const auto &nodes = m_data.analysis->nodeAttention;
    for (std::size_t v = 0; v < nodes.size() && v < heights.size(); ++v)
        if (nodes[v].headWord == head)
            return heights[v];
    return 0;
}

QString DependencyView::recursiveBranchName() const
{
    return m_data.analysis->heads > 1 ? QStringLiteral("branch %1").arg(m_state.head + 1) : QStringLiteral("attention over the children");
}

double DependencyView::recursiveWeight(int head, int dependent, const char *array) const
{
    const auto &nodes = m_data.analysis->nodeAttention;
    for (const NodeAttention &na : nodes) {
        if (na.headWord != head)
            continue;
        // targets: the head word itself (-(head + 1), DTT) and the children (a word -(t + 1) or a node id).
        int child = 0;
        for (std::size_t k = 0; k < na.targets.size(); ++k) {
            const int t = na.targets[k];
            const int token = t < 0 ? -1 - t : (t < static_cast<int>(nodes.size()) ? nodes[static_cast<std::size_t>(t)].headWord : -1);
            const bool own = k == 0 && token == head;
            if (token == dependent) {
                const int b = m_state.head;
                if (std::string(array) == "attn")
                    return b >= 0 && b < static_cast<int>(na.weights.size()) && k < na.weights[static_cast<std::size_t>(b)].size()
                               ? static_cast<double>(na.weights[static_cast<std::size_t>(b)][k])
                               : -1;
                // The edge traversal's attention [branch, k, k] over the children: mean over the querying edges.
                const auto it = na.arrays.find(array);
                if (own || it == na.arrays.end() || it->second.shape.size() != 3)
                    return -1;
                const NamedArray &m = it->second;
                const int kk = m.shape[1];
                if (b < 0 || b >= m.shape[0] || child >= kk)
                    return -1;
                double sum = 0;
                for (int r = 0; r < kk; ++r)
                    sum += static_cast<double>(m.data[static_cast<std::size_t>((b * kk + r) * kk + child)]);
                return sum / kk;
            }
            if (!own)
                ++child;
        }
    }
    return -1;
}

QString DependencyView::wordText(int word) const
{
    const auto &tokens = m_data.sentence->tokens;
    if (word < 0 || word >= static_cast<int>(tokens.size()))
        return QStringLiteral("ROOT");
    return QString::fromStdString(tokens[static_cast<std::size_t>(word)].text);
}

QString DependencyView::arcText(int dependent, int head) const
{
    const auto &dep = *m_data.sentence->dependency;
    const QString rel = QString::fromStdString(dep.deprels[static_cast<std::size_t>(dependent)]);
    QString text = head < 0 ? QStringLiteral("%1: %2 (word %3)").arg(rel, wordText(dependent)).arg(dependent + 1)
                            : QStringLiteral("%1: %2 ← %3").arg(rel, wordText(dependent), wordText(head));
    if (relationMode())
        return text + QStringLiteral(" — ") + relationPairText(dependent, head);
    if (head >= 0 && recursiveMode()) {
        text += QStringLiteral(", composition weight %1 (%2)").arg(recursiveWeight(head, dependent, "attn"), 0, 'f', 3).arg(recursiveBranchName());
        const double fwd = recursiveWeight(head, dependent, "edge_fwd.attn"), bwd = recursiveWeight(head, dependent, "edge_bwd.attn");
        if (fwd >= 0)
            text += QStringLiteral("; edge traversal: forward edge %1, backward edge %2").arg(fwd, 0, 'f', 3).arg(bwd, 0, 'f', 3);
        const double own = recursiveWeight(head, head, "attn");
        if (own >= 0)
            text += QStringLiteral("; %1's own word %2").arg(wordText(head)).arg(own, 0, 'f', 3);
        return text;
    }
    if (head >= 0 && colouredByAttention())
        text += QStringLiteral(", attention %1 (layer %2, head %3)")
                    .arg(static_cast<double>(wordAttention(*m_data.analysis, m_state, dependent, head)), 0, 'f', 3)
                    .arg(m_state.layer + 1)
                    .arg(m_state.head + 1);
    return text;
}

void DependencyView::collect(std::vector<WordInfo> &words, std::vector<Arc> &arcs) const
{
    const auto &tokens = m_data.sentence->tokens;
    const int n = static_cast<int>(tokens.size());
    words.assign(static_cast<std::size_t>(n), WordInfo{});
    for (int i = 0; i < n; ++i) {
        const Token &t = tokens[static_cast<std::size_t>(i)];
        words[static_cast<std::size_t>(i)].text = QString::fromStdString(t.text);
        // UPOS first; corpora without it often still have a language-specific tag.
        std::string tag = (!t.upos.empty() && t.upos != "_") ? t.upos : t.xpos;
        if (tag == "_")
            tag.clear();
        words[static_cast<std::size_t>(i)].tag = QString::fromStdString(tag);
    }
    arcs.clear();
    if (!m_data.sentence->dependency)
        return;
    const DependencyTree &tree = *m_data.sentence->dependency;
    const bool coloured = colouredByAttention();
    const bool relation = relationMode();
    const std::vector<int> recHeights = recursiveMode() ? recursiveNodeHeights(m_data.analysis->nodeAttention) : std::vector<int>{};
    const int m = std::min(n, static_cast<int>(tree.heads.size()));
    for (int i = 0; i < m; ++i) {
        const int h = tree.heads[static_cast<std::size_t>(i)];
        // Partial parses (-1) and out-of-range heads have no arc to draw.
        if (h < 0 || h > n || h - 1 == i)
            continue;
        Arc a;
        a.dependent = i;
        a.head = h - 1;
        a.relation = i < static_cast<int>(tree.deprels.size()) ? QString::fromStdString(tree.deprels[static_cast<std::size_t>(i)])
                                                                : QString();
        if (relation) {
            // Width: the selected attention dependent → head ([root] for the root arc); colour: the gate.
            const Matrix *att = selectedAttention(*m_data.analysis, m_state);
            const int ti = tokenOf(i), tj = tokenOf(a.head);
            a.weight = (ti >= 0 && tj >= 0 && ti < att->rows && tj < att->cols) ? static_cast<double>(att->at(ti, tj)) : 0.0;
            a.gate = std::max(0.0, gateOf(ti, tj));
            a.color = sequentialColor(a.gate);
            a.width = relationArcWidth(a.weight);
        } else if (a.head >= 0 && recursiveMode()) {
            // The head's composition: the weight its subtree gave this dependent (selected branch);
            // grey while the composition step has not reached the head's node.
            if (recursivePending(recursiveHeight(a.head, recHeights), m_state.aggregationStep)) {
                a.color = QColor(0xc8, 0xc8, 0xc8);
            } else {
                a.weight = std::max(0.0, recursiveWeight(a.head, i, "attn"));
                a.color = sequentialColor(a.weight);
                a.width = 1.0 + 4.0 * a.weight;
                a.edgeWeight = recursiveWeight(a.head, i, "edge_fwd.attn");
            }
        } else if (a.head >= 0 && coloured) {
            a.weight = wordAttention(*m_data.analysis, m_state, i, a.head);
            a.color = sequentialColor(a.weight);
        } else {
            a.color = QColor(40, 40, 40);
        }
        arcs.push_back(a);
    }
}

std::vector<DependencyView::AttentionArc> DependencyView::attentionPairs(int words) const
{
    std::vector<AttentionArc> out;
    if (!m_showAttention || !m_data.analysis || !selectedAttention(*m_data.analysis, m_state))
        return out;
    const Analysis &a = *m_data.analysis;
    const int n = std::min(words, static_cast<int>(a.wordToken.size()));
    const bool relation = relationMode();
    const DependencyTree *tree = m_data.sentence ? (m_data.sentence->dependency ? &*m_data.sentence->dependency : nullptr) : nullptr;
    auto isTreeArc = [&](int from, int to) {
        return tree && from < static_cast<int>(tree->heads.size()) && tree->heads[static_cast<std::size_t>(from)] == to + 1;
    };
    const bool focus = m_state.focusWord >= 0 && m_state.focusWord < n;
    const bool topK = !focus && n > kAllPairsMaxWords;
    for (int from = focus ? m_state.focusWord : 0; from < (focus ? m_state.focusWord + 1 : n); ++from) {
        std::vector<AttentionArc> row;
        for (int to = 0; to < n; ++to) {
            if (to == from)
                continue; // self-attention has no arc
            if (relation && isTreeArc(from, to))
                continue; // drawn above the words as the tree arc
            const float w = wordAttention(a, m_state, from, to);
            if (static_cast<double>(w) >= m_state.threshold)
                row.push_back({nullptr, from, to, w});
        }
        if (topK && static_cast<int>(row.size()) > kTopPerRow) {
            std::stable_sort(row.begin(), row.end(), [](const AttentionArc &x, const AttentionArc &y) { return x.weight > y.weight; });
            row.resize(static_cast<std::size_t>(kTopPerRow));
        }
        out.insert(out.end(), row.begin(), row.end());
    }
    return out;
}

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

double DependencyView::addLegend(const QPointF &topLeft, bool attentionKey)
{
    const QFont font9 = scaledFont(font(), 9.0);
    const QFont font8 = scaledFont(font(), 8.5);
    const QFontMetricsF fm9(font9), fm8(font8);
    auto addText = [this](const QString &s, const QFont &f, const QPointF &pos) { return addLegendText(s, f, pos); };
    double y = topLeft.y();
    const double x = topLeft.x();
    if (relationMode())
        return addRelationLegend(topLeft, attentionKey);
    if (recursiveMode()) {
        addText(QStringLiteral("Tree arcs: how the head's subtree composes each dependent (attention it receives, mean over the "
                               "querying members), %1; colour and width = weight")
                    .arg(recursiveBranchName()),
                font9, QPointF(x, y));
        y += fm9.height() + 3;
        y += addColourBar(QPointF(x, y), QStringLiteral("weight (0–1)"));
        bool edges = false;
        for (const auto &na : m_data.analysis->nodeAttention)
            edges = edges || na.arrays.count("edge_fwd.attn");
        if (edges) {
            addText(QStringLiteral("Label colour: the edge traversal's forward-edge attention on that arc (same scale); "
                                   "hover an arc for the backward edge"),
                    font8, QPointF(x, y));
            y += fm8.height() + 3;
        }
        return y - topLeft.y();
    }
    const QString kind = (!m_state.weightedAttention && !m_data.analysis->attentionRaw.empty())
        ? QStringLiteral("softmax")
        : QStringLiteral("attention");
    addText(QStringLiteral("Tree arc colour: %1 dependent → head, layer %2 head %3")
                .arg(kind)
                .arg(m_state.layer + 1)
                .arg(m_state.head + 1),
            font9, QPointF(x, y));
    y += fm9.height() + 3;
    // Gradient bar 0..1 sampled from the same colour map the arcs use.
    y += addColourBar(QPointF(x, y), QStringLiteral("weight (0–1)"));
    if (attentionKey) {
        QString caption = QStringLiteral("Arcs below the words: attention query → key, weight ≥ %1").arg(m_state.threshold, 0, 'g', 3);
        if (m_topKApplied)
            caption += QStringLiteral(" (strongest %1 per word)").arg(kTopPerRow);
        else if (m_state.focusWord >= 0)
            caption += QStringLiteral(" (from the focus word only)");
        addText(caption, font9, QPointF(x, y));
        y += fm9.height() + 3;
        double kx = x;
        for (float w : {0.1f, 0.25f, 0.5f, 1.0f}) {
            auto *line = m_scene->addLine(kx, y + 6, kx + 28, y + 6,
                                          QPen(attentionArcColor(w), attentionArcWidth(w), Qt::SolidLine, Qt::FlatCap));
            line->setData(0, QStringLiteral("legend"));
            const QString s = QString::number(static_cast<double>(w), 'g', 2);
            addText(s, font8, QPointF(kx + 32, y + 6 - fm8.height() / 2));
            kx += 32 + fm8.horizontalAdvance(s) + 14;
        }
        y += 14;
    }
    return y - topLeft.y();
}

QGraphicsSimpleTextItem *DependencyView::addLegendText(const QString &text, const QFont &font, const QPointF &pos)
{
    auto *t = m_scene->addSimpleText(text, font);
    t->setBrush(QColor(30, 30, 30));
    t->setPos(pos);
    t->setData(0, QStringLiteral("legend"));
    return t;
}

double DependencyView::addColourBar(const QPointF &topLeft, const QString &unit)
{
    const QFont font8 = scaledFont(font(), 8.5);
    const QFontMetricsF fm8(font8);
    const double x = topLeft.x(), y = topLeft.y(), barW = 180, barH = 10;
    auto addText = [&](const QString &s, const QPointF &pos) { addLegendText(s, font8, pos); };
    auto *bar = m_scene->addRect(QRectF(x, y, barW, barH), QPen(QColor(120, 120, 120), 0.5),
                                 QBrush(sequentialGradient(QPointF(x, 0), QPointF(x + barW, 0))));
    bar->setData(0, QStringLiteral("legend"));
    for (double v : {0.0, 0.25, 0.5, 0.75, 1.0}) {
        const double tx = x + v * barW;
        auto *tick = m_scene->addLine(tx, y + barH, tx, y + barH + 3, QPen(QColor(120, 120, 120), 0.6));
        tick->setData(0, QStringLiteral("legend"));
        const QString s = QString::number(v, 'g', 2);
        addText(s, QPointF(tx - fm8.horizontalAdvance(s) / 2, y + barH + 3));
    }
    addText(unit, QPointF(x + barW + 10, y - 1));
    return barH + 3 + fm8.height() + 6;
}

double DependencyView::addRelationLegend(const QPointF &topLeft, bool attentionKey)
{
    const QFont font9 = scaledFont(font(), 9.0);
    const QFont font8 = scaledFont(font(), 8.5);
    const QFontMetricsF fm9(font9), fm8(font8);
    auto addText = [this](const QString &s, const QFont &f, const QPointF &pos) { return addLegendText(s, f, pos); };
    double y = topLeft.y();
    const double x = topLeft.x();
    addText(QStringLiteral("Colour: the relation gate g of the query word (0: plain score S\u1d49, 1: relation score S\u02b3), "
                           "layer %1 head %2")
                .arg(m_state.layer + 1)
                .arg(m_state.head + 1),
            font9, QPointF(x, y));
    y += fm9.height() + 3;
    y += addColourBar(QPointF(x, y), QStringLiteral("gate g"));
    QString caption = QStringLiteral("Width: %1 attention query \u2192 key; tree arcs above (dependent \u2192 head)")
                          .arg(attentionVariantName(*m_data.analysis, m_state));
    if (attentionKey) {
        caption += QStringLiteral(", other pairs below (weight \u2265 %1").arg(m_state.threshold, 0, 'g', 3);
        if (m_topKApplied)
            caption += QStringLiteral(", strongest %1 per word").arg(kTopPerRow);
        else if (m_state.focusWord >= 0)
            caption += QStringLiteral(", from the focus word only");
        caption += QStringLiteral(")");
    }
    addText(caption, font9, QPointF(x, y));
    y += fm9.height() + 3;
    double kx = x;
    const QColor keyColor = sequentialColor(0.5);
    for (double w : {0.1, 0.25, 0.5, 1.0}) {
        auto *line = m_scene->addLine(kx, y + 6, kx + 28, y + 6, QPen(keyColor, relationArcWidth(w), Qt::SolidLine, Qt::FlatCap));
        line->setData(0, QStringLiteral("legend"));
        const QString s = QString::number(w, 'g', 2);
        addText(s, font8, QPointF(kx + 32, y + 6 - fm8.height() / 2));
        kx += 32 + fm8.horizontalAdvance(s) + 14;
    }
    if (attentionKey) {
        kx += 10;
        auto *solid = m_scene->addLine(kx, y + 6, kx + 28, y + 6, QPen(QColor(90, 90, 90), 1.6, Qt::SolidLine, Qt::FlatCap));
        solid->setData(0, QStringLiteral("legend"));
        const QString s1 = QStringLiteral("tree arc or infilled a:b pair (tree distance \u2264 T)");
        addText(s1, font8, QPointF(kx + 32, y + 6 - fm8.height() / 2));
        kx += 32 + fm8.horizontalAdvance(s1) + 14;
        auto *dashed = m_scene->addLine(kx, y + 6, kx + 28, y + 6, QPen(QColor(90, 90, 90), 1.6, Qt::DashLine, Qt::FlatCap));
        dashed->setData(0, QStringLiteral("legend"));
        addText(QStringLiteral("[none]: farther apart"), font8, QPointF(kx + 32, y + 6 - fm8.height() / 2));
    }
    y += 14;
    return y - topLeft.y();
}

void DependencyView::buildArcs(std::vector<WordInfo> &words, std::vector<Arc> &arcs)
{
    const int n = static_cast<int>(words.size());
    const QFont wordFont = scaledFont(font(), 10.5);
    const QFont tagFont = scaledFont(font(), 8.5);
    const QFont labelFont = scaledFont(font(), 9.0);
    const QFontMetricsF wm(wordFont), tm(tagFont);
    const double labelH = labelSize(QStringLiteral("Xg"), labelFont).height();
    const double levelStep = labelH + 6;

    // Endpoint slots: at each word, arcs going left come first (shortest leftmost),
    // then the root arrow, then arcs going right (longest leftmost). With this
    // order nested arcs never cross at a shared word.
    for (int w = 0; w < n; ++w) {
        std::vector<std::pair<double, int>> order; // (sort key, arc index)
        for (std::size_t k = 0; k < arcs.size(); ++k) {
            const Arc &a = arcs[k];
            if (a.head < 0) {
                if (a.dependent == w)
                    order.push_back({0.0, static_cast<int>(k)});
                continue;
            }
            if (a.head != w && a.dependent != w)
                continue;
            const int other = a.head == w ? a.dependent : a.head;
            // Left: key in (-n, 0), increasing with length; right: key in (0, n), decreasing with length.
            order.push_back({other < w ? -(n - (w - other)) / double(n + 1) - 1.0 : 1.0 + (n - (other - w)) / double(n + 1),
                             static_cast<int>(k)});
        }
        std::sort(order.begin(), order.end());
        auto &info = words[static_cast<std::size_t>(w)];
        for (const auto &o : order)
            info.slots.push_back(o.second);
        const double textW = std::max(wm.horizontalAdvance(info.text), info.tag.isEmpty() ? 0.0 : tm.horizontalAdvance(info.tag));
        info.width = std::max(textW, (static_cast<double>(info.slots.size()) - 1) * kSlotSpacing + 10);
    }

    // Gaps between columns; widened below so every label fits on its arc.
    std::vector<double> gaps(static_cast<std::size_t>(std::max(0, n - 1)), kWordGap);
    auto computeCenters = [&] {
        double x = 0;
        for (int i = 0; i < n; ++i) {
            auto &info = words[static_cast<std::size_t>(i)];
            if (i > 0)
                x += words[static_cast<std::size_t>(i - 1)].width / 2 + gaps[static_cast<std::size_t>(i - 1)] + info.width / 2;
            info.center = x;
        }
    };
    auto slotX = [&](int word, int arcIndex) {
        const auto &info = words[static_cast<std::size_t>(word)];
        const auto it = std::find(info.slots.begin(), info.slots.end(), arcIndex);
        const double k = static_cast<double>(it - info.slots.begin());
        return info.center + (k - (static_cast<double>(info.slots.size()) - 1) / 2) * kSlotSpacing;
    };

    std::vector<int> order(arcs.size());
    for (std::size_t k = 0; k < arcs.size(); ++k)
        order[k] = static_cast<int>(k);
    std::stable_sort(order.begin(), order.end(), [&](int x, int y) {
        const Arc &a = arcs[static_cast<std::size_t>(x)], &b = arcs[static_cast<std::size_t>(y)];
        const int la = a.right() - a.left(), lb = b.right() - b.left();
        return la != lb ? la < lb : a.left() < b.left();
    });

    // Shortest arcs first, so an arc's label constraint sees its inner arcs' final
    // widths; widening only ever lengthens arcs, so one pass suffices.
    computeCenters();
    for (int k : order) {
        const Arc &a = arcs[static_cast<std::size_t>(k)];
        if (a.head < 0)
            continue;
        const double need = labelSize(a.relation, labelFont).width() + 2 * kCorner + 6;
        const double have = std::abs(slotX(a.head, k) - slotX(a.dependent, k));
        if (have < need) {
            const double extra = (need - have) / (a.right() - a.left());
            for (int g = a.left(); g < a.right(); ++g)
                gaps[static_cast<std::size_t>(g)] += extra;
            computeCenters();
        }
    }

    // Levels: above every arc nested inside, and above any arc on the same level
    // whose span overlaps (only crossing, non-projective arcs), so labels never meet.
    int maxLevel = 0;
    std::vector<int> placed;
    for (int k : order) {
        Arc &a = arcs[static_cast<std::size_t>(k)];
        if (a.head < 0)
            continue;
        int level = 1;
        for (int p : placed) {
            const Arc &b = arcs[static_cast<std::size_t>(p)];
            if (b.left() >= a.left() && b.right() <= a.right())
                level = std::max(level, b.level + 1);
        }
        for (bool clash = true; clash;) {
            clash = false;
            for (int p : placed) {
                const Arc &b = arcs[static_cast<std::size_t>(p)];
                if (b.level == level && std::max(a.left(), b.left()) < std::min(a.right(), b.right())) {
                    clash = true;
                    ++level;
                    break;
                }
            }
        }
        a.level = level;
        maxLevel = std::max(maxLevel, level);
        placed.push_back(k);
    }

    addWordItems(words, false);
    for (int i = 0; i < n; ++i)
        m_wordItems[static_cast<std::size_t>(i)]->setPos(words[static_cast<std::size_t>(i)].center, 0);
    const double wordRowH = n > 0 ? static_cast<WordItem *>(m_wordItems.front())->height() : wm.height();

    const double yBase = -3.0;
    const double yRoot = yBase - (maxLevel + 1) * levelStep - 4;
    for (std::size_t k = 0; k < arcs.size(); ++k) {
        const Arc &a = arcs[k];
        const int ki = static_cast<int>(k);
        const double dx = slotX(a.dependent, ki);
        QPainterPath path;
        if (a.head < 0) {
            path.moveTo(dx, yRoot);
            path.lineTo(dx, yBase - kArrowLength + 0.5);
            addTreeArc(a, path, arrowAt(QPointF(dx, yBase), QPointF(0, 1)), QPointF(dx, yRoot));
            continue;
        }
        const double hx = slotX(a.head, ki);
        const double yTop = yBase - kArrowLength - a.level * levelStep + 4;
        const double s = dx > hx ? 1.0 : -1.0;
        const double r = std::min(kCorner, std::abs(dx - hx) / 2);
        path.moveTo(hx, yBase);
        path.lineTo(hx, yTop + r);
        path.quadTo(hx, yTop, hx + s * r, yTop);
        path.lineTo(dx - s * r, yTop);
        path.quadTo(dx, yTop, dx, yTop + r);
        path.lineTo(dx, yBase - kArrowLength + 0.5);
        addTreeArc(a, path, arrowAt(QPointF(dx, yBase), QPointF(0, 1)), QPointF((hx + dx) / 2, yTop));
    }

    // Attention below the words, mirrored: deeper for longer spans (log-scaled so
    // sentence-long arcs stay on screen). Rightward and leftward arcs use
    // different endpoints and depths so i → j and j → i never coincide.
    const bool relation = relationMode();
    std::vector<AttentionArc> pairs = attentionPairs(n);
    m_topKApplied = !(m_state.focusWord >= 0 && m_state.focusWord < n) && n > kAllPairsMaxWords;
    const double y0 = wordRowH + 4;
    // Weak arcs first so strong ones are drawn on top.
    std::stable_sort(pairs.begin(), pairs.end(), [](const AttentionArc &x, const AttentionArc &y) { return x.weight < y.weight; });
    for (AttentionArc &p : pairs) {
        const int span = std::abs(p.to - p.from);
        const bool rightward = p.to > p.from;
        const double off = rightward ? 2.5 : -2.5;
        const double depth = (14 + 24 * std::log2(1.0 + span)) * (rightward ? 1.0 : 0.8);
        const double x1 = words[static_cast<std::size_t>(p.from)].center + off;
        const double x2 = words[static_cast<std::size_t>(p.to)].center + off;
        QPainterPath path;
        path.moveTo(x1, y0);
        path.cubicTo(x1, y0 + depth * 4 / 3, x2, y0 + depth * 4 / 3, x2, y0 + kArrowLength - 0.5);
        ArcItem *item = nullptr;
        QString text;
        if (relation) {
            // Colour = gate, width = attention; dashed: a pair the model sees as [none] (beyond T).
            const int ti = tokenOf(p.from), tj = tokenOf(p.to);
            const TokenRelations &rel = *m_data.analysis->relations;
            const bool none = rel.kind(ti, tj) == TokenRelations::Kind::None;
            QColor c = sequentialColor(std::max(0.0, gateOf(ti, tj)));
            c.setAlphaF(0.85f);
            item = new ArcItem(path, arrowAt(QPointF(x2, y0), QPointF(0, -1)), c, relationArcWidth(p.weight),
                               none ? Qt::DashLine : Qt::SolidLine);
            text = QStringLiteral("%1 → %2: ").arg(wordText(p.from), wordText(p.to)) + relationPairText(p.from, p.to);
        } else {
            item = new ArcItem(path, arrowAt(QPointF(x2, y0), QPointF(0, -1)), attentionArcColor(p.weight), attentionArcWidth(p.weight));
            text = QStringLiteral("attention %1 → %2: %3 (layer %4, head %5)")
                       .arg(wordText(p.from), wordText(p.to))
                       .arg(static_cast<double>(p.weight), 0, 'f', 3)
                       .arg(m_state.layer + 1)
                       .arg(m_state.head + 1);
        }
        item->onHover = [this, text] { Q_EMIT hovered(text); };
        item->setToolTip(text);
        item->setData(0, QStringLiteral("attention-arc"));
        item->setZValue(1);
        m_scene->addItem(item);
        p.item = item;
        m_attentionArcs.push_back(p);
    }
    // Report pairs in row order (from, then to), independent of drawing order.
    std::sort(m_attentionArcs.begin(), m_attentionArcs.end(),
              [](const AttentionArc &x, const AttentionArc &y) { return std::make_pair(x.from, x.to) < std::make_pair(y.from, y.to); });

    if (colouredByAttention() || recursiveMode()) {
        const double top = m_scene->itemsBoundingRect().top();
        const double legendX = n > 0 ? words.front().center - words.front().width / 2 : 0;
        // Lay the legend out once off-scene to learn its height, then place it above.
        const double h = addLegend(QPointF(legendX, 0), true);
        for (QGraphicsItem *item : m_scene->items())
            if (item->data(0).toString() == QLatin1String("legend"))
                item->moveBy(0, top - h - 14);
    }
}

bool DependencyView::buildHierarchical(std::vector<WordInfo> &words, std::vector<Arc> &arcs, QString *error)
{
    const int n = static_cast<int>(words.size());
    const QFont labelFont = scaledFont(font(), 9.0);
    addWordItems(words, true);
    GraphLayoutRequest request;
    // A node is at least as wide as the label of its incoming edge: the label sits
    // just above the node, so siblings then have room for their labels side by side.
    std::vector<QString> incoming(static_cast<std::size_t>(n));
    for (const Arc &a : arcs)
        if (a.head >= 0)
            incoming[static_cast<std::size_t>(a.dependent)] = a.relation;
    for (int i = 0; i < n; ++i) {
        QSizeF size = m_wordItems[static_cast<std::size_t>(i)]->boundingRect().size();
        if (!incoming[static_cast<std::size_t>(i)].isEmpty())
            size.setWidth(std::max(size.width(), labelSize(incoming[static_cast<std::size_t>(i)], labelFont).width() + 8));
        // The drawn box is the node dot lays out, so edges end on its border.
        static_cast<WordItem *>(m_wordItems[static_cast<std::size_t>(i)])->setMinimumWidth(size.width());
        request.nodeSizes.push_back(size);
    }
    // Children in sentence order so dot keeps left dependents left of right ones.
    std::vector<int> edgeArc;
    for (int h = 0; h < n; ++h)
        for (std::size_t k = 0; k < arcs.size(); ++k)
            if (arcs[k].head == h) {
                request.edges.push_back({h, arcs[k].dependent});
                edgeArc.push_back(static_cast<int>(k));
            }
    // Room for a relation label between ranks.
    request.rankSeparation = labelSize(QStringLiteral("Xg"), labelFont).height() * 2 + 14;
    request.nodeSeparation = 14;
    Result<GraphLayoutResult> layout = layoutGraph(request);
    if (!layout.ok()) {
        *error = QString::fromStdString(layout.error().message);
        return false;
    }
    if (layout->centers.size() != static_cast<std::size_t>(n) || layout->edgePaths.size() != request.edges.size()) {
        *error = QStringLiteral("the layout returned a different number of nodes or edges");
        return false;
    }
    for (int i = 0; i < n; ++i) {
        QGraphicsItem *item = m_wordItems[static_cast<std::size_t>(i)];
        const QRectF r = item->boundingRect();
        const QPointF c = layout->centers[static_cast<std::size_t>(i)];
        item->setPos(c.x(), c.y() - r.center().y());
    }
    const double labelH = labelSize(QStringLiteral("Xg"), labelFont).height();
    // Labels on one row that still touch (slanted edges converge) are pushed
    // apart left to right so none overlaps.
    auto separateLabels = [&] {
        std::vector<QGraphicsItem *> labels;
        for (QGraphicsItem *item : m_scene->items())
            if (item->data(0).toString() == QLatin1String("relation-label"))
                labels.push_back(item);
        std::sort(labels.begin(), labels.end(), [](QGraphicsItem *x, QGraphicsItem *y) { return x->x() < y->x(); });
        for (std::size_t i = 1; i < labels.size(); ++i) {
            // Moving right can only create clashes with labels further right, which
            // are handled when their turn comes.
            for (bool moved = true; moved;) {
                moved = false;
                for (std::size_t j = 0; j < i; ++j) {
                    const QRectF pr = labels[j]->sceneBoundingRect(), cr = labels[i]->sceneBoundingRect();
                    if (pr.intersects(cr)) {
                        labels[i]->moveBy(pr.right() + 2 - cr.left(), 0);
                        moved = true;
                    }
                }
            }
        }
    };
    for (std::size_t e = 0; e < request.edges.size(); ++e) {
        const Arc &a = arcs[static_cast<std::size_t>(edgeArc[e])];
        QPainterPath path = layout->edgePaths[e];
        const QRectF target = m_wordItems[static_cast<std::size_t>(a.dependent)]->sceneBoundingRect();
        QPointF end = path.elementCount() > 0 ? path.currentPosition() : target.center();
        // dot's splines end on the node or short of it; the arrow ends at the box top.
        QPointF dir = end - path.pointAtPercent(0.92);
        if (path.isEmpty()) {
            const QRectF from = m_wordItems[static_cast<std::size_t>(a.head)]->sceneBoundingRect();
            path.moveTo(from.center().x(), from.bottom());
            path.lineTo(target.center().x(), target.top() - kArrowLength);
            end = QPointF(target.center().x(), target.top());
            dir = QPointF(0, 1);
        }
        const QPolygonF arrow = arrowAt(end, dir);
        // The label rides on the edge just above the arrowhead, where siblings'
        // edges are as far apart as their (label-wide) nodes.
        const double labelY = target.top() - kArrowLength - labelH / 2 - 3;
        QPointF at = path.pointAtPercent(0.5);
        for (int step = 100; step >= 0; --step) {
            const QPointF p = path.pointAtPercent(step / 100.0);
            if (p.y() <= labelY) {
                at = p;
                break;
            }
        }
        addTreeArc(a, path, arrow, at);
    }
    separateLabels();
    for (const Arc &a : arcs) {
        if (a.head >= 0)
            continue;
        const QRectF r = m_wordItems[static_cast<std::size_t>(a.dependent)]->sceneBoundingRect();
        QPainterPath path;
        const double x = r.center().x();
        path.moveTo(x, r.top() - 30);
        path.lineTo(x, r.top() - kArrowLength + 0.5);
        addTreeArc(a, path, arrowAt(QPointF(x, r.top()), QPointF(0, 1)), QPointF(x, r.top() - 30));
    }
    if (colouredByAttention() || recursiveMode()) {
        const QRectF b = m_scene->itemsBoundingRect();
        const double h = addLegend(QPointF(b.left(), 0), false);
        for (QGraphicsItem *item : m_scene->items())
            if (item->data(0).toString() == QLatin1String("legend"))
                item->moveBy(0, b.top() - h - 14);
    }
    return true;
}

void DependencyView::rebuild()
{
    m_scene->clear();
    m_wordItems.clear();
    m_treeArcs.clear();
    m_attentionArcs.clear();
    m_topKApplied = false;
    m_notes.clear();

    if (!m_data.sentence || m_data.sentence->tokens.empty()) {
        auto *t = m_scene->addSimpleText(tr("No sentence"), scaledFont(font(), 10.0));
        t->setBrush(QColor(110, 110, 110));
        m_scene->setSceneRect(m_scene->itemsBoundingRect().adjusted(-kMargin, -kMargin, kMargin, kMargin));
        return;
    }

    std::vector<WordInfo> words;
    std::vector<Arc> arcs;
    collect(words, arcs);

    QString note;
    if (!m_data.sentence->dependency)
        note = tr("No dependency tree for this sentence.");
    bool done = false;
    if (m_layout == Layout::Hierarchical && !arcs.empty()) {
        QString error;
        done = buildHierarchical(words, arcs, &error);
        if (!done) {
            // Show the arcs instead of nothing, and say why.
            m_scene->clear();
            m_wordItems.clear();
            m_treeArcs.clear();
            note = tr("Hierarchical layout unavailable (%1); showing arcs.").arg(error);
        }
    }
    if (!done) {
        for (auto &w : words)
            w.slots.clear();
        buildArcs(words, arcs);
    }
    if (!note.isEmpty()) {
        const QRectF b = m_scene->itemsBoundingRect();
        auto *t = m_scene->addSimpleText(note, scaledFont(font(), 9.0));
        t->setBrush(QColor(150, 40, 40));
        t->setPos(b.left(), b.top() - t->boundingRect().height() - 8);
    }
    // What the figure cannot show, above everything: where the tree came from, unknown words.
    m_notes = QStringList{treeSourceNote(*m_data.sentence, TreeKind::Dependency), unknownWordsNote(m_data.analysis.get())};
    m_notes.removeAll(QString());
    // Wrapped to the figure's width: a long note would otherwise set it, and a short
    // sentence would be drawn small in a wide figure.
    const QFont noteFont = scaledFont(font(), 9.0);
    const double noteWidth = std::max(360.0, m_scene->itemsBoundingRect().width());
    for (auto it = m_notes.crbegin(); it != m_notes.crend(); ++it) {
        const QStringList lines = wrapToWidth(*it, noteFont, noteWidth);
        for (int k = static_cast<int>(lines.size()) - 1; k >= 0; --k) {
            const QRectF b = m_scene->itemsBoundingRect();
            auto *t = m_scene->addSimpleText(lines[k], noteFont);
            t->setBrush(noteColor());
            t->setData(0, QStringLiteral("note"));
            const bool firstDrawn = it == m_notes.crbegin() && k == static_cast<int>(lines.size()) - 1;
            t->setPos(b.left(), b.top() - t->boundingRect().height() - (firstDrawn ? 10 : 1));
        }
    }
    m_scene->setSceneRect(m_scene->itemsBoundingRect().adjusted(-kMargin, -kMargin, kMargin, kMargin));
}

} // namespace treelens
