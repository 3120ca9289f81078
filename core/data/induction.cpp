#include "core/data/induction.h"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <random>
#include <set>

#include <nlohmann/json.hpp>

namespace treelens {

InductionConfig InductionConfig::defaultsFor(int layers)
{
    InductionConfig c;
    c.minLayer = std::max(0, std::min(c.minLayer, layers - 1));
    return c;
}

Status InductionConfig::validate(int layers) const
{
    if (layers <= 0)
        return makeError("induction", "the model has no layers");
    // The settings count layers from 0 (treelens.config): the messages say so.
    const std::string range = "0.." + std::to_string(layers - 1) + ", counted from 0";
    const int start = startLayer < 0 ? layers - 1 : startLayer;
    if (start >= layers)
        return makeError("induction", "start_layer " + std::to_string(startLayer) + " is beyond the model's "
                                          + std::to_string(layers) + " layers (" + range + "; -1 = the top)");
    if (minLayer < 0 || minLayer >= layers)
        return makeError("induction", "min_layer " + std::to_string(minLayer) + " is outside " + range);
    if (!(threshold >= 0.0 && threshold <= 1.0) || !(descend >= 0.0 && descend <= 1.0))
        return makeError("induction", "threshold and descent rule must be probabilities in [0, 1]");
    return {};
}

std::string InductionConfig::toJson() const
{
    nlohmann::json j{{"start_layer", startLayer}, {"min_layer", minLayer}, {"threshold", threshold},
                     {"descend", descend}};
    return j.dump();
}

Result<InductionConfig> InductionConfig::fromJson(const std::string &text)
{
    try {
        const auto j = nlohmann::json::parse(text);
        InductionConfig c;
        c.startLayer = j.value("start_layer", c.startLayer);
        c.minLayer = j.value("min_layer", c.minLayer);
        c.threshold = j.value("threshold", c.threshold);
        c.descend = j.value("descend", c.descend);
        return c;
    } catch (const std::exception &e) {
        return makeError("induction config", e.what());
    }
}

std::string InductionConfig::toNumberedJson(int layers) const
{
    nlohmann::json j{{"start_layer", startLayer < 0 ? layers : startLayer + 1}, {"min_layer", minLayer + 1},
                     {"threshold", threshold}, {"descend", descend}};
    return j.dump();
}

Result<InductionConfig> InductionConfig::fromNumberedJson(const std::string &text)
{
    try {
        const auto j = nlohmann::json::parse(text);
        InductionConfig c;
        const int start = j.at("start_layer").get<int>();
        const int min = j.at("min_layer").get<int>();
        if (start < 1 || min < 1)
            return makeError("induction config", "layers are numbered from 1 (start_layer " + std::to_string(start) +
                                                     ", min_layer " + std::to_string(min) + ")");
        c.startLayer = start - 1;
        c.minLayer = min - 1;
        c.threshold = j.at("threshold").get<double>();
        c.descend = j.at("descend").get<double>();
        return c;
    } catch (const std::exception &e) {
        return makeError("induction config", e.what());
    }
}

std::string InductionConfig::text(int layers) const
{
    char buf[160];
    const int start = startLayer < 0 ? layers : startLayer + 1;
    std::snprintf(buf, sizeof buf, "start at layer %d%s, minimum layer %d, threshold %.2f, descent rule %.2f", start,
                  start == layers ? " (the top)" : "", minLayer + 1, threshold, descend);
    return buf;
}

std::vector<std::pair<int, int>> induceBrackets(const std::vector<std::vector<float>> &links,
                                                const InductionConfig &config)
{
    std::set<std::pair<int, int>> out;
    if (links.empty())
        return {};
    const int nLinks = static_cast<int>(links.front().size());
    if (nLinks < 1)
        return {};
    const int layers = static_cast<int>(links.size());
    const int minLayer = std::clamp(config.minLayer, 0, layers - 1);
    const int top = config.startLayer < 0 ? layers - 1 : std::min(config.startLayer, layers - 1);

    // build(layer, start, end) works on links [start, end) = words [start, end].
    std::function<void(int, int, int)> build = [&](int layer, int start, int end) {
        while (true) {
            if (end - start <= 1) {
                out.insert({start, start + 2});
                return;
            }
            const auto &row = links[static_cast<std::size_t>(layer)];
            int point = start;
            for (int k = start + 1; k < end; ++k)
                if (row[static_cast<std::size_t>(k)] < row[static_cast<std::size_t>(point)])
                    point = k;
            if (row[static_cast<std::size_t>(point)] > config.threshold) {
                if (layer == minLayer) {
                    out.insert({start, end + 1});
                    return;
                }
                layer = std::max(layer - 1, minLayer);
                continue;
            }
            // Two sides: links [start, point) and [point + 1, end).
            const std::pair<int, int> sides[2] = {{start, point}, {point + 1, end}};
            for (const auto &[s, e] : sides) {
                if (e <= s)
                    continue;
                float lowest = row[static_cast<std::size_t>(s)];
                for (int k = s; k < e; ++k)
                    lowest = std::min(lowest, row[static_cast<std::size_t>(k)]);
                const int next = lowest > config.descend ? std::max(layer - 1, minLayer) : layer;
                build(next, s, e);
                out.insert({s, e + 1});
            }
            return;
        }
    };
    build(top, 0, nLinks);
    out.erase({0, nLinks + 1});
    return {out.begin(), out.end()};
}

ConstituencyTree bracketsToTree(const std::vector<std::string> &words,
                                const std::vector<std::pair<int, int>> &brackets)
{
    ConstituencyTree tree;
    const int n = static_cast<int>(words.size());
    std::vector<std::pair<int, int>> spans(brackets.begin(), brackets.end());
    spans.erase(std::remove_if(spans.begin(), spans.end(),
                               [n](const auto &b) { return b.first < 0 || b.second > n || b.second - b.first < 2 ||
                                                           (b.first == 0 && b.second == n); }),
                spans.end());
    // Outer spans first, then left to right.
    std::sort(spans.begin(), spans.end(), [](const auto &a, const auto &b) {
        if (a.first != b.first) return a.first < b.first;
        return a.second > b.second;
    });
    spans.erase(std::unique(spans.begin(), spans.end()), spans.end());
    const int root = tree.addNode("X", -1);
    std::vector<std::pair<int, std::pair<int, int>>> stack{{root, {0, n}}};
    std::size_t next = 0;
    for (int w = 0; w < n; ++w) {
        // Open every bracket that starts here, innermost last.
        while (next < spans.size() && spans[next].first == w) {
            while (stack.back().second.second < spans[next].second && stack.size() > 1)
                stack.pop_back();
            const int node = tree.addNode("X", stack.back().first);
            stack.push_back({node, spans[next]});
            ++next;
        }
        const int pre = tree.addNode("W", stack.back().first);
        tree.addNode(words[static_cast<std::size_t>(w)], pre, true);
        while (stack.size() > 1 && stack.back().second.second == w + 1)
            stack.pop_back();
    }
    tree.renumberWords();
    return tree;
}

std::vector<std::pair<int, int>> leftBranchingBrackets(int words)
{
    std::vector<std::pair<int, int>> b;
    for (int end = 2; end < words; ++end)
        b.push_back({0, end});
    return b;
}

std::vector<std::pair<int, int>> rightBranchingBrackets(int words)
{
    std::vector<std::pair<int, int>> b;
    for (int start = 1; start + 2 <= words; ++start)
        b.push_back({start, words});
    std::sort(b.begin(), b.end());
    return b;
}

std::vector<std::pair<int, int>> randomBinaryBrackets(int words, unsigned seed)
{
    std::mt19937 rng(seed);
    std::set<std::pair<int, int>> out;
    std::function<void(int, int)> split = [&](int s, int e) {
        if (e - s < 2)
            return;
        out.insert({s, e});
        std::uniform_int_distribution<int> d(s + 1, e - 1);
        const int k = d(rng);
        split(s, k);
        split(k, e);
    };
    split(0, words);
    out.erase({0, words});
    return {out.begin(), out.end()};
}

} // namespace treelens
