// randominit: an encoder like a model file with seeded random weights (see randominit.h).
#include "core/encoders/common/randominit.h"

#include <exception>

#include <nlohmann/json.hpp>

#include "core/encoders/family.h"
#include "core/model/modelfile.h"

namespace treelens {

Result<std::unique_ptr<Encoder>> randomEncoderLike(const std::string &modelPath, unsigned seed, const DeviceConfig &device)
{
    using nlohmann::json;
    auto file = loadModelFile(modelPath);
    if (!file)
        return file.error();
    auto family = modelFamilyOf(*file);
    if (!family)
        return family.error();
    const EncoderFamily *f = findEncoderFamily(*family);
    if (!f || !f->randomWeightsLike || !f->create)
        return makeError(modelPath, "no random-init baseline for model family '" + *family + "'");
    auto random = f->randomWeightsLike(*file, seed);
    if (!random)
        return makeError(modelPath, random.error());
    json config = json::parse(random->configJson);
    config["name"] = config.value("name", std::string("model")) + " (random init, seed " + std::to_string(seed) + ")";
    random->configJson = config.dump();
    random->sourcePath = modelPath + " (random init)";
    return f->create(*random, device);
}

} // namespace treelens
