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
#include "core/parsing/neural/parserencoderconfig.h"
#include "core/training/trainerfamily.h"

namespace treelens {

struct ConstParserConfig : ParserEncoderConfig {
    int tagDim = 50;
    int labelHidden = 250;     ///< span label MLP size
    double tagDropout = 0.15;  ///< training tags replaced by [UNK] (run-time tags are predicted, not gold)

    Status validate() const;
    std::string toJson() const;
    static Result<ConstParserConfig> fromJson(const std::string &json);
};

/// The constituency parser's trainer (family "constituency-parser"): data
/// train/dev/test (PTB .mrg file lists; traces and function tags stripped; the
/// WSJ test range 0180-0199 is refused as training data) and "tagger" (a
/// dependency model whose XPOS replace the gold tags in the final report; ""
/// = gold tags only), model ConstParserConfig, options {"word_min_count"};
/// dev labelled F1 selects the model. Register: core/registry/trainers.cpp.
training::TrainerFamily constituencyParserTrainer();

/// A loaded constituency parser (inference only). Not thread-safe.
class ConstituencyParserModel {
public:
    virtual ~ConstituencyParserModel() = default;
    /// Sets Sentence::constituency of every sentence from its tokens and their
    /// XPOS tags (which become the preterminals; empty tags are unknown).
    virtual Status parse(std::vector<Sentence> &sentences, const RunControl *control = nullptr) = 0;
    virtual std::string name() const = 0;

    /// Loads a model file written by the constituency parser's trainer. Batches are parsed by
    /// `threads` worker threads with one LibTorch thread each (0 = one per core, at most 8).
    static Result<std::unique_ptr<ConstituencyParserModel>> load(const std::string &path, int threads = 0);
};

} // namespace treelens
