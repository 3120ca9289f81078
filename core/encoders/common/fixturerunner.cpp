// The skeleton of the families' verify-fixture runners (see fixturerunner.h).
#include "core/encoders/common/fixturerunner.h"

#include <exception>
#include <utility>

#include <torch/torch.h>

#include "core/encoders/fixture.h"

namespace treelens {

Result<ModelFile> importFixtureModel(const FixtureRequest &request,
                                     const std::function<Result<ModelFile>(ImportRequest)> &import,
                                     const std::string &submodel)
{
    ImportRequest ir = importRequestFor(request);
    ir.submodel = submodel;
    auto file = import(std::move(ir));
    if (!file)
        return file.error();
    if (auto s = validateModelFile(*file, request.stateDictPath); !s)
        return s.error();
    return file;
}

Result<TensorMap> runFixture(const FixtureRequest &request,
                             const std::function<Status(const nlohmann::json &config, const nlohmann::json &inputs,
                                                        TensorMap &out)> &body)
{
    TensorMap out;
    torch::NoGradGuard noGrad;
    try {
        const auto config = nlohmann::json::parse(request.configJson);
        const auto inputs = nlohmann::json::parse(request.inputsJson);
        if (auto s = body(config, inputs, out); !s)
            return s.error();
    } catch (const std::exception &e) {
        return makeError(request.inputsPath, e.what());
    }
    return out;
}

} // namespace treelens
