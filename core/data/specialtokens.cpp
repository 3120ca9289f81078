#include "core/data/specialtokens.h"

#include <algorithm>
#include <utility>
#include <vector>

namespace treelens {

namespace {

/// The units a word maps to, in order.
std::vector<int> keptUnits(const Analysis &a)
{
    std::vector<int> keep = a.wordToken;
    std::sort(keep.begin(), keep.end());
    keep.erase(std::unique(keep.begin(), keep.end()), keep.end());
    keep.erase(std::remove_if(keep.begin(), keep.end(), [&](int u) { return u < 0 || u >= static_cast<int>(a.tokens.size()); }),
               keep.end());
    return keep;
}

Matrix keepRowsAndColumns(const Matrix &m, const std::vector<int> &keep)
{
    const int n = static_cast<int>(keep.size());
    Matrix out(n, n);
    for (int r = 0; r < n; ++r)
        for (int c = 0; c < n; ++c)
            if (keep[static_cast<std::size_t>(r)] < m.rows && keep[static_cast<std::size_t>(c)] < m.cols)
                out.at(r, c) = m.at(keep[static_cast<std::size_t>(r)], keep[static_cast<std::size_t>(c)]);
    return out;
}

Matrix keepRows(const Matrix &m, const std::vector<int> &keep)
{
    Matrix out(static_cast<int>(keep.size()), m.cols);
    for (std::size_t r = 0; r < keep.size(); ++r)
        if (keep[r] < m.rows)
            std::copy_n(m.data.begin() + static_cast<std::ptrdiff_t>(keep[r]) * m.cols, m.cols,
                        out.data.begin() + static_cast<std::ptrdiff_t>(r) * m.cols);
    return out;
}

} // namespace

bool hasFoldableSpecialTokens(const Analysis &a)
{
    return !a.pieces.empty() && keptUnits(a).size() < a.tokens.size();
}

Analysis foldSpecialTokens(const Analysis &a)
{
    Analysis out = a;
    for (auto &side : out.second)
        side = foldSpecialTokens(side);
    if (!hasFoldableSpecialTokens(a))
        return out;
    const std::vector<int> keep = keptUnits(a);
    std::vector<int> newIndex(a.tokens.size(), -1);
    for (std::size_t i = 0; i < keep.size(); ++i)
        newIndex[static_cast<std::size_t>(keep[i])] = static_cast<int>(i);
    out.tokens.clear();
    for (int u : keep)
        out.tokens.push_back(a.tokens[static_cast<std::size_t>(u)]);
    for (int &t : out.wordToken)
        t = t >= 0 && t < static_cast<int>(newIndex.size()) ? newIndex[static_cast<std::size_t>(t)] : -1;
    for (int &t : out.pieceToken)
        t = t >= 0 && t < static_cast<int>(newIndex.size()) ? newIndex[static_cast<std::size_t>(t)] : -1;
    for (auto &heads : out.attention)
        for (auto &m : heads)
            m = keepRowsAndColumns(m, keep);
    for (auto &m : out.layerStates)
        m = keepRows(m, keep);
    return out;
}

} // namespace treelens
