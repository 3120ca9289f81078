#pragma once
/// \file morpheval.h
/// The CoNLL 2018 shared task's morphology metrics (conll18_ud_eval.py), per
/// word: UFeats compares only the universal features (PronType, NumType, Poss,
/// Reflex, Foreign, Abbr, Gender, Animacy, Number, Case, Definite, Degree,
/// VerbForm, Mood, Tense, Aspect, Voice, Evident, Polarity, Person, Polite) as
/// sets, so "Typo=Yes" or "ExtPos=ADP" never count and "_" equals a FEATS with
/// none of them; Lemmas is an exact match, except that a gold lemma "_" accepts
/// any predicted lemma. Word alignment is the caller's (identical tokens here;
/// raw text: core/eval/rawtexteval.h).

#include <string>
#include <vector>

#include "core/data/sentence.h"

namespace treelens {

/// The universal features of a FEATS value, sorted and joined with "|" ("" for none).
std::string universalFeatures(const std::string &feats);

/// Whether the predicted FEATS / LEMMA of an aligned word counts as correct.
bool ufeatsMatch(const std::string &gold, const std::string &predicted);
bool lemmaMatches(const std::string &gold, const std::string &predicted);

/// Correct words of each column over `words` aligned words.
struct MorphCounts {
    long long words = 0;
    long long upos = 0;
    long long ufeats = 0;
    long long lemmas = 0;
    double accuracy(long long correct) const
    {
        return words ? static_cast<double>(correct) / static_cast<double>(words) : 0.0;
    }
};

/// Scores `predicted` against `gold` sentence by sentence, word by word (same
/// tokenization: sentences or words that differ in number are skipped).
MorphCounts scoreMorphology(const std::vector<Sentence> &gold, const std::vector<Sentence> &predicted);

} // namespace treelens
