#pragma once
/// \file dependencyview.h
/// The dependency tree displaCy-style: words on one baseline, arcs above them
/// with relation labels and arrowheads at the dependent; stays readable for 60+
/// words (horizontal scrolling, arc height by span length). Attention of the
/// selected layer/head is drawn as arcs below the words whose width and opacity
/// encode the weight (only weights >= ViewState::threshold; with a focus word only
/// its outgoing attention); tree arcs are coloured by the attention from the
/// dependent to its head (sequentialColor), with a legend. An optional
/// hierarchical layout (Graphviz dot, via graphlayout.h) shows the same tree top-down.
///
/// Attention arcs without a focus word: every pair (i → j, i ≠ j) at or above the
/// threshold for sentences of up to kAllPairsMaxWords words; longer sentences keep
/// only the kTopPerRow strongest targets of each word so the arcs stay readable.
/// The hierarchical layout shows the tree (arcs coloured the same way) but no
/// attention arcs.
///
/// Above the tree, notes say where it came from (gold from the corpus file, or
/// predicted by the parser: then the relation labels are its guesses too) and when
/// the model did not know most of the words (viewcommon.h).
///
/// Dependency-Transformer analyses (Analysis::relations and relationGate set) switch
/// to the relation mode: every arc's colour is the relation gate g of the query
/// word for that pair (sequentialColor; 0 = the plain score, 1 = the relation
/// score) and its width the selected attention (combined, plain or relation,
/// ViewState); tree arcs (dependent → head, the root arc to `[root]`) above the
/// words, every other pair at or above the threshold below them, dashed where the
/// model reads `[none]` (farther than T), solid for infilled `a:b` pairs and head →
/// dependent. Tooltips name the relation, the tree distance, the weight and the gate.
///
/// Editing (issue 33, off by default: setEditable): drag a word onto another word to
/// make that its head; a word's context menu (also from the keyboard's menu key, for
/// the focus word) makes it the root, attaches it to any other word, or gives it
/// another relation (the model's arc labels for a relation-aware model, else the UD
/// relations and the sentence's own). Each asks with treeEditRequested() in the edit
/// language of core/data/treeedit.h ("head 4=14"); whoever applies it checks it.
///
/// A causal model (Analysis::causalAttention: a decoder-only language model) attends only to
/// itself and earlier words: no attention arc goes to a later word (not possible, not weight
/// 0: none is drawn, whatever the threshold), a tree arc is coloured by the attention of its
/// later word to its earlier one (the only direction a causal head sees it in, as the heads
/// overview scores it), and the legend says so.
///
/// The Corpus dock's query (ViewData::marks, patternmarks.h): each word a pattern node is
/// bound to is outlined in that node's colour with its name on a chip (a Tregex constituent:
/// one outline over its words), and a note says so.
///
/// A language model's surprisal (Analysis::surprisal) is a band right under the words (viridis,
/// its key "surprisal, nats" under the drawing; hover: the value and what it is conditioned on;
/// hatched where nothing predicts the word), unless setShowSurprisal(false).
///
/// Scene items carry data(0) = kind ("word", "tree-arc", "relation-label",
/// "attention-arc", "legend", "note", "surprisal", "surprisal-key") and data(1) = the word
/// index / relation, for tests and tools. Arc items are QGraphicsPathItems whose pen colour is the arc colour.

#include <utility>
#include <vector>

#include <QGraphicsView>
#include <QStringList>

#include "viz/viewcommon.h"

class QGraphicsItem;
class QGraphicsLineItem;
class QGraphicsSimpleTextItem;
class QGraphicsScene;
class QMenu;

namespace treelens {

class DependencyView : public QGraphicsView, public ExportableView {
    Q_OBJECT
public:
    enum class Layout { Arcs, Hierarchical };

    /// Sentences up to this many words show all attention pairs >= threshold.
    static constexpr int kAllPairsMaxWords = 30;
    /// Longer sentences (without a focus word): the strongest targets kept per word.
    static constexpr int kTopPerRow = 3;

