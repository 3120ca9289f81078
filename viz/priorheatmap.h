#pragma once
/// \file priorheatmap.h
/// The constituent prior C of the selected layer as a heatmap (heatmapview.h), with
/// the model's induced brackets drawn as boxes on it (one QCPItemRect per bracket:
/// the block [start, end) × [start, end) over words, on the words' tokens) and their
/// key under the title. Says so when the model has no prior (viewcommon.h noPriorNote).

#include <utility>
#include <vector>

#include "viz/heatmapview.h"

namespace treelens {

class PriorHeatmap : public HeatmapView {
    Q_OBJECT
public:
    explicit PriorHeatmap(QWidget *parent = nullptr);

    /// Bracket boxes drawn: [start, end) over words, sorted.
    std::vector<std::pair<int, int>> bracketBoxes() const;

    QString exportName() const override { return QStringLiteral("prior"); }

protected:
    const Matrix *currentMatrix() const override;
    Figure describe(const Matrix *m) const override;
    void addItems(int n) override;
    QString describeCell(int r, int c) const override;
};

} // namespace treelens
