// Attention–tree agreement metrics (core/probing/attentiontree.h). Every number
// below is computed by hand in the comments; the attention values are dyadic
// (multiples of 1/16) so that float storage and sums are exact and ties are ties.
#include "core/probing/attentiontree.h"

#include <cmath>

#include <gtest/gtest.h>

#include "core/base/fileio.h"
#include "core/formats/conllu.h"
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

/// Word rows (n×n, self included) into a token matrix with a [CLS] token 0 when
/// `cls`; the [CLS] column gets a large weight that must be ignored.
Matrix tokenMatrix(const std::vector<std::vector<float>> &rows, bool cls)
{
    const int n = static_cast<int>(rows.size());
    const int off = cls ? 1 : 0;
    Matrix m(n + off, n + off, 0.0f);
    for (int i = 0; i < n; ++i) {
        if (cls)
            m.at(i + 1, 0) = 0.9375f;
        for (int j = 0; j < n; ++j)
            m.at(i + off, j + off) = rows[i][j];
    }
    return m;
}

Analysis makeAnalysis(const std::vector<std::string> &words, bool cls, const std::vector<std::vector<std::vector<float>>> &heads)
{
    Analysis a;
    a.words = words;
    if (cls)
        a.tokens.push_back("[CLS]");
    for (std::size_t i = 0; i < words.size(); ++i) {
        a.tokens.push_back(words[i]);
        a.wordToken.push_back(static_cast<int>(i) + (cls ? 1 : 0));
    }
    a.layers = 1;
    a.heads = static_cast<int>(heads.size());
    a.attention.emplace_back();
    for (const auto &rows : heads)
        a.attention[0].push_back(tokenMatrix(rows, cls));
    return a;
}

// Sentence 0: "the cat sat down", heads the→cat (det), cat→sat (nsubj), sat root,
// down→sat (compound:prt); constituency (S (NP the cat) (VP sat down)).
Sentence sentence0()
{
    Sentence s = fromBrackets("(S (NP (DT the) (NN cat)) (VP (VBD sat) (RP down)))");
    s.id = "s0";
    s.dependency = DependencyTree{{2, 3, 0, 3}, {"det", "nsubj", "root", "compound:prt"}};
    return s;
}
// Word-level rows (row = attending word, column = attended word, self included).
// Head 0 argmax over OTHER words: the→cat, cat→sat, sat→down, down→{the,sat} tie → the.
const std::vector<std::vector<float>> kS0H0 = {
    {0.5f, 0.25f, 0.125f, 0.125f},
    {0.125f, 0.125f, 0.625f, 0.125f},
    {0.125f, 0.125f, 0.25f, 0.5f},
    {0.375f, 0.125f, 0.375f, 0.125f}};
// Head 1 argmax: the→down, cat→the, sat→cat, down→sat.
const std::vector<std::vector<float>> kS0H1 = {
    {0.0f, 0.25f, 0.25f, 0.5f},
    {0.75f, 0.0f, 0.125f, 0.125f},
    {0.125f, 0.5f, 0.0f, 0.375f},
    {0.125f, 0.125f, 0.75f, 0.0f}};

// Sentence 1: "dogs bark loudly", dogs→bark (nsubj), bark root, loudly→bark (advmod);
// constituency (S (NP dogs) (VP bark (ADVP loudly))). Its analysis has no [CLS].
Sentence sentence1()
{
    Sentence s = fromBrackets("(S (NP (NNS dogs)) (VP (VBP bark) (ADVP (RB loudly))))");
    s.id = "s1";
    s.dependency = DependencyTree{{2, 0, 2}, {"nsubj", "root", "advmod"}};
    return s;
}
// Head 0 argmax: dogs→bark, bark→loudly, loudly→bark. Head 1: uniform, so
// every argmax is the lowest other index: dogs→bark, bark→dogs, loudly→dogs.
const std::vector<std::vector<float>> kS1H0 = {{0.0f, 1.0f, 0.0f}, {0.25f, 0.0f, 0.75f}, {0.25f, 0.75f, 0.0f}};
const std::vector<std::vector<float>> kS1H1 = {{0.25f, 0.25f, 0.25f}, {0.25f, 0.25f, 0.25f}, {0.25f, 0.25f, 0.25f}};

// Sentence 2: one word.
Sentence sentence2()
{
    Sentence s = fromBrackets("(S (UH Hi))");
    s.id = "s2";
    s.dependency = DependencyTree{{0}, {"root"}};
    return s;
}

struct Corpus {
    std::vector<Sentence> gold;
    std::vector<Analysis> analyses;
};

Corpus handCorpus()
{
    Corpus c;
    c.gold = {sentence0(), sentence1(), sentence2()};
    c.analyses = {makeAnalysis({"the", "cat", "sat", "down"}, true, {kS0H0, kS0H1}),
                  makeAnalysis({"dogs", "bark", "loudly"}, false, {kS1H0, kS1H1}),
                  makeAnalysis({"Hi"}, true, {{{0.5f}}, {{0.5f}}})};
    return c;
}

const HeadAccuracySentence *sentenceCounts(const RelationHeadAccuracy &r, int sentence)
{
    for (const auto &s : r.sentences)
        if (s.sentence == sentence)
            return &s;
    return nullptr;
}

} // namespace

