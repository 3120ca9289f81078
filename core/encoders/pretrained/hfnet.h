#pragma once
/// \file hfnet.h
/// The network of the pretrained-Transformer family (internal to core: torch types): the
/// forward pass of every architecture of the table (hfarchitecture.h) in eval mode, on the
/// folder's weights, as the Hugging Face library computes it. What differs between
/// architectures is read from the entry (norms, positions, projections, MLP, mask); how a
/// block's norms and residuals are arranged is one block function per HfBlock.

#include <string>
#include <vector>

#include <torch/types.h>

#include "core/base/result.h"
#include "core/encoders/common/torchtensors.h"
#include "core/encoders/pretrained/hfconfig.h"

namespace treelens {

/// What one forward pass gives, for a batch of B sequences of N pieces.
struct HfForward {
    std::vector<torch::Tensor> hidden;     ///< layers + 1 of [B, N, D]: the embeddings' output, then each layer's
    std::vector<torch::Tensor> attention;  ///< layers of [B, H, N, N]
    torch::Tensor pooled;                  ///< [B, D] tanh(W h[first] + b); undefined without a pooler
    torch::Tensor logits;                  ///< [B, classes]; undefined without a classification head
};

class HfNet {
public:
    /// The network on `device`, its tensors checked before (hfWeightsFrom); `head` as decided there.
    static Result<HfNet> fromModelFile(const ModelFile &file, const HfConfig &config, const torch::Device &device);

    const HfConfig &config() const { return m_c; }
    const HfArchitecture &arch() const { return *m_c.arch; }
    torch::Device device() const { return m_device; }
    bool hasPooler() const;
    HfClassifier head() const { return m_head; }
    /// The first position id: LearnedAfterPadding counts from pad_token_id + 1.
    int firstPosition() const;
    const torch::Tensor &wordEmbeddings() const;
    /// The longest sequence the model takes (its position table), 0 = no limit.
    int maxPieces() const;

    /// ids, types: [B, N] int64; mask: [B, N] bool (true = a real piece).
    /// `grad`: keep the autograd graph (attributions); else none is built.
    HfForward run(const torch::Tensor &ids, const torch::Tensor &types, const torch::Tensor &mask, bool attention,
                  bool grad = false) const;

private:
    HfNet(HfConfig config, TorchParameters p, torch::Device device, HfClassifier head);

    const torch::Tensor &w(const std::string &name) const { return m_p.at(name); }
    /// The module of `role` (in `layer`) as a linear map, its bias when it has one.
    torch::Tensor linear(const torch::Tensor &x, HfRole role, int layer = -1) const;
    torch::Tensor norm(const torch::Tensor &x, HfRole role, int layer = -1) const;
    torch::Tensor activation(const torch::Tensor &x) const;
    torch::Tensor embed(const torch::Tensor &ids, const torch::Tensor &types, const torch::Tensor &mask) const;
    /// The attention sub-layer of `layer` on its input `x` (already normed for a pre-norm block):
    /// the output projection of the heads' concatenation; the probabilities into `probs`.
    torch::Tensor attend(const torch::Tensor &x, const torch::Tensor &additive, int layer, torch::Tensor &probs) const;
    torch::Tensor mlp(const torch::Tensor &x, int layer) const;
    /// The block functions: one per HfBlock.
    torch::Tensor postNormBlock(const torch::Tensor &x, const torch::Tensor &additive, int layer, torch::Tensor &probs) const;
    void classify(const torch::Tensor &last, HfForward &f) const;

    HfConfig m_c;
    TorchParameters m_p;
    torch::Device m_device;
    HfClassifier m_head;
};

} // namespace treelens
