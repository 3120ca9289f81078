#pragma once
/// \file attribution.h
/// Gradient attributions over a family's input word embeddings (issue 34; internal
/// to core: torch types). A family looks its input words up with inputEmbedding()
/// instead of torch::embedding; while an AttributionScope lives on the thread, that
/// returns the scope's interpolated embeddings (leaves that take gradients) instead,
/// one tensor per side of the input (sentence 0, or the two sentences of a pair).
/// integrateGradients() runs the family's forward over the interpolation points and
/// turns the gradients into one attribution per token (see explain.h).

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <torch/types.h>

#include "core/base/result.h"
#include "core/base/runcontrol.h"
#include "core/encoders/explain.h"

namespace treelens {

class AttributionScope {
public:
    /// `alphas` [S]: the interpolation factor of each of the S copies of the input the
    /// forward runs on; `baselines[side]`: the baseline embedding of that side, [d] (one
    /// vector for every token) or [L, d].
    AttributionScope(torch::Tensor alphas, std::vector<torch::Tensor> baselines);
    ~AttributionScope();
    AttributionScope(const AttributionScope &) = delete;
    AttributionScope &operator=(const AttributionScope &) = delete;

    static AttributionScope *current();
    /// The side the next inputEmbedding() without a side stands for (a family that runs
    /// its two sentences through separate forwards sets it before each).
    void setSide(int side) { m_side = side; }
    /// The looked-up embeddings [S, L, d] of `side` (-1: the current side) replaced by
    /// baseline + alpha (input − baseline), a leaf with gradients; a second lookup of the
    /// same side and shape returns the same leaf.
    torch::Tensor apply(const torch::Tensor &embedded, int side);

    /// Per side: the leaves handed out and input − baseline (undefined for a side not used).
    std::vector<torch::Tensor> leaves, differences;

private:
    torch::Tensor m_alphas;
    std::vector<torch::Tensor> m_baselines;
    int m_side = 0;
    AttributionScope *m_outer = nullptr;
};

class Vocabulary;

/// The baseline embedding ExplainOptions::baseline names, as a [d] vector of the
/// embedding table `weight`: "zero", "pad" (row `padId`), or a token of `vocab` (its row;
/// an error naming the token when the vocabulary lacks it).
Result<torch::Tensor> baselineEmbedding(const std::string &baseline, const torch::Tensor &weight, int padId,
                                        const Vocabulary &vocab);

/// One sentence of a model whose tokens are its words (no pieces, no specials): each
/// word's attribution is its token's (0 for a word the model did not see).
SideAttribution wordSide(std::vector<std::string> words, std::vector<double> perToken);

/// The index of ExplainOptions::target among `labels`: -1 for "" (the family's
/// default), an error listing the labels for one the model lacks.
Result<std::int64_t> targetIndex(const std::vector<std::string> &labels, const std::string &target);

/// torch::embedding(weight, ids), or inside an AttributionScope its interpolation for
/// `side` (-1: the scope's current side).
torch::Tensor inputEmbedding(const torch::Tensor &weight, const torch::Tensor &ids, int side = -1);

/// The attributions of one input. `forward(S)` runs the family's network on S copies of
/// the input (inside the scope this sets up) and returns [S] the quantity explained;
/// `baselines[side]` as for AttributionScope. Returns per side the attribution of each
/// token ([L] of that side), and sets f(input) and f(baseline) in `out`. Cancellable
/// between step batches.
Result<std::vector<std::vector<double>>> integrateGradients(const std::function<torch::Tensor(std::int64_t)> &forward,
                                                            const std::vector<torch::Tensor> &baselines,
                                                            const ExplainOptions &options, Attribution &out,
                                                            const RunControl *control = nullptr);

} // namespace treelens
