// The Tregex subset (core/query/tregex.h, docs/tregex.md): each relation on small trees
// whose counts are worked out by hand in the comments, the count of a match as Tregex's
// TregexMatcher.find() gives it (one per assignment of the pattern's nodes), errors with
// their columns, and counts on the Penn Treebank sample in ../shared.
#include "core/query/tregex.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstddef>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/formats/ptb.h"
#include "testutil.h"

using namespace treelens;

namespace {

ConstituencyTree tree(const char *brackets)
{
    auto r = readPtb(brackets, "t");
    EXPECT_TRUE(r.ok() && r->size() == 1) << (r.ok() ? "not one tree" : r.message());
    return r.ok() && !r->empty() ? r->front() : ConstituencyTree();
}

TregexPattern pattern(const std::string &text)
{
    auto p = TregexPattern::parse(text);
    EXPECT_TRUE(p.ok()) << text << ": " << (p.ok() ? "" : p.message());
    return p.ok() ? *p : *TregexPattern::parse("__ == __ !== __"); // matches nothing
}

std::size_t count(const std::string &p, const ConstituencyTree &t) { return pattern(p).match(t).size(); }

/// The labels of the matched roots, space-separated, in match order.
std::string roots(const std::string &p, const ConstituencyTree &t)
{
    std::string out;
    for (const auto &m : pattern(p).match(t))
        out += (out.empty() ? "" : " ") + t.node(m.node).label;
    return out;
}

/// The first word under a node (its own label for a leaf), to name nodes in expectations.
std::string word(const ConstituencyTree &t, int n)
{
    if (n < 0)
        return "-";
    while (!t.node(n).children.empty())
        n = t.node(n).children.front();
    return t.node(n).label;
}

std::string errorOf(const std::string &p)
{
    auto r = TregexPattern::parse(p);
    return r.ok() ? "parsed: " + r->describe() : r.message();
}

// S(NP(DT the)(NN cat)) (VP(VBD sat)): 9 nodes, leaves included.
const char *kCat = "(S (NP (DT the) (NN cat)) (VP (VBD sat)))";
// Four sisters under S: A B C B.
const char *kSisters = "(S (A x) (B y) (C z) (B w))";

} // namespace

TEST(Tregex, ChildAndLeaves)
{
    const auto t = tree(kCat);
    EXPECT_EQ(count("NP < DT", t), 1u);
    EXPECT_EQ(count("S < NP", t), 1u);
    EXPECT_EQ(count("S < DT", t), 0u);   // a grandchild is no child
    EXPECT_EQ(count("NN < cat", t), 1u); // words are leaf nodes
    EXPECT_EQ(count("cat", t), 1u);
    EXPECT_EQ(count("__", t), 9u);       // S NP DT the NN cat VP VBD sat
    EXPECT_EQ(count("__ !< __", t), 3u); // the leaves
    EXPECT_EQ(roots("__ < __", t), "S S NP NP DT NN VP VBD"); // pre-order, S twice (two children)
}

TEST(Tregex, EveryAssignmentCounts)
{
    // Tregex reports a root once per way the pattern matches, named nodes or not.
    const auto t = tree("(NP (NNP A) (NNP B) (NN c))");
    EXPECT_EQ(count("NP < NNP", t), 2u);
    EXPECT_EQ(pattern("NP < NNP").matchingNodes(t).size(), 1u); // Tregex's -o
    EXPECT_EQ(count("NP < NNP < NNP", t), 4u);                   // both relations may pick the same child
    EXPECT_EQ(count("NP < NNP < NN", t), 2u);
    const auto p = pattern("NP < NNP=a < NNP=b");
    ASSERT_EQ(p.names(), (std::vector<std::string>{"a", "b"}));
    std::string pairs;
    for (const auto &m : p.match(t))
        pairs += word(t, m.bound[0]) + word(t, m.bound[1]) + " ";
    EXPECT_EQ(pairs, "AA AB BA BB "); // the first relation's loop outside the second's
    EXPECT_EQ(count("NP < NNP=a < =a", t), 2u); // a backreference: the same node again
    EXPECT_EQ(count("NP < NNP=a $ NNP", t), 0u); // $ belongs to NP here (NP has no sisters)
    EXPECT_EQ(count("NP < (NNP=a $ NNP)", t), 2u);
    EXPECT_EQ(count("NP < (NNP $+ NNP)", t), 1u);
}

