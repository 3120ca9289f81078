// Probing-task datasets (Conneau et al. 2018 tasks, Hewitt & Liang control tasks).
// Every expectation below is worked out by hand from the trees/lengths written in
// the test, or (the PTB sample) by an independent Python count described there.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/formats/corpus.h"
#include "core/formats/ptb.h"
#include "core/probing/probetasks.h"
#include "testutil.h"

using namespace treelens;

namespace {

std::vector<Sentence> ptb(const std::string &text, bool strip = true)
{
    PtbReadOptions opt;
    opt.stripTraces = strip;
    opt.stripFunctionTags = strip;
    auto r = readPtbSentences(text, "t.mrg", opt);
    EXPECT_TRUE(r.ok()) << r.message();
    return r.ok() ? *r : std::vector<Sentence>{};
}

/// A sentence with only tokens: n words, the first one `first`.
Sentence words(int n, const std::string &first = "w")
{
    Sentence s;
    for (int i = 0; i < n; ++i) {
        Token t;
        t.text = i == 0 ? first : "x" + std::to_string(i);
        s.tokens.push_back(t);
    }
    return s;
}

Sentence depSentence(std::vector<int> heads)
{
    Sentence s = words(static_cast<int>(heads.size()));
    DependencyTree d;
    d.heads = std::move(heads);
    d.deprels.assign(d.heads.size(), "dep");
    s.dependency = d;
    return s;
}

std::vector<std::string> labelsOf(const ProbeDataset &ds, const std::vector<ProbeExample> &ex)
{
    std::vector<std::string> out;
    for (const auto &e : ex)
        out.push_back(e.label >= 0 ? ds.labels[static_cast<std::size_t>(e.label)] : "?");
    return out;
}

// Three hand-analysed trees:
//  0 "( (S (NP-SBJ (DT The) (NN man)) (VP (VBD left)) (. .)) )": unlabeled wrapper
//    skipped; top "NP VP ." (function tag stripped); depth S>NP>NN>man = 3; 4 words.
//  1 "(ROOT (S (ADVP (RB Then)) (NP (PRP he)) (VP (VBD ran) (PP (IN to) (NP (DT the)
//    (NN store)))) (. .)))": ROOT skipped; top "ADVP NP VP ." (punctuation kept, as
//    Conneau's example); deepest path S>VP>PP>NP>NN>store = 5; 7 words.
//  2 "(S (NP-SBJ (-NONE- *)) (VP (VB Go)) (. !))": the trace-only subject is no word
//    and no constituent; top "VP ."; depth S>VP>VB>Go = 3; 2 words.
const char *kThree = "( (S (NP-SBJ (DT The) (NN man)) (VP (VBD left)) (. .)) )\n"
                     "(ROOT (S (ADVP (RB Then)) (NP (PRP he)) (VP (VBD ran) (PP (IN to) (NP (DT the) (NN store)))) (. .)))\n"
                     "(S (NP-SBJ (-NONE- *)) (VP (VB Go)) (. !))\n";

} // namespace

TEST(ProbeTasks, TaskNames)
{
    EXPECT_EQ(*parseProbeTask("sentlen"), ProbeTask::SentLen);
    EXPECT_EQ(*parseProbeTask("SentLen-Bins"), ProbeTask::SentLenBins);
    EXPECT_EQ(*parseProbeTask("treedepth"), ProbeTask::TreeDepth);
    EXPECT_EQ(*parseProbeTask("TopConst"), ProbeTask::TopConst);
    auto bad = parseProbeTask("wordcontent");
    ASSERT_FALSE(bad.ok());
    EXPECT_NE(bad.message().find("topconst"), std::string::npos);
    for (auto t : {ProbeTask::SentLen, ProbeTask::SentLenBins, ProbeTask::TreeDepth, ProbeTask::TopConst})
        EXPECT_EQ(*parseProbeTask(probeTaskName(t)), t);
    EXPECT_FALSE(isClassificationTask(ProbeTask::SentLen));
    EXPECT_TRUE(isClassificationTask(ProbeTask::TopConst));
}

