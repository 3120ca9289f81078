#pragma once
/// \file aggregationnodes.h
/// The aggregation nodes of a model that aggregates phrases level by level, as the
/// views read them from an Analysis (the aggregation overlays of core/data/overlays.h:
/// overlay::kAggregationNode* and nodeAttention): each phrase's level, span, sequence
/// length L_v = children + 2, the attention of its start token over [start; children;
/// end] per head of each stream, and its node vectors' norms. Also the aggregation
/// schedule of the level-by-level evaluation: step 1 aggregates the deepest level, the
/// last step the root. Plain C++ (no Qt), so that tests can check it without a display.

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/data/analysis.h"
#include "core/data/constituencytree.h"

namespace treelens {

struct AggregationNode {
    int id = -1;                         ///< post-order id (phrasePostOrder, core/data/phraseorder.h)
    int level = 0;                       ///< depth: root 0
    std::pair<int, int> span{0, 0};      ///< words [start, end)
    int length = 0;                      ///< L_v: start, children, end
    std::vector<int> targets;            ///< children: phrase id, or -(word + 1)
    std::vector<std::vector<float>> sem; ///< [head][position 0 .. L_v - 1]
    std::vector<std::vector<float>> syn; ///< empty for a semantic-only model
    float normSem = -1.0f, normSyn = -1.0f; ///< ||w^e||, ||w^n||; -1 when absent
};

struct AggregationNodes {
    int heads = 0;              ///< per stream
    bool syntactic = true;      ///< the model has the syntactic stream
    int maxLevel = 0;           ///< this tree's deepest phrase level
    /// The deepest level of the batch the tree was aggregated in (the pair's two trees):
    /// step 1 aggregates that level on every tree of the batch (README §6). Starts as maxLevel.
    int scheduleMaxLevel = 0;
    std::vector<AggregationNode> nodes;
    /// Steps of the aggregation: one per level of the batch, deepest first.
    int steps() const { return scheduleMaxLevel + 1; }
    /// The level aggregated at 1-based `step`.
    int levelAt(int step) const { return scheduleMaxLevel - (step - 1); }
    /// The 1-based step that aggregates `level`.
    int stepOf(int level) const { return scheduleMaxLevel - level + 1; }
};

/// The aggregation nodes of an analysis side (nullopt when it has no aggregation overlays).
std::optional<AggregationNodes> aggregationNodesOf(const Analysis &analysis);

/// Where a phrase of `level` stands at 1-based `step` (step <= 0: all done).
enum class AggregationPhase { Done, Current, Pending };
AggregationPhase aggregationPhase(const AggregationNodes &nodes, int level, int step);

/// Names of the positions of node `id`'s sequence: "start (NP)", each child (a
/// word as itself, a phrase as its label and words, "NP the cat"), "end (NP)".
/// `tree` is the side's constituency tree, `words` its words.
std::vector<std::string> phrasePositionLabels(const AggregationNodes &nodes, int id, const ConstituencyTree &tree,
                                           const std::vector<std::string> &words);

/// The phrase label of node `id` in `tree` ("" when out of range).
std::string phraseLabel(int id, const ConstituencyTree &tree);

} // namespace treelens
