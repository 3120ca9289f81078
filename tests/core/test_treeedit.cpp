// Tree edits (core/data/treeedit.h), each case worked out by hand in its comment.
#include "core/data/treeedit.h"

#include <gtest/gtest.h>

#include "core/formats/ptb.h"

using namespace treelens;

namespace {

// "the cat sat on the mat": the→cat det, cat→sat nsubj, sat root, on→mat case,
// the→mat det, mat→sat obl.
Sentence catSat()
{
    Sentence s;
    for (const char *w : {"the", "cat", "sat", "on", "the", "mat"}) {
        Token t;
        t.text = w;
        s.tokens.push_back(t);
    }
    s.dependency = DependencyTree{{2, 3, 0, 6, 6, 3}, {"det", "nsubj", "root", "case", "det", "obl"}};
    s.setMetadata("dependency_source", "gold");
    return s;
}

ConstituencyTree tree(const char *brackets)
{
    auto r = readPtbSentences(brackets, "t");
    EXPECT_TRUE(r.ok()) << r.message();
    return *r->front().constituency;
}

std::string message(const Status &st) { return st ? std::string() : st.message(); }

} // namespace

TEST(TreeEdit, TheLanguageParsesAndPrintsBack)
{
    for (const char *text : {"head 3=5", "head 2=0", "label 2=obj", "bracket 2-4 NP", "unbracket 4-4", "relabel 1-2 NP"}) {
        auto e = parseTreeEdit(text);
        ASSERT_TRUE(e) << text << ": " << e.message();
        EXPECT_EQ(toString(*e), text);
        EXPECT_EQ(*parseTreeEdit(toString(*e)), *e);
    }
    auto one = parseTreeEdit("unbracket 4"); // one word: I alone
    ASSERT_TRUE(one);
    EXPECT_EQ(one->first, 4);
    EXPECT_EQ(one->last, 4);
    EXPECT_EQ(parseTreeEdit("head 3=5")->head, 5);
    EXPECT_TRUE(parseTreeEdit("head 3=5")->dependency());
    EXPECT_FALSE(parseTreeEdit("bracket 1-2 NP")->dependency());
    // Malformed: each says what was expected.
    EXPECT_NE(parseTreeEdit("head 3").message().find("expected head W=H"), std::string::npos);
    EXPECT_NE(parseTreeEdit("hed 3=4").message().find("unknown edit 'hed'"), std::string::npos);
    EXPECT_NE(parseTreeEdit("bracket 4-2 NP").message().find("not I-J with 1 <= I <= J"), std::string::npos);
    EXPECT_NE(parseTreeEdit("bracket 1-2 N P").message().find("expected bracket I-J LABEL"), std::string::npos);
    EXPECT_NE(parseTreeEdit("label 2=").message().find("an empty relation"), std::string::npos);
    EXPECT_NE(parseTreeEdit("head 0=2").message().find("numbered from 1"), std::string::npos);
    EXPECT_NE(parseTreeEdit("relabel 1-2 N(P").message().find("a space or a parenthesis"), std::string::npos);
    EXPECT_FALSE(parseTreeEdit(""));
}

