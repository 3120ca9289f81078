#pragma once
// What minimal-pairs and ablate-sweep share (cmd_minimalpairs.cpp): a model's analyses of the
// good and the bad sentence of pairs, a block at a time.
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "app/cli/command.h"
#include "core/base/result.h"
#include "core/data/analysis.h"
#include "core/encoders/encoder.h"
#include "core/eval/minimalpairs.h"

namespace treelens::cli {

/// One pair as the model read it: both analyses, or why the model refused it ("bad: 169 word
/// pieces, the model takes at most 128"); `skipped` empty when it was read.
struct ScoredPair {
    Analysis good, bad;
    std::string skipped;
};

/// The refusal of a model without a sentence log-probability ("MODEL gives no sentence
/// log-probability (the family's reason): ...").
std::string noLogprobRefusal(const EncoderInfo &info, const std::string &model);

/// "log-probability" (a decoder's log p) or "pseudo-log-likelihood" (a masked LM's): what the
/// records' logprob is, as the summaries name it.
std::string sentenceScoreName(SentenceScore score);

/// Refuses (the message of noLogprobRefusal) a model that gives no sentence score
/// (EncoderInfo::sentenceScore: none for one that reads trees or pairs), before any sentence is read.
Status languageModelOnly(const EncoderInfo &info, const std::string &model);

/// What both commands open before they score: the shard's header (nullopt without --shard), the
/// pairs, the model and its name (its own, else --model as given); `done` when --skip-done found
/// OUT complete (nothing else is opened then). A model that reads trees or pairs is refused here.
struct PairRun {
    std::optional<ShardHeader> header;
    std::vector<MinimalPair> pairs;
    std::unique_ptr<Encoder> encoder;
    std::string model;
    std::string score; ///< sentenceScoreName of the model's
    bool done = false;
};
Result<PairRun> openPairRun(const std::string &command, const std::string &input, const std::string &out,
                            const ShardOptions &shard, const DeviceSpec &dev);

/// The items [0, total) without --shard; with it, shard `header->shard` of them in blocks of
/// `block`, written into the header (total, range, one settings line every shard repeats).
ShardRange shardItems(std::optional<ShardHeader> &header, std::size_t total, std::size_t block);

/// A merged body's lines after its first (the settings line), empty ones left out.
std::vector<std::string_view> linesAfterSettings(std::string_view body);

/// Pairs [begin, end) of `pairs` analysed with `options` (and a masked language model's
/// pseudo-log-likelihood asked for), in one batch; a batch the model
/// refuses (a sentence over its context) pair by pair, a refused pair skipped. Errors name
/// `source` and the pairs' lines; an analysis without a log-probability is the refusal above.
Result<std::vector<ScoredPair>> scorePairs(Encoder &encoder, const std::vector<MinimalPair> &pairs, std::size_t begin,
                                           std::size_t end, const AnalyzeOptions &options, const std::string &source,
                                           const std::string &model);

} // namespace treelens::cli
