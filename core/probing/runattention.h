#pragma once
/// \file runattention.h
/// Stage 5 of a probing run (core/probing/proberun.h): the analyses without
/// training. The encoder's attention over the corpus (or its test split) scored
/// against the gold trees per layer and head (attentiontree.h: head accuracy,
/// constituent mass, the attention's maximum spanning tree, link probabilities),
/// and unsupervised parsing by the Tree Transformer's link probabilities against
/// the constituency trees (inductioneval.h). Torch-free header.

#include <optional>
#include <string>
#include <vector>

#include "core/base/result.h"
#include "core/data/analysis.h"
#include "core/probing/probereport.h"
#include "core/probing/proberunconfig.h"
#include "core/probing/runcontext.h"
#include "core/probing/rundata.h"
#include "core/probing/runtrees.h"

namespace treelens {

class Encoder;

/// The sentences the attention tasks score and the encoder's analyses of them.
struct AttentionCorpus {
    std::vector<Sentence> sentences; ///< in corpus order, without empty sentences
    std::vector<Analysis> analyses;  ///< attention (and link probabilities when kept) only
    std::string scope;               ///< "whole corpus (...)" or "test split"
    long emptySkipped = 0;
};

/// Runs the encoder with attention over the scope of config.attentionOn (all:
/// every split; test: the test split), 256 sentences at a time, keeping only
/// what the metrics read (raw attention with config.rawAttention, link
/// probabilities with `keepLinks`). Errors name the sentences; "cancelled".
Result<AttentionCorpus> analyzeAttentionCorpus(const ProbeRunContext &ctx, Encoder &encoder, const ProbeData &data,
                                               const ProbeRunConfig &config, bool keepLinks);

/// Task unsupervised-parsing: the eval-induction protocol over the constituency
/// trees of the attention scope (punctuation removed; sentences of fewer than 2
/// words, without a tree or longer than the model left out and counted), the
/// model's trees (when it has a constituent prior) against the branching and
/// random baselines. Error when no sentence is left.
Result<ProbeRunInduction> runUnsupervisedParsing(const ProbeRunContext &ctx, Encoder &encoder, const ProbeData &data,
                                                 const ProbeRunConfig &config, const ProbeTrees &trees);

struct AttentionStageResult {
    ProbeRunAttention attention;
    std::optional<ProbeRunInduction> induction;
};

/// The attention tasks of `tasks` (attention task names, canonical order): one
/// analysis of the corpus shared by the four grids, then each task; timing.attention
/// gets "analysis" and every task; ctx.finished after each task. Errors start
/// with the task's name.
Result<AttentionStageResult> runAttentionTasks(const ProbeRunContext &ctx, Encoder &encoder, const ProbeData &data,
                                               const ProbeTrees &trees, const ProbeRunConfig &config,
                                               const std::vector<std::string> &tasks, ProbeRunTiming &timing);

} // namespace treelens
