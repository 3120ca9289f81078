// The dependency tree view as a widget (see dependencyview.h): its data and state,
// the scene assembled from the parts (dependencylayout.cpp lays the tree out,
// dependencypaint.cpp draws words and arcs, dependencyoverlays.cpp adds what the
// overlays show and their legends) with the notes above it, zoom and export.
#include "viz/dependencyview.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include <QGraphicsScene>
#include <QGraphicsSimpleTextItem>
#include <QKeyEvent>
#include <QPainter>
#include <QScrollBar>
#include <QWheelEvent>

#include "viz/dependencyscene.h"
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
    // The lines go above everything, the last first: the scene's bounds are read once,
    // and each line placed raises their top (as the scene's bounds would).
    const QFont noteFont = scaledFont(font(), 9.0);
    const QRectF drawn = m_scene->itemsBoundingRect();
    const double noteWidth = std::max(360.0, drawn.width());
    double top = drawn.top();
    for (auto it = m_notes.crbegin(); it != m_notes.crend(); ++it) {
        const QStringList lines = wrapToWidth(*it, noteFont, noteWidth);
        for (int k = static_cast<int>(lines.size()) - 1; k >= 0; --k) {
            auto *t = m_scene->addSimpleText(lines[k], noteFont);
            t->setBrush(noteColor());
            t->setData(0, QStringLiteral("note"));
            const bool firstDrawn = it == m_notes.crbegin() && k == static_cast<int>(lines.size()) - 1;
            t->setPos(drawn.left(), top - t->boundingRect().height() - (firstDrawn ? 10 : 1));
            top = std::min(top, t->sceneBoundingRect().top());
        }
    }
    m_scene->setSceneRect(m_scene->itemsBoundingRect().adjusted(-kMargin, -kMargin, kMargin, kMargin));
}

} // namespace treelens
