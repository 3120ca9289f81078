#pragma once
/// \file constituencyview.h
/// The constituency tree drawn from a Graphviz (dot) layout in a QGraphicsScene:
/// zoom (Ctrl+wheel, +/-), pan (drag), hover (hovered() with exact values) and export.
/// Leaves sit on one baseline in sentence order. Overlays:
///  - the parser's tree, the model's induced tree (Analysis::inducedTree), both
///    side by side, or one tree (the parser's) with brackets shared with the
///    induced tree highlighted, parser-only brackets marked "missing" and
///    induced-only brackets listed/marked "extra". The comparison and its P/R/F1
///    follow eval-induction's protocol (core/eval/inductioneval.h): punctuation
///    removed (the model's brackets from Analysis::withoutPunctuation, the model
///    run on the words without punctuation, else its brackets with the punctuation
///    taken out, which the header then says), unlabelled, single words and the whole
///    sentence not compared; so the header's F1 is the one eval-induction reports;
///  - the constituent prior of the selected layer as the cohesion of each
///    constituent: for span [i, j) the prior C[i][j-1] between its first and last
///    word (Tree Transformer C, over tokens via Analysis::wordToken), drawn as the
///    node's fill colour (sequentialColor) with the value in the tooltip; a
///    one-word constituent has no cohesion (C of a word with itself is 0 by
///    construction) and is drawn grey, "n/a" in the legend;
///  - notes at the top on what the figure cannot show: where the tree came from
///    (gold or predicted), words the model does not know, no constituent prior;
///  - "attention from word X" (ViewState::focusWord): each leaf coloured by the
///    attention X gives it (selected layer/head), each constituent by the sum over
///    its leaves; for a causal model (Analysis::causalAttention) the words after X and the
///    constituents of only such words are grey: not possible (causalNote), not attention 0;
///  - the Corpus dock's query (ViewData::marks, patternmarks.h): the leaves and constituents a
///    pattern bound, outlined in its nodes' colours with their names on a chip;
///  - a language model's surprisal (Analysis::surprisal) as a band under the leaves of the
///    primary tree (surprisalscale.h: viridis, its key "surprisal, nats" under the band, the
///    value on hover, hatched where nothing predicts the word), unless setShowSurprisal(false).

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include <QGraphicsView>

#include "viz/backgroundwork.h"
#include "viz/graphlayout.h"
#include "viz/aggregationnodes.h"
#include "viz/viewcommon.h"

class QGraphicsItem;
class QGraphicsPathItem;
class QMenu;

namespace treelens {

class SurprisalBandItem;

class ConstituencyView : public QGraphicsView, public ExportableView {
    Q_OBJECT
public:
    enum class Mode { Parser, Induced, SideBySide, Compare };
    enum class Overlay { None, Cohesion, FocusAttention };

    explicit ConstituencyView(QWidget *parent = nullptr);
    ~ConstituencyView() override;

    /// Trees of at least `asyncLayoutWords()` words are laid out by Graphviz
    /// through `work` (the app gives its JobRunner: a 200-word tree takes ~100 ms
    /// in dot); meanwhile the view says so, and layoutFinished() follows. Without
    /// it (the default) everything is synchronous. Exports never see a pending
    /// layout: exportSize()/renderTo() finish it first.
    void setBackgroundWork(BackgroundWork work) { m_work = std::move(work); }
    bool asyncLayout() const { return static_cast<bool>(m_work); }
    static constexpr int asyncLayoutWords() { return 60; }
    /// A tree's layout is still being computed on the worker thread.
    bool layoutPending() const;
    /// Finishes pending layouts on this thread and redraws (no-op without any).
    void finishPendingLayouts();

