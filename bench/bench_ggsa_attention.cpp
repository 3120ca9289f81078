// The GGSA paper's cost claim (seed 001, l. 180-184): group self-attention with
// groups of l = 10 at L = 200 against global self-attention of the same size.
// Both run in one process on the same inputs, repetitions interleaved (A B A B
// ...); prints one JSON object with the median times and their ratios.
//   bench_ggsa_attention [--length 200] [--group 10] [--batch 32] [--reps 15] [--threads 0]
// "attention": the attention step alone (scores, softmax, weighted sum) for the
// paper's 6 heads, D = 300, offsets 0,0,0,5,5,5; "block": a whole GGSA block
// (gate, projections, attention, LayerNorm, FFN), where the shared projections
// and FFN dilute the saving.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "core/encoders/ggsa/ggsanet.h"
#include "core/runtime/device.h"
#include "bench/benchutil.h"

using namespace treelens;

using bench::median;
using bench::seconds;

int main(int argc, char **argv)
{
    int L = 200, l = 10, B = 32, reps = 15, threads = 0;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string k = argv[i];
        const int v = std::atoi(argv[i + 1]);
        if (k == "--length") L = v;
        else if (k == "--group") l = v;
        else if (k == "--batch") B = v;
        else if (k == "--reps") reps = v;
        else if (k == "--threads") threads = v;
        else {
            std::fprintf(stderr, "unknown option %s\n", k.c_str());
            return 2;
        }
    }
    if (threads > 0)
        setCpuThreads(threads);
    torch::NoGradGuard noGrad;
    GgsaConfig group;
    group.dModel = 300;
    group.heads = 6;
    group.groupSize = l;
    group.offsets = {0, 0, 0, l / 2, l / 2, l / 2};
    group.layers = 1;
    group.dFF = 1200;
    group.dMlp = 300;
    group.vocabSize = 1000;
    group.maxLen = L;
    GgsaConfig global = group;
    global.globalAttention = true;
    global.gate = false;
    const auto weights = ggsa::Net::randomTensors(group, 1);
    auto gNet = ggsa::Net::fromTensors(group, weights, torch::Device(torch::kCPU), "bench");
    auto aNet = ggsa::Net::fromTensors(global, weights, torch::Device(torch::kCPU), "bench");
    if (!gNet || !aNet) {
        std::fprintf(stderr, "%s\n", (!gNet ? gNet.message() : aNet.message()).c_str());
        return 1;
    }
    const int d = group.dHead();
    auto q = torch::randn({B, group.heads, L, d}), k = torch::randn({B, group.heads, L, d}),
         v = torch::randn({B, group.heads, L, d});
    auto mask = torch::ones({B, L}, torch::kBool);
    auto ids = torch::randint(2, group.vocabSize, {B, L}, torch::kLong);

    auto attnGroup = [&] { return gNet->groupAttention(q, k, v, mask, ggsa::AttentionKernel::Blocked); };
    auto attnGlobal = [&] { return aNet->groupAttention(q, k, v, mask, ggsa::AttentionKernel::Dense); };
    auto blockGroup = [&] { return gNet->encode("q_enc", ids, mask, ggsa::AttentionKernel::Blocked, false, nullptr); };
    auto blockGlobal = [&] { return aNet->encode("q_enc", ids, mask, ggsa::AttentionKernel::Dense, false, nullptr); };
    // The blocked kernel computes what the dense masked one does.
    const double diff = (attnGroup() - gNet->groupAttention(q, k, v, mask, ggsa::AttentionKernel::Dense)).abs().max().item<double>();
    for (int w = 0; w < 2; ++w) {
        attnGroup(); attnGlobal(); blockGroup(); blockGlobal();
    }
    std::vector<double> ag, aa, bg, ba;
    for (int r = 0; r < reps; ++r) {
        ag.push_back(seconds(attnGroup));
        aa.push_back(seconds(attnGlobal));
        bg.push_back(seconds(blockGroup));
        ba.push_back(seconds(blockGlobal));
    }
    long long pairsGroup = 0;
    for (int o : group.offsets)
        pairsGroup += ggsaPairsGroup(L, o, l);
    const long long pairsGlobal = static_cast<long long>(group.heads) * L * L;
    nlohmann::json out = {
        {"benchmark", "ggsa_attention"},
        {"length", L}, {"group_size", l}, {"batch", B}, {"heads", group.heads}, {"d_model", group.dModel},
        {"offsets", group.offsets}, {"repetitions", reps}, {"threads", torch::get_num_threads()},
        {"scored_pairs_group", pairsGroup}, {"scored_pairs_global", pairsGlobal},
        {"pair_ratio", static_cast<double>(pairsGlobal) / static_cast<double>(pairsGroup)},
        {"blocked_vs_dense_max_abs_diff", diff},
        {"attention_ms", {{"group", median(ag) * 1e3}, {"global", median(aa) * 1e3}}},
        {"attention_speedup", median(aa) / median(ag)},
        {"block_ms", {{"group", median(bg) * 1e3}, {"global", median(ba) * 1e3}}},
        {"block_speedup", median(ba) / median(bg)}};
    std::printf("%s\n", out.dump().c_str());
    return 0;
}
