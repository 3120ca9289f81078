#pragma once
/// \file runtrees.h
/// Stage 2 of a probing run (core/probing/proberun.h): the trees the tasks need.
/// Dependency trees come from the input, or from Collins head rules where a
/// sentence has only a constituency tree; constituency trees from the input, or
/// predicted by the shipped neural constituency parser (gold dependency trees and
/// tags kept). Decides which tree TreeDepth, constituent-mass and link-probs use.
/// Torch-free header (the parser runs LibTorch inside core).

#include <string>
#include <utility>
#include <vector>

#include "core/base/result.h"
#include "core/probing/proberunconfig.h"
#include "core/probing/runcontext.h"
#include "core/probing/rundata.h"

namespace treelens {

/// Which trees the run uses and where they came from.
struct ProbeTrees {
    std::string tree = "dependency"; ///< the tree of treedepth / constituent-mass / link-probs
    std::string treeWhy;             ///< why (the report's settings.tree_reason)
    long constGold = 0, constPredicted = 0, constMissing = 0;
    long depGold = 0, depHeadRules = 0, depMissing = 0;
    std::string constParser;         ///< model name when trees were predicted
    std::vector<std::string> parseFailures;
    bool needConst = false, needDep = false;
    double parseSeconds = 0.0;

    /// "gold (N sentences)", "predicted by P (N sentences)", "none (not needed)", ...
    std::string constituencyText() const;
    /// "gold (N sentences)", "from the gold constituency trees by Collins head rules (...)", ...
    std::string dependencyText() const;
};

/// The tree of treedepth / constituent-mass / link-probs and why: config.tree
/// when it names one; constituency with treeSource "parsed"; else constituency
/// when some sentence has a constituency tree, dependency when only dependency
/// trees are there, constituency without any tree. Also sets needConst / needDep
/// from `tasks` (canonical names).
void chooseProbeTrees(const ProbeRunConfig &config, const std::vector<std::string> &tasks, long haveConstituency,
                      long haveDependency, ProbeTrees &trees);

/// Gives every sentence with a constituency tree over its tokens and no
/// dependency tree the Collins head-rule conversion (metadata probe.dependency =
/// head-rules); returns the sentences with a constituency / a dependency tree.
std::pair<long, long> addHeadRuleDependencies(ProbeData &data);

/// The whole stage: head-rule dependencies, the tree choice, the checks that the
/// tasks' trees exist (errors name the tasks and the training files), predicted
/// constituency trees where needed (treeSource auto: the missing ones, parsed:
/// all, gold: none), and the counts of the trees' provenance.
Result<ProbeTrees> prepareProbeTrees(const ProbeRunContext &ctx, ProbeData &data, const ProbeRunConfig &config,
                                     const std::vector<std::string> &tasks);

} // namespace treelens
