#pragma once
/// \file runfeaturefile.h
/// Stage 3 of a probing run done apart (issue 35, docs/cluster.md): the encoder's
/// features written to a file — in shards, `probe --shard I/N`, joined by
/// `treelens-cli merge` — and read back by the run that trains the probes
/// (`probe --features FILE`) instead of running the encoder again. Torch-free header.
///
/// A features file is one line that says what it holds, then one record per
/// sentence of the run (ProbeData order: the corpus, or train, dev, test):
///
///     #treelens-probe-features {"model":{path,size,crc32},"input":{…},"splits":[["train",n],…],
///                               "layers":[0,2],"dim":d,"vectors":["cls","mean","words"],
///                               "encoders":["model","random-init"],"random_init_seed":1,…}
///     I BYTES\n  then BYTES bytes of little-endian float32, then \n
///
/// The floats of sentence I are, for each encoder, each layer, each vector in that
/// order: the [CLS] state (dim), the mean of the word states (dim), the word states
/// (words × dim). A sentence without words has zeros and no word states, as
/// extractFeatures() gives it. The extraction walks each split in blocks of whole
/// encoder batches (probeFeatureBlockStarts), so every sentence is batched with the
/// neighbours the whole run gives it: the merged shards are byte for byte the
/// whole extraction, and the probes trained on them are those of the plain run.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/base/result.h"
#include "core/formats/shard.h"
#include "core/probing/probes.h"
#include "core/probing/runcontext.h"
#include "core/probing/rundata.h"
#include "core/probing/runfeatures.h"

namespace treelens {

inline constexpr const char *kProbeFeaturesLine = "#treelens-probe-features ";

/// What a features file holds (its first line).
struct ProbeFeatureLayout {
    InputIdentity model;                                     ///< the model file (or folder)
    std::string family;                                      ///< the encoder's family
    InputIdentity input;                                     ///< the corpus files, train, dev, test in order
    std::vector<std::pair<std::string, std::size_t>> splits; ///< ("corpus", n) or ("train", n), ("dev", n), ("test", n)
    std::vector<int> layers;                                 ///< 0 = embeddings, increasing
    int dim = 0;
    bool cls = false, mean = false, words = false;           ///< the vectors kept per layer
    bool randomInit = false;                                 ///< the random-init encoder's too
    unsigned randomInitSeed = 0;
    int encoderBatch = 0;                                    ///< sentences per forward pass (blocks are its multiples)
    std::string precision;                                   ///< the encoder's precision setting
    /// The run's restriction (`probe --where`, runwhere.h): "" for none, else the pattern's
    /// syntax, a space and the pattern; the line holds "where" only when there is one.
    std::string where;

    std::size_t sentences() const;
    /// The bytes of the record of a sentence of `words` words.
    std::size_t recordBytes(std::size_t words) const;
    /// "#treelens-probe-features {json}\n"
    std::string line() const;
};

/// The layout from a file's first line (without its "\n"); errors say what is wrong.
Result<ProbeFeatureLayout> parseProbeFeatureLayout(const std::string &line);

/// Why `have` cannot serve a run that needs `wanted` (another model or corpus, a layer,
/// vector or encoder it lacks), or "" when it can: it may hold more.
std::string probeFeatureMismatch(const ProbeFeatureLayout &have, const ProbeFeatureLayout &wanted);

/// The sentences of `data` in ProbeData order (the corpus, or train, dev, test).
std::vector<const Sentence *> probeSentences(const ProbeData &data);

/// Where the extraction's blocks start, in ProbeData order: each split cut into blocks
/// of `block` sentences with words (a sentence without words stays in the block before
/// it), so a block begins a fresh encoder batch when `block` is a multiple of the batch.
std::vector<std::size_t> probeFeatureBlockStarts(const ProbeData &data, std::size_t block);

/// Appends the record of the run's sentence `index` (`words` words), sentence `k` of the
/// features `encoders` (the model's, then with a random-init layout the random-init
/// encoder's, as extractFeatures() gives them for a block of sentences).
Status appendProbeFeatureRecord(std::string &out, const ProbeFeatureLayout &layout, std::size_t index,
                                const std::vector<ProbeFeatures> &encoders, std::size_t k, std::size_t words);

/// A features file, read back.
class ProbeFeatureFile {
public:
    /// Reads the first line. Errors: no such file; a shard's output ("merge the shards
    /// first"); not a features file.
    static Result<ProbeFeatureFile> open(const std::string &path);
    const ProbeFeatureLayout &layout() const { return m_layout; }
    const std::string &path() const { return m_path; }
    /// The features extractProbeFeatures() would give for `data` and `options` (its
    /// layers and vectors), of the model or of the random-init encoder: the file read
    /// through once. Errors name the file and the sentence where it does not fit `data`.
    Result<ProbeSplitFeatures> load(const ProbeRunContext &ctx, const ProbeData &data, bool randomInit,
                                    const FeatureOptions &options, const std::string &what) const;

private:
    std::string m_path;
    ProbeFeatureLayout m_layout;
    std::uint64_t m_bodyBegin = 0;
};

} // namespace treelens
