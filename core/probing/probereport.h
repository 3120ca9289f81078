#pragma once
/// \file probereport.h
/// The typed result of one probing run (runProbes, core/probing/proberun.h):
/// every task's numbers per layer (and pooling, head, relation), the data and
/// trees it ran on, the resolved settings and the timings. Plain values, no
/// torch, no Qt: the GUI's Probing dock draws them as they are, the JSON of
/// `treelens-cli probe --json` is written from them (core/probing/probejson.h)
/// and its text by probeReportText() (core/probing/runreport.h).
///
/// Numbers are kept as computed (fractions for accuracies of the sentence and
/// structural probes, percent where attentiontree.h / inductioneval.h give
/// percent); the JSON rounds them (reportRounded()). A report read back from
/// JSON (readProbeReportsJson) holds the JSON's rounded numbers and lacks what
/// the JSON does not carry (per-sentence results, the viewers' data).
///
/// Layers and heads are indices here: a probed layer is 0 for the embeddings and
/// k for the output of encoder layer k; the attention grids, best cells and start
/// layers count encoder layers and heads from 0 (attentiontree.h). The JSON, the
/// text, the tables and the dock number them as a person does, from 1 with the
/// embeddings named (core/base/numbering.h).

#include <array>
#include <cstddef>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/data/sentence.h"
#include "core/eval/inductioneval.h"
#include "core/probing/attentiontree.h"
#include "core/probing/probes.h"

