// The Dependency-Transformer against independent references: the README's
// hand-worked relation matrix for "The old man saw a red kite ." and the
// reference fixture (its README is the specification).
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/encoders/deptransformer/deptreefeatures.h"
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
    EXPECT_EQ(x.gates.at("deptrans.gate").shape, (std::vector<int>{3, 3, 4, 4}));
    ASSERT_TRUE(x.prediction);
    EXPECT_EQ(x.prediction->labels.size(), 2u);
    EncoderInput noTree;
    noTree.words = {"no", "tree"};
    auto refused = (*enc)->analyze({noTree});
    ASSERT_FALSE(refused);
    EXPECT_NE(refused.message().find("dependency tree"), std::string::npos);
}