TEST(ProbeTasks, HandCheckedTreesDepthTopConstLength)
{
    for (bool strip : {true, false}) { // traces present or stripped: same answers
        const auto s = ptb(kThree, strip);
        ASSERT_EQ(s.size(), 3u);
        // TopConst with the train split = all three: each sequence seen once; ties
        // broken by string order: "ADVP NP VP ." < "NP VP ." < "VP .".
        auto tc = buildProbeDataset(ProbeTask::TopConst, s, {}, s);
        ASSERT_TRUE(tc.ok()) << tc.message();
        EXPECT_EQ(tc->labels, (std::vector<std::string>{"ADVP NP VP .", "NP VP .", "VP .", "other"}));
        EXPECT_EQ(labelsOf(*tc, tc->train), (std::vector<std::string>{"NP VP .", "ADVP NP VP .", "VP ."}));
        EXPECT_EQ(tc->train[1].sentence, 1);

        ProbeTaskOptions o;
        o.depthMinCount = 1;
        auto td = buildProbeDataset(ProbeTask::TreeDepth, s, {}, s, o);
        ASSERT_TRUE(td.ok()) << td.message();
        EXPECT_EQ(td->depthSource, "constituency");
        EXPECT_EQ(td->labels, (std::vector<std::string>{"3", "5"}));
        EXPECT_EQ(labelsOf(*td, td->test), (std::vector<std::string>{"3", "5", "3"}));
        EXPECT_EQ(td->test[1].target, 5.0);

        auto sl = buildProbeDataset(ProbeTask::SentLen, s, {}, s);
        ASSERT_TRUE(sl.ok()) << sl.message();
        EXPECT_TRUE(sl->regression());
        ASSERT_EQ(sl->test.size(), 3u);
        EXPECT_EQ(sl->test[0].target, 4.0);
        EXPECT_EQ(sl->test[1].target, 7.0);
        EXPECT_EQ(sl->test[2].target, 2.0);
        EXPECT_EQ(sl->test[2].label, -1);
    }
}

TEST(ProbeTasks, DependencyDepthAndMixedSource)
{
    // heads (1-based, 0 = root) [2,0,2,3]: word 2 is the root (depth 1), words 1 and 3
    // hang from it (2), word 4 from word 3 (3): depth 3.
    // [0]: one word, depth 1. [2,1]: a cycle, [2,-1]: a missing head -> excluded.
    std::vector<Sentence> train = {depSentence({2, 0, 2, 3}), depSentence({0}), depSentence({2, 0, 2, 3}),
                                   depSentence({2, 1}), depSentence({2, -1})};
    ProbeTaskOptions o;
    o.depthMinCount = 1;
    auto r = buildProbeDataset(ProbeTask::TreeDepth, train, {}, train, o);
    ASSERT_TRUE(r.ok()) << r.message();
    EXPECT_EQ(r->depthSource, "dependency");
    EXPECT_EQ(r->labels, (std::vector<std::string>{"1", "3"}));
    EXPECT_EQ(labelsOf(*r, r->train), (std::vector<std::string>{"3", "1", "3"}));
    EXPECT_EQ(r->excluded.at("train/invalid-dependency-tree"), 2);
    EXPECT_EQ(r->excluded.at("test/invalid-dependency-tree"), 2);

    // Auto: constituency where there is one, dependency otherwise -> "mixed".
    auto c = ptb(kThree);
    std::vector<Sentence> mixed = {c[0], depSentence({2, 0, 2, 3}), words(3)};
    auto m = buildProbeDataset(ProbeTask::TreeDepth, mixed, {}, mixed, o);
    ASSERT_TRUE(m.ok()) << m.message();
    EXPECT_EQ(m->depthSource, "mixed (constituency 2, dependency 2)"); // train + test
    EXPECT_EQ(m->excluded.at("train/no-tree"), 1);
    // Forcing the dependency tree on a sentence that has both.
    Sentence both = c[1]; // 7 words, constituency depth 5
    DependencyTree d;
    d.heads = {3, 3, 0, 3, 6, 4, 3}; // Then he ran to the store .: ran root, to<-ran, store<-to, the<-store
    d.deprels.assign(7, "dep");
    both.dependency = d;
    o.depthSource = DepthSource::Dependency;
    std::vector<Sentence> one = {both};
    auto dd = buildProbeDataset(ProbeTask::TreeDepth, one, {}, one, o);
    ASSERT_TRUE(dd.ok()) << dd.message();
    EXPECT_EQ(dd->depthSource, "dependency");
    EXPECT_EQ(dd->train[0].target, 4.0); // ran(1) > to(2) > store(3) > the(4)
    o.depthSource = DepthSource::Constituency;
    auto cc = buildProbeDataset(ProbeTask::TreeDepth, one, {}, one, o);
    ASSERT_TRUE(cc.ok()) << cc.message();
    EXPECT_EQ(cc->train[0].target, 5.0);
}

