// The Dependency-Transformer against a plain Transformer of the same size
// (the same network with relation attention, gate and level embedding off),
// side by side in one run, repetitions interleaved: analysis latency (forward,
// batch 1 and 32) and training throughput (forward + backward, batch 32).
// Prints one JSON object. See docs/dependency-transformer.md.
//   bench_deptransformer [--words 25] [--reps 15] [--threads 0]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "core/encoders/deptransformer/deptransformernet.h"
#include "core/runtime/device.h"
#include "bench/benchutil.h"

using namespace treelens;

using bench::median;
using bench::seconds;

int main(int argc, char **argv)
{
    int words = 25, reps = 15, threads = 0;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string k = argv[i];
        const int v = std::atoi(argv[i + 1]);
        if (k == "--words") words = v;
        else if (k == "--reps") reps = v;
        else if (k == "--threads") threads = v;
        else {
            std::fprintf(stderr, "unknown option %s\n", k.c_str());
            return 2;
        }
    }
    if (threads > 0)
        setCpuThreads(threads);
    DepTransformerConfig c; // the shipped polarity model's size
    c.layers = 3;
    c.heads = 4;
    c.dModel = 128;
    c.dFF = 256;
    c.dRel = 32;
    c.maxLen = 128;
    c.vocabSize = 1000;
    std::vector<std::string> labels = {"[pad]", "[none]", "[self]", "dep", "2:0", "1:1", "0:2", "3:0", "2:1", "1:2", "0:3"};
    c.relations = static_cast<int>(labels.size());
    auto rel = RelationVocabulary::fromLabels(labels, "bench");
    DepTransformerConfig plain = c;
    plain.levelEmbedding = false;
    plain.relationAttention = false;
    plain.gate = false;
    auto net = deptrans::Net::fromTensors(c, deptrans::Net::randomTensors(c, 1), torch::Device(torch::kCPU), "bench");
    if (!net || !rel) {
        std::fprintf(stderr, "setup failed\n");
        return 1;
    }
    // Random projective-ish trees: each word attaches to an earlier word (or the root).
    std::mt19937 rng(7);
    std::vector<deptrans::Prepared> sentences;
    for (int s = 0; s < 32; ++s) {
        DependencyTree t;
        for (int k = 1; k <= words; ++k) {
            t.heads.push_back(k == 1 ? 0 : 1 + static_cast<int>(rng() % static_cast<unsigned>(k - 1)));
            t.deprels.push_back("dep");
        }
        std::vector<std::int64_t> ids;
        for (int k = 0; k < words; ++k)
            ids.push_back(3 + static_cast<std::int64_t>(rng() % 900));
        sentences.push_back(*deptrans::prepareSentence(ids, t, c, *rel));
    }
    std::vector<const deptrans::Prepared *> all, one = {&sentences[0]};
    for (const auto &s : sentences)
        all.push_back(&s);
    auto b32 = deptrans::batchTensors(all, c, rel->padId(), torch::Device(torch::kCPU));
    auto b1 = deptrans::batchTensors(one, c, rel->padId(), torch::Device(torch::kCPU));
    auto infer = [&](const std::vector<torch::Tensor> &t, const DepTransformerConfig &v) {
        torch::NoGradGuard ng;
        net->forward(t[0], t[1], t[2], t[3], t[4], false, &v);
    };
    auto trainStep = [&](const DepTransformerConfig &v) {
        auto out = net->forward(b32[0], b32[1], b32[2], b32[3], b32[4], false, &v, true);
        auto loss = out.logits.logsumexp(1).mean();
        loss.backward();
        for (auto &[name, p] : net->named())
            if (p.grad().defined())
                p.mutable_grad().zero_();
    };
    net->setTrainable(true);
    for (int w = 0; w < 2; ++w) {
        infer(b1, c); infer(b1, plain); infer(b32, c); infer(b32, plain); trainStep(c); trainStep(plain);
    }
    std::vector<double> l1d, l1p, l32d, l32p, td, tp;
    for (int r = 0; r < reps; ++r) {
        l1d.push_back(seconds([&] { infer(b1, c); }));
        l1p.push_back(seconds([&] { infer(b1, plain); }));
        l32d.push_back(seconds([&] { infer(b32, c); }));
        l32p.push_back(seconds([&] { infer(b32, plain); }));
        td.push_back(seconds([&] { trainStep(c); }));
        tp.push_back(seconds([&] { trainStep(plain); }));
    }
    const double sentencesPerStep = 32.0;
    nlohmann::json out = {
        {"benchmark", "deptransformer_vs_transformer"}, {"words", words}, {"layers", c.layers}, {"heads", c.heads},
        {"d_model", c.dModel}, {"d_rel", c.dRel}, {"repetitions", reps}, {"threads", torch::get_num_threads()},
        {"analysis_ms_batch1", {{"dependency_transformer", median(l1d) * 1e3}, {"transformer", median(l1p) * 1e3}}},
        {"analysis_ms_batch32", {{"dependency_transformer", median(l32d) * 1e3}, {"transformer", median(l32p) * 1e3}}},
        {"train_sentences_per_s", {{"dependency_transformer", sentencesPerStep / median(td)}, {"transformer", sentencesPerStep / median(tp)}}},
        {"ratio_analysis_batch1", median(l1d) / median(l1p)},
        {"ratio_analysis_batch32", median(l32d) / median(l32p)},
        {"ratio_train_step", median(td) / median(tp)}};
    std::printf("%s\n", out.dump().c_str());
    return 0;
}
