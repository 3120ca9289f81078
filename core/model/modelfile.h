#pragma once
/// \file modelfile.h
/// A TreeLens model file: weights plus the `treelens.config` JSON and the
/// vocabulary. Single-file form: `.safetensors` with `treelens.config` and
/// `treelens.vocab` (newline-separated) in `__metadata__`. Directory form:
/// `config.json` + `model.safetensors` + `vocab.txt`. Loading validates the
/// container (see safetensors.h), that the config is a JSON object naming a
/// family, that the vocabulary is non-empty without duplicates, that weights
/// are f32/f16/bf16, and refuses NaN or Inf weights (naming the tensor).
/// Shapes against the config are checked by each family.

#include <cstdint>
#include <string>
#include <vector>

#include "core/base/result.h"
#include "core/model/tensordata.h"

namespace treelens {

struct ModelFile {
    std::string configJson;          ///< treelens.config
    std::vector<std::string> vocab;  ///< treelens.vocab, one token per entry
    TensorMap tensors;
    std::string sourcePath;          ///< where it was loaded from (for messages)
};

Result<ModelFile> loadModelFile(const std::string &path);
/// The `treelens.config` JSON of a model file or directory without reading its
/// weights (the safetensors header only: a file dialog can tell encoders from
/// parsers by it). Errors as loadModelFile's.
Result<std::string> readModelConfigJson(const std::string &path);
/// The "family" of readModelConfigJson ("" when the config names none).
Result<std::string> readModelFamily(const std::string &path);
/// Checks a ModelFile as loadModelFile does (used after import too).
Status validateModelFile(const ModelFile &file, const std::string &where);
/// Writes the single-file form; float tensors are stored as `storage` (F32, F16 or BF16).
Status saveModelFile(const std::string &path, const ModelFile &file, DType storage = DType::F32);

/// Error naming the tensor when it is missing or its shape differs.
Status expectShape(const TensorMap &tensors, const std::string &name, const std::vector<std::int64_t> &shape,
                   const std::string &where);

} // namespace treelens
