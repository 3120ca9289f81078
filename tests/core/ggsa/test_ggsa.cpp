// GGSA / iGGSA against independent references: the reference fixture (its
// README is the specification), the README's hand-worked group layouts and
// complexity table, and a hand-computed softmax for a 5-token example.
#include <cmath>
#include <fstream>
#include <random>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "core/encoders/fixture.h"
#include "core/encoders/ggsa/ggsa.h"
#include "core/encoders/ggsa/ggsaconfig.h"
#include "core/encoders/ggsa/ggsanet.h"
#include "core/model/modelfile.h"
#include "testutil.h"

using namespace treelens;

namespace {

GgsaConfig smallConfig(bool interaction, const std::string &composition)
{
    GgsaConfig c;
    c.dModel = 12;
    c.heads = 3;
    c.groupSize = 3;
    c.offsets = {0, 1, 2};
    c.layers = 2;
    c.dFF = 20;
    c.dMlp = 8;
    c.vocabSize = 30;
    c.maxLen = 64;
    c.interaction = interaction;
    c.composition = composition;
    return c;
}

} // namespace

TEST(GgsaLayout, MatchesTheReadmeTables)
{
    // README step 2, q1 (L = 8), head 2 (o = 1): "0:who 1:wrote 2:the | 3:novel ... 6:prejudice | 7:?"
    const auto groups = ggsaGroups(8, 1, 4);
    ASSERT_EQ(groups.size(), 3u);
    EXPECT_EQ(groups[0], std::make_pair(0, 3));
    EXPECT_EQ(groups[1], std::make_pair(3, 7));
    EXPECT_EQ(groups[2], std::make_pair(7, 8));
    EXPECT_EQ(ggsaGroupSpan(5, 8, 1, 4), std::make_pair(3, 7));
    EXPECT_EQ(ggsaGroupId(7, 1, 4), 2);
    // Complexity table: q1 P_h = [32, 32, 26, 26]; a0 (L = 14) [52, 52, 50, 50].
    EXPECT_EQ(ggsaPairsGroup(8, 0, 4), 32);
    EXPECT_EQ(ggsaPairsGroup(8, 1, 4), 26);
    EXPECT_EQ(ggsaPairsGroup(14, 0, 4), 52);
    EXPECT_EQ(ggsaPairsGroup(14, 1, 4), 50);
    // The paper's setting: L = 200, l = 10: 2000 (o = 0) and 1950 (o = 5); blocked slots 2000 and 2100.
    EXPECT_EQ(ggsaPairsGroup(200, 0, 10), 2000);
    EXPECT_EQ(ggsaPairsGroup(200, 5, 10), 1950);
    EXPECT_EQ(ggsaSlotsBlocked(200, 0, 10), 2000);
    EXPECT_EQ(ggsaSlotsBlocked(200, 5, 10), 2100);
    // Offset 0 with l >= L: one group, the global mask.
    EXPECT_EQ(ggsaGroups(5, 0, 8).size(), 1u);
}

