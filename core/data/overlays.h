#pragma once
/// \file overlays.h
/// What an analysis carries beyond the fields every family fills, named in one place:
/// every key a family writes into Analysis::gates (one block per family), and the
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
// With attention: each node's attention over its start token, children and end token,
// per head of the semantic and (two streams) syntactic encoder [N, heads, Lmax].
inline constexpr const char *kTatAttnSem = "tat.attn_sem";
inline constexpr const char *kTatAttnSyn = "tat.attn_syn";

// GGSA / iGGSA (core/encoders/ggsa), per token: its group's id and the group offsets
// (the attention blocks), the gate's mean over the hidden units [layers, tokens], and the
// interaction vector's norm on the answer side.
inline constexpr const char *kGgsaGroupId = "ggsa.group_id";
inline constexpr const char *kGgsaOffsets = "ggsa.offsets";
inline constexpr const char *kGgsaGateMean = "ggsa.gate_mean";
inline constexpr const char *kGgsaInteractionNorm = "ggsa.interaction_norm";
// The gate's L2 norm over the hidden units [layers, tokens], the whole gate [layers,
// tokens, D] (with layer states), and a pair's two scores [1]: cosine and the MLP's
// probability of "relevant".
inline constexpr const char *kGgsaGateNorm = "ggsa.gate_norm";
inline constexpr const char *kGgsaGate = "ggsa.gate";
inline constexpr const char *kGgsaCosine = "ggsa.cosine";
inline constexpr const char *kGgsaMlpRelevant = "ggsa.mlp_relevant";

// The Dependency-Transformer (core/encoders/deptransformer), over the tokens with [root]
// first (n1 = words + 1): the relation id of every token pair [n1, n1] and each token's
// tree level [n1]; with attention, the semantic gate g and softmax(S^r) [layers, heads,
// n1, n1].
inline constexpr const char *kDepRelationIds = "deptrans.relation_ids";
inline constexpr const char *kDepLevels = "deptrans.levels";
inline constexpr const char *kDepGate = "deptrans.gate";
inline constexpr const char *kDepRelationWeights = "deptrans.relation_weights";

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

// Attributions of the prediction (issue 34; the app's Explain dock writes them into a
// copy of the analysis it shows): per word of this sentence [words], signed (a gradient
// method) or >= 0 (rollout).
inline constexpr const char *kAttributionWord = "attribution.word";

inline const NamedArray *wordAttribution(const Analysis &a)
{
    const auto it = a.gates.find(kAttributionWord);
    return it == a.gates.end() || it->second.data.size() != a.words.size() ? nullptr : &it->second;
}

} // namespace treelens::overlay
