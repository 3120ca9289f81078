// bench_speed: the Tree Transformer's analysis in TreeLens against references,
// side by side in one run on one machine (docs/performance.md).
//
//   bench_speed [--model random:official|random:L,D,H,F,V|FILE] [--task sentence|corpus] [--words 40] [--batch 1]
//               [--corpus FILE.conllu] [--corpus-batch 64] [--sides fp32,int8,official-ops]
//               [--threads 1[,2]] [--reps 15] [--official DIR [--python PYTHON]]
//               [--write-model OUT.safetensors]
//
// Sides: TreeLens precisions (fp32, int8, bf16, auto; each at every --threads count)
// and references at the first thread count: `official-ops` (the official code's
// operation sequence in LibTorch: separate GEMMs, the triangular-matmul prior, the
// vocabulary projection) and, with --official DIR (a checkout of the public
// yaushian/Tree-Transformer; none of it is in this repository), `official-python`:
// the official code itself in a Python with torch (bench/official_worker.py).
// Repetitions are interleaved (round r runs every side once, in an order rotated
// by r), and the report gives each side's minimum, median and spread, the ratios
// of the references to each TreeLens side (of the medians, of the minima and per
// round), the 2-threads-to-1 ratios, how noisy the machine was, and the machine:
// CPU model and flags, OpenBLAS kernel, LibTorch version, measured GEMM rates.
//
// --task sentence: `--batch` sentences of `--words` random vocabulary words;
// TreeLens runs Encoder::analyze (what the app runs: attention, prior, links,
// induced tree, embeddings, copied into Analysis values), the references their
// forward pass and the link probabilities (the official code's parse loop also
// builds its trees). --task corpus: every sentence of --corpus (CoNLL-U), TreeLens
// through Encoder::analyze in batches of --corpus-batch (sorted by length), the
// references in file order padded to each batch's longest sentence, as the
// official code batches.
//
// JSON on stdout; a readable table on stderr.

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <random>
#include <sstream>
#include <thread>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <torch/torch.h>
#include <torch/version.h>

#include "bench/benchutil.h"
#include "bench/childprocess.h"
#include "core/encoders/encoder.h"
#include "core/encoders/family.h"
#include "core/encoders/treetransformer/treetransformer.h"
#include "core/encoders/treetransformer/treetransformernet.h"
#include "core/encoders/common/vocabulary.h"
#include "core/formats/corpus.h"
#include "core/model/checkpoint.h"
#include "core/model/modelfile.h"
#include "core/runtime/cpufeatures.h"
#include "core/runtime/device.h"
#include "bench/benchpaths.h"

using namespace treelens;
using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

