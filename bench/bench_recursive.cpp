// The recursive tree models' level batching (fixture README §9: all nodes of
// one height across the batch in one padded call) against the node-by-node
// recursion of the same model, side by side in one run with the repetitions
// interleaved (level, node, level, node, ...), on gold trees: UD EWT dev for the
// dependency models (DTT, DTT + edges, Child-Sum Tree-LSTM) and the WSJ sample
// for the constituency models (CTT, binary Tree-LSTM). Consecutive sentences
// form the pairs the models read. Random weights of the thesis's size (d 300,
// 6 branches of d_k 50, PCNN 341; Tree-LSTM memory 150) unless --size small.
// Prints one JSON object. See docs/recursive-models.md.
//   bench_recursive --ewt FILE --ptb DIR [--batch 64] [--reps 3] [--pairs 256] [--models ctt,dtt,...]
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <string>

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "bench/benchutil.h"
#include "core/base/strings.h"
#include "core/encoders/recursive/recnet.h"
#include "core/formats/corpus.h"
#include "core/runtime/device.h"

using namespace treelens;

using bench::median;
using bench::seconds;

int main(int argc, char **argv)
{
    std::string ewt, ptb, models = "ctt,dtt,dtte,treelstm.cs,treelstm.bin";
    int batch = 64, reps = 3, limit = 256;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string k = argv[i], v = argv[i + 1];
        if (k == "--ewt") ewt = v;
        else if (k == "--ptb") ptb = v;
        else if (k == "--batch") batch = std::atoi(v.c_str());
        else if (k == "--reps") reps = std::atoi(v.c_str());
        else if (k == "--pairs") limit = std::atoi(v.c_str());
        else if (k == "--models") models = v;
        else {
            std::fprintf(stderr, "unknown option %s\n", k.c_str());
            return 2;
        }
    }
    if (ewt.empty() || ptb.empty() || batch < 1 || reps < 1 || limit < 1) {
        std::fprintf(stderr, "usage: bench_recursive --ewt en_ewt-ud-dev.conllu --ptb ptb-sample [--batch 64] [--reps 3] [--pairs 256]\n");
        return 2;
    }
    auto depCorpus = readCorpusFile(ewt, CorpusFormat::Conllu);
    if (!depCorpus) {
        std::fprintf(stderr, "%s\n", depCorpus.message().c_str());
        return 1;
    }
    std::vector<Sentence> conCorpus;
    std::vector<std::string> files;
    for (const auto &e : std::filesystem::directory_iterator(ptb))
        if (e.path().extension() == ".mrg")
            files.push_back(e.path().string());
    std::sort(files.begin(), files.end());
    for (const auto &f : files) {
        auto s = readCorpusFile(f, CorpusFormat::Ptb, CorpusReadOptions{false, true, true, 0});
        if (!s) {
            std::fprintf(stderr, "%s\n", s.message().c_str());
            return 1;
        }
        conCorpus.insert(conCorpus.end(), s->begin(), s->end());
    }
    const std::vector<std::string> relations = {"acl", "advcl", "advmod", "amod", "appos", "aux", "case", "cc", "ccomp", "clf",
                                                "compound", "conj", "cop", "csubj", "dep", "det", "discourse", "dislocated",
                                                "expl", "fixed", "flat", "goeswith", "iobj", "list", "mark", "nmod", "nsubj",
                                                "nummod", "obj", "obl", "orphan", "parataxis", "punct", "reparandum", "root",
                                                "vocative", "xcomp"};
    const int vocab = 20000;
    auto idsOf = [&](const std::vector<std::string> &words) {
        std::vector<std::int64_t> v;
        for (const auto &w : words)
            v.push_back(2 + static_cast<std::int64_t>(std::hash<std::string>{}(toLowerAscii(w)) % static_cast<std::size_t>(vocab - 2)));
        return v;
    };
    nlohmann::json results = nlohmann::json::object();
    torch::NoGradGuard ng;
    setCpuThreads(1);
    for (const auto nameView : splitView(models, ',')) {
        const std::string name(nameView);
        auto model = recModelFromName(name);
        if (!model) {
            std::fprintf(stderr, "%s\n", model.message().c_str());
            return 2;
        }
        RecConfig c;
        c.model = *model;
        c.vocab = vocab;
        c.dModel = 300;
        c.branches = 6;
        c.dK = 50;
        c.dFF = 341;
        c.memDim = 150;
        c.headHidden = 50;
        c.relations = relations;
        auto net = rec::Net::fromTensors(c, rec::Net::randomTensors(c, 1), torch::Device(torch::kCPU), "random");
        if (!net) {
            std::fprintf(stderr, "%s\n", net.message().c_str());
            return 1;
        }
        std::vector<rec::Sentence> sents;
        std::size_t nodes = 0, skipped = 0;
        const auto &corpus = c.dependency() ? *depCorpus : conCorpus;
        for (const auto &s : corpus) {
            if (static_cast<int>(sents.size()) >= 2 * limit)
                break;
            Result<RecTree> t = c.dependency() ? (s.dependency ? dependencyRecTree(*s.dependency, relations) : Result<RecTree>(makeError("s", "no tree")))
                                               : (s.constituency ? constituencyRecTree(*s.constituency, *model == RecModel::TreeLstmBinary)
                                                                 : Result<RecTree>(makeError("s", "no tree")));
            if (!t || t->words != static_cast<int>(s.words().size())) {
                ++skipped;
                continue;
            }
            nodes += t->nodes.size();
            sents.push_back({idsOf(s.words()), std::move(*t)});
        }
        if (sents.size() % 2)
            sents.pop_back();
        auto runAll = [&](rec::Order order) {
            for (std::size_t s = 0; s < sents.size(); s += 2 * static_cast<std::size_t>(batch)) {
                std::vector<const rec::Sentence *> l, r;
                for (std::size_t i = s; i + 1 < sents.size() && i < s + 2 * static_cast<std::size_t>(batch); i += 2) {
                    l.push_back(&sents[i]);
                    r.push_back(&sents[i + 1]);
                }
                (void)net->forwardPairs(l, r, false, order);
            }
        };
        runAll(rec::Order::LevelBatched); // warm-up
        std::vector<double> level, node;
        for (int r = 0; r < reps; ++r) {
            level.push_back(seconds([&] { runAll(rec::Order::LevelBatched); }));
            node.push_back(seconds([&] { runAll(rec::Order::NodeByNode); }));
        }
        const double pairs = static_cast<double>(sents.size() / 2);
        results[name] = {
            {"corpus", c.dependency() ? ewt : ptb},
            {"pairs", sents.size() / 2},
            {"sentences_skipped", skipped},
            {"internal_nodes", nodes},
            {"seconds", {{"level_batched", level}, {"node_by_node", node}}},
            {"seconds_median", {{"level_batched", median(level)}, {"node_by_node", median(node)}}},
            {"pairs_per_second", {{"level_batched", pairs / median(level)}, {"node_by_node", pairs / median(node)}}},
            {"speedup_level_over_node", median(node) / median(level)},
        };
    }
    nlohmann::json out = {{"benchmark", "recursive_level_batching"},
                          {"batch_pairs", batch},
                          {"reps", reps},
                          {"threads", 1},
                          {"weights", "random, d 300, 6 branches x d_k 50, PCNN 341, Tree-LSTM memory 150, head 50"},
                          {"models", results}};
    std::printf("%s\n", out.dump(2).c_str());
    return 0;
}
