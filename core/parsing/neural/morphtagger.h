#pragma once
/// \file morphtagger.h
/// A morphological tagger beside the parsers (as UDPipe has one): predicts each
/// word's LEMMA and FEATS from the words of a tokenized sentence. Words are a
/// trained-from-scratch embedding plus a character CNN over the word framed by
/// begin/end markers (so suffixes are seen as suffixes), into a BiLSTM;
/// classifiers on its states predict FEATS as one class per whole FEATS string
/// seen in training, the lemma as a lemma rule (core/parsing/lemmarules.h; the
/// best-scoring rule that applies to the form wins, the lower-cased form when
/// none of the top few does) and UPOS as an auxiliary task (not written out).
/// A form seen in training with an (almost) unambiguous lemma takes that lemma
/// from the training lexicon stored in the model file instead.
/// Torch-free header; the network lives in morphtagger.cpp.

#include <memory>
#include <string>
#include <vector>

#include "core/base/result.h"
#include "core/base/runcontrol.h"
#include "core/data/sentence.h"
#include "core/parsing/neural/parserencoderconfig.h"
#include "core/training/trainerfamily.h"

namespace treelens {

struct MorphTaggerConfig : ParserEncoderConfig {
    MorphTaggerConfig()
    {
        lstmLayers = 2;
        lstmHidden = 200;
        charFilters = 150;
    }
    int lemmaRulesMinCount = 1; ///< rules seen fewer times in training are not classes
    /// The training lexicon: a form seen in training whose most frequent lemma has at
    /// least this share of its occurrences gets that lemma instead of a rule's (0 = none).
    double lexiconMinShare = 0.9;

    Status validate() const;
    std::string toJson() const;
    static Result<MorphTaggerConfig> fromJson(const std::string &json);
};

/// The tagger's trainer (family "morph-tagger"): data train/dev (CoNLL-U with
/// LEMMA and FEATS, one file each; test optional, reported at the end), model
/// MorphTaggerConfig, options {"word_min_count"}; the dev mean of UFeats and
/// Lemmas accuracy (CoNLL 2018 definitions, core/eval/morpheval.h) selects the
/// model; the final scores on dev and test are stored in the model file.
/// Register: core/registry/trainers.cpp.
training::TrainerFamily morphTaggerTrainer();

/// A loaded morphological tagger (inference only). Not thread-safe.
class MorphTaggerModel {
public:
    virtual ~MorphTaggerModel() = default;
    /// Sets LEMMA and FEATS of every token; everything else is kept.
    virtual Status tag(std::vector<Sentence> &sentences, const RunControl *control = nullptr) = 0;
    virtual std::string name() const = 0;
    virtual std::string configJson() const = 0;

    /// Loads a model file written by the tagger's trainer; batches run on `threads`
    /// worker threads with one LibTorch thread each (0 = one per core, at most 8).
    static Result<std::unique_ptr<MorphTaggerModel>> load(const std::string &path, int threads = 0);
};

} // namespace treelens
