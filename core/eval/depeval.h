#pragma once
/// \file depeval.h
/// Attachment scores (UAS/LAS) over aligned gold and predicted sentences with the
/// same tokens. LAS compares the universal part of the relation ("nmod:poss" ->
/// "nmod"), as the CoNLL 2018 scorer does. "No punctuation" excludes gold tokens
/// whose UPOS is PUNCT (or, without UPOS, whose XPOS is a PTB punctuation tag).

#include <string>
#include <vector>

#include "core/base/result.h"
#include "core/data/sentence.h"

namespace treelens {

struct AttachmentScore {
    long tokens = 0;
    long headCorrect = 0;
    long labelCorrect = 0; ///< head and relation both right
    double uas() const { return tokens ? 100.0 * static_cast<double>(headCorrect) / static_cast<double>(tokens) : 0.0; }
    double las() const { return tokens ? 100.0 * static_cast<double>(labelCorrect) / static_cast<double>(tokens) : 0.0; }
};

struct DependencyEval {
    AttachmentScore all;       ///< punctuation included
    AttachmentScore noPunct;   ///< punctuation excluded
    long sentences = 0;
    long exactUnlabeled = 0;   ///< sentences with every head right
    /// Tagging accuracy over tokens whose gold tag is set ("" and "_" are unset):
    /// counts of scored tokens and of predicted tags equal to gold.
    long uposTokens = 0, uposCorrect = 0;
    long xposTokens = 0, xposCorrect = 0;
    std::vector<AttachmentScore> perSentence; ///< punctuation included
};

bool isPunctuation(const Token &token);

/// The universal part of a dependency relation: "nmod:poss" -> "nmod".
std::string universalRelation(const std::string &rel);

/// Errors when sentence counts differ, a sentence lacks a tree, or tokens differ
/// (the message names the sentence and token).
Result<DependencyEval> evaluateDependencies(const std::vector<Sentence> &gold, const std::vector<Sentence> &pred);

} // namespace treelens
