#pragma once
/// \file attentionoverview.h
/// A layers × heads grid of small attention maps (QCustomPlot, one axis rect per
/// cell, rows = layers from the top, columns = heads) on one shared colour scale.
/// Clicking a cell emits cellActivated(layer, head); the selected cell is outlined.
/// Ctrl+click (or any click while setClickAblates(true)) emits ablationToggled(layer, head)
/// instead: the app switches that head off or on again (issue 46). A head the analysis was
/// made without (Analysis::ablated) is crossed out in red, and the title's first line
/// names them ("L3 H2 ablated").
///
/// When the sentence has a dependency tree of its words, a band under each map
/// says how syntactic that head is on it (Clark et al. 2019's criteria, as
/// `probe --task head-accuracy` counts them over a treebank, core arcHits): the
/// share of the tree's arcs whose dependent attends most to its head (d→h) or whose
/// head attends most to the dependent (h→d), the better of the two, coloured on
/// its own scale; the title names the tree (parsed, gold) and the best fixed-offset
/// baseline on the same arcs, and a head above that baseline is written in bold.
///
/// A causal model (Analysis::causalAttention) attends only to itself and earlier words: each
/// map's cells above its diagonal are hatched (not possible, not 0; CausalHatch), and a band
/// scores each arc in the only direction a causal head sees it, the later word attending most
/// (among the words before it) to the earlier one, against the best leftward fixed offset
/// (core arcHits with `causal`); the caption says so.

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
class QCPLayoutGrid;
class QScrollArea;

namespace treelens {

class PlotTitle;

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
    /// better direction's share of its arcs in [0, 1] (a causal head's: the share of
    /// later→earlier hits, ArcHits::share); NaN without a band there.
    double syntacticScore(int layer, int head) const;
    /// The band's text ("67% d→h"; "67% later→earlier" for a causal model; "" without a band).
    QString syntacticLabel(int layer, int head) const;
    /// The share of the arcs the best fixed offset gets (a causal model's: the best leftward
    /// offset; NaN without bands).
    double offsetBaseline() const;
    /// Whether a plain click toggles a head's ablation (ablationToggled) rather than selecting it.
    void setClickAblates(bool on) { m_clickAblates = on; }
    bool clickAblates() const { return m_clickAblates; }
    /// Whether (layer, head) is drawn crossed out: the analysis was made without it.
    bool isAblated(int layer, int head) const;
    /// The map of (layer, head) in the plot's pixels (empty without one): where a click lands.
    QRect mapRect(int layer, int head) const;

    QSizeF exportSize() const override;
    void renderTo(QPainter *painter, const QRectF &target) override;
    QString exportName() const override { return QStringLiteral("overview"); }

Q_SIGNALS:
    void cellActivated(int layer, int head);
    /// Asks for the head to be switched off, or on again (0-based).
    void ablationToggled(int layer, int head);
    void hovered(const QString &text);

private:
    /// One small map of the grid.
    struct Cell {
        QCPAxisRect *rect = nullptr;
        QCPColorMap *map = nullptr; ///< nullptr when the analysis has no matrix there
        int n = 0;
        ArcHits hits;      ///< the head on the sentence's tree (hits.arcs 0: no band)
    };
    /// Empties the plot and forgets the grid.
    void clear();
    void rebuild();
    /// The attention of (layer, head) as the state selects it (before/after ×C, ...); nullptr: none.
    const Matrix *attentionAt(int layer, int head) const;
    /// The top of the colour scale all maps share (heatmaplabels.h attentionScaleTop over every map).
    double sharedScaleTop() const;
    /// Each head's hits on the sentence's dependency tree, when it has one of the analysis' words (m_bands).
    void countTreeHits();
    /// The lines under the title: the scale, a causal model's hatching, the bands' key, unknown words.
    void setTitleLines(bool afterC);
    /// The bands' key: the tree, what a band counts (a causal model's one direction), the baseline.
    QString bandCaption() const;
    /// The shared colour scale, right of the grid.
    QCPColorScale *addColourScale(bool afterC);
    /// Head titles over the columns and layer titles beside the rows.
    void addGridLabels(QCPLayoutGrid *grid);
    /// The map of (layer, head) in its grid cell, with its band under it when there are bands.
    void addCell(QCPLayoutGrid *grid, QCPColorScale *scale, int layer, int head);
    /// The grid row of layer `layer`'s maps (their bands, if any, in the row under it).
    int mapRow(int layer) const { return m_bands ? 2 * layer + 1 : layer + 1; }
    void updateSelection();
    /// `item` placed over the map of `cell` (its frame drawn outside the axis rect); returns it.
    static QCPItemRect *coverMap(QCPItemRect *item, const Cell &cell);
    const Cell *cellAt(int layer, int head) const;
    bool hitCell(const QPointF &pos, int *layer, int *head) const;
    void handleClick(const QPointF &pos, bool toggle);
    /// A red cross over every head the analysis was made without.
    void markAblated();
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
    bool m_clickAblates = false;
    bool m_bands = false;   ///< a band under every map (the sentence has a usable tree)
    ArcHits m_tree;         ///< the tree's arcs and best fixed offset (the same for every head)
};

} // namespace treelens
