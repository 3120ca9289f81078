#pragma once
/// \file recursive.h
/// The recursive tree models of seed 004 as one family, "recursive-tree-transformer"
/// (the fixture's): CTT, DTT, DTT + edge labels and the attentive Child-Sum and
/// binary Tree-LSTMs (core/encoders/recursive/recconfig.h). `import-checkpoint
/// --family recursive-tree-transformer --submodel ctt|dtt|dtte|treelstm.cs|treelstm.bin`,
/// `verify-fixture` and the registry entry. Torch-free header.
///
/// A model file holds one sub-model: "embed.word.weight" and the sub-model's
/// tensors under the fixture's names (prefix "dtte." etc.).
///
/// Analysis (per sentence; for a pair model the left side's, with the right's
/// under `second` and the pair's prediction on the left): `tokens` = `words`;
/// `embedding` = the root vector; `nodeAttention` one entry per internal node in
/// the tree's post-order (RecTree), with `targets` = its children (a node id, or
/// -(word + 1) for a word; the dependency models' own head word first as
/// -(head + 1)), `weights` = per branch (Tree-LSTM: one row) the attention each
/// member receives, averaged over the query members (§11's summary: each row sums
/// to 1), span, head word, label, state norm and `arrays`: "attn" (the full
/// [branch, query, key] attention; Tree-LSTM: "alpha" [k] or [k, k]), DTT + edges
/// "edge_fwd.attn" / "edge_bwd.attn" [branch, k, k], Tree-LSTM "gates" [5, m]
/// (i, o, u, c, h), "f" [k, m] and "h_att". `gates`: "composition.branch_kappa" / "composition.branch_alpha"
/// [branches] (the branch weights κ, α), "composition.node_height" [N], "composition.node_norm" [N].
/// layerStates() (probing): layer 0 = each word as a leaf, layer 1 = its node state (the
/// dependency models' token subtree, the constituency models' smallest constituent holding
/// the word); embed() = the root vector.

#include <string>

#include "core/base/result.h"
#include "core/encoders/family.h"
#include "core/encoders/recursive/recconfig.h"

namespace treelens {

struct ModelFile;

/// A recursive model file's treelens.config (JSON text).
std::string recursiveConfigJson(const RecConfig &config, const std::string &name, const std::string &trainingJson);
/// The configuration of a recursive model file.
Result<RecConfig> recursiveConfigOf(const ModelFile &file);

/// Converts a state dict holding one or more sub-models (the fixture's names)
/// with its configuration (native {"model": ...} or the fixture's config.json,
/// then --submodel picks the sub-model) into a native model file.
Result<ModelFile> importRecursiveCheckpoint(ImportRequest request);

EncoderFamily recursiveFamily();

} // namespace treelens
