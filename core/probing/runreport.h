#pragma once
/// \file runreport.h
/// Stage 6 of a probing run (core/probing/proberun.h): the report. Assembles the
/// typed ProbeRunReport from what the stages produced (the model, the resolved
/// settings, the data and trees, each task's results) and writes its text, what
/// `treelens-cli probe` prints. The JSON is written by core/probing/probejson.h.
/// Torch-free.

#include <string>
#include <vector>

#include "core/encoders/encoder.h"
#include "core/probing/probereport.h"
#include "core/probing/proberunconfig.h"
#include "core/probing/rundata.h"
#include "core/probing/runtrees.h"

namespace treelens {

/// What the run decided before the stages ran.
struct ProbeRunPlan {
    std::string modelPath;             ///< the model file read ("" never: the default is resolved)
    std::vector<std::string> tasks;    ///< canonical order
    std::vector<int> layers;
    std::vector<std::string> poolings;
    std::string poolingNote;           ///< "" or why a pooling was left out
};

/// The report's model, settings and data sections. `config` is the run's
/// configuration with probeDevice resolved; `probesTrain`: some sentence or
/// structural task ran (a run of given splits without dev then says that no
/// model selection took place).
ProbeRunModel probeRunModel(const std::string &path, const EncoderInfo &info);
ProbeRunSettings probeRunSettings(const ProbeRunConfig &config, const ProbeRunPlan &plan, const ProbeTrees &trees,
                                  int dModel);
ProbeRunData probeRunData(const ProbeRunConfig &config, const ProbeData &data, const ProbeTrees &trees,
                          bool probesTrain);

/// Fills what is decided from the results once they are all there: each
/// structural probe viewer's best layer (bestStructuralProbeLayer, probecompare.h).
void finishProbeReport(ProbeRunReport &report);

/// The text report: the model and data, a table per sentence and structural
/// task (test numbers per layer and pooling, the baselines), the attention
/// grids and best heads, the unsupervised-parsing scores, and the total time.
std::string probeReportText(const ProbeRunReport &report);

} // namespace treelens
