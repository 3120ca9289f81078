#pragma once
/// \file sweepheatmap.h
/// The ablation sweep as a heatmap (issue 46; the app's twin of `treelens-cli ablate-sweep
/// --figure`): a row per layer, a column per head and one for the whole layer; each cell the
/// change of minimal-pair accuracy, in points, when that head is switched off — red where the
/// model gets worse without it, blue where better, white at no change, on a scale symmetric
/// around 0 up to the largest change. Each cell writes its value and how many pairs it flips;
/// a click emits cellClicked (the dock lists the pairs it flips). Exports as PNG, SVG or PDF
/// through viewexport.h.

#include <utility>
#include <vector>

#include <QString>

#include "core/eval/minimalpairscoring.h"
#include "viz/viewcommon.h"

namespace treelens {

/// What the heatmap shows: the sweep's cells (any order) and what they were measured on.
struct SweepFigure {
    QString model;        ///< the model's name
    QString pairs;        ///< where the pairs came from (a file name, "EWT train, agreement")
    int layers = 0, heads = 0;
    double baseline = 0.0; ///< accuracy of the baseline: every head on but `ablated`
    int baselinePairs = 0;
    /// Heads switched off in the baseline too (0-based; head -1: a whole layer): its title
    /// names them and their cells are hatched (no cell: they cannot be switched off again).
    std::vector<std::pair<int, int>> ablated;
    std::vector<SweepCell> cells;
};

class SweepHeatmap : public PaintedExportView {
    Q_OBJECT
public:
    explicit SweepHeatmap(QWidget *parent = nullptr);
    void setFigure(SweepFigure figure);
    const SweepFigure &figure() const { return m_figure; }
    /// Outlines the cell of (layer, head) (head -1: the whole layer; layer -1: none).
    void setSelected(int layer, int head);
    /// The cell at a widget position: false outside the grid.
    bool cellAt(const QPointF &pos, int *layer, int *head) const;
    /// The centre of the cell of (layer, head), in widget coordinates (tests click there).
    QPointF cellCentre(int layer, int head) const;
    /// The change of accuracy of (layer, head) in points as drawn (NaN without a cell).
    double pointsAt(int layer, int head) const;

    QSize sizeHint() const override;
    QString exportName() const override { return QStringLiteral("ablation-sweep"); }

Q_SIGNALS:
    void cellClicked(int layer, int head);

protected:
    void paint(QPainter &p, const QSizeF &size) const override;
    void mousePressEvent(QMouseEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;

private:
    const SweepCell *find(int layer, int head) const;
    QRectF cellRect(int layer, int head) const;
    QStringList titleLines() const;
    double largestChange() const;

    SweepFigure m_figure;
    int m_selLayer = -1, m_selHead = -1;
};

} // namespace treelens
