#pragma once
/// \file compositionview.h
/// The bottom-up composition of a recursive tree model (core/encoders/recursive:
/// CTT, DTT, DTT + edges, the attentive Tree-LSTMs), drawn on the model's own tree
/// (unary chains collapsed, the binary Tree-LSTM's @X dummies shown, a dependency
/// node per head word): words on the baseline, every internal node at its height,
/// an edge from each node to each member with colour and width = the attention the
/// member receives in the selected branch (mean over the querying members; the
/// dependency models' own head word dashed), with a legend.
///
/// The teaching demo: ViewState::aggregationStep = k shows the composition up to
/// height k (nodes of height k are being composed, highlighted; higher nodes pending,
/// grey); 0 shows it done. A panel beside the tree details the selected node (hover
/// or click; the root by default): its branches' weights over its members as a grid,
/// the model's branch weights κ and α as a bar chart (multi-branch models), the
/// Tree-LSTM's gates and per-child forget gates, the DTT + edges traversal's
/// forward/backward attention, the node-state norm; and the model's prediction.
/// Exports to PNG/SVG/PDF (PaintedExportView).

#include <cstddef>
#include <vector>

#include <QPolygonF>
#include <QRectF>
#include <QWidget>

#include "viz/viewcommon.h"

namespace treelens {

/// The route of a tree edge from `from` (a node's bottom) down to `to` (a member's
/// top) that keeps clear of `obstacles` (the other nodes' boxes): the straight line
/// when it is clear, else down a free gap beside the boxes in the way — leaving `from`
/// within `bandBelowFrom` pixels and entering `to` from `bandAboveTo` pixels above it
/// (the free bands between the levels). The straight line when no route is clear.
QPolygonF routeTreeEdge(QPointF from, QPointF to, const std::vector<QRectF> &obstacles, double bandBelowFrom,
                        double bandAboveTo);

class CompositionView : public PaintedExportView {
    Q_OBJECT
public:
    explicit CompositionView(QWidget *parent = nullptr);
    void setData(const ViewData &data);
    void setState(const ViewState &state);
    /// Pins the detail panel to a node (-1: the root).
    void selectNode(int node);
    int selectedNode() const { return m_selected; }
    /// Heights of the tree (the steps of the demo; 0 when the analysis has no nodes).
    int steps() const;
    /// Whether the analysis is a recursive model's (otherwise the view shows a hint).
    bool applies() const;
    /// One drawn edge: node -> its member (index into NodeAttention::targets), and its route.
    struct Edge {
        int node = -1;
        std::size_t member = 0;
        QPolygonF route;
    };
    /// The edges as drawn (for tests: no edge crosses a node it does not join).
    const std::vector<Edge> &edges() const { return m_edges; }
    /// The boxes of the nodes, in NodeAttention order.
    const std::vector<QRectF> &nodeRects() const { return m_layout.nodeRects; }

    QString exportName() const override { return QStringLiteral("composition"); }
    QSize sizeHint() const override;

Q_SIGNALS:
    void hovered(const QString &text);
    void wordClicked(int word);

protected:
    void paint(QPainter &p, const QSizeF &size) const override;
    void mouseMoveEvent(QMouseEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;

private:
    struct Layout {
        std::vector<QPointF> words, nodes; ///< centres
        std::vector<QRectF> nodeRects;
        double treeWidth = 0, treeHeight = 0, top = 0;
    };
    struct Fonts; ///< the fonts of one painting (compositionview.cpp)
    void relayout();
    // The parts of paint(), in the order they are drawn.
    /// What is drawn, the step (of `lastStep`), the prediction, the legend.
    void paintHeader(QPainter &p, const Fonts &fonts, int step, int lastStep) const;
    /// Edges first, so nodes and words go over them.
    void paintEdges(QPainter &p, int step, const std::vector<int> &heights) const;
    /// The node the panel details: hovered, pinned, else one being composed at this step, else the root.
    int detailedNode(int step, const std::vector<int> &heights) const;
    void paintNodes(QPainter &p, const Fonts &fonts, int step, const std::vector<int> &heights, int detail) const;
    void paintWords(QPainter &p) const;
    /// The panel of node `detail` beside the tree: its title, its members' weights, the model's branch weights, its cell.
    void paintDetail(QPainter &p, const Fonts &fonts, int detail, const std::vector<int> &heights) const;
    /// The member grid from `y`: one row per branch (or the Tree-LSTM's attention), edge attention and
    /// forget gates, one column per member; returns the y under it.
    double paintMemberGrid(QPainter &p, const Fonts &fonts, const NodeAttention &na, double x, double y) const;
    /// The multi-branch models' κ and α as bars from `y` (nothing without them); returns the y under them.
    double paintBranchWeights(QPainter &p, const Fonts &fonts, double x, double y) const;
    /// A Tree-LSTM node's gates: the mean of i, o, u, c, h (nothing without them).
    void paintCellGates(QPainter &p, const Fonts &fonts, const NodeAttention &na, double x, double y) const;
    /// The selected branch (the head of the state, clamped to the model's branches).
    int selectedBranch() const;
    std::vector<Edge> routeEdges() const;
    int nodeAt(const QPointF &pos) const;
    QString nodeText(int node) const;
    double memberWeight(int node, std::size_t member) const;

    ViewData m_data;
    ViewState m_state;
    Layout m_layout;
    std::vector<Edge> m_edges; ///< routed in relayout()
    int m_selected = -1;   ///< pinned node (-1 = the root)
    int m_hover = -1;
};

} // namespace treelens
