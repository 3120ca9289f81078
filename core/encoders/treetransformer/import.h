#pragma once
/// \file import.h
/// The Tree Transformer's side of `import-checkpoint` and the family registry
/// entry. Torch-free header.

#include "core/base/result.h"
#include "core/encoders/family.h"

namespace treelens {

struct ModelFile;

/// Converts the official code's state dict (`word_embed.0.lut.weight`,
/// `layers.{l}.…`) into a native model file. The configuration (layers,
/// d_model, d_ff, vocabulary size, max_len) is read off the tensor shapes and
/// every tensor is checked against it; the heads come from `request.heads`
/// (not recoverable from the shapes; 8 when 0) or from a `--config` JSON's
/// "heads". The vocabulary is required: the official dictionary.json
/// ({word: id}) or one token per line. Errors name the file and tensor.
Result<ModelFile> importTreeTransformerCheckpoint(ImportRequest request);

/// The registry entry of the family "tree-transformer" (see family.h).
EncoderFamily treeTransformerFamily();

} // namespace treelens
