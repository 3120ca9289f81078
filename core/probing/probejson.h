#pragma once
/// \file probejson.h
/// A probing report (core/probing/probereport.h) as JSON: what `treelens-cli
/// probe --json` prints and the GUI's Probing dock exports, and the way back for
/// `treelens-cli probe-tables`. Keys in snake_case, objects' keys sorted; numbers
/// rounded to the digits the text report shows (reportRounded: 4 decimals,
/// percent with 2), NaN and infinity written as null. Layers and heads are
/// numbered as a person counts them (core/base/numbering.h; top-level
/// "layer_numbering": "1-based"): every "layer" and "head" from 1, the probed
/// embedding layer "embeddings", a grid's row i is layer i + 1; the typed report
/// keeps 0-based indices (probereport.h). Two runs of the same configuration
/// give the same bytes apart from the "timing" object. The layout is listed in
/// docs/probing.md.

#include <string>
#include <vector>

#include "core/base/result.h"
#include "core/probing/probereport.h"

namespace treelens {

/// The report as one line of JSON (no newline).
std::string probeReportJson(const ProbeRunReport &report);

/// Several reports as {"models":[report,...]} on one line, each byte for byte
/// as probeReportJson writes it (the dock's export of a run of several models).
std::string probeReportsJson(const std::vector<const ProbeRunReport *> &reports);

/// Reads a report written by probeReportJson, or the {"models":[...]} of
/// probeReportsJson (one report per model), and reports of earlier versions
/// (no top-level "layer_numbering": the attention tasks' layers and heads and the
/// start layers counted from 0, the embeddings probed as layer 0, the
/// unsupervised-parsing "config" 0-based as in treelens.config; written again
/// they come out numbered from 1). The reports hold the JSON's
/// (rounded) numbers; what the JSON does not carry stays empty: per-sentence
/// results, the viewers' data, the control probes' learning curves (their
/// length only: NaN entries), fixed-offset baselines other than the best.
/// Writing a report read here gives the same JSON back (for a report of an
/// earlier version: renumbered, the rest byte for byte). Errors name `source`
/// and what is missing or mistyped.
Result<std::vector<ProbeRunReport>> readProbeReportsJson(const std::string &text, const std::string &source);

} // namespace treelens