namespace {

double msSince(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

[[noreturn]] void die(const std::string &message)
{
    std::fprintf(stderr, "bench_speed: %s\n", message.c_str());
    std::exit(1);
}

std::vector<std::string> splitList(const std::string &s)
{
    std::vector<std::string> out;
    std::stringstream ss(s);
    for (std::string item; std::getline(ss, item, ',');)
        if (!item.empty())
            out.push_back(item);
    return out;
}

std::string loadAverage()
{
    std::ifstream in("/proc/loadavg");
    std::string a, b, c;
    in >> a >> b >> c;
    return a + " " + b + " " + c;
}

// ---- machine and GEMM rates -------------------------------------------------

json machineJson()
{
    const CpuFeatures &cpu = cpuFeatures();
    std::string engines;
    for (auto e : at::globalContext().supportedQEngines())
        if (e != at::QEngine::NoQEngine)
            engines += (engines.empty() ? "" : ",") + c10::toString(e);
    return {{"cpu_model", cpu.model},
            {"logical_cpus", cpu.logicalCpus},
            {"flags", cpu.flagList()},
            {"native_bf16", cpu.nativeBf16()},
            {"int8_dot_products", cpu.int8DotProducts()},
            {"openblas_core", openBlasCoreName()},
            {"openblas_config", openBlasConfig()},
            {"openblas_coretype_env", std::getenv("OPENBLAS_CORETYPE") ? std::getenv("OPENBLAS_CORETYPE") : ""},
            {"libtorch", TORCH_VERSION},
            {"quantized_engines", engines},
            {"mkldnn", at::hasMKLDNN()}};
}

/// Fastest of `reps` calls of f, in ms.
double fastest(const std::function<void()> &f, int reps)
{
    f();
    double best = 1e300;
    for (int i = 0; i < reps; ++i) {
        const auto t0 = Clock::now();
        f();
        best = std::min(best, msSince(t0));
    }
    return best;
}

json gemmRates(int threads)
{
    setCpuThreads(threads);
    torch::InferenceMode guard;
    json j;
    {
        const int64_t n = 2048;
        auto a = torch::randn({n, n}), b = torch::randn({n, n});
        const double ms = fastest([&] { (void)torch::mm(a, b); }, 3);
        j["fp32_2048_cubed_gflops"] = 2.0 * n * n * n / (ms * 1e6);
    }
    // The products one 40-word sentence makes: 41x512 by 512x2048, in fp32 and int8.
    auto x = torch::randn({41, 512});
    auto w = torch::randn({2048, 512}) * 0.05, b = torch::randn({2048});
    const double flop = 2.0 * 41 * 512 * 2048;
    const double f32 = fastest([&] { (void)torch::addmm(b, x, w.t()); }, 50);
    j["fp32_41x512x2048_ms"] = f32;
    j["fp32_41x512x2048_gflops"] = flop / (f32 * 1e6);
    if (tt::int8Available(torch::kCPU)) {
        auto lin = tt::inferenceLinear(w, b, "int8");
        const double i8 = fastest([&] { (void)lin.apply(x, "int8"); }, 50);
        j["int8_41x512x2048_ms"] = i8;
        j["int8_41x512x2048_gops"] = flop / (i8 * 1e6);
    }
    j["threads"] = threads;
    return j;
}

// ---- the model --------------------------------------------------------------

/// A TreeLens model file of the official size with random weights, made through
/// the Tree Transformer's checkpoint importer (import-checkpoint's code path):
/// from a checkpoint the official code wrote when a worker is given, else from
/// TreeLens's own random weights in the official initialisation.
std::string makeRandomModel(const std::string &out, const TreeTransformerConfig &cfg, const std::string &python,
                            const std::string &official, const std::string &workerScript)
{
    const EncoderFamily *family = findEncoderFamily("tree-transformer");
    ImportRequest request;
    std::string note;
    if (!official.empty()) {
        const std::string dir = out + ".official-checkpoint";
        const std::string cmd = "OPENBLAS_NUM_THREADS=1 '" + python + "' '" + workerScript + "' --official '" + official +
                                "' --make-checkpoint '" + dir + "' --layers " + std::to_string(cfg.layers) +
                                " --d-model " + std::to_string(cfg.dModel) + " --heads " + std::to_string(cfg.heads) +
                                " --d-ff " + std::to_string(cfg.dFF) + " --vocab-size " + std::to_string(cfg.vocabSize) +
                                " >/dev/null";
        if (std::system(cmd.c_str()) != 0)
            die("the official code could not write a checkpoint (" + cmd + ")");
        auto tensors = readTorchCheckpoint(dir + "/model.pth", &request.note);
        if (!tensors)
            die(tensors.message());
        request.tensors = std::move(*tensors);
        request.checkpointPath = dir + "/model.pth";
        std::ifstream in(dir + "/dictionary.json");
        std::stringstream ss;
        ss << in.rdbuf();
        request.vocabText = ss.str();
        request.vocabPath = dir + "/dictionary.json";
        std::filesystem::remove_all(dir);
        note = "random weights written by the official code (Solver._make_model's initialisation), imported";
    } else {
        request.tensors = randomTreeTransformerWeights(cfg, 1);
        std::string vocab = "[PAD]\n[UNK]\n[MASK]\n[CLS]\n";
        for (int i = 4; i < cfg.vocabSize; ++i)
            vocab += "w" + std::to_string(i) + "\n";
        request.vocabText = vocab;
        request.vocabPath = "random-vocab.txt";
        request.checkpointPath = "random-official.pth";
        note = "random weights in the official initialisation (TreeLens's generator), imported";
    }
    request.name = "random-" + std::to_string(cfg.layers) + "x" + std::to_string(cfg.dModel);
    request.heads = cfg.heads;
    auto file = family->importCheckpoint(std::move(request));
    if (!file)
        die(file.message());
    if (auto st = saveModelFile(out, *file, DType::F32); !st)
        die(st.message());
    std::fprintf(stderr, "bench_speed: %s -> %s\n", note.c_str(), out.c_str());
    return note;
}

// ---- sides ------------------------------------------------------------------

struct Side {
    std::string name;
    std::string kind; ///< "treelens" or "reference"
    std::string precision;
    int threads = 1;
    std::function<double()> unit; ///< runs once, returns its time in ms
    std::vector<double> ms;
    std::string note;
};

json stats(const std::vector<double> &v)
{
    std::vector<double> s = v;
    std::sort(s.begin(), s.end());
    const double med = bench::median(s);
    auto q = [&](double p) { return s[static_cast<std::size_t>(std::lround(p * static_cast<double>(s.size() - 1)))]; };
    return {{"min_ms", s.front()},
            {"median_ms", med},
            {"max_ms", s.back()},
            {"p10_ms", q(0.1)},
            {"p90_ms", q(0.9)},
            {"spread_max_over_min", s.back() / s.front()},
            {"spread_iqr_over_median", (q(0.75) - q(0.25)) / med}};
}

} // namespace

int main(int argc, char **argv)
{
    CLI::App app{"TreeLens Tree Transformer analysis against references, side by side (JSON on stdout)"};
    std::string model = "random:official", task = "sentence", corpusPath, sidesSpec = "fp32,int8,official-ops";
    std::string threadsSpec = "1", official, python = "/usr/bin/python3", writeModel, worker;
    int words = 40, batch = 1, corpusBatch = 64, reps = 15, seed = 7;
    double maxParityDiff = -1;
    app.add_option("--model", model, "random:official (10 layers, d 512, 8 heads, d_ff 2048, vocabulary 16k), "
                                     "random:L,D,H,F,V or a .safetensors model file")->capture_default_str();
    app.add_option("--task", task, "sentence or corpus")->check(CLI::IsMember({"sentence", "corpus"}))->capture_default_str();
    app.add_option("--words", words, "sentence: words per sentence")->capture_default_str();
    app.add_option("--batch", batch, "sentence: sentences per call")->capture_default_str();
    app.add_option("--corpus", corpusPath, "corpus: a CoNLL-U file (e.g. UD EWT dev)");
    app.add_option("--corpus-batch", corpusBatch, "corpus: sentences per forward pass")->capture_default_str();
    app.add_option("--sides", sidesSpec, "fp32,int8,bf16,auto (TreeLens), official-ops, official-python")->capture_default_str();
    app.add_option("--threads", threadsSpec, "thread counts for the TreeLens sides, e.g. 1,2 (references: the first)")->capture_default_str();
    app.add_option("--reps", reps, "interleaved rounds")->capture_default_str();
    app.add_option("--seed", seed, "random sentence seed")->capture_default_str();
    app.add_option("--official", official, "directory of the official Tree Transformer sources (models.py, ...)");
    app.add_option("--python", python, "Python with torch for the official code")->capture_default_str();
    app.add_option("--worker", worker, "path of official_worker.py (default: next to this source)");
    app.add_option("--write-model", writeModel, "keep the random model file here");
    app.add_option("--max-parity-diff", maxParityDiff, "exit 1 when a reference's link probabilities differ from TreeLens "
                                                       "fp32's by more than this (tests)");
    CLI11_PARSE(app, argc, argv);

    if (worker.empty())
        worker = std::string(TREELENS_BENCH_DIR) + "/official_worker.py";
    std::vector<int> threadCounts;
    for (const auto &t : splitList(threadsSpec))
        threadCounts.push_back(std::max(1, std::atoi(t.c_str())));
    if (threadCounts.empty())
        die("--threads needs at least one count");
    const int refThreads = threadCounts.front();
    std::vector<std::string> sideNames = splitList(sidesSpec);
    const bool wantPython = std::find(sideNames.begin(), sideNames.end(), "official-python") != sideNames.end();
    if (wantPython && official.empty())
        die("official-python needs --official DIR (a checkout of yaushian/Tree-Transformer)");
    if (!official.empty() && !wantPython)
        sideNames.push_back("official-python");

    json report;
    report["load_average_before"] = loadAverage();
    report["machine"] = machineJson();

    // The model file.
    std::string modelPath = model;
    std::string tempModel;
    if (model.rfind("random:", 0) == 0) {
        TreeTransformerConfig rc;
        rc.vocabSize = 16000; // the official defaults otherwise: 10 layers, d 512, 8 heads, d_ff 2048
        if (model != "random:official") {
            char comma = 0;
            std::istringstream in(model.substr(7));
            in >> rc.layers >> comma >> rc.dModel >> comma >> rc.heads >> comma >> rc.dFF >> comma >> rc.vocabSize;
            if (!in || !rc.validate())
                die("--model random:official or random:L,D,H,F,V expected, got '" + model + "'");
        }
        modelPath = writeModel.empty() ? (std::filesystem::temp_directory_path() /
                                          ("treelens-bench-official-" + std::to_string(getpid()) + ".safetensors"))
                                             .string()
                                       : writeModel;
        if (writeModel.empty())
            tempModel = modelPath;
        report["model_note"] = makeRandomModel(modelPath, rc, python, official, worker);
    }
    auto file = loadModelFile(modelPath);
    if (!file)
        die(file.message());
    const auto cfgJson = json::parse(file->configJson);
    auto cfg = TreeTransformerConfig::fromJson(cfgJson.at("model").dump());
    if (!cfg)
        die(cfg.message());
    auto vocab = Vocabulary::withSpecials(file->vocab);
    if (!vocab)
        die(vocab.message());
    report["model"] = {{"path", model},
                       {"layers", cfg->layers}, {"d_model", cfg->dModel}, {"heads", cfg->heads},
                       {"d_ff", cfg->dFF}, {"vocab", cfg->vocabSize}};

    // The inputs.
    std::vector<std::vector<std::string>> sentences;
    if (task == "sentence") {
        std::mt19937 rng(static_cast<unsigned>(seed));
        std::uniform_int_distribution<int> pick(4, vocab->size() - 1);
        for (int b = 0; b < batch; ++b) {
            std::vector<std::string> s;
            for (int w = 0; w < words; ++w)
                s.push_back(vocab->token(pick(rng)));
            sentences.push_back(std::move(s));
        }
    } else {
        if (corpusPath.empty())
            die("--task corpus needs --corpus FILE.conllu");
        auto corpus = readCorpusFile(corpusPath, CorpusFormat::Conllu);
        if (!corpus)
            die(corpus.message());
        for (const auto &s : *corpus)
            sentences.push_back(s.words());
    }
    std::vector<EncoderInput> inputs;
    std::size_t tokens = 0;
    for (const auto &s : sentences) {
        inputs.push_back(EncoderInput{s, {}, {}, {}, {}, {}});
        tokens += s.size();
    }
    const int callBatch = task == "sentence" ? batch : corpusBatch;
    // Reference batches: input order, callBatch sentences each, [CLS] + word ids.
    std::vector<std::vector<std::vector<int>>> refBatches;
    for (std::size_t i = 0; i < sentences.size(); i += static_cast<std::size_t>(callBatch)) {
        std::vector<std::vector<int>> b;
        for (std::size_t k = i; k < std::min(sentences.size(), i + static_cast<std::size_t>(callBatch)); ++k)
            b.push_back(vocab->encode(sentences[k]));
        refBatches.push_back(std::move(b));
    }
    std::size_t padded = 0;
    for (const auto &b : refBatches) {
        std::size_t L = 0;
        for (const auto &s : b)
            L = std::max(L, s.size());
        padded += L * b.size();
    }
    report["task"] = {{"kind", task},
                      {"sentences", sentences.size()},
                      {"words", tokens},
                      {"batch", callBatch},
                      {"reference_padded_tokens", padded},
                      {"reference_padding_share", 1.0 - static_cast<double>(tokens + sentences.size()) / static_cast<double>(padded)},
                      {"corpus", corpusPath}};

    // ---- sides
    std::vector<Side> sides;
    std::vector<std::unique_ptr<Encoder>> encoders;
    AnalyzeOptions analyzeOptions; // attention on: what the app and analyze --json compute
    for (const auto &name : sideNames) {
        if (name == "official-ops" || name == "official-python")
            continue;
        DeviceConfig dc;
        dc.device = "cpu";
        dc.threads = refThreads;
        dc.batchSize = callBatch;
        dc.precision = name;
        auto enc = loadEncoder(modelPath, dc);
        if (!enc)
            die(enc.message());
        Encoder *e = enc->get();
        const std::string chosen = e->info().precision;
        const std::string note = e->info().precisionNote;
        encoders.push_back(std::move(*enc));
        for (int t : threadCounts) {
            Side s;
            s.name = "treelens " + name + (name == "auto" ? " (" + chosen + ")" : "") + " @" + std::to_string(t);
            s.kind = "treelens";
            s.precision = name;
            s.threads = t;
            s.note = note;
            s.unit = [e, &inputs, &analyzeOptions] {
                const auto t0 = Clock::now();
                auto r = e->analyze(inputs, analyzeOptions);
                if (!r)
                    die(r.message());
                return msSince(t0);
            };
            sides.push_back(std::move(s));
        }
    }
    // official-ops: the official operation sequence in LibTorch, input order, padded per batch.
    auto refNet = tt::Net::fromTensors(*cfg, file->tensors, torch::kCPU);
    if (!refNet)
        die(refNet.message());
    std::vector<std::pair<torch::Tensor, torch::Tensor>> refTensors;
    for (const auto &b : refBatches) {
        std::size_t L = 0;
        for (const auto &s : b)
            L = std::max(L, s.size());
        auto ids = torch::zeros({static_cast<int64_t>(b.size()), static_cast<int64_t>(L)}, torch::kInt64);
        auto a = ids.accessor<int64_t, 2>();
        for (std::size_t i = 0; i < b.size(); ++i)
            for (std::size_t k = 0; k < b[i].size(); ++k)
                a[static_cast<int64_t>(i)][static_cast<int64_t>(k)] = b[i][k];
        refTensors.emplace_back(ids, ids.ne(0));
    }
    if (std::find(sideNames.begin(), sideNames.end(), "official-ops") != sideNames.end()) {
        Side s;
        s.name = "official-ops @" + std::to_string(refThreads);
        s.kind = "reference";
        s.precision = "fp32";
        s.threads = refThreads;
        s.unit = [&] {
            const auto t0 = Clock::now();
            torch::InferenceMode guard;
            tt::ForwardOptions fo;
            fo.officialStyle = true;
            fo.logits = true;
            fo.keepPrior = true;
            for (const auto &[ids, mask] : refTensors) {
                auto out = tt::forward(*refNet, ids, mask, fo);
                for (const auto &A : out.breakProb)
                    (void)A.diagonal(1, 1, 2).contiguous();
            }
            return msSince(t0);
        };
        sides.push_back(std::move(s));
    }
    bench::ChildProcess child;
    json pythonInfo;
    if (!official.empty()) {
        std::string err, line;
        const std::string t = std::to_string(refThreads);
        if (!child.start({python, worker, "--official", official, "--model", modelPath, "--threads", t},
                         {"OPENBLAS_NUM_THREADS=" + t, "OMP_NUM_THREADS=" + t}, err) ||
            !child.readLine(line))
            die("the official-code worker did not start: " + err);
        pythonInfo = json::parse(line);
        json load = {{"cmd", "load"}, {"name", "task"}, {"batches", refBatches}};
        if (!child.request(load.dump(), line))
            die("the official-code worker stopped");
        Side s;
        s.name = "official-python @" + t;
        s.kind = "reference";
        s.precision = "fp32";
        s.threads = refThreads;
        s.unit = [&child] {
            std::string reply;
            if (!child.request("{\"cmd\": \"time\", \"name\": \"task\"}", reply))
                die("the official-code worker stopped");
            return 1000.0 * json::parse(reply).at("seconds").get<double>();
        };
        // The worker times itself (no pipe or JSON in its figure).
        s.note = "timed inside the worker";
        sides.push_back(std::move(s));
        report["official_python"] = pythonInfo;
    }
    if (sides.empty())
        die("no sides to run");

    // ---- parity: the same numbers on every side (first sentence's link probabilities)
    {
        json parity;
        setCpuThreads(refThreads);
        std::vector<EncoderInput> first{inputs.front()};
        std::vector<std::vector<float>> fp32Links;
        {
            DeviceConfig dc;
            dc.device = "cpu";
            auto enc = loadEncoder(modelPath, dc);
            if (!enc)
                die(enc.message());
            auto a = (*enc)->analyze(first, analyzeOptions);
            if (!a)
                die(a.message());
            fp32Links = (*a)[0].linkProbs;
        }
        auto maxDiff = [&](const std::vector<std::vector<float>> &other) {
            double d = 0;
            for (std::size_t l = 0; l < fp32Links.size() && l < other.size(); ++l)
                for (std::size_t k = 0; k < fp32Links[l].size() && k < other[l].size(); ++k)
                    d = std::max(d, std::abs(static_cast<double>(fp32Links[l][k]) - other[l][k]));
            return d;
        };
        for (std::size_t i = 0; i < encoders.size(); ++i) {
            auto a = encoders[i]->analyze(first, analyzeOptions);
            if (a)
                parity["treelens_" + encoders[i]->info().precision + "_vs_fp32_max_link_diff"] = maxDiff((*a)[0].linkProbs);
        }
        {
            torch::InferenceMode guard;
            auto ids = torch::tensor(vocab->encode(sentences.front()), torch::kInt64).unsqueeze(0);
            tt::ForwardOptions fo;
            fo.officialStyle = true;
            auto out = tt::forward(*refNet, ids, ids.ne(0), fo);
            std::vector<std::vector<float>> links;
            for (const auto &A : out.breakProb) {
                auto d = A[0].diagonal(1).contiguous();
                links.emplace_back(d.data_ptr<float>(), d.data_ptr<float>() + d.numel());
            }
            parity["official_ops_vs_treelens_fp32_max_link_diff"] = maxDiff(links);
        }
        if (!official.empty()) {
            std::string reply;
            json req = {{"cmd", "links"}, {"ids", {vocab->encode(sentences.front())}}};
            if (!child.request(req.dump(), reply))
                die("the official-code worker stopped");
            auto links = json::parse(reply).at("links").get<std::vector<std::vector<float>>>();
            parity["official_python_vs_treelens_fp32_max_link_diff"] = maxDiff(links);
        }
        report["parity"] = parity;
        if (maxParityDiff >= 0)
            for (const auto &[key, value] : parity.items())
                if (key.rfind("official", 0) == 0 && value.get<double>() > maxParityDiff)
                    die(key + " = " + std::to_string(value.get<double>()) + " exceeds --max-parity-diff");
    }

    // ---- interleaved rounds
    for (auto &s : sides) { // warm-up
        setCpuThreads(s.threads);
        s.unit();
    }
    const auto started = Clock::now();
    for (int r = 0; r < reps; ++r) {
        for (std::size_t k = 0; k < sides.size(); ++k) {
            Side &s = sides[(k + static_cast<std::size_t>(r)) % sides.size()];
            setCpuThreads(s.threads);
            // A changed thread count makes oneDNN build new primitives (they are cached per
            // thread count): one untimed call first, as a process with one setting would
            // have. Sentence task only; a corpus pass is long enough not to notice.
            if (task == "sentence")
                s.unit();
            s.ms.push_back(s.unit());
            if (s.threads > 1) // let the pools' spinning threads go to sleep before the next side runs
                std::this_thread::sleep_for(std::chrono::milliseconds(300));
        }
        std::fprintf(stderr, "\rbench_speed: round %d/%d", r + 1, reps);
    }
    std::fprintf(stderr, "\n");
    report["wall_seconds"] = msSince(started) / 1000.0;
    report["load_average_after"] = loadAverage();
    child.stop();

    // ---- report
    const double units = static_cast<double>(sentences.size());
    json sideJson = json::array();
    double worstSpread = 0;
    for (const auto &s : sides) {
        json j = stats(s.ms);
        j["name"] = s.name;
        j["kind"] = s.kind;
        j["precision"] = s.precision;
        j["threads"] = s.threads;
        j["ms"] = s.ms;
        j["sentences_per_s_median"] = units * 1000.0 / j["median_ms"].get<double>();
        j["ms_per_sentence_median"] = j["median_ms"].get<double>() / units;
        if (!s.note.empty())
            j["note"] = s.note;
        worstSpread = std::max(worstSpread, j["spread_iqr_over_median"].get<double>());
        sideJson.push_back(j);
    }
    report["sides"] = sideJson;
    // Ratios: reference time / TreeLens time (> 1 = TreeLens faster), of the medians,
    // of the minima, and of each round's pair (same round = same machine state).
    json ratios = json::array();
    for (const auto &ref : sides) {
        if (ref.kind != "reference")
            continue;
        for (const auto &x : sides) {
            if (x.kind != "treelens")
                continue;
            std::vector<double> paired;
            for (std::size_t r = 0; r < ref.ms.size(); ++r)
                paired.push_back(ref.ms[r] / x.ms[r]);
            std::sort(paired.begin(), paired.end());
            std::vector<double> a = ref.ms, b = x.ms;
            ratios.push_back({{"reference", ref.name},
                              {"treelens", x.name},
                              {"median_ratio", bench::median(a) / bench::median(b)},
                              {"min_ratio", *std::min_element(a.begin(), a.end()) / *std::min_element(b.begin(), b.end())},
                              {"paired_ratio_median", bench::median(paired)},
                              {"paired_ratio_min", paired.front()},
                              {"paired_ratio_max", paired.back()}});
        }
    }
    report["ratios"] = ratios;
    json threadRatios = json::array();
    for (const auto &one : sides)
        for (const auto &more : sides)
            if (one.kind == "treelens" && more.kind == "treelens" && one.precision == more.precision &&
                one.threads == threadCounts.front() && more.threads != one.threads) {
                std::vector<double> a = one.ms, b = more.ms;
                threadRatios.push_back({{"precision", one.precision},
                                        {"threads", {one.threads, more.threads}},
                                        {"median_ratio", bench::median(a) / bench::median(b)},
                                        {"min_ratio", *std::min_element(a.begin(), a.end()) / *std::min_element(b.begin(), b.end())}});
            }
    report["thread_ratios"] = threadRatios;
    report["noise"] = {{"worst_side_iqr_over_median", worstSpread},
                       {"verdict", worstSpread < 0.05 ? "quiet" : worstSpread < 0.15 ? "some noise" : "noisy"}};
    json rates = json::array();
    for (int t : threadCounts)
        rates.push_back(gemmRates(t));
    report["gemm"] = rates;
    if (!tempModel.empty())
        std::filesystem::remove(tempModel);

    // Readable summary on stderr.
    std::fprintf(stderr, "%s | %s | OpenBLAS %s | LibTorch %s | load %s -> %s\n",
                 report["machine"]["cpu_model"].get<std::string>().c_str(), report["machine"]["flags"].get<std::string>().c_str(),
                 report["machine"]["openblas_core"].get<std::string>().c_str(), TORCH_VERSION,
                 report["load_average_before"].get<std::string>().c_str(), report["load_average_after"].get<std::string>().c_str());
    std::fprintf(stderr, "%-34s %10s %10s %10s %8s\n", "side", "min ms", "median ms", "sent/s", "IQR/med");
    for (const auto &j : sideJson)
        std::fprintf(stderr, "%-34s %10.2f %10.2f %10.1f %7.1f%%\n", j["name"].get<std::string>().c_str(), j["min_ms"].get<double>(),
                     j["median_ms"].get<double>(), j["sentences_per_s_median"].get<double>(),
                     100 * j["spread_iqr_over_median"].get<double>());
    for (const auto &r : ratios)
        std::fprintf(stderr, "%s / %s: %.2fx (medians), %.2fx (minima), rounds %.2f-%.2fx\n",
                     r["reference"].get<std::string>().c_str(), r["treelens"].get<std::string>().c_str(),
                     r["median_ratio"].get<double>(), r["min_ratio"].get<double>(), r["paired_ratio_min"].get<double>(),
                     r["paired_ratio_max"].get<double>());
    for (const auto &r : threadRatios)
        std::fprintf(stderr, "%s: %d threads / %d: %.2fx (medians)\n", r["precision"].get<std::string>().c_str(),
                     r["threads"][1].get<int>(), r["threads"][0].get<int>(), r["median_ratio"].get<double>());
    std::fprintf(stderr, "noise: %s (worst IQR/median %.1f%%)\n", report["noise"]["verdict"].get<std::string>().c_str(),
                 100 * worstSpread);
    std::cout << report.dump() << std::endl;
    return 0;
}
