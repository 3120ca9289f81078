#pragma once
/// \file runprobes.h
/// Stage 4 of a probing run (core/probing/proberun.h): the trained probes.
/// Sentence probes (probetasks.h datasets, probes.h MLP / linear probes) on the
/// sentence vectors of every probed layer and pooling, with the control task and
/// the random-init encoder when asked; structural probes (Hewitt & Manning) on
/// the word states of every probed layer. Each probe reports its epochs through
/// ProbeRunContext::curve and a line when trained. Torch-free header.

#include <map>
#include <string>
#include <vector>

#include "core/base/result.h"
#include "core/probing/probereport.h"
#include "core/probing/proberunconfig.h"
#include "core/probing/runcontext.h"
#include "core/probing/rundata.h"
#include "core/probing/runtrees.h"

namespace treelens {

class Encoder;

class ProbeFeatureFile;

/// What the probes train on: the layers, the poolings, the encoders (or a features file).
struct ProbeTrainingPlan {
    std::vector<int> layers;           ///< probed layers (0 = embeddings)
    std::vector<std::string> poolings; ///< "cls" and/or "mean"
    Encoder *model = nullptr;
    Encoder *randomInit = nullptr;     ///< the random-weight encoder of the same configuration, or none
    bool control = false;              ///< sentence probes: the control task too
    bool withRandomInit = false;       ///< the random-init encoder's probes too (its encoder, or its features in the file)
    /// The features read from this file instead of extracted by the encoders (`probe --features`).
    const ProbeFeatureFile *featureFile = nullptr;
};

/// The sentence probes of `tasks` (sentence task names, canonical order): a
/// dataset per task (TreeDepth on the run's tree), its control task, and a probe
/// per layer × pooling for the model, the control task and the random-init
/// encoder. Adds the sentence vectors' extraction time to timing.sentenceVectors
/// and each task's training time to timing.train; calls ctx.finished per task at the end.
Result<std::vector<SentenceProbeTask>> runSentenceProbes(const ProbeRunContext &ctx, const ProbeData &data,
                                                         const ProbeTrees &trees, const ProbeRunConfig &config,
                                                         const std::vector<std::string> &tasks,
                                                         const ProbeTrainingPlan &plan, ProbeRunTiming &timing);

/// The structural probes of `tasks` ("structural-distance", "structural-depth")
/// on every layer, for the model and the random-init encoder; the model's test
/// predictions go to `viewers` (bestLayer left for the report stage). Adds each
/// task's training time to timing.train; calls ctx.finished per task at the end.
Result<std::vector<StructuralProbeTask>> runStructuralProbes(const ProbeRunContext &ctx, const ProbeData &data,
                                                             const ProbeTrees &trees, const ProbeRunConfig &config,
                                                             const std::vector<std::string> &tasks,
                                                             const ProbeTrainingPlan &plan,
                                                             std::map<std::string, ProbeRunStructural> &viewers,
                                                             ProbeRunTiming &timing);

} // namespace treelens
