#pragma once
/// \file cpufeatures.h
/// What the CPU this process runs on can do, for choosing an inference precision
/// and for benchmark reports (torch-free). Read from /proc/cpuinfo, whose flags
/// list only what the kernel enabled (AVX-512 and AMX need OS support).

#include <string>
#include <vector>

namespace treelens {

struct CpuFeatures {
    std::string model;           ///< "model name" of the first processor ("" when unknown)
    int logicalCpus = 0;         ///< processors listed
    bool avx2 = false, fma = false;
    bool avx512f = false, avx512bw = false;
    bool avx512Vnni = false;     ///< int8 dot products (AVX512_VNNI)
    bool avxVnni = false;        ///< int8 dot products on 256-bit registers (AVX_VNNI)
    bool avx512Bf16 = false;     ///< native bf16 dot products (AVX512_BF16)
    bool amxBf16 = false, amxInt8 = false;
    /// The test-only override in force ("TREELENS_CPU_BF16=native" or "=none"), "" when none.
    std::string overridden;

    /// bf16 matrix products run natively (AVX512_BF16 or AMX-BF16): only then is
    /// bf16 worth choosing on its own; elsewhere oneDNN emulates it.
    bool nativeBf16() const { return avx512Bf16 || amxBf16; }
    /// int8 products accumulate without int16 saturation (VNNI or AMX-INT8).
    bool int8DotProducts() const { return avx512Vnni || avxVnni || amxInt8; }
    /// The flags above that are set, space-separated ("avx2 fma avx512f ...").
    std::string flagList() const;
};

/// Parses the text of /proc/cpuinfo (exposed for tests).
CpuFeatures parseCpuInfo(const std::string &cpuinfo);
/// This machine's features (read once, cached). For tests only, the environment
/// variable TREELENS_CPU_BF16=native|none reports native bf16 as present or absent
/// whatever the CPU has, so the suite covers both branches of `--precision auto` on
/// any machine (scripts/test.sh runs it both ways; docs/building.md). With "native"
/// on a CPU without it, bf16 is still emulated by oneDNN, only slowly.
const CpuFeatures &cpuFeatures();
/// Applies the override's value (`bf16`: the variable's value, or null) to `features`.
void applyCpuFeatureOverride(CpuFeatures &features, const char *bf16);

/// OpenBLAS's kernel name ("Zen", "SkylakeX", ...) and build configuration when
/// the process has OpenBLAS loaded (LibTorch's BLAS on Debian), else "".
std::string openBlasCoreName();
std::string openBlasConfig();

} // namespace treelens