    void setData(const ViewData &data);
    void setState(const ViewState &state);
    void setMode(Mode mode);
    /// Zooms so the whole tree is visible, between 45% and 100% of print size.
    void fitToViewport();
    void setOverlay(Overlay overlay);
    /// Editing (issue 33, off by default): the context menu of a phrase removes or
    /// relabels its bracket; of a word, brackets that word, or the words from the focus
    /// word to it, with a label. Only the sentence's own tree is edited (not the
    /// induced one: the menu is empty in the Induced mode). Each asks with
    /// treeEditRequested() in the edit language of core/data/treeedit.h.
    void setEditable(bool editable);
    bool isEditable() const { return m_editable; }
    /// The phrase labels the menus offer: the tree's own and the Penn Treebank's.
    QStringList phraseLabels() const;
    /// The context menu at `viewPos` (viewport coordinates), owned by the caller;
    /// nullptr when not editable or nothing to edit there.
    QMenu *editMenuAt(const QPoint &viewPos, QWidget *parent = nullptr);
    /// The same for a phrase of span [start, end) (words), or word `word` (span {-1, -1}).
    QMenu *editMenu(std::pair<int, int> span, int word, QWidget *parent = nullptr);
    Mode mode() const { return m_mode; }
    Overlay overlay() const { return m_overlay; }
    /// Whether a language model's surprisal is drawn as a band under the leaves (on by default;
    /// drawn when the analysis has a surprisal for each word).
    void setShowSurprisal(bool show);
    bool showsSurprisal() const { return m_showSurprisal; }
    /// The surprisal band under the primary tree's leaves (SurprisalBandItem, surprisalscale.h:
    /// one per word; empty without it).
    std::vector<SurprisalBandItem *> surprisalBands() const { return m_surprisalBands; }

    // For tests: what is in the scene.
    /// Leaf (word) items of the primary tree, left to right: the word boxes
    /// (QGraphicsPathItem, brush = overlay colour; word and POS tag are child text items).
    std::vector<QGraphicsItem *> leafItems() const;
    /// Phrase-node items of the primary tree with their spans ([start, end) over words).
    std::vector<std::pair<QGraphicsItem *, std::pair<int, int>>> phraseItems() const;
    /// With word attributions (the Explain dock, overlay::kAttributionWord): the badge on
    /// each node of the primary tree (its data(1) the sum over the node's words) and the span.
    std::vector<std::pair<QGraphicsItem *, std::pair<int, int>>> attributionBadges() const { return m_primary.attributionBadges; }
    /// The corpus query's outlines on the primary tree (ViewData::marks; patternmarks.h): one
    /// per word or constituent bound, data(1) = the pattern's names, data(2)/data(3) its words.
    std::vector<QGraphicsItem *> patternMarkItems() const { return m_primary.patternMarks; }
    /// Compare mode: spans classified as shared / parser-only (missing) / induced-only (extra).
    std::vector<std::pair<int, int>> sharedSpans() const;
    std::vector<std::pair<int, int>> missingSpans() const;
    std::vector<std::pair<int, int>> extraSpans() const;
    /// Compare mode: the header's line with P/R/F1 ("" when nothing is compared).
    QString scoreText() const { return m_scoreText; }
    /// The notes drawn at the top (what the figure cannot show, where the tree came from).
    QStringList notes() const { return m_notes; }
    /// The fill of a phrase whose cohesion does not apply (one word).
    static QColor notApplicableColor();
    /// TAT: the deepest phrase level of the batch this tree was aggregated in (the pair's
    /// two trees), so that a step means the same level on both sides; -1 = this tree's own.
    void setAggregationDepth(int maxLevel);
    /// TAT: the phrase drawn as selected (its node id; -1 = none).
    void setSelectedTatNode(int id);
    int selectedTatNode() const { return m_selectedTat; }
    /// TAT: the phrase items with their node id and phase at the current aggregation step (for tests).
    std::vector<std::pair<int, int>> tatPhrasePhases() const { return m_tatPhases; }