TEST(AttentionTree, HeadAccuracyHandComputed)
{
    const Corpus c = handCorpus();
    auto rep = headAccuracy(c.gold, c.analyses);
    ASSERT_TRUE(rep.ok()) << rep.message();
    EXPECT_EQ(rep->layers, 1);
    EXPECT_EQ(rep->heads, 2);
    EXPECT_EQ(rep->sentences, 3u);
    // Relations: "all" first, then alphabetical (compound:prt → compound).
    const std::vector<std::string> names = {"all", "advmod", "compound", "det", "nsubj"};
    ASSERT_EQ(rep->relations.size(), names.size());
    for (std::size_t i = 0; i < names.size(); ++i)
        EXPECT_EQ(rep->relations[i].relation, names[i]);

    // Arcs: s0 (the,cat) det, (cat,sat) nsubj, (down,sat) compound; s1 (dogs,bark) nsubj, (loudly,bark) advmod.
    // dep→head, head 0: s0 det ✓ nsubj ✓ compound ✗ (tie → the); s1 ✓ ✓         → 4/5 = 80
    // dep→head, head 1: s0 ✗ ✗ ✓; s1 dogs→bark ✓, loudly→dogs ✗                  → 2/5 = 40
    // head→dep, head 0: s0 row cat→sat ≠ the ✗, row sat→down ≠ cat ✗, = down ✓;
    //                   s1 row bark→loudly: nsubj ✗, advmod ✓                     → 2/5 = 40
    // head→dep, head 1: s0 row cat→the ✓, row sat→cat ✓ (nsubj), ≠ down ✗;
    //                   s1 row bark→dogs: nsubj ✓, advmod ✗                       → 3/5 = 60
    const auto *all = rep->find("all");
    ASSERT_NE(all, nullptr);
    EXPECT_EQ(all->count, 5);
    EXPECT_DOUBLE_EQ(all->depToHead.at(0, 0), 80.0);
    EXPECT_DOUBLE_EQ(all->depToHead.at(0, 1), 40.0);
    EXPECT_DOUBLE_EQ(all->headToDep.at(0, 0), 40.0);
    EXPECT_DOUBLE_EQ(all->headToDep.at(0, 1), 60.0);
    EXPECT_EQ(all->bestDepToHead.layer, 0);
    EXPECT_EQ(all->bestDepToHead.head, 0);
    EXPECT_DOUBLE_EQ(all->bestDepToHead.accuracy, 80.0);
    EXPECT_EQ(all->bestHeadToDep.head, 1);
    EXPECT_DOUBLE_EQ(all->bestHeadToDep.accuracy, 60.0);

    // nsubj: s0 (cat,sat), s1 (dogs,bark).
    // dep→head: head 0 ✓ ✓ = 100, head 1 ✗ ✓ = 50; head→dep: head 0 ✗ ✗ = 0, head 1 ✓ ✓ = 100.
    const auto *nsubj = rep->find("nsubj");
    ASSERT_NE(nsubj, nullptr);
    EXPECT_EQ(nsubj->count, 2);
    EXPECT_DOUBLE_EQ(nsubj->depToHead.at(0, 0), 100.0);
    EXPECT_DOUBLE_EQ(nsubj->depToHead.at(0, 1), 50.0);
    EXPECT_DOUBLE_EQ(nsubj->headToDep.at(0, 0), 0.0);
    EXPECT_DOUBLE_EQ(nsubj->headToDep.at(0, 1), 100.0);
    EXPECT_EQ(nsubj->bestHeadToDep.head, 1);
    // compound: only (down,sat): dep→head head 0 ✗ head 1 ✓; head→dep head 0 ✓ head 1 ✗.
    const auto *compound = rep->find("compound");
    ASSERT_NE(compound, nullptr);
    EXPECT_EQ(compound->count, 1);
    EXPECT_DOUBLE_EQ(compound->depToHead.at(0, 0), 0.0);
    EXPECT_DOUBLE_EQ(compound->depToHead.at(0, 1), 100.0);
    EXPECT_DOUBLE_EQ(compound->headToDep.at(0, 0), 100.0);
    EXPECT_DOUBLE_EQ(compound->headToDep.at(0, 1), 0.0);
    EXPECT_EQ(compound->bestDepToHead.head, 1);
    EXPECT_EQ(rep->find("root"), nullptr) << "root arcs are not scored";

    // Per-sentence counts for "all": s0 total 3, d2h (2, 1), h2d (1, 2); s1 total 2, d2h (2, 1), h2d (1, 1).
    const auto *c0 = sentenceCounts(*all, 0);
    const auto *c1 = sentenceCounts(*all, 1);
    ASSERT_NE(c0, nullptr);
    ASSERT_NE(c1, nullptr);
    EXPECT_EQ(sentenceCounts(*all, 2), nullptr) << "the one-word sentence has no arc";
    EXPECT_EQ(c0->total, 3);
    EXPECT_EQ(c0->depToHead, (std::vector<int>{2, 1}));
    EXPECT_EQ(c0->headToDep, (std::vector<int>{1, 2}));
    EXPECT_EQ(c1->total, 2);
    EXPECT_EQ(c1->depToHead, (std::vector<int>{2, 1}));
    EXPECT_EQ(c1->headToDep, (std::vector<int>{1, 1}));

    // Worst first. d2h head 0: s0 2/3 < s1 2/2. d2h head 1: s0 1/3 < s1 1/2.
    // h2d head 1: s1 1/2 < s0 2/3. h2d head 0: s0 1/3 < s1 1/2.
    EXPECT_EQ(sentencesForCell(*rep, 0, 0), (std::vector<int>{0, 1}));
    EXPECT_EQ(sentencesForCell(*rep, 0, 1), (std::vector<int>{0, 1}));
    EXPECT_EQ(sentencesForCell(*rep, 0, 1, "all", ArcDirection::HeadToDep), (std::vector<int>{1, 0}));
    EXPECT_EQ(sentencesForCell(*rep, 0, 0, "all", ArcDirection::HeadToDep), (std::vector<int>{0, 1}));
    // nsubj d2h head 1: s0 0/1 < s1 1/1. compound: only s0.
    EXPECT_EQ(sentencesForCell(*rep, 0, 1, "nsubj"), (std::vector<int>{0, 1}));
    EXPECT_EQ(sentencesForCell(*rep, 0, 0, "compound"), (std::vector<int>{0}));
    EXPECT_TRUE(sentencesForCell(*rep, 0, 0, "xcomp").empty());
    EXPECT_TRUE(sentencesForCell(*rep, 1, 0).empty());
    EXPECT_TRUE(sentencesForCell(*rep, 0, 2).empty());
}

