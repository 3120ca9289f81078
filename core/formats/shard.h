#pragma once
/// \file shard.h
/// Shards of a corpus run and their merge (issue 35; docs/cluster.md). `--shard I/N`
/// (I from 1) makes a command take a deterministic, contiguous part of its input: the
/// items are cut into blocks (the unit the command batches in, so that every item is
/// batched with the same neighbours as in the unsharded run) or, for a ranking corpus,
/// into whole question groups, and shard I takes blocks ⌊(I−1)·B/N⌋ .. ⌊I·B/N⌋ − 1 of the
/// B. Its output is the unsharded output's lines for that part, between two lines that
/// say what it is:
///
///     #treelens-shard {"command":…,"options":…,"shard":"2/4","input":{"path","size","crc32"},
///                      "total":…,"begin":…,"end":…,"header_lines":…}
///     … the records of input items begin .. end − 1, in input order (record k is item begin + k)
///     #treelens-shard-end {"records":…}
///
/// The end line is written last (and the file atomically): a shard output without it is
/// incomplete. mergeShards() checks that the files are shards 1..N of one input and one
/// command line, each once and complete, and joins their bodies in shard order — exactly
/// the unsharded output (`header_lines` lines every shard repeats, a TSV header, are kept
/// once).

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/result.h"

namespace treelens {

struct ShardSpec {
    int index = 0; ///< 1-based
    int count = 0; ///< 0 = not sharded
    bool active() const { return count > 0; }
    std::string str() const { return std::to_string(index) + "/" + std::to_string(count); }
};

/// "I/N" with 1 <= I <= N (errors say what is wrong).
Result<ShardSpec> parseShardSpec(const std::string &text);

struct ShardRange {
    std::size_t begin = 0, end = 0;
    std::size_t size() const { return end - begin; }
};

/// Shard `s` of `total` items in whole blocks of `block` items (the last block may be
/// shorter): blocks ⌊(I−1)·B/N⌋ .. ⌊I·B/N⌋ − 1 of the B = ⌈total/block⌉. With N > B some
/// shards are empty.
ShardRange shardRange(std::size_t total, const ShardSpec &s, std::size_t block = 1);

/// Shard `s` of items in groups (a ranking corpus' questions): `groupStarts` the first item
/// of each group, ascending from 0; whole groups, split as blocks are.
ShardRange shardRangeByGroups(const std::vector<std::size_t> &groupStarts, std::size_t total, const ShardSpec &s);

/// What a shard records of its input: the path as given, its size in bytes and the CRC-32
/// of its bytes (zlib's; a folder, such as WikiQA's: its regular files in name order, the
/// size their sum, the CRC over each name and its bytes).
struct InputIdentity {
    std::string path;
    std::uint64_t size = 0;
    std::string crc32; ///< 8 lower-case hex digits
};
Result<InputIdentity> inputIdentity(const std::string &path);
/// Whether two identities are of the same bytes (size and CRC-32; the path may differ).
inline bool sameContent(const InputIdentity &a, const InputIdentity &b) { return a.size == b.size && a.crc32 == b.crc32; }
/// Several files read as one input (eval-induction's gold files): the paths joined by
/// spaces, their sizes summed, the CRC over each path's identity in order.
Result<InputIdentity> inputIdentity(const std::vector<std::string> &paths);

struct ShardHeader {
    std::string command;     ///< "analyze", "score-pairs", …
    std::string options;     ///< the command line that shapes the output (without --shard, -o, --skip-done, --device, --threads)
    ShardSpec shard;
    InputIdentity input;
    std::size_t total = 0;   ///< input items (sentences, pairs)
    std::size_t begin = 0, end = 0;
    int headerLines = 0;     ///< body lines every shard repeats at its start (kept once by the merge)
    /// The CPU threads the run was given (--threads; 0 = the libraries' default, which is the
    /// machine's `cpus`): float sums in another order round differently, so merge refuses shards
    /// of different counts. -1: not recorded (a shard written before this field).
    int threads = -1;
    int cpus = 0;            ///< std::thread::hardware_concurrency() where the shard ran (with threads 0)
};

inline constexpr const char *kShardLine = "#treelens-shard ";
inline constexpr const char *kShardEndLine = "#treelens-shard-end ";

/// "" when shards `a` and `b` ran with the same threads (or one did not record them), else
/// what differs ("1 thread and 4 threads", "the default threads (16 CPUs) and ...").
std::string differentThreads(const ShardHeader &a, const ShardHeader &b);

/// The first line of a shard output, and its last.
std::string shardHeaderLine(const ShardHeader &h);
std::string shardEndLine(std::size_t records);

struct ShardFile {
    ShardHeader header;
    std::string body;        ///< between the two lines
    bool complete = false;   ///< the end line is there
    std::size_t records = 0; ///< as the end line says
    std::uint64_t bodyBegin = 0, bodyEnd = 0; ///< where the body is in the file
};
/// Reads a shard output (an error naming the file when it is none).
Result<ShardFile> readShardFile(const std::string &path);
/// Its first and last lines only (the body as offsets): cheap for any size.
Result<ShardFile> readShardEnds(const std::string &path);

/// True when `path` holds the complete output of the shard `h` describes (same command,
/// options, shard and input): `--skip-done`.
bool shardIsDone(const std::string &path, const ShardHeader &h);

struct MergedShards {
    ShardHeader first;       ///< shard 1's header (command, options, input)
    std::string body;        ///< the bodies joined: the unsharded output
    std::size_t records = 0;
};
/// Joins shard outputs given in any order. Refuses, naming the files: a file that is no
/// shard output or is incomplete, shards of another input, command line or N, a shard
/// given twice, a missing shard, and records that do not cover the input.
Result<MergedShards> mergeShards(const std::vector<std::string> &paths);
/// The same, the joined bodies handed to `write` a piece at a time instead of kept
/// (MergedShards::body stays empty): outputs larger than memory. Every shard is checked
/// (its first and last lines) before anything is written.
Result<MergedShards> mergeShardsTo(const std::vector<std::string> &paths, const std::function<Status(std::string_view)> &write);

} // namespace treelens
