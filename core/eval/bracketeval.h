#pragma once
/// \file bracketeval.h
/// Labelled and unlabelled bracket precision/recall/F1 with the conventions of
/// evalb's COLLINS.prm: traces (-NONE-) removed, punctuation (the tags `` '' . : ,)
/// deleted before spans are computed, the unlabeled wrapper / ROOT / TOP node
/// not counted (the sentence-level constituent below it is, as in evalb),
/// preterminals not counted, ADVP and PRT equivalent, function tags stripped,
/// brackets matched as a multiset. Details in docs/evaluation.md.

#include <string>
#include <vector>

#include "core/base/result.h"
#include "core/data/sentence.h"

namespace treelens {

struct BracketCounts {
    long gold = 0;
    long predicted = 0;
    long matched = 0;
    double precision() const { return predicted ? 100.0 * static_cast<double>(matched) / static_cast<double>(predicted) : 0.0; }
    double recall() const { return gold ? 100.0 * static_cast<double>(matched) / static_cast<double>(gold) : 0.0; }
    double f1() const
    {
        const double p = precision(), r = recall();
        return p + r > 0 ? 2 * p * r / (p + r) : 0.0;
    }
};

struct BracketEvalOptions {
    bool ignorePunctuation = true;  ///< evalb DELETE_LABEL for punctuation tags
    bool countRoot = true;          ///< count the sentence-level constituent (evalb does)
    bool requireSameWords = true;   ///< error if word sequences differ
};

struct BracketEval {
    BracketCounts labeled;
    BracketCounts unlabeled;
    long sentences = 0;
    long exactLabeled = 0;
    std::vector<BracketCounts> perSentenceLabeled;
    std::vector<BracketCounts> perSentenceUnlabeled;
    /// Sentence-level average of unlabeled F1 (the unsupervised-parsing convention).
    double sentenceF1Unlabeled = 0.0;
};

/// Spans evaluated for one tree under the options (label "" in unlabeled mode).
std::vector<LabeledSpan> evalSpans(const ConstituencyTree &tree, bool labeled, const BracketEvalOptions &options = {});

BracketCounts compareTrees(const ConstituencyTree &gold, const ConstituencyTree &pred, bool labeled,
                           const BracketEvalOptions &options = {});

Result<BracketEval> evaluateBrackets(const std::vector<Sentence> &gold, const std::vector<Sentence> &pred,
                                     const BracketEvalOptions &options = {});

} // namespace treelens
