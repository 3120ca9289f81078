// Tree decoders against brute-force enumeration, and the span <-> tree conversions
// on hand-written PTB trees.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <map>
#include <random>
#include <set>

#include "core/data/dependencytree.h"
#include "core/eval/bracketeval.h"
#include "core/formats/ptb.h"
#include "core/parsing/treedecoders.h"
#include "testutil.h"

using namespace treelens;

namespace {

std::vector<float> randomScores(int n, std::mt19937 &rng, float rootBoost = 0.0f)
{
    std::uniform_real_distribution<float> u(-5.0f, 5.0f);
    std::vector<float> s(static_cast<std::size_t>((n + 1) * (n + 1)));
    for (int d = 0; d <= n; ++d)
        for (int h = 0; h <= n; ++h)
            s[static_cast<std::size_t>(d * (n + 1) + h)] = u(rng) + (h == 0 ? rootBoost : 0.0f);
    return s;
}

double treeScore(const std::vector<float> &s, int n, const std::vector<int> &heads)
{
    double t = 0;
    for (int d = 1; d <= n; ++d)
        t += s[static_cast<std::size_t>(d * (n + 1) + heads[static_cast<std::size_t>(d - 1)])];
    return t;
}

// Independent check (not DependencyTree): one root, every word reaches it.
bool singleRootedTree(const std::vector<int> &heads)
{
    const int n = static_cast<int>(heads.size());
    int roots = 0;
    for (int h : heads) {
        if (h < 0 || h > n)
            return false;
        roots += h == 0;
    }
    if (roots != 1)
        return false;
    for (int d = 1; d <= n; ++d) {
        int v = d, steps = 0;
        while (v != 0 && steps <= n) {
            if (heads[static_cast<std::size_t>(v - 1)] == v)
                return false;
            v = heads[static_cast<std::size_t>(v - 1)];
            ++steps;
        }
        if (v != 0)
            return false;
    }
    return true;
}

/// Best score over all single-rooted trees (projective ones only if asked).
double bruteForceBest(const std::vector<float> &s, int n, bool projectiveOnly)
{
    std::vector<int> heads(static_cast<std::size_t>(n), 0);
    double best = -std::numeric_limits<double>::infinity();
    std::function<void(int, int)> rec = [&](int d, int roots) {
        if (d > n) {
            if (roots != 1 || !singleRootedTree(heads))
                return;
            if (projectiveOnly) {
                DependencyTree t{heads, std::vector<std::string>(static_cast<std::size_t>(n), "dep")};
                if (!t.isProjective())
                    return;
            }
            best = std::max(best, treeScore(s, n, heads));
            return;
        }
        for (int h = 0; h <= n; ++h) {
            if (h == d || (h == 0 && roots == 1))
                continue;
            heads[static_cast<std::size_t>(d - 1)] = h;
            rec(d + 1, roots + (h == 0));
        }
    };
    rec(1, 0);
    return best;
}

ConstituencyTree readOne(const std::string &brackets)
{
    auto r = readPtb(brackets, "t");
    EXPECT_TRUE(r.ok()) << r.message();
    return r.ok() ? r->front() : ConstituencyTree();
}

std::string spansText(const std::vector<LabeledSpan> &spans)
{
    std::string out;
    for (const auto &s : spans)
        out += (out.empty() ? "" : " ") + s.label + ":" + std::to_string(s.start) + "-" + std::to_string(s.end);
    return out;
}

// ---- CKY brute force: every binary bracketing of [0, n).
using Bracketing = std::vector<std::pair<int, int>>;
std::vector<Bracketing> allBracketings(int i, int j)
{
    if (j - i == 1)
        return {{{i, j}}};
    std::vector<Bracketing> out;
    for (int k = i + 1; k < j; ++k)
        for (const auto &l : allBracketings(i, k))
            for (const auto &r : allBracketings(k, j)) {
                Bracketing b{{i, j}};
                b.insert(b.end(), l.begin(), l.end());
                b.insert(b.end(), r.begin(), r.end());
                out.push_back(std::move(b));
            }
    return out;
}

/// Contribution of one span with label l: its chart score (Ø = 0) plus the Hamming term.
double spanValue(const SpanChart &c, int i, int j, int l, const std::map<std::pair<int, int>, int> *gold)
{
    double v = l == 0 ? 0.0 : c.at(i, j, l);
    if (gold) {
        const auto it = gold->find({i, j});
        const int g = it == gold->end() ? 0 : it->second;
        v += l != g ? 1.0 : 0.0;
    }
    return v;
}

double bestSpanValue(const SpanChart &c, int i, int j, bool forceRoot, const std::map<std::pair<int, int>, int> *gold)
{
    const bool forced = forceRoot && i == 0 && j == c.n && c.labels > 1;
    double b = -std::numeric_limits<double>::infinity();
    for (int l = forced ? 1 : 0; l < c.labels; ++l)
        b = std::max(b, spanValue(c, i, j, l, gold));
    return b;
}

SpanChart randomChart(int n, int labels, std::mt19937 &rng)
{
    std::uniform_real_distribution<float> u(-3.0f, 2.0f);
    SpanChart c(n, labels);
    for (auto &v : c.scores)
        v = u(rng);
    return c;
}

// True if the spans are the 2n-1 spans of one binary tree over [0, n).
bool isBinaryTree(const std::vector<ChartSpan> &spans, int n)
{
    if (static_cast<int>(spans.size()) != 2 * n - 1)
        return false;
    std::set<std::pair<int, int>> set;
    for (const auto &s : spans)
        set.insert({s.start, s.end});
    if (static_cast<int>(set.size()) != 2 * n - 1 || !set.count({0, n}))
        return false;
    for (const auto &[i, j] : set) {
        if (j - i == 1)
            continue;
        int splits = 0;
        for (int k = i + 1; k < j; ++k)
            splits += set.count({i, k}) && set.count({k, j});
        if (splits != 1)
            return false;
    }
    return true;
}

} // namespace

