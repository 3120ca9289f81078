#pragma once
/// \file runwhere.h
/// Between stages 1 and 2 of a probing run (core/probing/proberun.h), when the run is
/// restricted to a construction (`probe --where P`, issue 48; ProbeRunConfig::where): the
/// sentences without an occurrence of the pattern are left out of every split, so every
/// task — the sentence and structural probes' training and evaluation, the attention tasks,
/// unsupervised parsing — sees only the sentences with one; and each kept sentence's matched
/// arcs are marked for head-accuracy. Torch-free.
///
/// Matched arcs (what head-accuracy scores under a restriction): a pattern of two or more
/// nodes selects every arc head → dependent of the sentence's dependency tree (the tree the
/// probe scores: the input's, or the Collins head-rule conversion of a PTB tree) whose head
/// and dependent one occurrence binds (for `pattern { V -[nsubj]-> S }` the nsubj arcs); a
/// pattern of one node, which binds no pair, selects every arc whose dependent it binds. A
/// pattern of two or more nodes whose occurrences bind no arc is an error of head-accuracy
/// (proberun.cpp), never a silent fallback.

#include "core/base/result.h"
#include "core/probing/probereport.h"
#include "core/probing/proberunconfig.h"
#include "core/probing/rundata.h"

namespace treelens {

/// The metadata key of a kept sentence's matched arcs: their dependents, from 1, joined by
/// commas ("" when none). AttentionTreeOptions::arcsMetadata names it for head-accuracy.
inline constexpr const char *kProbeWhereArcs = "probe.where.arcs";

/// Restricts `data` to the sentences with an occurrence (each split keeps its own, in
/// order; a seeded split keeps its membership: a sentence in test stays in test) and marks
/// their matched arcs under kProbeWhereArcs. Errors: the matcher's, a matcher that answers for
/// another number of sentences, and no sentence with an occurrence ("where: no sentence of
/// the run's N has an occurrence of the Grew request ...").
Result<ProbeRunWhere> restrictProbeData(const ProbeRestriction &where, ProbeData &data);

} // namespace treelens
