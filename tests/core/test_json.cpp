#include "core/base/fileio.h"
#include "core/formats/conllu.h"
#include "core/formats/treelensjson.h"
#include "testutil.h"

using namespace treelens;

TEST(TreeLensJson, RoundTripsEwtSentencesWithTrees)
{
    TREELENS_REQUIRE_SHARED("data/ud-english-ewt/en_ewt-ud-dev.conllu");
    auto text = readFile(test::sharedPath("data/ud-english-ewt/en_ewt-ud-dev.conllu"));
    ASSERT_TRUE(text.ok());
    auto r = readConllu(*text, "dev");
    ASSERT_TRUE(r.ok());
    const std::string json = writeTreeLensJson(*r);
    auto back = readTreeLensJson(json, "dev.jsonl");
    ASSERT_TRUE(back.ok()) << back.message();
    ASSERT_EQ(back->size(), r->size());
    for (std::size_t i = 0; i < r->size(); ++i) {
        EXPECT_EQ((*back)[i].id, (*r)[i].id);
        EXPECT_EQ((*back)[i].text, (*r)[i].text);
        EXPECT_EQ((*back)[i].words(), (*r)[i].words());
        ASSERT_TRUE((*back)[i].dependency);
        EXPECT_EQ(*(*back)[i].dependency, *(*r)[i].dependency);
        EXPECT_EQ((*back)[i].tokens[0].charStart, (*r)[i].tokens[0].charStart);
    }
}

TEST(TreeLensJson, ReadsArraysAndReportsErrors)
{
    auto r = readTreeLensJson(R"J([{"tokens": ["a", "b"], "heads": [0, 1], "constituency": "(S (X a) (Y b))"}])J", "x.json");
    ASSERT_TRUE(r.ok()) << r.message();
    EXPECT_EQ(r->front().id, "s1");
    EXPECT_EQ(r->front().constituency->wordCount(), 2);
    EXPECT_NE(readTreeLensJson("{\"tokens\": [\"a\"]}\n{oops", "y.jsonl").message().find("y.jsonl:2: not valid JSON"), std::string::npos);
    EXPECT_NE(readTreeLensJson(R"J({"tokens": ["a","b"], "heads": [2, 1]})J", "z.jsonl").message().find("no root"), std::string::npos);
    EXPECT_NE(readTreeLensJson(R"J({"tokens": []})J", "z.jsonl").message().find("non-empty"), std::string::npos);
    EXPECT_NE(readTreeLensJson(R"J({"tokens": ["a"], "constituency": "(S (X a) (Y b))"})J", "z.jsonl").message().find("2 words"),
              std::string::npos);
}
