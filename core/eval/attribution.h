#pragma once
/// \file attribution.h
/// Attributions on words and subtrees (issue 34), plain C++: attention rollout from an
/// analysis, and the sums of word attributions over the subtrees of a sentence's trees.
/// The gradient methods are the families' (Encoder::explain, core/encoders/explain.h).

#include <string>
#include <vector>

#include "core/base/result.h"
#include "core/data/analysis.h"
#include "core/data/sentence.h"
#include "core/encoders/explain.h"

namespace treelens {

/// Attention rollout (Abnar & Zuidema 2020) over Analysis::attention: per layer the
/// mean over its heads mixed with the identity for the residual, Â = ½A + ½I with each
/// row renormalised, multiplied from the first layer up, R = Â_L ⋯ Â_1; the relevance
/// of token j is R[0][j] for a model that reads its prediction at a [root]/[CLS] token
/// (`clsToken`), else the mean of R's rows over the words. A propagation of attention,
/// not a gradient: it says which tokens the prediction's token drew on, not in which
/// direction; its values are >= 0 and sum to 1 over the tokens. A pair analysis: each
/// side's attention within its sentence (one side each). Errors without attention.
Result<Attribution> attentionRollout(const Analysis &analysis, bool clsToken);

/// How rollout's word values come from a word-piece model's pieces, in words, when some word
/// has more than one piece (SideAttribution::pieces); "" otherwise.
std::string rolloutWordRule(const SideAttribution &side);

/// One subtree's attribution: the sum over its words.
struct SubtreeAttribution {
    std::string kind;          ///< "dependency" (a word and all its dependents) or "constituent"
    std::string label;         ///< the head word's relation, or the phrase label
    int head = -1;             ///< dependency: the head word (0-based)
    int start = 0, end = 0;    ///< the words' extent [start, end) (a non-projective subtree has gaps)
    std::vector<int> words;    ///< 0-based, in order
    double attribution = 0.0;
    /// Its words are all the sentence's words (the dependency root's subtree, the top
    /// constituent): the sum over the whole sentence, no subtree to rank.
    bool wholeSentence = false;

    /// The attribution per word (the mean over its words): a ranking by it does not
    /// favour long subtrees as the sum does.
    double perWord() const { return words.empty() ? 0.0 : attribution / static_cast<double>(words.size()); }
};

/// Every dependency subtree of two words or more (each word with dependents: the word and
/// its descendants) and every constituent of two words or more (phrases, the whole sentence
/// included), each with the sum of `wordAttribution` over its words. The trees the sentence
/// has (gold, parsed or edited); word counts must match (errors otherwise).
Result<std::vector<SubtreeAttribution>> subtreeAttributions(const Sentence &sentence, const std::vector<double> &wordAttribution);

/// Subtrees to rank (issue 47): the whole sentence apart — every unit whose words are the
/// whole sentence (the dependency root's subtree, the top constituent) is one sum, not a
/// subtree — and the rest with units of the same words merged into one (the dependency
/// subtree `nsubj` and the constituent `NP` over the same words: kind "dependency +
/// constituent", label "nsubj / NP"), in the order given (a caller sorts, by the sum or
/// by perWord()).
struct RankedSubtrees {
    bool hasWholeSentence = false;
    double wholeSentence = 0.0;           ///< the sum over all words
    std::vector<std::string> wholeNames;  ///< "dependency root", "constituent S"
    std::vector<SubtreeAttribution> subtrees;
};
RankedSubtrees rankedSubtrees(const std::vector<SubtreeAttribution> &subtrees);

/// The units a ranked list shows: every word (kind "word", its one word) and then the
/// subtrees of rankedSubtrees() over subtreeAttributions() (the whole sentence left out,
/// units of the same words merged; none when the sentence's trees do not cover the words),
/// each with its attribution, in that order (a caller sorts; lists of the same sentence
/// line up unit by unit).
std::vector<SubtreeAttribution> unitAttributions(const Sentence &sentence, const std::vector<double> &wordAttribution);

} // namespace treelens
