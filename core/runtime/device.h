#pragma once
/// \file device.h
/// Device selection for LibTorch (internal to core: torch types).

#include <torch/types.h>

#include "core/base/result.h"
#include "core/encoders/encoder.h"

namespace treelens {

/// "auto" → CUDA when LibTorch was built with it and a GPU is present, else CPU;
/// "cuda"/"cuda:N" without a usable GPU → an Error. Applies `threads` (> 0).
Result<torch::Device> resolveDevice(const DeviceConfig &config);

/// Sets LibTorch's intra-op threads and OpenBLAS's pool to n (> 0) together.
void setCpuThreads(int n);
/// LibTorch's current intra-op thread count.
int cpuThreads();

} // namespace treelens
