#pragma once
/// \file probejson.h
/// A probing report (core/probing/probereport.h) as JSON: what `treelens-cli
/// probe --json` prints and the GUI's Probing dock exports, and the way back for
/// `treelens-cli probe-tables`. Keys in snake_case, objects' keys sorted; numbers
/// rounded to the digits the text report shows (reportRounded: 4 decimals,
/// percent with 2), NaN and infinity written as null; layers of the attention
/// tasks counted from 0 ("layer_numbering"). Two runs of the same configuration
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
/// probeReportsJson (one report per model). The reports hold the JSON's
/// (rounded) numbers; what the JSON does not carry stays empty: per-sentence
/// results, the viewers' data, the control probes' learning curves (their
/// length only: NaN entries), fixed-offset baselines other than the best.
/// Writing a report read here gives the same JSON back. Errors name `source`
/// and what is missing or mistyped.
Result<std::vector<ProbeRunReport>> readProbeReportsJson(const std::string &text, const std::string &source);

} // namespace treelens
