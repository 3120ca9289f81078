#pragma once
/// \file proberun.h
/// One probing run over a corpus (TreeLens issue 6), as `treelens-cli probe` and
/// the GUI's Probing dock run it. runProbes() runs the stages in order, each in
/// its own unit:
///  1. data (rundata.h): read the corpora (or take the sentences given), cut a
///     training corpus given alone into train/dev/test;
///  2. trees (runtrees.h): resolve and predict the trees the tasks need;
///  3. features (runfeatures.h): the encoder's layer states per split;
///  4. probes (runprobes.h): sentence probes (MLP / linear, control task,
///     random-init baseline) and structural probes;
///  5. attention (runattention.h): attention–tree agreement per layer and head,
///     unsupervised parsing;
///  6. report (runreport.h): the typed ProbeRunReport (probereport.h) and its text;
///     its JSON is core/probing/probejson.h's.
/// Seeded: two runs with the same configuration on one machine give the same
/// numbers; the report's JSON is byte-identical apart from its "timing" object.
/// Torch-free header.

#include <cstddef>
#include <functional>
#include <string_view>

#include "core/base/result.h"
#include "core/base/runcontrol.h"
#include "core/formats/shard.h"
#include "core/probing/probereport.h"
#include "core/probing/proberunconfig.h"
#include "core/probing/runcontext.h"

namespace treelens {

/// Runs the configured tasks. Errors name the setting or file at fault (never a
/// command-line flag: see proberunconfig.h); `control` can cancel between units
/// of work (the error is then "cancelled"). Callbacks run on the calling thread.
/// With config.featuresFile the probes train on the features of that file
/// (runfeaturefile.h) instead of running the encoders: refused, naming the
/// difference, when the file does not hold what this run needs (another model or
/// corpus, a layer, a vector or the random-init encoder it lacks).
Result<ProbeRunReport> runProbes(const ProbeRunConfig &config, const ProbeRunCallbacks &callbacks = {},
                                 const RunControl *control = nullptr);

/// Sentences with words per block of a features extraction: the multiple of the
/// encoder batch nearest above 512.
std::size_t probeFeatureBlock(int encoderBatch);

/// Where a features extraction puts what it extracts.
struct ProbeFeatureSink {
    /// Before anything is written: the run's sentences and the shard's range of them.
    std::function<Status(std::size_t total, ShardRange range)> begin;
    std::function<Status(std::string_view bytes)> write;
};

/// Stages 1 and 3 of the configured run alone (`probe --extract-features`, and
/// `probe --shard I/N` for one shard, `shard` inactive = all): the features the
/// sentence and structural tasks need, of the model and with a random-init baseline
/// of the random-init encoder, for shard `shard` of the run's sentences in blocks of
/// probeFeatureBlock() sentences, written as a features file (runfeaturefile.h):
/// its first line, then the records. The attention tasks are left to the run on the
/// features (they read attention matrices; a progress line says so). Refused: no
/// sentence or structural task, corpora not in files, and an encoder that reads trees
/// the corpus lacks (the whole run would predict them). Returns the records written.
Result<std::size_t> extractProbeRunFeatures(const ProbeRunConfig &config, const ShardSpec &shard,
                                            const ProbeFeatureSink &sink, const ProbeRunCallbacks &callbacks = {},
                                            const RunControl *control = nullptr);

} // namespace treelens
