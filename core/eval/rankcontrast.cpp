// Why one candidate outranks another: the score difference split by parts (see rankcontrast.h).
#include "core/eval/rankcontrast.h"

#include <cmath>
#include <numeric>

namespace treelens {

namespace {

double sum(const std::vector<double> &v) { return std::accumulate(v.begin(), v.end(), 0.0); }

} // namespace

Result<RankContrast> rankContrast(const Attribution &top, const Attribution &other)
{
    if (top.sides.size() != 2 || other.sides.size() != 2)
        return Error{"a rank contrast needs two pair explanations (a question and its candidate in each)"};
    if (top.quantity != other.quantity || top.method != other.method)
        return Error{"the two explanations differ in what they explain (" + top.method + " of " + top.quantity + " against " +
                     other.method + " of " + other.quantity + ")"};
    if (std::isnan(top.fInput) || std::isnan(top.fBaseline) || std::isnan(other.fInput) || std::isnan(other.fBaseline))
        return Error{"a rank contrast needs gradient attributions (f(input) and f(baseline)), not " + top.method};
    const SideAttribution &qt = top.sides[0], &qo = other.sides[0];
    if (qt.words != qo.words)
        return Error{"the two pairs have different questions"};
    RankContrast c;
    c.scoreTop = top.fInput;
    c.scoreOther = other.fInput;
    c.baselineDifference = top.fBaseline - other.fBaseline;
    c.questionTop = sum(qt.token);
    c.questionOther = sum(qo.token);
    c.candidateTop = sum(top.sides[1].token);
    c.candidateOther = sum(other.sides[1].token);
    c.gapTop = top.completenessGap();
    c.gapOther = other.completenessGap();
    for (std::size_t k = 0; k < qt.word.size() && k < qo.word.size(); ++k)
        c.questionWords.push_back(qt.word[k] - qo.word[k]);
    return c;
}

} // namespace treelens
