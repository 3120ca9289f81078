#pragma once
/// \file computecontext.h
/// How core computes on the CPU, made explicit. The process-wide settings (the
/// thread pools' size, the allocator) are one ComputeContext that the program's
/// entry point applies: treelens-cli's main from --threads, the app from its
/// settings, the training commands for the allocator. No library call changes
/// them on its own. What one pass needs for itself (its thread count, the GEMM
/// library's share) it asks for through a ThreadScope, which restores on exit and
/// shares OpenBLAS's process-wide pool with the other threads under one lock.
/// Torch-free.

#include <cstddef>

namespace treelens {

struct ComputeContext {
    /// LibTorch's intra-op threads and OpenBLAS's pool; 0 = LibTorch's default.
    int threads = 0;
    /// glibc keeps freed memory in the heap (mmap threshold 32 MiB, trim threshold
    /// 1 GiB): with its defaults every large batch tensor of a training step is
    /// mmap'ed and unmapped again, and the page faults took half of the CPU time of
    /// parser training (measured: 50% system time, 2x slower). For training runs.
    bool retainFreedMemory = false;
};

/// Sets LibTorch's intra-op threads (this thread's, and the default of threads
/// that start later) and OpenBLAS's process count to n (> 0) together. For a
/// program's entry point (applyComputeContext) and tests; a library call asks
/// for threads through a ThreadScope instead.
void setCpuThreads(int n);
/// LibTorch's current intra-op thread count.
int cpuThreads();
/// OpenBLAS's thread count; 0 when LibTorch's BLAS is not OpenBLAS.
int blasThreads();

/// Applies `context` to the process (see ComputeContext). Call from a program's
/// entry point, before worker threads start; the last call wins.
void applyComputeContext(const ComputeContext &context);

/// For its lifetime, the threads of the computation on the calling thread:
/// `threads` (> 0; 0 keeps the current count) for LibTorch on this thread and for
/// OpenBLAS, and, for a pass whose matrix products all run in one library
/// (`gemms`), one thread for the other library (docs/performance.md, "Threads":
/// OpenMP's idle workers spin beside OpenBLAS's threads). OpenBLAS's pool is one
/// per process: while scopes on several threads are open it runs with the
/// smallest count any of them asked for, and returns to the process's count when
/// the last closes. Scopes nest.
class ThreadScope {
public:
    enum class Gemms {
        Any,      ///< no preference
        OpenBlas, ///< fp32 GEMMs (addmm): LibTorch's OpenMP pool steps aside
        OneDnn    ///< int8/bf16 GEMMs (OpenMP): OpenBLAS steps aside
    };
    explicit ThreadScope(int threads = 0, Gemms gemms = Gemms::Any);
    ~ThreadScope();
    ThreadScope(const ThreadScope &) = delete;
    ThreadScope &operator=(const ThreadScope &) = delete;

private:
    int m_torchPrevious = 0;   ///< this thread's count to restore; 0 = unchanged
    bool m_blasRequested = false;
    int m_blasRequest = 0;     ///< the count asked of OpenBLAS's pool while open
};

} // namespace treelens