TEST(TreeEdit, HeadEditsKeepATree)
{
    // The PP to the noun: mat's head becomes cat. Allowed, and non-projective: the arc
    // cat–mat (2..6) covers sat, whose root arc comes from outside.
    Sentence s = catSat();
    ASSERT_TRUE(applyTreeEdit(s, *parseTreeEdit("head 6=2"))) << "PP attachment";
    EXPECT_EQ(s.dependency->heads, (std::vector<int>{2, 3, 0, 6, 6, 2}));
    EXPECT_TRUE(s.dependency->validate());
    EXPECT_FALSE(s.dependency->isProjective());

    // A cycle: on's head is mat; mat under on closes 6 → 4 → 6.
    s = catSat();
    const Status cycle = applyTreeEdit(s, *parseTreeEdit("head 6=4"));
    ASSERT_FALSE(cycle);
    EXPECT_EQ(cycle.message(), "head 6=4: makes a cycle: 6 'mat' \xe2\x86\x92 4 'on' \xe2\x86\x92 6 'mat' (each arrow points "
                               "to the word's head)");
    EXPECT_EQ(s.dependency->heads, catSat().dependency->heads) << "nothing changed";
    EXPECT_TRUE(s.metadataValue("dependency_edits").empty());
    // A longer one: sat under the (word 5): 5 → 6 → 3 → 5.
    EXPECT_NE(message(applyTreeEdit(s, *parseTreeEdit("head 6=5"))).find("6 'mat' \xe2\x86\x92 5 'the' \xe2\x86\x92 6 'mat'"),
              std::string::npos);

    // The root gets no head; a word is not its own head; heads inside the sentence.
    EXPECT_NE(message(applyTreeEdit(s, *parseTreeEdit("head 3=2"))).find("3 'sat' is the root: a tree keeps one root"),
              std::string::npos);
    EXPECT_NE(message(applyTreeEdit(s, *parseTreeEdit("head 2=2"))).find("not its own head"), std::string::npos);
    EXPECT_NE(message(applyTreeEdit(s, *parseTreeEdit("head 2=7"))).find("outside the sentence"), std::string::npos);
    EXPECT_NE(message(applyTreeEdit(s, *parseTreeEdit("head 7=2"))).find("outside the sentence's 6 words"), std::string::npos);
    EXPECT_NE(message(applyTreeEdit(s, *parseTreeEdit("head 2=3"))).find("already"), std::string::npos);

    // A new root: mat becomes the root, sat its dependent with mat's relation (obl).
    ASSERT_TRUE(applyTreeEdit(s, *parseTreeEdit("head 6=0")));
    EXPECT_EQ(s.dependency->heads, (std::vector<int>{2, 3, 6, 6, 6, 0}));
    EXPECT_EQ(s.dependency->deprels, (std::vector<std::string>{"det", "nsubj", "obl", "case", "det", "root"}));
    EXPECT_TRUE(s.dependency->validate());
}

TEST(TreeEdit, LabelEditsAndProvenance)
{
    Sentence s = catSat();
    EXPECT_TRUE(editedTreeNote(s, false).empty());
    ASSERT_TRUE(applyTreeEdit(s, *parseTreeEdit("label 6=nmod")));
    EXPECT_EQ(s.dependency->deprels[5], "nmod");
    EXPECT_NE(message(applyTreeEdit(s, *parseTreeEdit("label 3=obj"))).find("is the root"), std::string::npos);
    EXPECT_NE(message(applyTreeEdit(s, *parseTreeEdit("label 2=root"))).find("only the root word"), std::string::npos);
    EXPECT_NE(message(applyTreeEdit(s, *parseTreeEdit("label 2=nsubj"))).find("nsubj already"), std::string::npos);
    ASSERT_TRUE(applyTreeEdit(s, *parseTreeEdit("head 6=2")));
    EXPECT_EQ(s.metadataValue("dependency_source"), "edited");
    EXPECT_EQ(s.metadataValue("dependency_edited_from"), "gold");
    EXPECT_EQ(s.metadataValue("dependency_edits"), "2") << "the refused edits are not counted";
    EXPECT_EQ(editedTreeNote(s, false), "edited (from the gold tree, 2 edits)");
    EXPECT_TRUE(editedTreeNote(s, true).empty());
    // A parsed tree says so; a sentence without the tree refuses.
    Sentence parsed = catSat();
    parsed.metadata.clear();
    parsed.setMetadata("parser", "neural");
    ASSERT_TRUE(applyTreeEdit(parsed, *parseTreeEdit("label 2=obj")));
    EXPECT_EQ(editedTreeNote(parsed, false), "edited (from the parsed tree, 1 edit)");
    EXPECT_NE(message(applyTreeEdit(parsed, *parseTreeEdit("bracket 1-2 NP"))).find("no constituency tree"), std::string::npos);
}

