// The Tree Aggregation Transformer against independent references: the fixture
// README's decoded node tables (inputs.json), the reference fixture's tensors,
// and the recursive node-by-node evaluation the level batching must equal.
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "core/encoders/encoder.h"
#include "core/encoders/fixture.h"
#include "core/encoders/tat/tat.h"
#include "core/encoders/tat/tatnet.h"
#include "core/formats/ptb.h"
#include "core/model/modelfile.h"
#include "testutil.h"

using namespace treelens;
using nlohmann::json;

namespace {

const char *kFixture = "fixtures/tree-aggregation-transformer-reference";

std::string readText(const std::string &path)
{
    std::ifstream in(path);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

struct Loaded {
    TatConfig config;
    TatTags tags;
    tat::Net net;
    json inputs;
};

/// The fixture's weights through the import path, as a Net on the CPU.
Loaded loadFixture()
{
    auto req = readFixtureDirectory(test::sharedPath(kFixture));
    EXPECT_TRUE(req) << req.message();
    ImportRequest ir = importRequestFor(*req);
    auto file = importTatCheckpoint(ir);
    EXPECT_TRUE(file) << file.message();
    const json c = json::parse(file->configJson);
    auto cfg = TatConfig::fromJson(c.at("model").dump());
    EXPECT_TRUE(cfg) << cfg.message();
    auto tags = TatTags::fromLabels(c.at("tags").get<std::vector<std::string>>(), "tags");
    EXPECT_TRUE(tags);
    auto net = tat::Net::fromTensors(*cfg, file->tensors, torch::Device(torch::kCPU), "fixture");
    EXPECT_TRUE(net) << net.message();
    return {*cfg, *tags, std::move(*net), json::parse(req->inputsJson)};
}

TatTree treeOf(const std::string &ptb, const Loaded &l)
{
    auto trees = readPtb(ptb, "test");
    EXPECT_TRUE(trees && trees->size() == 1);
    auto t = tatTree(trees->front(), l.tags, l.config);
    EXPECT_TRUE(t) << t.message();
    return *t;
}

std::vector<tat::PairInput> fixturePairs(const Loaded &l)
{
    std::vector<tat::PairInput> pairs;
    for (const auto &p : l.inputs.at("pairs"))
        pairs.push_back(tat::makePair(p["question"]["token_ids"].get<std::vector<std::int64_t>>(), treeOf(p["question"]["ptb"], l),
                                      p["answer"]["token_ids"].get<std::vector<std::int64_t>>(), treeOf(p["answer"]["ptb"], l),
                                      l.config));
    return pairs;
}

} // namespace

TEST(TatTree, NodeTablesAreTheFixturesDecodedTables)
{
    TREELENS_REQUIRE_SHARED(std::string(kFixture) + "/inputs.json");
    const Loaded l = loadFixture();
    int checked = 0;
    for (const auto &p : l.inputs.at("pairs"))
        for (const char *sideName : {"question", "answer"}) {
            const json &side = p.at(sideName);
            const TatTree t = treeOf(side.at("ptb"), l);
            ASSERT_EQ(t.nodes.size(), side.at("nodes").size()) << side["ptb"];
            EXPECT_EQ(t.wordTags, side.at("pos_tag_ids").get<std::vector<int>>());
            for (std::size_t v = 0; v < t.nodes.size(); ++v) {
                const json &want = side["nodes"][v];
                const TatNode &got = t.nodes[v];
                EXPECT_EQ(got.label, want.at("label"));
                EXPECT_EQ(got.tag, want.at("tag_id").get<int>());
                EXPECT_EQ(got.level, want.at("level").get<int>());
                EXPECT_EQ(got.start, want["span"][0].get<int>());
                EXPECT_EQ(got.end, want["span"][1].get<int>());
                EXPECT_EQ(got.length(), want.at("seq_len").get<int>());
                EXPECT_EQ(got.parent, want.at("parent").get<int>());
                ASSERT_EQ(got.children.size(), want.at("children").size());
                for (std::size_t k = 0; k < got.children.size(); ++k) {
                    const json &wc = want["children"][k];
                    EXPECT_EQ(got.children[k].node, wc.contains("node"));
                    EXPECT_EQ(got.children[k].index, wc.contains("node") ? wc["node"].get<int>() : wc["word"].get<int>());
                }
                ++checked;
            }
            // The LM positions of the words and of the start/end tokens.
        }
    EXPECT_GT(checked, 30);
    const auto pairs = fixturePairs(l);
    for (std::size_t i = 0; i < pairs.size(); ++i) {
        const json &p = l.inputs["pairs"][i];
        EXPECT_EQ(pairs[i].ids, p.at("lm_input_ids").get<std::vector<std::int64_t>>());
        for (int s = 0; s < 2; ++s) {
            const json &side = p.at(s == 0 ? "question" : "answer");
            EXPECT_EQ(pairs[i].side[s].wordPositions, side.at("lm_positions").get<std::vector<int>>());
            EXPECT_EQ(pairs[i].side[s].startPosition, side.at("start_position").get<int>());
            EXPECT_EQ(pairs[i].side[s].endPosition, side.at("end_position").get<int>());
        }
    }
}

TEST(TatFixture, ReproducesEveryTensorOfThePublicFixture)
{
    TREELENS_REQUIRE_SHARED(std::string(kFixture) + "/expected.json");
    const std::string dir = test::sharedPath(kFixture);
    auto req = readFixtureDirectory(dir);
    ASSERT_TRUE(req) << req.message();
    auto family = fixtureFamily(*req);
    ASSERT_TRUE(family) << family.message();
    EXPECT_EQ((*family)->name, "tree-aggregation-transformer");
    auto computed = (*family)->computeFixture(*req);
    ASSERT_TRUE(computed) << computed.message();
    auto report = compareWithExpected(*computed, readText(dir + "/expected.json"), "expected.json", fixtureTolerance(*req));
    ASSERT_TRUE(report) << report.message();
    EXPECT_DOUBLE_EQ(report->tolerance, 1e-5); // config.json's: this expected.json states none
    EXPECT_GT(report->checks.size(), 130u);
    for (const auto &c : report->checks)
        EXPECT_TRUE(c.ok) << c.name << " " << c.problem << " " << c.maxAbsDiff;
}

TEST(TatNet, LevelBatchingEqualsNodeByNodeEvaluation)
{
    TREELENS_REQUIRE_SHARED(std::string(kFixture) + "/state_dict.pt");
    const Loaded l = loadFixture();
    torch::NoGradGuard ng;
    // The fixture's pairs, each pair twice and in a batch with the others (padding across pairs and levels).
    auto pairs = fixturePairs(l);
    auto more = fixturePairs(l);
    pairs.insert(pairs.end(), more.begin(), more.end());
    const auto batched = l.net.forward(pairs, true, false);
    const auto single = l.net.forward(pairs, true, true);
    int deepest = 0, nodes = 0;
    for (const auto &p : pairs)
        for (const auto &s : p.side) {
            nodes += static_cast<int>(s.tree.nodes.size());
            for (const auto &n : s.tree.nodes)
                deepest = std::max(deepest, n.level);
        }
    EXPECT_EQ(batched.layerCalls, deepest + 1);
    EXPECT_EQ(single.layerCalls, nodes);
    EXPECT_LT((batched.logits - single.logits).abs().max().item<float>(), 1e-5f);
    EXPECT_LT((batched.logitsRes - single.logitsRes).abs().max().item<float>(), 1e-5f);
    for (std::size_t b = 0; b < pairs.size(); ++b)
        for (int s = 0; s < 2; ++s) {
            const auto &x = batched.sides[b][static_cast<std::size_t>(s)], &y = single.sides[b][static_cast<std::size_t>(s)];
            EXPECT_LT((x.nodeSem - y.nodeSem).abs().max().item<float>(), 1e-5f);
            EXPECT_LT((x.nodeSyn - y.nodeSyn).abs().max().item<float>(), 1e-5f);
            EXPECT_LT((x.attnSem - y.attnSem).abs().max().item<float>(), 1e-6f);
            // Padded keys get exactly zero weight; real keys sum to 1 per head.
            const auto sums = x.attnSem.sum(-1);
            EXPECT_LT((sums - 1).abs().max().item<float>(), 1e-5f);
        }
    // One pair alone gives what it gives inside the batch.
    const auto alone = l.net.forward({pairs[1]}, false, false);
    EXPECT_LT((alone.logits[0] - batched.logits[1]).abs().max().item<float>(), 1e-5f);
}

TEST(TatTree, DeepTreesAndWideNodesAreRefusedByNameWithoutRecursion)
{
    TatConfig cfg;
    cfg.maxLevels = 16;
    cfg.maxSpanPositions = 6;
    auto tags = TatTags::fromLabels({"NN", "NP", "S"}, "tags");
    ASSERT_TRUE(tags);
    // 1,000 nested NPs over one word: built by hand (no reader recursion), walked iteratively.
    ConstituencyTree deep;
    int parent = deep.addNode("S", -1);
    for (int i = 0; i < 1000; ++i)
        parent = deep.addNode("NP", parent);
    const int pre = deep.addNode("NN", parent);
    deep.addNode("dog", pre, true);
    deep.renumberWords();
    auto refused = tatTree(deep, *tags, cfg);
    ASSERT_FALSE(refused);
    EXPECT_NE(refused.message().find("phrases deep"), std::string::npos) << refused.message();
    TatConfig roomy = cfg;
    roomy.maxLevels = 2000;
    auto ok = tatTree(deep, *tags, roomy);
    ASSERT_TRUE(ok) << ok.message();
    EXPECT_EQ(ok->nodes.size(), 1001u);
    EXPECT_EQ(ok->nodes.back().label, "S");
    EXPECT_EQ(ok->nodes.front().level, 1000);
    // A node with more children than the span positions allow.
    ConstituencyTree wide;
    const int s = wide.addNode("S", -1);
    for (int i = 0; i < 5; ++i)
        wide.addNode("w" + std::to_string(i), wide.addNode("NN", s), true);
    wide.renumberWords();
    auto tooWide = tatTree(wide, *tags, cfg);
    ASSERT_FALSE(tooWide);
    EXPECT_NE(tooWide.message().find("5 children"), std::string::npos) << tooWide.message();
    // Tags outside the inventory; a function tag falls back to its base label.
    auto trees = readPtb("(S (NP-SBJ (NN dog)) (VB barks))", "t");
    ASSERT_TRUE(trees);
    auto unknown = tatTree(trees->front(), *tags, cfg);
    ASSERT_FALSE(unknown);
    EXPECT_NE(unknown.message().find("'VB'"), std::string::npos) << unknown.message();
    auto fine = readPtb("(S (NP-SBJ-1 (NN dog)) (NN barks))", "t");
    ASSERT_TRUE(fine);
    auto t = tatTree(fine->front(), *tags, cfg);
    ASSERT_TRUE(t) << t.message();
    EXPECT_EQ(t->nodes.front().tag, tags->id("NP"));
}

TEST(TatImport, RefusesAConfigurationItsTensorsDoNotMatch)
{
    TREELENS_REQUIRE_SHARED(std::string(kFixture) + "/state_dict.pt");
    auto req = readFixtureDirectory(test::sharedPath(kFixture));
    ASSERT_TRUE(req) << req.message();
    ImportRequest ir;
    ir.tensors = req->stateDict;
    ir.checkpointPath = "state_dict.pt";
    ir.configPath = "config.json";
    json c = json::parse(req->configJson);
    c["tat"]["d_syn_emb"] = 10;
    ir.configJson = c.dump();
    auto wrong = importTatCheckpoint(ir);
    ASSERT_FALSE(wrong);
    // The first tensor d_syn_emb sizes (the embedding tables, the projection) is named with both shapes.
    EXPECT_NE(wrong.message().find("state_dict.pt: tensor 'tat."), std::string::npos) << wrong.message();
    EXPECT_NE(wrong.message().find(", 12], expected ["), std::string::npos) << wrong.message();
    c = json::parse(req->configJson);
    c["tat"]["layer_norm"] = true;
    ir.configJson = c.dump();
    auto ln = importTatCheckpoint(ir);
    ASSERT_FALSE(ln);
    EXPECT_NE(ln.message().find("layer_norm"), std::string::npos) << ln.message();
    c = json::parse(req->configJson);
    c["tags"].erase(c["tags"].end() - 1);
    ir.configJson = c.dump();
    auto tags = importTatCheckpoint(ir);
    ASSERT_FALSE(tags);
    EXPECT_NE(tags.message().find("n_tags"), std::string::npos) << tags.message();
}

TEST(TatTree, ThePennTreebankInventoryIsTheFixturesTagList)
{
    TREELENS_REQUIRE_SHARED(std::string(kFixture) + "/config.json");
    const json c = json::parse(readText(test::sharedPath(kFixture) + "/config.json"));
    EXPECT_EQ(pennTreebankTags(), c.at("tags").get<std::vector<std::string>>());
}

TEST(TatEncoder, ScoresTheFixturesPairsAsTheFixtureSaysAndCarriesTheNodeAttention)
{
    TREELENS_REQUIRE_SHARED(std::string(kFixture) + "/expected.json");
    auto req = readFixtureDirectory(test::sharedPath(kFixture));
    ASSERT_TRUE(req) << req.message();
    ImportRequest ir = importRequestFor(*req);
    auto file = importTatCheckpoint(ir);
    ASSERT_TRUE(file) << file.message();
    const EncoderFamily *family = findEncoderFamily("tree-aggregation-transformer");
    ASSERT_NE(family, nullptr);
    DeviceConfig dc;
    dc.device = "cpu";
    dc.batchSize = 2; // the three pairs in two batches
    auto enc = family->create(*file, dc);
    ASSERT_TRUE(enc) << enc.message();
    EXPECT_TRUE((*enc)->info().pairInput);
    EXPECT_EQ((*enc)->info().input, InputKind::WordsWithConstituency);
    const json inputs = json::parse(req->inputsJson);
    const json expected = json::parse(readText(test::sharedPath(kFixture) + "/expected.json"));
    std::vector<EncoderInput> batch;
    for (const auto &p : inputs.at("pairs")) {
        auto q = readPtb(p["question"]["ptb"].get<std::string>(), "q");
        auto a = readPtb(p["answer"]["ptb"].get<std::string>(), "a");
        ASSERT_TRUE(q && a);
        batch.push_back(EncoderInput{p["question"]["tokens"].get<std::vector<std::string>>(), std::nullopt, q->front(),
                                     p["answer"]["tokens"].get<std::vector<std::string>>(), std::nullopt, a->front()});
    }
    auto r = (*enc)->analyze(batch);
    ASSERT_TRUE(r) << r.message();
    ASSERT_EQ(r->size(), batch.size());
    for (std::size_t i = 0; i < r->size(); ++i) {
        const Analysis &x = (*r)[i];
        ASSERT_TRUE(x.prediction);
        const double want = expected["tensors"]["p" + std::to_string(i) + ".score"]["data"].get<double>();
        EXPECT_NEAR(x.prediction->score, want, 1e-5) << i;
        ASSERT_EQ(x.second.size(), 1u);
        // Node attention: one entry per phrase, children as targets, 2 streams x heads rows.
        const auto &nodes = inputs["pairs"][i]["question"]["nodes"];
        ASSERT_EQ(x.nodeAttention.size(), nodes.size());
        const auto &attn = expected["tensors"]["p" + std::to_string(i) + ".q.attn_sem"]["data"];
        for (std::size_t v = 0; v < nodes.size(); ++v) {
            const auto &na = x.nodeAttention[v];
            ASSERT_EQ(na.targets.size(), nodes[v]["children"].size());
            ASSERT_EQ(na.weights.size(), 4u);
            for (std::size_t k = 0; k < na.targets.size(); ++k) {
                const json &ch = nodes[v]["children"][k];
                EXPECT_EQ(na.targets[k], ch.contains("node") ? ch["node"].get<int>() : -1 - ch["word"].get<int>());
                EXPECT_NEAR(na.weights[1][k], attn[v][1][k + 1].get<double>(), 1e-5); // semantic head 2 on child k
            }
        }
    }
    // A pair without trees, or a single sentence, is refused by name.
    EncoderInput noTrees{{"Where", "?"}, std::nullopt, std::nullopt, {"Here", "."}, std::nullopt, std::nullopt};
    auto refused = (*enc)->analyze({noTrees});
    ASSERT_FALSE(refused);
    EXPECT_NE(refused.message().find("constituency trees of both sentences"), std::string::npos) << refused.message();
}