TEST(Tregex, Dominance)
{
    const auto t = tree("(S (NP (NP (NN a)) (PP (IN of) (NP (NN b)))) (VP (VB c)))");
    EXPECT_EQ(count("S << NP", t), 3u);
    EXPECT_EQ(count("NP << NP", t), 2u);  // the outer NP over the two inner ones
    EXPECT_EQ(count("NP << NN", t), 4u);  // outer: 2, each inner NP: 1
    EXPECT_EQ(count("NP << b", t), 2u);   // leaves are dominated too
    EXPECT_EQ(count("NN >> NP", t), 4u);  // a: 2 NPs above, b: 2
    EXPECT_EQ(count("NN > NP", t), 2u);
    EXPECT_EQ(count("NP >> S", t), 3u);
    EXPECT_EQ(count("S > __", t), 0u);    // the root has no parent
    EXPECT_EQ(count("S <<< __", t), 4u);  // the leaves a, of, b, c
    EXPECT_EQ(count("PP <<, IN", t), 1u); // IN is PP's leftmost descendant
    EXPECT_EQ(count("PP <<- NN", t), 1u);
    EXPECT_EQ(count("NN >>- S", t), 0u);  // c is S's rightmost leaf, under VB
    EXPECT_EQ(count("VB >>- S", t), 1u);
    EXPECT_EQ(count("NN >>, S", t), 1u);  // a, through NP, NP
}

TEST(Tregex, Sisters)
{
    const auto t = tree(kSisters);
    EXPECT_EQ(count("A $ B", t), 2u);
    EXPECT_EQ(count("B $ B", t), 2u);  // each B has the other B as a sister, never itself
    EXPECT_EQ(count("A $+ B", t), 1u); // B right after A
    EXPECT_EQ(count("A $+ C", t), 0u);
    EXPECT_EQ(count("B $+ C", t), 1u); // the first B
    EXPECT_EQ(count("C $+ B", t), 1u);
    EXPECT_EQ(count("B $- C", t), 1u); // the last B: C right before it
    EXPECT_EQ(count("A $++ B", t), 2u);
    EXPECT_EQ(count("B $-- A", t), 2u);
    EXPECT_EQ(count("B $++ B", t), 1u);
    EXPECT_EQ(count("B $.. C", t), 1u);  // $.. is $++ on context-free trees
    EXPECT_EQ(count("S $ __", t), 0u);   // the root has no sisters
}

TEST(Tregex, ChildPositions)
{
    const auto t = tree(kSisters);
    EXPECT_EQ(count("S <, A", t), 1u);
    EXPECT_EQ(count("S <1 A", t), 1u);
    EXPECT_EQ(count("S <2 B", t), 1u);
    EXPECT_EQ(count("S <- B", t), 1u);
    EXPECT_EQ(count("S <-2 C", t), 1u);
    EXPECT_EQ(count("S <5 __", t), 0u);
    EXPECT_EQ(count("B >2 S", t), 1u);
    EXPECT_EQ(count("B >-1 S", t), 1u);
    EXPECT_EQ(count("B >- S", t), 1u);
    EXPECT_EQ(count("__ <: __", t), 4u); // the four preterminals
    EXPECT_EQ(count("x >: A", t), 1u);
    EXPECT_EQ(count("S <: __", t), 0u);
    EXPECT_EQ(count("S == S", t), 1u);
    EXPECT_EQ(count("S <= __", t), 5u);  // itself and its four children
}

TEST(Tregex, Precedence)
{
    const auto t = tree(kCat);
    EXPECT_EQ(count("NN . VBD", t), 1u);
    EXPECT_EQ(count("NN . __", t), 3u);  // VP, VBD, sat start right after cat
    EXPECT_EQ(count("DT .. __", t), 5u); // NN cat VP VBD sat
    EXPECT_EQ(count("VP , NN", t), 1u);
    EXPECT_EQ(count("VP ,, __", t), 5u); // NP DT the NN cat
    EXPECT_EQ(count("DT : VBD", t), 1u);
}