TEST(TreeEdit, BracketsNeverCross)
{
    const ConstituencyTree original =
        tree("(S (NP (DT the) (NN cat)) (VP (VBD sat) (PP (IN on) (NP (DT the) (NN mat)))))");
    ConstituencyTree t = original;
    // sat on: VP's children are VBD (3) and PP (4-6): PP is crossed.
    EXPECT_EQ(message(applyConstituencyEdit(t, *parseTreeEdit("bracket 3-4 X"))),
              "bracket 3-4 X: a bracket over words 3-4 would cross (PP 4-6)");
    // cat sat on the mat: S's child NP (1-2) is crossed.
    EXPECT_NE(message(applyConstituencyEdit(t, *parseTreeEdit("bracket 2-6 X"))).find("would cross (NP 1-2)"), std::string::npos);
    EXPECT_NE(message(applyConstituencyEdit(t, *parseTreeEdit("bracket 5-6 NX"))).find("have a bracket already, (NP 5-6)"),
              std::string::npos);
    EXPECT_NE(message(applyConstituencyEdit(t, *parseTreeEdit("bracket 5-7 NX"))).find("outside the sentence's 6 words"),
              std::string::npos);
    EXPECT_TRUE(t == original) << "refused edits change nothing";

    // One word: (X (DT the)) under the first NP.
    ASSERT_TRUE(applyConstituencyEdit(t, *parseTreeEdit("bracket 1-1 X")));
    EXPECT_TRUE(t.validate());
    const int x = constituentOver(t, 1, 1);
    ASSERT_GE(x, 0);
    EXPECT_EQ(t.node(x).label, "X");
    EXPECT_EQ(t.node(t.node(x).parent).label, "NP");
    // And away again: the tree is the original.
    ASSERT_TRUE(applyConstituencyEdit(t, *parseTreeEdit("unbracket 1-1")));
    EXPECT_TRUE(t == original);
}

TEST(TreeEdit, BracketUnbracketRelabel)
{
    const ConstituencyTree flat = tree("(S (NP (DT the) (JJ big) (NN cat)) (VP (VBD sat)))");
    ConstituencyTree t = flat;
    // big cat: under NP, beside the.
    ASSERT_TRUE(applyConstituencyEdit(t, *parseTreeEdit("bracket 2-3 NBAR")));
    const ConstituencyTree expected = tree("(S (NP (DT the) (NBAR (JJ big) (NN cat))) (VP (VBD sat)))");
    EXPECT_TRUE(t == expected);
    EXPECT_EQ(t.words(), flat.words());
    ASSERT_TRUE(applyConstituencyEdit(t, *parseTreeEdit("relabel 2-3 N1")));
    EXPECT_EQ(t.node(constituentOver(t, 2, 3)).label, "N1");
    EXPECT_NE(message(applyConstituencyEdit(t, *parseTreeEdit("relabel 2-3 N1"))).find("labelled N1 already"), std::string::npos);
    ASSERT_TRUE(applyConstituencyEdit(t, *parseTreeEdit("unbracket 2-3")));
    EXPECT_TRUE(t == flat);
    // The sentence's bracket stays; a tag is no bracket; a unary chain's innermost.
    EXPECT_NE(message(applyConstituencyEdit(t, *parseTreeEdit("unbracket 1-4"))).find("whole sentence's bracket (S 1-4) stays"),
              std::string::npos);
    EXPECT_NE(message(applyConstituencyEdit(t, *parseTreeEdit("unbracket 2"))).find("no bracket covers exactly words 2"),
              std::string::npos);
    ConstituencyTree chain = tree("(S (NP (NP (NNS dogs))) (VP (VBP bark)))");
    const int inner = constituentOver(chain, 1, 1);
    ASSERT_GE(inner, 0);
    EXPECT_EQ(chain.node(chain.node(inner).parent).label, "NP") << "the inner NP of the chain";
    ASSERT_TRUE(applyConstituencyEdit(chain, *parseTreeEdit("unbracket 1")));
    EXPECT_TRUE(chain == tree("(S (NP (NNS dogs)) (VP (VBP bark)))"));
    // (VP (VBP bark)) is the VP over word 2: unbracketing it leaves the tag under S.
    ASSERT_TRUE(applyConstituencyEdit(chain, *parseTreeEdit("unbracket 2")));
    EXPECT_TRUE(chain == tree("(S (NP (NNS dogs)) (VBP bark))"));
}
