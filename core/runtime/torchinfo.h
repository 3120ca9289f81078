#pragma once
/// \file torchinfo.h
/// Facts about the LibTorch runtime, in plain types (no torch in this header).

#include <string>

namespace treelens {

struct TorchInfo {
    std::string version;     ///< e.g. "1.13.1"
    bool cudaAvailable = false;
    int cudaDevices = 0;
    int threads = 0;         ///< intra-op threads in use
    std::string blas;        ///< "OpenBLAS ..." or what torch reports
};

TorchInfo torchInfo();

/// Sets LibTorch's intra-op thread count (0 = leave as is).
void setTorchThreads(int threads);

} // namespace treelens
