// The constituency tree view as a widget (see constituencyview.h): its data, state
// and modes, the scene assembled from the parts (constituencylayout.cpp lays the trees
// out, constituencypaint.cpp draws them, constituencyoverlays.cpp computes what the
// overlays show and draws the notes and legends), zoom, hover, clicks and export.
#include "viz/constituencyview.h"

#include <algorithm>
#include <cmath>
#include <memory>

#include <QContextMenuEvent>
#include <QGraphicsScene>
#include <QGraphicsSimpleTextItem>
#include <QInputDialog>
#include <QKeyEvent>
#include <QLineEdit>
#include <QMenu>
#include <QMouseEvent>
#include <QPainter>
#include <QScrollBar>
#include <QWheelEvent>

#include "core/data/induction.h"
#include "core/data/treeedit.h"
#include "viz/constituencystyle.h"
#include "viz/viewzoom.h"

namespace treelens {

using namespace constituency;

ConstituencyView::ConstituencyView(QWidget *parent) : QGraphicsView(parent)
{
    setScene(new QGraphicsScene(this));
    setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing | QPainter::SmoothPixmapTransform);
    setBackgroundBrush(Qt::white);
    setDragMode(QGraphicsView::ScrollHandDrag);
    setTransformationAnchor(QGraphicsView::AnchorUnderMouse);
    setAlignment(Qt::AlignCenter);
    viewport()->setMouseTracking(true);
    setFocusPolicy(Qt::StrongFocus);
    applyZoom();
    rebuild();
}

ConstituencyView::~ConstituencyView()
{
    // Jobs still waiting for Graphviz give up; one already in dot finishes and its
    // result is dropped (this object is its context).
    cancelLayoutJobs();
}

void ConstituencyView::setData(const ViewData &data)
{
    m_data = data;
    cancelLayoutJobs(); // another sentence: older layouts are skipped or dropped
    m_graphs.clear();
    m_builtInduced.reset();
    m_words.clear();
    if (m_data.sentence)
        for (const auto &w : m_data.sentence->words())
            m_words.push_back(QString::fromStdString(w));
    else if (m_data.analysis)
        for (const auto &w : m_data.analysis->words)
            m_words.push_back(QString::fromStdString(w));
    // Older analyses may carry only the brackets: rebuild the tree over the words.
    const Analysis *a = m_data.analysis.get();
    if (a && !a->inducedTree && !a->inducedBrackets.empty()) {
        std::vector<std::string> words;
        for (const QString &w : m_words)
            words.push_back(w.toStdString());
        if (!words.empty())
            m_builtInduced = bracketsToTree(words, a->inducedBrackets);
    }
    m_tat.reset();
    if (a)
        m_tat = aggregationNodesOf(*a); // nothing for an analysis without aggregation nodes
    if (m_tat)
        m_tat->scheduleMaxLevel = std::max(m_tat->maxLevel, m_aggregationDepth);
    if (!m_tat || m_selectedTat >= static_cast<int>(m_tat->nodes.size()))
        m_selectedTat = -1;
    rebuild();
    fitToViewport();
}

void ConstituencyView::fitToViewport()
{
    // A new sentence is shown whole when it fits at a readable size (down to 45%
    // of print size); larger trees start at that size, scrolled to the top left. A
    // small tree is enlarged up to 1.6 times print size to use the pane (at print size
    // a 7-word tree filled a quarter of it), centred by the view's alignment.
    const QSize vp = viewport()->size();
    const QRectF sr = scene()->sceneRect();
    if (vp.isEmpty() || sr.isEmpty())
        return;
    const double base = logicalDpiX() / 72.0;
    const double fit = std::min(vp.width() / (sr.width() * base), vp.height() / (sr.height() * base));
    m_zoom = std::clamp(fit, 0.45, 1.6);
    applyZoom();
    horizontalScrollBar()->setValue(horizontalScrollBar()->minimum());
    verticalScrollBar()->setValue(verticalScrollBar()->minimum());
}

void ConstituencyView::setState(const ViewState &state)
{
    const bool changed = state.layer != m_state.layer || state.head != m_state.head ||
                         state.weightedAttention != m_state.weightedAttention || state.focusWord != m_state.focusWord ||
                         state.aggregationStep != m_state.aggregationStep;
    m_state = state;
    // The threshold does not affect this view; avoid rebuilding for it.
    if (changed)
        rebuild();
}

