// The dependency tree view as a widget (see dependencyview.h): its data and state,
// the scene assembled from the parts (dependencylayout.cpp lays the tree out,
// dependencypaint.cpp draws words and arcs, dependencyoverlays.cpp adds what the
// overlays show and their legends) with the notes above it, zoom and export.
#include "viz/dependencyview.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include <QContextMenuEvent>
#include <QGraphicsLineItem>
#include <QGraphicsScene>
#include <QGraphicsSimpleTextItem>
#include <QKeyEvent>
#include <QMenu>
#include <QMouseEvent>
#include <QRegularExpression>
#include <QPainter>
#include <QScrollBar>
#include <QWheelEvent>

#include "core/data/overlays.h"
#include "viz/dependencyscene.h"
#include "viz/patternmarks.h"
#include "viz/viewzoom.h"

namespace treelens {

using namespace dependency;

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

void DependencyView::setShowSurprisal(bool show)
{
    if (show == m_showSurprisal)
        return;
    m_showSurprisal = show;
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
    if (event->key() == Qt::Key_Plus || event->key() == Qt::Key_Equal) {
        zoomAbout(*this, ZoomAnchor::ViewCentre, [this] { scale(1.15, 1.15); });
        return;
    }
    if (event->key() == Qt::Key_Minus) {
        zoomAbout(*this, ZoomAnchor::ViewCentre, [this] { scale(1 / 1.15, 1 / 1.15); });
        return;
    }
    if (event->key() == Qt::Key_0) {
        zoomAbout(*this, ZoomAnchor::ViewCentre, [this] { resetTransform(); });
        return;
    }
    QGraphicsView::keyPressEvent(event);
}

void DependencyView::setEditable(bool editable)
{
    m_editable = editable;
}

int DependencyView::wordAt(const QPoint &viewPos) const
{
    for (QGraphicsItem *item : items(viewPos))
        for (QGraphicsItem *it = item; it; it = it->parentItem()) {
            const auto found = std::find(m_wordItems.begin(), m_wordItems.end(), it);
            if (found != m_wordItems.end())
                return static_cast<int>(found - m_wordItems.begin());
        }
    return -1;
}

QStringList DependencyView::relationLabels() const
{
    QStringList labels;
    // A relation-aware model's own arc labels (not its distance relations a:b or [specials]).
    if (m_data.analysis && m_data.analysis->relations) {
        static const QRegularExpression distance(QStringLiteral("^\\d+:\\d+$"));
        for (const std::string &name : m_data.analysis->relations->names) {
            const QString n = QString::fromStdString(name);
            if (!n.isEmpty() && !n.startsWith(QLatin1Char('[')) && !distance.match(n).hasMatch() && n != QLatin1String("root"))
                labels << n;
        }
    }
    if (labels.isEmpty()) {
        // The UD v2 universal relations, and the subtypes the sentence uses.
        labels = QStringList{QStringLiteral("acl"),        QStringLiteral("advcl"),    QStringLiteral("advmod"),
                             QStringLiteral("amod"),       QStringLiteral("appos"),    QStringLiteral("aux"),
                             QStringLiteral("case"),       QStringLiteral("cc"),       QStringLiteral("ccomp"),
                             QStringLiteral("clf"),        QStringLiteral("compound"), QStringLiteral("conj"),
                             QStringLiteral("cop"),        QStringLiteral("csubj"),    QStringLiteral("dep"),
                             QStringLiteral("det"),        QStringLiteral("discourse"), QStringLiteral("dislocated"),
                             QStringLiteral("expl"),       QStringLiteral("fixed"),    QStringLiteral("flat"),
                             QStringLiteral("goeswith"),   QStringLiteral("iobj"),     QStringLiteral("list"),
                             QStringLiteral("mark"),       QStringLiteral("nmod"),     QStringLiteral("nsubj"),
                             QStringLiteral("nummod"),     QStringLiteral("obj"),      QStringLiteral("obl"),
                             QStringLiteral("orphan"),     QStringLiteral("parataxis"), QStringLiteral("punct"),
                             QStringLiteral("reparandum"), QStringLiteral("vocative"), QStringLiteral("xcomp")};
        if (m_data.sentence && m_data.sentence->dependency)
            for (const std::string &r : m_data.sentence->dependency->deprels)
                if (r != "root" && !labels.contains(QString::fromStdString(r)))
                    labels << QString::fromStdString(r);
        labels.sort();
    }
    labels.removeDuplicates();
    return labels;
}

QMenu *DependencyView::editMenu(int word, QWidget *parent)
{
    if (!m_editable || !m_data.sentence || !m_data.sentence->dependency || word < 0 ||
        word >= static_cast<int>(m_data.sentence->dependency->size()))
        return nullptr;
    const DependencyTree &tree = *m_data.sentence->dependency;
    const auto words = m_data.sentence->words();
    auto name = [&words](int w) { return QString::fromStdString(words[static_cast<std::size_t>(w)]); };
    const int w = word + 1;
    auto *menu = new QMenu(parent);
    auto ask = [this](const QString &edit) { Q_EMIT treeEditRequested(edit); };
    QAction *root = menu->addAction(tr("Make \u201c%1\u201d the &root").arg(name(word)));
    root->setEnabled(tree.heads[static_cast<std::size_t>(word)] != 0);
    connect(root, &QAction::triggered, this, [ask, w] { ask(QStringLiteral("head %1=0").arg(w)); });
    QMenu *attach = menu->addMenu(tr("&Attach \u201c%1\u201d to").arg(name(word)));
    for (int h = 0; h < static_cast<int>(words.size()); ++h) {
        if (h == word)
            continue;
        QAction *a = attach->addAction(QStringLiteral("%1 %2").arg(h + 1).arg(name(h)));
        a->setCheckable(true);
        a->setChecked(tree.heads[static_cast<std::size_t>(word)] == h + 1);
        connect(a, &QAction::triggered, this, [ask, w, h] { ask(QStringLiteral("head %1=%2").arg(w).arg(h + 1)); });
    }
    QMenu *relation = menu->addMenu(tr("Re&lation of \u201c%1\u201d").arg(name(word)));
    relation->setEnabled(tree.heads[static_cast<std::size_t>(word)] != 0);
    const QString current = QString::fromStdString(tree.deprels[static_cast<std::size_t>(word)]);
    for (const QString &label : relationLabels()) {
        QAction *a = relation->addAction(label);
        a->setCheckable(true);
        a->setChecked(label == current);
        connect(a, &QAction::triggered, this, [ask, w, label] { ask(QStringLiteral("label %1=%2").arg(w).arg(label)); });
    }
    return menu;
}

void DependencyView::mousePressEvent(QMouseEvent *event)
{
    // Editing: a press on a word starts dragging it onto its new head (no hand-drag).
    if (m_editable && event->button() == Qt::LeftButton) {
        const int w = wordAt(event->pos());
        if (w >= 0) {
            m_dragFrom = w;
            m_pressPos = event->pos();
            event->accept();
            return;
        }
    }
    QGraphicsView::mousePressEvent(event);
}

void DependencyView::mouseMoveEvent(QMouseEvent *event)
{
    if (m_dragFrom >= 0) {
        if ((event->pos() - m_pressPos).manhattanLength() >= 5) {
            const QRectF from = m_wordItems[static_cast<std::size_t>(m_dragFrom)]->sceneBoundingRect();
            const QLineF line(QPointF(from.center().x(), from.top()), mapToScene(event->pos()));
            if (!m_dragLine) {
                m_dragLine = m_scene->addLine(line, QPen(QColor(0xd9, 0x5f, 0x02), 2.0, Qt::DashLine));
                m_dragLine->setZValue(100);
            } else {
                m_dragLine->setLine(line);
            }
            const int over = wordAt(event->pos());
            Q_EMIT hovered(over >= 0 && over != m_dragFrom ? tr("Drop to make word %1 the head of word %2").arg(over + 1).arg(m_dragFrom + 1)
                                                           : tr("Drop on another word to make it the head"));
        }
        event->accept();
        return;
    }
    QGraphicsView::mouseMoveEvent(event);
}

void DependencyView::mouseReleaseEvent(QMouseEvent *event)
{
    if (m_dragFrom >= 0 && event->button() == Qt::LeftButton) {
        const int from = m_dragFrom;
        const bool dragged = (event->pos() - m_pressPos).manhattanLength() >= 5;
        m_dragFrom = -1;
        if (m_dragLine) {
            m_scene->removeItem(m_dragLine);
            delete m_dragLine;
            m_dragLine = nullptr;
        }
        const int to = wordAt(event->pos());
        event->accept();
        if (!dragged && to == from)
            Q_EMIT wordClicked(from); // a click, as without editing
        else if (dragged && to >= 0 && to != from)
            Q_EMIT treeEditRequested(QStringLiteral("head %1=%2").arg(from + 1).arg(to + 1));
        return;
    }
    QGraphicsView::mouseReleaseEvent(event);
}

void DependencyView::contextMenuEvent(QContextMenuEvent *event)
{
    // The menu key: the focus word's menu.
    const int w = event->reason() == QContextMenuEvent::Keyboard ? m_state.focusWord : wordAt(event->pos());
    std::unique_ptr<QMenu> menu(editMenu(w, this));
    if (!menu) {
        QGraphicsView::contextMenuEvent(event);
        return;
    }
    menu->exec(event->globalPos());
}

void DependencyView::rebuild()
{
    m_dragLine = nullptr; // the scene's items go
    m_scene->clear();
    m_wordItems.clear();
    m_treeArcs.clear();
    m_attentionArcs.clear();
    m_topKApplied = false;
    m_notes.clear();
    m_attributionBands.clear();
    m_surprisalBands.clear();
    m_patternMarks.clear();

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
    m_notes = QStringList{ablationBadge(m_data.analysis.get()), treeSourceNote(*m_data.sentence, TreeKind::Dependency),
                          unknownWordsNote(m_data.analysis.get())};
    addPatternMarks();
    if (!m_patternMarks.empty())
        m_notes << patternMarksNote(*m_data.marks);
    m_notes.removeAll(QString());
    addWordBands(); // surprisal and attributions under the words, with their notes
    // Wrapped to the figure's width: a long note would otherwise set it, and a short
    // sentence would be drawn small in a wide figure.
    // The lines go above everything, the last first: the scene's bounds are read once,
    // and each line placed raises their top (as the scene's bounds would).
    const QFont noteFont = scaledFont(font(), 9.0);
    const QRectF drawn = m_scene->itemsBoundingRect();
    const double noteWidth = std::max(360.0, drawn.width());
    double top = drawn.top();
    const QString badge = ablationBadge(m_data.analysis.get());
    for (auto it = m_notes.crbegin(); it != m_notes.crend(); ++it) {
        const QStringList lines = wrapToWidth(*it, noteFont, noteWidth);
        for (int k = static_cast<int>(lines.size()) - 1; k >= 0; --k) {
            auto *t = m_scene->addSimpleText(lines[k], noteFont);
            t->setBrush(!badge.isEmpty() && *it == badge ? ablationColor() : noteColor());
            t->setData(0, QStringLiteral("note"));
            const bool firstDrawn = it == m_notes.crbegin() && k == static_cast<int>(lines.size()) - 1;
            t->setPos(drawn.left(), top - t->boundingRect().height() - (firstDrawn ? 10 : 1));
            top = std::min(top, t->sceneBoundingRect().top());
        }
    }
    m_scene->setSceneRect(m_scene->itemsBoundingRect().adjusted(-kMargin, -kMargin, kMargin, kMargin));
}

void DependencyView::addPatternMarks()
{
    if (!m_data.marks || !m_data.sentence || !m_data.marks->fits(*m_data.sentence))
        return;
    const int n = static_cast<int>(m_wordItems.size());
    for (const PatternMarkGroup &g : groupPatternMarks(*m_data.marks)) {
        if (g.first < 0 || g.last >= n || g.first > g.last)
            continue;
        QRectF rect;
        for (int w = g.first; w <= g.last; ++w)
            rect = rect.united(m_wordItems[static_cast<std::size_t>(w)]->sceneBoundingRect());
        // A constituent's outline a little outside those of the words and constituents in it.
        const double pad = 2.0 + 2.5 * g.inner;
        m_patternMarks.push_back(addPatternMark(m_scene, rect.adjusted(-pad, -pad, pad, pad), g, 3.5 - 0.01 * g.inner));
    }
}

} // namespace treelens
