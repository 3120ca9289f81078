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

#include "core/base/result.h"
#include "core/base/runcontrol.h"
#include "core/probing/probereport.h"
#include "core/probing/proberunconfig.h"
#include "core/probing/runcontext.h"

namespace treelens {

/// Runs the configured tasks. Errors name the setting or file at fault (never a
/// command-line flag: see proberunconfig.h); `control` can cancel between units
/// of work (the error is then "cancelled"). Callbacks run on the calling thread.
Result<ProbeRunReport> runProbes(const ProbeRunConfig &config, const ProbeRunCallbacks &callbacks = {},
                                 const RunControl *control = nullptr);

} // namespace treelens