// ---------------------------------------------------------------------------
// Dependency decoders

TEST(MstDecoder, HandCheckedSentence)
{
    // "John saw Mary": saw <- ROOT, John <- saw, Mary <- saw. Everything else -1.
    const int n = 3;
    std::vector<float> s(16, -1.0f);
    auto set = [&](int d, int h, float v) { s[static_cast<std::size_t>(d * 4 + h)] = v; };
    set(2, 0, 5);
    set(1, 2, 4);
    set(3, 2, 4);
    // A tempting 2-cycle John <-> Mary that must be broken.
    set(1, 3, 4.5f);
    set(3, 1, 4.2f);
    // Best: John<-Mary (4.5), Mary<-saw (4), saw<-ROOT (5) = 13.5 beats Mary<-John
    // (4 + 5 + 4.2 = 13.2) and the plain star (13).
    EXPECT_EQ(decodeMst(s, n), (std::vector<int>{3, 0, 2}));
    EXPECT_EQ(decodeEisner(s, n), (std::vector<int>{2, 0, 2})); // 3->1 crosses the root arc
}

TEST(MstDecoder, SingleRootEvenWhenRootArcsDominate)
{
    // Every word prefers ROOT: the unconstrained MST would attach all three to it.
    const int n = 3;
    std::vector<float> s(16, 0.0f);
    for (int d = 1; d <= n; ++d)
        s[static_cast<std::size_t>(d * 4)] = 10.0f;
    s[static_cast<std::size_t>(1 * 4 + 2)] = 1.0f; // 1 <- 2
    s[static_cast<std::size_t>(3 * 4 + 2)] = 2.0f; // 3 <- 2
    // Best single root: 2 root (10) + 1<-2 (1) + 3<-2 (2) = 13 (any other root word: 10 + <= 3).
    EXPECT_EQ(decodeMst(s, n), (std::vector<int>{2, 0, 2}));
    EXPECT_EQ(decodeEisner(s, n), (std::vector<int>{2, 0, 2}));
}

