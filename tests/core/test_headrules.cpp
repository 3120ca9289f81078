#include "core/base/fileio.h"
#include "core/formats/conllu.h"
#include "core/formats/ptb.h"
#include "core/parsing/headrules.h"
#include "testutil.h"

using namespace treelens;

TEST(HeadRules, MatchesHandCheckedCollinsConversion)
{
    // Hand derivation of the tricky heads (Collins 1999, App. A):
    //  NP-SBJ (NP , ADJP ,): no NN* child, so the first NP from the left -> "Vinken";
    //  ADJP (NP JJ): left-to-right priority list reaches JJ -> "old";
    //  VP (MD VP): MD precedes VB in the VP list -> "will" is the root;
    //  PP-CLR: searched from the right for IN -> "as"; NP-TMP (NNP CD) -> "Nov.".
    TREELENS_REQUIRE_SHARED("data/ptb-sample/wsj_0001.mrg");
    auto text = readFile(test::sharedPath("data/ptb-sample/wsj_0001.mrg"));
    ASSERT_TRUE(text.ok());
    PtbReadOptions opt;
    opt.stripTraces = true;
    opt.stripFunctionTags = true;
    auto trees = readPtb(*text, "wsj_0001.mrg", opt);
    ASSERT_TRUE(trees.ok());
    auto dep = toDependencies(trees->front());
    ASSERT_TRUE(dep.ok()) << dep.message();
    auto gold = readFile(test::testData("golden/wsj_0001_collins.conllu"));
    ASSERT_TRUE(gold.ok());
    auto g = readConllu(*gold, "wsj_0001_collins.conllu");
    ASSERT_TRUE(g.ok()) << g.message();
    EXPECT_EQ(dep->heads, g->front().dependency->heads);
    EXPECT_EQ(dep->deprels, g->front().dependency->deprels);
}

TEST(HeadRules, CoordinationNpPossessiveAndTraces)
{
    auto trees = readPtb("(S (NP (NP (NNP John) (POS 's)) (NN dog)) (VP (VBD barked) (CC and) (VBD howled)) (. .))\n"
                         "(S (NP-SBJ (-NONE- *)) (VP (VB Go)) (. !))",
                         "t");
    ASSERT_TRUE(trees.ok());
    auto d = toDependencies((*trees)[0]);
    ASSERT_TRUE(d.ok()) << d.message();
    // NP (NNP POS) -> POS head ("'s"); outer NP -> "dog"; VP: VBD from the left = "barked";
    // "howled" follows CC, so the coordination rule keeps "barked" as head.
    EXPECT_EQ(d->heads, (std::vector<int>{2, 3, 4, 0, 4, 4, 4}));
    auto d2 = toDependencies((*trees)[1]);
    ASSERT_TRUE(d2.ok()) << d2.message();
    EXPECT_EQ(d2->heads, (std::vector<int>{0, 1})); // the trace subject is ignored
}

TEST(HeadRules, EveryWsjTreeConvertsToAValidTree)
{
    TREELENS_REQUIRE_SHARED("data/ptb-sample/wsj_0001.mrg");
    int trees = 0;
    for (int f = 1; f <= 199; ++f) {
        char name[64];
        std::snprintf(name, sizeof name, "data/ptb-sample/wsj_%04d.mrg", f);
        auto text = readFile(test::sharedPath(name));
        ASSERT_TRUE(text.ok());
        PtbReadOptions opt;
        opt.stripTraces = true;
        auto r = readPtb(*text, name, opt);
        ASSERT_TRUE(r.ok());
        for (const auto &t : *r) {
            auto d = toDependencies(t);
            ASSERT_TRUE(d.ok()) << name << ": " << d.message();
            ASSERT_EQ(static_cast<int>(d->size()), t.wordCount());
            ++trees;
        }
    }
    EXPECT_EQ(trees, 3914);
}