    QSizeF exportSize() const override;
    void renderTo(QPainter *painter, const QRectF &target) override;
    QString exportName() const override { return QStringLiteral("constituency"); }

Q_SIGNALS:
    /// Text for the inspector: exact values under the mouse.
    void hovered(const QString &text);
    /// A leaf was clicked: make it the focus word.
    void wordClicked(int word);
    /// A layout computed on the worker thread arrived and the tree is drawn.
    void layoutFinished();
    /// A Tree Aggregation Transformer phrase was clicked (its post-order node id).
    void phraseClicked(int tatNode);
    /// An edit of the tree the user asked for, in the edit language ("bracket 3-4 NP").
    void treeEditRequested(const QString &edit);

protected:
    void wheelEvent(QWheelEvent *event) override;
    void keyPressEvent(QKeyEvent *event) override;

private:
    void mousePressEvent(QMouseEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;
    void mouseReleaseEvent(QMouseEvent *event) override;
    void contextMenuEvent(QContextMenuEvent *event) override;

    /// A tree prepared for drawing: the visible nodes and their dot layout.
    /// Cached per tree, since only the colours change with layer/head/overlay.
    struct TreeGraph {
        enum class Kind { Phrase, Dot, Word };
        struct Node {
            Kind kind = Kind::Phrase;
            QString text;
            std::pair<int, int> span{0, 0};
            QString pos;         ///< Word nodes: POS tag drawn above the word (parser trees)
            int word = -1;       ///< Word nodes: word index
            int tatNode = -1;    ///< Phrase nodes of a parser tree: the id in the TAT's node order (phrasePostOrder)
        };
        std::vector<Node> nodes;
        std::vector<std::pair<int, int>> edges;
        GraphLayoutResult layout;
        QString error;           ///< non-empty when the layout failed
        bool pending = false;    ///< laid out on the worker thread, not arrived yet
        GraphLayoutRequest request; ///< kept while pending (finishPendingLayouts)
        /// Stores a finished layout (or its error); no longer pending.
        void setLayout(Result<GraphLayoutResult> result);
    };
    /// The Tree Aggregation Transformer's node attention of the selected head on the
    /// edge parent phrase -> child (graph node ids); -1 when the analysis has none for it.
    double nodeAttentionWeight(const TreeGraph &graph, int parent, int child) const;
    /// The legends' 0..1 colour bar in `bar` with ticks 0, 0.5, 1; returns the scene rectangle used.
    QRectF addColourBar(const QRectF &bar);
    /// true when the analysis carries node attention for the parser tree's phrases (a TAT pair side).
    bool nodeAttentionActive() const;
    /// A recursive tree model's node attention (CTT, binary Tree-LSTM), matched to the drawn tree by span.
    bool recursiveNodes() const;
    /// The selected head as the legend and tooltips name it ("semantic head 2", "branch 3").
    QString nodeHeadName() const;
    /// A recursive model's node (the drawn phrase `parent`, by span) still pending at the composition step.
    bool recursivePendingEdge(const TreeGraph &graph, int parent) const;
    /// What one drawn tree left in the scene.
    struct DrawnTree {
        std::vector<QGraphicsPathItem *> words;  ///< by word index (null for missing words)
        std::vector<std::pair<QGraphicsItem *, std::pair<int, int>>> phrases;
        /// With word attributions (overlay::kAttributionWord): each node's badge and its span.
        std::vector<std::pair<QGraphicsItem *, std::pair<int, int>>> attributionBadges;
        std::vector<QGraphicsItem *> nodes;      ///< by graph node (TreeGraph::nodes)
        std::vector<QGraphicsItem *> patternMarks; ///< the corpus query's outlines (drawPatternMarks)
        QRectF rect;                             ///< scene rect of the tree
    };

    void rebuild();
    void applyZoom(bool underMouse = false);
    const ConstituencyTree *parserTree() const;
    const ConstituencyTree *inducedTree() const;
    const TreeGraph &graphFor(const ConstituencyTree &tree, bool induced);
    DrawnTree drawTree(const TreeGraph &graph, QPointF topLeft, bool compare);
    // The parts of drawTree (constituencypaint.cpp).
    struct NodeLook; ///< a node's shape, colours and hover lines
    /// The tree's edges, coloured by node attention where the analysis has it.
    void drawTreeEdges(const TreeGraph &graph, QPointF offset);
    /// How `node` looks with the overlay (`overlay`: overlayActive()), the comparison
    /// (`compare`) and the TAT's step.
    NodeLook nodeLook(const TreeGraph::Node &node, bool compare, bool overlay);
    /// A phrase or induced-bracket dot: its box, the comparison's verdict, the TAT's phase;
    /// `notApplicable`: a one-word span under the cohesion overlay.
    void lookOfPhrase(const TreeGraph::Node &node, bool compare, bool notApplicable, NodeLook &look);
    void lookOfWord(const TreeGraph::Node &node, bool overlay, NodeLook &look) const;
    /// The node's overlay colour (cohesion, focus attention) and its hover line.
    void lookOfValue(const TreeGraph::Node &node, double value, NodeLook &look) const;
    /// The node's item at `centre` with its text (and a word's tag), noted in `drawn`; not yet in the scene.
    QGraphicsPathItem *nodeItem(const TreeGraph::Node &node, const NodeLook &look, QPointF centre, DrawnTree &drawn) const;
    /// The surprisal band under `tree`'s leaves (from `top`); returns the bottom it reaches
    /// (`top` without a band). Its key (drawSurprisalKey) goes under the extra brackets.
    double drawSurprisalBand(const DrawnTree &tree, double top);
    double drawSurprisalKey(const DrawnTree &tree, double top);
    /// The band is drawn: shown, and the analysis has a surprisal for each word.
    bool surprisalShown() const;
    /// The corpus query's marks are this sentence's (ViewData::marks).
    bool patternMarksShown() const;
    /// Outlines the nodes of the parser's tree the corpus query bound (its words by their leaf,
    /// a constituent by its node: same words and label).
    void drawPatternMarks(const TreeGraph &graph, DrawnTree &drawn);
    void classifySpans();
    QRectF drawLegends(QPointF topLeft, double width);
    void drawExtraBrackets(const DrawnTree &tree, double top);
    std::optional<double> cohesion(std::pair<int, int> span) const;
    /// The selected layer has a prior to read cohesion from.
    bool hasCohesion() const;
    /// A span over the words as the comparison sees it (punctuation out); {0, 0} when it covers no kept word.
    std::pair<int, int> comparedSpan(std::pair<int, int> span) const;
    /// Forgets the last comparison (spans, kept-word mapping, score texts).
    void clearComparison();
    QStringList collectNotes() const;
    double drawNotes(double top, double width);
    std::optional<double> focusAttention(std::pair<int, int> span) const;
    bool overlayActive() const;
    QString spanText(std::pair<int, int> span) const;
    QString hoverTextAt(const QPoint &viewPos, int *word) const;

    ViewData m_data;
    ViewState m_state;
    bool m_editable = false;
    Mode m_mode = Mode::Compare;
    Overlay m_overlay = Overlay::Cohesion;

    /// Built from Analysis::inducedBrackets when the analysis has no inducedTree.
    std::optional<ConstituencyTree> m_builtInduced;
    std::map<const ConstituencyTree *, TreeGraph> m_graphs;
    BackgroundWork m_work;
    /// The job slot of a tree's layout (one per tree: side by side, both may be pending).
    QString layoutSlot(const ConstituencyTree *tree) const;
    /// Supersedes every pending layout job (their results are dropped).
    void cancelLayoutJobs();
    void layoutArrived(const ConstituencyTree *tree, Result<GraphLayoutResult> layout);
    std::vector<QString> m_words;                 ///< words of the sentence, for hover texts
    DrawnTree m_primary;
    std::vector<std::pair<int, int>> m_shared, m_missing, m_extra;  ///< over the words as drawn
    /// The comparison over the words without punctuation: the kept words, each word's
    /// index among them (size words + 1), the classified spans there, the score.
    std::vector<int> m_kept, m_keptIndex;
    std::set<std::pair<int, int>> m_sharedKept, m_missingKept;
    QString m_scoreText, m_protocolText;
    QStringList m_notes;
    double m_zoom = 1.0;
    QPoint m_pressPos;
    int m_pressWord = -1;
    QString m_lastHover;
    std::optional<AggregationNodes> m_tat; ///< the analysis' aggregation nodes (nullopt: it has none)
    int m_selectedTat = -1;
    int m_aggregationDepth = -1;
    int m_pressTat = -1;
    std::vector<std::pair<int, int>> m_tatPhases; ///< (node id, AggregationPhase) as drawn
    bool m_showSurprisal = true;
    std::vector<SurprisalBandItem *> m_surprisalBands;
    /// TAT: the hover lines of phrase `id` (level, step, weights per stream and head, norms).
    QStringList tatHoverLines(int id) const;
    int tatNodeAt(const QPoint &viewPos) const;
};

} // namespace treelens