TEST(MstDecoder, MatchesBruteForceOnRandomScores)
{
    std::mt19937 rng(12345);
    int checked = 0;
    for (int n = 1; n <= 7; ++n) {
        const int trials = n <= 5 ? 60 : (n == 6 ? 15 : 3);
        for (int t = 0; t < trials; ++t) {
            // Some matrices strongly favour root arcs, so multi-root optima are common.
            const auto s = randomScores(n, rng, t % 3 == 0 ? 6.0f : 0.0f);
            const auto heads = decodeMst(s, n);
            ASSERT_EQ(heads.size(), static_cast<std::size_t>(n));
            ASSERT_TRUE(singleRootedTree(heads)) << "n=" << n << " t=" << t;
            DependencyTree tree{heads, std::vector<std::string>(static_cast<std::size_t>(n), "dep")};
            ASSERT_TRUE(tree.validate().ok()) << tree.validate().message();
            const double best = bruteForceBest(s, n, false);
            EXPECT_NEAR(treeScore(s, n, heads), best, 1e-4) << "n=" << n << " t=" << t;
            ++checked;
        }
    }
    EXPECT_GT(checked, 300);
}

TEST(EisnerDecoder, MatchesBruteForceOverProjectiveTrees)
{
    std::mt19937 rng(777);
    for (int n = 1; n <= 7; ++n) {
        const int trials = n <= 5 ? 60 : (n == 6 ? 15 : 3);
        for (int t = 0; t < trials; ++t) {
            const auto s = randomScores(n, rng, t % 3 == 0 ? 6.0f : 0.0f);
            const auto heads = decodeEisner(s, n);
            ASSERT_EQ(heads.size(), static_cast<std::size_t>(n));
            ASSERT_TRUE(singleRootedTree(heads));
            DependencyTree tree{heads, std::vector<std::string>(static_cast<std::size_t>(n), "dep")};
            EXPECT_TRUE(tree.isProjective()) << "n=" << n << " t=" << t;
            EXPECT_NEAR(treeScore(s, n, heads), bruteForceBest(s, n, true), 1e-4) << "n=" << n << " t=" << t;
            // Projective trees are a subset: never better than the MST.
            EXPECT_LE(treeScore(s, n, heads), treeScore(s, n, decodeMst(s, n)) + 1e-4);
        }
    }
}

TEST(MstDecoder, MalformedAndNonFiniteInput)
{
    EXPECT_TRUE(decodeMst({}, 0).empty());
    EXPECT_TRUE(decodeMst(std::vector<float>(8, 0.0f), 2).empty()); // needs 9
    EXPECT_TRUE(decodeEisner(std::vector<float>(8, 0.0f), 2).empty());
    EXPECT_EQ(decodeMst({0, 0, 0, 0}, 1), (std::vector<int>{0}));
    EXPECT_EQ(decodeEisner({0, 0, 0, 0}, 1), (std::vector<int>{0}));
    const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
    std::mt19937 rng(5);
    for (int t = 0; t < 50; ++t) {
        const int n = 1 + t % 9;
        auto s = randomScores(n, rng);
        for (std::size_t k = 0; k < s.size(); k += 1 + (t % 4))
            s[k] = (k + t) % 3 == 0 ? nan : ((k + t) % 3 == 1 ? inf : -inf);
        EXPECT_TRUE(singleRootedTree(decodeMst(s, n))) << t;
        EXPECT_TRUE(singleRootedTree(decodeEisner(s, n))) << t;
        // All-equal scores (every tree ties).
        std::vector<float> flat(s.size(), 1.0f);
        EXPECT_TRUE(singleRootedTree(decodeMst(flat, n)));
        EXPECT_TRUE(singleRootedTree(decodeEisner(flat, n)));
    }
}