TEST(AttentionTree, HeadAccuracyKeepsOrFoldsRelationSubtypesAsAsked)
{
    // The hand corpus's one compound:prt arc (down, sat): folded it is the row "compound"
    // (above); kept it is a row of its own with the same numbers, and no "compound" row.
    const Corpus c = handCorpus();
    auto folded = headAccuracy(c.gold, c.analyses);
    ASSERT_TRUE(folded.ok()) << folded.message();
    EXPECT_FALSE(folded->subtypesKept);
    AttentionTreeOptions keep;
    keep.keepRelationSubtypes = true;
    auto kept = headAccuracy(c.gold, c.analyses, keep);
    ASSERT_TRUE(kept.ok()) << kept.message();
    EXPECT_TRUE(kept->subtypesKept);
    const std::vector<std::string> names = {"all", "advmod", "compound:prt", "det", "nsubj"};
    ASSERT_EQ(kept->relations.size(), names.size());
    for (std::size_t i = 0; i < names.size(); ++i)
        EXPECT_EQ(kept->relations[i].relation, names[i]);
    EXPECT_EQ(kept->find("compound"), nullptr);
    const auto *prt = kept->find("compound:prt");
    ASSERT_NE(prt, nullptr);
    EXPECT_EQ(prt->count, 1);
    EXPECT_DOUBLE_EQ(prt->depToHead.at(0, 0), 0.0);
    EXPECT_DOUBLE_EQ(prt->depToHead.at(0, 1), 100.0);
    EXPECT_DOUBLE_EQ(prt->headToDep.at(0, 0), 100.0);
    EXPECT_DOUBLE_EQ(prt->headToDep.at(0, 1), 0.0);
    // "all" does not depend on the choice.
    EXPECT_EQ(kept->find("all")->depToHead.values, folded->find("all")->depToHead.values);
}

// `probe --where` (arcsMetadata): only the arcs each sentence's metadata lists. s0's nsubj
// (word 2, cat→sat) and s1's (word 1, dogs→bark): "all" is then the nsubj row above, and a
// sentence without the key (s2) scores none; the offset baselines count the same arcs.
TEST(AttentionTree, HeadAccuracyOnTheListedArcsOnly)
{
    Corpus c = handCorpus();
    c.gold[0].setMetadata("where.arcs", "2");
    c.gold[1].setMetadata("where.arcs", "1");
    AttentionTreeOptions options;
    options.arcsMetadata = "where.arcs";
    auto rep = headAccuracy(c.gold, c.analyses, options);
    ASSERT_TRUE(rep.ok()) << rep.message();
    auto whole = headAccuracy(c.gold, c.analyses);
    ASSERT_TRUE(whole.ok());
    const auto *all = rep->find("all");
    ASSERT_NE(all, nullptr);
    EXPECT_EQ(all->count, 2);
    EXPECT_EQ(all->depToHead.values, whole->find("nsubj")->depToHead.values);
    EXPECT_EQ(all->headToDep.values, whole->find("nsubj")->headToDep.values);
    EXPECT_EQ(all->offsets.size(), whole->find("nsubj")->offsets.size());
    EXPECT_DOUBLE_EQ(all->offsetAccuracy(1), whole->find("nsubj")->offsetAccuracy(1)); // both subjects precede their verb
    ASSERT_EQ(rep->relations.size(), 2u) << "all and nsubj";
    EXPECT_EQ(rep->relations[1].relation, "nsubj");
    // Malformed or out-of-range entries select nothing.
    c.gold[0].setMetadata("where.arcs", "9,x,0");
    c.gold[1].setMetadata("where.arcs", "");
    auto none = headAccuracy(c.gold, c.analyses, options);
    ASSERT_TRUE(none.ok()) << none.message();
    EXPECT_EQ(none->find("all")->count, 0);
}

// One sentence at a time (what the heads overview colours by): the same counts as
// the corpus report's per-sentence numbers, and the best offset on its arcs.
TEST(AttentionTree, ArcHitsOfOneSentence)
{
    const Corpus c = handCorpus();
    // s0, head 0: d2h 2 of 3, h2d 1 (see HeadAccuracyHandComputed); head 1: d2h 1, h2d 2.
    // Offsets of s0's arcs: the→cat +1, cat→sat +1, down→sat −1: best +1 with 2.
    auto h0 = arcHits(*c.gold[0].dependency, c.analyses[0].attention[0][0], c.analyses[0].wordToken);
    ASSERT_TRUE(h0.ok()) << h0.message();
    EXPECT_EQ(h0->arcs, 3);
    EXPECT_EQ(h0->depToHead, 2);
    EXPECT_EQ(h0->headToDep, 1);
    EXPECT_EQ(h0->bestOffset, 1);
    EXPECT_EQ(h0->offsetHits, 2);
    auto h1 = arcHits(*c.gold[0].dependency, c.analyses[0].attention[0][1], c.analyses[0].wordToken);
    ASSERT_TRUE(h1.ok());
    EXPECT_EQ(h1->depToHead, 1);
    EXPECT_EQ(h1->headToDep, 2);
    // s1: dogs→bark +1, loudly→bark −1: a tie, the negative offset wins.
    auto s1 = arcHits(*c.gold[1].dependency, c.analyses[1].attention[0][1], c.analyses[1].wordToken);
    ASSERT_TRUE(s1.ok());
    EXPECT_EQ(s1->arcs, 2);
    EXPECT_EQ(s1->depToHead, 1);
    EXPECT_EQ(s1->headToDep, 1);
    EXPECT_EQ(s1->bestOffset, -1);
    EXPECT_EQ(s1->offsetHits, 1);
    // The one-word sentence has no arc and no offset.
    auto s2 = arcHits(*c.gold[2].dependency, c.analyses[2].attention[0][0], c.analyses[2].wordToken);
    ASSERT_TRUE(s2.ok());
    EXPECT_EQ(s2->arcs, 0);
    EXPECT_EQ(s2->bestOffset, 0);
    // A tree of another length, a word outside the matrix: errors.
    EXPECT_FALSE(arcHits(*c.gold[1].dependency, c.analyses[0].attention[0][0], c.analyses[0].wordToken).ok());
    EXPECT_FALSE(arcHits(*c.gold[2].dependency, Matrix(1, 1, 0.5f), {1}).ok());
}