void ConstituencyView::setMode(Mode mode)
{
    if (mode == m_mode)
        return;
    m_mode = mode;
    rebuild();
}

void ConstituencyView::setShowSurprisal(bool show)
{
    if (show == m_showSurprisal)
        return;
    m_showSurprisal = show;
    rebuild();
}

void ConstituencyView::setOverlay(Overlay overlay)
{
    if (overlay == m_overlay)
        return;
    m_overlay = overlay;
    rebuild();
}

std::vector<QGraphicsItem *> ConstituencyView::leafItems() const
{
    std::vector<QGraphicsItem *> out;
    for (auto *w : m_primary.words)
        if (w)
            out.push_back(w);
    return out;
}

std::vector<std::pair<QGraphicsItem *, std::pair<int, int>>> ConstituencyView::phraseItems() const
{
    return m_primary.phrases;
}

std::vector<std::pair<int, int>> ConstituencyView::sharedSpans() const { return m_shared; }
std::vector<std::pair<int, int>> ConstituencyView::missingSpans() const { return m_missing; }
std::vector<std::pair<int, int>> ConstituencyView::extraSpans() const { return m_extra; }

const ConstituencyTree *ConstituencyView::parserTree() const
{
    if (!m_data.sentence || !m_data.sentence->constituency || m_data.sentence->constituency->empty())
        return nullptr;
    return &*m_data.sentence->constituency;
}

const ConstituencyTree *ConstituencyView::inducedTree() const
{
    if (m_data.analysis && m_data.analysis->inducedTree && !m_data.analysis->inducedTree->empty())
        return &*m_data.analysis->inducedTree;
    if (m_builtInduced && !m_builtInduced->empty())
        return &*m_builtInduced;
    return nullptr;
}

