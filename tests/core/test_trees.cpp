// Tree utilities on hand-checked examples.
#include "core/data/dependencytree.h"
#include "core/formats/ptb.h"
#include "testutil.h"

using namespace treelens;

namespace {
// "The old man saw a red kite ." with UD heads checked by hand:
// The->man, old->man, man->saw, saw->root, a->kite, red->kite, kite->saw, .->saw
DependencyTree kiteTree() { return {{3, 3, 4, 0, 7, 7, 4, 4}, {"det", "amod", "nsubj", "root", "det", "amod", "obj", "punct"}}; }

ConstituencyTree parseOne(const char *brackets)
{
    auto r = readPtb(brackets, "t");
    EXPECT_TRUE(r.ok()) << r.message();
    return r->front();
}
} // namespace

TEST(DependencyTree, ValidatesDistancesAndDepth)
{
    const DependencyTree t = kiteTree();
    EXPECT_TRUE(t.validate().ok());
    EXPECT_TRUE(t.isProjective());
    EXPECT_EQ(t.depth(), 2);     // saw -> man -> The
    EXPECT_EQ(t.depthOf(3), 0);  // saw
    EXPECT_EQ(t.distance(0, 6), 3); // The -> man -> saw -> kite
    EXPECT_EQ(t.distance(4, 5), 2); // a -> kite <- red
    EXPECT_EQ(t.distance(2, 2), 0);
    const auto m = t.distanceMatrix();
    for (int a = 0; a < 8; ++a)
        for (int b = 0; b < 8; ++b)
            EXPECT_EQ(m[static_cast<std::size_t>(a * 8 + b)], t.distance(a, b));
    EXPECT_EQ(t.children(3), (std::vector<int>{2, 6, 7}));
    EXPECT_EQ(t.children(-1), (std::vector<int>{3}));
}

TEST(DependencyTree, DetectsNonProjectivityAndBadTrees)
{
    // 1->3, 2->4, 3->root, 4->3 : arcs (1,3) and (2,4) cross.
    DependencyTree np{{3, 4, 0, 3}, {"a", "b", "root", "c"}};
    EXPECT_TRUE(np.validate().ok());
    EXPECT_FALSE(np.isProjective());
    EXPECT_NE(DependencyTree({{2, 1}, {"a", "b"}}).validate().message().find("no root"), std::string::npos);
    EXPECT_NE(DependencyTree({{0, 3, 2}, {"a", "b", "c"}}).validate().message().find("cycle"), std::string::npos);
    EXPECT_NE(DependencyTree({{0, 9}, {"a", "b"}}).validate().message().find("out of range"), std::string::npos);
}

TEST(ConstituencyTree, SpansDepthAndTopConstituents)
{
    const auto t = parseOne("(ROOT (S (NP (DT The) (JJ old) (NN man)) (VP (VBD saw) (NP (DT a) (JJ red) (NN kite))) (. .)))");
    const auto spans = t.spans();
    ASSERT_EQ(spans.size(), 4u);
    EXPECT_EQ(spans[0], (LabeledSpan{"S", 0, 8, -1}));
    EXPECT_EQ(spans[1], (LabeledSpan{"NP", 0, 3, -1}));
    EXPECT_EQ(spans[2], (LabeledSpan{"VP", 3, 7, -1}));
    EXPECT_EQ(spans[3], (LabeledSpan{"NP", 4, 7, -1}));
    EXPECT_EQ(t.spans(false).size(), 3u);
    EXPECT_EQ(t.depth(), 4); // S -> VP -> NP -> NN -> kite
    EXPECT_EQ(t.topConstituents(), (std::vector<std::string>{"NP", "VP", "."}));
    EXPECT_EQ(t.wordCount(), 8);
    EXPECT_EQ(t.tags()[3], "VBD");
}
