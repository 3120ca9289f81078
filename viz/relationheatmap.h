#pragma once
/// \file relationheatmap.h
/// The heatmaps of a relation-aware model (the Dependency-Transformer: Analysis::relations,
/// relationGate), on heatmapview.h:
///  - RelationHeatmap: the relation matrix the model read, coloured by the tree distance
///    a + b, each cell labelled with its relation (arc label, `a:b`, `·` for [none])
///    while the cells are large enough;
///  - GateHeatmap: the gate g of the selected layer/head, the tree's arcs boxed.
/// Both say so when the model reads no relations.

#include <utility>
#include <vector>

#include <QString>

#include "viz/heatmapview.h"

namespace treelens {

class RelationHeatmap : public HeatmapView {
    Q_OBJECT
public:
    explicit RelationHeatmap(QWidget *parent = nullptr);

    /// The label drawn in cell (r, c); "" when none (no label there, or cells too small for labels).
    QString cellLabel(int r, int c) const;

    QString exportName() const override { return QStringLiteral("relations"); }

protected:
    void prepareMatrix() override;
    const Matrix *currentMatrix() const override;
    Figure describe(const Matrix *m) const override;
    void addItems(int n) override;
    QString describeCell(int r, int c) const override;
    /// The labels need wider cells than the other heatmaps' while they are drawn.
    double exportCellPoints(int n) const override;
    double exportSideLimit() const override;

private:
    Matrix m_distance; ///< a + b of every pair (what the colours show), capped
    std::vector<std::vector<QString>> m_labels; ///< cell texts [row][column]
};

class GateHeatmap : public HeatmapView {
    Q_OBJECT
public:
    explicit GateHeatmap(QWidget *parent = nullptr);

    /// Cell boxes drawn (the tree's arcs), (row, column) tokens, sorted.
    std::vector<std::pair<int, int>> cellBoxes() const;

    QString exportName() const override { return QStringLiteral("gate"); }

protected:
    const Matrix *currentMatrix() const override;
    Figure describe(const Matrix *m) const override;
    void addItems(int n) override;
    QString describeCell(int r, int c) const override;
};

} // namespace treelens
