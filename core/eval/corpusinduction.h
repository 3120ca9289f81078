#pragma once
/// \file corpusinduction.h
/// Induced-tree F1 of every sentence of a corpus (the corpus table of the app):
/// the encoder's induced brackets against the sentence's reference brackets —
/// its gold constituency spans, or without them the yield of every word with
/// dependents in its gold dependency tree (when contiguous) — scored by
/// scoreBrackets (inductioneval.h): unlabelled, single words and the whole
/// sentence left out. Against constituency trees the protocol is eval-induction's
/// (inductionGold): the punctuation is removed before the model reads the words,
/// so a sentence scores here what `treelens-cli eval-induction` gives it; against
/// dependency subtrees the words are the corpus's own. Torch-free.

#include <string>
#include <utility>
#include <vector>

#include "core/base/result.h"
#include "core/base/runcontrol.h"
#include "core/data/sentence.h"
#include "core/encoders/encoder.h"

namespace treelens {

struct CorpusSentenceScore {
    int words = 0;
    /// Unlabelled bracket F1 (percent) of the induced tree against the reference
    /// brackets; -1 when the sentence has no reference or was skipped.
    double f1 = -1.0;
    /// Mean link probability over the gaps at the top layer; -1 without a model output.
    double meanTopLink = -1.0;
};

struct CorpusInduction {
    std::vector<CorpusSentenceScore> rows; ///< one per corpus sentence, in order
    /// Where the reference brackets came from: "gold constituency" or
    /// "gold dependency subtrees" (the yield of every word with dependents).
    std::string reference;
    double meanF1 = -1.0;   ///< mean sentence F1 over scored sentences
    int scored = 0;
    double seconds = 0.0;
};

/// The reference brackets [start, end) of a sentence (see the file comment);
/// `fromConstituency` says which kind. Empty when it has neither tree.
std::vector<std::pair<int, int>> referenceBrackets(const Sentence &sentence, bool *fromConstituency);

/// Runs the encoder over the corpus in batches of 16 (sentences longer than the
/// model takes are skipped) and scores every sentence. Progress is reported as
/// (sentences done, total, "Analysing corpus"); cancellation returns an Error
/// "cancelled"; a model that induces no trees (EncoderOutputs::inducedTree) an Error.
Result<CorpusInduction> scoreCorpusInduction(Encoder &encoder, const std::vector<Sentence> &corpus,
                                             const RunControl *control = nullptr);

} // namespace treelens