TEST(ProbeTasks, RareDepthsExcludedOrOther)
{
    // Train depths: 3 x2 (sentence 0 twice), 5 x1. With min count 2 only "3" is a class.
    const auto c = ptb(kThree);
    std::vector<Sentence> train = {c[0], c[0], c[1]};
    std::vector<Sentence> test = {c[1], c[2]};
    ProbeTaskOptions o;
    o.depthMinCount = 2;
    auto ex = buildProbeDataset(ProbeTask::TreeDepth, train, {}, test, o);
    ASSERT_TRUE(ex.ok()) << ex.message();
    EXPECT_EQ(ex->labels, (std::vector<std::string>{"3"}));
    EXPECT_EQ(ex->train.size(), 2u);
    EXPECT_EQ(ex->excluded.at("train/rare-depth"), 1);
    EXPECT_EQ(ex->excluded.at("test/rare-depth"), 1);
    o.rareDepth = RareDepth::Other;
    auto ot = buildProbeDataset(ProbeTask::TreeDepth, train, {}, test, o);
    ASSERT_TRUE(ot.ok()) << ot.message();
    EXPECT_EQ(ot->labels, (std::vector<std::string>{"3", "other"}));
    EXPECT_EQ(labelsOf(*ot, ot->test), (std::vector<std::string>{"other", "3"}));
    EXPECT_TRUE(ot->excluded.empty());
}

TEST(ProbeTasks, TopConstNineteenPlusOther)
{
    // Synthetic corpus: top sequence "NP Aii ." with counts A00..A18 = 30..12, A19 = 12
    // (a tie with A18 at the boundary; A19's sentences come first in the corpus),
    // A20..A24 = 10, 9, 8, 7, 6. The 19 classes are A00..A18 (A18 beats A19 on the
    // string order), "other" is class 19 and gets 12+10+9+8+7+6 = 52 train sentences.
    std::map<int, int> counts;
    for (int i = 0; i <= 18; ++i)
        counts[i] = 30 - i;
    counts[19] = 12;
    const int tail[] = {10, 9, 8, 7, 6};
    for (int i = 20; i <= 24; ++i)
        counts[i] = tail[i - 20];
    const auto tree = [](int i) {
        char buf[96];
        std::snprintf(buf, sizeof buf, "(S (NP (NN a)) (A%02d (NN b)) (. .))\n", i);
        return std::string(buf);
    };
    std::string text;
    for (int i : {19, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 20, 21, 22, 23, 24})
        for (int k = 0; k < counts[i]; ++k)
            text += tree(i);
    const auto train = ptb(text);
    ASSERT_EQ(train.size(), 451u); // 30+..+12 = 399, + 12, + 10+9+8+7+6 = 40
    const auto test = ptb(tree(0) + tree(18) + tree(19) + tree(30));
    auto r = buildProbeDataset(ProbeTask::TopConst, train, {}, test);
    ASSERT_TRUE(r.ok()) << r.message();
    ASSERT_EQ(r->labels.size(), 20u);
    for (int i = 0; i <= 18; ++i) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "NP A%02d .", i);
        EXPECT_EQ(r->labels[static_cast<std::size_t>(i)], buf);
    }
    EXPECT_EQ(r->labels[19], "other");
    const auto tr = labelCounts(r->train, 20);
    EXPECT_EQ(tr[0], 30);
    EXPECT_EQ(tr[18], 12);
    EXPECT_EQ(tr[19], 52);
    EXPECT_EQ(labelsOf(*r, r->test), (std::vector<std::string>{"NP A00 .", "NP A18 .", "other", "other"}));
    // "other" (52 train sentences) outnumbers A00 (30): it is the majority class.
    // Test labels {0, 18, 19, 19}: accuracy 2/4; macro-F1 over the 3 classes present
    // (0, 18, other) with p = 1/2: F1(other) = 2p/(1+p) = 2/3, the others 0 -> 2/9.
    EXPECT_EQ(majorityLabel(*r), 19);
    EXPECT_DOUBLE_EQ(majorityAccuracy(*r), 0.5);
    EXPECT_DOUBLE_EQ(majorityMacroF1(*r), 2.0 / 9);

    ProbeTaskOptions five;
    five.topConstClasses = 5; // 4 + other
    auto r5 = buildProbeDataset(ProbeTask::TopConst, train, {}, test, five);
    ASSERT_TRUE(r5.ok());
    EXPECT_EQ(r5->labels, (std::vector<std::string>{"NP A00 .", "NP A01 .", "NP A02 .", "NP A03 .", "other"}));
    EXPECT_EQ(labelCounts(r5->train, 5)[4], 451 - 30 - 29 - 28 - 27);
}

