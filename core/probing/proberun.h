#pragma once
/// \file proberun.h
/// One probing run over a corpus (TreeLens issue 6), as `treelens-cli probe` and
/// the GUI probing panel run it: reads the corpora (or takes sentences), resolves
/// and predicts the trees the tasks need, extracts features per layer, trains the
/// sentence probes (MLP / linear, control task, random-init baseline) and the
/// structural probes, and scores the attention against the gold trees
/// (core/probing/{probetasks,probes,attentiontree}.h). Seeded: two runs with the
/// same configuration on one machine give the same numbers; the report's JSON is
/// byte-identical apart from its "timing" object. Torch-free header.

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/base/result.h"
#include "core/base/runcontrol.h"
#include "core/data/sentence.h"
#include "core/eval/inductioneval.h"
#include "core/probing/attentiontree.h"
#include "core/probing/probes.h"

namespace treelens {

/// Task names in canonical order.
const std::vector<std::string> &probeRunSentenceTasks();   ///< sentlen, sentlen-bins, treedepth, topconst
const std::vector<std::string> &probeRunStructuralTasks(); ///< structural-distance, structural-depth
/// head-accuracy, constituent-mass, attention-mst, link-probs, unsupervised-parsing
const std::vector<std::string> &probeRunAttentionTasks();

/// A comma list of task names (aliases accepted) or "all", in canonical order.
Result<std::vector<std::string>> parseProbeRunTasks(const std::string &text);

/// Everything a run needs; the defaults are those of `treelens-cli probe`.
struct ProbeRunConfig {
    std::string tasks;                        ///< comma list or "all" (see parseProbeRunTasks)
    std::string model;                        ///< model file; "" = the shipped default model
    /// Corpus files (CoNLL-U, PTB, TreeLens JSON). train alone: cut 0.8/0.1/0.1 by
    /// splitSeed; dev needs test.
    std::vector<std::string> train, dev, test;
    std::string from;                         ///< format of every file ("" = from the extension)
    /// In-memory corpora, used for a split whose file list is empty (the GUI's open
    /// document); same rules as the files.
    std::vector<Sentence> trainSentences, devSentences, testSentences;
    std::string layers = "all";               ///< "all" or "0,2,4" (0 = embeddings)
    std::string pooling = "both";             ///< cls, mean or both
    std::string probe = "mlp";                ///< mlp or linear
    int rank = 0;                             ///< structural probes: rank of B (0 = d_model)
    unsigned seed = 1;                        ///< probes, control task, random-init encoder
    unsigned splitSeed = 1;
    int epochs = 0;                           ///< 0 = each probe's default
    int patience = -1;                        ///< -1 = each probe's default
    double lr = 0.0;                          ///< 0 = each probe's default
    int batch = 0;                            ///< 0 = each probe's default
    bool control = false;                     ///< control task + selectivity
    bool baselines = false;                   ///< control and randomInit
    bool randomInit = false;                  ///< also probe a random-weight encoder
    bool rawAttention = false;                ///< attention before the constituent prior
    std::string treeSource = "auto";          ///< auto, gold or parsed
    std::string tree = "auto";                ///< auto, constituency or dependency
    int depthMinCount = 10;
    std::string attentionOn = "all";          ///< all or test
    std::string constParserModel;             ///< "" = shipped
    std::string depParserModel;               ///< "" = shipped
    std::string device = "auto";              ///< encoder device
    /// Where the probes train: "auto" = the encoder's device (the GPU when the
    /// encoder runs there), "cpu", "cuda" or "cuda:N".
    std::string probeDevice = "auto";
    int threads = 0;                          ///< encoder CPU threads (0 = LibTorch's default)
    int encoderBatch = 32;
    std::string commandLine;                  ///< echoed as the report's "command"
};

/// One epoch of one probe, for live learning curves.
struct ProbeCurvePoint {
    std::string task;    ///< e.g. "treedepth", "structural-distance"
    std::string variant; ///< "" (the model), "control" or "random-init"
    int layer = 0;
    std::string pooling; ///< "cls" / "mean"; "" for structural probes
    int epoch = 0;       ///< 1-based
    double trainLoss = 0.0;
    double devLoss = 0.0;   ///< NaN without dev
    double devMetric = 0.0; ///< accuracy / MSE (sentence), UUAS / root accuracy (structural); NaN without dev
};

struct ProbeRunCallbacks {
    /// Progress lines (what the CLI prints to stderr after "probe: ").
    std::function<void(const std::string &line)> progress;
    /// Once per epoch of every probe trained.
    std::function<void(const ProbeCurvePoint &point)> curve;
    /// Once per task, when its results (all variants) are complete.
    std::function<void(const std::string &task)> taskFinished;
};

/// The attention analyses in memory: the grids and per-sentence lists of
/// attentiontree.h; `...Ids[i]` is the id of the sentence index i of the report.
struct ProbeRunAttention {
    std::optional<HeadAccuracyReport> headAccuracy;
    std::optional<ConstituentMassReport> constituentMass;
    std::optional<UuasReport> attentionMst;
    std::optional<LinkProbabilityReport> linkProbs;
    std::map<std::string, std::vector<std::string>> sentenceIds; ///< task -> sentence ids
};

/// A structural probe's predictions on the test sentences, per probed layer, for
/// the viewer (gold vs predicted distance matrices / depths, gold and predicted
/// minimum spanning trees). Only the model's probes, not the random-init baseline.
struct ProbeRunStructural {
    StructuralProbeKind kind = StructuralProbeKind::Distance;
    int bestLayer = -1; ///< the layer the report's summary picks (lowest dev loss, as scripts/probing_tables.py)
    /// The test sentences with a valid dependency tree, in the order of every
    /// layer's results; result.sentence indexes this vector.
    std::vector<Sentence> sentences;
    std::map<int, std::vector<StructuralSentenceResult>> byLayer; ///< layer (0 = embeddings) -> results
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
};

struct ProbeRunReport {
    std::string json;          ///< what `probe --json` prints (one line, no newline)
    std::string text;          ///< what `probe` prints
    ProbeRunAttention attention;
    std::map<std::string, ProbeRunStructural> structural; ///< "structural-distance" / "structural-depth"
    std::optional<ProbeRunInduction> induction;            ///< task unsupervised-parsing
};

/// Runs the configured tasks. Errors carry the CLI's messages; `control` can
/// cancel between units of work.
Result<ProbeRunReport> runProbes(const ProbeRunConfig &config, const ProbeRunCallbacks &callbacks = {},
                                 const RunControl *control = nullptr);

} // namespace treelens
