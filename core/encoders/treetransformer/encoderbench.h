#pragma once
/// \file encoderbench.h
/// End-to-end encoder timing for `treelens-cli bench` (torch-free header).
/// Times analysis (what the app runs: no vocabulary projection) on random
/// sentences of a fixed length, and how much of that time is spent in matrix
/// multiplies (aten::addmm/mm/bmm/baddbmm, timed through LibTorch's
/// RecordFunction observers), plus the machine's measured GEMM peak.

#include <map>
#include <string>

#include "core/base/result.h"

namespace treelens {

struct EncoderBenchConfig {
    /// A model file, or "random:official" (the official Tree Transformer's
    /// defaults: 10 layers, d_model 512, 8 heads, d_ff 2048, vocabulary 16000,
    /// random weights), or "random:L,D,H,F,V".
    std::string model = "random:official";
    int words = 40;
    int batch = 1;
    int threads = 1;
    std::string device = "cpu";
    double seconds = 3.0;   ///< measure for about this long (after warm-up)
    bool attention = true;  ///< keep per-head attention as analysis does
    std::string precision = "fp32"; ///< or "bf16", "int8"
    bool oneDnn = false;    ///< fp32 projections through oneDNN (mkldnn_linear) instead of addmm/OpenBLAS
    /// Time the official code's operation sequence instead (separate GEMMs,
    /// triangular-matmul prior, vocabulary projection): the reference to beat.
    bool officialStyle = false;
    bool peak = true;       ///< also measure the GEMM peak (large square products)
};

struct EncoderBenchResult {
    std::string model;
    std::string device;
    std::string precision;
    int layers = 0, dModel = 0, heads = 0, dFF = 0, vocab = 0;
    int words = 0, batch = 0, threads = 0;
    int iterations = 0;
    double msPerBatch = 0.0;
    double msPerSentence = 0.0;
    double sentencesPerSecond = 0.0;
    double matmulShare = 0.0;        ///< fraction of forward time inside GEMM ops
    double gflopPerSentence = 0.0;   ///< analytic forward FLOPs (no vocabulary projection)
    double achievedGflops = 0.0;     ///< gflopPerSentence · sentences/s
    double matmulGflops = 0.0;       ///< GEMM FLOPs / time inside GEMM ops
    double peakGflops = 0.0;         ///< measured fp32 GEMM peak (2048³, same threads)
    /// Time per batch inside each top-level LibTorch operator, by name (with the
    /// observer's own overhead), for finding where the time goes.
    std::map<std::string, double> opMsPerBatch;
    std::string toJson() const;
};

Result<EncoderBenchResult> benchmarkEncoder(const EncoderBenchConfig &config);

} // namespace treelens
