// The Dependency-Transformer against independent references: the README's
// hand-worked relation matrix for "The old man saw a red kite ." and the
// reference fixture (its README is the specification).
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/encoders/deptransformer/deptreefeatures.h"
#include "core/encoders/encoder.h"
#include "core/encoders/fixture.h"
#include "core/model/modelfile.h"
#include "testutil.h"

using namespace treelens;

namespace {

RelationVocabulary relations()
{
    auto r = RelationVocabulary::fromLabels({"[pad]", "[none]", "[self]", "det", "amod", "nsubj", "root", "obj", "punct",
                                             "nmod", "dep", "2:0", "1:1", "0:2", "3:0", "2:1", "1:2", "0:3"},
                                            "test");
    EXPECT_TRUE(r) << r.message();
    return *r;
}

} // namespace

TEST(DepTreeFeatures, RelationMatrixOfTheReadmeExample)
{
    // "The old man saw a red kite ." heads 3 3 4 0 7 7 4 4.
    DependencyTree t;
    t.heads = {3, 3, 4, 0, 7, 7, 4, 4};
    t.deprels = {"det", "amod", "nsubj", "root", "det", "amod", "obj", "punct"};
    const RelationVocabulary rel = relations();
    auto f = depTreeFeatures(t, rel, 3, 8);
    ASSERT_TRUE(f) << f.message();
    EXPECT_EQ(f->n1, 9);
    EXPECT_EQ(f->depth, (std::vector<int>{0, 3, 3, 2, 1, 3, 3, 2, 2}));
    // The README's table, row by row ([root] The old man saw a red kite .).
    const std::vector<std::vector<std::string>> want = {
        {"[self]", "0:3", "0:3", "0:2", "root", "0:3", "0:3", "0:2", "0:2"},
        {"3:0", "[self]", "1:1", "det", "2:0", "[none]", "[none]", "2:1", "2:1"},
        {"3:0", "1:1", "[self]", "amod", "2:0", "[none]", "[none]", "2:1", "2:1"},
        {"2:0", "det", "amod", "[self]", "nsubj", "1:2", "1:2", "1:1", "1:1"},
        {"root", "0:2", "0:2", "nsubj", "[self]", "0:2", "0:2", "obj", "punct"},
        {"3:0", "[none]", "[none]", "2:1", "2:0", "[self]", "1:1", "det", "2:1"},
        {"3:0", "[none]", "[none]", "2:1", "2:0", "1:1", "[self]", "amod", "2:1"},
        {"2:0", "1:2", "1:2", "1:1", "obj", "det", "amod", "[self]", "1:1"},
        {"2:0", "1:2", "1:2", "1:1", "punct", "1:2", "1:2", "1:1", "[self]"}};
    for (int i = 0; i < 9; ++i)
        for (int j = 0; j < 9; ++j)
            EXPECT_EQ(rel.label(f->relation(i, j)), want[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)])
                << i << "," << j;
    // The distance of (i, j) is the reverse of (j, i).
    EXPECT_EQ(f->distance[1 * 9 + 5], std::make_pair(2, 2));
    EXPECT_EQ(f->distance[5 * 9 + 1], std::make_pair(2, 2));
}

TEST(DepTreeFeatures, UnknownLabelsFallBackToTheBaseThenDep)
{
    const RelationVocabulary rel = relations();
    EXPECT_EQ(rel.label(rel.arcId("nmod:poss")), "nmod");
    EXPECT_EQ(rel.label(rel.arcId("obl:tmod")), "dep");
    EXPECT_EQ(rel.label(rel.arcId("det")), "det");
    DependencyTree cyclic;
    cyclic.heads = {2, 1};
    cyclic.deprels = {"det", "det"};
    EXPECT_FALSE(depTreeFeatures(cyclic, rel, 3, 8));
}

