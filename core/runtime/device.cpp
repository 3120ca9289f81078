#include "core/runtime/device.h"

#include <dlfcn.h>

#include <torch/torch.h>

namespace treelens {

void setCpuThreads(int n)
{
    if (n <= 0)
        return;
    at::set_num_threads(n);
    // OpenBLAS (Debian's libopenblas0-pthread behind LibTorch's fp32 GEMMs)
    // keeps its own thread pool: give it the same count, or "1 thread" would
    // quietly use every core. Looked up at run time so no BLAS is linked directly.
    using SetThreads = void (*)(int);
    if (auto fn = reinterpret_cast<SetThreads>(dlsym(RTLD_DEFAULT, "openblas_set_num_threads")))
        fn(n);
}

int cpuThreads() { return at::get_num_threads(); }

namespace {

using SetThreads = void (*)(int);
using GetThreads = int (*)();

SetThreads blasSet() { return reinterpret_cast<SetThreads>(dlsym(RTLD_DEFAULT, "openblas_set_num_threads")); }
GetThreads blasGet() { return reinterpret_cast<GetThreads>(dlsym(RTLD_DEFAULT, "openblas_get_num_threads")); }

} // namespace

GemmThreadScope::GemmThreadScope(bool blasGemms)
{
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
        if (const auto set = blasSet())
            set(m_blasThreads);
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
