#include <dirent.h>

#include <algorithm>

#include "core/base/fileio.h"
#include "core/formats/ptb.h"
#include "core/parsing/treedecoders.h"
#include "testutil.h"

using namespace treelens;

TEST(Ptb, ReadsWrapperFunctionTagsTracesAndEscapes)
{
    auto text = readFile(test::testData("golden/traces.mrg"));
    ASSERT_TRUE(text.ok());
    auto r = readPtbSentences(*text, "traces.mrg");
    ASSERT_TRUE(r.ok()) << r.message();
    ASSERT_EQ(r->size(), 3u);
    const auto &t0 = *(*r)[0].constituency;
    EXPECT_EQ(t0.node(t0.root()).label, "");           // the "( (S ...) )" wrapper
    EXPECT_EQ(t0.node(t0.contentRoot()).label, "S");
    EXPECT_EQ((*r)[0].words(), (std::vector<std::string>{"Mr.", "Vinken", "is", "expected", "to", "resign", "."}));
    // Hand-checked: S -> VP -> VP -> S -> VP -> VP -> VB -> resign = 7 hops.
    EXPECT_EQ(t0.depth(), 7);
    EXPECT_EQ(t0.topConstituents(), (std::vector<std::string>{"NP", "VP", "."}));
    // The trace constituent (NP-SBJ (-NONE- *-1)) covers no word: no span for it.
    for (const auto &s : t0.spans())
        EXPECT_LT(s.start, s.end) << s.label;
    EXPECT_EQ((*r)[1].constituency->topConstituents(), (std::vector<std::string>{"S", ",", "VP", "NP", "."}));
    // ROOT wrapper and -LRB- escapes: the token text is unescaped, the tree keeps the escape.
    const auto &s2 = (*r)[2];
    EXPECT_EQ(s2.text, "( x ) left");
    EXPECT_EQ(s2.tokens[0].xpos, "-LRB-");
    EXPECT_EQ(s2.constituency->node(s2.constituency->contentRoot()).label, "S");
}

TEST(Ptb, StripTracesAndFunctionTagsLeavesWellFormedTrees)
{
    auto text = readFile(test::testData("golden/traces.mrg"));
    ASSERT_TRUE(text.ok());
    PtbReadOptions opt;
    opt.stripTraces = true;
    opt.stripFunctionTags = true;
    auto r = readPtb(*text, "traces.mrg", opt);
    ASSERT_TRUE(r.ok()) << r.message();
    EXPECT_EQ(writePtbTree((*r)[0]),
              "( (S (NP (NNP Mr.) (NNP Vinken)) (VP (VBZ is) (VP (VBN expected) (S (VP (TO to) (VP (VB resign)))))) (. .)))");
    // "(VP (VBD said) (S (-NONE- *T*-1)))": the S disappears with its trace.
    EXPECT_EQ(writePtbTree((*r)[1]),
              "( (SINV (S (NP (PRP It)) (VP (VBD rained))) (, ,) (VP (VBD said)) (NP (NNP Ann)) (. .)))");
    for (const auto &t : *r)
        EXPECT_TRUE(t.validate().ok());
}

TEST(Ptb, SentencesCountWhatStrippingTookAway)
{
    PtbReadOptions o;
    o.stripTraces = true;
    o.stripFunctionTags = true;
    // Hand count: one trace; a subject phrase that held only it goes with it (not a
    // function tag removed); NP-SBJ-2, PP-LOC and the tagged preterminal NN-HLN lose theirs.
    auto s = readPtbSentences("(S (NP-SBJ (-NONE- *-1)) (NP-SBJ-2 (NNS Dogs)) (VP (VBD barked) (PP-LOC (IN at) "
                              "(NP (NN-HLN night)))) (. .))",
                              "t.mrg", o);
    ASSERT_TRUE(s.ok()) << s.message();
    EXPECT_EQ(s->front().metadataValue("ptb.traces_removed"), "1");
    EXPECT_EQ(s->front().metadataValue("ptb.function_tags_removed"), "3");
    // Nothing stripped, nothing counted.
    auto kept = readPtbSentences("(S (NP-SBJ (NNS Dogs)) (VP (VBD barked)))", "t.mrg");
    ASSERT_TRUE(kept.ok());
    EXPECT_EQ(kept->front().metadataValue("ptb.traces_removed"), "");
    EXPECT_EQ(kept->front().metadataValue("ptb.function_tags_removed"), "");
}

TEST(Ptb, RejectsBadInputWithLine)
{
    const std::pair<const char *, const char *> cases[] = {
        {"(S (NP x)\n", "bad.mrg:1: unbalanced brackets: '(' is never closed"},
        {"(S (NP x)))\n", "unexpected ')'"},
        {"\n\n(S ())", "bad.mrg:3: empty brackets"},
        {"(S (NP))", "constituent 'NP' has no children"},
        {"word (S x)", "expected '('"},
        {"(S \xc3\x28)", "invalid UTF-8"},
    };
    for (const auto &[in, expect] : cases) {
        auto r = readPtb(in, "bad.mrg");
        ASSERT_FALSE(r.ok()) << in;
        EXPECT_NE(r.message().find(expect), std::string::npos) << r.message();
    }
    std::string deep(5000, '(');
    deep += "X x";
    deep += std::string(5000, ')');
    auto r = readPtb(deep, "deep.mrg");
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.message().find("nested deeper"), std::string::npos);
    EXPECT_TRUE(readPtb("", "empty.mrg")->empty());
}

