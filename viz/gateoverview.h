#pragma once
/// \file gateoverview.h
/// The Dependency-Transformer's layers × heads overview of the relation gate:
/// how much each head follows the tree. One QCustomPlot colour map, rows =
/// layers from the top, columns = heads; a cell's colour is the head's mean gate
/// g over every token pair (i ≠ j) of the sentence, its text that mean and the
/// mean over the tree's arcs only (both directions). Clicking a cell emits
/// cellActivated(layer, head); the selected cell is outlined.

#include <utility>
#include <vector>

#include <QStringList>
#include <QWidget>

#include "viz/viewcommon.h"

class QCustomPlot;
class QCPColorMap;
class QCPItemRect;

namespace treelens {

class PlotTitle;

/// The mean gate of one layer/head: over all pairs i ≠ j, and over the tree's
/// arcs (TokenRelations::Kind::Arc). NaN where there is no such pair.
struct GateMeans {
    double all = 0.0;
    double arcs = 0.0;
};
/// Means of `gate` (tokens × tokens) under `relations`; NaN for an empty set.
GateMeans gateMeans(const Matrix &gate, const TokenRelations &relations);

class GateOverview : public QWidget, public ExportableView {
    Q_OBJECT
public:
    explicit GateOverview(QWidget *parent = nullptr);
    void setData(const ViewData &data);
    void setState(const ViewState &state);

    QCustomPlot *plot() const { return m_plot; }
    int gridLayers() const { return m_layers; }
    int gridHeads() const { return m_heads; }
    /// The plotted mean gate of (layer, head) (NaN: none).
    double cellValue(int layer, int head) const;
    /// The cell's text: "0.62" and "arcs 0.80".
    QString cellLabel(int layer, int head) const;
    /// The selected cell's outline: (layer, head), (-1, -1) when none.
    std::pair<int, int> selectedCell() const;
    QStringList titleLines() const;

    QSizeF exportSize() const override;
    void renderTo(QPainter *painter, const QRectF &target) override;
    QString exportName() const override { return QStringLiteral("gates"); }

Q_SIGNALS:
    void cellActivated(int layer, int head);
    void hovered(const QString &text);

private:
    void rebuild();
    void updateSelection();
    bool hitCell(const QPointF &pos, int *layer, int *head) const;
    ViewData m_data;
    ViewState m_state;
    QCustomPlot *m_plot = nullptr;
    QCPColorMap *m_map = nullptr;
    QCPItemRect *m_selection = nullptr;
    PlotTitle *m_title = nullptr;
    std::vector<GateMeans> m_means; ///< layer-major
    int m_layers = 0;
    int m_heads = 0;
};

} // namespace treelens
