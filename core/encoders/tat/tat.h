#pragma once
/// \file tat.h
/// The Tree Aggregation Transformer family (seed 000): `import-checkpoint
/// --family tree-aggregation-transformer`, `verify-fixture` and the registry
/// entry. Torch-free header. (The encoder for the app and the pair commands is
/// not built yet: issue 15.)

#include "core/base/result.h"
#include "core/encoders/family.h"

namespace treelens {

struct ModelFile;

/// Converts a state dict with the reference fixture's names and its
/// configuration (config.json layout: "lm", "tat", "classifier", `vocab`, `tags`)
/// into a native model file.
Result<ModelFile> importTatCheckpoint(ImportRequest request);

EncoderFamily tatFamily();

} // namespace treelens
