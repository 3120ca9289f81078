#pragma once
/// \file recnet.h
/// The recursive tree models in LibTorch (internal to core): the multi-branch
/// composition MB (§3), CTT (§4), DTT (§5), DTT + edge labels (§6), the
/// attentive Child-Sum and binary Tree-LSTMs (§7) and the relatedness head (§8)
/// of the fixture README `recursive-tree-transformer-reference`.
///
/// Evaluation is level-batched: every internal node of the same height across
/// the batch goes through one padded call (padded keys masked to -inf, padded
/// rows left out of every row sum; §9). `Order::NodeByNode` runs the README's
/// recursion instead (one node per call, no padding): the reference the tests
/// and bench_recursive hold the batching against. Both are iterative over the
/// heights, so a 1,000-level tree uses no stack.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <torch/types.h>

#include "core/base/result.h"
#include "core/encoders/common/torchtensors.h"
#include "core/encoders/headablation.h"
#include "core/encoders/recursive/recconfig.h"

namespace treelens::rec {

/// One sentence: the vocabulary ids of its words and its tree (of the kind the model composes over).
struct Sentence {
    std::vector<std::int64_t> ids;
    RecTree tree;
};

/// What one internal node computed (filled when recording).
struct NodeRecord {
    /// Tree Transformers: attention [branches, k', k'] over the members (DTT: row/column 0 = the head
    /// word); Tree-LSTMs: alpha [k] (cross) or [k, k] (self) over the children.
    torch::Tensor attn;
    torch::Tensor branch, mbOut;   ///< CTT/DTT/DTT+edges word traversal: B̄ [branches, k', d], X̃ [k', d]
    torch::Tensor hAtt, f;         ///< Tree-LSTMs: ĥ [m] / [k, m]; forget gates [k, m] (binary: [2, m])
    torch::Tensor gates;           ///< Tree-LSTMs: i, o, u, c, h of the node [5, m]
    torch::Tensor edgeFwdInput, edgeBwdInput, edgeFwdAttn, edgeBwdAttn, edgeFwdState, edgeBwdState; ///< DTT + edges
};

/// One sentence's result.
struct SentenceRecord {
    std::vector<NodeRecord> nodes;   ///< per internal node (RecTree order), when recording
    torch::Tensor states;            ///< [N, D'] the internal nodes' states: P̃ (DTT+edges: r_u), Tree-LSTM h
    torch::Tensor edgeStates;        ///< DTT + edges: r_v of the internal nodes [N, d]
    torch::Tensor leafGates;         ///< Tree-LSTMs: i, o, u, c, h of every word as a leaf [5, n, m]
    torch::Tensor words;             ///< [n, d] the word vectors e_t
    torch::Tensor root;              ///< [rootDim]
};

struct Encoded {
    torch::Tensor roots;             ///< [B, rootDim]
    std::vector<SentenceRecord> sentences;
};

/// The head's steps for a batch (§8): features, hidden layer, logits.
struct HeadOutput {
    torch::Tensor hMul, hAbs, hidden, logits;
};

enum class Order { LevelBatched, NodeByNode };

class Net : public ParameterNet<RecConfig> {
public:
    Net() = default;
    /// The model's tensors (the fixture's names: "embed.word.weight" and PREFIX.*) checked
    /// against the configuration (a missing, extra or misshapen tensor is an error naming it).
    static Result<Net> fromTensors(const RecConfig &config, const TensorMap &tensors, const torch::Device &device,
                                   const std::string &where);
    /// Every tensor's shape, by name.
    static std::map<std::string, std::vector<std::int64_t>> shapes(const RecConfig &config);
    /// Freshly initialised weights (the fixture README's §10 scheme, scaled for training).
    static TensorMap randomTensors(const RecConfig &config, unsigned seed);

    TorchParameters &parameters() { return m_p; }
    const TorchParameters &parameters() const { return m_p; }
    /// Training mode: the configuration's dropout applies (off by default).
    void setTraining(bool on) { m_training = on; }

    /// The sequential-LSTM vector of each sentence (§7.1), [B, m]: the Tree-LSTMs' cross query.
    torch::Tensor sentenceVectors(const std::vector<const Sentence *> &batch) const;
    /// Composes every tree bottom-up. `others` [B, m]: for a Tree-LSTM in cross mode, the
    /// sentence vector of each sentence's partner (its query); else undefined. `query`
    /// overrides the configuration's ("" = the model's).
    /// `ablate`: branches (heads) of the recursive layer (layer 0) whose attention output is zeroed
    /// before their projection (multi-branch) or the concatenation (multi-head); none for a Tree-LSTM.
    Encoded encode(const std::vector<const Sentence *> &batch, const torch::Tensor &others, bool record,
                   Order order = Order::LevelBatched, const std::string &query = "",
                   const std::vector<HeadAblation> &ablate = {}) const;
    /// The head on root vectors: a pair's (a, b) or, for a one-sentence model, (a, undefined).
    HeadOutput head(const torch::Tensor &a, const torch::Tensor &b) const;

    /// A pair batch end to end: both sides encoded (cross queries from the partner), the head's logits.
    struct PairOutput {
        Encoded a, b;
        HeadOutput head;
    };
    PairOutput forwardPairs(const std::vector<const Sentence *> &left, const std::vector<const Sentence *> &right, bool record,
                            Order order = Order::LevelBatched, const std::string &query = "",
                            const std::vector<HeadAblation> &ablate = {}) const;

private:
    using ParameterNet::ParameterNet;
    bool m_training = false;
    // Derived once at load (views of the parameters, kept in step by parameters()).
    const torch::Tensor &p(const std::string &name) const;
};

} // namespace treelens::rec