TEST(AttentionTree, FixedOffsetBaselines)
{
    const Corpus c = handCorpus();
    auto rep = headAccuracy(c.gold, c.analyses);
    ASSERT_TRUE(rep.ok()) << rep.message();
    // Gold head - dependent offsets: the +1, cat +1, down -1, dogs +1, loudly -1.
    const auto *all = rep->find("all");
    ASSERT_NE(all, nullptr);
    ASSERT_EQ(all->offsets.size(), 10u) << "-5..-1 and +1..+5 by default";
    EXPECT_EQ(all->offsets.front().offset, -5);
    EXPECT_EQ(all->offsets.back().offset, 5);
    EXPECT_DOUBLE_EQ(all->offsetAccuracy(-2), 0.0);
    EXPECT_DOUBLE_EQ(all->offsetAccuracy(-1), 40.0); // 2/5
    EXPECT_DOUBLE_EQ(all->offsetAccuracy(1), 60.0);  // 3/5
    EXPECT_DOUBLE_EQ(all->offsetAccuracy(2), 0.0);
    EXPECT_EQ(all->bestOffset.offset, 1);
    EXPECT_EQ(all->bestOffset.correct, 3);
    EXPECT_DOUBLE_EQ(all->bestOffset.accuracy, 60.0);
    EXPECT_EQ(rep->find("det")->bestOffset.offset, 1);
    EXPECT_DOUBLE_EQ(rep->find("det")->bestOffset.accuracy, 100.0);
    EXPECT_EQ(rep->find("compound")->bestOffset.offset, -1);
    EXPECT_EQ(rep->find("advmod")->bestOffset.offset, -1);
    // nsubj: cat→sat +1, dogs→bark +1.
    EXPECT_DOUBLE_EQ(rep->find("nsubj")->offsetAccuracy(1), 100.0);
    EXPECT_DOUBLE_EQ(rep->find("nsubj")->offsetAccuracy(-1), 0.0);

    // "a b c" with a the root, b→a (offset -1, relation dep) and c→a (offset -2, obj):
    // for "all", -1 and -2 tie at 50 and the smaller |offset| wins.
    Sentence s = fromBrackets("(S (A a) (B b) (C c))");
    s.dependency = DependencyTree{{0, 1, 1}, {"root", "dep", "obj"}};
    const Analysis a = makeAnalysis({"a", "b", "c"}, true, {kS1H1});
    AttentionTreeOptions opt;
    opt.maxBaselineOffset = 1; // raised to 2
    auto r2 = headAccuracy({s}, {a}, opt);
    ASSERT_TRUE(r2.ok()) << r2.message();
    const auto *obj = r2->find("obj");
    ASSERT_EQ(obj->offsets.size(), 4u);
    EXPECT_DOUBLE_EQ(obj->offsetAccuracy(-2), 100.0);
    EXPECT_EQ(obj->bestOffset.offset, -2);
    EXPECT_DOUBLE_EQ(r2->find("all")->offsetAccuracy(-1), 50.0); // b→a
    EXPECT_DOUBLE_EQ(r2->find("all")->offsetAccuracy(-2), 50.0); // c→a
    EXPECT_EQ(r2->find("all")->bestOffset.offset, -1) << "tie: smaller |offset| wins";
}

TEST(AttentionTree, MaximumSpanningTreeTies)
{
    // All weights equal: Prim from 0 takes the lowest outside vertex each time and
    // keeps the earlier (lower) tree end → a star around 0.
    std::vector<double> w(16, 1.0);
    EXPECT_EQ(maximumSpanningTree(w, 4), (std::vector<std::pair<int, int>>{{0, 1}, {0, 2}, {0, 3}}));
    // Path 0-1-2 is heavier than 0-2.
    const std::vector<double> p = {0, 3, 1, 3, 0, 2, 1, 2, 0};
    EXPECT_EQ(maximumSpanningTree(p, 3), (std::vector<std::pair<int, int>>{{0, 1}, {1, 2}}));
    EXPECT_TRUE(maximumSpanningTree({0.0}, 1).empty());
}