TEST(DecoderTiming, Sentences250Words)
{
    std::mt19937 rng(250);
    const int n = 250;
    const auto s = randomScores(n, rng);
    using Clock = std::chrono::steady_clock;
    auto ms = [](Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double, std::milli>(b - a).count(); };
    auto t0 = Clock::now();
    const auto mst = decodeMst(s, n);
    auto t1 = Clock::now();
    const auto eis = decodeEisner(s, n);
    auto t2 = Clock::now();
    // Peaked scores like a trained parser's log-softmax: a random "gold" tree scores high.
    std::vector<float> peaked(s);
    for (int d = 1; d <= n; ++d)
        peaked[static_cast<std::size_t>(d * (n + 1) + (d == 1 ? 0 : d - 1 - static_cast<int>(rng() % 2) * (d > 2)))] += 8.0f;
    auto t3 = Clock::now();
    const auto mst2 = decodeMst(peaked, n);
    auto t4 = Clock::now();
    std::mt19937 rng2(3);
    const SpanChart chart = randomChart(n, 100, rng2);
    auto t5 = Clock::now();
    const auto cky = decodeCky(chart);
    auto t6 = Clock::now();
    EXPECT_TRUE(singleRootedTree(mst));
    EXPECT_TRUE(singleRootedTree(eis));
    EXPECT_TRUE(singleRootedTree(mst2));
    EXPECT_TRUE(isBinaryTree(cky.spans, n));
    EXPECT_GE(treeScore(s, n, mst), treeScore(s, n, eis) - 1e-3);
    std::printf("[timing] n=250: MST random %.2f ms, MST peaked %.2f ms, Eisner %.2f ms, CKY (100 labels) %.2f ms\n",
                ms(t0, t1), ms(t3, t4), ms(t1, t2), ms(t5, t6));
}

// ---------------------------------------------------------------------------
// CKY

TEST(CkyDecoder, MatchesBruteForceOverBinaryBracketings)
{
    std::mt19937 rng(99);
    for (int n = 1; n <= 6; ++n) {
        const auto bracketings = allBracketings(0, n);
        for (int t = 0; t < 40; ++t) {
            const int labels = 1 + t % 5;
            const SpanChart c = randomChart(n, labels, rng);
            for (bool force : {true, false}) {
                CkyOptions opt;
                opt.forceRootConstituent = force;
                const CkyResult r = decodeCky(c, opt);
                ASSERT_TRUE(isBinaryTree(r.spans, n)) << "n=" << n;
                double brute = -std::numeric_limits<double>::infinity();
                for (const auto &b : bracketings) {
                    double v = 0;
                    for (const auto &[i, j] : b)
                        v += bestSpanValue(c, i, j, force, nullptr);
                    brute = std::max(brute, v);
                }
                // The returned spans and labels really score what was claimed, which is the optimum.
                double mine = 0;
                for (const auto &s : r.spans) {
                    ASSERT_TRUE(s.label >= 0 && s.label < labels);
                    mine += spanValue(c, s.start, s.end, s.label, nullptr);
                    EXPECT_NEAR(spanValue(c, s.start, s.end, s.label, nullptr), bestSpanValue(c, s.start, s.end, force, nullptr), 1e-6);
                }
                EXPECT_NEAR(mine, brute, 1e-4);
                EXPECT_NEAR(r.score, brute, 1e-4);
                if (force && labels > 1) {
                    EXPECT_NE(r.spans.front().label, 0);
                }
                EXPECT_EQ(r.spans.front().start, 0);
                EXPECT_EQ(r.spans.front().end, n);
            }
        }
    }
}

TEST(CkyDecoder, HammingLossAugmentedDecodingMatchesBruteForce)
{
    std::mt19937 rng(4242);
    for (int n = 1; n <= 6; ++n) {
        const auto bracketings = allBracketings(0, n);
        for (int t = 0; t < 20; ++t) {
            const int labels = 2 + t % 3;
            const SpanChart c = randomChart(n, labels, rng);
            // Gold: a random bracketing's spans with random labels (some Ø).
            const auto &gb = bracketings[static_cast<std::size_t>(rng() % bracketings.size())];
            std::vector<ChartSpan> gold;
            std::map<std::pair<int, int>, int> goldMap;
            for (const auto &[i, j] : gb) {
                const int l = static_cast<int>(rng() % static_cast<unsigned>(labels));
                gold.push_back({i, j, l});
                goldMap[{i, j}] = l;
            }
            CkyOptions opt;
            opt.hammingGold = &gold;
            const CkyResult r = decodeCky(c, opt);
            ASSERT_TRUE(isBinaryTree(r.spans, n));
            double brute = -std::numeric_limits<double>::infinity();
            for (const auto &b : bracketings) {
                double v = 0;
                for (const auto &[i, j] : b)
                    v += bestSpanValue(c, i, j, true, &goldMap);
                brute = std::max(brute, v);
            }
            double mine = 0;
            for (const auto &s : r.spans)
                mine += spanValue(c, s.start, s.end, s.label, &goldMap);
            EXPECT_NEAR(mine, brute, 1e-4);
            EXPECT_NEAR(r.score, brute, 1e-4);
        }
    }
}

