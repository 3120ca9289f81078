#pragma once
/// \file deptransformer.h
/// The Dependency-Transformer family (seed 003): the encoder (a sentence with
/// its dependency tree), `import-checkpoint --family dependency-transformer`,
/// `verify-fixture` and the registry entry. Torch-free header.
///
/// An Analysis holds, with tokens = [root] + the words (wordToken[k] = k + 1):
/// attention[layer][head] = the attention the model uses, softmax(S);
/// attentionRaw = the plain self-attention softmax(S^e), attentionRelation =
/// softmax(S^r), relationGate = g (with options.attention); relations = the
/// relation matrix with the ids' names and the tree distances; gates
/// "relation_gate.values" and "relation_gate.relation_attention" [layers, heads, n1, n1] (the
/// semantic gate g and softmax(S^r)), "relations.ids" [n1, n1] (their
/// labels: Analysis-independent, in the model's treelens.config "relations"),
/// "relations.token_levels" [n1]; embedding = the [root] token's final state (the
/// sentence vector), meanEmbedding = the mean over the words; prediction = the
/// sentence classifier.

#include "core/base/result.h"
#include "core/encoders/family.h"

namespace treelens {

struct ModelFile;

/// Converts a state dict with the reference fixture's names and its
/// configuration (config.json layout: sizes, `vocab`, `relations`, `classes`,
/// `pair_classes`) into a native model file.
Result<ModelFile> importDepTransformerCheckpoint(ImportRequest request);

EncoderFamily depTransformerFamily();

} // namespace treelens
