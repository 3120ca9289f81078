#pragma once
/// \file tatnet.h
/// The Tree Aggregation Transformer in LibTorch (README §2-7): the language-model
/// stand-in over `<s> q </s></s> a </s>`, the node sequences [start; children;
/// end] with eq. (1)-(2) token vectors and the children's span embeddings, the
/// one recursive layer with its semantic and syntactic streams (eqs. 3-8 + FFN),
/// applied level by level to all nodes of one depth across the whole batch in one
/// padded call (README §6), or node by node (the recursive reference the level
/// batching is tested and benchmarked against), and the eq. (9) classifier with
/// its CLS-residual variant. Parameter names are the fixture's (`lm.*`, `tat.*`,
/// `cls.*`, `cls_res.*`).

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <torch/types.h>

#include "core/base/result.h"
#include "core/encoders/common/torchtensors.h"
#include "core/encoders/common/vocabulary.h"
#include "core/encoders/headablation.h"
#include "core/encoders/tat/tatconfig.h"
#include "core/model/tensordata.h"

namespace treelens::tat {

/// One side of a pair: its node table and where its tokens are in the LM input.
struct SideInput {
    TatTree tree;
    std::vector<int> wordPositions; ///< LM position of each word
    int startPosition = 0;          ///< question: <s> (0); answer: its first </s> (m + 2)
    int endPosition = 0;            ///< question: the </s> after it (m + 1); answer: the final </s>
};

/// One pair: LM input ids and both sides. Build with makePair().
struct PairInput {
    std::vector<std::int64_t> ids;
    SideInput side[2];              ///< 0 = question, 1 = answer
};

/// The LM ids of README §2: `<s> first </s> </s> second </s>` (first's words at positions 1..m,
/// second's at m + 3 ..).
std::vector<std::int64_t> pairIds(const std::vector<std::int64_t> &first, const std::vector<std::int64_t> &second,
                                  const TatConfig &config);

/// The pair input of README §2: `<s> q </s> </s> a </s>` with the LM positions of every token.
PairInput makePair(const std::vector<std::int64_t> &questionIds, TatTree question, const std::vector<std::int64_t> &answerIds,
                   TatTree answer, const TatConfig &config);

/// One pair from both sentences' words and constituency trees (null: none): the node
/// tables, the words looked up by `vocab`, the LM layout. Errors under `where` ("pair 3"):
/// an empty side, a missing tree, more words than the LM's positions, a tree the node
/// tables refuse ("pair 3 (first sentence)"), a tree that does not cover its words.
Result<PairInput> pairInputOf(const std::vector<std::string> &first, const ConstituencyTree *firstTree,
                              const std::vector<std::string> &second, const ConstituencyTree *secondTree,
                              const Vocabulary &vocab, const TatTags &tags, const TatConfig &config,
                              const std::string &where);

/// Per node of one side, in the side's node order (padded to its largest L_v).
struct SideRecord {
    torch::Tensor inKind, inSrc, inTag;       ///< [N, Lmax] int64, -1 on padding
    torch::Tensor inSem, inSyn;               ///< [N, Lmax, d]
    torch::Tensor attnSem, attnSyn;           ///< [N, H, Lmax]: row 0 of each head, 0 on padding
    torch::Tensor outSem, outSyn;             ///< [N, d]: o at position 0 (before the FFN)
    torch::Tensor nodeSem, nodeSyn;           ///< [N, d]: the span embeddings y
};

struct Output {
    torch::Tensor x;                          ///< [B, T, d_lm] LM output (padded)
    torch::Tensor pairVec, logits;            ///< [B, 2(dSem+dSyn)], [B, classes]
    torch::Tensor pairVecRes, logitsRes;      ///< the CLS-residual variant
    torch::Tensor prediction;                 ///< [B, classes]: the logits of the configured head (TatConfig::head)
    std::vector<std::array<SideRecord, 2>> sides; ///< per pair (with record)
    torch::Tensor lmEmb;                      ///< [B, T, d] with record
    std::vector<torch::Tensor> lmLayers;      ///< per LM layer [B, T, d] with record
    int layerCalls = 0;                       ///< recursive-layer calls made (levels, or nodes)
};

class Net : public ParameterNet<TatConfig> {
public:
    Net() = default;
    static std::map<std::string, std::vector<std::int64_t>> parameterShapes(const TatConfig &c);
    static Result<Net> fromTensors(const TatConfig &config, const TensorMap &tensors, const torch::Device &device,
                                   const std::string &where);
    /// Level-batched (README §6) unless `nodeByNode`: then one layer call per node, in post-order.
    /// `ablate`: heads of the aggregation layer (layer 0) whose output is zeroed before their
    /// stream's output projection, numbered as the views number them: 0..H-1 the semantic
    /// stream's, H..2H-1 the syntactic stream's (head -1: both streams' every head).
    Output forward(const std::vector<PairInput> &pairs, bool record, bool nodeByNode = false,
                   const std::vector<HeadAblation> &ablate = {}) const;
    /// The language-model stand-in alone over the pairs' inputs (padded): x [B, T, d_lm].
    torch::Tensor lmForward(const std::vector<PairInput> &pairs) const;
    /// The LM over padded ids [B, T] and mask [B, T] (true = token): [B, T, d_lm] (the masked-LM trainer's entry).
    torch::Tensor lmOnly(const torch::Tensor &ids, const torch::Tensor &mask) const { return lm(ids, mask, nullptr); }
    /// Training mode: dropout (TatConfig::dropout) is applied.
    void setTraining(bool on) { m_training = on; }
    /// Random initial weights for every tensor of the configuration: the LM as BERT (normal, std 0.02; LayerNorm
    /// gains 1, biases 0), the aggregation's tag/position/level tables N(0, 1) as PyTorch's nn.Embedding, its
    /// matrices Xavier-uniform, biases 0.
    static TensorMap randomTensors(const TatConfig &config, unsigned seed);

private:
    using ParameterNet::ParameterNet;
    const torch::Tensor &p(const std::string &name) const { return m_p.at(name); }
    torch::Tensor lm(const torch::Tensor &ids, const torch::Tensor &mask, Output *record) const;
    torch::Tensor drop(const torch::Tensor &x) const;
    bool m_training = false;
};

} // namespace treelens::tat
