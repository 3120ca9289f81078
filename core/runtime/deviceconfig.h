#pragma once
/// \file deviceconfig.h
/// Where and how inference runs: the device, the threads of one pass, the batch
/// size and the arithmetic, as `--device`, `--threads`, `--batch` and
/// `--precision` give them. Torch-free.

#include <string>

#include "core/base/result.h"

namespace treelens {

/// Where and how inference runs.
struct DeviceConfig {
    std::string device = "auto"; ///< "auto" (CUDA when LibTorch has it and a GPU is present), "cpu", "cuda", "cuda:N"
    int threads = 0;             ///< CPU threads of a pass (a ThreadScope on the calling thread); 0 = the process's count
    int batchSize = 32;          ///< sentences per forward pass (padded to the longest)
    /// The projections' arithmetic (the Tree Transformer and the pretrained family, which has
    /// no int8 and says so; the other families run fp32):
    /// "fp32" (default; matches the reference implementations), "bf16" (bfloat16
    /// on oneDNN: fast only where the CPU has AVX512_BF16/AMX, or on a GPU),
    /// "int8" (dynamic int8 quantization, CPU only) or "auto" (the fastest of
    /// these measured on this machine when the model loads, bf16 only where it is
    /// native; EncoderInfo says which and why). Everything else stays fp32; the
    /// deviations are bounded in docs/performance.md.
    std::string precision = "fp32";

    Status validate() const;
};

} // namespace treelens