TEST(AttentionTree, MstUuasHandComputed)
{
    const Corpus c = handCorpus();
    auto rep = attentionMstUuas(c.gold, c.analyses);
    ASSERT_TRUE(rep.ok()) << rep.message();
    // s0 gold edges {0-1, 1-2, 2-3}.
    // Head 0, S = (A+Aᵀ)/2: S01 .1875 S02 .125 S03 .25 S12 .375 S13 .125 S23 .4375.
    //   Prim from 0: 3 (.25), then 2 via 3 (.4375), then 1 via 2 (.375) → {0-3, 3-2, 2-1}: 2/3.
    // Head 1: S01 .5 S02 .1875 S03 .3125 S12 .3125 S13 .125 S23 .5625.
    //   Prim: 1 (.5); keys 2 .3125 via 1, 3 .3125 via 0 → tie, 2 first; then 3 via 2 (.5625) → gold: 3/3.
    // Layer mean: S01 .34375 S02 .15625 S03 .28125 S12 .34375 S13 .125 S23 .5 → 0-1, 1-2, 2-3: 3/3.
    // s1 gold edges {0-1, 1-2}.
    // Head 0: S01 .625 S02 .125 S12 .75 → 0-1, 1-2: 2/2.
    // Head 1 (uniform): star 0-1, 0-2: 1/2.
    // Layer mean: S01 .4375 S02 .1875 S12 .5 → 0-1, 1-2: 2/2.
    // s2 (one word) skipped. Edges 3 + 2 = 5.
    EXPECT_EQ(rep->edges, 5);
    EXPECT_EQ(rep->skipped, 1u);
    ASSERT_EQ(rep->sentences.size(), 2u);
    EXPECT_DOUBLE_EQ(rep->uuas.at(0, 0), 80.0); // (2 + 2) / 5
    EXPECT_DOUBLE_EQ(rep->uuas.at(0, 1), 80.0); // (3 + 1) / 5
    ASSERT_EQ(rep->layerMean.size(), 1u);
    EXPECT_DOUBLE_EQ(rep->layerMean[0], 100.0);
    EXPECT_EQ(rep->sentences[0].correct, (std::vector<int>{2, 3, 3}));
    EXPECT_EQ(rep->sentences[1].correct, (std::vector<int>{2, 1, 2}));
    // Worst first: head 0 s0 2/3 < s1 1; head 1 s1 1/2 < s0 1; layer mean tie → corpus order.
    EXPECT_EQ(sentencesForCell(*rep, 0, 0), (std::vector<int>{0, 1}));
    EXPECT_EQ(sentencesForCell(*rep, 0, 1), (std::vector<int>{1, 0}));
    EXPECT_EQ(sentencesForCell(*rep, 0, kLayerMean), (std::vector<int>{0, 1}));
    EXPECT_TRUE(sentencesForCell(*rep, 0, 2).empty());
}

TEST(AttentionTree, ConstituentMassHandComputed)
{
    const Corpus c = handCorpus();
    auto rep = constituentMass(c.gold, c.analyses);
    ASSERT_TRUE(rep.ok()) << rep.message();
    // s0 spans S[0,4) NP[0,2) VP[2,4): S(the)=S(cat)=[0,2), S(sat)=S(down)=[2,4).
    // Head 0 (self weights ignored; [CLS] column ignored):
    //  the  [., .25, .125, .125]: total .5, in .25 → mass .5; baseline: j=1 (d1, only right side) in →.25;
    //        j=2,3 (left side out) out → .25/.5 = .5
    //  cat  [.125, ., .625, .125]: total .875, in .125 → 1/7; baseline: j=0,j=2 (d1, both sides: 0 in, 2 out) ½ each
    //        → (.0625 + .3125), j=3 (d2, only 3) out → .375/.875 = 3/7
    //  sat  [.125, .125, ., .5]: total .75, in .5 → 2/3; baseline: j=0 (d2, only 0) out, j=1 and j=3 (d1: 1 out, 3 in) ½
    //        → (.0625 + .25)/.75 = 5/12
    //  down [.375, .125, .375, .]: total .875, in .375 → 3/7; baseline: j=0 (d3, only 0) out, j=1 (d2, only 1) out,
    //        j=2 (d1, only 2) in → 3/7
    //  sums: mass 73/42, baseline 149/84.
    // Head 1 (row totals 1):
    //  the  [0, .25, .25, .5]  mass .25,  baseline .25
    //  cat  [.75, 0, .125, .125] mass .75, baseline .375 + .0625 = .4375
    //  sat  [.125, .5, 0, .375] mass .375, baseline .25 + .1875 = .4375
    //  down [.125, .125, .75, 0] mass .75, baseline .75
    //  sums: mass 2.125, baseline 1.875.
    // s1 spans S[0,3) NP[0,1) VP[1,3) ADVP[2,3): dogs has only the whole sentence → skipped;
    //  S(bark)=S(loudly)=[1,3).
    //  Head 0: bark [.25, 0, .75]: mass .75, baseline (.125 + .375) = .5;
    //          loudly [.25, .75, 0]: mass .75, baseline j=0 (d2, only 0) out, j=1 (d1, only 1) in → .75.
    //  Head 1 (uniform .25): bark mass .5 baseline .5; loudly mass .5 baseline (0 + .25)/.5 = .5.
    // s2: one word, skipped. Skipped words: dogs, Hi.
    EXPECT_EQ(rep->skippedWords, 2);
    EXPECT_EQ(rep->words, (std::vector<long>{6, 6}));
    ASSERT_EQ(rep->sentences.size(), 2u);
    const auto &s0 = rep->sentences[0];
    EXPECT_EQ(s0.sentence, 0);
    EXPECT_EQ(s0.words, (std::vector<int>{4, 4}));
    EXPECT_NEAR(s0.mass(0), 73.0 / 168.0, 1e-12);
    EXPECT_NEAR(s0.baseline(0), 149.0 / 336.0, 1e-12);
    EXPECT_NEAR(s0.mass(0) - s0.baseline(0), -1.0 / 112.0, 1e-12);
    EXPECT_NEAR(s0.mass(1), 0.53125, 1e-12);
    EXPECT_NEAR(s0.baseline(1), 0.46875, 1e-12);
    const auto &s1 = rep->sentences[1];
    EXPECT_EQ(s1.words, (std::vector<int>{2, 2}));
    EXPECT_NEAR(s1.mass(0), 0.75, 1e-12);
    EXPECT_NEAR(s1.baseline(0), 0.625, 1e-12);
    EXPECT_NEAR(s1.mass(1), 0.5, 1e-12);
    EXPECT_NEAR(s1.baseline(1), 0.5, 1e-12);
    // Corpus (6 words): head 0 mass (73/42 + 1.5)/6 = 34/63, baseline (149/84 + 1.25)/6 = 127/252, diff 1/28;
    // head 1 mass 3.125/6, baseline 2.875/6, diff .25/6.
    EXPECT_NEAR(rep->mass.at(0, 0), 34.0 / 63.0, 1e-12);
    EXPECT_NEAR(rep->baseline.at(0, 0), 127.0 / 252.0, 1e-12);
    EXPECT_NEAR(rep->difference.at(0, 0), 1.0 / 28.0, 1e-12);
    EXPECT_NEAR(rep->mass.at(0, 1), 3.125 / 6.0, 1e-12);
    EXPECT_NEAR(rep->baseline.at(0, 1), 2.875 / 6.0, 1e-12);
    EXPECT_NEAR(rep->difference.at(0, 1), 0.25 / 6.0, 1e-12);
    // Worst first (mass - baseline): head 0 s0 -1/112 < s1 .125; head 1 s1 0 < s0 .0625.
    EXPECT_EQ(sentencesForCell(*rep, 0, 0), (std::vector<int>{0, 1}));
    EXPECT_EQ(sentencesForCell(*rep, 0, 1), (std::vector<int>{1, 0}));
}

