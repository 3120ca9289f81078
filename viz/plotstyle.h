#pragma once
/// \file plotstyle.h
/// The look and export path shared by the QCustomPlot views (heatmaps, overview,
/// link strip): fonts, the viridis gradient, axis style, and painting a plot into
/// any QPainter so SVG/PDF exports stay vector.

#include <QFont>
#include <QRectF>
#include <QSize>
#include <QStringList>

#include <vector>

#include "viz/qcustomplot.h"

class QPainter;

namespace treelens {

inline constexpr double kPlotTickPt = 9.0;
inline constexpr double kPlotAxisLabelPt = 10.0;
inline constexpr double kPlotTitlePt = 11.0;

QFont plotFont(double pt, bool bold = false);
/// Viridis as a QCPColorGradient, sampled from sequentialColor so plots match every
/// other view (QCustomPlot 2.1 has no gpViridis).
QCPColorGradient viridisGradient();
/// A plain axis: no grid, short outward ticks, the plot fonts.
void styleAxis(QCPAxis *axis);
/// A plot's title with small lines under it, centred and word-wrapped: notes on
/// what the figure cannot show (noteColor()) and keys of what is drawn on the
/// plot (a line may start with the induced-bracket box glyph the prior heatmap
/// draws, or the hatched box of what is not possible: CausalHatch). Lines travel with
/// the exports like the title.
class PlotTitle : public QCPTextElement {
public:
    enum class Glyph { None, BracketBox, Hatch };
    struct Line {
        QString text;
        QColor color;
        Glyph glyph = Glyph::None;
    };
    PlotTitle(QCustomPlot *plot, const QFont &font);
    void setLines(std::vector<Line> lines);
    const std::vector<Line> &lines() const { return m_lines; }
    /// The lines' texts, for tests.
    QStringList lineTexts() const;
    /// Draws the box glyph of Glyph::BracketBox (heatmapview's bracket boxes look like it).
    static void drawBracketBox(QPainter *painter, const QRectF &rect);
    /// Pixels the lines add under the title (for the plot's natural export size).
    int linesHeight() const;
    /// The width the title and its lines need, margins included (an export at least
    /// this wide shows them whole; a short sentence's plot is narrower).
    int neededWidth() const;

protected:
    void draw(QCPPainter *painter) override;
    QSize minimumOuterSizeHint() const override;
    QSize maximumOuterSizeHint() const override;

private:
    /// The height of the title text alone.
    int titleHeight() const;
    QRect lineBounds(const Line &line) const;
    std::vector<Line> m_lines;
};

/// A causal model's attention matrix (Analysis::causalAttention) has no cells above its
/// diagonal: a unit never attends a later one. This item hatches them (paintHatch, one
/// staircase-shaped area over the n × n cells whose column is after their row) on top of the
/// map of `key` × `value` axes (the plot's own by default; row 0 at the top), so they never
/// read as attention 0. The map under it should hold NaN there (transparent).
class CausalHatch : public QCPItemRect {
public:
    CausalHatch(QCustomPlot *plot, int n, QCPAxis *key = nullptr, QCPAxis *value = nullptr);
    /// The matrix side it hatches.
    int side() const { return m_n; }
    /// Whether it hatches cell (row r, column c).
    bool covers(int r, int c) const { return r >= 0 && c < m_n && c > r; }

protected:
    void draw(QCPPainter *painter) override;

private:
    int m_n;
};

/// A matrix plot on the plot's axis rect: styled axes with row 0 at the top, one
/// colour map (no interpolation, viridis, data range 0..1, not selectable) and a
/// viridis colour scale in layout cell (1, 1) that spans exactly the map's height
/// (through `margins`). The caller adds titles, labels and data.
struct MatrixPlotParts {
    QCPColorMap *map = nullptr;
    QCPColorScale *scale = nullptr;
    QCPMarginGroup *margins = nullptr;
};
MatrixPlotParts addMatrixPlot(QCustomPlot *plot);

/// A chart on white: styled x and y axes, a light dotted horizontal grid, the y label.
void styleChart(QCustomPlot *plot, const QString &yLabel);
/// A title row above the plot's layout (it travels with the exports).
QCPTextElement *addPlotTitle(QCustomPlot *plot, const QString &text, const QFont &font);
/// Moves the legend out of the axis rect into a row under it, filled column
/// first in `columns` columns, so nothing covers the data.
void putLegendBelow(QCustomPlot *plot, int columns = 2);
/// Paints `plot` laid out at `size` into `target` of any QPainter. QCustomPlot needs a
/// QCPPainter, which cannot share the caller's device, so the plot is recorded into a
/// QPicture (vector commands) and replayed: SVG and PDF stay vector, raster targets get
/// the plot at their own resolution.
void paintPlot(QCustomPlot *plot, QPainter *painter, const QRectF &target, const QSize &size);

/// Lays `plot` out as if it were `size` (viewport and layout), so code that reads
/// the axis rect (tick thinning) sees the export size before paintPlot. Restore
/// with plot->setViewport(plot->rect()) afterwards.
void layOutPlotAt(QCustomPlot *plot, const QSize &size);

} // namespace treelens
