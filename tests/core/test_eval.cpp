#include "core/eval/bracketeval.h"
#include "core/eval/depeval.h"
#include "core/formats/ptb.h"
#include "testutil.h"

using namespace treelens;

namespace {
Sentence fromBrackets(const char *b)
{
    auto r = readPtbSentences(b, "t");
    EXPECT_TRUE(r.ok()) << r.message();
    return r->front();
}
} // namespace

TEST(BracketEval, HandComputedScores)
{
    const Sentence gold = fromBrackets("(S (NP (DT the) (NN cat)) (VP (VBD sat) (PP (IN on) (NP (DT the) (NN mat)))) (. .))");
    // Punctuation attached elsewhere changes no span once it is deleted (evalb).
    const Sentence same = fromBrackets("(S (NP (DT the) (NN cat)) (VP (VBD sat) (PP (IN on) (NP (DT the) (NN mat))) (. .)))");
    // Gold brackets: S[0,6) NP[0,2) VP[2,6) PP[3,6) NP[4,6).
    // This one: S[0,6) NP[0,1) VP[1,6) ADVP[3,6) NP[4,6): labeled 2/5, unlabeled 3/5.
    const Sentence worse = fromBrackets("(S (NP (DT the)) (VP (NN cat) (VBD sat) (ADVP (IN on) (NP (DT the) (NN mat)))) (. .))");
    auto e = evaluateBrackets({gold, gold}, {same, worse});
    ASSERT_TRUE(e.ok()) << e.message();
    EXPECT_EQ(e->labeled.gold, 10);
    EXPECT_EQ(e->labeled.predicted, 10);
    EXPECT_EQ(e->labeled.matched, 7);
    EXPECT_DOUBLE_EQ(e->labeled.f1(), 70.0);
    EXPECT_EQ(e->unlabeled.matched, 8);
    EXPECT_EQ(e->perSentenceLabeled[1].matched, 2);
    EXPECT_DOUBLE_EQ(e->perSentenceUnlabeled[1].f1(), 60.0);
    EXPECT_EQ(e->exactLabeled, 1);
    EXPECT_DOUBLE_EQ(e->sentenceF1Unlabeled, 80.0);
    // PRT and ADVP are the same label for evalb.
    const Sentence prt = fromBrackets("(S (NP (PRP I)) (VP (VBD gave) (PRT (RP up))))");
    const Sentence advp = fromBrackets("(S (NP (PRP I)) (VP (VBD gave) (ADVP (RP up))))");
    EXPECT_EQ(compareTrees(*prt.constituency, *advp.constituency, true).matched, 4); // S NP VP PRT=ADVP
    // Different word counts are an error.
    EXPECT_FALSE(evaluateBrackets({gold}, {prt}).ok());
}

TEST(DependencyEval, HandComputedScores)
{
    Sentence g;
    for (const char *w : {"I", "saw", "her", "."}) {
        Token t;
        t.text = w;
        t.upos = std::string(w) == "." ? "PUNCT" : "X";
        g.tokens.push_back(t);
    }
    g.dependency = DependencyTree{{2, 0, 2, 2}, {"nsubj", "root", "obj", "punct"}};
    Sentence p = g;
    // "her" gets the wrong head, "I" the wrong label, "." the right head; subtype ignored for LAS.
    p.dependency = DependencyTree{{2, 0, 1, 2}, {"obj", "root:x", "obj", "punct"}};
    auto e = evaluateDependencies({g}, {p});
    ASSERT_TRUE(e.ok()) << e.message();
    EXPECT_EQ(e->all.tokens, 4);
    EXPECT_EQ(e->all.headCorrect, 3);
    EXPECT_EQ(e->all.labelCorrect, 2);
    EXPECT_EQ(e->noPunct.tokens, 3);
    EXPECT_EQ(e->noPunct.headCorrect, 2);
    EXPECT_EQ(e->noPunct.labelCorrect, 1);
    EXPECT_DOUBLE_EQ(e->all.uas(), 75.0);
    EXPECT_EQ(e->exactUnlabeled, 0);
    EXPECT_EQ(e->uposTokens, 4); // all gold UPOS set, all equal (p is a copy of g)
    EXPECT_EQ(e->uposCorrect, 4);
    EXPECT_EQ(e->xposTokens, 0); // no gold XPOS: not scored
    p.tokens[1].upos = "VERB";   // gold "X"
    p.tokens[2].xpos = "PRP";
    auto tagged = evaluateDependencies({g}, {p});
    ASSERT_TRUE(tagged.ok());
    EXPECT_EQ(tagged->uposCorrect, 3);
    EXPECT_EQ(tagged->xposTokens, 0);
    p.tokens[0].text = "You";
    EXPECT_NE(evaluateDependencies({g}, {p}).message().find("token 1"), std::string::npos);
}
