#pragma once
// What minimal-pairs and ablate-sweep share (cmd_minimalpairs.cpp): opening a run, its shards.
// The scoring itself is core/eval/minimalpairscoring.h (the app's Minimal pairs dock uses it too).
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
#include "core/eval/minimalpairscoring.h"

namespace treelens::cli {

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

} // namespace treelens::cli
