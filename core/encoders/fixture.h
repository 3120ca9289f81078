#pragma once
/// \file fixture.h
/// `verify-fixture`: a reference fixture directory (docs/model-files.md, "Reference
/// fixtures": config.json, state_dict.pt, inputs.json, expected.json) read,
/// run by its family (EncoderFamily::computeFixture, through the family's
/// checkpoint import) and compared tensor by tensor. Nothing here knows a
/// particular fixture: names, shapes and the tolerance come from expected.json.
/// Torch-free header.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/base/result.h"
#include "core/encoders/family.h"
#include "core/encoders/fixturereport.h"

namespace treelens {

/// Reads the fixture's files (config.json strictly: no key twice, integers in range).
Result<FixtureRequest> readFixtureDirectory(const std::string &dir);
/// What `import-checkpoint --family F state_dict.pt --config config.json` would hand
/// the family for this fixture: the runners import through it (docs/model-files.md).
ImportRequest importRequestFor(const FixtureRequest &request);
/// The family named by config.json's "family".
Result<const EncoderFamily *> fixtureFamily(const FixtureRequest &request);

/// Compares `computed` with expected.json's text ({"tolerance_abs", "tensors":
/// {name: {"shape", "dtype", "data"}}}); `where` names the file in errors. The
/// tolerance is expected.json's "tolerance_abs", else `fallbackTolerance` (a
/// fixture may state it in config.json only: fixtureTolerance()); neither is an error.
Result<FixtureReport> compareWithExpected(const TensorMap &computed, const std::string &expectedJson,
                                          const std::string &where, std::optional<double> fallbackTolerance = {});
/// config.json's "tolerance_abs", when it has one.
std::optional<double> fixtureTolerance(const FixtureRequest &request);
/// `computed` in expected.json's layout (nested lists, shortest round-trip decimals).
std::string fixtureTensorsJson(const TensorMap &computed, double tolerance);

} // namespace treelens
