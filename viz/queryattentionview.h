#pragma once
/// \file queryattentionview.h
/// The attention statistic of a tree pattern's occurrences as a heatmap (issue 48; the
/// Query attention dock; docs/query.md, "In the app"): a row per layer, a column per head,
/// each cell the mean attention from the word bound to one pattern node to the word bound
/// to another over the occurrences (viridis, 0 to the largest mean of either grid), its value
/// written on it, the 95 % interval and n on hover. setShowBaseline() swaps in the same
/// statistic for the best fixed-offset baseline (the attention to the word at the offset
/// that locates the second node most often), on the same scale so the two compare. A click
/// on a cell emits cellClicked (the dock lists the occurrences behind it).
///
/// Drawn with QCustomPlot as the Probing dock's heatmaps are (plotstyle.h: the matrix plot,
/// its colour scale and title); exports as PNG, SVG or PDF (viewexport.h). Layers and heads
/// are numbered from 1 on the figure, from 0 in the API.

#include <cstddef>
#include <vector>

#include <QPointF>
#include <QString>
#include <QStringList>
#include <QWidget>

#include "viz/viewcommon.h"

class QCPColorMap;
class QCPColorScale;
class QCPItemRect;
class QCPItemText;
class QCustomPlot;
class QMouseEvent;

namespace treelens {

class PlotTitle;

/// What the heatmap shows (plain numbers: the app fills it from core's AttentionStat).
struct QueryAttentionFigure {
    struct Cell {
        double mean = 0.0, low = 0.0, high = 0.0; ///< the mean and its 95 % interval
        std::size_t n = 0;                        ///< 0: no value (drawn empty)
    };
    QString pattern;          ///< as typed
    QString from, to;         ///< the pattern nodes: attention from `from`'s word to `to`'s
    QString model;            ///< the model's name
    int layers = 0, heads = 0;
    std::vector<Cell> cells;  ///< [layer * heads + head]
    std::size_t occurrences = 0, skipped = 0, sentences = 0;
    bool causal = false;      ///< a causal model: no attention to a later word
    std::size_t later = 0;    ///< occurrences whose `to` word comes after the `from` word
    int baselineOffset = 0;   ///< the fixed offset (0: no baseline)
    std::size_t baselineHits = 0, baselineOccurrences = 0;
    std::vector<Cell> baseline; ///< as `cells`; empty without a baseline
};

class QueryAttentionView : public QWidget, public ExportableView {
    Q_OBJECT
public:
    explicit QueryAttentionView(QWidget *parent = nullptr);

    void setFigure(QueryAttentionFigure figure);
    const QueryAttentionFigure &figure() const { return m_figure; }
    /// Shows the fixed-offset baseline instead of the pattern's statistic (no-op without one).
    void setShowBaseline(bool baseline);
    bool showsBaseline() const { return m_baseline; }
    /// Outlines the cell (layer, head); -1: none.
    void setSelected(int layer, int head);

    /// The value drawn in (layer, head): the mean, or the baseline's; NaN without one.
    double valueAt(int layer, int head) const;
    /// The cell's hover text: its numbers, its interval and n, and the baseline's.
    QString cellToolTip(int layer, int head) const;
    /// The numbers written on the cells, row by row.
    QStringList cellTexts() const;
    /// The title and its lines, for tests.
    QStringList titleLines() const;
    /// The centre of cell (layer, head) in the plot's widget coordinates (tests click there).
    QPointF cellCentre(int layer, int head) const;
    QCustomPlot *plot() const { return m_plot; }

    QSizeF exportSize() const override;
    void renderTo(QPainter *painter, const QRectF &target) override;
    QString exportName() const override { return QStringLiteral("query-attention"); }

Q_SIGNALS:
    void cellClicked(int layer, int head);

private:
    void rebuild();
    void clicked(QMouseEvent *event);
    void hover(QMouseEvent *event);
    bool cellAt(const QPointF &pos, int *layer, int *head) const;
    const std::vector<QueryAttentionFigure::Cell> &shown() const;

    QueryAttentionFigure m_figure;
    bool m_baseline = false;
    int m_selLayer = -1, m_selHead = -1;
    QCustomPlot *m_plot = nullptr;
    QCPColorMap *m_map = nullptr;
    QCPColorScale *m_scale = nullptr;
    PlotTitle *m_title = nullptr;
    QCPItemRect *m_selection = nullptr;
    std::vector<QCPItemText *> m_texts;
};

} // namespace treelens
