#pragma once
/// \file treetransformernet.h
/// LibTorch implementation of the Tree Transformer, internal to core (training,
/// the encoder, tests and benchmarks include it; viz/ and ui/ never do).
/// Shapes: B sentences, L tokens (padded, [CLS] first, pad id 0), d = d_model,
/// H heads, V vocabulary.

#include <map>
#include <string>
#include <vector>

#include <torch/types.h>
// LinearPackedParamsBase: LibTorch's prepacked int8 weights (onednn/qnnpack engines).
#include <ATen/native/quantized/PackedParams.h>

#include "core/base/result.h"
#include "core/encoders/headablation.h"
#include "core/encoders/treetransformer/treetransformer.h"
#include "core/model/tensordata.h"

namespace treelens::tt {

class Net {
public:
    /// Copies the tensors to `device` as f32; the config must already be validated against them.
    static Result<Net> fromTensors(const TreeTransformerConfig &config, const TensorMap &tensors,
                                   const torch::Device &device);
    /// The weights back as plain f32 tensors (official names; "word_embed.1.pe" included).
    TensorMap toTensors() const;

    const TreeTransformerConfig &config() const { return m_config; }
    torch::Device device() const { return m_device; }
    /// Every trainable tensor (requires_grad set by setTrainable).
    std::vector<torch::Tensor> parameters() const;
    std::map<std::string, torch::Tensor> &named() { return m_p; }
    void setTrainable(bool on);
    bool hasProjection() const { return m_p.count("proj.weight") > 0; }
    const torch::Tensor &param(const std::string &name) const { return m_p.at(name); }

    /// Inference copies of the projections: Q|K|V and key|query concatenated
    /// (one GEMM each), optionally prepacked for oneDNN ("onednn"), in bf16
    /// ("bf16") or as int8 weights for LibTorch's dynamic quantized linear
    /// ("int8": weights per output channel, activations quantized per call; CPU
    /// only, through the onednn engine, else qnnpack). Call again after the
    /// weights change. An error (nothing changed) when the precision is unknown or
    /// int8 is asked for where no quantized engine runs.
    Status refreshFused(const std::string &precision = "fp32");
    const std::string &precision() const { return m_precision; }

private:
    TreeTransformerConfig m_config;
    torch::Device m_device{torch::kCPU};
    std::map<std::string, torch::Tensor> m_p; // official names, excluding pe
    torch::Tensor m_pe;                       // [maxLen, d]
public:
    /// One inference projection y = x Wᵀ + b with its prepacked forms.
    struct Linear {
        torch::Tensor w, b;       ///< dense f32 [out, in], [out]
        torch::Tensor packed;     ///< oneDNN (mkldnn) copy of w, CPU only
        torch::Tensor wHalf, bHalf; ///< bf16 copies (precision "bf16")
        c10::intrusive_ptr<LinearPackedParamsBase> q; ///< int8 weights (precision "int8")
        bool reduceRange = false;   ///< int8: 7-bit activations (off: the weights keep pair sums in range, packInt8)
        torch::Tensor apply(const torch::Tensor &x2d, const std::string &precision) const;
    };
private:
    struct Fused {
        Linear qkv, g, out, w1, w2;
    };
    std::vector<Fused> m_fused;
    std::string m_precision = "fp32";
    friend struct Forward;
};

struct ForwardOptions {
    bool train = false;           ///< dropout on, autograd allowed, unfused weights
    bool keepAttention = false;   ///< attnRaw/attn per layer [B,H,L,L]
    bool keepPrior = true;        ///< breakProb (A) and groupProb (C) per layer [B,L,L]
    bool keepLayerOut = false;    ///< layerOut per layer [B,L,d]
    bool logits = false;          ///< proj(norm(x)) [B,L,V] (or at logitRows only)
    torch::Tensor logitRows;      ///< optional flat row indices into B*L: logits only there [K,V]
    /// Benchmark reference: the official code's operation sequence (separate
    /// Q/K/V/key/query GEMMs through addmm, C by a float32 triangular matmul,
    /// the vocabulary projection). Same results; used to time the official way
    /// of computing on the same machine.
    bool officialStyle = false;
    /// Heads switched off: each head's output (its attention-weighted values) zeroed before the
    /// layer's output projection (0-based; head -1: every head of the layer), as for the
    /// pretrained family (docs/minimal-pairs.md, "Head ablation").
    std::vector<HeadAblation> ablate;
};

struct Outputs {
    torch::Tensor embed;                    ///< [B,L,d] embeddings (lut·sqrt(d) + pe)
    std::vector<torch::Tensor> breakProb;   ///< per layer A [B,L,L]
    std::vector<torch::Tensor> groupProb;   ///< per layer C [B,L,L]
    std::vector<torch::Tensor> attnRaw;     ///< per layer [B,H,L,L] softmax before ×C
    std::vector<torch::Tensor> attn;        ///< per layer [B,H,L,L] after ×C
    std::vector<torch::Tensor> layerOut;    ///< per layer [B,L,d]
    torch::Tensor finalHidden;              ///< [B,L,d] after the final LayerNorm
    torch::Tensor logits;                   ///< [B,L,V] or [K,V]
};

/// One inference projection (y = x Wᵀ + b) in `precision` ("fp32", "onednn",
/// "bf16", "int8"); int8 needs int8Available(w's device).
Net::Linear inferenceLinear(const torch::Tensor &w, const torch::Tensor &b, const std::string &precision);

/// Whether int8 projections can run on `device` (a CPU with LibTorch's onednn or qnnpack engine).
bool int8Available(const torch::Device &device);

/// ids: [B,L] int64; mask: [B,L] bool (true = real token). Runs under the
/// caller's grad mode (wrap in torch::InferenceMode for analysis).
Outputs forward(const Net &net, const torch::Tensor &ids, const torch::Tensor &mask,
                const ForwardOptions &options);

/// The official LayerNorm: a·(x − mean)/(std_unbiased + eps) + b, as LibTorch
/// operators (training, the official-ops reference).
torch::Tensor officialLayerNorm(const torch::Tensor &x, const torch::Tensor &a, const torch::Tensor &b, double eps);

/// The official LayerNorm over the last dimension of a CPU float tensor, one pass per row (no autograd).
torch::Tensor officialLayerNormRows(const torch::Tensor &x, const torch::Tensor &a, const torch::Tensor &b, double eps);

/// Sinusoidal position table [maxLen, d] as the official PositionalEncoding builds it.
torch::Tensor sinusoidalPositions(int maxLen, int d);

} // namespace treelens::tt