TEST(GgsaNet, HandComputedGroupAttention)
{
    // README self-check 1: 5 tokens, 1 head, d = 2, l = 2, offset 1: groups {0}, {1,2}, {3,4}.
    GgsaConfig c;
    c.dModel = 2;
    c.heads = 1;
    c.groupSize = 2;
    c.offsets = {1};
    c.layers = 1;
    c.dFF = 2;
    c.dMlp = 2;
    c.vocabSize = 4;
    auto net = ggsa::Net::fromTensors(c, ggsa::Net::randomTensors(c, 1), torch::Device(torch::kCPU), "test");
    ASSERT_TRUE(net) << net.message();
    const double qv[5][2] = {{0.5, -1.0}, {1.0, 0.2}, {-0.3, 0.8}, {0.7, 0.7}, {-1.2, 0.1}};
    const double kv[5][2] = {{0.1, 0.4}, {-0.6, 1.1}, {0.9, -0.2}, {0.3, 0.3}, {1.5, -0.7}};
    const double vv[5][2] = {{1, 0}, {0, 1}, {2, 3}, {-1, 4}, {5, -2}};
    auto tq = torch::empty({1, 1, 5, 2}), tk = torch::empty({1, 1, 5, 2}), tv = torch::empty({1, 1, 5, 2});
    for (int i = 0; i < 5; ++i)
        for (int j = 0; j < 2; ++j) {
            tq[0][0][i][j] = qv[i][j];
            tk[0][0][i][j] = kv[i][j];
            tv[0][0][i][j] = vv[i][j];
        }
    auto mask = torch::ones({1, 5}, torch::kBool);
    torch::Tensor w;
    auto dense = net->groupAttention(tq, tk, tv, mask, ggsa::AttentionKernel::Dense, &w);
    auto blocked = net->groupAttention(tq, tk, tv, mask, ggsa::AttentionKernel::Blocked);
    const int group[5] = {0, 1, 1, 2, 2};
    for (int i = 0; i < 5; ++i) {
        double z = 0, out[2] = {0, 0}, e[5] = {};
        for (int j = 0; j < 5; ++j)
            if (group[j] == group[i]) {
                e[j] = std::exp((qv[i][0] * kv[j][0] + qv[i][1] * kv[j][1]) / std::sqrt(2.0));
                z += e[j];
            }
        for (int j = 0; j < 5; ++j) {
            EXPECT_NEAR(w[0][0][i][j].item<double>(), e[j] / z, 1e-6) << i << "," << j;
            out[0] += e[j] / z * vv[j][0];
            out[1] += e[j] / z * vv[j][1];
        }
        for (int d = 0; d < 2; ++d) {
            EXPECT_NEAR(dense[0][0][i][d].item<double>(), out[d], 1e-5);
            EXPECT_NEAR(blocked[0][0][i][d].item<double>(), out[d], 1e-5);
        }
    }
}

TEST(GgsaNet, BlockedEqualsDenseAndPaddingChangesNothing)
{
    for (const bool inter : {false, true}) {
        GgsaConfig c = smallConfig(inter, inter ? "attention" : "max");
        c.overlapFeature = inter; // the optional word-overlap input must keep padding invariance too
        auto net = ggsa::Net::fromTensors(c, ggsa::Net::randomTensors(c, 7), torch::Device(torch::kCPU), "test");
        ASSERT_TRUE(net) << net.message();
        torch::NoGradGuard g;
        std::mt19937 rng(3);
        const std::vector<int> qLens = {5, 9, 1}, aLens = {13, 4, 7};
        const int Lq = 9 + 3, La = 13 + 5; // extra pads
        auto qIds = torch::zeros({3, Lq}, torch::kLong), aIds = torch::zeros({3, La}, torch::kLong);
        auto qMask = torch::zeros({3, Lq}, torch::kBool), aMask = torch::zeros({3, La}, torch::kBool);
        for (int b = 0; b < 3; ++b) {
            for (int i = 0; i < qLens[b]; ++i) {
                qIds[b][i] = static_cast<int>(2 + rng() % 28);
                qMask[b][i] = true;
            }
            for (int i = 0; i < aLens[b]; ++i) {
                aIds[b][i] = static_cast<int>(2 + rng() % 28);
                aMask[b][i] = true;
            }
        }
        auto batched = net->forward(qIds, qMask, aIds, aMask, ggsa::AttentionKernel::Blocked);
        auto dense = net->forward(qIds, qMask, aIds, aMask, ggsa::AttentionKernel::Dense);
        EXPECT_LT((batched.cosine - dense.cosine).abs().max().item<double>(), 1e-5);
        EXPECT_LT((batched.logits - dense.logits).abs().max().item<double>(), 1e-5);
        for (int b = 0; b < 3; ++b) {
            auto qi = qIds[b].slice(0, 0, qLens[b]).unsqueeze(0), ai = aIds[b].slice(0, 0, aLens[b]).unsqueeze(0);
            auto one = net->forward(qi, torch::ones_like(qi, torch::kBool), ai, torch::ones_like(ai, torch::kBool),
                                    ggsa::AttentionKernel::Dense, false, true);
            EXPECT_NEAR(one.cosine[0].item<double>(), batched.cosine[b].item<double>(), 1e-5);
            EXPECT_LT((one.va[0] - batched.va[b]).abs().max().item<double>(), 1e-5);
            // Group attention is exactly 0 outside the group and rows sum to 1.
            auto a = one.a.localAttn[0];
            for (int k = 0; k < c.layers; ++k)
                for (int h = 0; h < c.heads; ++h)
                    for (int i = 0; i < aLens[b]; ++i) {
                        const auto [s, e] = ggsaGroupSpan(i, aLens[b], c.offsets[static_cast<std::size_t>(h)], c.groupSize);
                        double sum = 0;
                        for (int j = 0; j < aLens[b]; ++j) {
                            const double x = a[k][h][i][j].item<double>();
                            sum += x;
                            if (j < s || j >= e) {
                                EXPECT_EQ(x, 0.0);
                            }
                        }
                        EXPECT_NEAR(sum, 1.0, 1e-5);
                    }
        }
    }
}

