#pragma once
/// \file minimalpairs.h
/// Minimal pairs (a grammatical and an ungrammatical sentence that differ minimally), as
/// BLiMP (Warstadt et al. 2020) and Linzen et al. 2016 use them: the pair files, and the
/// accuracy a model reaches by giving the good sentence the higher log-probability, with
/// a Wilson 95 % interval per phenomenon. Torch-free; the scoring itself is the
/// encoder's (Analysis::logprob). docs/minimal-pairs.md.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/base/result.h"

namespace treelens {

/// One pair as a file gives it. Texts are kept as written; their words are the text split
/// at white space (a language model reads the text itself: joined again with single
/// spaces, the same string when the text has no runs of white space).
struct MinimalPair {
    std::string id;          ///< BLiMP's pairID, or the line number of a TSV
    std::string phenomenon;  ///< BLiMP's UID (else linguistics_term, field); a TSV's third column; "" when none
    std::string good, bad;   ///< sentence_good, sentence_bad
    int line = 0;            ///< 1-based line in its file
};

/// Reads BLiMP JSON Lines (one object a line with "sentence_good" and "sentence_bad";
/// "UID", "linguistics_term" or "field" names the phenomenon, "pairID" the pair) or a
/// TSV whose header is `good<TAB>bad[<TAB>phenomenon]` (which of the two: the first
/// non-empty character, '{' for JSON Lines). Any line that is not a pair is an error
/// "SOURCE:LINE: ..." and no pair is returned.
Result<std::vector<MinimalPair>> readMinimalPairs(const std::string &text, const std::string &source);
/// The same from a file (readFileLimited, checkedText).
Result<std::vector<MinimalPair>> readMinimalPairsFile(const std::string &path);

/// A sentence's words as minimal-pairs reads them: the text split at white space.
std::vector<std::string> pairWords(const std::string &text);

/// The first word (0-based) where the two word lists differ; nullopt when they are equal.
std::optional<int> firstDifference(const std::vector<std::string> &a, const std::vector<std::string> &b);

/// A proportion with its Wilson score interval (95 %, z = 1.96).
struct Proportion {
    int hits = 0, total = 0;
    double value = 0.0, low = 0.0, high = 0.0;
};
Proportion wilsonInterval(int hits, int total);

/// A whole run: accuracy over all pairs and per phenomenon, and the mean of
/// logprob(good) - logprob(bad).
struct PairSummary {
    Proportion accuracy;
    double meanMargin = 0.0;
    std::map<std::string, Proportion> byPhenomenon;
    std::map<std::string, double> marginByPhenomenon;
};
/// `correct[i]`, `margin[i]` and `phenomenon[i]` of pair i ("" counts as "(none)").
PairSummary summarizePairs(const std::vector<bool> &correct, const std::vector<double> &margin,
                           const std::vector<std::string> &phenomenon);

} // namespace treelens
