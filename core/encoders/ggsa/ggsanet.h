#pragma once
/// \file ggsanet.h
/// LibTorch implementation of GGSA / iGGSA (internal to core: the encoder, the
/// trainer, tests and benchmarks include it; viz/ and ui/ never do).
/// Shapes: B pairs, Lq / La tokens (padded with any id; `mask` says which are
/// real), D = d_model, n heads, d = D / n. Parameter names are the fixture's
/// without the sub-model prefix (`embed.weight`, `q_enc.layers.k.gate.weight`,
/// `a_enc.layers.k.inter_ffn.w1.weight`, `comp.w_am.weight`, `head.mlp1.weight`).

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <torch/types.h>

#include "core/base/result.h"
#include "core/encoders/common/torchtensors.h"
#include "core/encoders/ggsa/ggsaconfig.h"
#include "core/encoders/headablation.h"
#include "core/model/tensordata.h"

namespace treelens::ggsa {

/// What one encoder (question or answer side) computed, when recording:
/// every tensor is stacked over blocks, first dimension B.
struct SideRecord {
    torch::Tensor x0;         ///< [B, L, D]
    torch::Tensor xbar;       ///< [B, N, D]
    torch::Tensor gate;       ///< [B, N, L, D]
    torch::Tensor localAttn;  ///< [B, N, n, L, L]
    torch::Tensor globalAttn; ///< [B, N, n, L, L] (diagnostic: softmax over every real key)
    torch::Tensor Y;          ///< [B, N, L, D]
    torch::Tensor cq;         ///< [B, N, D]     iGGSA answers only
    torch::Tensor Rint;       ///< [B, N, L, D]  iGGSA answers only
    torch::Tensor Yint;       ///< [B, N, L, D]  iGGSA answers only
    torch::Tensor H;          ///< [B, N, L, D]
};

struct PairOutput {
    torch::Tensor vq, va;     ///< [B, D]
    torch::Tensor compAttn;   ///< [B, La] (composition "attention"; undefined for "max")
    torch::Tensor cosine;     ///< [B]
    torch::Tensor logits;     ///< [B, 2] (irrelevant, relevant)
    torch::Tensor score;      ///< [B] the configured ranking score (cosine or p[relevant])
    SideRecord q, a;          ///< filled when recording
};

/// How group attention is computed.
enum class AttentionKernel {
    Blocked, ///< groups as [m, l, l] blocks: O(L·l·D); never forms an out-of-group score
    Dense    ///< all L² scores, out-of-group masked (needed to record global_attn)
};

class Net : public ParameterNet<GgsaConfig> {
public:
    Net() = default;
    /// Copies the tensors to `device` as f32; shapes are checked against the config.
    static Result<Net> fromTensors(const GgsaConfig &config, const TensorMap &tensors, const torch::Device &device,
                                   const std::string &where);
    /// Every parameter a model of `config` has, with its shape.
    static std::map<std::string, std::vector<std::int64_t>> parameterShapes(const GgsaConfig &config);
    /// Fresh weights (the fixture README's initialisation scheme), drawn from `seed`.
    static TensorMap randomTensors(const GgsaConfig &config, unsigned seed);
    std::vector<torch::Tensor> parameters() const;

    /// The positional table rows 0..rows-1 ([rows, D] on the CPU, computed in double, rounded to f32).
    static torch::Tensor positionTable(const GgsaConfig &config, int rows);
    /// positionTable on this network's device.
    torch::Tensor positions(int rows) const;

    /// One side through its encoder. ids, mask: [B, L] (int64, bool). For an
    /// iGGSA answer, `questionH` is the question's per-block output [B, N, Lq, D]
    /// with `questionMask`. `train` turns on embedding dropout.
    /// `overlap` [B, L] (0/1, int64): the word-overlap indicator when the config has it.
    torch::Tensor encode(const std::string &side, const torch::Tensor &ids, const torch::Tensor &mask,
                         AttentionKernel kernel, bool train, SideRecord *record,
                         const torch::Tensor &questionH = {}, const torch::Tensor &questionMask = {},
                         const torch::Tensor &overlap = {}, const std::vector<HeadAblation> &ablate = {}) const;
    /// 1 where a real, known word of `ids` occurs among the real words of `other`.
    torch::Tensor overlapIndicator(const torch::Tensor &ids, const torch::Tensor &mask, const torch::Tensor &other,
                                   const torch::Tensor &otherMask) const;
    /// Question and answer through both encoders, composition and both heads. `ablate`: heads
    /// whose group-attention output is zeroed before the block's output projection (w_o), in
    /// both encoders (layer l head h of the question's and of the answer's encoder).
    PairOutput forward(const torch::Tensor &qIds, const torch::Tensor &qMask, const torch::Tensor &aIds,
                       const torch::Tensor &aMask, AttentionKernel kernel = AttentionKernel::Blocked,
                       bool train = false, bool record = false, const std::vector<HeadAblation> &ablate = {}) const;

    /// Group attention of one block for all heads: q, k, v [B, n, L, d] → [B, n, L, d];
    /// with `weights` set, the [B, n, L, L] weights (Dense only) and the diagnostic global weights.
    torch::Tensor groupAttention(const torch::Tensor &q, const torch::Tensor &k, const torch::Tensor &v,
                                 const torch::Tensor &mask, AttentionKernel kernel, torch::Tensor *weights = nullptr,
                                 torch::Tensor *globalWeights = nullptr) const;

private:
    using ParameterNet::ParameterNet;
    const torch::Tensor &p(const std::string &name) const { return m_p.at(name); }
    using Recording = std::map<std::string, std::vector<torch::Tensor>>;
    torch::Tensor block(const std::string &prefix, const torch::Tensor &x, const torch::Tensor &mask,
                        AttentionKernel kernel, const torch::Tensor &questionContext, Recording *rec,
                        const std::vector<HeadAblation> &ablate, int layer) const;

    torch::Tensor m_pe; ///< positionTable(maxLen) on the device
};

} // namespace treelens::ggsa
