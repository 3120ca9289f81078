#pragma once
/// \file heatmapview.h
/// Heatmaps of one analysis with QCustomPlot (QCPColorMap): the constituent
/// prior C of a layer, with the induced brackets drawn as boxes on it (one
/// QCPItemRect per bracket: the block [start, end) × [start, end) over words),
/// or the attention of a layer/head (before or after ×C, ViewState::weightedAttention).
/// Token labels on both axes (rows = from/query, columns = to/key; row 0 at the
/// top), a colour scale with its unit (for attention: what a row sums to — 1 for
/// the softmax, less after ×C, which is not renormalised), hover → hovered() with
/// the exact value and the row's sum. Under the title: the key of the bracket boxes
/// and notes on what the figure cannot show (viewcommon.h).
/// Handles 256×256 smoothly (one QCPColorMap, no per-cell items).

#include <string>
#include <utility>
#include <vector>

#include <QStringList>
#include <QWidget>

#include "core/probing/attentiontree.h"
#include "viz/viewcommon.h"

class QCustomPlot;
class QCPAxisRect;
class QCPColorMap;
class QCPColorScale;
class QCPItemRect;
class QCPMarginGroup;
class QCPTextElement;
class QScrollArea;

namespace treelens {

class PlotTitle;

class HeatmapView : public QWidget, public ExportableView {
    Q_OBJECT
public:
    /// Relation and Gate: Dependency-Transformer analyses (Analysis::relations,
    /// relationGate). Relation: the relation matrix the model read, coloured by the
    /// tree distance a + b, each cell labelled with its relation (arc label, `a:b`,
    /// `·` for [none]) while the cells are large enough; Gate: the gate g of the
    /// selected layer/head, the tree's arcs boxed.
    /// Pieces: the attention between word pieces (Analysis::pieceAttention) of a
    /// word-piece model, labelled with the pieces.
    enum class Kind { Prior, Attention, Relation, Gate, Pieces };

    explicit HeatmapView(Kind kind, QWidget *parent = nullptr);

    void setData(const ViewData &data);
    void setState(const ViewState &state);
    Kind kind() const { return m_kind; }

    // For tests.
    QCustomPlot *plot() const { return m_plot; }
    int rowCount() const;   ///< tokens shown (0 without data)
    /// The value of the cell in row r (query token), column c (key token), as plotted.
    double cellValue(int r, int c) const;
    /// Bracket boxes drawn (Prior kind): [start, end) over words.
    std::vector<std::pair<int, int>> bracketBoxes() const;
    /// Cell boxes drawn (Gate kind: the tree's arcs), (row, column) tokens, sorted.
    std::vector<std::pair<int, int>> cellBoxes() const;
    /// Cell labels drawn (Relation kind): the text in cell (r, c), "" when none.
    QString cellLabel(int r, int c) const;
    /// What hovering cell (r, c) says (the tooltip and the status bar).
    QString cellText(int r, int c) const;
    /// The lines under the title: the key of the bracket boxes, notes on what the figure cannot show.
    QStringList titleLines() const;
    /// The colour scale's label (what the colours measure).
    QString scaleLabel() const;
    /// Every k-th token is labelled on the axes (1: all; 0 before the first layout),
    /// and at what point size.
    int tickStep() const { return m_tickStep; }
    double tickPointSize() const { return m_tickPt; }

