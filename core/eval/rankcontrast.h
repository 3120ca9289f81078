#pragma once
/// \file rankcontrast.h
/// Why one candidate outranks another (the pair workbench's "why this rank", issue 34):
/// two explanations (Encoder::explain) of the same question paired with two candidates,
/// and the difference of the two scores split exactly into what each part of the input
/// contributed. With IG's completeness f(x) = f(baseline) + Σ attributions − gap for each
/// pair,
///   f(top) − f(other) = [f_top(baseline) − f_other(baseline)]
///                     + [Σ question attributions, top − other]
///                     + [Σ top candidate's attributions] − [Σ other candidate's]
///                     − [gap_top − gap_other],
/// so the parts add up to the score difference (the gaps are what the attributions do not
/// account for). The question is the same words in both pairs: each question word's
/// difference says how much more it pushed the top candidate up than the other one.

#include <vector>

#include "core/base/result.h"
#include "core/encoders/explain.h"

namespace treelens {

struct RankContrast {
    double scoreTop = 0.0, scoreOther = 0.0;         ///< f(input) of each pair
    double baselineDifference = 0.0;                 ///< f_top(baseline) − f_other(baseline)
    double questionTop = 0.0, questionOther = 0.0;   ///< Σ over the question's tokens (its specials included)
    double candidateTop = 0.0, candidateOther = 0.0; ///< Σ over each candidate's tokens
    double gapTop = 0.0, gapOther = 0.0;             ///< each pair's completeness gap
    /// Per question word: its attribution in the top pair minus in the other.
    std::vector<double> questionWords;

    double scoreDifference() const { return scoreTop - scoreOther; }
    double questionDifference() const { return questionTop - questionOther; }
    double candidateDifference() const { return candidateTop - candidateOther; }
    /// baseline + question + candidate − gaps: equals scoreDifference() up to rounding.
    double sumOfParts() const { return baselineDifference + questionDifference() + candidateDifference() - (gapTop - gapOther); }
};

/// The contrast of two pair explanations of one question (two sides each, the same
/// question words, the same quantity and method). Errors name what differs.
Result<RankContrast> rankContrast(const Attribution &top, const Attribution &other);

} // namespace treelens
