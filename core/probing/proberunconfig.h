#pragma once
/// \file proberunconfig.h
/// The configuration of one probing run (core/probing/proberun.h), filled alike
/// by `treelens-cli probe` and the GUI's Probing dock, and the parsing of its
/// task and layer lists. Torch-free.
///
/// Errors name the setting by its field here ("layers: layer 9: the model has 4
/// layers (1..4) ..."), never by a command-line flag: the CLI (app/cli/cmd_probe.cpp) puts
/// its flag names in where it reports them.

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/base/result.h"
#include "core/encoders/common/encodercache.h"
#include "core/data/sentence.h"
#include "core/probing/probes.h"

namespace treelens {

/// Task names in canonical order.
const std::vector<std::string> &probeRunSentenceTasks();   ///< sentlen, sentlen-bins, treedepth, topconst
const std::vector<std::string> &probeRunStructuralTasks(); ///< structural-distance, structural-depth
/// head-accuracy, constituent-mass, attention-mst, link-probs, unsupervised-parsing
const std::vector<std::string> &probeRunAttentionTasks();

/// A comma list of task names (aliases accepted) or "all", in canonical order.
/// Errors start with "tasks: ".
Result<std::vector<std::string>> parseProbeRunTasks(const std::string &text);

/// "all" or a comma list such as "embeddings,2,4" of the layers a person names
/// (core/base/numbering.h): "embeddings" and the encoder layers 1..layers; "0"
/// is the old spelling of embeddings. Returns the probed layers as the report
/// keeps them (0 = embeddings, k = the output of encoder layer k), sorted and
/// without repeats. Errors start with "layers: ".
Result<std::vector<int>> parseProbeRunLayers(const std::string &text, int layers);
/// A note when `text` uses an old spelling ("0" for the embeddings), else "".
std::string probeRunLayersNote(const std::string &text);

/// What a restriction's matcher says of a run's sentences (core/probing/runwhere.h).
struct ProbeWhereMatches {
    /// [sentence][occurrence][node]: the word (0-based) each pattern node binds, -1 for
    /// none (a Grew request's anchor node, a Tregex name left unbound); one entry per sentence.
    std::vector<std::vector<std::vector<int>>> occurrences;
    std::vector<bool> searched; ///< per sentence: false when it could not be searched (no tree)
    std::size_t predicted = 0;  ///< sentences searched on a tree predicted for the pattern
    std::string trees;          ///< "gold", "predicted" or "mixed": the trees the pattern was matched on
    std::string parser;         ///< the parser that predicted them ("" when none did)
};

/// A run restricted to a construction (`probe --where P`, issue 48; core/probing/runwhere.h).
/// Core knows no pattern language: the caller matches the pattern (app/cli/queryfilter.h).
struct ProbeRestriction {
    std::string pattern;  ///< as written (the report's where.pattern)
    std::string syntax;   ///< "grew" or "tregex"
    /// The pattern's nodes: with one, head-accuracy scores the arcs into the bound word; with
    /// more, the arcs whose two words an occurrence binds.
    std::size_t nodes = 0;
    /// The occurrences in each of `sentences` (in the run's order, once their input trees and
    /// head-rule dependency trees are there). Errors stop the run.
    std::function<Result<ProbeWhereMatches>(const std::vector<const Sentence *> &sentences)> match;
};

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
    std::string layers = "all";               ///< "all" or "embeddings,2,4" (see parseProbeRunLayers)
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
    bool keepRelationSubtypes = false;        ///< head-accuracy: nsubj:pass its own relation
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
    std::string precision = "fp32";          ///< encoder precision (DeviceConfig::precision)
    /// Where the model comes from when set: the app's shared cache (one loaded
    /// encoder per model file for every job); otherwise the run loads its own.
    EncoderCache *encoders = nullptr;
    std::string commandLine;                  ///< echoed as the report's "command"
    /// The probes' features from this file (`probe --features`, core/probing/runfeaturefile.h)
    /// instead of the encoders: the model is loaded for its description and the attention tasks.
    std::string featuresFile;
    /// Only the sentences with an occurrence of a pattern, and for head-accuracy only the arcs
    /// it binds (`probe --where`; core/probing/runwhere.h).
    std::optional<ProbeRestriction> where;

    /// The checks that need no model, in the order a run makes them: the task
    /// list, a dev split without a test split, the counts, the probes' options.
    Status validate() const;

    bool hasDevSplit() const { return !dev.empty() || !devSentences.empty(); }
    bool hasTestSplit() const { return !test.empty() || !testSentences.empty(); }
    bool runsControl() const { return control || baselines; }
    bool runsRandomInit() const { return randomInit || baselines; }
};

/// The sentence probes' and the structural probes' training options of a run
/// (one LibTorch thread each; probeDevice "auto" is taken as "cpu": runProbes
/// resolves it to the encoder's device first).
ProbeTrainOptions sentenceProbeOptions(const ProbeRunConfig &config);
StructuralProbeOptions structuralProbeOptions(const ProbeRunConfig &config);

} // namespace treelens
