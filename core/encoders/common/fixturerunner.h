#pragma once
/// \file fixturerunner.h
/// The skeleton every family's `verify-fixture` runner (EncoderFamily::computeFixture)
/// stands on: the fixture's model imported through the family's own checkpoint
/// import, exactly as `import-checkpoint` would import it, and the runner's body
/// run with the fixture's JSON read and gradients off. The family writes only
/// what its fixture's README names. Torch-free header.

#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "core/base/result.h"
#include "core/encoders/family.h"
#include "core/model/modelfile.h"

namespace treelens {

/// The fixture's state_dict.pt and config.json through `import` (with --submodel
/// `submodel`), checked as a model file read from disk would be.
Result<ModelFile> importFixtureModel(const FixtureRequest &request,
                                     const std::function<Result<ModelFile>(ImportRequest)> &import,
                                     const std::string &submodel = "");

/// Runs body(config.json, inputs.json, out) with gradients off and returns what
/// it wrote; an exception it throws (a missing key, a wrong type) becomes an error
/// naming inputs.json.
Result<TensorMap> runFixture(const FixtureRequest &request,
                             const std::function<Status(const nlohmann::json &config, const nlohmann::json &inputs,
                                                        TensorMap &out)> &body);

} // namespace treelens