    explicit DependencyView(QWidget *parent = nullptr);

    void setData(const ViewData &data);
    void setState(const ViewState &state);
    void setLayout(Layout layout);
    Layout layoutMode() const { return m_layout; }
    void setShowAttention(bool show);
    /// Whether the user may edit the tree (drag, context menu); see the file comment.
    void setEditable(bool editable);
    bool isEditable() const { return m_editable; }
    /// The relations the context menu offers (see the file comment).
    QStringList relationLabels() const;
    /// The context menu of word `word` (0-based), owned by the caller; nullptr when the
    /// view is not editable or there is no such word.
    QMenu *editMenu(int word, QWidget *parent = nullptr);
    /// The word under `viewPos` (viewport coordinates), -1 when none.
    int wordAt(const QPoint &viewPos) const;

    // For tests: what is in the scene.
    std::vector<QGraphicsItem *> wordItems() const;   ///< left to right
    /// One per dependency (root included): (dependent, head) 0-based, head -1 for the root.
    std::vector<std::pair<QGraphicsItem *, std::pair<int, int>>> treeArcItems() const;
    /// Attention arcs drawn: (from, to) words and the weight.
    struct AttentionArc { QGraphicsItem *item; int from; int to; float weight; };
    std::vector<AttentionArc> attentionArcItems() const;
    /// The notes drawn above the tree: where it came from (gold or predicted), unknown words.
    QStringList notes() const { return m_notes; }
    /// The attribution bands under the words (one per word; empty without attributions:
    /// overlay::kAttributionWord), data(1) = the word.
    std::vector<QGraphicsItem *> attributionBands() const { return m_attributionBands; }
    /// Whether a language model's surprisal is drawn as a band under the words (on by
    /// default; drawn when the analysis has a surprisal for each of the sentence's words).
    void setShowSurprisal(bool show);
    bool showsSurprisal() const { return m_showSurprisal; }
    /// The surprisal band (SurprisalBandItem, surprisalscale.h: one per word, data(0) =
    /// "surprisal", data(1) = the word; empty without it). Its key ("surprisal, nats") is under
    /// the drawing, data(0) = "surprisal-key"; the attribution bands go under it.
    std::vector<QGraphicsItem *> surprisalBands() const { return m_surprisalBands; }
    /// The corpus query's outlines (ViewData::marks; patternmarks.h): one per word or
    /// constituent bound, data(1) = the pattern's names, data(2)/data(3) = its first and last word.
    std::vector<QGraphicsItem *> patternMarkItems() const { return m_patternMarks; }

