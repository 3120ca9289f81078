#pragma once
/// \file phraseview.h
/// One aggregated phrase up close (a model that aggregates phrases level by level,
/// aggregationnodes.h): the attention of its start
/// token over [start; children; end], every head of the semantic stream beside
/// every head of the syntactic stream (cells coloured and labelled with the
/// weight), the node's level and aggregation step, and its vectors' norms. A
/// second panel may show the same question phrase in another pair of the same
/// question (the workbench's correct-vs-wrong comparison: the question's tree is
/// the same, its attention is not, because the LM reads both sentences).

#include <optional>
#include <string>
#include <vector>

#include <QWidget>

#include "viz/aggregationnodes.h"
#include "viz/viewcommon.h"

namespace treelens {

class PhraseView : public PaintedExportView {
    Q_OBJECT
public:
    struct Panel {
        QString caption;                 ///< "with candidate 3 (correct), P(relevant) 0.81"
        AggregationNode node;
        std::vector<std::string> labels; ///< per position (phrasePositionLabels)
        int steps = 0;                   ///< aggregation steps of the pair (its deeper tree's levels)
    };
    explicit PhraseView(QWidget *parent = nullptr);
    /// The node's title ("Question phrase NP “the cat” (node 2)") and one or two panels; no panels = a hint.
    void setPanels(const QString &title, std::vector<Panel> panels);
    void clear(const QString &hint);
    const std::vector<Panel> &panels() const { return m_panels; }

    QString exportName() const override { return QStringLiteral("phrase"); }
    QSize sizeHint() const override;

protected:
    void paint(QPainter &p, const QSizeF &size) const override;

private:
    QString m_title, m_hint;
    std::vector<Panel> m_panels;
};

} // namespace treelens
