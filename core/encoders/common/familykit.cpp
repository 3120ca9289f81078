// What every encoder family does the same way (see familykit.h).
#include "core/encoders/common/familykit.h"

#include <algorithm>
#include <cstddef>
#include <exception>
#include <filesystem>
#include <tuple>
#include <utility>

#include "core/encoders/family.h"
#include "core/model/modelfile.h"

namespace treelens {

using nlohmann::json;

std::string modelWhere(const ModelFile &file)
{
    return file.sourcePath.empty() ? "model" : file.sourcePath;
}

Status checkVocabularySize(const ModelFile &file, int expected, const std::string &field)
{
    if (static_cast<int>(file.vocab.size()) == expected)
        return {};
    return makeError(modelWhere(file), "the vocabulary has " + std::to_string(file.vocab.size()) + " entries but " + field +
                                           " is " + std::to_string(expected));
}

EncoderInfo commonEncoderInfo(const ModelFile &file, const std::string &family, const std::string &defaultTask,
                              const std::string &device, const DeviceConfig &config, const ModelShape &shape)
{
    EncoderInfo info;
    info.family = family;
    std::tie(info.layers, info.heads, info.dModel, info.dFF, info.vocabSize, info.maxTokens) =
        std::tie(shape.layers, shape.heads, shape.dModel, shape.dFF, shape.vocabSize, shape.maxTokens);
    json j = json::object();
    try {
        j = json::parse(file.configJson);
    } catch (const std::exception &) {
        // The family read its config before; a file that is not JSON keeps the defaults.
    }
    info.task = j.is_object() ? j.value("task", defaultTask) : defaultTask;
    info.name = j.is_object() ? j.value("name", std::string()) : std::string();
    for (const auto &entry : file.tensors)
        info.parameters += static_cast<long long>(entry.second.numel());
    info.device = device;
    info.precisionNote = fp32OnlyNote(config.precision);
    info.configJson = file.configJson;
    return info;
}

Prediction predictionOf(std::vector<float> probabilities, const std::vector<std::string> &labels, PredictionScore score)
{
    Prediction p;
    p.labels = labels;
    p.probabilities = std::move(probabilities);
    if (p.probabilities.empty())
        return p;
    const auto best = static_cast<std::size_t>(
        std::max_element(p.probabilities.begin(), p.probabilities.end()) - p.probabilities.begin());
    p.label = best < p.labels.size() ? p.labels[best] : std::to_string(best);
    switch (score) {
    case PredictionScore::Best:
        p.score = p.probabilities[best];
        break;
    case PredictionScore::Last:
        p.score = p.probabilities.back();
        break;
    case PredictionScore::Positive:
        p.score = p.probabilities.size() > 1 ? p.probabilities[1] : p.probabilities.front();
        break;
    case PredictionScore::Expected:
        p.score = 0.0f;
        for (std::size_t k = 0; k < p.probabilities.size(); ++k)
            p.score += static_cast<float>(k + 1) * p.probabilities[k];
        break;
    }
    return p;
}

Result<json> importConfigOf(const ImportRequest &request, const std::string &family)
{
    if (request.configJson.empty())
        return makeError(request.checkpointPath, "a " + family + " checkpoint needs its configuration (--config config.json)");
    try {
        return json::parse(request.configJson);
    } catch (const std::exception &e) {
        return makeError(request.configPath, std::string("not valid JSON: ") + e.what());
    }
}

std::string importedModelName(const ImportRequest &request, const std::string &suffix)
{
    return request.name.empty() ? std::filesystem::path(request.checkpointPath).stem().string() + suffix : request.name;
}

json importedTrainingRecord(const ImportRequest &request, const json &extra)
{
    json t = {{"imported_from", std::filesystem::path(request.checkpointPath).filename().string()}};
    for (const auto &[key, value] : extra.items())
        t[key] = value;
    t["note"] = request.note;
    return t;
}

ModelFile importedModelFile(ImportRequest &request, std::string configJson, std::vector<std::string> vocab)
{
    ModelFile file;
    file.configJson = std::move(configJson);
    file.vocab = std::move(vocab);
    file.tensors = std::move(request.tensors);
    file.sourcePath = request.checkpointPath;
    return file;
}

} // namespace treelens
