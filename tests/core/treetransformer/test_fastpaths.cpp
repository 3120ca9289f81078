// The Tree Transformer's fast paths (docs/performance.md): int8 projections against
// the official code's tensors (the parity fixture) and against fp32 on the shipped
// model, "auto" precision, length-sorted corpus batching against one sentence at a
// time, and where int8 may not run.
#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <unistd.h>
#include <fstream>
#include <random>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/encoders/encoder.h"
#include "core/encoders/treetransformer/treetransformer.h"
#include "core/encoders/common/precisionrule.h"
#include "core/encoders/treetransformer/treetransformernet.h"
#include "core/encoders/common/vocabulary.h"
#include "core/model/checkpoint.h"
#include "core/model/modelfile.h"
#include "core/runtime/cpufeatures.h"
#include "core/runtime/device.h"
#include "testutil.h"

using namespace treelens;

namespace {

const std::string kFixture = "fixtures/tree-transformer-official";

std::string slurp(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

std::string tempPath(const std::string &name)
{
    return (std::filesystem::temp_directory_path() / ("treelens-fastpaths-" + std::to_string(::getpid()) + "-" + name)).string();
}

std::string shippedModel() { return findShippedModel("tree-transformer-en-small.safetensors"); }

std::unique_ptr<Encoder> open(const std::string &path, const std::string &precision, int batch = 32)
{
    DeviceConfig dc;
    dc.device = "cpu";
    dc.precision = precision;
    dc.batchSize = batch;
    auto enc = loadEncoder(path, dc);
    EXPECT_TRUE(enc.ok()) << enc.message();
    return enc.ok() ? std::move(*enc) : nullptr;
}

EncoderInput words(const std::string &text)
{
    std::vector<std::string> w;
    std::istringstream in(text);
    for (std::string t; in >> t;)
        w.push_back(t);
    return EncoderInput{w, {}, {}, {}, {}, {}};
}

const std::vector<std::string> kSentences = {
    "The old man saw a red kite .",
    "Dogs chase cats .",
    "In the morning the children walked slowly to the small school near the river , talking about the game .",
    "She said that the committee would meet again next week to discuss the budget .",
    "Prices rose .",
    "The company , which was founded in 1998 , reported a loss of $ 12 million in the third quarter .",
    "Why did the chicken cross the road ?",
    "A very long sentence with many words keeps going on and on so that the batch has to pad the short ones a lot "
    "when they share a forward pass with it .",
};

double maxDiff(const std::vector<std::vector<float>> &a, const std::vector<std::vector<float>> &b)
{
    double d = 0;
    for (std::size_t l = 0; l < a.size(); ++l)
        for (std::size_t k = 0; k < a[l].size(); ++k)
            d = std::max(d, std::fabs(static_cast<double>(a[l][k]) - b[l][k]));
    return d;
}

double maxDiff(const Matrix &a, const Matrix &b)
{
    double d = 0;
    for (std::size_t i = 0; i < a.data.size(); ++i)
        d = std::max(d, std::fabs(static_cast<double>(a.data[i]) - b.data[i]));
    return d;
}

} // namespace

// int8 against the official code's own tensors: the links and C stay within the
// bound docs/performance.md states, and the difference is not zero (int8 ran).
TEST(TreeTransformerInt8, StaysNearTheOfficialTensors)
{
    TREELENS_REQUIRE_SHARED(kFixture + "/model.pth");
    auto tensors = readTorchCheckpoint(test::sharedPath(kFixture + "/model.pth"));
    ASSERT_TRUE(tensors.ok()) << tensors.message();
    auto vocab = Vocabulary::fromDictionaryJson(slurp(test::sharedPath(kFixture + "/dictionary.json")), "dictionary.json");
    ASSERT_TRUE(vocab.ok());
    ModelFile mf;
    mf.configJson = R"({"family":"tree-transformer","model":{"layers":4,"d_model":32,"heads":4,"d_ff":64,"vocab_size":50}})";
    mf.vocab = vocab->tokens();
    mf.tensors = std::move(*tensors);
    const std::string path = tempPath("fixture-int8.safetensors");
    ASSERT_TRUE(saveModelFile(path, mf).ok());
    auto enc = open(path, "int8");
    ASSERT_TRUE(enc);
    EXPECT_EQ(enc->info().precision, "int8");
    const auto summary = nlohmann::json::parse(slurp(test::sharedPath(kFixture + "/summary.json")));
    const std::string tb = slurp(test::sharedPath(kFixture + "/tensors.pt"));
    auto expected = torch::pickle_load(std::vector<char>(tb.begin(), tb.end())).toGenericDict();
    const auto breakProb = expected.at("break_prob").toTensor();
    const auto groupProb = expected.at("group_prob").toTensor();
    double worstLink = 0, worstC = 0;
    for (std::size_t s = 0; s < 2; ++s) {
        auto res = enc->analyze({EncoderInput{summary["sentences"][s]["words"].get<std::vector<std::string>>(), {}, {}, {}, {}, {}}});
        ASSERT_TRUE(res.ok()) << res.message();
        const auto &a = res->front();
        const int n = static_cast<int>(a.tokens.size());
        for (int l = 0; l < 4; ++l) {
            for (int k = 0; k + 1 < n; ++k)
                worstLink = std::max(worstLink, std::fabs(a.linkProbs[l][k] - breakProb[s][l][k][k + 1].item<double>()));
            for (int i = 0; i < n; ++i)
                for (int j = 0; j < n; ++j)
                    worstC = std::max(worstC, std::fabs(a.constituentPrior[l].at(i, j) - groupProb[s][l][i][j].item<double>()));
        }
    }
    EXPECT_LT(worstLink, 0.03);
    EXPECT_LT(worstC, 0.03);
    EXPECT_GT(worstLink, 1e-6); // the projections really ran in int8
}

// On the shipped model: int8 within the stated bound of fp32 (links, C, attention),
// and the induced trees mostly the same.
TEST(TreeTransformerInt8, StaysNearFp32OnTheShippedModel)
{
    const std::string model = shippedModel();
    if (model.empty())
        GTEST_SKIP() << "shipped model not found";
    auto fp32 = open(model, "fp32");
    auto int8 = open(model, "int8");
    ASSERT_TRUE(fp32 && int8);
    std::vector<EncoderInput> batch;
    for (const auto &s : kSentences)
        batch.push_back(words(s));
    auto a = fp32->analyze(batch);
    auto b = int8->analyze(batch);
    ASSERT_TRUE(a.ok() && b.ok());
    double link = 0, prior = 0, attention = 0;
    int sameTrees = 0;
    for (std::size_t i = 0; i < batch.size(); ++i) {
        link = std::max(link, maxDiff((*a)[i].linkProbs, (*b)[i].linkProbs));
        for (std::size_t l = 0; l < (*a)[i].constituentPrior.size(); ++l) {
            prior = std::max(prior, maxDiff((*a)[i].constituentPrior[l], (*b)[i].constituentPrior[l]));
            for (std::size_t h = 0; h < (*a)[i].attention[l].size(); ++h)
                attention = std::max(attention, maxDiff((*a)[i].attention[l][h], (*b)[i].attention[l][h]));
        }
        sameTrees += (*a)[i].inducedBrackets == (*b)[i].inducedBrackets;
    }
    EXPECT_LT(link, 0.03);
    EXPECT_LT(prior, 0.03);
    EXPECT_LT(attention, 0.05);
    EXPECT_GT(link, 1e-6);
    EXPECT_GE(sameTrees, static_cast<int>(batch.size()) - 1);
}

// "auto" times the candidates and keeps one; bf16 is a candidate only where it is native.
// What auto keeps depends on this machine's timings and kernels, so this checks the
// rule, not the outcome: the choice is a candidate the note reports, fp32 was timed
// too, bf16 is tried exactly when the CPU (or TREELENS_CPU_BF16) reports it native,
// and every candidate the note says is within the bound and faster would have been
// a legal pick. The rule itself is checked on injected timings below.
TEST(TreeTransformerPrecision, AutoPicksAMeasuredPathAndSaysWhich)
{
    const std::string model = shippedModel();
    if (model.empty())
        GTEST_SKIP() << "shipped model not found";
    auto enc = open(model, "auto");
    ASSERT_TRUE(enc);
    const auto &info = enc->info();
    const auto candidates = autoPrecisionCandidates(tt::int8Available(torch::kCPU), cpuFeatures().nativeBf16());
    EXPECT_NE(std::find(candidates.begin(), candidates.end(), info.precision), candidates.end()) << info.precision;
    EXPECT_EQ(info.precisionNote.rfind("auto: " + info.precision + " (", 0), 0u) << info.precisionNote;
    EXPECT_NE(info.precisionNote.find("fp32"), std::string::npos) << info.precisionNote; // fp32 was timed too
    for (const auto &c : candidates)
        EXPECT_NE(info.precisionNote.find(c), std::string::npos) << c << " was not reported: " << info.precisionNote;
    if (cpuFeatures().nativeBf16()) {
        EXPECT_EQ(info.precisionNote.find("bf16 not tried"), std::string::npos) << info.precisionNote;
    } else {
        EXPECT_NE(info.precision, "bf16");
        EXPECT_NE(info.precisionNote.find("bf16 not tried"), std::string::npos) << info.precisionNote;
    }
    // A candidate whose links drifted too far is never the pick.
    const std::string pickClause = info.precisionNote.substr(0, info.precisionNote.find(';'));
    EXPECT_EQ(pickClause.find("too far"), std::string::npos) << info.precisionNote;
    auto res = enc->analyze({words("The old man saw a red kite .")});
    ASSERT_TRUE(res.ok()) << res.message();
    // Plain fp32 says nothing; bf16 asked for on a CPU without it says it is emulated.
    auto plain = open(model, "fp32");
    ASSERT_TRUE(plain);
    EXPECT_EQ(plain->info().precision, "fp32");
    EXPECT_TRUE(plain->info().precisionNote.empty());
    if (!cpuFeatures().nativeBf16()) {
        auto bf = open(model, "bf16");
        ASSERT_TRUE(bf);
        EXPECT_NE(bf->info().precisionNote.find("emulated"), std::string::npos) << bf->info().precisionNote;
    }
}

// The rule on injected measurements: every branch, on any machine.
TEST(TreeTransformerPrecision, AutoRuleOnInjectedTimings)
{
    EXPECT_EQ(autoPrecisionCandidates(false, false), (std::vector<std::string>{"fp32"}));
    EXPECT_EQ(autoPrecisionCandidates(true, false), (std::vector<std::string>{"fp32", "int8"}));
    EXPECT_EQ(autoPrecisionCandidates(true, true), (std::vector<std::string>{"fp32", "int8", "bf16"}));
    EXPECT_EQ(autoPrecisionCandidates(false, true), (std::vector<std::string>{"fp32", "bf16"}));

    // The small shipped model on a Zen 3: int8 faster but its links drift 3.8e-3: fp32 stays.
    auto p = pickPrecision({{"fp32", 20.0, 0.0}, {"int8", 12.0, 3.8e-3}}, 40, false);
    EXPECT_EQ(p.index, 0u);
    EXPECT_EQ(p.note, "auto: fp32 (20.0 ms for a 40-word sentence; int8 12.0 ms, links off by 3.8e-03: too far from fp32 "
                      "here); bf16 not tried: no native bf16 on this CPU");
    // Native bf16 (a Zen 4): bf16 within the bound and faster wins over a drifting int8.
    p = pickPrecision({{"fp32", 20.0, 0.0}, {"int8", 10.0, 3.8e-3}, {"bf16", 15.0, 1.5e-3}}, 40, true);
    EXPECT_EQ(p.index, 2u);
    EXPECT_EQ(p.note.rfind("auto: bf16 (15.0 ms for a 40-word sentence, links within 1.5e-03 of fp32; fp32 20.0 ms; int8", 0), 0u)
        << p.note;
    EXPECT_EQ(p.note.find("bf16 not tried"), std::string::npos);
    // Within the bound but not 10% faster: fp32 stays (a different answer for no gain).
    p = pickPrecision({{"fp32", 20.0, 0.0}, {"bf16", 18.5, 1e-4}}, 40, true);
    EXPECT_EQ(p.index, 0u);
    // Exactly at the bound and at the ratio: kept.
    p = pickPrecision({{"fp32", 20.0, 0.0}, {"int8", 18.0, kAutoLinkBound}}, 40, false);
    EXPECT_EQ(p.index, 1u);
    // Two legal candidates: the faster.
    p = pickPrecision({{"fp32", 30.0, 0.0}, {"int8", 12.0, 1e-3}, {"bf16", 15.0, 1e-3}}, 40, true);
    EXPECT_EQ(p.index, 1u);
    // fp32 alone (a GPU without int8, no bf16 asked).
    p = pickPrecision({{"fp32", 5.0, 0.0}}, 12, true);
    EXPECT_EQ(p.index, 0u);
    EXPECT_EQ(p.note, "auto: fp32 (5.0 ms for a 12-word sentence)");
    // Another family's probe (a pretrained Transformer: attention over 40 pieces, its own bound).
    PrecisionProbe attention;
    attention.unit = "piece";
    attention.compared = "attention";
    attention.bound = 1e-3;
    p = pickPrecision({{"fp32", 20.0, 0.0}, {"bf16", 12.0, 1.5e-3}}, 40, true, attention);
    EXPECT_EQ(p.index, 0u);
    EXPECT_EQ(p.note, "auto: fp32 (20.0 ms for a 40-piece sentence; bf16 12.0 ms, attention off by 1.5e-03: too far from "
                      "fp32 here)");
    p = pickPrecision({{"fp32", 20.0, 0.0}, {"bf16", 12.0, 5e-4}}, 40, true, attention);
    EXPECT_EQ(p.index, 1u);
    EXPECT_EQ(p.note, "auto: bf16 (12.0 ms for a 40-piece sentence, attention within 5.0e-04 of fp32; fp32 20.0 ms)");
}

// The test-only override reports native bf16 present or absent whatever the CPU has.
TEST(TreeTransformerPrecision, CpuFeatureOverrideForTests)
{
    CpuFeatures zen3;
    zen3.avx2 = true;
    applyCpuFeatureOverride(zen3, "native");
    EXPECT_TRUE(zen3.nativeBf16());
    EXPECT_NE(zen3.flagList().find("[TREELENS_CPU_BF16=native]"), std::string::npos) << zen3.flagList();
    CpuFeatures zen4;
    zen4.avx512Bf16 = zen4.amxBf16 = true;
    applyCpuFeatureOverride(zen4, "none");
    EXPECT_FALSE(zen4.nativeBf16());
    CpuFeatures untouched;
    untouched.avx512Bf16 = true;
    applyCpuFeatureOverride(untouched, nullptr);
    applyCpuFeatureOverride(untouched, "maybe");
    EXPECT_TRUE(untouched.nativeBf16());
    EXPECT_TRUE(untouched.overridden.empty());
}

TEST(TreeTransformerPrecision, UnknownPrecisionsAndDevicesAreRefused)
{
    DeviceConfig dc;
    dc.precision = "fp16";
    EXPECT_FALSE(dc.validate().ok());
    for (const char *p : {"fp32", "bf16", "int8", "auto"}) {
        dc.precision = p;
        EXPECT_TRUE(dc.validate().ok()) << p;
    }
    // int8 runs on the CPU only: a CUDA device never reports it (no GPU needed to ask).
    EXPECT_FALSE(tt::int8Available(torch::Device(torch::kCUDA, 0)));
    // Without a GPU, --device cuda is an error and auto falls back to the CPU.
    if (!torch::cuda::is_available()) {
        const std::string model = shippedModel();
        if (model.empty())
            GTEST_SKIP() << "shipped model not found";
        DeviceConfig cuda;
        cuda.device = "cuda";
        auto bad = loadEncoder(model, cuda);
        ASSERT_FALSE(bad.ok());
        EXPECT_NE(bad.message().find("CUDA is not available"), std::string::npos) << bad.message();
        DeviceConfig autoDev;
        autoDev.device = "auto";
        autoDev.precision = "auto";
        auto fallback = loadEncoder(model, autoDev);
        ASSERT_TRUE(fallback.ok()) << fallback.message();
        EXPECT_EQ((*fallback)->info().device, "cpu");
    }
}

// Corpus batching sorts by length: every sentence's analysis equals its analysis
// alone (the official model's outputs for real tokens do not depend on padding),
// in input order, for analyze() and embed().
TEST(TreeTransformerBatching, SortedBatchesEqualOneSentenceAtATime)
{
    const std::string model = shippedModel();
    if (model.empty())
        GTEST_SKIP() << "shipped model not found";
    auto batched = open(model, "fp32", 3);
    auto single = open(model, "fp32", 1);
    ASSERT_TRUE(batched && single);
    std::vector<EncoderInput> batch;
    for (const auto &s : kSentences)
        batch.push_back(words(s));
    // Shuffle so the input order is neither sorted nor reverse sorted.
    std::mt19937 rng(3);
    std::shuffle(batch.begin(), batch.end(), rng);
    auto all = batched->analyze(batch);
    ASSERT_TRUE(all.ok()) << all.message();
    ASSERT_EQ(all->size(), batch.size());
    for (std::size_t i = 0; i < batch.size(); ++i) {
        auto one = single->analyze({batch[i]});
        ASSERT_TRUE(one.ok());
        const Analysis &x = (*all)[i], &y = one->front();
        EXPECT_EQ(x.words, batch[i].words);
        EXPECT_LT(maxDiff(x.linkProbs, y.linkProbs), 1e-5) << i;
        for (std::size_t l = 0; l < x.constituentPrior.size(); ++l) {
            EXPECT_LT(maxDiff(x.constituentPrior[l], y.constituentPrior[l]), 1e-5);
            for (std::size_t h = 0; h < x.attention[l].size(); ++h)
                EXPECT_LT(maxDiff(x.attention[l][h], y.attention[l][h]), 1e-5);
        }
        EXPECT_EQ(x.inducedBrackets, y.inducedBrackets);
        ASSERT_EQ(x.embedding.size(), y.embedding.size());
        for (std::size_t k = 0; k < x.embedding.size(); ++k)
            EXPECT_NEAR(x.embedding[k], y.embedding[k], 1e-4);
    }
    auto vectors = batched->embed(batch);
    ASSERT_TRUE(vectors.ok());
    for (std::size_t i = 0; i < batch.size(); ++i) {
        auto one = single->embed({batch[i]});
        ASSERT_TRUE(one.ok());
        for (std::size_t k = 0; k < one->front().size(); ++k)
            EXPECT_NEAR((*vectors)[i][k], one->front()[k], 1e-4);
    }
    // A bad sentence anywhere is named by its input position before anything runs.
    batch.insert(batch.begin() + 5, EncoderInput{});
    auto bad = batched->analyze(batch);
    ASSERT_FALSE(bad.ok());
    EXPECT_NE(bad.message().find("sentence 6"), std::string::npos) << bad.message();
}

// The row loop that replaces the official LayerNorm's six operators on the
// inference path equals the operators (the parity-tested definition) on random
// shapes and magnitudes, constant rows (std 0: divided by eps) included.
TEST(TreeTransformerLayerNorm, RowLoopEqualsTheOperators)
{
    torch::manual_seed(11);
    std::mt19937 rng(5);
    for (int trial = 0; trial < 200; ++trial) {
        const int64_t rows = std::uniform_int_distribution<int>(1, 90)(rng);
        const int64_t d = std::uniform_int_distribution<int>(2, 700)(rng);
        const double scale = std::pow(10.0, std::uniform_real_distribution<double>(-3, 3)(rng));
        auto x = torch::randn({rows, d}) * scale + std::uniform_real_distribution<double>(-5, 5)(rng) * scale;
        if (trial % 17 == 0)
            x[0].fill_(3.25); // a constant row
        auto a = torch::randn({d}), b = torch::randn({d});
        const double eps = trial % 2 ? 1e-6 : 1e-5;
        auto want = tt::officialLayerNorm(x, a, b, eps);
        auto got = tt::officialLayerNormRows(x, a, b, eps);
        const double tol = 1e-5 * std::max(1.0, want.abs().max().item<double>());
        EXPECT_LT((got - want).abs().max().item<double>(), tol) << "rows " << rows << " d " << d << " scale " << scale;
    }
    // A 3-d batch is normalised over its last dimension, non-contiguous input too.
    auto x = torch::randn({3, 7, 16}).transpose(0, 1);
    auto a = torch::rand({16}), b = torch::rand({16});
    EXPECT_LT((tt::officialLayerNormRows(x, a, b, 1e-6) - tt::officialLayerNorm(x, a, b, 1e-6)).abs().max().item<double>(), 1e-5);
}

// With more than one thread, an inference pass gives its GEMMs' library the threads
// and the other pool one (docs/performance.md, "Threads"), and restores both after;
// with one thread nothing changes. The pass's results do not depend on it.
TEST(TreeTransformerThreads, TheGemmLibraryGetsTheThreadsForOnePass)
{
    if (blasThreads() == 0)
        GTEST_SKIP() << "LibTorch's BLAS here is not OpenBLAS";
    const int before = cpuThreads();
    setCpuThreads(2);
    ASSERT_EQ(cpuThreads(), 2);
    ASSERT_EQ(blasThreads(), 2);
    {
        ThreadScope fp32(0, ThreadScope::Gemms::OpenBlas); // OpenBLAS runs the GEMMs: LibTorch's OpenMP pool steps aside
        EXPECT_EQ(cpuThreads(), 1);
        EXPECT_EQ(blasThreads(), 2);
        ThreadScope nested(0, ThreadScope::Gemms::OpenBlas); // already one: nothing to change or restore
        EXPECT_EQ(cpuThreads(), 1);
    }
    EXPECT_EQ(cpuThreads(), 2);
    EXPECT_EQ(blasThreads(), 2);
    {
        ThreadScope int8(0, ThreadScope::Gemms::OneDnn); // oneDNN (OpenMP) runs them: OpenBLAS steps aside
        EXPECT_EQ(cpuThreads(), 2);
        EXPECT_EQ(blasThreads(), 1);
    }
    EXPECT_EQ(blasThreads(), 2);
    setCpuThreads(1);
    {
        ThreadScope one(0, ThreadScope::Gemms::OpenBlas);
        EXPECT_EQ(cpuThreads(), 1);
        EXPECT_EQ(blasThreads(), 1);
    }

    // Two threads give the one-thread analysis (fp32 and int8).
    const std::string model = shippedModel();
    if (!model.empty()) {
        for (const char *precision : {"fp32", "int8"}) {
            auto enc = open(model, precision);
            ASSERT_TRUE(enc);
            const auto in = words("the cat that the dog chased sat on the mat near the door");
            setCpuThreads(1);
            auto one = enc->analyze({in});
            setCpuThreads(2);
            auto two = enc->analyze({in});
            ASSERT_TRUE(one.ok() && two.ok());
            EXPECT_EQ(cpuThreads(), 2) << precision;
            EXPECT_LT(maxDiff((*one)[0].linkProbs, (*two)[0].linkProbs), 1e-5) << precision;
        }
    }
    setCpuThreads(before > 0 ? before : 1);
}
