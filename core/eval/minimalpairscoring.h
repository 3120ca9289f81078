#pragma once
/// \file minimalpairscoring.h
/// Minimal pairs scored by a language model, and the same with heads switched off: what
/// `treelens-cli minimal-pairs`, `ablate-sweep` and the app's Minimal pairs dock share
/// (docs/minimal-pairs.md). A decoder scores a sentence by its log-probability, a masked
/// language model by its pseudo-log-likelihood (EncoderInfo::sentenceScore); a model with
/// neither is refused before any sentence is read.

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "core/base/result.h"
#include "core/base/runcontrol.h"
#include "core/data/analysis.h"
#include "core/encoders/encoder.h"
#include "core/eval/minimalpairs.h"

namespace treelens {

/// One pair as the model read it: both analyses, or why the model refused it ("bad: 169 word
/// pieces, the model takes at most 128"); `skipped` empty when it was read.
struct ScoredPair {
    Analysis good, bad;
    std::string skipped;
};

/// The refusal of a model without a sentence log-probability ("MODEL gives no sentence
/// log-probability (the family's reason): ...").
std::string noLogprobRefusal(const EncoderInfo &info, const std::string &model);

/// "log-probability" (a decoder's log p) or "pseudo-log-likelihood" (a masked LM's): what a
/// pair's logprob is, as the summaries name it.
std::string sentenceScoreName(SentenceScore score);

/// Refuses (the message of noLogprobRefusal) a model that gives no sentence score
/// (EncoderInfo::sentenceScore: none for one that reads trees or pairs).
Status languageModelOnly(const EncoderInfo &info, const std::string &model);

/// Pairs [begin, end) of `pairs` analysed with `options` (and a masked language model's
/// pseudo-log-likelihood asked for), in one batch; a batch the model refuses (a sentence
/// over its context) pair by pair, a refused pair skipped. Errors name `source` and the
/// pairs' lines; an analysis without a log-probability is the refusal above. `control`
/// (may be null) is polled by the encoder.
Result<std::vector<ScoredPair>> scorePairs(Encoder &encoder, const std::vector<MinimalPair> &pairs, std::size_t begin,
                                           std::size_t end, const AnalyzeOptions &options, const std::string &source,
                                           const std::string &model, const RunControl *control = nullptr);

/// Every pair under one setting of the heads: correct (1/0) and margin log p(good) - log p(bad),
/// -1 and NaN for a pair the model refused.
struct PairOutcomes {
    std::vector<int> correct;
    std::vector<double> margin;
};

/// scorePairs() over all `pairs` in blocks of 64; `onBlock(done)` after each block (may be empty).
Result<PairOutcomes> pairOutcomes(Encoder &encoder, const std::vector<MinimalPair> &pairs, const AnalyzeOptions &options,
                                  const std::string &source, const std::string &model, const RunControl *control = nullptr,
                                  const std::function<void(std::size_t)> &onBlock = {});

/// Mean of paired differences with its normal-approximation 95 % interval
/// (mean ± 1.96 sd / sqrt(n), sd with n - 1); n = 0 gives `valid` false.
struct PairedChange {
    bool valid = false;
    double change = 0.0, low = 0.0, high = 0.0;
};
PairedChange pairedChange(const std::vector<double> &differences);

/// One cell of an ablation sweep: a head (or a whole layer, head -1; 0-based) switched off,
/// against the unablated baseline, over the pairs both read.
struct SweepCell {
    int layer = 0, head = -1;
    int pairs = 0;
    double accuracy = 0.0;         ///< with the head switched off
    PairedChange accuracyChange;   ///< per pair correct(ablated) - correct(baseline)
    PairedChange marginChange;     ///< per pair margin(ablated) - margin(baseline), nats
    std::vector<std::size_t> flippedToWrong, flippedToRight; ///< indices into the pairs
};
SweepCell sweepCell(int layer, int head, const PairOutcomes &baseline, const PairOutcomes &ablated);

/// A whole sweep as `treelens-cli ablate-sweep --json` writes it (docs/minimal-pairs.md, "Sweep"),
/// read back: the figure's data. Its cells' flipped lists hold positions in the file's lists of
/// pair ids (what a figure counts), not indices into a pair file.
struct SweepTable {
    std::string model, input;
    int layers = 0, heads = 0;
    double baseline = 0.0; ///< accuracy with every head on
    int baselinePairs = 0;
    std::vector<SweepCell> cells;
};
/// Reads that JSON object; an error names `source` and what is missing or malformed.
Result<SweepTable> readSweepJson(const std::string &text, const std::string &source);

} // namespace treelens
