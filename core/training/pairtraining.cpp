// Shared pieces of the pair trainers (see pairtraining.h).
#include "core/training/pairtraining.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <random>

#include <nlohmann/json.hpp>

namespace treelens::training {

Result<PairCorpus> readRankingCorpora(const std::vector<std::string> &paths, const std::string &model)
{
    PairCorpus all;
    for (const auto &p : paths) {
        auto c = readPairCorpus(p);
        if (!c)
            return c.error();
        if (c->task != kRankingTask)
            return makeError(p, "not a ranking corpus (" + model + " ranks candidate answers)");
        all.task = c->task;
        all.labels = c->labels;
        all.source += (all.source.empty() ? "" : ", ") + p;
        for (auto &pair : c->pairs) {
            pair.group = p + "#" + pair.group;
            all.pairs.push_back(std::move(pair));
        }
    }
    return all;
}

std::vector<std::pair<int, int>> rankingTriples(const PairCorpus &corpus, const std::vector<int> &indices)
{
    std::map<std::string, std::pair<std::vector<int>, std::vector<int>>> groups;
    std::vector<std::string> order;
    for (int i : indices) {
        const auto &p = corpus.pairs[static_cast<std::size_t>(i)];
        if (!groups.count(p.group))
            order.push_back(p.group);
        auto &g = groups[p.group];
        (p.label == "1" ? g.first : g.second).push_back(i);
    }
    std::vector<std::pair<int, int>> triples;
    for (const auto &name : order)
        for (int pos : groups[name].first)
            for (int neg : groups[name].second)
                triples.push_back({pos, neg});
    return triples;
}

std::vector<int> epochOrder(std::size_t n, unsigned seed, int epoch)
{
    std::vector<int> order(n);
    for (std::size_t i = 0; i < n; ++i)
        order[i] = static_cast<int>(i);
    std::mt19937_64 rng(seed * 1000003ULL + static_cast<unsigned>(epoch));
    std::shuffle(order.begin(), order.end(), rng);
    return order;
}

Result<RankingDev> rankingDev(const PairCorpus &dev, const std::vector<double> &scores)
{
    auto eval = evaluateRanking(dev, scores);
    if (!eval)
        return eval.error();
    const RankingEval &e = *eval;
    RankingDev t;
    t.value = e.map;
    t.json = nlohmann::json{{"map", e.map}, {"mrr", e.mrr}, {"p_at_1", e.precisionAt1}, {"questions", e.groupsUsed}}.dump();
    char buf[128];
    std::snprintf(buf, sizeof buf, "dev MAP %.4f MRR %.4f P@1 %.4f (%d questions)", e.map, e.mrr, e.precisionAt1, e.groupsUsed);
    t.summary = buf;
    return t;
}

} // namespace treelens::training