TEST(CkyDecoder, PreOrderAndMalformedCharts)
{
    // 3 words, label 1 = "NP" strong on [0,2): the tree must split at 2, pre-order output.
    SpanChart c(3, 2);
    for (auto &v : c.scores)
        v = -1.0f;
    c.at(0, 2, 1) = 3.0f;
    c.at(0, 3, 1) = 1.0f;
    const auto r = decodeCky(c);
    const std::vector<ChartSpan> expected{{0, 3, 1}, {0, 2, 1}, {0, 1, 0}, {1, 2, 0}, {2, 3, 0}};
    EXPECT_EQ(r.spans, expected);
    EXPECT_NEAR(r.score, 4.0, 1e-9);
    EXPECT_TRUE(decodeCky(SpanChart()).spans.empty());
    SpanChart bad(3, 2);
    bad.scores.pop_back();
    EXPECT_TRUE(decodeCky(bad).spans.empty());
}

// ---------------------------------------------------------------------------
// Spans <-> trees

TEST(CkyDecoder, SpansToTreeConventions)
{
    const std::vector<std::string> words{"the", "man", "left"}, tags{"DT", "NN", "VBD"};
    const std::vector<std::string> names{"", "S", "NP", "VP", "S+VP"};
    // CKY-style output: all 2n-1 spans, Ø ones removed and their children lifted.
    const std::vector<ChartSpan> cky{{0, 3, 1}, {0, 2, 2}, {0, 1, 0}, {1, 2, 0}, {2, 3, 3}};
    EXPECT_EQ(writePtbTree(spansToTree(words, tags, cky, names)), "(TOP (S (NP (DT the) (NN man)) (VP (VBD left))))");
    // Top span Ø: TOP holds the constituents directly.
    const std::vector<ChartSpan> noTop{{0, 3, 0}, {0, 2, 2}, {0, 1, 0}, {1, 2, 0}, {2, 3, 0}};
    EXPECT_EQ(writePtbTree(spansToTree(words, tags, noTop, names)), "(TOP (NP (DT the) (NN man)) (VBD left))");
    // Unary chain label, missing tags, crossing / out-of-range / unknown-label spans ignored.
    const std::vector<ChartSpan> odd{{0, 3, 4}, {0, 2, 2}, {1, 3, 3}, {2, 9, 2}, {1, 1, 2}, {2, 3, 17}};
    EXPECT_EQ(writePtbTree(spansToTree(words, {"DT"}, odd, names)), "(TOP (S (VP (NP (DT the) (X man)) (X left))))");
    // Identical ranges: the earlier span is outer.
    const std::vector<LabeledSpan> same{{"S", 0, 1, -1}, {"NP", 0, 1, -1}};
    EXPECT_EQ(writePtbTree(spansToTree({"Go"}, {"VB"}, same)), "(TOP (S (NP (VB Go))))");
}

