#pragma once
/// \file heatmapview.h
/// The scaffolding every heatmap of one analysis shares (QCustomPlot, one QCPColorMap):
/// a title with lines under it (keys of what is drawn, notes on what the figure cannot
/// show: viewcommon.h), the matrix with token labels on both axes (rows = from/query,
/// columns = to/key; row 0 at the top; labels shrunk, then thinned and turned to fit),
/// a colour scale with its unit, hover → hovered() with the exact value, and export.
/// Each kind of heatmap is a subclass that says which matrix it shows and how it
/// describes it: PriorHeatmap (priorheatmap.h), AttentionHeatmap and PieceHeatmap
/// (attentionheatmap.h), RelationHeatmap and GateHeatmap (relationheatmap.h).
/// Handles 256×256 smoothly (one QCPColorMap, no per-cell items).

#include <string>
#include <vector>

#include <QColor>
#include <QString>
#include <QStringList>
#include <QWidget>

#include "viz/viewcommon.h"

class QCustomPlot;
class QCPColorMap;
class QCPColorScale;
class QCPMarginGroup;

namespace treelens {

class PlotTitle;

class HeatmapView : public QWidget, public ExportableView {
    Q_OBJECT
public:
    void setData(const ViewData &data);
    void setState(const ViewState &state);

    // For tests.
    QCustomPlot *plot() const { return m_plot; }
    int rowCount() const;   ///< tokens shown (0 without data)
    /// The value of the cell in row r (query token), column c (key token), as plotted
    /// (NaN for a cell the view leaves out: a causal model's attention to a later token).
    double cellValue(int r, int c) const;
    /// What hovering cell (r, c) says (the tooltip and the status bar); "" outside the map.
    QString cellText(int r, int c) const;
    /// The lines under the title: keys of what is drawn, notes on what the figure cannot show.
    QStringList titleLines() const;
    /// The colour scale's label (what the colours measure).
    QString scaleLabel() const;
    /// Every k-th token is labelled on the rows' axis (1: all; 0 before the first layout),
    /// every columnTickStep()-th on the columns' (which is wider in the app's short pane:
    /// each axis is thinned for its own length), and at what point size.
    int tickStep() const { return m_tickStep; }
    int columnTickStep() const { return m_columnStep; }
    double tickPointSize() const { return m_tickPt; }

    QSizeF exportSize() const override;
    void renderTo(QPainter *painter, const QRectF &target) override;

Q_SIGNALS:
    void hovered(const QString &text);

protected:
    /// Builds the plot but draws nothing: the hooks below are virtual, so each kind's
    /// constructor calls rebuild() once it is complete.
    explicit HeatmapView(QWidget *parent);

    /// A line under the title (PlotTitle::Line): `box` leads it with the bracket-box glyph,
    /// `hatch` with a hatched box.
    struct TitleLine {
        QString text;
        QColor color;
        bool box = false;
        bool hatch = false; ///< leads it with a hatched box (the key of CausalHatch)
    };
    /// What a kind says about the matrix it shows (or about why there is none).
    struct Figure {
        QString title;
        std::vector<TitleLine> lines; ///< the unknown-words note follows; empty texts are left out
        QString scaleLabel;
        double upper = 1.0;           ///< the colours run from 0 to this
        bool nearIsBright = false;    ///< viridis inverted (tree distances: bright = adjacent)
        QString xLabel, yLabel;
    };

    /// Draws the view again from m_data and m_state through the hooks below.
    void rebuild();

    /// Works out what the matrix is made of before it is read (default: nothing).
    virtual void prepareMatrix() {}
    /// The matrix this kind shows for the data and state; nullptr: nothing to show.
    virtual const Matrix *currentMatrix() const = 0;
    /// The labels of the rows and columns (default: the analysis' tokens). Only called with an analysis.
    virtual const std::vector<std::string> &axisTokens() const;
    /// The title, its lines, the colour scale and the axis labels for `m` (may be null).
    virtual Figure describe(const Matrix *m) const = 0;
    /// Items drawn over the map of `n` > 0 tokens (boxes, cell labels; default: none).
    virtual void addItems(int n) { (void)n; }
    /// Whether cell (r, c) has no value to show (left out of the map: NaN, transparent, for
    /// an item to mark; default: none). Only called with an analysis.
    virtual bool cellMasked(int r, int c) const
    {
        (void)r;
        (void)c;
        return false;
    }
    /// The hover text of cell (r, c), both inside the map, with an analysis.
    virtual QString describeCell(int r, int c) const = 0;
    /// The export's points per cell for `n` tokens and the longest side of its map.
    virtual double exportCellPoints(int n) const;
    virtual double exportSideLimit() const;

    ViewData m_data;
    ViewState m_state;
    QCustomPlot *m_plot = nullptr;
    int m_rows = 0; ///< tokens shown (the matrix is m_rows × m_rows)

private:
    /// Fills the colour map with the first n × n cells of `m` (none: an empty map).
    void fillMap(const Matrix *m, int n);
    /// Thins and rotates the token labels for a map `axisPixels` on its shorter side; true when changed.
    bool updateTicks(double columnPixels, double rowPixels);
    void handleHover(const QPointF &pos, const QPoint &globalPos);
    QCPColorMap *m_map = nullptr;
    QCPColorScale *m_scale = nullptr;
    PlotTitle *m_title = nullptr;
    QCPMarginGroup *m_margins = nullptr;
    int m_tickStep = 0;   ///< every k-th row labelled (0: not computed yet)
    int m_columnStep = 0; ///< every k-th column labelled
    bool m_rotated = false;
    double m_tickPt = 0.0; ///< the token labels' point size (smaller before thinned)
};

} // namespace treelens
