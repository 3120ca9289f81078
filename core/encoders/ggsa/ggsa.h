#pragma once
/// \file ggsa.h
/// The GGSA / iGGSA family: the encoder (sentence pairs: question and answer;
/// a single sentence runs through the question encoder), `import-checkpoint
/// --family ggsa`, `verify-fixture` and the registry entry. Torch-free header.
///
/// What an Analysis of a pair holds (first = question, second[0] = answer):
///  - attention[block][head]: within-group attention A_h (exactly 0 outside the
///    group); attentionRaw: the same block's softmax over every key (diagnostic);
///  - gates "token_gate.mean" / "token_gate.norm" [blocks, tokens]: mean and L2 norm
///    over D of the global information gate G; "token_gate.values" [blocks, tokens, D] only
///    with AnalyzeOptions::layerStates; "token_groups.group_id" [heads, tokens]; "token_groups.offsets" [heads];
///  - answer (iGGSA): "pair_interaction.norm" [blocks, tokens], the L2 norm of the
///    question-aware residual R~ per answer word;
///  - embedding: the pooled vector (v_q, v_a); crossAttention[0] (attention
///    composition): 1 x answer-tokens weights alpha;
///  - prediction: label relevant/irrelevant by the MLP, score = the model's
///    ranking score (cosine or MLP probability), probabilities = MLP softmax;
///    gates "pair_scores.cosine" and "pair_scores.mlp_relevant" [1] hold both scores.

#include "core/base/result.h"
#include "core/encoders/family.h"

namespace treelens {

struct ModelFile;

/// Converts a GGSA state dict (the fixture's names, with a `<submodel>.` prefix
/// when the configuration lists several sub-models) and the fixture-style
/// configuration JSON (d_model, n_heads, group_size, offsets, n_layers, d_ff,
/// d_mlp, vocab, ...) into a native model file.
Result<ModelFile> importGgsaCheckpoint(ImportRequest request);

/// The registry entry of the family "ggsa".
EncoderFamily ggsaFamily();

} // namespace treelens