TEST(CkyDecoder, TrainingSpansRoundTripPtbTrees)
{
    struct Case {
        const char *ptb;
        const char *spans;   // hand-listed expected training spans
        const char *rebuilt; // hand-written expected tree
    };
    const Case cases[] = {
        {"(S (VP (VB Go)))", "S+VP:0-1", "(TOP (S (VP (VB Go))))"},
        {"( (S (NP (NP (DT the) (NN man)) (PP (IN in) (NP (DT the) (NN park)))) (VP (VBD left)) (. .)) )",
         "S:0-7 NP:0-5 NP:0-2 PP:2-5 NP:3-5 VP:5-6",
         "(TOP (S (NP (NP (DT the) (NN man)) (PP (IN in) (NP (DT the) (NN park)))) (VP (VBD left)) (. .)))"},
        {"(ROOT (S (NP (PRP He)) (VP (VBD ran) (ADVP (RB away)))))", "S:0-3 NP:0-1 VP:1-3 ADVP:2-3",
         "(TOP (S (NP (PRP He)) (VP (VBD ran) (ADVP (RB away)))))"},
        // A wrapper with several children has no whole-sentence span.
        {"(TOP (NP (DT a) (NN dog)) (. .))", "NP:0-2", "(TOP (NP (DT a) (NN dog)) (. .))"},
        // Traces cover no word: the subject vanishes and S, VP become a chain.
        {"(S (NP-SBJ (-NONE- *)) (VP (VB Go) (. !)))", "S+VP:0-2", "(TOP (S (VP (VB Go) (. !))))"},
        // Chain of three with a one-word NP below.
        {"(S (SINV (VP (VB Stop) (NP (PRP it)))))", "S+SINV+VP:0-2 NP:1-2", "(TOP (S (SINV (VP (VB Stop) (NP (PRP it))))))"},
        // A bare preterminal tree: no spans at all.
        {"(NN word)", "", "(TOP (NN word))"},
    };
    for (const auto &c : cases) {
        const ConstituencyTree t = readOne(c.ptb);
        const auto spans = treeToTrainingSpans(t);
        EXPECT_EQ(spansText(spans), c.spans) << c.ptb;
        for (const auto &s : spans)
            EXPECT_EQ(ConstituencyTree::baseLabel(t.node(s.node).label), ConstituencyTree::baseLabel(s.label.substr(0, s.label.find('+'))));
        const ConstituencyTree back = spansToTree(t.words(), t.tags(), spans);
        EXPECT_TRUE(back.validate().ok());
        EXPECT_EQ(writePtbTree(back), c.rebuilt) << c.ptb;
        EXPECT_EQ(back.words(), t.words());
        // And the inverse: spans of the rebuilt tree are the same spans.
        EXPECT_EQ(spansText(treeToTrainingSpans(back)), c.spans);
        // Scored against the original (traces stripped by bracketeval), the rebuilt tree
        // is perfect. Not for the bare preterminal: its TOP has no phrasal child, so
        // bracketeval counts TOP as a bracket the original lacks.
        if (t.isPreterminal(t.root()))
            continue;
        const auto lab = compareTrees(t, back, true);
        EXPECT_EQ(lab.matched, lab.gold) << c.ptb;
        EXPECT_EQ(lab.matched, lab.predicted) << c.ptb;
    }
}

TEST(CkyDecoder, GoldChartDecodesToGoldTree)
{
    // Full pipeline: gold spans -> chart favouring them -> CKY (binarises the n-ary
    // S with a Ø span) -> spansToTree -> the gold tree under TOP, F1 100.
    const ConstituencyTree gold = readOne(
        "( (S (NP (DT The) (JJ old) (NN man)) (VP (VBD saw) (NP (DT a) (NN kite)) (PP (IN in) (NP (NN May)))) (. .)) )");
    const auto spans = treeToTrainingSpans(gold);
    std::vector<std::string> names{""};
    std::map<std::string, int> index;
    for (const auto &s : spans)
        if (!index.count(s.label)) {
            index[s.label] = static_cast<int>(names.size());
            names.push_back(s.label);
        }
    const int n = gold.wordCount();
    SpanChart chart(n, static_cast<int>(names.size()));
    for (auto &v : chart.scores)
        v = -1.0f;
    for (const auto &s : spans)
        chart.at(s.start, s.end, index[s.label]) = 2.0f;
    const auto r = decodeCky(chart);
    ASSERT_TRUE(isBinaryTree(r.spans, n));
    EXPECT_NEAR(r.score, 2.0 * static_cast<double>(spans.size()), 1e-6);
    const ConstituencyTree pred = spansToTree(gold.words(), gold.tags(), r.spans, names);
    EXPECT_EQ(writePtbTree(pred), "(TOP " + writePtbTree(readOne("(S (NP (DT The) (JJ old) (NN man)) (VP (VBD saw) (NP (DT a) (NN kite)) (PP (IN in) (NP (NN May)))) (. .))")) + ")");
    const auto lab = compareTrees(gold, pred, true);
    EXPECT_EQ(lab.gold, 6); // S, NP, VP, NP, PP, NP
    EXPECT_EQ(lab.matched, lab.gold);
    EXPECT_EQ(lab.matched, lab.predicted);
}
