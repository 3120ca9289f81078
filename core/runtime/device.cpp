#include "core/runtime/device.h"

#include <dlfcn.h>

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

} // namespace

void setCpuThreads(int n)
{
    if (n <= 0)
        return;
    at::set_num_threads(n);
    // Give OpenBLAS the same count, or "1 thread" would quietly use every core.
    if (const auto set = blasSet())
        set(n);
}

int blasThreads()
{
    const auto get = blasGet();
    return get ? get() : 0;
}

int cpuThreads() { return at::get_num_threads(); }

GemmThreadScope::GemmThreadScope(bool blasGemms, int threads)
{
    setCpuThreads(threads); // on this thread: OpenMP keeps a thread count per calling thread
    const auto set = blasSet();
    const auto get = blasGet();
    if (!set || !get)
        return; // no OpenBLAS pool beside LibTorch's: nothing competes
    const int torchThreads = at::get_num_threads();
    const int blasThreads = get();
    if (blasGemms && torchThreads > 1 && blasThreads > 1) {
        m_torchThreads = torchThreads;
        at::set_num_threads(1);
    } else if (!blasGemms && blasThreads > 1 && torchThreads > 1) {
        m_blasThreads = blasThreads;
        set(1);
    }
}

GemmThreadScope::~GemmThreadScope()
{
    if (m_torchThreads > 0)
        at::set_num_threads(m_torchThreads);
    if (m_blasThreads > 0)
        blasSet()(m_blasThreads); // found, or m_blasThreads would be 0
}

Result<torch::Device> resolveDevice(const DeviceConfig &config)
{
    if (auto s = config.validate(); !s)
        return s.error();
    if (config.threads > 0)
        setCpuThreads(config.threads);
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
    if (config.device.size() > 5)
        index = std::stoi(config.device.substr(5));
    if (index >= static_cast<int>(torch::cuda::device_count()))
        return makeError("--device " + config.device, "there are only " + std::to_string(torch::cuda::device_count()) + " CUDA devices");
    return torch::Device(torch::kCUDA, static_cast<c10::DeviceIndex>(index));
}

} // namespace treelens
