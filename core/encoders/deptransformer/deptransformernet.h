#pragma once
/// \file deptransformernet.h
/// LibTorch Dependency-Transformer (seed 003; the reference fixture's README,
/// section 2), internal to core. Shapes: B sentences, L = words + 1 tokens
/// ([root] first; padded, `mask` says which are real), d = d_model, H heads.
/// Parameter names are the fixture's (`emb.word.weight`, `layers.l.attn.q.weight`,
/// `layers.l.attn.rel_v`, `cls.weight`, `pair.w_mul.weight`, ...).

#include <map>
#include <string>
#include <vector>

#include <torch/types.h>

#include "core/base/result.h"
#include "core/encoders/deptransformer/deptreefeatures.h"
#include "core/model/tensordata.h"

namespace treelens::deptrans {

/// Per layer, stacked: [B, N, H, L, L] score/weight tensors, [B, N, L, d] states.
struct Record {
    torch::Tensor selfScores, selfWeights, relScores, relWeights, gates, scores, attn, attnLn;
    torch::Tensor hidden; ///< [B, N + 1, L, d]: hidden[0] = embeddings
};

struct Output {
    torch::Tensor sentence;    ///< [B, d] the [root] token's final state
    torch::Tensor logits;      ///< [B, classes]
    torch::Tensor nodeLogits;  ///< [B, L, classes]
    Record record;             ///< filled when recording
};

class Net {
public:
    static Result<Net> fromTensors(const DepTransformerConfig &config, const TensorMap &tensors,
                                   const torch::Device &device, const std::string &where);
    static std::map<std::string, std::vector<std::int64_t>> parameterShapes(const DepTransformerConfig &config);
    const DepTransformerConfig &config() const { return m_config; }
    torch::Device device() const { return m_device; }

    /// ids, positions, levels: [B, L] int64; relations [B, L, L] int64; mask [B, L] bool.
    /// `variant` overrides the config's level/relation/gate switches.
    Output forward(const torch::Tensor &ids, const torch::Tensor &positions, const torch::Tensor &levels,
                   const torch::Tensor &relations, const torch::Tensor &mask, bool record,
                   const DepTransformerConfig *variant = nullptr) const;
    /// The Tai et al. pair head on two sentence vectors [B, d]: h_mul, h_abs, h_s, logits.
    std::vector<torch::Tensor> pairHead(const torch::Tensor &a, const torch::Tensor &b) const;

private:
    const torch::Tensor &p(const std::string &name) const { return m_p.at(name); }
    DepTransformerConfig m_config;
    torch::Device m_device{torch::kCPU};
    std::map<std::string, torch::Tensor> m_p;
};

} // namespace treelens::deptrans
