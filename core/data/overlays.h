#pragma once
/// \file overlays.h
/// What an analysis carries beyond the fields every family fills, named by what it carries
/// (token groups, token gates, aggregation nodes, composition arrays, relation gates, pair
/// scores) in one place: every key a family writes into Analysis::gates or a node's
/// NodeAttention::arrays, typed accessors that check the shape, and the tests a view uses
/// to decide what to draw. A view asks what an analysis has, never which family made it
/// (docs/architecture.md, "Adding a view"); a note says what is missing ("this model has
/// no relation matrix"), never which family has it.
///
/// The keys are also the names of `analyze --json`'s "gates" object (docs/cli.md).

#include <cstddef>

#include "core/data/analysis.h"

namespace treelens::overlay {

// ---- Composition over a tree (bottom-up, per node of Analysis::nodeAttention in post-order) ----
// The node's height (1 + its highest node child's; 1 above words only) and state norm [nodes];
// the branch weights κ and α of a multi-branch composition [branches].
inline constexpr const char *kCompositionNodeHeight = "composition.node_height";
inline constexpr const char *kCompositionNodeNorm = "composition.node_norm";
inline constexpr const char *kCompositionBranchKappa = "composition.branch_kappa";
inline constexpr const char *kCompositionBranchAlpha = "composition.branch_alpha";

// Per node (NodeAttention::arrays): the attention among the node's members per branch
// [branch, query member, key member]; the attention along the dependency edges, forward and
// backward [branch, k, k] over the k children; the gates of an LSTM cell [5 (i, o, u, c, h), m]
// and its forget gate per child [child, m].
inline constexpr const char *kNodeMemberAttention = "attn";
inline constexpr const char *kNodeEdgeForwardAttention = "edge_fwd.attn";
inline constexpr const char *kNodeEdgeBackwardAttention = "edge_bwd.attn";
inline constexpr const char *kNodeCellGates = "gates";
inline constexpr const char *kNodeForgetGates = "f";

// ---- Aggregation nodes over a constituency tree (per aggregation node) ----
// Its level [N], word span [N, 2], length L_v [N], and the two encoders' node-state norms [N].
inline constexpr const char *kAggregationNodeLevel = "aggregation.node_level";
inline constexpr const char *kAggregationNodeSpan = "aggregation.node_span";
inline constexpr const char *kAggregationNodeLength = "aggregation.node_length";
inline constexpr const char *kAggregationNodeNormSemantic = "aggregation.node_norm_semantic";
inline constexpr const char *kAggregationNodeNormSyntactic = "aggregation.node_norm_syntactic";
// With attention: each node's attention over its start token, children and end token, per head
// of the semantic and (two streams) syntactic encoder [N, heads, Lmax].
inline constexpr const char *kAggregationAttentionSemantic = "aggregation.attention_semantic";
inline constexpr const char *kAggregationAttentionSyntactic = "aggregation.attention_syntactic";

// ---- Token groups and token gates (per token) ----
// Each token's group id [tokens] and the groups' first offsets [groups] (the attention blocks).
inline constexpr const char *kTokenGroupId = "token_groups.group_id";
inline constexpr const char *kTokenGroupOffsets = "token_groups.offsets";
// A gate over the hidden units of every token: its mean and its L2 norm [layers, tokens], the
// whole gate [layers, tokens, D] (with layer states).
inline constexpr const char *kTokenGateMean = "token_gate.mean";
inline constexpr const char *kTokenGateNorm = "token_gate.norm";
inline constexpr const char *kTokenGate = "token_gate.values";

// ---- Sentence pairs ----
// The norm of the interaction vector one sentence receives from the other [layers, tokens] (the
// answer side), and a pair's two scores [1]: the cosine and the MLP's probability of "relevant".
inline constexpr const char *kPairInteractionNorm = "pair_interaction.norm";
inline constexpr const char *kPairScoreCosine = "pair_scores.cosine";
inline constexpr const char *kPairScoreMlpRelevant = "pair_scores.mlp_relevant";

// ---- Relations read from a dependency tree (over the tokens with [root] first: n1 = words + 1) ----
// The relation id of every token pair [n1, n1] and each token's tree level [n1]; with attention,
// the relation gate g and the relation attention softmax(S^r) [layers, heads, n1, n1].
inline constexpr const char *kRelationIds = "relations.ids";
inline constexpr const char *kRelationLevels = "relations.token_levels";
inline constexpr const char *kRelationGate = "relation_gate.values";
inline constexpr const char *kRelationAttention = "relation_gate.relation_attention";

// ---- Attributions of the prediction ----
// Per word of this sentence [words], signed (a gradient method) or >= 0 (rollout); the app's
// Explain dock writes them into a copy of the analysis it shows.
inline constexpr const char *kAttributionWord = "attribution.word";

/// The array `key` of `a.gates` when it is there with `rank` dimensions (any rank when 0), else nullptr.
inline const NamedArray *array(const Analysis &a, const char *key, std::size_t rank = 0)
{
    const auto it = a.gates.find(key);
    if (it == a.gates.end() || (rank != 0 && it->second.shape.size() != rank))
        return nullptr;
    return &it->second;
}

/// The array `key` of a node when it is there with `rank` dimensions (any rank when 0), else nullptr.
inline const NamedArray *nodeArray(const NodeAttention &n, const char *key, std::size_t rank = 0)
{
    const auto it = n.arrays.find(key);
    if (it == n.arrays.end() || (rank != 0 && it->second.shape.size() != rank))
        return nullptr;
    return &it->second;
}

/// Bottom-up composition over a tree: node attention with every node's height (the
/// composition view, the trees' node attention by height).
inline bool hasComposition(const Analysis &a)
{
    return !a.nodeAttention.empty() && a.gates.count(kCompositionNodeHeight) != 0;
}

/// Aggregation nodes with levels and spans over a constituency tree (the constituency view's
/// aggregation overlay, the phrase view).
inline bool hasAggregationNodes(const Analysis &a)
{
    return !a.nodeAttention.empty() && a.gates.count(kAggregationNodeLevel) != 0;
}

/// Composition nodes whose members attend along the dependency edges too (kNodeEdgeForwardAttention).
inline bool hasEdgeAttention(const Analysis &a)
{
    for (const NodeAttention &n : a.nodeAttention)
        if (n.arrays.count(kNodeEdgeForwardAttention))
            return true;
    return false;
}

/// Composition by LSTM cells: the nodes carry their cell gates (kNodeCellGates).
inline bool hasCellGates(const Analysis &a)
{
    return !a.nodeAttention.empty() && a.nodeAttention.front().arrays.count(kNodeCellGates) != 0;
}

/// Token groups: each token's group id [tokens] (the token-groups heatmap overlay); nullptr without.
inline const NamedArray *tokenGroupIds(const Analysis &a) { return array(a, kTokenGroupId, 1); }

/// A gate over every token's hidden units, its mean [layers, tokens]; nullptr without.
inline const NamedArray *tokenGateMean(const Analysis &a) { return array(a, kTokenGateMean, 2); }

/// The interaction a pair's side receives [layers, tokens]; nullptr without.
inline const NamedArray *pairInteractionNorm(const Analysis &a) { return array(a, kPairInteractionNorm, 2); }

/// Word attributions of this sentence [words]; nullptr without (or for another sentence's length).
inline const NamedArray *wordAttribution(const Analysis &a)
{
    const auto it = a.gates.find(kAttributionWord);
    return it == a.gates.end() || it->second.data.size() != a.words.size() ? nullptr : &it->second;
}

} // namespace treelens::overlay
