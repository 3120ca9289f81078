#pragma once
/// \file depparser.h
/// A graph-based biaffine dependency parser with a joint UPOS/XPOS tagger
/// (Dozat & Manning 2017, "Deep Biaffine Attention for Neural Dependency
/// Parsing"): words as a trained-from-scratch embedding plus a character CNN,
/// a multi-layer BiLSTM, biaffine arc scores over (dependent, head) pairs with
/// a ROOT token at position 0, a bilinear relation classifier, and MST
/// (Chu-Liu/Edmonds) or Eisner (projective) decoding so every output is a
/// well-formed single-rooted tree. Torch-free header; the network lives in
/// depparser.cpp.

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/base/result.h"
#include "core/base/runcontrol.h"
#include "core/data/sentence.h"

namespace treelens {

struct DepParserConfig {
    int wordDim = 100;        ///< word embedding size (lower-cased forms seen ≥ min count)
    int charDim = 32;         ///< character embedding size
    int charFilters = 100;    ///< character CNN filters (= the word's character vector size)
    int charKernel = 3;
    int maxWordChars = 24;    ///< longer words keep their first 12 and last 12 characters
    int lstmLayers = 3;
    int lstmHidden = 200;     ///< per direction
    int arcDim = 400;         ///< arc MLP size
    int relDim = 100;         ///< relation MLP size
    int tagDim = 0;           ///< tagger MLP size (0 = linear taggers on the BiLSTM states)
    double dropout = 0.33;    ///< on embeddings, between BiLSTM layers and in the MLPs
    double wordDropout = 0.25;///< probability of replacing a training word by [UNK]

    Status validate() const;
    std::string toJson() const;
    static Result<DepParserConfig> fromJson(const std::string &json);
};

struct DepParserRecipe {
    std::string name = "parser-dep-en-ewt";
    std::string train;        ///< CoNLL-U
    std::string dev;          ///< CoNLL-U, model selection by LAS
    std::string test;         ///< CoNLL-U, reported at the end only ("" = none)
    std::string output;       ///< final model (.safetensors)
    std::string checkpoint;   ///< rewritten atomically after every epoch
    std::string log;          ///< JSON-lines log ("" = none)
    DepParserConfig model;
    int epochs = 30;
    int batchWords = 3000;    ///< words per batch (sentences grouped by length)
    double lr = 2e-3;
    double beta1 = 0.9, beta2 = 0.9;
    double clipNorm = 5.0;
    double lrDecay = 0.75;    ///< multiply the learning rate by this every `decayEvery` epochs
    int decayEvery = 5;
    int patience = 10;        ///< stop after this many epochs without a better dev LAS
    int wordMinCount = 2;
    unsigned seed = 1;
    int threads = 0;          ///< 0 = all cores
    std::string storage = "f16"; ///< dtype of the final model file: f32, f16, bf16

    Status validate() const;
    /// Reads a recipe; relative paths are resolved against `baseDir`.
    static Result<DepParserRecipe> fromJson(const std::string &json, const std::string &baseDir);
    std::string toJson() const;
};

struct DepTrainProgress {
    int epoch = 0;
    int epochs = 0;
    int batch = 0;
    int batches = 0;
    double loss = 0.0;          ///< mean loss over the epoch so far
    double wordsPerSecond = 0.0;
    double elapsedSeconds = 0.0;
    double devUas = -1.0, devLas = -1.0, devUpos = -1.0; ///< after each epoch (-1 = not yet)
    double bestDevLas = -1.0;
    std::string message;
};

/// Trains (or resumes from a checkpoint written by this function) and writes
/// recipe.output from the epoch with the best dev LAS. Stops early, after a
/// checkpoint, when control->isCancelled().
Status trainDependencyParser(const DepParserRecipe &recipe, const std::string &resumeFrom,
                             const std::function<void(const DepTrainProgress &)> &onProgress,
                             const RunControl *control = nullptr);

/// A loaded dependency parser model (inference only). Not thread-safe.
class DependencyParserModel {
public:
    virtual ~DependencyParserModel() = default;
    /// Fills UPOS, XPOS, heads and relations of every sentence; tokens are kept.
    /// Sentences are batched by length internally.
    virtual Status parse(std::vector<Sentence> &sentences, bool projective = false,
                         const RunControl *control = nullptr) = 0;
    virtual std::string name() const = 0;
    virtual std::string configJson() const = 0;

    /// Loads a model file written by trainDependencyParser. Batches are parsed by `threads`
    /// worker threads with one LibTorch thread each (0 = one per core, at most 8).
    static Result<std::unique_ptr<DependencyParserModel>> load(const std::string &path, int threads = 0);
};

} // namespace treelens