    QSizeF exportSize() const override;
    void renderTo(QPainter *painter, const QRectF &target) override;
    QString exportName() const override;

Q_SIGNALS:
    void hovered(const QString &text);

private:
    void rebuild();
    /// The matrix the kind and state select (nullptr: nothing to show).
    /// The labels of the rows and columns: the analysis' tokens, or its pieces (Kind::Pieces).
    const std::vector<std::string> &axisTokens() const;
    const Matrix *currentMatrix() const;
    /// "after ×C" / "softmax before ×C", empty for models without a prior.
    QString attentionVariant() const;
    /// Thins and rotates the token labels for a map `axisPixels` on its shorter side; true when changed.
    bool updateTicks(double axisPixels);
    void handleHover(const QPointF &pos, const QPoint &globalPos);
    /// Relation/Gate: the boxes (tree arcs) or the cell labels of those kinds.
    void addRelationItems(int n);
    Kind m_kind;
    Matrix m_distance; ///< Relation kind: a + b of every pair (what the colours show)
    std::vector<std::vector<QString>> m_labels; ///< Relation kind: cell texts [row][column]
    ViewData m_data;
    ViewState m_state;
    QCustomPlot *m_plot = nullptr;
    QCPColorMap *m_map = nullptr;
    QCPColorScale *m_scale = nullptr;
    PlotTitle *m_title = nullptr;
    QCPMarginGroup *m_margins = nullptr;
    int m_rows = 0;
    int m_tickStep = 0;   ///< every k-th token labelled (0: not computed yet)
    bool m_rotated = false;
    double m_tickPt = 0.0; ///< the token labels' point size (smaller before thinned)
};

/// A layers × heads grid of small attention maps (QCustomPlot, one axis rect per
/// cell, rows = layers from the top, columns = heads). Clicking a cell emits
/// cellActivated(layer, head); the selected cell is outlined.
///
/// When the sentence has a dependency tree of its words, a band under each map
/// says how syntactic that head is on it (Clark et al. 2019's criteria, as
/// `probe --task head-accuracy` counts them over a treebank, core arcHits): the
/// share of the tree's arcs whose dependent attends most to its head (d→h) or whose
/// head attends most to the dependent (h→d), the better of the two, coloured on
/// its own scale; the title names the tree (parsed, gold) and the best fixed-offset
/// baseline on the same arcs, and a head above that baseline is written in bold.
class AttentionOverview : public QWidget, public ExportableView {
    Q_OBJECT
public:
    explicit AttentionOverview(QWidget *parent = nullptr);
    void setData(const ViewData &data);
    void setState(const ViewState &state);

    QCustomPlot *plot() const { return m_plot; }
    int gridLayers() const;
    int gridHeads() const;
    /// Value of cell (r, c) of the map at (layer, head), as plotted.
    double cellValue(int layer, int head, int r, int c) const;
    /// The notes under the title (what the figure cannot show).
    QStringList titleLines() const;
    /// How syntactic (layer, head) is on the sentence's dependency tree: the
    /// better direction's share of its arcs in [0, 1]; NaN without a band there.
    double syntacticScore(int layer, int head) const;
    /// The band's text ("67% d→h"; "" without a band).
    QString syntacticLabel(int layer, int head) const;
    /// The share of the arcs the best fixed offset gets (NaN without bands).
    double offsetBaseline() const;

    QSizeF exportSize() const override;
    void renderTo(QPainter *painter, const QRectF &target) override;
    QString exportName() const override { return QStringLiteral("overview"); }

Q_SIGNALS:
    void cellActivated(int layer, int head);
    void hovered(const QString &text);

private:
    /// One small map of the grid.
    struct Cell {
        QCPAxisRect *rect = nullptr;
        QCPColorMap *map = nullptr; ///< nullptr when the analysis has no matrix there
        int n = 0;
        ArcHits hits;      ///< the head on the sentence's tree (hits.arcs 0: no band)
    };
    void rebuild();
    void updateSelection();
    const Cell *cellAt(int layer, int head) const;
    bool hitCell(const QPointF &pos, int *layer, int *head) const;
    void handleClick(const QPointF &pos);
    void handleHover(const QPointF &pos, const QPoint &globalPos);
    ViewData m_data;
    ViewState m_state;
    double m_upper = 1.0; ///< top of the shared colour scale
    QCustomPlot *m_plot = nullptr;
    QScrollArea *m_scroll = nullptr;
    QCPItemRect *m_selection = nullptr;
    PlotTitle *m_title = nullptr;
    std::vector<Cell> m_cells; ///< layer-major
    int m_layers = 0;
    int m_heads = 0;
    bool m_bands = false;   ///< a band under every map (the sentence has a usable tree)
    ArcHits m_tree;         ///< the tree's arcs and best fixed offset (the same for every head)
};

} // namespace treelens
