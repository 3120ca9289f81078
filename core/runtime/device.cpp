// Device selection, the compute context and thread scopes (see device.h, computecontext.h).
#include "core/runtime/device.h"
#include "core/base/strings.h"

#include <dlfcn.h>
#include <malloc.h>

#include <mutex>
#include <set>

#include <torch/torch.h>

namespace treelens {

namespace {

using SetThreads = void (*)(int);
using GetThreads = int (*)();

// OpenBLAS (Debian's libopenblas0-pthread behind LibTorch's fp32 GEMMs) keeps its
// own thread pool. Looked up once at run time so no BLAS is linked directly.
SetThreads blasSet()
{
    static const auto fn = reinterpret_cast<SetThreads>(dlsym(RTLD_DEFAULT, "openblas_set_num_threads"));
    return fn;
}

GetThreads blasGet()
{
    static const auto fn = reinterpret_cast<GetThreads>(dlsym(RTLD_DEFAULT, "openblas_get_num_threads"));
    return fn;
}

// OpenMP's own setter changes the calling thread's count only. LibTorch's
// at::set_num_threads also sets the default of every thread that starts a pool
// later (a process-wide value), so a scope on one thread must not use it.
SetThreads ompSet()
{
    static const auto fn = reinterpret_cast<SetThreads>(dlsym(RTLD_DEFAULT, "omp_set_num_threads"));
    return fn;
}

/// This thread's LibTorch count to `n`: OpenMP's per-thread count where LibTorch
/// runs on OpenMP, else LibTorch's setter.
void setThisThreadsCount(int n)
{
    if (const auto set = ompSet())
        set(n);
    else
        at::set_num_threads(n);
}

/// OpenBLAS's one pool per process: the process's count (applyComputeContext,
/// setCpuThreads) and the counts open ThreadScopes ask for; it runs with the
/// smallest asked for while any is open.
struct BlasPool {
    std::mutex mutex;
    int processCount = -1;          ///< -1 until first read from OpenBLAS
    std::multiset<int> requests;

    /// Sets OpenBLAS to what is asked now (the caller holds the mutex).
    void apply()
    {
        const int n = requests.empty() ? processCount : *requests.begin();
        if (n > 0)
            blasSet()(n);
    }
    void readProcessCount()
    {
        if (processCount < 0)
            processCount = blasGet()();
    }
};

BlasPool &blasPool()
{
    static BlasPool pool;
    return pool;
}

bool haveOpenBlas() { return blasSet() && blasGet(); }

} // namespace

void setCpuThreads(int n)
{
    if (n <= 0)
        return;
    at::set_num_threads(n);
    // Give OpenBLAS the same count, or "1 thread" would quietly use every core.
    if (!haveOpenBlas())
        return;
    BlasPool &pool = blasPool();
    std::lock_guard<std::mutex> lock(pool.mutex);
    pool.processCount = n;
    pool.apply();
}

int blasThreads()
{
    const auto get = blasGet();
    return get ? get() : 0;
}

int cpuThreads() { return at::get_num_threads(); }

void applyComputeContext(const ComputeContext &context)
{
    setCpuThreads(context.threads);
    if (context.retainFreedMemory) {
        mallopt(M_MMAP_THRESHOLD, 32 << 20);
        mallopt(M_TRIM_THRESHOLD, 1 << 30);
    }
}

ThreadScope::ThreadScope(int threads, Gemms gemms)
{
    if (threads <= 0 && gemms == Gemms::Any)
        return; // nothing asked: no lock, no change (every encoder call opens one)
    // at::get_num_threads() first: it gives a thread that has not run LibTorch yet the
    // process's default, which would otherwise overwrite the count set here later.
    const int torchBefore = at::get_num_threads();
    int torchWant = threads > 0 ? threads : torchBefore;
    if (!haveOpenBlas()) {
        // No OpenBLAS pool beside LibTorch's: only this thread's count.
        if (torchWant != torchBefore) {
            m_torchPrevious = torchBefore;
            setThisThreadsCount(torchWant);
        }
        return;
    }
    BlasPool &pool = blasPool();
    std::lock_guard<std::mutex> lock(pool.mutex);
    pool.readProcessCount();
    const int blasNow = blasGet()();
    int blasWant = threads > 0 ? threads : blasNow;
    if (gemms == Gemms::OpenBlas && torchWant > 1 && blasWant > 1)
        torchWant = 1;
    else if (gemms == Gemms::OneDnn && torchWant > 1 && blasWant > 1)
        blasWant = 1;
    if (torchWant != torchBefore) {
        m_torchPrevious = torchBefore;
        setThisThreadsCount(torchWant);
    }
    if (blasWant != blasNow || threads > 0) {
        m_blasRequested = true;
        m_blasRequest = blasWant;
        pool.requests.insert(blasWant);
        pool.apply();
    }
}

ThreadScope::~ThreadScope()
{
    if (m_torchPrevious > 0)
        setThisThreadsCount(m_torchPrevious);
    if (!m_blasRequested)
        return;
    BlasPool &pool = blasPool();
    std::lock_guard<std::mutex> lock(pool.mutex);
    pool.requests.erase(pool.requests.find(m_blasRequest));
    pool.apply();
}

Result<torch::Device> resolveDevice(const DeviceConfig &config)
{
    if (auto s = config.validate(); !s)
        return s.error();
    const bool cuda = torch::cuda::is_available();
    if (config.device == "auto")
        return cuda ? torch::Device(torch::kCUDA, 0) : torch::Device(torch::kCPU);
    if (config.device == "cpu")
        return torch::Device(torch::kCPU);
    // "cuda" or "cuda:N"
    if (!cuda)
        return makeError("--device " + config.device,
                         "CUDA is not available (this LibTorch has no CUDA support or no GPU is present); use --device cpu or auto");
    int index = 0;
    if (config.device.size() > 5 && (config.device[4] != ':' || !parseInt(config.device.substr(5), index) || index < 0))
        return makeError("--device " + config.device, "expected cuda or cuda:N (N a device number from 0)");
    if (index >= static_cast<int>(torch::cuda::device_count()))
        return makeError("--device " + config.device, "there are only " + std::to_string(torch::cuda::device_count()) + " CUDA devices");
    return torch::Device(torch::kCUDA, static_cast<c10::DeviceIndex>(index));
}

} // namespace treelens