TEST(ProbeTasks, ConneauLengthBinBoundaries)
{
    // Bins 5-8, 9-12, 13-16, 17-20, 21-25, 26-28; 4 and 29 are outside.
    std::vector<Sentence> train;
    for (int n : {4, 5, 8, 9, 12, 13, 16, 17, 20, 21, 25, 26, 28, 29})
        train.push_back(words(n));
    std::vector<Sentence> test = {words(4), words(28), words(29), words(30)};
    auto r = buildProbeDataset(ProbeTask::SentLenBins, train, {}, test);
    ASSERT_TRUE(r.ok()) << r.message();
    EXPECT_EQ(r->labels, (std::vector<std::string>{"5-8", "9-12", "13-16", "17-20", "21-25", "26-28"}));
    EXPECT_EQ(labelsOf(*r, r->train), (std::vector<std::string>{"5-8", "5-8", "9-12", "9-12", "13-16", "13-16",
                                                                 "17-20", "17-20", "21-25", "21-25", "26-28", "26-28"}));
    EXPECT_EQ(r->train.front().sentence, 1); // the 4-word sentence 0 is left out
    EXPECT_EQ(r->train.front().target, 5.0);
    EXPECT_EQ(r->excluded.at("train/outside-length-bins"), 2);
    EXPECT_EQ(r->excluded.at("test/outside-length-bins"), 3);
    EXPECT_EQ(labelsOf(*r, r->test), (std::vector<std::string>{"26-28"}));
    EXPECT_NE(describeProbeDataset(*r).find("test/outside-length-bins 3"), std::string::npos);

    // An empty sentence is left out of every task.
    train.push_back(Sentence{});
    auto e = buildProbeDataset(ProbeTask::SentLen, train, {}, test);
    ASSERT_TRUE(e.ok());
    EXPECT_EQ(e->excluded.at("train/empty-sentence"), 1);
    EXPECT_EQ(e->train.size(), 14u);
}

TEST(ProbeTasks, EqualFrequencyBins)
{
    // Train lengths 1..60: sextile cuts at sorted[10], [20], ... = 11, 21, 31, 41, 51.
    std::vector<Sentence> train;
    for (int n = 1; n <= 60; ++n)
        train.push_back(words(n));
    std::vector<Sentence> test = {words(1), words(10), words(11), words(51), words(200)};
    ProbeTaskOptions o;
    o.binning = LengthBinning::EqualFrequency;
    auto r = buildProbeDataset(ProbeTask::SentLenBins, train, {}, test, o);
    ASSERT_TRUE(r.ok()) << r.message();
    EXPECT_EQ(r->labels, (std::vector<std::string>{"1-10", "11-20", "21-30", "31-40", "41-50", "51+"}));
    EXPECT_EQ(labelCounts(r->train, 6), (std::vector<long>{10, 10, 10, 10, 10, 10}));
    EXPECT_EQ(labelsOf(*r, r->test), (std::vector<std::string>{"1-10", "1-10", "11-20", "51+", "51+"}));
    EXPECT_TRUE(r->excluded.empty());
}

TEST(ProbeTasks, MeanBaselineForSentLen)
{
    // Train lengths 4, 5, 8, 9, 28, 29: mean 83/6. Test lengths 10 and 20:
    // MSE = ((23/6)^2 + (37/6)^2) / 2 = 949/36; test variance 25 -> R2 = 1 - 949/900.
    std::vector<Sentence> train;
    for (int n : {4, 5, 8, 9, 28, 29})
        train.push_back(words(n));
    std::vector<Sentence> test = {words(10), words(20)};
    auto r = buildProbeDataset(ProbeTask::SentLen, train, {}, test);
    ASSERT_TRUE(r.ok());
    const auto b = meanBaseline(*r);
    EXPECT_DOUBLE_EQ(b.mean, 83.0 / 6);
    EXPECT_NEAR(b.mse, 949.0 / 36, 1e-12);
    EXPECT_NEAR(b.r2, -49.0 / 900, 1e-12);
    EXPECT_TRUE(std::isnan(majorityAccuracy(*r)));
}