void ConstituencyView::rebuild()
{
    QGraphicsScene *s = scene();
    s->clear();
    m_primary = DrawnTree{};
    m_surprisalBands.clear();
    clearComparison(); // only Compare mode recomputes it (classifySpans)
    m_notes.clear();
    m_lastHover.clear();
    m_tatPhases.clear();

    const ConstituencyTree *parser = parserTree();
    const ConstituencyTree *induced = m_data.analysis ? inducedTree() : nullptr;

    // Which trees to draw; Compare and SideBySide degrade to what is there.
    const ConstituencyTree *first = nullptr;
    const ConstituencyTree *second = nullptr;
    bool firstInduced = false;
    bool compare = false;
    switch (m_mode) {
    case Mode::Parser:
        first = parser;
        break;
    case Mode::Induced:
        first = induced;
        firstInduced = true;
        break;
    case Mode::SideBySide:
        first = parser ? parser : induced;
        firstInduced = !parser;
        second = parser ? induced : nullptr;
        break;
    case Mode::Compare:
        first = parser;
        classifySpans();
        compare = !m_shared.empty() || !m_missing.empty() || !m_extra.empty();
        break;
    }
    // No parser tree (e.g. the parser gave up on a very long sentence): the
    // induced tree is still worth showing, with a note saying why.
    bool fellBack = false;
    if (!first && !parser && induced && m_mode != Mode::Induced) {
        first = induced;
        firstInduced = true;
        compare = false;
        fellBack = true;
    }

    auto message = [&](const QString &text) {
        auto *t = addText(s, text, titleFont(), kPos, QPointF(0, 0));
        s->setSceneRect(t->sceneBoundingRect().adjusted(-kMargin, -kMargin, kMargin, kMargin));
    };
    if (!first) {
        QString text;
        if (!m_data.sentence)
            text = QStringLiteral("No sentence");
        else if (m_mode == Mode::Induced)
            text = !m_data.analysis ? QStringLiteral("No analysis: run a model to see its induced tree")
                   : m_data.analysis->constituentPrior.empty()
                       ? QStringLiteral("No induced tree: this model has no constituent prior (a plain Transformer)")
                       : QStringLiteral("The model induced no tree for this sentence");
        else
            text = QStringLiteral("No constituency tree for this sentence");
        message(text);
        return;
    }

    // The notes wrap to the widest tree drawn (at least a legend's width).
    double noteWidth = 420.0;
    for (const ConstituencyTree *t : {first, second})
        if (t) {
            const TreeGraph &g = graphFor(*t, t == first ? firstInduced : true);
            if (!g.pending && g.error.isEmpty())
                noteWidth = std::max(noteWidth, g.layout.bounds.width());
        }
    double y = drawNotes(0.0, noteWidth);
    const QRectF legends = drawLegends(QPointF(0.0, y), noteWidth);
    if (!legends.isEmpty())
        y = legends.bottom() + 18.0;

    auto place = [&](const ConstituencyTree *tree, bool isInduced, const QString &title, bool primary) {
        if (!title.isEmpty()) {
            auto *t = addText(s, title, titleFont(), kInk, QPointF(0.0, y));
            y = t->sceneBoundingRect().bottom() + 8.0;
        }
        const TreeGraph &graph = graphFor(*tree, isInduced);
        if (graph.pending) {
            auto *t = addText(s, QStringLiteral("Laying out the tree (%1 words)…").arg(tree->wordCount()), legendFont(),
                              kPos, QPointF(0.0, y));
            y = t->sceneBoundingRect().bottom() + 12.0;
            return;
        }
        if (!graph.error.isEmpty()) {
            auto *t = addText(s, QStringLiteral("Tree layout failed: %1").arg(graph.error), legendFont(), kMissing,
                              QPointF(0.0, y));
            y = t->sceneBoundingRect().bottom() + 12.0;
            return;
        }
        DrawnTree drawn = drawTree(graph, QPointF(0.0, y), compare && primary);
        if (primary && !isInduced)
            drawPatternMarks(graph, drawn);
        y = primary ? drawSurprisalBand(drawn, drawn.rect.bottom()) : drawn.rect.bottom();
        if (compare && primary) {
            drawExtraBrackets(drawn, y);
            y = s->itemsBoundingRect().bottom();
        }
        if (primary)
            y = drawSurprisalKey(drawn, y); // under the red brackets, which belong to the words
        y += 24.0;
        if (primary)
            m_primary = std::move(drawn);
    };

    if (second) {
        place(first, firstInduced, QStringLiteral("Parser tree"), true);
        place(second, true, QStringLiteral("Induced tree (model)"), false);
    } else {
        place(first, firstInduced,
              fellBack ? QStringLiteral("Induced tree (model) — the sentence has no parser tree")
                       : m_mode == Mode::Induced ? QStringLiteral("Induced tree (model)") : QString(),
              true);
    }
    s->setSceneRect(s->itemsBoundingRect().adjusted(-kMargin, -kMargin, kMargin, kMargin));
}

QSizeF ConstituencyView::exportSize() const
{
    // An export never shows "laying out": finish the layout here (the scene is
    // the view's state, not its logical value).
    const_cast<ConstituencyView *>(this)->finishPendingLayouts();
    return scene()->sceneRect().size();
}

void ConstituencyView::renderTo(QPainter *painter, const QRectF &target)
{
    finishPendingLayouts();
    painter->save();
    painter->fillRect(target, Qt::white);
    painter->setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing | QPainter::SmoothPixmapTransform);
    scene()->render(painter, target, scene()->sceneRect(), Qt::KeepAspectRatio);
    painter->restore();
}

void ConstituencyView::applyZoom(bool underMouse)
{
    // Scene units are points: at zoom 1 the tree has its printed size on screen. The wheel
    // zooms about the point under the mouse; the keys and fitting about the view's centre
    // (viewzoom.h).
    const double base = logicalDpiX() / 72.0;
    zoomAbout(*this, underMouse ? ZoomAnchor::UnderMouse : ZoomAnchor::ViewCentre,
              [&] { setTransform(QTransform::fromScale(base * m_zoom, base * m_zoom)); });
}

void ConstituencyView::wheelEvent(QWheelEvent *event)
{
    if (event->modifiers() & Qt::ControlModifier) {
        const double steps = event->angleDelta().y() / 120.0;
        m_zoom = std::clamp(m_zoom * std::pow(1.15, steps), 0.1, 8.0);
        applyZoom(true);
        event->accept();
        return;
    }
    QGraphicsView::wheelEvent(event);
}

