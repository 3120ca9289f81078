#pragma once
/// \file hfnet.h
/// The network of the pretrained-Transformer family (internal to core: torch types): the
/// forward pass of every architecture of the table (hfarchitecture.h) in eval mode, on the
/// folder's weights, as the Hugging Face library computes it. What differs between
/// architectures is read from the entry (norms, positions, projections, MLP, mask); how a
/// block's norms and residuals are arranged is one block function per HfBlock.

#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <torch/types.h>

#include "core/base/result.h"
#include "core/encoders/common/torchtensors.h"
#include "core/encoders/encoder.h"
#include "core/encoders/pretrained/hfconfig.h"

namespace treelens {

/// What one forward pass gives, for a batch of B sequences of N pieces.
struct HfForward {
    std::vector<torch::Tensor> hidden;     ///< layers + 1 of [B, N, D]: the embeddings' output, then each layer's (a
                                           ///< pre-norm model's last entry after its final norm, as the library gives it)
    std::vector<torch::Tensor> attention;  ///< layers of [B, H, N, N]
    torch::Tensor pooled;                  ///< [B, D] tanh(W h[first] + b); undefined without a pooler
    torch::Tensor logits;                  ///< [B, classes]; undefined without a classification head
    torch::Tensor lmLogits;                ///< [B, N, vocab] of a language model (HfRunOptions::keepLogits)
    /// A language model's log p(piece t+1 | pieces 0..t) of each sequence's real pieces, in
    /// float64 from the float32 logits (HfRunOptions::logprobs): [B] of [n_b - 1].
    std::vector<std::vector<double>> logprobs;
};

struct HfRunOptions {
    bool attention = true;       ///< keep the attention probabilities
    bool grad = false;           ///< keep the autograd graph (attributions)
    bool logprobs = false;       ///< a language model's next-piece log-probabilities
    bool keepLogits = false;     ///< a language model's logits [B, N, vocab] (fixtures)
    /// Heads whose output is zeroed before the output projection (0-based; head -1: the layer's every head).
    std::vector<HeadAblation> ablate;
};

class HfNet {
public:
    /// The network on `device`, its tensors checked before (hfWeightsFrom); the classification
    /// head as decided there (treelens.config "head").
    static Result<HfNet> fromModelFile(const ModelFile &file, const HfConfig &config, const torch::Device &device);

    const HfConfig &config() const { return m_c; }
    const HfArchitecture &arch() const { return *m_c.arch; }
    torch::Device device() const { return m_device; }
    bool hasPooler() const;
    HfClassifier head() const { return m_head; }
    /// Whether the folder has a complete masked-LM head (BertForMaskedLM, RobertaForMaskedLM).
    bool hasMlmHead() const { return m_mlmHead; }
    /// The masked-LM head's logits [K, vocab] for hidden states [K, hidden] of the last layer:
    /// decoder(norm(act(dense(h)))) + bias, in float32 (never bf16), as the library computes it.
    torch::Tensor mlmLogits(const torch::Tensor &last) const;
    /// The first position id: LearnedAfterPadding counts from pad_token_id + 1.
    int firstPosition() const;
    const torch::Tensor &wordEmbeddings() const;
    /// The longest sequence the model takes (its position table or context), 0 = no limit.
    int maxPieces() const;
    /// Parameters in all (the LM head once when tied).
    long long parameterCount() const;
    /// A language model's output projection [vocab, hidden]: the LM head, or the token
    /// embedding when tied.
    const torch::Tensor &lmHeadWeight() const;

    /// ids, types: [B, N] int64; mask: [B, N] bool (true = a real piece; real pieces first).
    HfForward run(const torch::Tensor &ids, const torch::Tensor &types, const torch::Tensor &mask, const HfRunOptions &options) const;
    /// The arithmetic of the blocks' projections (q, k, v, the attention output, the MLP's):
    /// "fp32" (the library's numbers), or "bf16": their weights held in bfloat16 (a BF16-stored
    /// folder's own values), each input rounded to bfloat16, the product accumulated in float32
    /// by the matrix library and rounded to bfloat16, then widened and added to the float32 bias.
    /// Embeddings, norms, scores, softmax, residuals and the LM head stay float32
    /// (docs/performance.md, "Fast paths and their checks"). Anything else is refused.
    Status setPrecision(const std::string &precision);
    const std::string &precision() const { return m_precision; }

    /// run() with the attention probabilities or not, and the autograd graph or not.
    HfForward run(const torch::Tensor &ids, const torch::Tensor &types, const torch::Tensor &mask, bool attention,
                  bool grad = false) const;

private:
    HfNet(HfConfig config, TorchParameters p, torch::Device device, HfClassifier head, bool mlmHead);

    const torch::Tensor &w(const std::string &name) const { return m_p.at(name); }
    const torch::Tensor *find(const std::string &name) const;
    /// The module of `role` (in `layer`) as a linear map, its bias when it has one.
    torch::Tensor linear(const torch::Tensor &x, HfRole role, int layer = -1) const;
    torch::Tensor norm(const torch::Tensor &x, HfRole role, int layer = -1) const;
    torch::Tensor activation(const torch::Tensor &x) const;
    torch::Tensor embed(const torch::Tensor &ids, const torch::Tensor &types, const torch::Tensor &mask) const;
    /// The additive mask [B or 1, 1, N, N]: padded keys (and later pieces for a causal model) get
    /// the dtype's lowest value.
    torch::Tensor additiveMask(const torch::Tensor &mask) const;
    /// cos and sin [N, rotary dims] of the rotary embedding at positions 0..N-1.
    std::pair<torch::Tensor, torch::Tensor> rotaryTables(int64_t N) const;
    /// q, k, v of `layer` as [B, heads, N, head_dim] and [B, kv heads, N, head_dim].
    std::tuple<torch::Tensor, torch::Tensor, torch::Tensor> projections(const torch::Tensor &x, int layer) const;
    /// The attention sub-layer of `layer` on its input `x` (already normed for a pre-norm block):
    /// the output projection of the heads' concatenation; the probabilities into `probs`.
    torch::Tensor attend(const torch::Tensor &x, const torch::Tensor &additive, int layer, const HfRunOptions &options,
                         torch::Tensor &probs) const;
    torch::Tensor mlp(const torch::Tensor &x, int layer) const;
    /// The block functions: one per HfBlock.
    torch::Tensor block(const torch::Tensor &x, const torch::Tensor &additive, int layer, const HfRunOptions &options,
                        torch::Tensor &probs) const;
    void classify(const torch::Tensor &last, HfForward &f) const;
    void languageModel(const torch::Tensor &last, const torch::Tensor &ids, const torch::Tensor &mask, const HfRunOptions &options,
                       HfForward &f) const;

    HfConfig m_c;
    TorchParameters m_p;
    torch::Device m_device;
    HfClassifier m_head;
    bool m_mlmHead = false;
    torch::Tensor m_invFreq; ///< the rotary inverse frequencies [rotary dims / 2], float32
    std::string m_precision = "fp32";
};

} // namespace treelens
