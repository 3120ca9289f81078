// Statistics over the occurrences of a tree pattern (querystat.h; docs/query.md,
// "Statistics").
#include "core/query/querystat.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace treelens {

MeanCi MeanAccumulator::result() const
{
    MeanCi r;
    r.n = n;
    if (n == 0)
        return r;
    r.mean = sum / static_cast<double>(n);
    double half = 0.0;
    if (n >= 2) {
        const double var = std::max(0.0, (sumSq - sum * sum / static_cast<double>(n)) / static_cast<double>(n - 1));
        half = 1.96 * std::sqrt(var / static_cast<double>(n));
    }
    r.ci95 = {r.mean - half, r.mean + half};
    return r;
}

AttentionStatAccumulator::AttentionStatAccumulator(std::string from, std::string to, bool keepValues) : m_keep(keepValues)
{
    m_stat.from = std::move(from);
    m_stat.to = std::move(to);
}

Result<bool> AttentionStatAccumulator::add(const Analysis &a, int fromWord, int toWord)
{
    const int words = static_cast<int>(a.words.empty() ? a.tokens.size() : a.words.size());
    if (a.attention.empty() || fromWord < 1 || toWord < 1 || fromWord > words || toWord > words) {
        ++m_stat.skipped;
        return false;
    }
    const int layers = static_cast<int>(a.attention.size());
    const int heads = static_cast<int>(a.attention.front().size());
    if (m_cells.empty()) {
        m_stat.layers = layers;
        m_stat.heads = heads;
        m_stat.causal = a.causalAttention;
        m_cells.resize(static_cast<std::size_t>(layers * heads));
    } else if (layers != m_stat.layers || heads != m_stat.heads) {
        return Error{"the analyses have " + std::to_string(layers) + "×" + std::to_string(heads) + " attention heads, earlier ones "
                     + std::to_string(m_stat.layers) + "×" + std::to_string(m_stat.heads)};
    }
    auto tokenOf = [&](int word) { // 1-based word -> row/column of the matrices
        const auto i = static_cast<std::size_t>(word - 1);
        return i < a.wordToken.size() ? a.wordToken[i] : word - 1;
    };
    const int from = tokenOf(fromWord);
    auto cell = [&](int l, int h, int token) -> std::optional<float> {
        const Matrix &m = a.attention[static_cast<std::size_t>(l)][static_cast<std::size_t>(h)];
        if (from < 0 || token < 0 || from >= m.rows || token >= m.cols)
            return std::nullopt;
        return m.at(from, token);
    };
    const int to = tokenOf(toWord);
    std::vector<float> values(static_cast<std::size_t>(layers * heads));
    for (int l = 0; l < layers; ++l)
        for (int h = 0; h < heads; ++h) {
            const auto v = cell(l, h, to);
            if (!v) {
                ++m_stat.skipped;
                return false;
            }
            values[static_cast<std::size_t>(l * heads + h)] = *v;
        }
    for (std::size_t k = 0; k < values.size(); ++k)
        m_cells[k].add(values[k]);
    ++m_stat.occurrences;
    if (toWord > fromWord)
        ++m_stat.later;
    ++m_offsetHits[toWord - fromWord];
    // Every offset's attention, for the baseline (chosen once all occurrences are in).
    for (int off = -kMaxOffset; off <= kMaxOffset; ++off) {
        const int w = fromWord + off;
        if (off == 0 || w < 1 || w > words)
            continue;
        auto &acc = m_offsets[off];
        if (acc.empty())
            acc.resize(static_cast<std::size_t>(layers * heads));
        for (int l = 0; l < layers; ++l)
            for (int h = 0; h < heads; ++h)
                if (const auto v = cell(l, h, tokenOf(w)))
                    acc[static_cast<std::size_t>(l * heads + h)].add(*v);
    }
    if (m_keep)
        m_stat.values.push_back(std::move(values));
    return true;
}

AttentionStat AttentionStatAccumulator::result() const
{
    AttentionStat r = m_stat;
    auto grid = [&](const std::vector<MeanAccumulator> &acc) {
        std::vector<std::vector<MeanCi>> g(static_cast<std::size_t>(r.layers), std::vector<MeanCi>(static_cast<std::size_t>(r.heads)));
        for (int l = 0; l < r.layers; ++l)
            for (int h = 0; h < r.heads; ++h)
                g[static_cast<std::size_t>(l)][static_cast<std::size_t>(h)] = acc[static_cast<std::size_t>(l * r.heads + h)].result();
        return g;
    };
    if (m_cells.empty())
        return r;
    r.cells = grid(m_cells);
    // The best fixed offset: the one that locates the `to` word most often (ties: the
    // smaller distance, then the earlier word).
    int best = 0;
    std::size_t bestHits = 0;
    for (const auto &[off, hits] : m_offsetHits) {
        if (off == 0 || std::abs(off) > kMaxOffset)
            continue;
        if (hits > bestHits || (hits == bestHits && (std::abs(off) < std::abs(best) || (std::abs(off) == std::abs(best) && off < best))))
            best = off, bestHits = hits;
    }
    if (bestHits == 0)
        return r;
    r.baseline.offset = best;
    r.baseline.hits = bestHits;
    const auto it = m_offsets.find(best);
    if (it != m_offsets.end()) {
        r.baseline.cells = grid(it->second);
        r.baseline.occurrences = it->second.front().n;
    }
    return r;
}