TEST(Tregex, Negation)
{
    const auto t = tree(kSisters);
    EXPECT_EQ(count("S !< D", t), 1u);
    EXPECT_EQ(count("S !< A", t), 0u);
    EXPECT_EQ(count("B !$+ C", t), 1u);  // the last B
    EXPECT_EQ(count("S !< A !< D", t), 0u);
    EXPECT_EQ(count("S ![< A & < D]", t), 1u); // not both
    EXPECT_EQ(count("S ![< A | < D]", t), 0u); // neither
    EXPECT_EQ(count("S !!< A", t), 0u);         // as in Tregex, '!' sets a flag: '!!' is '!'
    EXPECT_EQ(count("S < !B", t), 2u);          // a child that is not a B: A, C
    EXPECT_EQ(count("S < !/^[AB]$/", t), 1u);
}

TEST(Tregex, LabelsAndRegexes)
{
    const auto t = tree("(S (NP-SBJ-1 (NNP Vinken)) (VP (VBZ is) (NP-PRD (NN chairman))) (. .))");
    EXPECT_EQ(count("NP", t), 0u);        // labels match exactly
    EXPECT_EQ(count("@NP", t), 2u);       // basic category: NP-SBJ-1, NP-PRD
    EXPECT_EQ(count("@NP|VP", t), 3u);    // '@' scopes over the alternatives
    EXPECT_EQ(count("NP-PRD|VBZ|S", t), 3u);
    EXPECT_EQ(count("/SBJ/", t), 1u);     // found anywhere in the label
    EXPECT_EQ(count("/^VB/", t), 1u);
    EXPECT_EQ(count("/^VB$/", t), 0u);
    EXPECT_EQ(count("/^NP-[A-Z]+$/", t), 1u);
    EXPECT_EQ(count("/^\\.$/", t), 2u);    // the tag and the word
    EXPECT_EQ(count("/an/", t), 1u);      // the word "chairman"
    EXPECT_EQ(count("/\\/|ch/", t), 1u);  // '\/' is a slash inside a regex
    EXPECT_EQ(count("S < _ROOT_", t), 0u);
    EXPECT_EQ(count("_ROOT_", t), 1u);
    EXPECT_EQ(count("S < (VP < (NP-PRD < NN=n))", t), 1u);
}

TEST(Tregex, DisjunctionAndOptional)
{
    const auto t = tree("(S (NP (DT a) (JJ b) (JJ c) (NN d)) (NP (NNS e)))");
    EXPECT_EQ(count("NP [< NN | < NNS]", t), 2u);
    EXPECT_EQ(count("NP < NN | < NNS", t), 2u);
    EXPECT_EQ(count("NP < JJ | < DT", t), 3u);   // the alternatives' matches add up
    EXPECT_EQ(count("NN | NNS | JJ", t), 4u);    // root-level alternatives
    EXPECT_EQ(count("NP < DT & < NN", t), 1u);
    const auto p = pattern("NP ?< JJ=adj");
    const auto ms = p.match(t);
    ASSERT_EQ(ms.size(), 2u);                    // a '?' relation: its first match only, or once unmatched
    EXPECT_EQ(word(t, ms[0].bound[0]), "b");
    EXPECT_EQ(ms[1].bound[0], -1);
    EXPECT_EQ(count("NP ?[< JJ | < CD]", t), 3u); // a '?' group: all its matches (2), or once (1)
    EXPECT_EQ(count("NP ?[< JJ]", t), 2u);       // brackets around one relation make no group
    const auto q = pattern("NP < NN=x | < NNS=x"); // one name on both sides of '|'
    ASSERT_EQ(q.names().size(), 1u);
    for (const auto &m : q.match(t))
        EXPECT_GE(m.bound[0], 0);
}

TEST(Tregex, Describe)
{
    EXPECT_EQ(pattern("NP < NN | < NNS & > S").describe(), "NP [< NN | [< NNS & > S]]");
    EXPECT_EQ(pattern("(NP < DT) < NN").describe(), "NP < DT & < NN");
    EXPECT_EQ(pattern("(NP < DT < JJ) < NN").describe(), "NP [< DT & < JJ] & < NN");
    EXPECT_EQ(pattern("VP<(PP<IN=p)&!>>S").describe(), "VP < (PP < IN=p) & !>> S");
    EXPECT_EQ(pattern("@NP|NX=n $+ /,/ | NN").describe(), "@NP|NX=n $+ /,/ | NN");
    for (const char *s : {"NP [< NN | [< NNS & > S]]", "NP < DT & ![< JJ | ?< CD]", "A=x <-2 B <, =x"})
        if (auto p = TregexPattern::parse(s); p.ok()) {
            EXPECT_EQ(pattern(p->describe()).describe(), p->describe());
        } else {
            ADD_FAILURE() << s << ": " << p.message();
        }
}

