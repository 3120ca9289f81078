#pragma once
/// \file device.h
/// Device selection for LibTorch (internal to core: torch types).

#include <torch/types.h>

#include "core/base/result.h"
#include "core/runtime/computecontext.h"
#include "core/runtime/deviceconfig.h"

namespace treelens {

/// "auto" → CUDA when LibTorch was built with it and a GPU is present, else CPU;
/// "cuda"/"cuda:N" without a usable GPU → an Error. Changes no thread count
/// (`threads` is for the encoder's ThreadScope).
Result<torch::Device> resolveDevice(const DeviceConfig &config);

} // namespace treelens
