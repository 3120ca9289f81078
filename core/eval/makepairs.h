#pragma once
/// \file makepairs.h
/// Minimal pairs made from a treebank's own trees (`treelens-cli make-pairs`), in the way
/// Linzen et al. 2016 made agreement tests from a parsed corpus: the good sentence is the
/// treebank's, the bad one the same words with one word put in the other number. The rules
/// are in docs/minimal-pairs.md. Torch-free, a pure function of the sentences.

#include <string>
#include <utility>
#include <vector>

#include "core/base/result.h"
#include "core/data/sentence.h"

namespace treelens {

/// The tree-defined tests make-pairs knows.
enum class PairPhenomenon {
    Agreement,   ///< "agreement": a finite present-tense verb (or was/were) and the subject the tree names
    Determiner,  ///< "determiner": this/these, that/those and the noun they determine
};

/// "agreement" or "determiner"; anything else is an error listing them.
Result<PairPhenomenon> parsePairPhenomenon(const std::string &name);
std::string pairPhenomenonName(PairPhenomenon p);

/// One made pair. Word numbers are 1-based, as in CoNLL-U.
struct MadePair {
    std::string sentenceId;
    std::vector<std::string> goodWords, badWords; ///< differ in exactly the word `changed`
    int changed = 0;      ///< the word put in the other number (the verb, or the determiner)
    int controller = 0;   ///< the word it agrees with (the subject, or the noun)
    int distance = 0;     ///< |changed - controller|
    std::vector<int> attractors; ///< nouns of the controller's other number between the two
    std::string goodNumber;      ///< "Sing" or "Plur": the controller's number
};

/// What one run made and what it skipped, by reason (docs/minimal-pairs.md lists them).
struct MadePairs {
    std::vector<MadePair> pairs;
    std::vector<std::pair<std::string, int>> skipped; ///< reason, count (in a fixed order)
};

/// The pairs of `phenomenon` in `sentences` (each needs its dependency tree; one without
/// is skipped and counted). The lexicon of -s forms (lemma -> third-person singular form,
/// lemma -> plural form) is learned from `sentences` themselves. With `from` (one flag per
/// sentence; `make-pairs --where`), pairs are made only from the flagged sentences, and only
/// they are counted in `skipped`; the lexicon is still learned from all of them.
MadePairs makePairs(const std::vector<Sentence> &sentences, PairPhenomenon phenomenon, const std::vector<bool> &from = {});

/// The BLiMP JSON record of a made pair (one line, no newline): sentence_good,
/// sentence_bad (words joined by single spaces), UID, field, linguistics_term, pairID
/// (the running number from 1), source (the sentence id), and TreeLens's subject/verb (or
/// noun/determiner) word numbers, distance and attractors.
std::string madePairJson(const MadePair &pair, PairPhenomenon phenomenon, int number);

} // namespace treelens