TEST(ProbeTasks, Errors)
{
    std::vector<Sentence> plain = {words(6), words(7)};
    auto tc = buildProbeDataset(ProbeTask::TopConst, plain, {}, plain);
    ASSERT_FALSE(tc.ok());
    EXPECT_NE(tc.message().find("constituency parser"), std::string::npos) << tc.message();
    EXPECT_NE(tc.message().find("PTB"), std::string::npos) << tc.message();
    auto td = buildProbeDataset(ProbeTask::TreeDepth, plain, {}, plain);
    EXPECT_FALSE(td.ok());
    EXPECT_FALSE(buildProbeDataset(ProbeTask::SentLen, {}, plain, plain).ok());
    EXPECT_FALSE(buildProbeDataset(ProbeTask::SentLen, plain, plain, {}).ok());
    EXPECT_TRUE(buildProbeDataset(ProbeTask::SentLen, plain, {}, plain).ok()); // dev may be empty
    // Every train sentence outside the bins.
    std::vector<Sentence> shortOnes = {words(2), words(3)};
    auto sb = buildProbeDataset(ProbeTask::SentLenBins, shortOnes, {}, plain);
    ASSERT_FALSE(sb.ok());
    EXPECT_NE(sb.message().find("outside-length-bins"), std::string::npos) << sb.message();
    // Bad fractions for the one-corpus overload.
    ProbeTaskOptions o;
    o.trainFraction = 0.9;
    o.devFraction = 0.2;
    EXPECT_FALSE(buildProbeDataset(ProbeTask::SentLen, plain, o).ok());
}

TEST(ProbeTasks, SeededSplitMatchesIndependentMt19937)
{
    // Expected values from an independent Python implementation of MT19937
    // (init_genrand; its first outputs for seed 5489 are the standard's 3499211612,
    // 581869302, 3890346734) and of the documented Fisher-Yates rule
    // j = (rng() * (i+1)) >> 32 for i = n-1 .. 1.
    auto a = seededSplit(10, 0.8, 0.1, 42);
    EXPECT_EQ(a.train, (std::vector<int>{0, 1, 2, 4, 5, 6, 8, 9}));
    EXPECT_EQ(a.dev, (std::vector<int>{7}));
    EXPECT_EQ(a.test, (std::vector<int>{3}));
    auto b = seededSplit(20, 0.8, 0.1, 7);
    EXPECT_EQ(b.train, (std::vector<int>{0, 2, 3, 6, 7, 8, 9, 10, 11, 12, 13, 15, 16, 17, 18, 19}));
    EXPECT_EQ(b.dev, (std::vector<int>{5, 14}));
    EXPECT_EQ(b.test, (std::vector<int>{1, 4}));

    // Sizes, disjointness and coverage on a larger n; the builder uses the same split.
    auto c = seededSplit(1000, 0.8, 0.1, 3);
    EXPECT_EQ(c.train.size(), 800u);
    EXPECT_EQ(c.dev.size(), 100u);
    EXPECT_EQ(c.test.size(), 100u);
    std::set<int> all(c.train.begin(), c.train.end());
    all.insert(c.dev.begin(), c.dev.end());
    all.insert(c.test.begin(), c.test.end());
    EXPECT_EQ(all.size(), 1000u);
    EXPECT_NE(seededSplit(1000, 0.8, 0.1, 4).test, c.test);

    std::vector<Sentence> corpus;
    for (int i = 0; i < 20; ++i)
        corpus.push_back(words(5 + i));
    ProbeTaskOptions o;
    o.splitSeed = 7;
    auto r = buildProbeDataset(ProbeTask::SentLen, corpus, o);
    ASSERT_TRUE(r.ok()) << r.message();
    EXPECT_TRUE(r->oneCorpus);
    ASSERT_EQ(r->test.size(), 2u);
    EXPECT_EQ(r->test[0].sentence, 1);
    EXPECT_EQ(r->test[0].target, 6.0);
    EXPECT_EQ(r->test[1].sentence, 4);
    EXPECT_EQ(r->split.rfind("seeded", 0), 0u);
}

