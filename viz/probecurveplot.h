#pragma once
/// \file probecurveplot.h
/// The live learning curves of a probing run (core/probing/runcontext.h's
/// ProbeCurvePoint): per probe its train loss (solid, log scale, left axis) and
/// dev metric (dashed, right axis) by epoch; the latest three probes are shown,
/// a new one replacing the oldest. Points arrive one at a time, on the GUI thread.

#include <string>
#include <vector>

#include <QString>

#include "core/probing/runcontext.h"
#include "viz/qcustomplot.h"

namespace treelens {

class ProbeCurvePlot : public QCustomPlot {
    Q_OBJECT
public:
    explicit ProbeCurvePlot(QWidget *parent = nullptr);

    /// Removes every curve (a new run).
    void clearCurves();
    /// Adds one epoch of one probe; `model` names it in a run of several models
    /// ("" in a run of one: the same probe of two models is then two curves).
    /// Graphs carry the properties "probeKey" (the probe) and "dev" (the dev curve).
    void addPoint(const ProbeCurvePoint &point, const QString &model = QString());
    /// Points added since the last clearCurves().
    int pointCount() const { return m_points; }

private:
    std::vector<QString> m_keys; ///< the probes shown, oldest first
    int m_colorIndex = 0;
    int m_points = 0;
};

} // namespace treelens