TEST(GgsaFixture, ReproducesEveryTensorOfThePublicFixture)
{
    TREELENS_REQUIRE_SHARED("fixtures/ggsa-reference/expected.json");
    const std::string dir = test::sharedPath("fixtures/ggsa-reference");
    auto req = readFixtureDirectory(dir);
    ASSERT_TRUE(req) << req.message();
    auto family = fixtureFamily(*req);
    ASSERT_TRUE(family) << family.message();
    EXPECT_EQ((*family)->name, "ggsa");
    auto computed = (*family)->computeFixture(*req);
    ASSERT_TRUE(computed) << computed.message();
    std::ifstream in(dir + "/expected.json");
    const std::string expected((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    auto report = compareWithExpected(*computed, expected, "expected.json");
    ASSERT_TRUE(report) << report.message();
    EXPECT_GT(report->checks.size(), 150u);
    for (const auto &c : report->checks)
        EXPECT_TRUE(c.ok) << c.name << " " << c.problem << " " << c.maxAbsDiff;
    EXPECT_TRUE(report->passed());
}

TEST(GgsaImport, SubmodelsAndShapesAreChecked)
{
    TREELENS_REQUIRE_SHARED("fixtures/ggsa-reference/state_dict.pt");
    auto req = readFixtureDirectory(test::sharedPath("fixtures/ggsa-reference"));
    ASSERT_TRUE(req) << req.message();
    ImportRequest ir;
    ir.tensors = req->stateDict;
    ir.checkpointPath = "state_dict.pt";
    ir.configJson = req->configJson;
    ir.configPath = "config.json";
    auto none = importGgsaCheckpoint(ir);
    ASSERT_FALSE(none);
    EXPECT_NE(none.message().find("ggsa, iggsa"), std::string::npos) << none.message();
    EXPECT_NE(none.message().find("--submodel"), std::string::npos);
    ir.submodel = "iggsa";
    auto ok = importGgsaCheckpoint(ir);
    ASSERT_TRUE(ok) << ok.message();
    EXPECT_NE(ok->configJson.find("\"interaction\":true"), std::string::npos);
    EXPECT_TRUE(ok->tensors.count("a_enc.layers.0.inter_ffn.w1.weight"));
    ImportRequest bad = ir;
    auto &t = bad.tensors.at("iggsa.q_enc.layers.1.gate.bias");
    t = TensorData::fromFloat({3}, {0, 0, 0});
    auto wrong = importGgsaCheckpoint(bad);
    ASSERT_FALSE(wrong);
    EXPECT_NE(wrong.message().find("q_enc.layers.1.gate.bias"), std::string::npos) << wrong.message();
}

TEST(GgsaEncoder, AnalysesPairsAndSingleSentences)
{
    const GgsaConfig c = smallConfig(true, "attention");
    ModelFile file;
    nlohmann::json cfg = {{"family", "ggsa"}, {"task", "answer-selection"}, {"name", "t"}, {"model", nlohmann::json::parse(c.toJson())}};
    file.configJson = cfg.dump();
    for (int i = 0; i < c.vocabSize; ++i)
        file.vocab.push_back(i == 0 ? "<pad>" : i == 1 ? "<unk>" : "w" + std::to_string(i));
    file.tensors = ggsa::Net::randomTensors(c, 11);
    const EncoderFamily *f = findEncoderFamily("ggsa");
    ASSERT_NE(f, nullptr);
    DeviceConfig dc;
    dc.device = "cpu";
    auto enc = f->create(file, dc);
    ASSERT_TRUE(enc) << enc.message();
    EncoderInput pair;
    pair.words = {"w2", "W3", "w4", "zzz"};
    pair.secondWords = {"w5", "w6", "w7", "w8", "w9"};
    EncoderInput single;
    single.words = {"w2", "w3"};
    auto r = (*enc)->analyze({pair, single});
    ASSERT_TRUE(r) << r.message();
    const Analysis &a = (*r)[0];
    ASSERT_TRUE(a.prediction);
    EXPECT_EQ(a.prediction->probabilities.size(), 2u);
    ASSERT_EQ(a.second.size(), 1u);
    EXPECT_EQ(a.attention.size(), 2u);
    EXPECT_EQ(a.attention[0].size(), 3u);
    EXPECT_EQ(a.attention[0][0].rows, 4);
    EXPECT_EQ(a.second[0].attention[1][2].rows, 5);
    ASSERT_EQ(a.crossAttention.size(), 1u);
    EXPECT_EQ(a.crossAttention[0].cols, 5);
    EXPECT_EQ(a.unknownWords->size(), 1u); // "zzz"; "W3" is lower-cased first
    EXPECT_EQ(a.gates.at("token_gate.mean").shape, (std::vector<int>{2, 4}));
    EXPECT_EQ(a.second[0].gates.at("pair_interaction.norm").shape, (std::vector<int>{2, 5}));
    EXPECT_EQ((*r)[1].second.size(), 0u);
    EXPECT_FALSE((*r)[1].prediction);
    // The score alone (no attention) is the same number.
    AnalyzeOptions fast;
    fast.attention = false;
    auto s = (*enc)->analyze({pair}, fast);
    ASSERT_TRUE(s) << s.message();
    EXPECT_NEAR(s->front().prediction->score, a.prediction->score, 1e-5);
}

TEST(GgsaNet, OverlapIndicatorMarksSharedKnownWords)
{
    GgsaConfig c = smallConfig(false, "max");
    c.overlapFeature = true;
    auto net = ggsa::Net::fromTensors(c, ggsa::Net::randomTensors(c, 5), torch::Device(torch::kCPU), "test");
    ASSERT_TRUE(net) << net.message();
    // q = [5, 7, 1(unk), 9, pad], a = [7, 1(unk), 4, 9(pad slot, masked)]
    auto q = torch::tensor({5, 7, 1, 9, 0}, torch::kLong).unsqueeze(0);
    auto qm = torch::tensor({1, 1, 1, 1, 0}, torch::kBool).unsqueeze(0);
    auto a = torch::tensor({7, 1, 4, 9}, torch::kLong).unsqueeze(0);
    auto am = torch::tensor({1, 1, 1, 0}, torch::kBool).unsqueeze(0);
    auto o = net->overlapIndicator(q, qm, a, am);
    const std::vector<std::int64_t> want = {0, 1, 0, 0, 0}; // 7 shared; unk never; 9 only in a pad slot
    for (int i = 0; i < 5; ++i)
        EXPECT_EQ(o[0][i].item<std::int64_t>(), want[static_cast<std::size_t>(i)]) << i;
    EXPECT_TRUE(ggsa::Net::parameterShapes(c).count("overlap.weight"));
    EXPECT_FALSE(ggsa::Net::parameterShapes(smallConfig(false, "max")).count("overlap.weight"));
}
