#pragma once
/// \file runfeatures.h
/// Stage 3 of a probing run (core/probing/proberun.h): the encoder's frozen layer
/// states per split — sentence vectors for the sentence probes, word states for
/// the structural probes — and the structural probes' examples per split.
/// Torch-free header.

#include <cstddef>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/result.h"
#include "core/formats/shard.h"
#include "core/probing/probes.h"
#include "core/probing/runcontext.h"
#include "core/probing/rundata.h"

namespace treelens {

class Encoder;
struct ProbeFeatureLayout;

/// The features of every split; for one corpus `train` holds the whole corpus
/// (the datasets' indices of every split refer to it) and dev/test are empty.
struct ProbeSplitFeatures {
    ProbeFeatures train, dev, test;
};

/// Runs extractFeatures() over each split (progress lines "what (split): ...").
/// Errors name the split ("dev: ...") of given splits.
Result<ProbeSplitFeatures> extractProbeFeatures(const ProbeRunContext &ctx, Encoder &encoder, const ProbeData &data,
                                                const FeatureOptions &options, const std::string &what);

/// A structural probe's examples of one layer, by split.
struct StructuralSplits {
    std::vector<StructuralExample> train, dev, test;
    std::map<std::string, long> skipped; ///< "<split>/<reason>" -> sentences ("corpus/..." for one corpus)
};

/// The examples of `layer` (kept in `features`, extracted with word vectors):
/// for one corpus the corpus's examples dealt to the split they belong to.
/// StructuralExample::sentence indexes the corpus, or the split's sentences.
Result<StructuralSplits> structuralSplits(const ProbeData &data, const ProbeSplitFeatures &features, int layer);

/// Extracts the features of sentences range.begin .. range.end − 1 of `data` (a range of
/// whole blocks) a block at a time and hands their records to `write`. `randomInit` is
/// run when the layout holds its features. Progress "features: done/total".
Result<std::size_t> writeProbeFeatureRecords(const ProbeRunContext &ctx, Encoder &model, Encoder *randomInit,
                                             const ProbeData &data, const ProbeFeatureLayout &layout,
                                             const std::vector<std::size_t> &blockStarts, ShardRange range,
                                             const std::function<Status(std::string_view)> &write);

/// Whether the word states of `layers` layers of every sentence fit comfortably
/// in memory at once (768 MiB of floats); else they are extracted one layer at a time.
bool wordStatesFitAtOnce(const ProbeData &data, std::size_t layers, int dModel);

} // namespace treelens
