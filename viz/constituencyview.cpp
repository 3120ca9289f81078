#include "viz/constituencyview.h"

#include <algorithm>
#include <functional>
#include <cmath>
#include <set>

#include <QFontMetricsF>
#include <QMetaObject>
#include <QPointer>
#include <QGraphicsPathItem>
#include <QGraphicsRectItem>
#include <QGraphicsScene>
#include <QGraphicsSimpleTextItem>
#include <QKeyEvent>
#include <QLinearGradient>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QScrollBar>
#include <QWheelEvent>

#include "core/base/numbering.h"
#include "core/data/overlays.h"
#include "core/data/phraseorder.h"
#include "core/data/induction.h"
#include "core/eval/inductioneval.h"
#include "core/formats/ptb.h"

namespace treelens {

namespace {

// Item data keys: the hover text, and the word index of a leaf box.
constexpr int kHoverKey = 0;
constexpr int kWordKey = 1;
constexpr int kTatNodeKey = 2; // a TAT phrase's node id

// TAT aggregation steps: the level being aggregated, and the phrases still waiting.
const QColor kCurrentStep(0xd9, 0x5f, 0x02);
const QColor kPendingFill(0xf1, 0xf1, 0xf1);
const QColor kPendingInk(0xa0, 0xa0, 0xa0);

// Scene units are points. Fonts use pixel sizes so that one "pixel" is one scene
// unit on every paint device: point-sized fonts would be scaled by the device
// DPI and no longer match the layout when exported to PDF/SVG.
QFont makeFont(int size, QFont::Weight weight = QFont::Normal)
{
    QFont f;
    f.setPixelSize(size);
    f.setWeight(weight);
    return f;
}
const QFont &phraseFont() { static const QFont f = makeFont(10, QFont::DemiBold); return f; }
const QFont &wordFont() { static const QFont f = makeFont(10); return f; }
const QFont &posFont() { static const QFont f = makeFont(8); return f; }
const QFont &titleFont() { static const QFont f = makeFont(11, QFont::DemiBold); return f; }
const QFont &legendFont() { static const QFont f = makeFont(9); return f; }
const QFont &smallFont() { static const QFont f = makeFont(8); return f; }

const QColor kInk(0x22, 0x22, 0x22);
const QColor kEdge(0x70, 0x70, 0x70);
const QColor kBorder(0x8a, 0x8a, 0x8a);
const QColor kPos(0x75, 0x75, 0x75);
const QColor kShared(0x1a, 0x98, 0x50);   // green: bracket also induced
const QColor kMissing(0xd7, 0x30, 0x27);  // red, dashed: parser only
const QColor kExtra(0xd7, 0x30, 0x27);    // red brackets under the words: induced only
const QColor kNotApplicable(0xe4, 0xe4, 0xe4); // one-word constituents: no cohesion

constexpr double kNodeHeight = 16.0;
constexpr double kDotSize = 11.0;
constexpr double kPosHeight = 12.0; // the tag line above a word
constexpr double kMargin = 14.0;

QColor textOn(const QColor &fill)
{
    return textOnColor(fill, kInk);
}

QString fmt(double v) { return QString::number(v, 'f', 3); }

/// A TAT head as the views name it: heads 1..H/2 of the analysis are the semantic
/// stream's, the rest the syntactic stream's ("semantic head 2").
QString tatHeadName(int head, int heads)
{
    const int perStream = std::max(1, heads / 2);
    return head < perStream ? QStringLiteral("semantic head %1").arg(head + 1)
                            : QStringLiteral("syntactic head %1").arg(head - perStream + 1);
}

/// Words as a person counts them: "words 4–7" (core/base/numbering.h).
QString spanLabel(std::pair<int, int> s)
{
    return QString::fromStdString(wordSpanText(s.first, s.second));
}

QGraphicsSimpleTextItem *addText(QGraphicsScene *scene, const QString &text, const QFont &font, const QColor &color,
                                 QPointF topLeft)
{
    auto *item = new QGraphicsSimpleTextItem(text);
    item->setFont(font);
    item->setBrush(color);
    item->setPos(topLeft);
    scene->addItem(item);
    return item;
}

/// A text item centred on its parent's origin.
void addCentredText(QGraphicsItem *parent, const QString &text, const QFont &font, const QColor &color)
{
    auto *item = new QGraphicsSimpleTextItem(text, parent);
    item->setFont(font);
    item->setBrush(color);
    const QRectF r = item->boundingRect();
    item->setPos(-r.width() / 2.0, -r.height() / 2.0);
    // Hover/click look-ups walk to the parent box.
    item->setAcceptedMouseButtons(Qt::NoButton);
}

} // namespace

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

QString ConstituencyView::layoutSlot(const ConstituencyTree *tree) const
{
    return QStringLiteral("layout:%1:%2")
        .arg(reinterpret_cast<quintptr>(this), 0, 16)
        .arg(reinterpret_cast<quintptr>(tree), 0, 16);
}

void ConstituencyView::cancelLayoutJobs()
{
    if (!m_work.cancel)
        return;
    for (auto &[tree, graph] : m_graphs)
        if (graph.pending)
            m_work.cancel(layoutSlot(tree));
}

bool ConstituencyView::layoutPending() const
{
    for (const auto &[tree, graph] : m_graphs)
        if (graph.pending)
            return true;
    return false;
}

void ConstituencyView::TreeGraph::setLayout(Result<GraphLayoutResult> result)
{
    if (result.ok())
        layout = std::move(result.value());
    else
        error = QString::fromStdString(result.message());
    pending = false;
    request = GraphLayoutRequest{};
}

void ConstituencyView::finishPendingLayouts()
{
    if (!layoutPending())
        return;
    // The queued jobs' results are not needed any more (and are dropped).
    cancelLayoutJobs();
    for (auto &[tree, graph] : m_graphs)
        if (graph.pending) // Graphviz calls are serialised: this waits for a worker already in dot
            graph.setLayout(layoutGraph(graph.request));
    rebuild();
    fitToViewport();
}

void ConstituencyView::layoutArrived(const ConstituencyTree *tree, Result<GraphLayoutResult> layout)
{
    auto it = m_graphs.find(tree);
    if (it == m_graphs.end() || !it->second.pending)
        return; // finished synchronously meanwhile (an export)
    it->second.setLayout(std::move(layout));
    rebuild();
    if (!layoutPending()) {
        fitToViewport();
        Q_EMIT layoutFinished();
    }
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
        m_tat = tatNodesOf(*a); // nothing for an analysis without aggregation nodes
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

const ConstituencyView::TreeGraph &ConstituencyView::graphFor(const ConstituencyTree &tree, bool induced)
{
    auto it = m_graphs.find(&tree);
    if (it != m_graphs.end())
        return it->second;
    TreeGraph &g = m_graphs[&tree];

    const QFontMetricsF phraseMetrics(phraseFont());
    const QFontMetricsF wordMetrics(wordFont());
    const QFontMetricsF posMetrics(posFont());
    GraphLayoutRequest request;
    std::vector<std::pair<int, int>> wordRank; // (word index, graph node)

    // Pre-order walk from the content root with an explicit stack (trees may be
    // thousands deep). Children are pushed in reverse so they come out in order,
    // which makes the edge order match the child order for ordering=out.
    // Preterminals are not nodes of their own: the tag is drawn above its word in
    // one leaf node, so tag and word always line up and take one rank, not two.
    struct Item {
        int node;
        int parentGraphNode;
        QString pos;
    };
    // The TAT's node ids of the phrases (a Tree Aggregation Transformer's node attention is keyed by them).
    std::vector<int> tatIds;
    if (!induced) {
        tatIds.assign(tree.nodes().size(), -1);
        int id = 0;
        for (const auto &[n, level] : phrasePostOrder(tree))
            tatIds[static_cast<std::size_t>(n)] = id++;
    }
    std::vector<Item> stack{{tree.contentRoot(), -1, QString()}};
    while (!stack.empty()) {
        const Item item = stack.back();
        stack.pop_back();
        const ConstituencyNode &cn = tree.node(item.node);
        const auto span = tree.span(item.node);
        if (span.first >= span.second)
            continue; // traces only: nothing to draw
        if (!cn.terminal && tree.isPreterminal(item.node)) {
            // The induced tree's "W" preterminals carry no information.
            const QString pos = induced ? QString() : QString::fromStdString(cn.label);
            for (auto c = cn.children.rbegin(); c != cn.children.rend(); ++c)
                stack.push_back({*c, item.parentGraphNode, pos});
            continue;
        }
        TreeGraph::Node node;
        node.span = span;
        QSizeF size;
        if (cn.terminal) {
            node.kind = TreeGraph::Kind::Word;
            // Terminals keep PTB escapes ("-LRB-"); show the bracket itself.
            node.text = QString::fromStdString(ptbUnescape(cn.label));
            node.pos = item.pos;
            node.word = cn.wordIndex;
            const double w = wordMetrics.horizontalAdvance(node.text) + 8.0;
            size = node.pos.isEmpty()
                       ? QSizeF(w, kNodeHeight)
                       : QSizeF(std::max(w, posMetrics.horizontalAdvance(node.pos) + 4.0), kNodeHeight + kPosHeight);
        } else if (induced) {
            node.kind = TreeGraph::Kind::Dot;
            size = QSizeF(kDotSize, kDotSize);
        } else {
            node.kind = TreeGraph::Kind::Phrase;
            node.text = QString::fromStdString(cn.label);
            size = QSizeF(std::max(24.0, phraseMetrics.horizontalAdvance(node.text) + 12.0), kNodeHeight);
        }
        const int self = static_cast<int>(g.nodes.size());
        if (node.kind == TreeGraph::Kind::Word)
            wordRank.push_back({node.word, self});
        if (node.kind == TreeGraph::Kind::Phrase)
            node.tatNode = tatIds.empty() ? -1 : tatIds[static_cast<std::size_t>(item.node)];
        g.nodes.push_back(node);
        request.nodeSizes.push_back(size);
        if (item.parentGraphNode >= 0)
            g.edges.push_back({item.parentGraphNode, self});
        for (auto c = cn.children.rbegin(); c != cn.children.rend(); ++c)
            stack.push_back({*c, self, QString()});
    }

    // All words on one baseline in sentence order.
    std::sort(wordRank.begin(), wordRank.end());
    std::vector<int> words;
    for (const auto &w : wordRank)
        words.push_back(w.second);
    if (words.size() > 1)
        request.sameRank.push_back(words);
    request.edges = g.edges;
    request.rankSeparation = induced ? 16.0 : 18.0;
    request.nodeSeparation = 7.0;
    if (m_work && static_cast<int>(words.size()) >= asyncLayoutWords()) {
        // dot takes ~100 ms for a 200-word tree: off the GUI thread.
        g.pending = true;
        g.request = request;
        QPointer<ConstituencyView> self(this);
        const ConstituencyTree *key = &tree;
        m_work.run(layoutSlot(key), this, [self, key, request](const std::function<bool()> &cancelled) -> BackgroundWork::Deliver {
            Result<GraphLayoutResult> layout = Error{"graph layout: failed"};
            try {
                layout = layoutGraph(request, [&] { return !cancelled(); });
            } catch (const std::exception &e) {
                layout = Error{std::string("graph layout: ") + e.what()};
            }
            return [self, key, layout = std::move(layout)]() mutable {
                if (self)
                    self->layoutArrived(key, std::move(layout));
            };
        });
        return g;
    }
    g.setLayout(layoutGraph(request));
    return g;
}

QColor ConstituencyView::notApplicableColor() { return kNotApplicable; }

bool ConstituencyView::hasCohesion() const
{
    const Analysis *a = m_data.analysis.get();
    return a && m_state.layer >= 0 && m_state.layer < static_cast<int>(a->constituentPrior.size()) &&
           !a->constituentPrior[static_cast<std::size_t>(m_state.layer)].empty() && !a->wordToken.empty();
}

std::optional<double> ConstituencyView::cohesion(std::pair<int, int> span) const
{
    // One word has no cohesion: C of a word with itself is 0 by construction.
    if (!hasCohesion() || span.second - span.first < 2)
        return std::nullopt;
    const Analysis *a = m_data.analysis.get();
    const Matrix &c = a->constituentPrior[static_cast<std::size_t>(m_state.layer)];
    const int words = static_cast<int>(a->wordToken.size());
    if (span.first < 0 || span.second > words)
        return std::nullopt;
    const int r = a->wordToken[static_cast<std::size_t>(span.first)];
    const int col = a->wordToken[static_cast<std::size_t>(span.second - 1)];
    if (r < 0 || col < 0 || r >= c.rows || col >= c.cols)
        return std::nullopt;
    return c.at(r, col);
}

std::optional<double> ConstituencyView::focusAttention(std::pair<int, int> span) const
{
    const Analysis *a = m_data.analysis.get();
    const int words = a ? static_cast<int>(a->wordToken.size()) : 0;
    if (!a || !selectedAttention(*a, m_state) || m_state.focusWord < 0 || m_state.focusWord >= words ||
        span.first < 0 || span.second > words || span.first >= span.second)
        return std::nullopt;
    // A constituent receives what its words receive.
    double sum = 0.0;
    for (int w = span.first; w < span.second; ++w)
        sum += wordAttention(*a, m_state, m_state.focusWord, w);
    return sum;
}

bool ConstituencyView::overlayActive() const
{
    switch (m_overlay) {
    case Overlay::None:
        return false;
    case Overlay::Cohesion:
        return hasCohesion();
    case Overlay::FocusAttention:
        return focusAttention({0, 1}).has_value();
    }
    return false;
}

QString ConstituencyView::spanText(std::pair<int, int> span) const
{
    QStringList w;
    for (int i = span.first; i < span.second && i < static_cast<int>(m_words.size()); ++i)
        w << m_words[static_cast<std::size_t>(i)];
    QString text = w.join(QLatin1Char(' '));
    if (text.size() > 60)
        text = text.left(57) + QStringLiteral("…");
    return QStringLiteral("“%1”").arg(text);
}

std::pair<int, int> ConstituencyView::comparedSpan(std::pair<int, int> span) const
{
    if (span.first < 0 || span.second >= static_cast<int>(m_keptIndex.size()) || span.first >= span.second)
        return {0, 0};
    return {m_keptIndex[static_cast<std::size_t>(span.first)], m_keptIndex[static_cast<std::size_t>(span.second)]};
}

void ConstituencyView::clearComparison()
{
    m_shared.clear();
    m_missing.clear();
    m_extra.clear();
    m_kept.clear();
    m_keptIndex.clear();
    m_sharedKept.clear();
    m_missingKept.clear();
    m_scoreText.clear();
    m_protocolText.clear();
}

void ConstituencyView::classifySpans()
{
    clearComparison();
    const ConstituencyTree *parser = parserTree();
    const Analysis *a = m_data.analysis.get();
    if (!parser || !a)
        return;
    const ConstituencyTree *induced = inducedTree();
    if (a->inducedBrackets.empty() && !induced && !a->withoutPunctuation)
        return;
    // eval-induction's protocol (inductioneval.h), so the header's F1 is the one it
    // reports: punctuation out, unlabelled, single words and the whole sentence not
    // compared. The model's brackets are the ones it makes without the punctuation
    // when the pipeline ran it so; else its brackets with the punctuation taken out.
    const std::vector<int> kept = inductionKeptWords(*parser);
    PunctuationFreeParse model;
    if (a->withoutPunctuation && a->withoutPunctuation->words == kept) {
        model = *a->withoutPunctuation;
    } else {
        std::vector<std::pair<int, int>> brackets = a->inducedBrackets;
        if (brackets.empty() && induced)
            for (const auto &sp : induced->spans(true))
                brackets.emplace_back(sp.start, sp.end);
        model = removePunctuation(*parser, brackets);
    }
    const InductionGold gold = inductionGold(*parser);
    const int n = static_cast<int>(gold.words.size());
    m_kept = kept;
    m_keptIndex.assign(static_cast<std::size_t>(parser->wordCount()) + 1, 0);
    for (std::size_t i = 0, k = 0; i < m_keptIndex.size(); ++i) {
        while (k < kept.size() && static_cast<std::size_t>(kept[k]) < i)
            ++k;
        m_keptIndex[i] = static_cast<int>(k);
    }
    const std::set<std::pair<int, int>> goldSet(gold.brackets.begin(), gold.brackets.end());
    const std::set<std::pair<int, int>> modelSet(model.brackets.begin(), model.brackets.end());
    std::vector<std::pair<int, int>> extraKept;
    std::set_intersection(goldSet.begin(), goldSet.end(), modelSet.begin(), modelSet.end(),
                          std::inserter(m_sharedKept, m_sharedKept.end()));
    std::set_difference(goldSet.begin(), goldSet.end(), modelSet.begin(), modelSet.end(),
                        std::inserter(m_missingKept, m_missingKept.end()));
    std::set_difference(modelSet.begin(), modelSet.end(), goldSet.begin(), goldSet.end(), std::back_inserter(extraKept));
    // Back onto the words as drawn: from the first kept word to the last.
    auto drawn = [&](std::pair<int, int> k) {
        return std::make_pair(kept[static_cast<std::size_t>(k.first)], kept[static_cast<std::size_t>(k.second) - 1] + 1);
    };
    for (const auto &k : m_sharedKept)
        m_shared.push_back(drawn(k));
    for (const auto &k : m_missingKept)
        m_missing.push_back(drawn(k));
    for (const auto &k : extraKept)
        m_extra.push_back(drawn(k));
    const InductionScore score = scoreBrackets({gold.brackets}, {model.brackets}, {n});
    m_scoreText = QStringLiteral("Parser vs. induced brackets: P %1  R %2  F1 %3 (%)")
                      .arg(score.precision, 0, 'f', 2)
                      .arg(score.recall, 0, 'f', 2)
                      .arg(score.perSentence.front(), 0, 'f', 2);
    m_protocolText =
        model.rerun
            ? QStringLiteral("Scored as eval-induction scores it: punctuation removed before the model reads the words; "
                             "unlabelled; single words and the whole sentence not compared")
            : QStringLiteral("Scored like eval-induction, but the model read the punctuation (taken out of its brackets "
                             "afterwards), so eval-induction may differ; unlabelled; single words and the whole sentence "
                             "not compared");
}

bool ConstituencyView::nodeAttentionActive() const
{
    if (!m_data.analysis || m_data.analysis->nodeAttention.empty())
        return false;
    if (overlay::hasAggregationNodes(*m_data.analysis))
        return true;
    // The recursive constituency models (CTT, binary Tree-LSTM): their nodes carry spans, no head word.
    return recursiveNodes();
}

bool ConstituencyView::recursiveNodes() const
{
    return m_data.analysis && overlay::hasComposition(*m_data.analysis) &&
           m_data.analysis->nodeAttention.front().headWord < 0 && m_data.analysis->nodeAttention.front().start >= 0;
}

bool ConstituencyView::recursivePendingEdge(const TreeGraph &graph, int parent) const
{
    if (!recursiveNodes() || m_state.aggregationStep <= 0)
        return false;
    const auto &nodes = m_data.analysis->nodeAttention;
    const auto heights = recursiveNodeHeights(nodes);
    const auto span = graph.nodes[static_cast<std::size_t>(parent)].span;
    for (std::size_t v = 0; v < nodes.size(); ++v)
        if (nodes[v].start == span.first && nodes[v].end == span.second)
            return recursivePending(heights[v], m_state.aggregationStep);
    return false;
}

QString ConstituencyView::nodeHeadName() const
{
    if (recursiveNodes())
        return m_data.analysis->heads > 1 ? QStringLiteral("branch %1").arg(m_state.head + 1) : QStringLiteral("attention over the children");
    return tatHeadName(m_state.head, m_data.analysis->heads);
}

double ConstituencyView::nodeAttentionWeight(const TreeGraph &graph, int parent, int child) const
{
    const auto &nodes = m_data.analysis->nodeAttention;
    const auto &p = graph.nodes[static_cast<std::size_t>(parent)];
    const auto &c = graph.nodes[static_cast<std::size_t>(child)];
    if (recursiveNodes()) {
        // The model's tree drops preterminals and collapses unary chains: its nodes are found by span
        // (a unary chain's phrases share the node; a binarization dummy has no drawn phrase).
        auto bySpan = [&](std::pair<int, int> span) -> const NodeAttention * {
            for (const auto &na : nodes)
                if (na.start == span.first && na.end == span.second)
                    return &na;
            return nullptr;
        };
        const NodeAttention *pn = bySpan(p.span);
        if (!pn || m_state.head < 0 || m_state.head >= static_cast<int>(pn->weights.size()))
            return -1;
        int target = 1 << 30;
        if (c.kind == TreeGraph::Kind::Word)
            target = -1 - c.word;
        else if (const NodeAttention *cn = bySpan(c.span); cn && cn != pn)
            target = cn->node;
        else if (c.span.second - c.span.first == 1)
            target = -1 - c.span.first; // a preterminal: its word
        for (std::size_t k = 0; k < pn->targets.size(); ++k)
            if (pn->targets[k] == target && k < pn->weights[static_cast<std::size_t>(m_state.head)].size())
                return static_cast<double>(pn->weights[static_cast<std::size_t>(m_state.head)][k]);
        return -1;
    }
    if (p.tatNode < 0 || p.tatNode >= static_cast<int>(nodes.size()))
        return -1;
    const NodeAttention &na = nodes[static_cast<std::size_t>(p.tatNode)];
    const int target = c.kind == TreeGraph::Kind::Word ? -1 - c.word : c.tatNode;
    if (m_state.head < 0 || m_state.head >= static_cast<int>(na.weights.size()))
        return -1;
    for (std::size_t k = 0; k < na.targets.size(); ++k)
        if (na.targets[k] == target && k < na.weights[static_cast<std::size_t>(m_state.head)].size())
            return static_cast<double>(na.weights[static_cast<std::size_t>(m_state.head)][k]);
    return -1;
}

ConstituencyView::DrawnTree ConstituencyView::drawTree(const TreeGraph &graph, QPointF topLeft, bool compare)
{
    QGraphicsScene *s = scene();
    DrawnTree drawn;
    const GraphLayoutResult &layout = graph.layout;
    const QPointF offset = topLeft - layout.bounds.topLeft();
    drawn.rect = layout.bounds.translated(offset);
    drawn.words.assign(m_words.size(), nullptr);

    const bool overlay = overlayActive();
    const QString layerText = QStringLiteral("layer %1").arg(m_state.layer + 1);
    const QString focusName = (m_state.focusWord >= 0 && m_state.focusWord < static_cast<int>(m_words.size()))
                                  ? m_words[static_cast<std::size_t>(m_state.focusWord)]
                                  : QString();

    QPen edgePen(kEdge, 0.9);
    edgePen.setCapStyle(Qt::RoundCap);
    const bool nodeAttention = nodeAttentionActive();
    for (std::size_t e = 0; e < graph.edges.size() && e < layout.edgePaths.size(); ++e) {
        QPen pen = edgePen;
        QString tip;
        const int parentTat = graph.nodes[static_cast<std::size_t>(graph.edges[e].first)].tatNode;
        const bool waiting = m_tat && parentTat >= 0 && parentTat < static_cast<int>(m_tat->nodes.size()) &&
                             tatPhase(*m_tat, m_tat->nodes[static_cast<std::size_t>(parentTat)].level, m_state.aggregationStep) ==
                                 TatPhase::Pending;
        if (waiting) {
            // Not aggregated yet at this step: the edge carries no weight.
            pen = QPen(kPendingInk, 0.6, Qt::DashLine, Qt::RoundCap);
        } else if (nodeAttention && recursivePendingEdge(graph, graph.edges[e].first)) {
            // A recursive model's node not composed yet at this step.
            pen = QPen(kPendingInk, 0.6, Qt::DashLine, Qt::RoundCap);
        } else if (nodeAttention) {
            // A TAT phrase's aggregation weight on this child (the selected head): colour and width.
            const double w = nodeAttentionWeight(graph, graph.edges[e].first, graph.edges[e].second);
            if (w >= 0) {
                pen = QPen(sequentialColor(w), 0.9 + 4.0 * w, Qt::SolidLine, Qt::RoundCap);
                tip = QStringLiteral("%1 attends to %2 with weight %3 (%4)")
                          .arg(graph.nodes[static_cast<std::size_t>(graph.edges[e].first)].text,
                               graph.nodes[static_cast<std::size_t>(graph.edges[e].second)].text)
                          .arg(w, 0, 'f', 3)
                          .arg(nodeHeadName());
            }
        }
        auto *item = s->addPath(layout.edgePaths[e].translated(offset), pen);
        item->setZValue(0);
        if (!tip.isEmpty()) {
            item->setToolTip(tip);
            item->setData(0, QStringLiteral("node-attention"));
            item->setData(1, pen.widthF());
        } else {
            item->setAcceptedMouseButtons(Qt::NoButton);
        }
    }

    for (std::size_t i = 0; i < graph.nodes.size() && i < layout.centers.size(); ++i) {
        const TreeGraph::Node &node = graph.nodes[i];
        const QPointF centre = layout.centers[i] + offset;
        QStringList hover;
        QBrush fill(Qt::white);
        QPen pen(kBorder, 0.8);
        QColor textColour = kInk;
        QPainterPath shape;

        std::optional<double> value;
        bool notApplicable = false;
        if (overlay) {
            if (m_overlay == Overlay::Cohesion && node.kind != TreeGraph::Kind::Word) {
                value = cohesion(node.span);
                notApplicable = node.span.second - node.span.first < 2;
            } else if (m_overlay == Overlay::FocusAttention) {
                value = focusAttention(node.span);
            }
        }

        switch (node.kind) {
        case TreeGraph::Kind::Phrase:
        case TreeGraph::Kind::Dot: {
            const bool dot = node.kind == TreeGraph::Kind::Dot;
            const QSizeF size = dot ? QSizeF(kDotSize, kDotSize)
                                    : QSizeF(std::max(24.0, QFontMetricsF(phraseFont()).horizontalAdvance(node.text) + 12.0),
                                             kNodeHeight);
            const QRectF r(-size.width() / 2.0, -size.height() / 2.0, size.width(), size.height());
            if (dot)
                shape.addEllipse(r);
            else
                shape.addRoundedRect(r, 4.0, 4.0);
            if (dot)
                fill = QColor(0xb0, 0xb0, 0xb0);
            hover << QStringLiteral("%1 %2 %3")
                         .arg(dot ? QStringLiteral("induced bracket") : node.text, spanLabel(node.span), spanText(node.span));
            if (compare) {
                const auto compared = comparedSpan(node.span);
                if (m_sharedKept.count(compared)) {
                    pen = QPen(kShared, 2.2);
                    hover << QStringLiteral("shared: also an induced bracket");
                } else if (m_missingKept.count(compared)) {
                    pen = QPen(kMissing, 1.6, Qt::DashLine);
                    hover << QStringLiteral("missing: not among the induced brackets");
                } else {
                    hover << QStringLiteral("not compared (whole sentence, or one word once punctuation is removed)");
                }
            }
            if (notApplicable) {
                fill = kNotApplicable;
                hover << QStringLiteral("one word: cohesion does not apply (C of a word with itself is 0 by construction)");
            }
            if (m_tat && node.tatNode >= 0 && node.tatNode < static_cast<int>(m_tat->nodes.size())) {
                const auto phase = tatPhase(*m_tat, m_tat->nodes[static_cast<std::size_t>(node.tatNode)].level, m_state.aggregationStep);
                m_tatPhases.push_back({node.tatNode, static_cast<int>(phase)});
                if (phase == TatPhase::Pending) {
                    fill = kPendingFill;
                    textColour = kPendingInk;
                    pen = QPen(kPendingInk, 0.8, Qt::DashLine);
                } else if (phase == TatPhase::Current) {
                    pen = QPen(kCurrentStep, 2.6);
                }
                if (node.tatNode == m_selectedTat)
                    pen = QPen(Qt::black, 2.6);
                hover << tatHoverLines(node.tatNode);
            }
            break;
        }
        case TreeGraph::Kind::Word: {
            const double w = QFontMetricsF(wordFont()).horizontalAdvance(node.text) + 8.0;
            shape.addRoundedRect(QRectF(-w / 2.0, -kNodeHeight / 2.0, w, kNodeHeight), 3.0, 3.0);
            pen = QPen(overlay ? kBorder : QColor(0xc8, 0xc8, 0xc8), 0.7);
            hover << QStringLiteral("“%1” word %2%3")
                         .arg(node.text)
                         .arg(node.word + 1)
                         .arg(node.pos.isEmpty() ? QString() : QStringLiteral(", %1").arg(node.pos));
            if (node.word == m_state.focusWord && node.word >= 0) {
                pen = QPen(Qt::black, 2.0);
                hover << QStringLiteral("focus word");
            }
            break;
        }
        }

        if (value) {
            fill = sequentialColor(*value);
            textColour = textOn(fill.color());
            if (m_overlay == Overlay::Cohesion)
                hover << QStringLiteral("%1 %2 cohesion at %3: %4")
                             .arg(node.kind == TreeGraph::Kind::Dot ? QStringLiteral("bracket") : node.text,
                                  spanLabel(node.span), layerText, fmt(*value));
            else if (node.kind == TreeGraph::Kind::Word)
                hover << QStringLiteral("attention from “%1” (%2, head %3): %4")
                             .arg(focusName, layerText)
                             .arg(m_state.head + 1)
                             .arg(fmt(*value));
            else
                hover << QStringLiteral("attention from “%1” (%2, head %3), summed over %4 words: %5")
                             .arg(focusName, layerText)
                             .arg(m_state.head + 1)
                             .arg(node.span.second - node.span.first)
                             .arg(fmt(*value));
        }

        const QString hoverText = hover.join(QLatin1Char('\n'));
        auto *item = new QGraphicsPathItem(shape);
        item->setBrush(fill);
        item->setPen(pen);
        QPointF at = centre;
        if (node.kind == TreeGraph::Kind::Dot) {
            drawn.phrases.push_back({item, node.span});
        } else if (node.kind == TreeGraph::Kind::Phrase) {
            addCentredText(item, node.text, phraseFont(), textColour);
            drawn.phrases.push_back({item, node.span});
            if (m_tat && node.tatNode >= 0) {
                item->setData(kTatNodeKey, node.tatNode);
                item->setCursor(Qt::PointingHandCursor);
            }
        } else {
            addCentredText(item, node.text, wordFont(), textColour);
            if (!node.pos.isEmpty()) {
                // The leaf node is tag over word: the box takes the lower part, the
                // tag (small, grey: it annotates the word) sits above it as a child
                // so hovering or clicking it means the word.
                at.ry() += kPosHeight / 2.0;
                auto *tag = new QGraphicsSimpleTextItem(node.pos, item);
                tag->setFont(posFont());
                tag->setBrush(kPos);
                const QRectF r = tag->boundingRect();
                tag->setPos(-r.width() / 2.0, -kNodeHeight / 2.0 - kPosHeight + (kPosHeight - r.height()) / 2.0);
            }
            item->setData(kWordKey, node.word);
            item->setCursor(Qt::PointingHandCursor);
            if (node.word >= 0 && node.word < static_cast<int>(drawn.words.size()))
                drawn.words[static_cast<std::size_t>(node.word)] = item;
        }
        item->setPos(at);
        item->setZValue(1);
        item->setData(kHoverKey, hoverText);
        item->setToolTip(hoverText);
        s->addItem(item);
    }
    return drawn;
}

void ConstituencyView::drawExtraBrackets(const DrawnTree &tree, double top)
{
    if (m_extra.empty())
        return;
    QGraphicsScene *s = scene();
    const QFontMetricsF fm(smallFont());
    // Nested extra brackets (a near right-branching induced tree) each need their
    // own row; past this many rows the rest are listed as text instead of
    // growing a staircase hundreds of rows tall.
    constexpr std::size_t kMaxRows = 10;
    constexpr double kRowHeight = 21.0;
    // Greedy row assignment by start (interval colouring, optimal for intervals):
    // a bracket goes on the first row where neither it nor its label collides.
    std::vector<double> rowEnd;
    std::vector<std::pair<int, int>> listed;
    QPen pen(kExtra, 1.4);
    pen.setCapStyle(Qt::FlatCap);
    for (const auto &span : m_extra) {
        if (span.first < 0 || span.second > static_cast<int>(tree.words.size()))
            continue;
        const QGraphicsPathItem *first = tree.words[static_cast<std::size_t>(span.first)];
        const QGraphicsPathItem *last = tree.words[static_cast<std::size_t>(span.second - 1)];
        if (!first || !last)
            continue;
        const double x0 = first->sceneBoundingRect().left() + 1.0;
        const double x1 = last->sceneBoundingRect().right() - 1.0;
        const QString label = spanLabel(span);
        const double labelW = fm.horizontalAdvance(label);
        const double cx = (x0 + x1) / 2.0;
        const double left = std::min(x0, cx - labelW / 2.0);
        const double right = std::max(x1, cx + labelW / 2.0);
        std::size_t row = 0;
        while (row < rowEnd.size() && rowEnd[row] + 4.0 > left)
            ++row;
        if (row >= kMaxRows) {
            listed.push_back(span);
            continue;
        }
        if (row == rowEnd.size())
            rowEnd.push_back(right);
        else
            rowEnd[row] = right;
        const double y = top + 8.0 + static_cast<double>(row) * kRowHeight;
        QPainterPath p;
        p.moveTo(x0, y - 5.0);
        p.lineTo(x0, y);
        p.lineTo(x1, y);
        p.lineTo(x1, y - 5.0);
        auto *item = s->addPath(p, pen);
        const auto c = cohesion(span);
        const QString hover = QStringLiteral("extra: induced bracket %1 %2 is not a parser constituent")
                                  .arg(spanLabel(span), spanText(span)) +
                              (c ? QStringLiteral("\ncohesion at layer %1: %2").arg(m_state.layer + 1).arg(fmt(*c))
                                 : QString());
        item->setData(kHoverKey, hover);
        item->setToolTip(hover);
        auto *text = addText(s, label, smallFont(), kExtra, QPointF(cx - labelW / 2.0, y + 1.0));
        text->setData(kHoverKey, hover);
        text->setToolTip(hover);
    }
    if (listed.empty())
        return;
    // The rest as wrapped text lines, as wide as the tree.
    const double width = std::max(tree.rect.width(), 400.0);
    double y = top + 8.0 + static_cast<double>(rowEnd.size()) * kRowHeight + 4.0;
    QString line = QStringLiteral("%1 more extra brackets:").arg(listed.size());
    auto flush = [&]() {
        addText(s, line, smallFont(), kExtra, QPointF(tree.rect.left(), y));
        y += fm.height() + 2.0;
        line.clear();
    };
    for (const auto &span : listed) {
        const QString label = spanLabel(span);
        if (!line.isEmpty() && fm.horizontalAdvance(line + QLatin1Char(' ') + label) > width)
            flush();
        line += (line.isEmpty() ? QString() : QStringLiteral(" ")) + label;
    }
    flush();
}

QStringList ConstituencyView::collectNotes() const
{
    QStringList notes;
    if (m_data.sentence && parserTree() && m_mode != Mode::Induced)
        notes << treeSourceNote(*m_data.sentence, TreeKind::Constituency);
    notes << unknownWordsNote(m_data.analysis.get());
    if (!m_tat)
        notes << noPriorNote(m_data.analysis.get());
    if (m_tat && m_state.aggregationStep > 0) {
        const int step = std::min(m_state.aggregationStep, m_tat->steps());
        const int level = m_tat->levelAt(step);
        int here = 0;
        for (const auto &n : m_tat->nodes)
            here += n.level == level ? 1 : 0;
        notes << QStringLiteral("Aggregation step %1 of %2: level %3 (%4 phrase%5 of this sentence, outlined, in the step's one "
                                "batched call); grey phrases wait for their children")
                     .arg(step)
                     .arg(m_tat->steps())
                     .arg(level)
                     .arg(here)
                     .arg(here == 1 ? QString() : QStringLiteral("s"));
    }
    notes.removeAll(QString());
    return notes;
}

double ConstituencyView::drawNotes(double top, double width)
{
    m_notes = collectNotes();
    double y = top;
    // Wrapped to the tree's width: a long note would otherwise set the scene's width,
    // and a short tree would be drawn small in a wide figure.
    for (const QString &note : m_notes)
        for (const QString &line : wrapToWidth(note, legendFont(), width)) {
            auto *t = addText(scene(), line, legendFont(), noteColor(), QPointF(0.0, y));
            t->setData(kHoverKey, note);
            y = t->sceneBoundingRect().bottom() + 1.0;
        }
    return m_notes.isEmpty() ? top : y + 10.0;
}

QRectF ConstituencyView::addColourBar(const QRectF &bar)
{
    QGraphicsScene *s = scene();
    QRectF used = s->addRect(bar, QPen(kBorder, 0.5), QBrush(sequentialGradient(bar.topLeft(), bar.topRight())))->sceneBoundingRect();
    for (double v : {0.0, 0.5, 1.0}) {
        const QString label = QString::number(v);
        const double lx = bar.left() + v * bar.width();
        s->addLine(lx, bar.bottom(), lx, bar.bottom() + 3.0, QPen(kInk, 0.6));
        auto *tick = addText(s, label, smallFont(), kInk,
                             QPointF(lx - QFontMetricsF(smallFont()).horizontalAdvance(label) / 2.0, bar.bottom() + 3.0));
        used = used.united(tick->sceneBoundingRect());
    }
    return used;
}

QRectF ConstituencyView::drawLegends(QPointF topLeft, double width)
{
    QGraphicsScene *s = scene();
    QRectF used(topLeft, QSizeF(0, 0));
    double x = topLeft.x();
    const double y = topLeft.y();
    const QFontMetricsF fm(legendFont());

    if (nodeAttentionActive()) {
        // The TAT's node attention on the edges: the key above any overlay's.
        const QString what = recursiveNodes()
                                 ? QStringLiteral("Edges: how each node of the model's tree composes its children (attention each child "
                                                  "receives, mean over the querying members), %1; colour and width = weight")
                                 : QStringLiteral("Edges: how each phrase aggregates its children (attention of its start token), %1; "
                                                  "colour and width = weight");
        auto *t = addText(s, what.arg(nodeHeadName()),
                          legendFont(), kInk, QPointF(x, y));
        t->setData(0, QStringLiteral("node-attention-legend"));
        used = used.united(t->sceneBoundingRect());
        return used.united(addColourBar(QRectF(x, y + 16.0, 150.0, 9.0)));
    }
    // Colour scale: title, viridis bar 0..1, ticks and the unit.
    if (m_overlay != Overlay::None && m_data.analysis) {
        QString title, unit, note;
        if (m_overlay == Overlay::Cohesion) {
            title = QStringLiteral("Cohesion of each constituent: prior C(first word, last word), layer %1")
                        .arg(m_state.layer + 1);
            unit = QStringLiteral("probability");
            if (!overlayActive())
                note = m_data.analysis->constituentPrior.empty()
                           ? QStringLiteral("(this model has no constituent prior: no cohesion to show)")
                           : QStringLiteral("(no constituent prior for this layer)");
        } else {
            const bool haveFocus = m_state.focusWord >= 0 && m_state.focusWord < static_cast<int>(m_words.size());
            title = haveFocus ? QStringLiteral("Attention from “%1”, layer %2, head %3%4")
                                    .arg(m_words[static_cast<std::size_t>(m_state.focusWord)])
                                    .arg(m_state.layer + 1)
                                    .arg(m_state.head + 1)
                                    .arg(m_state.weightedAttention ? QStringLiteral(" (weighted by C)")
                                                                   : QStringLiteral(" (softmax)"))
                              : QStringLiteral("Attention from a word");
            unit = QStringLiteral("attention weight; phrases: sum over their words");
            if (!haveFocus)
                note = QStringLiteral("(click a word to choose it)");
            else if (!overlayActive())
                note = QStringLiteral("(no attention for this layer/head)");
        }
        auto *t = addText(s, title, legendFont(), kInk, QPointF(x, y));
        if (!note.isEmpty()) {
            auto *n = addText(s, note, legendFont(), kPos, QPointF(x, y + 14.0));
            used = used.united(n->sceneBoundingRect());
        } else {
            const QRectF bar(x, y + 16.0, 150.0, 9.0);
            used = used.united(addColourBar(bar));
            auto *u = addText(s, unit, smallFont(), kPos, QPointF(bar.right() + 8.0, bar.top()));
            used = used.united(u->sceneBoundingRect());
            if (m_overlay == Overlay::Cohesion) {
                // One-word constituents: C of a word with itself is 0 by construction, not a measurement.
                const QRectF swatch(u->sceneBoundingRect().right() + 14.0, bar.top(), 16.0, bar.height());
                s->addRect(swatch, QPen(kBorder, 0.5), kNotApplicable);
                auto *na = addText(s, QStringLiteral("n/a: one word"), smallFont(), kPos,
                                   QPointF(swatch.right() + 4.0, bar.top()));
                used = used.united(na->sceneBoundingRect());
            }
        }
        used = used.united(t->sceneBoundingRect());
        x = used.right() + 28.0;
    }

    // Compare key: what the outlines and red brackets mean, with counts. Beside the colour
    // scale when both fit the tree's width, else under it (a short tree's figure stays
    // narrow: the legends do not set its width).
    if (m_mode == Mode::Compare && (!m_shared.empty() || !m_missing.empty() || !m_extra.empty())) {
        const double sw = 22.0;
        const double keyWidth = std::max(fm.horizontalAdvance(m_scoreText), 380.0);
        double yc = y;
        if (x > topLeft.x() && x + keyWidth > topLeft.x() + width) {
            x = topLeft.x();
            yc = used.bottom() + 10.0;
        }
        const double right = std::max(x + keyWidth, topLeft.x() + width);
        auto *head = addText(s, m_scoreText, legendFont(), kInk, QPointF(x, yc));
        used = used.united(head->sceneBoundingRect());
        double py = yc + 14.0;
        for (const QString &line : wrapToWidth(m_protocolText, smallFont(), right - x)) {
            auto *protocol = addText(s, line, smallFont(), kPos, QPointF(x, py));
            used = used.united(protocol->sceneBoundingRect());
            py = protocol->sceneBoundingRect().bottom();
        }
        double ry = py + 2.0;
        double cx = x;
        // One key: its glyph (drawn at the key's place) and its text; a key that would pass
        // the right edge starts a new row.
        auto key = [&](const QString &text, const std::function<void(double, double)> &glyph) {
            if (cx > x && cx + sw + 5.0 + QFontMetricsF(legendFont()).horizontalAdvance(text) > right) {
                cx = x;
                ry = used.bottom() + 4.0;
            }
            glyph(cx, ry);
            auto *k = addText(s, text, legendFont(), kInk, QPointF(cx + sw + 5.0, ry));
            used = used.united(k->sceneBoundingRect());
            cx = k->sceneBoundingRect().right() + 16.0;
        };
        key(QStringLiteral("shared (%1)").arg(m_shared.size()), [&](double gx, double gy) {
            QPainterPath box;
            box.addRoundedRect(QRectF(gx, gy + 1.0, sw, 11.0), 3.0, 3.0);
            s->addPath(box, QPen(kShared, 2.2), Qt::white);
        });
        key(QStringLiteral("missing: parser only (%1)").arg(m_missing.size()), [&](double gx, double gy) {
            QPainterPath box;
            box.addRoundedRect(QRectF(gx, gy + 1.0, sw, 11.0), 3.0, 3.0);
            s->addPath(box, QPen(kMissing, 1.6, Qt::DashLine), Qt::white);
        });
        key(QStringLiteral("extra: induced only, under the words (%1)").arg(m_extra.size()), [&](double gx, double gy) {
            QPainterPath br;
            br.moveTo(gx + 1.0, gy + 3.0);
            br.lineTo(gx + 1.0, gy + 8.0);
            br.lineTo(gx + sw - 1.0, gy + 8.0);
            br.lineTo(gx + sw - 1.0, gy + 3.0);
            s->addPath(br, QPen(kExtra, 1.4));
        });
    }
    return used;
}

void ConstituencyView::rebuild()
{
    QGraphicsScene *s = scene();
    s->clear();
    m_primary = DrawnTree{};
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
        y = drawn.rect.bottom();
        if (compare && primary) {
            drawExtraBrackets(drawn, y);
            y = s->itemsBoundingRect().bottom();
        }
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
    // (the mouse may be anywhere: the tree must not slide away from what was centred).
    const double base = logicalDpiX() / 72.0;
    setTransformationAnchor(underMouse ? QGraphicsView::AnchorUnderMouse : QGraphicsView::AnchorViewCenter);
    setTransform(QTransform::fromScale(base * m_zoom, base * m_zoom));
    setTransformationAnchor(QGraphicsView::AnchorUnderMouse);
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

QStringList ConstituencyView::tatHoverLines(int id) const
{
    QStringList lines;
    if (!m_tat || id < 0 || id >= static_cast<int>(m_tat->nodes.size()))
        return lines;
    const TatNodeRecord &r = m_tat->nodes[static_cast<std::size_t>(id)];
    lines << QStringLiteral("TAT node %1, level %2: aggregated at step %3 of %4 (click for the node view)")
                 .arg(id)
                 .arg(r.level)
                 .arg(m_tat->stepOf(r.level))
                 .arg(m_tat->steps());
    std::vector<std::string> words;
    for (const QString &w : m_words)
        words.push_back(w.toStdString());
    const ConstituencyTree *tree = parserTree();
    const auto labels = tree ? tatPositionLabels(*m_tat, id, *tree, words) : std::vector<std::string>();
    auto rows = [&](const std::vector<std::vector<float>> &heads, const QString &stream) {
        for (std::size_t h = 0; h < heads.size(); ++h) {
            QStringList cells;
            for (std::size_t i = 0; i < heads[h].size(); ++i)
                cells << QStringLiteral("%1 %2")
                             .arg(i < labels.size() ? QString::fromStdString(labels[i]) : QString::number(i))
                             .arg(heads[h][i], 0, 'f', 2);
            lines << QStringLiteral("%1 head %2: %3").arg(stream).arg(h + 1).arg(cells.join(QStringLiteral(" | ")));
        }
    };
    rows(r.sem, QStringLiteral("semantic"));
    rows(r.syn, QStringLiteral("syntactic"));
    QStringList norms;
    if (r.normSem >= 0)
        norms << QStringLiteral("‖w^e‖ = %1").arg(r.normSem, 0, 'f', 3);
    if (r.normSyn >= 0)
        norms << QStringLiteral("‖w^n‖ = %1").arg(r.normSyn, 0, 'f', 3);
    if (!norms.isEmpty())
        lines << norms.join(QStringLiteral(", "));
    return lines;
}

} // namespace treelens
