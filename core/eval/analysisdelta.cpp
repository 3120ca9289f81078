#include "core/eval/analysisdelta.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>
#include <utility>

namespace treelens {

namespace {

std::vector<HeadDelta> headDeltas(const std::vector<std::vector<Matrix>> &before, const std::vector<std::vector<Matrix>> &after)
{
    std::vector<HeadDelta> out;
    const std::size_t layers = std::min(before.size(), after.size());
    for (std::size_t l = 0; l < layers; ++l) {
        const std::size_t heads = std::min(before[l].size(), after[l].size());
        for (std::size_t h = 0; h < heads; ++h) {
            const Matrix &a = before[l][h], &b = after[l][h];
            if (a.rows != b.rows || a.cols != b.cols || a.data.empty())
                continue;
            HeadDelta d;
            d.layer = static_cast<int>(l);
            d.head = static_cast<int>(h);
            double sum = 0.0;
            for (int r = 0; r < a.rows; ++r)
                for (int c = 0; c < a.cols; ++c) {
                    const double change = static_cast<double>(b.at(r, c)) - a.at(r, c);
                    sum += std::abs(change);
                    if (d.row < 0 || std::abs(change) > d.maxAbs) {
                        d.maxAbs = std::abs(change);
                        d.row = r;
                        d.col = c;
                        d.change = change;
                    }
                }
            d.meanAbs = sum / static_cast<double>(a.data.size());
            out.push_back(d);
        }
    }
    return out;
}

} // namespace

double AnalysisDelta::largestAttentionChange() const
{
    double m = 0.0;
    for (const auto &d : attention)
        m = std::max(m, d.maxAbs);
    return m;
}

bool AnalysisDelta::changed(double tolerance) const
{
    if (labelBefore != labelAfter)
        return true;
    for (double p : probabilityChange)
        if (std::abs(p) > tolerance)
            return true;
    if (std::abs(scoreAfter - scoreBefore) > tolerance)
        return true;
    for (const auto *v : {&attention, &gates})
        for (const auto &d : *v)
            if (d.maxAbs > tolerance)
                return true;
    for (const auto &n : nodes)
        if (n.before != n.after || std::abs(n.normAfter - n.normBefore) > tolerance)
            return true;
    return false;
}

Matrix matrixDifference(const Matrix &before, const Matrix &after)
{
    if (before.rows != after.rows || before.cols != after.cols)
        return Matrix();
    Matrix d(before.rows, before.cols);
    for (std::size_t i = 0; i < d.data.size(); ++i)
        d.data[i] = after.data[i] - before.data[i];
    return d;
}

AnalysisDelta compareAnalyses(const Analysis &before, const Analysis &after)
{
    AnalysisDelta d;
    if (before.prediction && after.prediction) {
        const Prediction &p = *before.prediction, &q = *after.prediction;
        d.hasPrediction = true;
        d.labelBefore = p.label;
        d.labelAfter = q.label;
        d.scoreBefore = p.score;
        d.scoreAfter = q.score;
        d.labels = q.labels;
        if (p.probabilities.size() == q.probabilities.size())
            for (std::size_t k = 0; k < q.probabilities.size(); ++k)
                d.probabilityChange.push_back(static_cast<double>(q.probabilities[k]) - p.probabilities[k]);
    }
    d.attention = headDeltas(before.attention, after.attention);
    d.gates = headDeltas(before.relationGate, after.relationGate);
    // Recursive models' nodes, matched by span and head word (a node can be on one side only).
    std::map<std::tuple<int, int, int>, NodeDelta> bySpan; // (start, end, head word)
    for (int side = 0; side < 2; ++side)
        for (const NodeAttention &n : (side == 0 ? before : after).nodeAttention) {
            if (n.start < 0 || n.end <= n.start)
                continue;
            NodeDelta &nd = bySpan[{n.start, n.end, n.headWord}];
            nd.headWord = n.headWord;
            nd.start = n.start;
            nd.end = n.end;
            if (side == 0) {
                nd.before = true;
                nd.normBefore = n.norm;
                if (nd.label.empty())
                    nd.label = n.label;
            } else {
                nd.after = true;
                nd.normAfter = n.norm;
                nd.label = n.label;
            }
        }
    for (auto &[span, nd] : bySpan)
        d.nodes.push_back(std::move(nd));
    return d;
}

} // namespace treelens
