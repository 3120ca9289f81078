#pragma once
/// \file ggsaconfig.h
/// Gated Group Self-Attention (GGSA) and its question-answer interaction
/// variant (iGGSA), seed 001 (Xu et al. 2019, arXiv 1905.10720): the model
/// configuration and the group layout, as the reference fixture
/// (`fixtures/ggsa-reference/README.md`, steps 1-7) specifies them.
/// Torch-free: the app and the views read the layout from here.

#include <cstddef>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/base/result.h"

namespace treelens {

/// One GGSA/iGGSA answer-selection model: a question encoder and an answer
/// encoder (separate parameters, one embedding table), a composition into one
/// vector per sentence and two scoring heads (cosine and MLP).
struct GgsaConfig {
    int dModel = 128;
    int heads = 4;
    int groupSize = 10;          ///< l: slots per group
    std::vector<int> offsets;    ///< o_h per head, 0 <= o_h < groupSize (same in every block)
    int layers = 2;              ///< GGSA blocks per encoder
    int dFF = 256;
    int dMlp = 128;              ///< hidden size of the scoring MLP
    int vocabSize = 0;
    int maxLen = 512;            ///< longest sentence (positional table rows)
    int padId = 0;
    int unkId = 1;
    double lnEps = 1e-6;
    double embeddingScale = 1.0; ///< E[id] * scale + PE
    /// "paper_literal" (PE[i,j] = sin/cos(i / 10000^(2j/D)), the seed's printed
    /// formula and the fixture's) or "vaswani" (exponent 2*floor(j/2)/D).
    std::string positionalEncoding = "paper_literal";
    bool interaction = false;    ///< iGGSA answer encoder (eqs. 5-7)
    std::string composition = "max"; ///< "max" or "attention" (attentive pooling, then max)
    std::string score = "cosine";    ///< the ranking score: "cosine" or "mlp" (s = p[relevant])
    // Ablations of the paper's Table 2 (the fixture's model has none of them).
    bool gate = true;            ///< false: G = 1 (no global information gate)
    bool globalAttention = false;///< true: every query sees every key (plain multi-head self-attention)
    double embeddingDropout = 0.3; ///< training only (the paper keeps 0.7)
    /// Not in the paper (off in the fixture): a learned vector added to the input
    /// of every word that also occurs in the other sentence (the word-overlap
    /// indicator of Yang et al. 2015 and Severyn & Moschitti 2015), "overlap.weight" [2, D].
    bool overlapFeature = false;

    int dHead() const { return heads > 0 ? dModel / heads : 0; }
    Status validate() const;
    /// The "model" object of a model file's treelens.config.
    std::string toJson() const;
    static Result<GgsaConfig> fromJson(const std::string &text);
};

/// Step 2 of the fixture: head h with offset o sees the sentence preceded by o
/// empty slots and cut into consecutive groups of l slots (no wrap-around).
int ggsaGroupId(int position, int offset, int groupSize);
/// [start, end) of the keys query `position` may attend (end <= length).
std::pair<int, int> ggsaGroupSpan(int position, int length, int offset, int groupSize);
/// (query, key) pairs group attention scores for one head: sum over groups of size^2.
long long ggsaPairsGroup(int length, int offset, int groupSize);
/// Score slots a blocked kernel forms for one head: ceil((L + o) / l) * l^2.
long long ggsaSlotsBlocked(int length, int offset, int groupSize);
/// The groups of one head as [start, end) word ranges, in order.
std::vector<std::pair<int, int>> ggsaGroups(int length, int offset, int groupSize);

} // namespace treelens
