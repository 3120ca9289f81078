// randominit: an encoder like a model file with seeded random weights (see randominit.h).
#include "core/encoders/randominit.h"

#include <exception>

#include <nlohmann/json.hpp>

#include "core/encoders/treetransformer.h"
#include "core/model/modelfile.h"

namespace treelens {

Result<std::unique_ptr<Encoder>> randomEncoderLike(const std::string &modelPath, unsigned seed, const DeviceConfig &device)
{
    using nlohmann::json;
    auto file = loadModelFile(modelPath);
    if (!file)
        return file.error();
    json config;
    try {
        config = json::parse(file->configJson);
    } catch (const std::exception &e) {
        return makeError(modelPath, std::string("treelens.config is not valid JSON: ") + e.what());
    }
    if (config.value("family", std::string()) != "tree-transformer" || !config.contains("model"))
        return makeError(modelPath, "--random-init supports tree-transformer models only");
    auto cfg = TreeTransformerConfig::fromJson(config["model"].dump());
    if (!cfg)
        return makeError(modelPath, cfg.message());
    file->tensors = randomTreeTransformerWeights(*cfg, seed);
    config["name"] = config.value("name", std::string("model")) + " (random init, seed " + std::to_string(seed) + ")";
    file->configJson = config.dump();
    file->sourcePath = modelPath + " (random init)";
    return createTreeTransformer(*file, device);
}

} // namespace treelens
