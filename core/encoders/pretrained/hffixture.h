#pragma once
/// \file hffixture.h
/// The reference layout of a pretrained-Transformer fixture: a Hugging Face model
/// folder with an `expected.json` written by the library itself ({"tolerance_abs",
/// "sentences": [{"text", "input_ids", "tokens", "offsets", "attentions",
/// "hidden_states", "pooler_output"}]}). Compares values computed in that layout with
/// it: integers and strings exactly, floats within the tolerance; every key of every
/// expected sentence is one check. Torch-free.

#include <string>

#include "core/base/result.h"
#include "core/encoders/fixturereport.h"

namespace treelens {

/// Whether `dir` holds a fixture of this layout (config.json with model_type, expected.json with "sentences").
bool isHfFixtureFolder(const std::string &dir);

/// Compares `computedJson` with `expectedJson` (both in the layout above); `where`
/// names expected.json in messages. A sentence or key missing from the computed
/// values is a failed check ("missing"), a shape that differs too.
Result<FixtureReport> compareHfFixture(const std::string &computedJson, const std::string &expectedJson,
                                       const std::string &where);

} // namespace treelens
