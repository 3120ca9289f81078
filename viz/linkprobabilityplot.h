#pragma once
/// \file linkprobabilityplot.h
/// The Tree Transformer's link probabilities of a probing run by constituent
/// size (core/probing/attentiontree.h's LinkProbabilityReport): a line per
/// layer over the size buckets of the smallest gold constituent holding both
/// words, the gap counts under the ticks, the layer's mean and Spearman ρ in the
/// legend. Layers are numbered from 1 as in the View dock and the report's JSON.

#include <QString>

#include "core/probing/attentiontree.h"
#include "viz/qcustomplot.h"

namespace treelens {

class LinkProbabilityPlot : public QCustomPlot {
    Q_OBJECT
public:
    explicit LinkProbabilityPlot(QWidget *parent = nullptr);

    /// Draws `report` (nullptr or no layers: an empty chart asking for the task);
    /// `model` ("" for a run of one model) heads the title. The report must stay
    /// alive while shown.
    void setReport(const LinkProbabilityReport *report, const QString &model = QString());

private:
    QCPTextElement *m_title = nullptr;
};

} // namespace treelens