TEST(ProbeTasks, ControlTaskProperties)
{
    // Train: 3000 sentences with distinct first words; lengths give bin labels
    // 5-8 : 9-12 : 13-16 = 1500 : 900 : 600 (50% / 30% / 20%).
    std::vector<Sentence> train, test;
    for (int i = 0; i < 3000; ++i) {
        const int len = i % 10 < 5 ? 6 : (i % 10 < 8 ? 10 : 14);
        train.push_back(words(len, "Word" + std::to_string(i)));
    }
    // Test: the same word types as train sentences 0..99 but upper-cased and with
    // other lengths, so only the lower-cased first word links them.
    for (int i = 0; i < 100; ++i)
        test.push_back(words(20, "WORD" + std::to_string(i)));
    auto r = buildProbeDataset(ProbeTask::SentLenBins, train, {}, test);
    ASSERT_TRUE(r.ok()) << r.message();
    EXPECT_EQ(labelCounts(r->train, 6), (std::vector<long>{1500, 900, 600, 0, 0, 0}));

    const ProbeDataset c1 = controlTask(*r, train, {}, test, 11);
    const ProbeDataset c2 = controlTask(*r, train, {}, test, 11);
    const ProbeDataset c3 = controlTask(*r, train, {}, test, 12);
    EXPECT_EQ(c1.task, "control-sentlen-bins");
    EXPECT_EQ(c1.labels, r->labels);
    ASSERT_EQ(c1.train.size(), 3000u);
    int differ = 0;
    for (std::size_t i = 0; i < c1.train.size(); ++i) {
        EXPECT_EQ(c1.train[i].label, c2.train[i].label); // deterministic for a seed
        differ += c1.train[i].label != c3.train[i].label;
    }
    EXPECT_GT(differ, 300); // another seed gives another function
    for (int i = 0; i < 100; ++i) // same type (case-folded) -> same label
        EXPECT_EQ(c1.test[static_cast<std::size_t>(i)].label, c1.train[static_cast<std::size_t>(i)].label);
    // Distribution: each of 3000 types draws from (0.5, 0.3, 0.2); the binomial sd is
    // < 0.01, so 0.03 is > 3 sd. Labels never seen in train are never drawn.
    const auto cc = labelCounts(c1.train, 6);
    EXPECT_NEAR(cc[0] / 3000.0, 0.5, 0.03);
    EXPECT_NEAR(cc[1] / 3000.0, 0.3, 0.03);
    EXPECT_NEAR(cc[2] / 3000.0, 0.2, 0.03);
    EXPECT_EQ(cc[3] + cc[4] + cc[5], 0);

    // Many sentences sharing few types: all sentences of a type share its label.
    std::vector<Sentence> few;
    for (int i = 0; i < 200; ++i)
        few.push_back(words(6 + (i % 3) * 4, i % 2 ? "The" : "the"));
    auto f = buildProbeDataset(ProbeTask::SentLenBins, few, {}, few);
    ASSERT_TRUE(f.ok());
    const auto fc = controlTask(*f, few, {}, few, 5);
    for (const auto &e : fc.train)
        EXPECT_EQ(e.label, fc.train[0].label);
    EXPECT_EQ(controlWordType(words(3, "The")), "the");
    EXPECT_EQ(controlWordType(Sentence{}), "");

    // SentLen: control targets are drawn from the train targets.
    auto sl = buildProbeDataset(ProbeTask::SentLen, train, {}, test);
    ASSERT_TRUE(sl.ok());
    const auto cs = controlTask(*sl, train, {}, test, 11);
    EXPECT_TRUE(cs.regression());
    for (const auto &e : cs.test)
        EXPECT_TRUE(e.target == 6.0 || e.target == 10.0 || e.target == 14.0) << e.target;

    // One-corpus overload: indices refer to the corpus; same seed -> same labels.
    auto one = buildProbeDataset(ProbeTask::SentLenBins, train, ProbeTaskOptions{});
    ASSERT_TRUE(one.ok());
    const auto co = controlTask(*one, train, 11);
    const auto co2 = controlTask(*one, train, train, train, 11);
    EXPECT_EQ(co.task, "control-sentlen-bins");
    ASSERT_EQ(co.test.size(), 300u);
    for (std::size_t i = 0; i < co.test.size(); ++i) {
        EXPECT_EQ(co.test[i].label, co2.test[i].label);
        EXPECT_GE(co.test[i].label, 0);
        EXPECT_LE(co.test[i].label, 2);
    }
}

