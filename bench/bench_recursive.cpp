// The recursive tree models' level batching (fixture README §9: all nodes of
// one height across the batch in one padded call) against the node-by-node
// recursion of the same model, side by side in one run with the repetitions
// interleaved (level, node, level, node, ...), on gold trees: UD EWT dev for the
// dependency models (DTT, DTT + edges, Child-Sum Tree-LSTM) and the WSJ sample
// for the constituency models (CTT, binary Tree-LSTM). Consecutive sentences
// form the pairs the models read. Random weights of the thesis's size (d 300,
// 6 branches of d_k 50, PCNN 341; Tree-LSTM memory 150), or with --size treelens
// the size of the models trained here. Also the machine's GEMM rate and the
// multi-branch models' GFLOP/s, to show how close the batched path gets to it.
// Prints one JSON object. See docs/recursive-models.md.
//   bench_recursive --ewt FILE --ptb DIR [--size thesis|treelens] [--batch 64] [--reps 3] [--pairs 256] [--models ctt,dtt,...]
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
    std::string ewt, ptb, models = "ctt,dtt,dtte,treelstm.cs,treelstm.bin,treelstm.cs:self,treelstm.bin:self", size = "thesis";
    int batch = 64, reps = 3, limit = 256;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string k = argv[i], v = argv[i + 1];
        if (k == "--ewt") ewt = v;
        else if (k == "--ptb") ptb = v;
        else if (k == "--batch") batch = std::atoi(v.c_str());
        else if (k == "--reps") reps = std::atoi(v.c_str());
        else if (k == "--pairs") limit = std::atoi(v.c_str());
        else if (k == "--models") models = v;
        else if (k == "--size") size = v;
        else {
            std::fprintf(stderr, "unknown option %s\n", k.c_str());
            return 2;
        }
    }
    if (ewt.empty() || ptb.empty() || batch < 1 || reps < 1 || limit < 1 || (size != "thesis" && size != "treelens")) {
        std::fprintf(stderr, "usage: bench_recursive --ewt en_ewt-ud-dev.conllu --ptb ptb-sample [--size thesis|treelens] [--batch 64] [--reps 3] [--pairs 256]\n");
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
        // "treelstm.cs:self": the Tree-LSTM's composition alone, its query from the children (no
        // sequential LSTM over the partner, which both orders run alike).
        const std::string name(nameView);
        const auto colon = name.find(':');
        auto model = recModelFromName(name.substr(0, colon));
        if (!model) {
            std::fprintf(stderr, "%s\n", model.message().c_str());
            return 2;
        }
        RecConfig c;
        c.model = *model;
        c.vocab = vocab;
        const bool thesis = size == "thesis";
        c.dModel = thesis ? 300 : 128;
        c.branches = thesis ? 6 : 4;
        c.dK = thesis ? 50 : 32;
        c.dFF = thesis ? 341 : 256;
        c.memDim = thesis ? 150 : 128;
        c.headHidden = thesis ? 50 : 64;
        c.relations = relations;
        if (colon != std::string::npos)
            c.query = name.substr(colon + 1);
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
        // The multi-branch models' arithmetic (multiply-adds × 2) on the real member rows: projections,
        // PCNN and output per row, attention per node; DTT + edges adds both edge sets. Padding excluded.
        double flops = 0;
        if (!c.treeLstm()) {
            const double d = c.dModel, n = c.branches, dk = c.dK, ff = c.dFF;
            const double perRow = 2 * (d * 3 * n * dk + n * dk * d + n * 2 * d * ff + d * d);
            for (const auto &s : sents)
                for (const auto &node : s.tree.nodes) {
                    const double k = static_cast<double>(node.children.size()) + (c.dependency() ? 1 : 0);
                    flops += k * perRow + 2 * n * 2 * k * k * dk;
                    if (c.model == RecModel::Dtte) {
                        const double e = static_cast<double>(node.children.size());
                        flops += 2 * (e * perRow + 2 * n * 2 * e * e * dk + e * 2 * 3 * d * d);
                    }
                }
        }
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
            {"gflop_per_run", flops / 1e9},
            {"gflop_per_second", {{"level_batched", flops / 1e9 / median(level)}, {"node_by_node", flops / 1e9 / median(node)}}},
        };
    }
    // The machine's single-thread fp32 GEMM rate (512 x 512 x 512, best of 20): the level-batched models' ceiling.
    double peak = 0;
    {
        const auto a = torch::randn({512, 512}), b = torch::randn({512, 512});
        (void)a.matmul(b);
        double best = 1e9;
        for (int r = 0; r < 20; ++r)
            best = std::min(best, seconds([&] { (void)a.matmul(b); }));
        peak = 2.0 * 512 * 512 * 512 / best / 1e9;
    }
    nlohmann::json out = {{"benchmark", "recursive_level_batching"},
                          {"gemm_peak_gflop_per_second_1_thread", peak},
                          {"size", size},
                          {"batch_pairs", batch},
                          {"reps", reps},
                          {"threads", 1},
                          {"weights", size == "thesis" ? "random, d 300, 6 branches x d_k 50, PCNN 341, Tree-LSTM memory 150, head 50"
                                                       : "random, d 128, 4 branches x d_k 32, PCNN 256, Tree-LSTM memory 128, head 64 (the models trained here)"},
                          {"models", results}};
    std::printf("%s\n", out.dump(2).c_str());
    return 0;
}
