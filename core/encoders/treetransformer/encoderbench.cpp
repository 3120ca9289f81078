#include "core/encoders/treetransformer/encoderbench.h"

#include <atomic>
#include <chrono>
#include <cstring>
#include <map>
#include <sstream>

#include <ATen/record_function.h>
#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "core/encoders/treetransformer/treetransformernet.h"
#include "core/model/modelfile.h"
#include "core/runtime/device.h"

namespace treelens {

namespace {

using Clock = std::chrono::steady_clock;

// GEMM time accumulated by the RecordFunction observer (one benchmark at a time),
// and the time of every top-level operator by name (ops called from the forward
// pass itself, not from inside another op).
std::atomic<long long> g_gemmNanos{0};
thread_local std::vector<std::pair<Clock::time_point, bool>> t_starts;
thread_local std::map<std::string, long long> t_opNanos;

bool isGemm(const char *name)
{
    return std::strcmp(name, "aten::addmm") == 0 || std::strcmp(name, "treelens::int8_linear") == 0 ||
           std::strcmp(name, "aten::mm") == 0 ||
           std::strcmp(name, "aten::bmm") == 0 || std::strcmp(name, "aten::baddbmm") == 0 ||
           std::strcmp(name, "aten::mkldnn_linear") == 0;
}

std::unique_ptr<at::ObserverContext> onStart(const at::RecordFunction &fn)
{
    t_starts.emplace_back(Clock::now(), isGemm(fn.name()));
    return nullptr;
}

void onEnd(const at::RecordFunction &fn, at::ObserverContext *)
{
    if (t_starts.empty())
        return;
    const auto [t0, gemm] = t_starts.back();
    t_starts.pop_back();
    const long long ns = std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t0).count();
    if (gemm)
        g_gemmNanos += ns;
    if (t_starts.empty())
        t_opNanos[fn.name()] += ns;
}

double gemmPeak(const torch::Device &dev)
{
    torch::InferenceMode guard;
    const int64_t n = 2048;
    auto a = torch::randn({n, n}, torch::TensorOptions().device(dev));
    auto b = torch::randn({n, n}, torch::TensorOptions().device(dev));
    auto c = torch::mm(a, b);
    int reps = 0;
    const auto t0 = Clock::now();
    double secs = 0;
    while (secs < 1.0 || reps < 3) {
        c = torch::mm(a, b);
        if (dev.is_cuda())
            torch::cuda::synchronize();
        ++reps;
        secs = std::chrono::duration<double>(Clock::now() - t0).count();
    }
    return 2.0 * n * n * n * reps / secs / 1e9;
}

} // namespace

std::string EncoderBenchResult::toJson() const
{
    nlohmann::json j{{"model", model},
                     {"device", device},
                     {"precision", precision},
                     {"config", {{"layers", layers}, {"d_model", dModel}, {"heads", heads}, {"d_ff", dFF}, {"vocab", vocab}}},
                     {"words", words},
                     {"batch", batch},
                     {"threads", threads},
                     {"iterations", iterations},
                     {"ms_per_batch", msPerBatch},
                     {"ms_per_sentence", msPerSentence},
                     {"sentences_per_s", sentencesPerSecond},
                     {"matmul_share", matmulShare},
                     {"gflop_per_sentence", gflopPerSentence},
                     {"achieved_gflops", achievedGflops},
                     {"matmul_gflops", matmulGflops},
                     {"gemm_peak_gflops", peakGflops},
                     {"op_ms_per_batch", opMsPerBatch}};
    return j.dump();
}

