// The Tree Aggregation Transformer's level batching (README §6: all nodes of one
// depth across the batch in one padded call) against the node-by-node recursive
// evaluation of the same model, side by side in one run with the repetitions
// interleaved, on real trees: a WikiQA split's pairs, both sides parsed by the
// shipped neural parser (constituency trees, tags from the dependency model).
// Random weights of the planned shipped size (LM 4 x 128, TAT d_sem = d_syn = 64,
// 4 heads per stream). Also pairs/s of the level-batched model on 1 and 2 threads.
// Prints one JSON object. See docs/tree-aggregation-transformer.md.
//   bench_tat --wikiqa DIR [--model tat-en-wikiqa.safetensors] [--batch 64] [--reps 3] [--pairs 0 (all)]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <string>

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "core/base/strings.h"
#include "core/encoders/tat/tatnet.h"
#include "core/formats/pairs.h"
#include "core/model/modelfile.h"
#include "core/parsing/pairparsing.h"
#include "core/parsing/parser.h"
#include "core/runtime/device.h"
#include "bench/benchutil.h"

using namespace treelens;

using bench::median;
using bench::seconds;

int main(int argc, char **argv)
{
    std::string wikiqa, modelPath;
    int batch = 64, reps = 3, limit = 0;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string k = argv[i], v = argv[i + 1];
        if (k == "--wikiqa") wikiqa = v;
        else if (k == "--batch") batch = std::atoi(v.c_str());
        else if (k == "--reps") reps = std::atoi(v.c_str());
        else if (k == "--pairs") limit = std::atoi(v.c_str());
        else if (k == "--model") modelPath = v;
        else {
            std::fprintf(stderr, "unknown option %s\n", k.c_str());
            return 2;
        }
    }
    if (wikiqa.empty() || batch < 1 || reps < 1) {
        std::fprintf(stderr, "usage: bench_tat --wikiqa DIR [--model M] [--batch 64] [--reps 3] [--pairs N]\n");
        return 2;
    }
    auto corpus = readPairCorpus(wikiqa);
    if (!corpus) {
        std::fprintf(stderr, "%s\n", corpus.message().c_str());
        return 1;
    }
    if (limit > 0 && static_cast<std::size_t>(limit) < corpus->pairs.size())
        corpus->pairs.resize(static_cast<std::size_t>(limit));
    auto parser = createParser(ParserConfig{});
    if (!parser) {
        std::fprintf(stderr, "%s\n", parser.message().c_str());
        return 1;
    }
    const double parseSeconds = seconds([&] {
        auto unparsed = parsePairCorpus(*corpus, **parser);
        if (!unparsed)
            std::fprintf(stderr, "%s\n", unparsed.message().c_str());
    });

    // The shipped model (--model), or random weights at its size.
    TatConfig c = treelensTatConfig(16000);
    auto tags = TatTags::fromLabels(treelensTatTags(), "tags");
    TensorMap weights;
    std::vector<std::string> vocab;
    if (!modelPath.empty()) {
        auto file = loadModelFile(modelPath);
        if (!file) {
            std::fprintf(stderr, "%s\n", file.message().c_str());
            return 1;
        }
        const auto j = nlohmann::json::parse(file->configJson);
        auto cfg = TatConfig::fromJson(j.at("model").dump());
        tags = TatTags::fromLabels(j.at("tags").get<std::vector<std::string>>(), modelPath);
        if (!cfg || !tags) {
            std::fprintf(stderr, "%s: not a tree-aggregation-transformer model\n", modelPath.c_str());
            return 1;
        }
        c = *cfg;
        weights = file->tensors;
        vocab = file->vocab;
    } else {
        weights = tat::Net::randomTensors(c, 1);
        for (int i = 0; i < c.lmVocab; ++i)
            vocab.push_back(i < 5 ? std::string("<special>") : "w" + std::to_string(i));
    }
    auto net = tat::Net::fromTensors(c, weights, torch::Device(torch::kCPU), modelPath.empty() ? "random" : modelPath);
    if (!net) {
        std::fprintf(stderr, "%s\n", net.message().c_str());
        return 1;
    }
    // Random weights: words hashed onto the table; the shipped model: its own lookup.
    const Vocabulary lookup = Vocabulary::lenient(vocab);
    auto ids = [&](const std::vector<std::string> &words) {
        if (!modelPath.empty())
            return lookup.ids(words, Vocabulary::Match::AnyForm, c.unkId);
        std::vector<std::int64_t> v;
        for (const auto &w : words)
            v.push_back(5 + static_cast<std::int64_t>(std::hash<std::string>{}(toLowerAscii(w)) % static_cast<std::size_t>(c.lmVocab - 5)));
        return v;
    };
    std::vector<tat::PairInput> pairs;
    std::size_t skipped = 0, nodes = 0;
    std::map<std::string, int> skipReasons;
    for (const auto &p : corpus->pairs) {
        if (!p.first.constituency || !p.second.constituency) {
            ++skipped;
            continue;
        }
        auto q = tatTree(*p.first.constituency, *tags, c);
        auto a = tatTree(*p.second.constituency, *tags, c);
        if (!q || !a || static_cast<int>(p.first.words().size() + p.second.words().size()) + 4 > c.lmMaxPositions) {
            const std::string why = !q ? q.message() : !a ? a.message() : std::string("longer than the LM's positions");
            ++skipReasons[why.substr(why.find(':') == std::string::npos ? 0 : why.find(':') + 2)];
            ++skipped;
            continue;
        }
        nodes += q->nodes.size() + a->nodes.size();
        pairs.push_back(tat::makePair(ids(p.first.words()), std::move(*q), ids(p.second.words()), std::move(*a), c));
    }
    torch::NoGradGuard ng;
    auto runAll = [&](bool nodeByNode, int *calls) {
        int layerCalls = 0;
        for (std::size_t s = 0; s < pairs.size(); s += static_cast<std::size_t>(batch)) {
            std::vector<tat::PairInput> chunk(pairs.begin() + static_cast<std::ptrdiff_t>(s),
                                              pairs.begin() + static_cast<std::ptrdiff_t>(std::min(pairs.size(), s + static_cast<std::size_t>(batch))));
            layerCalls += net->forward(chunk, false, nodeByNode).layerCalls;
        }
        if (calls)
            *calls = layerCalls;
    };
    auto runLm = [&] {
        for (std::size_t s = 0; s < pairs.size(); s += static_cast<std::size_t>(batch)) {
            std::vector<tat::PairInput> chunk(pairs.begin() + static_cast<std::ptrdiff_t>(s),
                                              pairs.begin() + static_cast<std::ptrdiff_t>(std::min(pairs.size(), s + static_cast<std::size_t>(batch))));
            (void)net->lmForward(chunk);
        }
    };
    int levelCalls = 0, nodeCalls = 0;
    setCpuThreads(1);
    runAll(false, &levelCalls); // warm-up
    std::vector<double> level1, node1, level2, lm1, lm2;
    for (int r = 0; r < reps; ++r) {
        setCpuThreads(1);
        level1.push_back(seconds([&] { runAll(false, nullptr); }));
        node1.push_back(seconds([&] { runAll(true, &nodeCalls); }));
        lm1.push_back(seconds(runLm));
        setCpuThreads(2);
        level2.push_back(seconds([&] { runAll(false, nullptr); }));
        lm2.push_back(seconds(runLm));
    }
    const double n = static_cast<double>(pairs.size());
    nlohmann::json out = {
        {"benchmark", "tat_level_batching"},
        {"corpus", corpus->source},
        {"pairs", pairs.size()},
        {"pairs_skipped", skipped},
        {"skip_reasons", skipReasons},
        {"nodes", nodes},
        {"parse_seconds", parseSeconds},
        {"batch", batch},
        {"reps", reps},
        {"model", {{"lm", std::to_string(c.lmLayers) + " x " + std::to_string(c.lmDModel) + ", " + std::to_string(c.lmHeads) +
                              " heads, ff " + std::to_string(c.lmDFF)},
                   {"tat", "d_sem " + std::to_string(c.dSem) + ", d_syn " + std::to_string(c.dSyn) + ", " + std::to_string(c.heads) +
                               " heads per stream, ff " + std::to_string(c.dFFSem)},
                   {"weights", modelPath.empty() ? std::string("random") : modelPath}}},
        {"layer_calls", {{"level_batched", levelCalls}, {"node_by_node", nodeCalls}}},
        {"seconds_median", {{"level_batched_1_thread", median(level1)}, {"node_by_node_1_thread", median(node1)}, {"level_batched_2_threads", median(level2)}}},
        {"pairs_per_second", {{"level_batched_1_thread", n / median(level1)}, {"node_by_node_1_thread", n / median(node1)}, {"level_batched_2_threads", n / median(level2)}}},
        {"lm_only_seconds_median_1_thread", median(lm1)},
        {"lm_only_seconds_median_2_threads", median(lm2)},
        {"speedup_level_over_node_1_thread", median(node1) / median(level1)},
        // The recursive layer alone: each run's time less the LM's (the same LM work in both).
        {"speedup_aggregation_only_1_thread", (median(node1) - median(lm1)) / std::max(1e-9, median(level1) - median(lm1))},
    };
    std::printf("%s\n", out.dump(2).c_str());
    return 0;
}
