#pragma once
/// \file familykit.h
/// What every encoder family does the same way when it opens a model file or
/// imports a checkpoint: where messages point, the vocabulary's size check, the
/// EncoderInfo fields all families fill alike, a Prediction from class
/// probabilities, and the import's common steps (its configuration, the model's
/// name, the training record of an import, the ModelFile). Torch-free.

#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/base/result.h"
#include "core/data/analysis.h"
#include "core/encoders/encoder.h"
#include "core/model/modelfile.h"

namespace treelens {

struct ImportRequest;

/// The model file's path for messages ("model" when it has none).
std::string modelWhere(const ModelFile &file);

/// "the vocabulary has N entries but <field> is M" unless the file's vocabulary has `expected` entries.
Status checkVocabularySize(const ModelFile &file, int expected, const std::string &field = "vocab_size");

/// A model's size as EncoderInfo reports it.
struct ModelShape {
    int layers = 0;
    int heads = 0;
    int dModel = 0;
    int dFF = 0;
    int vocabSize = 0;
    int maxTokens = 0; ///< 0 = unbounded
};

/// The EncoderInfo fields every family fills the same way: family, task (the
/// config's "task", else `defaultTask`), name, the shape, parameters (the tensors'
/// elements), device, the fp32-only precision note for `config.precision`,
/// configJson. The family fills its input kind, labels and outputs.
EncoderInfo commonEncoderInfo(const ModelFile &file, const std::string &family, const std::string &defaultTask,
                              const std::string &device, const DeviceConfig &config, const ModelShape &shape);

/// Which probability a Prediction's score is (what ranks pairs or sentences).
enum class PredictionScore {
    Best,      ///< the chosen label's
    Last,      ///< the last label's (the positive one: "YES", "1", "entailment")
    Positive,  ///< label 1's ("relevant" of [irrelevant, relevant]); the only one's when there is one
    Expected   ///< Σ (k + 1)·p_k, the expected rank (relatedness on a 1..K scale)
};
/// The label with the highest probability (its index when `labels` is short).
Prediction predictionOf(std::vector<float> probabilities, const std::vector<std::string> &labels, PredictionScore score);

/// The checkpoint's --config as JSON, required: "<family> checkpoint needs its
/// configuration (--config config.json)" when none was given.
Result<nlohmann::json> importConfigOf(const ImportRequest &request, const std::string &family);
/// The imported model's name: --name, else the checkpoint's stem followed by `suffix`.
std::string importedModelName(const ImportRequest &request, const std::string &suffix = "");
/// The training record of an imported model: {"imported_from": file name, ...extra, "note": the reader's note}.
nlohmann::json importedTrainingRecord(const ImportRequest &request, const nlohmann::json &extra = nlohmann::json::object());
/// The native model file of an import: the config, the vocabulary, the request's tensors (moved out).
ModelFile importedModelFile(ImportRequest &request, std::string configJson, std::vector<std::string> vocab);

/// EncoderFamily::randomWeightsLike from the family's config reader
/// (ModelFile → Result<Config>) and its initialiser ((Config, seed) → TensorMap).
template <class ConfigOf, class RandomTensors>
std::function<Result<ModelFile>(const ModelFile &, unsigned)> randomWeightsWith(ConfigOf configOf, RandomTensors random)
{
    return [configOf, random](const ModelFile &file, unsigned seed) -> Result<ModelFile> {
        auto config = configOf(file);
        if (!config)
            return config.error();
        ModelFile out = file;
        out.tensors = random(*config, seed);
        return out;
    };
}

/// EncoderFamily::summary from the family's config reader and a description of
/// the config; the reader's message when the file's config does not read.
template <class ConfigOf, class Describe>
std::function<std::string(const ModelFile &)> summaryWith(ConfigOf configOf, Describe describe)
{
    return [configOf, describe](const ModelFile &file) -> std::string {
        auto config = configOf(file);
        if (!config)
            return config.message();
        return describe(*config);
    };
}

} // namespace treelens
