#pragma once
/// \file deptransformernet.h
/// LibTorch Dependency-Transformer (seed 003; the reference fixture's README,
/// section 2), internal to core. Shapes: B sentences, L = words + 1 tokens
/// ([root] first; padded, `mask` says which are real), d = d_model, H heads.
/// Parameter names are the fixture's (`emb.word.weight`, `layers.l.attn.q.weight`,
/// `layers.l.attn.rel_v`, `cls.weight`, `pair.w_mul.weight`, ...).

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <torch/types.h>

#include "core/base/result.h"
#include "core/encoders/common/torchtensors.h"
#include "core/encoders/deptransformer/deptreefeatures.h"
#include "core/encoders/headablation.h"
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

/// One sentence's model inputs ([root] first).
struct Prepared {
    std::vector<std::int64_t> ids, positions, levels, relations; ///< relations: n1 x n1 row-major
    DepTreeFeatures features;
};

/// The inputs of a sentence given as word ids and its tree (errors: an invalid
/// tree, more words than the position table holds).
Result<Prepared> prepareSentence(const std::vector<std::int64_t> &wordIds, const DependencyTree &tree,
                                 const DepTransformerConfig &config, const RelationVocabulary &relations);
/// Pads prepared sentences into batch tensors: ids, positions, levels, relations, mask.
std::vector<torch::Tensor> batchTensors(const std::vector<const Prepared *> &items, const DepTransformerConfig &config,
                                        int relationPadId, const torch::Device &device);

class Net : public ParameterNet<DepTransformerConfig> {
public:
    Net() = default;
    static Result<Net> fromTensors(const DepTransformerConfig &config, const TensorMap &tensors,
                                   const torch::Device &device, const std::string &where);
    static std::map<std::string, std::vector<std::int64_t>> parameterShapes(const DepTransformerConfig &config);
    /// Fresh weights for training (Xavier matrices, LayerNorm gains 1, zero biases), drawn from `seed`.
    static TensorMap randomTensors(const DepTransformerConfig &config, unsigned seed);
    /// Dropout on the embeddings and each sub-layer's output while training (0 = off, the eval forward).
    void setDropout(double p) { m_dropout = p; }

    /// ids, positions, levels: [B, L] int64; relations [B, L, L] int64; mask [B, L] bool.
    /// `variant` overrides the config's level/relation/gate switches. `ablate`: heads whose output
    /// (their attention-weighted values) is zeroed before the layer's output projection.
    Output forward(const torch::Tensor &ids, const torch::Tensor &positions, const torch::Tensor &levels,
                   const torch::Tensor &relations, const torch::Tensor &mask, bool record,
                   const DepTransformerConfig *variant = nullptr, bool train = false,
                   const std::vector<HeadAblation> &ablate = {}) const;
    /// The Tai et al. pair head on two sentence vectors [B, d]: h_mul, h_abs, h_s, logits.
    std::vector<torch::Tensor> pairHead(const torch::Tensor &a, const torch::Tensor &b) const;

private:
    using ParameterNet::ParameterNet;
    const torch::Tensor &p(const std::string &name) const { return m_p.at(name); }
    double m_dropout = 0.0;
};

} // namespace treelens::deptrans