TEST(Tregex, ErrorsNameTheColumn)
{
    EXPECT_EQ(errorOf("NP <"), "column 5: expected a node description, found the end of the pattern");
    EXPECT_EQ(errorOf(""), "column 1: expected a node description, found the end of the pattern");
    EXPECT_EQ(errorOf("NP < (DT"), "column 9: expected ')', found the end of the pattern");
    EXPECT_EQ(errorOf("NP )"), "column 4: expected a relation, '|' or the end of the pattern, found ')'");
    EXPECT_EQ(errorOf("NP <# NN"), "column 4: relation '<#' (heads) is not supported (docs/tregex.md)");
    EXPECT_EQ(errorOf("NP < /[/"), "column 6: bad regular expression /[/ (ICU: U_REGEX_MISSING_CLOSE_BRACKET)");
    EXPECT_EQ(errorOf("NP < /x"), "column 6: the regular expression has no closing '/'");
    EXPECT_EQ(errorOf("NP=a < NN=a"), "column 11: the name 'a' is bound twice");
    EXPECT_EQ(errorOf("NP !< NN=x"), "column 10: a name cannot be bound under '!' ('x')");
    EXPECT_EQ(errorOf("NP < =x"), "column 7: '=x' refers to no name bound before it");
    EXPECT_EQ(errorOf("NP < NN|"), "column 6: empty label alternative in 'NN|'");
    EXPECT_EQ(errorOf("NP <0 NN"), "column 4: child numbers start at 1, found '<0'");
    EXPECT_EQ(errorOf("NP < ~x"), "column 6: unexpected character '~' (links are not supported)");
    EXPECT_EQ(errorOf("NP !?< NN"), "column 4: '!' and '?' cannot apply to the same relation");
    EXPECT_EQ(errorOf("NP < NN ="), "column 10: expected a name after '=', found the end of the pattern");
    EXPECT_EQ(errorOf("é < (NP"), "column 8: expected ')', found the end of the pattern"); // columns count characters
    EXPECT_EQ(errorOf(std::string(150, '(') + "NP" + std::string(150, ')')).rfind("column ", 0), 0u);
    std::string big = "NP";
    for (int i = 0; i < 600; ++i)
        big += " < NN";
    EXPECT_NE(errorOf(big).find("more than 500 node descriptions"), std::string::npos);
}

TEST(Tregex, ManyNodesInMilliseconds)
{
    // One flat tree of 20,000 NPs over (DT the) (NN x): 100,001 nodes.
    std::string s = "(S";
    for (int i = 0; i < 20000; ++i)
        s += " (NP (DT the) (NN x))";
    s += ")";
    const auto t = tree(s.c_str());
    const auto start = std::chrono::steady_clock::now();
    EXPECT_EQ(count("NP < DT $+ NP", t), 19999u);
    EXPECT_EQ(count("/^N/ !< /^D/", t), 20000u); // the NNs
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    EXPECT_LT(ms, 2000.0) << "generous for sanitizer builds; a release build takes a few ms";
}

namespace {

std::vector<ConstituencyTree> sampleTrees(const std::string &dir, int firstFile, int lastFile)
{
    std::vector<ConstituencyTree> out;
    for (int i = firstFile; i <= lastFile; ++i) {
        char name[32];
        std::snprintf(name, sizeof name, "wsj_%04d.mrg", i);
        std::ifstream in(dir + "/" + name);
        if (!in)
            continue;
        std::stringstream ss;
        ss << in.rdbuf();
        auto r = readPtb(ss.str(), name);
        EXPECT_TRUE(r.ok()) << r.message();
        if (r.ok())
            out.insert(out.end(), r->begin(), r->end());
    }
    return out;
}

std::size_t countAll(const std::string &p, const std::vector<ConstituencyTree> &trees)
{
    const auto pat = pattern(p);
    std::size_t n = 0;
    for (const auto &t : trees)
        n += pat.match(t).size();
    return n;
}

} // namespace

