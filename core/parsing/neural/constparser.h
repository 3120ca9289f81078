#pragma once
/// \file constparser.h
/// A span-based chart constituency parser (Stern, Andreas & Klein 2017; Kitaev &
/// Klein 2018): words as a trained-from-scratch embedding, a character CNN and a
/// POS-tag embedding feed a BiLSTM over [START, w1..wn, STOP]; span (i, j) is
/// represented by the differences of the forward and backward states at its
/// fenceposts, [f_j − f_i ; b_{i+1} − b_{j+1}]; an MLP scores every label, the
/// empty label Ø fixed at 0 (scores are logits minus the Ø logit); training is
/// per-span cross-entropy over all spans; decoding is CKY (treedecoders.h) with
/// unary chains as joined labels ("S+VP"), so the output is always a tree.
/// POS tags come from outside: gold tags in training (randomly dropped), the
/// dependency parser's XPOS at run time (the "neural" backend). Torch-free header.

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/base/result.h"
#include "core/base/runcontrol.h"
#include "core/data/sentence.h"

namespace treelens {

struct ConstParserConfig {
    int wordDim = 100;
    int charDim = 32;
    int charFilters = 100;
    int charKernel = 3;
    int maxWordChars = 24;
    int tagDim = 50;
    int lstmLayers = 2;
    int lstmHidden = 200;      ///< per direction
    int labelHidden = 250;     ///< span label MLP size
    double dropout = 0.33;
    double wordDropout = 0.25; ///< training words replaced by [UNK]
    double tagDropout = 0.15;  ///< training tags replaced by [UNK] (run-time tags are predicted, not gold)

    Status validate() const;
    std::string toJson() const;
    static Result<ConstParserConfig> fromJson(const std::string &json);
};

struct ConstParserRecipe {
    std::string name = "parser-const-en-ptb";
    std::vector<std::string> train; ///< PTB .mrg files (traces and function tags are stripped)
    std::vector<std::string> dev;
    std::vector<std::string> test;  ///< reported at the end only
    /// Dependency parser model whose XPOS tags replace the gold tags of dev and
    /// test for the final report ("" = report with gold tags, and say so).
    std::string tagger;
    std::string output;
    std::string checkpoint;
    std::string log;
    ConstParserConfig model;
    int epochs = 40;
    int batchWords = 2000;
    double lr = 2e-3;
    double beta1 = 0.9, beta2 = 0.9;
    double clipNorm = 5.0;
    double lrDecay = 0.75;
    int decayEvery = 8;
    int patience = 10;
    int wordMinCount = 2;
    unsigned seed = 1;
    int threads = 0;
    std::string storage = "f16";

    Status validate() const;
    /// Paths relative to `baseDir`; "train"/"dev"/"test" may be a list of files or
    /// {"dir": D, "pattern": "wsj_%04d.mrg", "first": 1, "last": 159}.
    static Result<ConstParserRecipe> fromJson(const std::string &json, const std::string &baseDir);
    std::string toJson() const;
};

struct ConstTrainProgress {
    int epoch = 0;
    int epochs = 0;
    int batch = 0;
    int batches = 0;
    double loss = 0.0;
    double wordsPerSecond = 0.0;
    double elapsedSeconds = 0.0;
    double devF1 = -1.0;       ///< labelled F1 after each epoch
    double bestDevF1 = -1.0;
    std::string message;
};

Status trainConstituencyParser(const ConstParserRecipe &recipe, const std::string &resumeFrom,
                               const std::function<void(const ConstTrainProgress &)> &onProgress,
                               const RunControl *control = nullptr);

/// A loaded constituency parser (inference only). Not thread-safe.
class ConstituencyParserModel {
public:
    virtual ~ConstituencyParserModel() = default;
    /// Sets Sentence::constituency of every sentence from its tokens and their
    /// XPOS tags (which become the preterminals; empty tags are unknown).
    virtual Status parse(std::vector<Sentence> &sentences, const RunControl *control = nullptr) = 0;
    virtual std::string name() const = 0;

    /// Loads a model file written by trainConstituencyParser. Batches are parsed by
    /// `threads` worker threads with one LibTorch thread each (0 = one per core, at most 8).
    static Result<std::unique_ptr<ConstituencyParserModel>> load(const std::string &path, int threads = 0);
};

} // namespace treelens
