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
#include "core/parsing/neural/parserencoderconfig.h"
#include "core/training/trainerfamily.h"

namespace treelens {

struct DepParserConfig : ParserEncoderConfig {
    DepParserConfig() { lstmLayers = 3; }
    int arcDim = 400;         ///< arc MLP size
    int relDim = 100;         ///< relation MLP size
    int tagDim = 0;           ///< tagger MLP size (0 = linear taggers on the BiLSTM states)

    Status validate() const;
    std::string toJson() const;
    static Result<DepParserConfig> fromJson(const std::string &json);
};

/// The dependency parser's trainer (family "dependency-parser"): data train/dev
/// (CoNLL-U, one file each; test optional, reported at the end), model
/// DepParserConfig, options {"word_min_count"}; dev LAS (greedy heads) selects
/// the model; the final report parses dev and test with MST and Eisner decoding
/// and stores the scores in the model file. Register: core/registry/trainers.cpp.
training::TrainerFamily dependencyParserTrainer();

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

    /// Loads a model file written by the dependency parser's trainer. Batches are parsed by `threads`
    /// worker threads with one LibTorch thread each (0 = one per core, at most 8).
    static Result<std::unique_ptr<DependencyParserModel>> load(const std::string &path, int threads = 0);
};

} // namespace treelens
