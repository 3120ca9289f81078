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
/// OpenBLAS's thread count; 0 when LibTorch's BLAS is not OpenBLAS.
int blasThreads();

/// For the span of one inference pass whose GEMMs all run in one library, gives
/// that library the threads and the other one a single thread, then restores both.
/// LibTorch's intra-op pool is OpenMP (libgomp), whose idle workers spin-wait after
/// every parallel region; beside OpenBLAS's own pthreads on the same cores they take
/// the CPU from the GEMMs. Measured with 2 threads on 2 cores (docs/performance.md,
/// "Threads"): fp32, whose GEMMs are OpenBLAS's, ran 2.5x slower than with one
/// thread at batch 1 and no faster at batch 64 until LibTorch's pool was set to 1;
/// int8 and bf16, whose GEMMs are oneDNN's (OpenMP), keep LibTorch's pool and give
/// OpenBLAS one thread. Does nothing when one thread is in use either way.
class GemmThreadScope
{
public:
    /// `blasGemms`: the pass's GEMMs run in OpenBLAS (fp32 addmm) rather than oneDNN.
    /// `threads` > 0: first setCpuThreads(threads) on the calling thread (OpenMP keeps
    /// a count per thread, so a worker thread would otherwise use OpenMP's default).
    explicit GemmThreadScope(bool blasGemms, int threads = 0);
    ~GemmThreadScope();
    GemmThreadScope(const GemmThreadScope &) = delete;
    GemmThreadScope &operator=(const GemmThreadScope &) = delete;

private:
    int m_torchThreads = 0; ///< to restore; 0 = unchanged
    int m_blasThreads = 0;  ///< to restore; 0 = unchanged
};

} // namespace treelens