Result<MatchMeasure> MatchMeasure::parse(std::string_view text, const std::vector<std::string> &names)
{
    MatchMeasure m;
    m.m_text = std::string(text);
    std::string t;
    for (char c : text)
        if (c != ' ' && c != '\t')
            t += c;
    auto nodeIndex = [&](const std::string &name) -> int {
        const auto it = std::find(names.begin(), names.end(), name);
        return it == names.end() ? -1 : static_cast<int>(it - names.begin());
    };
    auto bad = [&](const std::string &why) {
        return Error{"'" + std::string(text) + "': " + why
                     + " (distance(X,Y), count(X,Y,[upos=NOUN, Number=Plur]), depth(X) or X.Feature, with pattern nodes)"};
    };
    auto args = [&](const std::string &prefix) -> std::optional<std::string> {
        if (t.rfind(prefix + "(", 0) != 0 || t.back() != ')')
            return std::nullopt;
        return t.substr(prefix.size() + 1, t.size() - prefix.size() - 2);
    };
    auto twoNodes = [&](const std::string &inner) -> bool {
        const std::size_t comma = inner.find(',');
        if (comma == std::string::npos)
            return false;
        m.m_a = nodeIndex(inner.substr(0, comma));
        const std::size_t comma2 = inner.find(',', comma + 1);
        m.m_b = nodeIndex(inner.substr(comma + 1, comma2 == std::string::npos ? std::string::npos : comma2 - comma - 1));
        return m.m_a >= 0 && m.m_b >= 0;
    };
    if (auto inner = args("distance")) {
        m.m_kind = Kind::Distance;
        if (!twoNodes(*inner) || inner->find(',', inner->find(',') + 1) != std::string::npos)
            return bad("expected two pattern nodes");
        return m;
    }
    if (auto inner = args("count")) {
        m.m_kind = Kind::Count;
        const std::size_t open = text.find('[');
        const std::size_t close = text.rfind(']');
        if (!twoNodes(*inner) || open == std::string_view::npos || close == std::string_view::npos || close < open)
            return bad("expected two pattern nodes and a node test [...]");
        auto test = DepPattern::parse("pattern { Z__ " + std::string(text.substr(open, close - open + 1)) + " }");
        if (!test)
            return bad("the node test: " + test.message());
        m.m_test = *test;
        return m;
    }
    if (auto inner = args("depth")) {
        m.m_kind = Kind::Depth;
        m.m_a = nodeIndex(*inner);
        if (m.m_a < 0)
            return bad("expected a pattern node");
        return m;
    }
    const std::size_t dot = t.find('.');
    if (dot != std::string::npos && dot > 0 && dot + 1 < t.size()) {
        m.m_kind = Kind::Feature;
        m.m_a = nodeIndex(t.substr(0, dot));
        m.m_feature = t.substr(dot + 1);
        if (m.m_a < 0)
            return bad("'" + t.substr(0, dot) + "' is not a pattern node");
        return m;
    }
    return bad("not a measure");
}

std::optional<double> MatchMeasure::value(const DepGraph &g, const DepMatch &match) const
{
    const int a = m_a >= 0 ? match.nodes[static_cast<std::size_t>(m_a)] : -1;
    const int b = m_b >= 0 ? match.nodes[static_cast<std::size_t>(m_b)] : -1;
    switch (m_kind) {
    case Kind::Distance:
        if (a <= 0 || b <= 0)
            return std::nullopt;
        return std::abs(b - a);
    case Kind::Count: {
        if (a <= 0 || b <= 0)
            return std::nullopt;
        const int lo = std::min(a, b), hi = std::max(a, b);
        double n = 0;
        for (const DepMatch &z : m_test->match(g))
            if (z.nodes[0] > lo && z.nodes[0] < hi)
                ++n;
        return n;
    }
    case Kind::Depth: {
        if (a <= 0)
            return std::nullopt;
        int d = 0;
        for (int up = g.nodes[static_cast<std::size_t>(a)].head; up > 0 && d <= static_cast<int>(g.nodes.size());
             up = g.nodes[static_cast<std::size_t>(up)].head)
            ++d;
        return d;
    }
    case Kind::Feature: {
        if (a <= 0)
            return std::nullopt;
        const auto &f = g.nodes[static_cast<std::size_t>(a)].features;
        const auto it = std::find_if(f.begin(), f.end(), [&](const auto &kv) { return kv.first == m_feature; });
        if (it == f.end())
            return std::nullopt;
        try {
            std::size_t used = 0;
            const double v = std::stod(it->second, &used);
            if (used != it->second.size())
                return std::nullopt;
            return v;
        } catch (...) {
            return std::nullopt;
        }
    }
    }
    return std::nullopt;
}

bool SurprisalStatAccumulator::add(const Analysis &a, int word, std::optional<double> bin, bool binned)
{
    const auto i = static_cast<std::size_t>(word - 1);
    if (word < 1 || i >= a.surprisal.size() || !std::isfinite(a.surprisal[i]) || (binned && !bin)) {
        ++m_stat.skipped;
        return false;
    }
    m_all.add(a.surprisal[i]);
    if (binned)
        m_bins[*bin].add(a.surprisal[i]);
    ++m_stat.occurrences;
    return true;
}

SurprisalStat SurprisalStatAccumulator::result() const
{
    SurprisalStat r = m_stat;
    r.overall = m_all.result();
    for (const auto &[v, acc] : m_bins)
        r.bins[v] = acc.result();
    return r;
}

} // namespace treelens