Result<EncoderBenchResult> benchmarkEncoder(const EncoderBenchConfig &config)
{
    if (config.words < 1 || config.batch < 1 || config.threads < 0)
        return makeError("bench", "--words and --batch must be positive, --threads non-negative");
    DeviceConfig dc;
    dc.device = config.device;
    dc.threads = config.threads;
    auto dev = resolveDevice(dc);
    if (!dev)
        return dev.error();
    const ThreadScope threads(config.threads); // the benchmark's count, for its span

    TreeTransformerConfig cfg;
    TensorMap weights;
    if (config.model.rfind("random:", 0) == 0) {
        const std::string spec = config.model.substr(7);
        if (spec == "official") {
            cfg.layers = 10; cfg.dModel = 512; cfg.heads = 8; cfg.dFF = 2048; cfg.vocabSize = 16000;
        } else {
            char comma;
            std::istringstream in(spec);
            in >> cfg.layers >> comma >> cfg.dModel >> comma >> cfg.heads >> comma >> cfg.dFF >> comma >> cfg.vocabSize;
            if (!in)
                return makeError("bench", "--model random:L,D,H,F,V expected, got '" + config.model + "'");
        }
        if (auto s = cfg.validate(); !s)
            return s.error();
        weights = randomTreeTransformerWeights(cfg, 1);
    } else {
        auto file = loadModelFile(config.model);
        if (!file)
            return file.error();
        auto j = nlohmann::json::parse(file->configJson);
        auto c = TreeTransformerConfig::fromJson(j.at("model").dump());
        if (!c)
            return c.error();
        cfg = *c;
        if (auto s = validateTreeTransformerWeights(cfg, file->tensors, config.model); !s)
            return s.error();
        weights = std::move(file->tensors);
    }
    if (config.words + 1 > cfg.maxLen)
        return makeError("bench", "--words exceeds the model's position table");
    auto net = tt::Net::fromTensors(cfg, weights, *dev);
    if (!net)
        return net.error();
    if (config.precision != "fp32" && config.precision != "bf16" && config.precision != "int8")
        return makeError("bench", "--precision must be fp32, bf16 or int8");
    if (auto st = net->refreshFused(config.oneDnn ? "onednn" : config.precision); !st)
        return makeError("bench", st.error());

    const int64_t L = config.words + 1;
    auto ids = torch::randint(4, cfg.vocabSize, {config.batch, L}, torch::TensorOptions().dtype(torch::kInt64)).to(*dev);
    auto mask = torch::ones({config.batch, L}, torch::TensorOptions().dtype(torch::kBool)).to(*dev);
    tt::ForwardOptions fo;
    fo.keepAttention = config.attention;
    fo.keepPrior = true;
    fo.officialStyle = config.officialStyle;
    fo.logits = config.officialStyle; // the official forward always projects to the vocabulary
    auto once = [&] {
        torch::InferenceMode guard;
        auto out = tt::forward(*net, ids, mask, fo);
        // Analysis copies results to the CPU; include that.
        auto h = out.finalHidden.to(torch::kCPU);
        for (auto &c : out.groupProb)
            (void)c.to(torch::kCPU);
        if (dev->is_cuda())
            torch::cuda::synchronize();
    };
    for (int i = 0; i < 3; ++i)
        once();

    g_gemmNanos = 0;
    t_opNanos.clear();
    auto handle = at::addThreadLocalCallback(at::RecordFunctionCallback(onStart, onEnd).needsInputs(false));
    int iters = 0;
    const auto t0 = Clock::now();
    double secs = 0;
    while (secs < config.seconds || iters < 5) {
        once();
        ++iters;
        secs = std::chrono::duration<double>(Clock::now() - t0).count();
    }
    at::removeCallback(handle);
    const double gemmSecs = static_cast<double>(g_gemmNanos.load()) / 1e9;
    // Timing without the observer (its own overhead is small but not zero).
    int iters2 = 0;
    const auto t1 = Clock::now();
    double secs2 = 0;
    while (secs2 < config.seconds || iters2 < 5) {
        once();
        ++iters2;
        secs2 = std::chrono::duration<double>(Clock::now() - t1).count();
    }

    EncoderBenchResult r;
    r.model = config.model;
    r.device = dev->str();
    r.precision = config.officialStyle ? "fp32-official-ops" : config.oneDnn ? "fp32-onednn" : config.precision;
    r.layers = cfg.layers;
    r.dModel = cfg.dModel;
    r.heads = cfg.heads;
    r.dFF = cfg.dFF;
    r.vocab = cfg.vocabSize;
    r.words = config.words;
    r.batch = config.batch;
    r.threads = at::get_num_threads();
    r.iterations = iters2;
    r.msPerBatch = 1000.0 * secs2 / iters2;
    r.msPerSentence = r.msPerBatch / config.batch;
    r.sentencesPerSecond = 1000.0 / r.msPerSentence;
    r.matmulShare = secs > 0 ? gemmSecs / secs : 0.0;
    const double d = cfg.dModel, f = cfg.dFF, n = static_cast<double>(L);
    // Per layer: QKV + out (4 d²), group key/query (2 d²), FFN (2 d·dff) per token,
    // plus scores and context (2 n d) and group scores (n d) per token.
    const double gemmFlops = cfg.layers * 2.0 * n * (6 * d * d + 2 * d * f + 3 * n * d);
    r.gflopPerSentence = gemmFlops / 1e9;
    r.achievedGflops = r.gflopPerSentence * r.sentencesPerSecond;
    r.matmulGflops = gemmSecs > 0 ? gemmFlops * config.batch * iters / gemmSecs / 1e9 : 0.0;
    if (config.peak)
        r.peakGflops = gemmPeak(*dev);
    for (const auto &[name, ns] : t_opNanos)
        r.opMsPerBatch[name] = static_cast<double>(ns) / 1e6 / iters;
    return r;
}

} // namespace treelens