void ConstituencyView::keyPressEvent(QKeyEvent *event)
{
    switch (event->key()) {
    case Qt::Key_Plus:
    case Qt::Key_Equal:
        m_zoom = std::min(8.0, m_zoom * 1.15);
        applyZoom();
        return;
    case Qt::Key_Minus:
        m_zoom = std::max(0.1, m_zoom / 1.15);
        applyZoom();
        return;
    case Qt::Key_0:
        m_zoom = 1.0;
        applyZoom();
        return;
    default:
        QGraphicsView::keyPressEvent(event);
    }
}

QString ConstituencyView::hoverTextAt(const QPoint &viewPos, int *word) const
{
    if (word)
        *word = -1;
    for (QGraphicsItem *item : items(viewPos)) {
        // Child text items carry nothing: their box does.
        for (QGraphicsItem *it = item; it; it = it->parentItem()) {
            if (word && it->data(kWordKey).isValid())
                *word = it->data(kWordKey).toInt();
            const QVariant v = it->data(kHoverKey);
            if (v.isValid())
                return v.toString();
        }
    }
    return QString();
}

void ConstituencyView::mousePressEvent(QMouseEvent *event)
{
    m_pressPos = event->pos();
    m_pressWord = -1;
    m_pressTat = -1;
    if (event->button() == Qt::LeftButton) {
        hoverTextAt(event->pos(), &m_pressWord);
        m_pressTat = tatNodeAt(event->pos());
    }
    QGraphicsView::mousePressEvent(event);
}

void ConstituencyView::mouseMoveEvent(QMouseEvent *event)
{
    QGraphicsView::mouseMoveEvent(event);
    if (event->buttons() != Qt::NoButton)
        return; // panning
    const QString text = hoverTextAt(event->pos(), nullptr);
    if (text != m_lastHover) {
        m_lastHover = text;
        Q_EMIT hovered(text);
    }
}

void ConstituencyView::mouseReleaseEvent(QMouseEvent *event)
{
    QGraphicsView::mouseReleaseEvent(event);
    // A click, not the end of a drag: the press and release are on the same word.
    if (event->button() == Qt::LeftButton && m_pressWord >= 0 &&
        (event->pos() - m_pressPos).manhattanLength() < 5) {
        int word = -1;
        hoverTextAt(event->pos(), &word);
        if (word == m_pressWord)
            Q_EMIT wordClicked(word);
    }
    if (event->button() == Qt::LeftButton && m_pressTat >= 0 && (event->pos() - m_pressPos).manhattanLength() < 5 &&
        tatNodeAt(event->pos()) == m_pressTat)
        Q_EMIT phraseClicked(m_pressTat);
    m_pressWord = -1;
    m_pressTat = -1;
}

void ConstituencyView::setEditable(bool editable)
{
    m_editable = editable;
}

QStringList ConstituencyView::phraseLabels() const
{
    QStringList labels{QStringLiteral("ADJP"), QStringLiteral("ADVP"), QStringLiteral("CONJP"), QStringLiteral("FRAG"),
                       QStringLiteral("INTJ"), QStringLiteral("NP"),   QStringLiteral("NX"),    QStringLiteral("PP"),
                       QStringLiteral("PRN"),  QStringLiteral("PRT"),  QStringLiteral("QP"),    QStringLiteral("S"),
                       QStringLiteral("SBAR"), QStringLiteral("SBARQ"), QStringLiteral("SINV"), QStringLiteral("SQ"),
                       QStringLiteral("UCP"),  QStringLiteral("VP"),   QStringLiteral("WHADVP"), QStringLiteral("WHNP"),
                       QStringLiteral("WHPP"), QStringLiteral("X")};
    if (const ConstituencyTree *t = parserTree())
        for (const LabeledSpan &span : t->spans())
            if (!labels.contains(QString::fromStdString(span.label)))
                labels << QString::fromStdString(span.label);
    labels.sort();
    return labels;
}