TEST(AttentionTree, DependencyConstituents)
{
    AttentionTreeOptions opt;
    opt.spans = AttentionTreeOptions::Spans::Dependency;
    // s0 heads {2,3,0,3}: subtree hulls the [0,1) cat [0,2) sat [0,4) down [3,4).
    auto sp = goldConstituentSpans(sentence0(), 4, opt);
    ASSERT_TRUE(sp.ok()) << sp.message();
    EXPECT_EQ(*sp, (std::vector<std::pair<int, int>>{{0, 1}, {0, 2}, {0, 4}, {3, 4}}));
    // Non-projective: w0→w2, w1→w3, w2 root, w3→w2: subtree of w3 = {w1, w3} → hull [1,4).
    Sentence np = fromBrackets("(S (A a) (B b) (C c) (D d))");
    np.dependency = DependencyTree{{3, 4, 0, 3}, {"x", "x", "root", "x"}};
    auto sp2 = goldConstituentSpans(np, 4, opt);
    ASSERT_TRUE(sp2.ok()) << sp2.message();
    EXPECT_EQ(*sp2, (std::vector<std::pair<int, int>>{{0, 1}, {1, 2}, {0, 4}, {1, 4}}));
    // Auto uses the constituency tree when there is one, Dependency on request.
    auto sp3 = goldConstituentSpans(sentence0(), 4);
    ASSERT_TRUE(sp3.ok());
    EXPECT_EQ(*sp3, (std::vector<std::pair<int, int>>{{0, 4}, {0, 2}, {2, 4}}));

    // Mass with dependency constituents on s0, head 0: S(the)=S(cat)=[0,2); sat and down skipped
    // (sat: only [0,4); down: only [3,4) and [0,4)). the: mass .5 baseline .5; cat: 1/7, 3/7.
    const Corpus c = handCorpus();
    auto rep = constituentMass({c.gold[0]}, {c.analyses[0]}, opt);
    ASSERT_TRUE(rep.ok()) << rep.message();
    EXPECT_EQ(rep->skippedWords, 2);
    EXPECT_EQ(rep->words[0], 2);
    EXPECT_NEAR(rep->mass.at(0, 0), (0.5 + 1.0 / 7.0) / 2.0, 1e-12);
    EXPECT_NEAR(rep->baseline.at(0, 0), (0.5 + 3.0 / 7.0) / 2.0, 1e-12);
}

TEST(AttentionTree, LinkProbabilitiesHandComputed)
{
    Corpus c = handCorpus();
    c.gold.pop_back();
    c.analyses.pop_back();
    // s0 tokens [CLS] the cat sat down: linkProbs[l] = [CLS-the, the-cat, cat-sat, sat-down].
    c.analyses[0].linkProbs = {{0.9f, 0.8f, 0.2f, 0.6f}, {0.1f, 0.5f, 0.5f, 0.5f}};
    // s1 has no [CLS]: wordToken {0,1,2}, gap k reads linkProbs[k].
    c.analyses[1].linkProbs = {{0.1f, 0.9f}, {0.25f, 0.75f}};
    auto rep = linkProbabilityStats(c.gold, c.analyses);
    ASSERT_TRUE(rep.ok()) << rep.message();
    // s0 gap sizes: the|cat NP 2, cat|sat only S (whole), sat|down VP 2. s1: dogs|bark whole (3), bark|loudly VP 2.
    ASSERT_EQ(rep->sentences.size(), 2u);
    EXPECT_EQ(rep->sentences[0].gapSize, (std::vector<int>{2, 4, 2}));
    EXPECT_EQ(rep->sentences[1].gapSize, (std::vector<int>{3, 2}));
    EXPECT_EQ(rep->sentences[0].links[0], (std::vector<float>{0.8f, 0.2f, 0.6f}));
    ASSERT_EQ(rep->layers, 2);
    // Layer 0 links [.8 .2 .6 .1 .9]: mean .52; population variance
    // (.28² + .32² + .08² + .42² + .38²)/5 = .508/5 = .1016.
    const auto &l0 = rep->perLayer[0];
    EXPECT_EQ(l0.gaps, 5);
    EXPECT_NEAR(l0.mean, 0.52, 1e-6);
    EXPECT_NEAR(l0.stddev, std::sqrt(0.1016), 1e-6);
    EXPECT_EQ(l0.bucketCount[Size2], 3);
    EXPECT_EQ(l0.bucketCount[WholeSentence], 2);
    EXPECT_EQ(l0.bucketCount[Size3to4], 0);
    EXPECT_NEAR(l0.bucketMean[Size2], (0.8 + 0.6 + 0.9) / 3.0, 1e-6);
    EXPECT_NEAR(l0.bucketMean[WholeSentence], 0.15, 1e-6);
    // Spearman: link ranks [4 2 3 1 5]; -size [-2 -4 -2 -3 -2] ranks [4 1 4 2 4];
    // deviations from 3: [1 -1 0 -2 2], [1 -2 1 -1 1]: 7 / sqrt(10 * 8).
    EXPECT_NEAR(l0.spearman, 7.0 / std::sqrt(80.0), 1e-9);
    // Layer 1 links [.5 .5 .5 .25 .75]: ranks [3 3 3 1 5], deviations [0 0 0 -2 2]: 4 / sqrt(8 * 8) = .5.
    const auto &l1 = rep->perLayer[1];
    EXPECT_NEAR(l1.mean, 0.5, 1e-9);
    EXPECT_NEAR(l1.spearman, 0.5, 1e-9);
    // Per sentence: s0 layer 0 links [.8 .2 .6] ranks [3 1 2], -size ranks [2.5 1 2.5]:
    // 1.5 / sqrt(2 * 1.5); layer 1 constant → NaN. s1: 1 on both layers.
    EXPECT_NEAR(rep->sentences[0].spearman[0], 1.5 / std::sqrt(3.0), 1e-9);
    EXPECT_TRUE(std::isnan(rep->sentences[0].spearman[1]));
    EXPECT_NEAR(rep->sentences[1].spearman[0], 1.0, 1e-9);
    EXPECT_EQ(sentencesForCell(*rep, 0), (std::vector<int>{0, 1}));
    EXPECT_EQ(sentencesForCell(*rep, 1), (std::vector<int>{1, 0})) << "NaN last";
    EXPECT_TRUE(sentencesForCell(*rep, 2).empty());
}