TEST(Tregex, PtbSampleFirstFileByHand)
{
    TREELENS_REQUIRE_SHARED("data/ptb-sample/wsj_0001.mrg");
    const auto trees = sampleTrees(test::sharedPath("data/ptb-sample"), 1, 1);
    ASSERT_EQ(trees.size(), 2u);
    // Counted by hand on the two trees of wsj_0001.mrg (Pierre Vinken; Mr. Vinken is chairman):
    EXPECT_EQ(countAll("NP < DT", trees), 3u);    // the board, a nonexecutive director, the Dutch publishing group
    EXPECT_EQ(countAll("NP < NNP", trees), 5u);   // Pierre Vinken 2, Elsevier N.V. 2, the Dutch ... 1
    EXPECT_EQ(countAll("@NP < NNP", trees), 8u);  // + NP-TMP (Nov.) 1, NP-SBJ (Mr. Vinken) 2
    EXPECT_EQ(countAll("NP !< DT", trees), 5u);   // Pierre Vinken, 61 years; chairman, Elsevier ... group, Elsevier N.V.
    EXPECT_EQ(countAll("VP << NP", trees), 8u);   // both VPs of tree 1 over 2 NPs each; tree 2's VP over 4
    EXPECT_EQ(countAll("NP $+ /,/", trees), 2u);  // Pierre Vinken ,  and  Elsevier N.V. ,
    EXPECT_EQ(countAll("_ROOT_ < S", trees), 2u); // the unlabelled wrapper is the root
    EXPECT_EQ(countAll("/^$/", trees), 2u);       // ... and its label is ""
    size_t named = 0;
    for (const auto &t : trees)
        for (const auto &m : pattern("S < NP-SBJ=subj < (VP < /^VB/=verb)").match(t))
            named += word(t, m.bound[0]) == "Mr." && t.node(m.bound[1]).label == "VBZ";
    EXPECT_EQ(named, 1u);
}

TEST(Tregex, PtbSampleCountsAgreeWithAnIndependentCount)
{
    TREELENS_REQUIRE_SHARED("data/ptb-sample/wsj_0001.mrg");
    const auto trees = sampleTrees(test::sharedPath("data/ptb-sample"), 1, 199);
    ASSERT_EQ(trees.size(), 3914u);
    // Expected numbers from a 30-line Python script independent of TreeLens: it reads the
    // .mrg files as s-expressions (a leaf is a word, the wrapper's label is "") and counts,
    // for each pattern, per node with the root's label, the product of the numbers of
    // children (or descendants) with the other labels, as Tregex's semantics say:
    //   __                 every node, leaves and wrappers included
    //   NP < DT            sum over NP nodes of their DT children
    //   NP !< DT           NP nodes with no DT child
    //   @NP < NNP          sum over nodes whose label before '-'/'=' is NP of their NNP children
    //   VP < (VB $+ NP)    sum over VP nodes of their VB children followed by an NP sister
    //   S < NP-SBJ < VP    sum over S nodes of (NP-SBJ children) x (VP children)
    //   -NONE- < /^\*T\*/  -NONE- nodes over a word starting with *T*
    //   /VB/               nodes (words too) whose label contains "VB"
    //   NP << NN           sum over NP nodes of their NN descendants
    EXPECT_EQ(countAll("__", trees), 283950u);
    EXPECT_EQ(countAll("NP < DT", trees), 6051u);
    EXPECT_EQ(countAll("NP !< DT", trees), 17681u);
    EXPECT_EQ(countAll("@NP < NNP", trees), 9259u);
    EXPECT_EQ(countAll("VP < (VB $+ NP)", trees), 1333u);
    EXPECT_EQ(countAll("S < NP-SBJ < VP", trees), 6177u);
    EXPECT_EQ(countAll("-NONE- < /^\\*T\\*/", trees), 1608u);
    EXPECT_EQ(countAll("/VB/", trees), 12637u);
    EXPECT_EQ(countAll("NP << NN", trees), 20073u);
}