TEST(DepTransformerFixture, ReproducesEveryTensorOfThePublicFixture)
{
    TREELENS_REQUIRE_SHARED("fixtures/dependency-transformer-reference/expected.json");
    const std::string dir = test::sharedPath("fixtures/dependency-transformer-reference");
    auto req = readFixtureDirectory(dir);
    ASSERT_TRUE(req) << req.message();
    auto family = fixtureFamily(*req);
    ASSERT_TRUE(family) << family.message();
    EXPECT_EQ((*family)->name, "dependency-transformer");
    auto computed = (*family)->computeFixture(*req);
    ASSERT_TRUE(computed) << computed.message();
    std::ifstream in(dir + "/expected.json");
    const std::string expected((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    auto report = compareWithExpected(*computed, expected, "expected.json");
    ASSERT_TRUE(report) << report.message();
    EXPECT_GT(report->checks.size(), 100u);
    for (const auto &c : report->checks)
        EXPECT_TRUE(c.ok) << c.name << " " << c.problem << " " << c.maxAbsDiff;
}

TEST(DepTransformerEncoder, AnalysesParsedSentencesAlikeAloneAndBatched)
{
    TREELENS_REQUIRE_SHARED("fixtures/dependency-transformer-reference/state_dict.pt");
    auto req = readFixtureDirectory(test::sharedPath("fixtures/dependency-transformer-reference"));
    ASSERT_TRUE(req) << req.message();
    const EncoderFamily *f = findEncoderFamily("dependency-transformer");
    ASSERT_NE(f, nullptr);
    ImportRequest ir;
    ir.tensors = req->stateDict;
    ir.checkpointPath = "state_dict.pt";
    ir.configJson = req->configJson;
    ir.configPath = "config.json";
    auto file = f->importCheckpoint(ir);
    ASSERT_TRUE(file) << file.message();
    DeviceConfig dc;
    dc.device = "cpu";
    auto enc = f->create(*file, dc);
    ASSERT_TRUE(enc) << enc.message();
    EncoderInput a;
    a.words = {"The", "old", "man", "saw", "a", "red", "kite", "."};
    a.dependency = DependencyTree{{3, 3, 4, 0, 7, 7, 4, 4}, {"det", "amod", "nsubj", "root", "det", "amod", "obj", "punct"}};
    EncoderInput b;
    b.words = {"the", "girl", "smiled"};
    b.dependency = DependencyTree{{2, 3, 0}, {"det", "nsubj", "root"}};
    auto both = (*enc)->analyze({a, b});
    auto alone = (*enc)->analyze({b});
    ASSERT_TRUE(both && alone) << (both ? alone.message() : both.message());
    const Analysis &x = (*both)[1], &y = alone->front();
    ASSERT_EQ(x.tokens.size(), 4u);
    EXPECT_EQ(x.tokens.front(), "[root]");
    for (std::size_t i = 0; i < x.embedding.size(); ++i)
        EXPECT_NEAR(x.embedding[i], y.embedding[i], 1e-5);
    EXPECT_EQ(x.attention[2][1].rows, 4);
    EXPECT_EQ(x.gates.at("relation_gate.values").shape, (std::vector<int>{3, 3, 4, 4}));
    ASSERT_TRUE(x.prediction);
    EXPECT_EQ(x.prediction->labels.size(), 2u);
    EncoderInput noTree;
    noTree.words = {"no", "tree"};
    auto refused = (*enc)->analyze({noTree});
    ASSERT_FALSE(refused);
    EXPECT_NE(refused.message().find("dependency tree"), std::string::npos);
}

namespace {

std::string shippedModel() { return std::string(TREELENS_SOURCE_DIR) + "/resources/models/dependency-transformer-en-polarity.safetensors"; }

std::string tempModelPath(const std::string &name)
{
    return (std::filesystem::temp_directory_path() / ("treelens-dt-" + name + ".safetensors")).string();
}

} // namespace

// Bad input (issue 14): every case is a clear error naming the sentence, file or
// tensor, and nothing is loaded or analysed half-way.
TEST(DepTransformerBadInput, TreesWithSeveralRootsOrACycleAreRefusedByName)
{
    auto enc = loadEncoder(shippedModel(), DeviceConfig{"cpu"});
    ASSERT_TRUE(enc) << enc.message();
    EncoderInput good;
    good.words = {"a", "fine", "film"};
    good.dependency = DependencyTree{{3, 3, 0}, {"det", "amod", "root"}};
    EncoderInput twoRoots = good;
    twoRoots.dependency = DependencyTree{{0, 3, 0}, {"root", "amod", "root"}};
    EncoderInput cycle = good;
    cycle.dependency = DependencyTree{{2, 1, 0}, {"det", "det", "root"}};
    for (const auto &[bad, what] : {std::make_pair(twoRoots, "root"), std::make_pair(cycle, "cycle")}) {
        auto r = (*enc)->analyze({good, bad});
        ASSERT_FALSE(r) << what;
        EXPECT_NE(r.message().find("sentence 2"), std::string::npos) << r.message();
        EXPECT_NE(r.message().find(what), std::string::npos) << r.message();
    }
    // Labels the model never saw fall back as the README says (base label, then dep) and run.
    EncoderInput unseen = good;
    unseen.dependency = DependencyTree{{3, 3, 0}, {"det:no-such-subtype", "no-such-label", "root"}};
    auto ok = (*enc)->analyze({unseen});
    ASSERT_TRUE(ok) << ok.message();
    const TokenRelations &r = *ok->front().relations;
    EXPECT_EQ(r.name(1, 3), "det");
    EXPECT_EQ(r.name(2, 3), "dep");
}

TEST(DepTransformerBadInput, ASentenceLongerThanThePositionTableIsRefused)
{
    auto enc = loadEncoder(shippedModel(), DeviceConfig{"cpu"});
    ASSERT_TRUE(enc) << enc.message();
    const int maxTokens = (*enc)->info().maxTokens; // words + [root]
    ASSERT_GT(maxTokens, 1);
    auto sentenceOf = [](int n) {
        EncoderInput in;
        in.words.assign(static_cast<std::size_t>(n), "word");
        in.dependency = DependencyTree{};
        for (int k = 0; k < n; ++k) {
            in.dependency->heads.push_back(k == 0 ? 0 : 1); // a star under the first word
            in.dependency->deprels.push_back(k == 0 ? "root" : "dep");
        }
        return in;
    };
    auto fits = (*enc)->analyze({sentenceOf(maxTokens - 1)});
    ASSERT_TRUE(fits) << fits.message();
    auto tooLong = (*enc)->analyze({sentenceOf(maxTokens)});
    ASSERT_FALSE(tooLong);
    EXPECT_NE(tooLong.message().find("sentence 1"), std::string::npos) << tooLong.message();
    EXPECT_NE(tooLong.message().find(std::to_string(maxTokens)), std::string::npos) << tooLong.message();
}

TEST(DepTransformerBadInput, ARelationVocabularyThatDoesNotMatchItsTensorsIsRefused)
{
    auto file = loadModelFile(shippedModel());
    ASSERT_TRUE(file) << file.message();
    auto config = nlohmann::json::parse(file->configJson);
    auto relations = config.at("relations").get<std::vector<std::string>>();
    ASSERT_GT(relations.size(), 4u);

    // One label fewer than n_relations says.
    ModelFile shorter = *file;
    auto c1 = config;
    c1["relations"].erase(c1["relations"].end() - 1);
    shorter.configJson = c1.dump();
    const std::string p1 = tempModelPath("short-list");
    ASSERT_TRUE(saveModelFile(p1, shorter));
    auto e1 = loadEncoder(p1, DeviceConfig{"cpu"});
    ASSERT_FALSE(e1);
    EXPECT_NE(e1.message().find(p1), std::string::npos) << e1.message();
    EXPECT_NE(e1.message().find("n_relations"), std::string::npos) << e1.message();

    // List and n_relations agree with each other but not with the relation embedding's rows.
    ModelFile mismatched = *file;
    auto c2 = config;
    c2["relations"].erase(c2["relations"].end() - 1);
    c2["model"]["n_relations"] = static_cast<int>(relations.size()) - 1;
    mismatched.configJson = c2.dump();
    const std::string p2 = tempModelPath("tensor-rows");
    ASSERT_TRUE(saveModelFile(p2, mismatched));
    auto e2 = loadEncoder(p2, DeviceConfig{"cpu"});
    ASSERT_FALSE(e2);
    EXPECT_NE(e2.message().find("emb.rel.weight"), std::string::npos) << e2.message();

    // A repeated label: ids would be ambiguous.
    ModelFile repeated = *file;
    auto c3 = config;
    c3["relations"][3] = c3["relations"][4];
    repeated.configJson = c3.dump();
    const std::string p3 = tempModelPath("repeated");
    ASSERT_TRUE(saveModelFile(p3, repeated));
    auto e3 = loadEncoder(p3, DeviceConfig{"cpu"});
    ASSERT_FALSE(e3);
    EXPECT_NE(e3.message().find(relations[4]), std::string::npos) << e3.message();
    for (const auto &p : {p1, p2, p3})
        std::filesystem::remove(p);
}