TEST(AttentionTree, LinkBucketsFromDependencyChain)
{
    // 10 words, word k's head is word k+1, the last word is the root: the subtree of
    // word k spans [0, k+1), so gap (k, k+1) lies in [0, k+2) first: size k+2 = 2..10.
    Sentence s;
    Analysis a;
    s.dependency = DependencyTree{};
    a.tokens.push_back("[CLS]");
    std::vector<float> links{0.0f}; // [CLS] link, ignored
    for (int k = 0; k < 10; ++k) {
        Token t;
        t.text = "w" + std::to_string(k);
        s.tokens.push_back(t);
        s.dependency->heads.push_back(k == 9 ? 0 : k + 2);
        s.dependency->deprels.push_back(k == 9 ? "root" : "dep");
        a.tokens.push_back(t.text);
        a.wordToken.push_back(k + 1);
        if (k < 9)
            links.push_back(0.125f * static_cast<float>(k + 1) / 2.0f); // gap k: (k+1)/16
    }
    a.linkProbs = {links};
    auto rep = linkProbabilityStats({s}, {a});
    ASSERT_TRUE(rep.ok()) << rep.message();
    EXPECT_EQ(rep->sentences[0].gapSize, (std::vector<int>{2, 3, 4, 5, 6, 7, 8, 9, 10}));
    const auto &st = rep->perLayer[0];
    // Buckets: 2 → gap 0 (1/16); 3-4 → gaps 1,2 (2.5/16); 5-8 → gaps 3..6 (5.5/16); 9+ → gap 7 (8/16);
    // whole sentence (10) → gap 8 (9/16).
    EXPECT_EQ(st.bucketCount, (std::array<long, LinkBucketCount>{1, 2, 4, 1, 1}));
    EXPECT_DOUBLE_EQ(st.bucketMean[Size2], 1.0 / 16);
    EXPECT_DOUBLE_EQ(st.bucketMean[Size3to4], 2.5 / 16);
    EXPECT_DOUBLE_EQ(st.bucketMean[Size5to8], 5.5 / 16);
    EXPECT_DOUBLE_EQ(st.bucketMean[Size9Plus], 8.0 / 16);
    EXPECT_DOUBLE_EQ(st.bucketMean[WholeSentence], 9.0 / 16);
    // Links grow with size: perfectly anti-correlated with -size.
    EXPECT_NEAR(st.spearman, -1.0, 1e-12);
    EXPECT_STREQ(linkBucketName(Size9Plus), "9+");
}

TEST(AttentionTree, RawAttentionOption)
{
    // attentionRaw holds the heads swapped: with raw = true head 0 scores like head 1.
    Corpus c = handCorpus();
    for (auto &a : c.analyses)
        a.attentionRaw = {{a.attention[0][1], a.attention[0][0]}};
    AttentionTreeOptions raw;
    raw.raw = true;
    auto r = headAccuracy(c.gold, c.analyses, raw);
    ASSERT_TRUE(r.ok()) << r.message();
    EXPECT_DOUBLE_EQ(r->find("all")->depToHead.at(0, 0), 40.0);
    EXPECT_DOUBLE_EQ(r->find("all")->depToHead.at(0, 1), 80.0);
    auto plain = headAccuracy(c.gold, c.analyses);
    ASSERT_TRUE(plain.ok());
    EXPECT_DOUBLE_EQ(plain->find("all")->depToHead.at(0, 0), 80.0);
    // Empty attentionRaw means "identical": raw falls back to attention.
    for (auto &a : c.analyses)
        a.attentionRaw.clear();
    auto fallback = headAccuracy(c.gold, c.analyses, raw);
    ASSERT_TRUE(fallback.ok());
    EXPECT_DOUBLE_EQ(fallback->find("all")->depToHead.at(0, 0), 80.0);
}