QMenu *ConstituencyView::editMenu(std::pair<int, int> span, int word, QWidget *parent)
{
    const ConstituencyTree *tree = parserTree();
    if (!m_editable || !tree || m_mode == Mode::Induced || (span.first < 0 && word < 0))
        return nullptr;
    auto *menu = new QMenu(parent);
    auto ask = [this](const QString &edit) { Q_EMIT treeEditRequested(edit); };
    // A label chosen from the list, or typed ("Other…").
    auto addLabels = [this, ask](QMenu *into, const QString &prefix, const QString &current) {
        for (const QString &label : phraseLabels()) {
            QAction *a = into->addAction(label);
            a->setCheckable(!current.isEmpty());
            a->setChecked(label == current);
            connect(a, &QAction::triggered, this, [ask, prefix, label] { ask(prefix + label); });
        }
        into->addSeparator();
        connect(into->addAction(tr("Other\u2026")), &QAction::triggered, this, [this, ask, prefix] {
            bool ok = false;
            const QString label = QInputDialog::getText(this, tr("Phrase label"), tr("Label:"), QLineEdit::Normal, QString(), &ok);
            if (ok && !label.trimmed().isEmpty())
                ask(prefix + label.trimmed());
        });
    };
    const auto words = m_data.sentence->words();
    if (span.first >= 0) {
        const QString range = QStringLiteral("%1-%2").arg(span.first + 1).arg(span.second);
        const int node = constituentOver(*tree, span.first + 1, span.second);
        const QString current = node >= 0 ? QString::fromStdString(tree->node(node).label) : QString();
        QAction *remove = menu->addAction(tr("&Remove the bracket (%1 %2)").arg(current, range));
        remove->setEnabled(node >= 0 && node != tree->root() && node != tree->contentRoot());
        connect(remove, &QAction::triggered, this, [ask, range] { ask(QStringLiteral("unbracket %1").arg(range)); });
        addLabels(menu->addMenu(tr("Re&label (%1 %2) as").arg(current, range)), QStringLiteral("relabel %1 ").arg(range), current);
        return menu;
    }
    // A word: bracket it alone, or the words from the focus word to it.
    auto spanName = [&words](int a, int b) {
        return a == b ? QStringLiteral("\u201c%1\u201d").arg(QString::fromStdString(words[static_cast<std::size_t>(a)]))
                      : QStringLiteral("words %1\u2013%2").arg(a + 1).arg(b + 1);
    };
    addLabels(menu->addMenu(tr("&Bracket %1 as").arg(spanName(word, word))), QStringLiteral("bracket %1-%1 ").arg(word + 1), QString());
    const int focus = m_state.focusWord;
    if (focus >= 0 && focus != word && focus < static_cast<int>(words.size())) {
        const int a = std::min(focus, word), b = std::max(focus, word);
        addLabels(menu->addMenu(tr("Bracket %1 (from the focus word) as").arg(spanName(a, b))),
                  QStringLiteral("bracket %1-%2 ").arg(a + 1).arg(b + 1), QString());
    }
    return menu;
}

QMenu *ConstituencyView::editMenuAt(const QPoint &viewPos, QWidget *parent)
{
    int word = -1;
    hoverTextAt(viewPos, &word);
    if (word >= 0)
        return editMenu({-1, -1}, word, parent);
    for (QGraphicsItem *item : items(viewPos))
        for (QGraphicsItem *it = item; it; it = it->parentItem())
            for (const auto &[phrase, span] : m_primary.phrases)
                if (phrase == it)
                    return editMenu(span, -1, parent);
    return nullptr;
}

void ConstituencyView::contextMenuEvent(QContextMenuEvent *event)
{
    std::unique_ptr<QMenu> menu(event->reason() == QContextMenuEvent::Keyboard && m_state.focusWord >= 0
                                    ? editMenu({-1, -1}, m_state.focusWord, this)
                                    : editMenuAt(event->pos(), this));
    if (!menu) {
        QGraphicsView::contextMenuEvent(event);
        return;
    }
    menu->exec(event->globalPos());
}

int ConstituencyView::tatNodeAt(const QPoint &viewPos) const
{
    for (QGraphicsItem *item : items(viewPos))
        for (QGraphicsItem *it = item; it; it = it->parentItem())
            if (it->data(kTatNodeKey).isValid())
                return it->data(kTatNodeKey).toInt();
    return -1;
}

void ConstituencyView::setAggregationDepth(int maxLevel)
{
    m_aggregationDepth = maxLevel;
    if (m_tat) {
        m_tat->scheduleMaxLevel = std::max(m_tat->maxLevel, maxLevel);
        rebuild();
    }
}

void ConstituencyView::setSelectedTatNode(int id)
{
    if (id == m_selectedTat)
        return;
    m_selectedTat = id;
    rebuild();
}

} // namespace treelens
