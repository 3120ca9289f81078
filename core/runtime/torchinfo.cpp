#include "core/runtime/torchinfo.h"

#include <torch/torch.h>
#include <ATen/Version.h>

namespace treelens {

TorchInfo torchInfo()
{
    TorchInfo info;
    info.version = TORCH_VERSION;
    info.cudaAvailable = torch::cuda::is_available();
    info.cudaDevices = info.cudaAvailable ? static_cast<int>(torch::cuda::device_count()) : 0;
    info.threads = at::get_num_threads();
    const std::string config = at::show_config();
    const auto pos = config.find("BLAS_INFO=");
    if (pos != std::string::npos) {
        const auto end = config.find_first_of(",\n", pos);
        info.blas = config.substr(pos + 10, end == std::string::npos ? std::string::npos : end - pos - 10);
    }
    return info;
}

void setTorchThreads(int threads)
{
    if (threads > 0)
        at::set_num_threads(threads);
}

} // namespace treelens