TEST(AttentionTree, MismatchedInputsAreErrors)
{
    const Corpus c = handCorpus();
    // Sentence counts.
    auto r1 = headAccuracy(c.gold, {c.analyses[0], c.analyses[1]});
    ASSERT_FALSE(r1.ok());
    EXPECT_NE(r1.message().find("3 sentences"), std::string::npos) << r1.message();
    EXPECT_FALSE(attentionMstUuas({c.gold[0]}, {}).ok());
    EXPECT_FALSE(constituentMass({}, {c.analyses[0]}).ok());
    EXPECT_FALSE(linkProbabilityStats({c.gold[0]}, {}).ok());
    // Word counts: s1's analysis for s0.
    auto r2 = attentionMstUuas({c.gold[0]}, {c.analyses[1]});
    ASSERT_FALSE(r2.ok());
    EXPECT_NE(r2.message().find("'s0'"), std::string::npos) << r2.message();
    EXPECT_NE(r2.message().find("4 words"), std::string::npos) << r2.message();
    EXPECT_FALSE(constituentMass({c.gold[0]}, {c.analyses[1]}).ok());
    // No dependency tree.
    Sentence noDep = c.gold[1];
    noDep.dependency.reset();
    auto r3 = headAccuracy({c.gold[0], noDep}, {c.analyses[0], c.analyses[1]});
    ASSERT_FALSE(r3.ok());
    EXPECT_NE(r3.message().find("'s1'"), std::string::npos) << r3.message();
    EXPECT_FALSE(attentionMstUuas({noDep}, {c.analyses[1]}).ok());
    // Constituency required but absent.
    Sentence noConst = c.gold[1];
    noConst.constituency.reset();
    AttentionTreeOptions constOnly;
    constOnly.spans = AttentionTreeOptions::Spans::Constituency;
    auto r4 = constituentMass({noConst}, {c.analyses[1]}, constOnly);
    ASSERT_FALSE(r4.ok());
    EXPECT_NE(r4.message().find("'s1'"), std::string::npos) << r4.message();
    EXPECT_TRUE(constituentMass({noConst}, {c.analyses[1]}).ok()) << "Auto falls back to the dependency tree";
    noConst.dependency.reset();
    EXPECT_FALSE(constituentMass({noConst}, {c.analyses[1]}).ok());
    // No attention.
    Analysis noAtt = c.analyses[1];
    noAtt.attention.clear();
    EXPECT_FALSE(headAccuracy({c.gold[1]}, {noAtt}).ok());
    // Different head counts across the corpus.
    Analysis oneHead = c.analyses[1];
    oneHead.attention[0].pop_back();
    EXPECT_FALSE(attentionMstUuas({c.gold[0], c.gold[1]}, {c.analyses[0], oneHead}).ok());
    // A word token outside the matrix.
    Analysis badToken = c.analyses[1];
    badToken.wordToken[2] = 7;
    EXPECT_FALSE(headAccuracy({c.gold[1]}, {badToken}).ok());
    // No link probabilities.
    auto r5 = linkProbabilityStats({c.gold[0]}, {c.analyses[0]});
    ASSERT_FALSE(r5.ok());
    EXPECT_NE(r5.message().find("link probabilities"), std::string::npos) << r5.message();
    // Too few link probabilities for the words.
    Analysis shortLinks = c.analyses[0];
    shortLinks.linkProbs = {{0.5f, 0.5f}};
    EXPECT_FALSE(linkProbabilityStats({c.gold[0]}, {shortLinks}).ok());
}

TEST(AttentionTree, PerfectAttentionOnEwtDev)
{
    TREELENS_REQUIRE_SHARED("data/ud-english-ewt/en_ewt-ud-dev.conllu");
    auto text = readFile(test::sharedPath("data/ud-english-ewt/en_ewt-ud-dev.conllu"));
    ASSERT_TRUE(text.ok()) << text.message();
    auto gold = readConllu(*text, "en_ewt-ud-dev.conllu");
    ASSERT_TRUE(gold.ok()) << gold.message();
    ASSERT_GT(gold->size(), 1000u);
    // Every word attends with weight 1 to its gold head (the root word to [CLS]);
    // a second head attends uniformly. [CLS] is token 0, word i is token i+1.
    std::vector<Analysis> analyses;
    long arcs = 0, edges = 0;
    for (const auto &s : *gold) {
        const int n = static_cast<int>(s.tokens.size());
        Analysis a;
        a.tokens.push_back("[CLS]");
        for (int i = 0; i < n; ++i) {
            a.tokens.push_back(s.tokens[i].text);
            a.wordToken.push_back(i + 1);
        }
        Matrix perfect(n + 1, n + 1, 0.0f), uniform(n + 1, n + 1, 1.0f / static_cast<float>(n + 1));
        for (int i = 0; i < n; ++i) {
            perfect.at(i + 1, s.dependency->heads[i]) = 1.0f; // head h (1-based) is token h
            arcs += s.dependency->heads[i] != 0;
        }
        edges += n - 1;
        a.layers = 1;
        a.heads = 2;
        a.attention = {{perfect, uniform}};
        analyses.push_back(std::move(a));
    }
    auto acc = headAccuracy(*gold, analyses);
    ASSERT_TRUE(acc.ok()) << acc.message();
    const auto *all = acc->find("all");
    EXPECT_EQ(all->count, arcs);
    EXPECT_DOUBLE_EQ(all->depToHead.at(0, 0), 100.0);
    for (const auto &r : acc->relations)
        EXPECT_DOUBLE_EQ(r.depToHead.at(0, 0), 100.0) << r.relation;
    EXPECT_LT(all->depToHead.at(0, 1), 100.0);
    // Offsets only predict correctly where the head is at that offset: their sum is at most 100.
    double sum = 0;
    for (const auto &o : all->offsets)
        sum += o.accuracy;
    EXPECT_LE(sum, 100.0 + 1e-9);
    EXPECT_GT(all->offsetAccuracy(1) + all->offsetAccuracy(-1), 30.0);
    EXPECT_NE(acc->find("nsubj"), nullptr);

    auto uuas = attentionMstUuas(*gold, analyses);
    ASSERT_TRUE(uuas.ok()) << uuas.message();
    EXPECT_EQ(uuas->edges, edges);
    EXPECT_DOUBLE_EQ(uuas->uuas.at(0, 0), 100.0);
    EXPECT_LT(uuas->uuas.at(0, 1), 100.0);
    EXPECT_TRUE(sentencesForCell(*uuas, 0, 0).size() == uuas->sentences.size());

    auto mass = constituentMass(*gold, analyses);
    ASSERT_TRUE(mass.ok()) << mass.message();
    EXPECT_GT(mass->words[0], 10000);
    EXPECT_GE(mass->mass.at(0, 0), 0.0);
    EXPECT_LE(mass->mass.at(0, 0), 1.0);
}