namespace treelens {

/// `value` rounded to `digits` decimals as the report's JSON writes it: half
/// away from zero (std::round), −0 written as 0; NaN for a non-finite value
/// (JSON null). Rounding a rounded value again gives it back.
double reportRounded(double value, int digits);
/// A fraction as the JSON's percent: reportRounded(100 · fraction, 2).
double reportPercent(double fraction);

constexpr double kNoValue = std::numeric_limits<double>::quiet_NaN();

// ---------------------------------------------------------------------------
// Model, settings, data

struct ProbeRunModel {
    std::string path, name, family;
    int layers = 0;
    int heads = 0;
    int dModel = 0;
    long long parameters = 0;
    std::string device; ///< where it ran: "cpu", "cuda:0"
};

/// Training options of one kind of probe as the run used them.
struct ProbeTrainingSettings {
    int maxEpochs = 0;
    int patience = 0;
    double learningRate = 0.0;
    int batchSize = 0;
    int threads = 0;
};

/// The settings as resolved by the run (ProbeRunConfig's "auto" values decided).
struct ProbeRunSettings {
    std::vector<std::string> tasks;    ///< canonical order
    std::vector<int> layers;           ///< probed layers (0 = embeddings)
    std::vector<std::string> poolings; ///< "cls" and/or "mean"
    std::string probe;                 ///< mlp or linear
    unsigned seed = 1;
    unsigned splitSeed = 1;
    bool control = false;
    bool randomInit = false;
    bool rawAttention = false;
    std::string treeSource;            ///< auto, gold or parsed
    std::string tree;                  ///< resolved: "constituency" or "dependency"
    std::string treeReason;            ///< why that tree
    int depthMinCount = 10;
    std::string attentionOn;           ///< all or test
    std::string probeDevice;           ///< resolved
    ProbeTrainingSettings sentenceProbe;
    ProbeTrainingSettings structuralProbe;
    int structuralRank = 0;            ///< resolved (d_model for 0)
    std::string poolingNote;           ///< "" or why a pooling was left out
};

/// What the run read.
struct ProbeRunData {
    std::vector<std::string> trainFiles, devFiles, testFiles; ///< as configured (empty for in-memory corpora)
    bool oneCorpus = false;      ///< train alone, cut by the seeded split
    std::string split;           ///< "seeded 0.8/0.1/0.1 seed=S" or "given"
    std::size_t corpus = 0;      ///< oneCorpus: sentences of the corpus
    std::size_t train = 0, dev = 0, test = 0; ///< sentences per split
    std::string constituencyTrees, dependencyTrees; ///< where the trees came from, in words
    std::map<std::string, long> excluded;           ///< "<split>/<reason>" -> sentences
    long parseFailures = 0;                          ///< sentences the parser refused
    std::vector<std::string> parseFailureExamples;   ///< the first three
    bool noDev = false; ///< given splits without dev while probes train: no model selection
};

// ---------------------------------------------------------------------------
// Sentence probes

/// One pooling of one layer: the probe, and with the control task its control
/// probe and the selectivity (task − control: R² for SentLen, else accuracy points).
struct SentenceProbeCell {
    ProbeResult result;
    std::optional<ProbeResult> control;
    double selectivity = kNoValue;
};

struct SentenceProbeLayer {
    int layer = 0;                                 ///< 0 = embeddings
    std::map<std::string, SentenceProbeCell> pooling; ///< "cls", "mean"
    const SentenceProbeCell *find(const std::string &name) const;
};

/// Majority class (classification) or train mean (SentLen) on test.
struct SentenceProbeBaseline {
    double meanPrediction = kNoValue, meanMse = kNoValue, meanR2 = kNoValue;
    std::string majorityLabel;
    double majorityAccuracy = kNoValue, majorityMacroF1 = kNoValue; ///< fractions
};

struct SentenceProbeTask {
    std::string name;        ///< sentlen, sentlen-bins, treedepth, topconst
    bool regression = false; ///< SentLen
    std::vector<std::string> labels;
    std::string split;       ///< the dataset's split ("given" / "seeded ...")
    std::array<long, 3> examples{}; ///< train, dev, test
    std::array<std::vector<long>, 3> labelCounts; ///< classification: per split, per label
    std::map<std::string, long> excluded;
    std::string tree;        ///< "" or the tree the labels come from, with its provenance
    SentenceProbeBaseline baseline;
    std::vector<SentenceProbeLayer> layers;
    bool control = false;    ///< cells carry control and selectivity
    bool randomInit = false;
    unsigned randomInitSeed = 0;
    std::vector<SentenceProbeLayer> randomInitLayers; ///< no control
};

// ---------------------------------------------------------------------------
// Structural probes

struct StructuralProbeLayer {
    int layer = 0;
    StructuralProbeResult result; ///< testSentences moved to ProbeRunStructural
};

struct StructuralProbeTask {
    std::string name; ///< structural-distance, structural-depth
    StructuralProbeKind kind = StructuralProbeKind::Distance;
    std::array<long, 3> examples{}; ///< sentences with a valid tree: train, dev, test
    std::map<std::string, long> skipped;
    std::string dependencyTrees;
    std::string split;
    std::vector<StructuralProbeLayer> layers;
    bool randomInit = false;
    unsigned randomInitSeed = 0;
    std::vector<StructuralProbeLayer> randomInitLayers;
};

/// A structural probe's predictions on the test sentences, per probed layer, for
/// the viewer (gold vs predicted distance matrices / depths, gold and predicted
/// minimum spanning trees). Only the model's probes, not the random-init baseline.
struct ProbeRunStructural {
    StructuralProbeKind kind = StructuralProbeKind::Distance;
    int bestLayer = -1; ///< the layer the comparison picks (bestStructuralProbeLayer, core/probing/probecompare.h)
    /// The test sentences with a valid dependency tree, in the order of every
    /// layer's results; result.sentence indexes this vector.
    std::vector<Sentence> sentences;
    std::map<int, std::vector<StructuralSentenceResult>> byLayer; ///< layer (0 = embeddings) -> results
};

// ---------------------------------------------------------------------------
// Attention-tree agreement

/// What every attention task reports beside its grids.
struct AttentionTaskSummary {
    std::string scope;          ///< "whole corpus (...)" or "test split"
    std::string attention;      ///< which attention (after or before the constituent prior)
    std::size_t sentences = 0;  ///< scored
    std::map<std::string, long> excluded; ///< reason -> sentences (with "empty-sentence")
    /// constituent-mass, link-probs: the tree of the constituents ("constituency" /
    /// "dependency"); "" for head-accuracy and attention-mst (dependency trees).
    std::string tree;
    std::string trees;          ///< where those trees came from, in words
    /// constituent-mass (mass − baseline), attention-mst (UUAS): the best head,
    /// highest value, ties to the lower layer then head; layer −1 when no value is finite.
    BestCell best;
    /// The five worst sentences' ids of the best head (head-accuracy: the best
    /// dependent→head head of all relations); none without a best head.
    std::optional<std::vector<std::string>> worstSentences;
};

/// The attention analyses in memory: the grids and per-sentence lists of
/// attentiontree.h; `sentenceIds[task][i]` is the id of the sentence index i of
/// that task's report.
struct ProbeRunAttention {
    std::optional<HeadAccuracyReport> headAccuracy;
    std::optional<ConstituentMassReport> constituentMass;
    std::optional<UuasReport> attentionMst;
    std::optional<LinkProbabilityReport> linkProbs;
    std::map<std::string, std::vector<std::string>> sentenceIds; ///< task -> sentence ids
    std::map<std::string, AttentionTaskSummary> summaries;        ///< task -> summary
};

/// Unsupervised constituency parsing by the Tree Transformer's link
/// probabilities (task unsupervised-parsing): the eval-induction protocol over
/// the run's constituency trees (gold, or predicted where the input has none).
struct ProbeRunInduction {
    bool applicable = true; ///< false for a model without a constituent prior (then only baselines)
    std::string reason;     ///< why not applicable
    InductionReport report; ///< model, left/right-branching and random baselines, every start layer;
                            ///< each InductionScore::perSentence follows `sentenceIds`
    std::vector<std::string> sentenceIds;
    std::vector<std::vector<std::string>> words;                   ///< per sentence, punctuation removed
    std::vector<std::vector<std::pair<int, int>>> gold, predicted; ///< brackets per sentence (configured start layer)
    std::string scope;                        ///< "test split" / "whole corpus (...)"
    std::size_t sentences = 0;                ///< scored
    std::map<std::string, long> excluded;     ///< reason -> sentences
    std::string constituencyTrees;            ///< where the trees came from, in words
    /// Applicable: the five lowest sentence F1 (percent) at the configured start
    /// layer, ties in corpus order: (id, F1).
    std::vector<std::pair<std::string, double>> worstSentences;
};

// ---------------------------------------------------------------------------
// A run restricted to a construction

/// `probe --where P` (core/probing/runwhere.h): the pattern, what it found, and which arcs
/// head-accuracy scores.
struct ProbeRunWhere {
    std::string pattern;                 ///< as written
    std::string syntax;                  ///< "grew" or "tregex"
    std::size_t sentences = 0;           ///< the run's sentences, searched
    std::size_t sentencesMatched = 0;    ///< with an occurrence: the only sentences of the run from then on
    std::size_t occurrences = 0;
    std::size_t unsearched = 0;          ///< without the tree the pattern reads (left out)
    std::string trees;                   ///< the trees matched: "gold", "predicted" or "mixed"
    std::string parser;                  ///< the parser of the predicted ones ("" when none)
    /// Which arcs head-accuracy scores: "between bound words" (an arc whose head and
    /// dependent one occurrence binds) or "into bound words" (a pattern of one node: every
    /// arc whose dependent is bound).
    std::string arcs;
    long arcCount = 0;                   ///< such arcs in the matched sentences
    std::map<std::string, std::size_t> splits; ///< sentences kept per split: "corpus", or "train", "dev", "test"
};

// ---------------------------------------------------------------------------
// Timing and the report

/// Seconds (the only numbers that differ between two runs).
struct ProbeRunTiming {
    double total = 0.0;
    double loadAndTrees = 0.0;
    double parse = 0.0;
    double sentenceVectors = 0.0;
    std::map<std::string, double> train;     ///< sentence and structural task -> seconds
    std::map<std::string, double> attention; ///< "analysis" and attention task -> seconds
};

struct ProbeRunReport {
    std::string command;          ///< ProbeRunConfig::commandLine
    std::string treelensVersion;
    ProbeRunModel model;
    ProbeRunSettings settings;
    ProbeRunData data;
    std::vector<SentenceProbeTask> sentenceTasks;     ///< canonical order
    std::vector<StructuralProbeTask> structuralTasks; ///< canonical order
    ProbeRunAttention attention;
    std::map<std::string, ProbeRunStructural> structural; ///< "structural-distance" / "structural-depth" viewers
    std::optional<ProbeRunInduction> induction;            ///< task unsupervised-parsing
    std::optional<ProbeRunWhere> where;                    ///< `--where`: the run's restriction
    ProbeRunTiming timing;

    const SentenceProbeTask *sentenceTask(const std::string &name) const;
    const StructuralProbeTask *structuralTask(const std::string &name) const;
    /// Whether the report has the results of task `name` (any kind).
    bool hasTask(const std::string &name) const;
};

} // namespace treelens