TEST(ProbeTasks, PtbSampleTopConstAndDepth)
{
    // Expected numbers from an independent Python 3 script (regex tokenizer + recursive
    // bracket parser, -NONE- subtrees and constituents left empty removed, function
    // tags cut at the first '-' or '=', the unlabeled wrapper skipped, top = labels of
    // the children of the S below it, depth = 1 + max child depth with words = 0):
    // train wsj_0001-0159 has 3396 trees, dev 0160-0179 273, test 0180-0199 245;
    // the most frequent train sequence is "NP VP ." (1471), the 19th "NP PRN VP ."
    // (17, the 20th has 14), "other" holds 700 train, 39 dev and 35 test sentences;
    // "NP VP ." is 127 of the 245 test trees. Train depth counts: 22 -> 7, 23 -> 5,
    // 24 -> 1, 25 -> 6, 26 -> 2, 27 -> 2, 28 -> 3, 29 -> 1 (the depths under 10,
    // 27 sentences), depths 2..21 all have >= 22; dev has one depth-24 tree,
    // test two of depth 22 and one of 28; depth 10: 359 train sentences.
    TREELENS_REQUIRE_SHARED("data/ptb-sample/wsj_0001.mrg");
    CorpusReadOptions ro;
    ro.stripTraces = true;
    ro.stripFunctionTags = true;
    const auto load = [&](int from, int to) {
        std::vector<Sentence> out;
        for (int f = from; f <= to; ++f) {
            char name[64];
            std::snprintf(name, sizeof name, "data/ptb-sample/wsj_%04d.mrg", f);
            auto r = readCorpusFile(test::sharedPath(name), CorpusFormat::Ptb, ro);
            EXPECT_TRUE(r.ok()) << name << ": " << r.message();
            if (r.ok())
                out.insert(out.end(), r->begin(), r->end());
        }
        return out;
    };
    const auto train = load(1, 159), dev = load(160, 179), test = load(180, 199);
    ASSERT_EQ(train.size(), 3396u);
    ASSERT_EQ(dev.size(), 273u);
    ASSERT_EQ(test.size(), 245u);

    auto tc = buildProbeDataset(ProbeTask::TopConst, train, dev, test);
    ASSERT_TRUE(tc.ok()) << tc.message();
    ASSERT_EQ(tc->labels.size(), 20u);
    EXPECT_EQ(tc->labels[0], "NP VP .");
    EXPECT_EQ(tc->labels[1], "PP , NP VP .");
    EXPECT_EQ(tc->labels[18], "NP PRN VP .");
    EXPECT_EQ(labelCounts(tc->train, 20)[0], 1471);
    EXPECT_EQ(labelCounts(tc->train, 20)[18], 17);
    EXPECT_EQ(labelCounts(tc->train, 20)[19], 700);
    EXPECT_EQ(labelCounts(tc->dev, 20)[19], 39);
    EXPECT_EQ(labelCounts(tc->test, 20)[19], 35);
    EXPECT_TRUE(tc->excluded.empty());
    EXPECT_DOUBLE_EQ(majorityAccuracy(*tc), 127.0 / 245);

    auto td = buildProbeDataset(ProbeTask::TreeDepth, train, dev, test); // min count 10, exclude
    ASSERT_TRUE(td.ok()) << td.message();
    EXPECT_EQ(td->depthSource, "constituency");
    std::vector<std::string> depths;
    for (int d = 2; d <= 21; ++d)
        depths.push_back(std::to_string(d));
    EXPECT_EQ(td->labels, depths);
    EXPECT_EQ(labelCounts(td->train, 20)[8], 359); // label "10"
    EXPECT_EQ(td->excluded.at("train/rare-depth"), 27);
    EXPECT_EQ(td->excluded.at("dev/rare-depth"), 1);
    EXPECT_EQ(td->excluded.at("test/rare-depth"), 3);
    EXPECT_EQ(td->train.size(), 3396u - 27);

    const auto ctl = controlTask(*tc, train, dev, test, 1);
    EXPECT_EQ(ctl.labels, tc->labels);
    EXPECT_EQ(ctl.test.size(), tc->test.size());
}
