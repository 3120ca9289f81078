#pragma once
/// \file probecompare.h
/// The one rule set for comparing probing reports, used by the GUI's Probing
/// dock (its Compare tab and the structural viewer's best layer) and by
/// `treelens-cli probe-tables` (the Markdown tables of docs/probing.md, which
/// scripts/probing_tables.py prints through it). Torch-free, no Qt.
///
/// Rules: a sentence probe's task is read at its best layer by dev, the highest
/// dev accuracy (SentLen: the lowest dev MSE); a structural probe's at the lowest
/// dev loss; the attention analyses at their best head. The comparison reads the
/// numbers as the report's JSON rounds them (reportRounded), so a report in
/// memory and the same report read back from its JSON give the same picks and
/// cells; a NaN (JSON null) never beats a number; of equal values the first
/// (lowest) layer wins. Numbers are formatted as Python's f"{x:.Nf}" formats
/// them (exact ties to even), "n/a" for NaN.

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/probing/probereport.h"

namespace treelens {

/// What a cell shows when a model's report lacks the task (or the pooling).
extern const char *const kCompareMissing; ///< "—"

/// `x` with `decimals` decimals as Python's f"{x:.2f}" writes it: the exact
/// binary value rounded (ties to even), the sign of −0 kept, whatever the C
/// locale; "n/a" for NaN.
std::string pythonFixed(double x, int decimals);

/// Index into `layers` of the sentence probe's best layer for `pooling` ("cls"
/// or "mean"): the highest reported dev accuracy, for a regression task (SentLen)
/// the lowest reported dev MSE. -1 when no layer has that pooling.
int bestSentenceProbeLayer(const std::vector<SentenceProbeLayer> &layers, const std::string &pooling, bool regression);

/// Index into `layers` of the structural probe's best layer: the lowest reported
/// dev loss. -1 when `layers` is empty.
int bestStructuralProbeLayer(const std::vector<StructuralProbeLayer> &layers);

// ---------------------------------------------------------------------------
// One model's cells (kCompareMissing where there is nothing to show)

struct SentenceProbeCells {
    std::string mean;        ///< "0.162 (2)": test R² (SentLen, 3 decimals) or accuracy % (1 decimal) (layer: "embeddings" or k from 1)
    std::string cls;         ///< the same for the [CLS] vector
    std::string selectivity; ///< task − control at the mean vector's best layer
    std::string randomInit;  ///< the random-init encoder, mean vector, its best layer
};
SentenceProbeCells sentenceProbeCells(const SentenceProbeTask &task);

/// The majority baseline: "R² -0.188" (SentLen: the train mean's R²) or the accuracy % ("66.7").
std::string majorityBaselineCell(const SentenceProbeTask &task);

struct StructuralProbeCells {
    std::string model;      ///< "44.4 / 0.459 (embeddings)": UUAS % / DSpr or root accuracy % / NSpr (layer)
    std::string randomInit; ///< the same for the random-init encoder
};
StructuralProbeCells structuralProbeCells(const StructuralProbeTask &task);

/// Head accuracy, all relations: the best dependent→head head "40.7 (1/1)"
/// (layer/head from 1) and the best fixed offset "-1: 40.7"; nullopt without
/// the relation "all".
std::optional<std::pair<std::string, std::string>> headAccuracyCells(const HeadAccuracyReport &report);
/// Constituent mass at the best head: "0.837 / 0.596 (1/3)" (mass / distance-matched baseline).
std::string constituentMassCell(const ConstituentMassReport &report, const AttentionTaskSummary &summary);
/// The attention MST's UUAS at the best head: "43.0 (3/3)".
std::string attentionMstCell(const AttentionTaskSummary &summary);
/// Per layer: "0.52 (0.16)", the mean link probability (Spearman with −size).
std::vector<std::string> linkProbabilityCells(const LinkProbabilityReport &report);

/// Unsupervised parsing scores of one parser, "model", "right_branching",
/// "left_branching" or "random": sentence / corpus F1 ("76.2 / 54.5") and the
/// sentence F1 on ≤ 10 words; nullopt for "model" when the model induces no trees.
struct InductionCells {
    std::string f1, short10;
};
std::optional<InductionCells> inductionCells(const ProbeRunInduction &induction, const std::string &parser);
/// The model's F1 from every start layer (empty when it induces no trees).
std::vector<InductionCells> inductionStartLayerCells(const ProbeRunInduction &induction);

// ---------------------------------------------------------------------------
// Reports side by side

struct NamedProbeReport {
    std::string name;
    ProbeRunReport report;
};

/// Puts `extra`'s tasks into `into` (a task of `extra` replacing the one of the
/// same name); `into` keeps its model, settings and data. For an encoder whose
/// tasks were run in several runs.
void mergeProbeReport(ProbeRunReport &into, const ProbeRunReport &extra);

/// The Markdown tables of docs/probing.md for reports side by side (one column
/// group per report): the data line of the first report, sentence probes at their
/// best layers with selectivity, random-init and majority baselines, structural
/// probes, the attention's best heads, link probabilities and unsupervised parsing.
std::string probeTablesMarkdown(const std::vector<NamedProbeReport> &reports);

} // namespace treelens