TEST(Ptb, OneLineAndTreebankLayoutsRoundTrip)
{
    auto text = readFile(test::testData("golden/traces.mrg"));
    ASSERT_TRUE(text.ok());
    auto r = readPtb(*text, "traces.mrg");
    ASSERT_TRUE(r.ok());
    for (const auto &t : *r) {
        for (auto style : {PtbStyle::OneLine, PtbStyle::Treebank}) {
            auto back = readPtb(writePtbTree(t, style), "x");
            ASSERT_TRUE(back.ok()) << back.message();
            ASSERT_EQ(back->size(), 1u);
            EXPECT_TRUE(back->front() == t);
        }
    }
    // The first tree is in the WSJ layout, which the Treebank writer reproduces.
    const std::string first = text->substr(0, text->find("( (SINV"));
    EXPECT_EQ(writePtbTree((*r)[0], PtbStyle::Treebank) + "\n", first);
}

TEST(Ptb, EveryTreeOfTheWsjSampleRoundTrips)
{
    TREELENS_REQUIRE_SHARED("data/ptb-sample/wsj_0001.mrg");
    const std::string dir = test::sharedPath("data/ptb-sample");
    std::vector<std::string> files;
    if (DIR *d = opendir(dir.c_str())) {
        while (dirent *e = readdir(d))
            if (std::string(e->d_name).find(".mrg") != std::string::npos)
                files.push_back(dir + "/" + e->d_name);
        closedir(d);
    }
    std::sort(files.begin(), files.end());
    ASSERT_EQ(files.size(), 199u);
    std::size_t trees = 0, layoutExact = 0;
    for (const auto &f : files) {
        auto text = readFile(f);
        ASSERT_TRUE(text.ok());
        auto r = readPtbSentences(*text, f);
        ASSERT_TRUE(r.ok()) << r.message();
        for (const auto &s : *r) {
            ++trees;
            const auto &t = *s.constituency;
            for (auto style : {PtbStyle::OneLine, PtbStyle::Treebank}) {
                auto back = readPtb(writePtbTree(t, style), f);
                ASSERT_TRUE(back.ok() && back->size() == 1u) << f;
                ASSERT_TRUE(back->front() == t) << s.id;
            }
            ConstituencyTree stripped = t;
            stripped.stripTraces();
            stripped.stripFunctionTags();
            ASSERT_TRUE(stripped.validate().ok()) << s.id;
            ASSERT_EQ(stripped.words(), t.words()) << s.id;
            for (const auto &n : stripped.nodes()) {
                ASSERT_NE(n.label, "-NONE-") << s.id;
                if (!n.terminal) {
                    ASSERT_EQ(n.label, ConstituencyTree::baseLabel(n.label)) << s.id;
                    ASSERT_FALSE(n.children.empty()) << s.id;
                }
            }
            for (const auto &sp : stripped.spans())
                ASSERT_LT(sp.start, sp.end) << s.id;
        }
        auto whole = writePtb(*r, PtbStyle::Treebank);
        ASSERT_TRUE(whole.ok());
        layoutExact += *whole == *text;
    }
    EXPECT_EQ(trees, 3914u);
    // The .mrg layout is not fully rule-based (annotators broke some preterminals onto
    // their own lines), so only some files come back byte for byte; trees always do.
    std::cout << "[ info ] " << layoutExact << " of " << files.size() << " files reproduced byte for byte\n";
}

TEST(Ptb, BracketWordsAreWrittenEscaped)
{
    // Trees built over token text (parsers use the unescaped "(" of the tokens)
    // must still be valid brackets: "(" and ")" in words are written -LRB-/-RRB-
    // and read back as "(" ")" in the tokens; other words are written verbatim.
    const auto tree = spansToTree({"(", "a", ")", "{", ":)"}, {"-LRB-", "DT", "-RRB-", "-LRB-", "SYM"},
                                  std::vector<LabeledSpan>{LabeledSpan{"NP", 0, 5, -1}});
    const std::string line = writePtbTree(tree, PtbStyle::OneLine);
    EXPECT_EQ(line, "(TOP (NP (-LRB- -LRB-) (DT a) (-RRB- -RRB-) (-LRB- {) (SYM :-RRB-)))"); // "{" needs no escape: kept, so trees read from text round-trip
    auto back = readPtbSentences(line, "t");
    ASSERT_TRUE(back.ok()) << back.message();
    ASSERT_EQ(back->size(), 1u);
    EXPECT_EQ((*back)[0].words(), (std::vector<std::string>{"(", "a", ")", "{", ":)"}));
    EXPECT_NE(writePtbTree(tree, PtbStyle::Treebank).find("(-LRB- -LRB-)"), std::string::npos);
}
