#pragma once
/// \file tat.h
/// The Tree Aggregation Transformer family (seed 000): `import-checkpoint
/// --family tree-aggregation-transformer`, `verify-fixture` and the registry
/// entry. Torch-free header.
///
/// The encoder reads pairs (EncoderInfo::pairInput) with both sentences'
/// constituency trees (InputKind::WordsWithConstituency). Its Analysis is the
/// question's, with the answer's under `second` and the pair's eq. (9) prediction
/// (score = P(relevant)). Per side: `tokens` = the words; `embedding` = the
/// root's [w^e; w^n]; gates "aggregation.node_level" [N], "aggregation.node_span" [N, 2],
/// "aggregation.node_length" [N] (L_v) and, with attention, "aggregation.attention_semantic" / "aggregation.attention_syntactic"
/// [N, heads, Lmax] (row 0: start, children, end; 0 on padding), "aggregation.node_norm_semantic"
/// / "_syn" [N]; `nodeAttention` per node (post-order ids): targets = its children
/// (a phrase's node id, or -(word + 1) for a word), weights = [the semantic heads,
/// then the syntactic heads][child], so `heads` is 2 × the heads per stream (the
/// views number them 1..2H: the semantic stream's first). embed() gives the pair vector of eq. (9)
/// (before the tanh); there are no per-word layer states.

#include <string>
#include <vector>

#include "core/base/result.h"
#include "core/encoders/family.h"
#include "core/encoders/tat/tatconfig.h"

namespace treelens {

struct ModelFile;

/// A TAT model file's treelens.config: family, task "pair-ranking", name, the model's
/// configuration, its tag inventory and classes, and what its training says (JSON text).
std::string tatConfigJson(const TatConfig &config, const std::string &name, const std::vector<std::string> &tags,
                          const std::vector<std::string> &classes, const std::string &trainingJson);

/// Converts a state dict with the reference fixture's names and its
/// configuration (config.json layout: "lm", "tat", "classifier", `vocab`, `tags`)
/// into a native model file.
Result<ModelFile> importTatCheckpoint(ImportRequest request);

EncoderFamily tatFamily();

} // namespace treelens