    QSizeF exportSize() const override;
    void renderTo(QPainter *painter, const QRectF &target) override;
    QString exportName() const override { return QStringLiteral("dependency"); }

Q_SIGNALS:
    void hovered(const QString &text);
    void wordClicked(int word);
    /// An edit of the tree the user asked for, in the edit language ("head 4=14").
    void treeEditRequested(const QString &edit);

protected:
    void wheelEvent(QWheelEvent *event) override;
    void keyPressEvent(QKeyEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;
    void mouseReleaseEvent(QMouseEvent *event) override;
    void contextMenuEvent(QContextMenuEvent *event) override;

private:
    struct Arc;        // one tree arc being laid out (defined in the .cpp)
    struct WordInfo;   // one word's text, tag and sizes

    void rebuild();
    /// The words, tags and arcs of the current sentence (independent of layout).
    void collect(std::vector<WordInfo> &words, std::vector<Arc> &arcs) const;
    /// true when tree arcs are coloured by attention (analysis with the selected matrix).
    bool colouredByAttention() const;
    /// Dependency-Transformer analyses: arcs coloured by the relation gate, width = attention.
    bool relationMode() const;
    /// Recursive dependency models (DTT, DTT + edges, Child-Sum Tree-LSTM): arcs show the head's composition.
    bool recursiveMode() const;
    QString recursiveBranchName() const;
    /// The height of the node of `head` among `heights` (recursiveNodeHeights; 0: a word without dependents).
    int recursiveHeight(int head, const std::vector<int> &heights) const;
    /// The weight the node of `head` gave `dependent` in `array` ("attn": Analysis weights of the selected
    /// branch; "edge_fwd.attn" / "edge_bwd.attn": the edge traversal, mean over the query edges); -1 when none.
    double recursiveWeight(int head, int dependent, const char *array) const;
    double gateOf(int fromToken, int toToken) const;  ///< -1: unavailable
    int tokenOf(int word) const;                       ///< -1 (ROOT) -> the [root] token 0
    QString relationPairText(int from, int to) const;  ///< words; -1 = ROOT
    double addRelationLegend(const QPointF &topLeft, bool attentionKey);
    /// One line of legend text (data(0) = "legend").
    QGraphicsSimpleTextItem *addLegendText(const QString &text, const QFont &font, const QPointF &pos);
    /// The 0..1 colour bar of the legends with its ticks and `unit`; returns the height used.
    double addColourBar(const QPointF &topLeft, const QString &unit);
    /// The attention pairs to draw (arcs layout), filtered as the file comment says.
    std::vector<AttentionArc> attentionPairs(int words) const;
    void buildArcs(std::vector<WordInfo> &words, std::vector<Arc> &arcs);
    /// The attention arcs below the words of the arcs layout (`wordRowH`: the height of the word row).
    void addAttentionArcs(const std::vector<WordInfo> &words, double wordRowH);
    bool buildHierarchical(std::vector<WordInfo> &words, std::vector<Arc> &arcs, QString *error);
    void addWordItems(const std::vector<WordInfo> &words, bool boxed);
    void addTreeArc(const Arc &arc, const QPainterPath &path, const QPolygonF &arrow, const QPointF &labelAt);
    /// Adds the legend with its top-left corner at `topLeft`; returns its height.
    double addLegend(const QPointF &topLeft, bool attentionKey);
    /// Adds the legend from x = `left` with its bottom 14 above `top`.
    void addLegendAbove(double left, double top, bool attentionKey);
    QString arcText(int dependent, int head) const;
    QString wordText(int word) const;
    /// The surprisal band is drawn: shown, and the analysis has a surprisal for each word.
    bool surprisalShown() const;
    /// The room the surprisal band takes under the words (0 without it).
    double surprisalBandSpace() const;
    /// The bands under the words (the surprisal band, then the Explain dock's attributions
    /// `below` it) and their notes.
    void addWordBands();
    void addSurprisalBand();
    void addAttributionBands(double below);
    /// The corpus query's outlines around the words it bound (after the words are placed).
    void addPatternMarks();
    static constexpr double kSurprisalBandHeight = 8.0;

    ViewData m_data;
    ViewState m_state;
    Layout m_layout = Layout::Arcs;
    bool m_showAttention = true;

    QGraphicsScene *m_scene = nullptr;
    std::vector<QGraphicsItem *> m_wordItems;
    std::vector<std::pair<QGraphicsItem *, std::pair<int, int>>> m_treeArcs;
    std::vector<AttentionArc> m_attentionArcs;
    bool m_topKApplied = false; ///< the last rebuild kept only the top-k per row
    QStringList m_notes;
    bool m_editable = false;
    int m_dragFrom = -1;                      ///< the word being dragged onto its new head
    QPoint m_pressPos;
    QGraphicsLineItem *m_dragLine = nullptr;  ///< from the dragged word to the mouse
    std::vector<QGraphicsItem *> m_attributionBands;
    std::vector<QGraphicsItem *> m_surprisalBands;
    std::vector<QGraphicsItem *> m_patternMarks;
    bool m_showSurprisal = true;
};

} // namespace treelens
