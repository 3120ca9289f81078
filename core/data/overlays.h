#pragma once
/// \file overlays.h
/// What an analysis carries beyond the fields every family fills, named in one place:
/// the keys a family writes into Analysis::gates for its per-node records, and the
/// tests a view uses to decide what to draw. A view asks what an analysis has, never
/// which family made it (docs/architecture.md, "Adding a view").

#include "core/data/analysis.h"

namespace treelens::overlay {

// The recursive tree models (core/encoders/recursive), per node of Analysis::nodeAttention
// (post-order): the node's height (1 + its highest node child's; 1 above words only) and
// state norm; the branch weights κ and α [branches] of a multi-branch model.
inline constexpr const char *kRecNodeHeight = "rec.node_height";
inline constexpr const char *kRecNodeNorm = "rec.node_norm";
inline constexpr const char *kRecKappa = "rec.kappa";
inline constexpr const char *kRecAlpha = "rec.alpha";

// The Tree Aggregation Transformer (core/encoders/tat), per aggregation node: its level
// [N], word span [N, 2], length L_v [N], and the two encoders' node-state norms [N].
inline constexpr const char *kTatNodeLevel = "tat.node_level";
inline constexpr const char *kTatNodeSpan = "tat.node_span";
inline constexpr const char *kTatNodeLen = "tat.node_len";
inline constexpr const char *kTatNodeNormSem = "tat.node_norm_sem";
inline constexpr const char *kTatNodeNormSyn = "tat.node_norm_syn";

// GGSA / iGGSA (core/encoders/ggsa), per token: its group's id and the group offsets
// (the attention blocks), the gate's mean over the hidden units [layers, tokens], and the
// interaction vector's norm on the answer side.
inline constexpr const char *kGgsaGroupId = "ggsa.group_id";
inline constexpr const char *kGgsaOffsets = "ggsa.offsets";
inline constexpr const char *kGgsaGateMean = "ggsa.gate_mean";
inline constexpr const char *kGgsaInteractionNorm = "ggsa.interaction_norm";

/// Bottom-up composition over a tree: node attention with every node's height (the
/// recursive tree models; the composition view, the trees' node attention by height).
inline bool hasComposition(const Analysis &a)
{
    return !a.nodeAttention.empty() && a.gates.count(kRecNodeHeight) != 0;
}

/// Aggregation nodes with levels and spans over a constituency tree (the Tree
/// Aggregation Transformer; the constituency view's aggregation overlay).
inline bool hasAggregationNodes(const Analysis &a)
{
    return !a.nodeAttention.empty() && a.gates.count(kTatNodeLevel) != 0;
}

} // namespace treelens::overlay
