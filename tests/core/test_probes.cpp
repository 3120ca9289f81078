// Trainable probes (issue 6): MLP / linear sentence probes, Hewitt & Manning
// structural probes and the feature extraction feeding them.
// Expectations are independent of the code under test: synthetic data whose
// learnability (or unlearnability) is known by construction, metrics worked out
// by hand in the comments, and the shipped encoder's layer states recomputed
// here from Encoder::layerStates().

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "core/encoders/encoder.h"
#include "core/formats/corpus.h"
#include "core/probing/probes.h"
#include "testutil.h"

using namespace treelens;

namespace {

// ---------------------------------------------------------------------------
// Synthetic sentence-level data
// ---------------------------------------------------------------------------

/// Class k is the code 2·e_k in the first `classes` dimensions, plus N(0, 0.5²)
/// noise in all `dim` dimensions: class means are 2.83 apart, so a Bayes-optimal
/// classifier errs on far less than 1% of the examples.
ProbeSplit separable(int count, int classes, int dim, std::mt19937 &rng)
{
    std::normal_distribution<float> noise(0.0f, 0.5f);
    ProbeSplit s;
    s.features = Matrix(count, dim);
    for (int r = 0; r < count; ++r) {
        const int y = static_cast<int>(rng() % static_cast<unsigned>(classes));
        s.labels.push_back(y);
        s.sentences.push_back(r);
        for (int c = 0; c < dim; ++c)
            s.features.at(r, c) = (c == y ? 2.0f : 0.0f) + noise(rng);
    }
    return s;
}

/// Labels drawn independently of the features: 60% class 0, 20% each of 1 and 2.
ProbeSplit unrelated(int count, int dim, std::mt19937 &rng)
{
    std::normal_distribution<float> gauss(0.0f, 1.0f);
    ProbeSplit s;
    s.features = Matrix(count, dim);
    for (int r = 0; r < count; ++r) {
        const unsigned u = rng() % 10u;
        s.labels.push_back(u < 6 ? 0 : u < 8 ? 1 : 2);
        s.sentences.push_back(r);
        for (int c = 0; c < dim; ++c)
            s.features.at(r, c) = gauss(rng);
    }
    return s;
}

/// target = 20 + 5·(w·x) + N(0, 0.5²) with x ~ N(0, I), |w| = 1: the explained
/// variance is 25 / (25 + 0.25), so the best R² is 0.99.
ProbeSplit linearTargets(int count, int dim, std::mt19937 &rng)
{
    std::normal_distribution<float> gauss(0.0f, 1.0f);
    std::vector<double> w(static_cast<std::size_t>(dim), 1.0 / std::sqrt(static_cast<double>(dim)));
    ProbeSplit s;
    s.features = Matrix(count, dim);
    for (int r = 0; r < count; ++r) {
        double dot = 0;
        for (int c = 0; c < dim; ++c) {
            s.features.at(r, c) = gauss(rng);
            dot += w[static_cast<std::size_t>(c)] * s.features.at(r, c);
        }
        s.targets.push_back(20.0 + 5.0 * dot + 0.5 * gauss(rng));
        s.sentences.push_back(r);
    }
    return s;
}

ProbeInputs separableInputs(std::uint32_t seed = 7)
{
    std::mt19937 rng(seed);
    ProbeInputs in;
    in.numClasses = 4;
    in.labels = {"a", "b", "c", "d"};
    in.train = separable(400, 4, 16, rng);
    in.dev = separable(100, 4, 16, rng);
    in.test = separable(300, 4, 16, rng);
    return in;
}

double share(const std::vector<int> &labels, int label)
{
    long c = 0;
    for (int y : labels)
        c += y == label;
    return static_cast<double>(c) / static_cast<double>(labels.size());
}

} // namespace

TEST(Probes, MetricsByHand)
{
    // gold 0 0 1 1 2, predicted 0 1 1 1 0: 3 of 5 right.
    // class 0: tp 1, fp 1, fn 1 -> F1 2/4 = 0.5; class 1: tp 2, fp 1 -> 4/5 = 0.8;
    // class 2: tp 0 -> 0. Macro-F1 = 1.3 / 3.
    const ProbeMetrics c = classificationMetrics({0, 0, 1, 1, 2}, {0, 1, 1, 1, 0});
    EXPECT_DOUBLE_EQ(c.accuracy, 0.6);
    EXPECT_NEAR(c.macroF1, 1.3 / 3.0, 1e-12);
    // A class that is only predicted (3) counts too (scikit-learn "macro"):
    // class 0 F1 = 2/3, class 3 F1 = 0 -> 1/3.
    EXPECT_NEAR(classificationMetrics({0, 0}, {0, 3}).macroF1, 1.0 / 3.0, 1e-12);
    // MSE (0 + 0 + 1) / 3; variance of 1 2 3 is 2/3 -> R² = 1 - (1/3)/(2/3) = 0.5.
    const ProbeMetrics r = regressionMetrics({1, 2, 3}, {1, 2, 4});
    EXPECT_NEAR(r.mse, 1.0 / 3.0, 1e-12);
    EXPECT_NEAR(r.r2, 0.5, 1e-12);
    EXPECT_TRUE(std::isnan(regressionMetrics({2, 2}, {1, 2}).r2));
}

TEST(Probes, SeparableClassesAreLearned)
{
    const ProbeInputs in = separableInputs();
    ProbeTrainOptions o;
    o.learningRate = 5e-3;
    o.maxEpochs = 40;
    o.patience = 8;
    std::vector<ProbeEpoch> seen;
    auto r = trainProbe(in, o, [&](const ProbeEpoch &e) { seen.push_back(e); });
    ASSERT_TRUE(r.ok()) << r.message();
    EXPECT_FALSE(r->regression);
    EXPECT_GE(r->test.accuracy, 0.95);
    EXPECT_GE(r->test.macroF1, 0.95);
    // MLP 16 -> 16 -> 4: 16·16 + 16 + 4·16 + 4 weights and biases.
    EXPECT_EQ(r->parameters, 16 * 16 + 16 + 4 * 16 + 4);
    // One callback per epoch, numbered 1.., identical to the curve.
    ASSERT_EQ(seen.size(), r->curve.size());
    for (std::size_t i = 0; i < seen.size(); ++i) {
        EXPECT_EQ(seen[i].epoch, static_cast<int>(i) + 1);
        EXPECT_EQ(seen[i].trainLoss, r->curve[i].trainLoss);
        EXPECT_FALSE(std::isnan(seen[i].devMetric));
    }
    EXPECT_GE(r->bestEpoch, 1);
    EXPECT_LE(r->bestEpoch, static_cast<int>(r->curve.size()));
    EXPECT_DOUBLE_EQ(r->bestDevMetric, r->curve[static_cast<std::size_t>(r->bestEpoch - 1)].devMetric);
    EXPECT_DOUBLE_EQ(r->dev.accuracy, r->bestDevMetric); // the kept parameters are the best epoch's
    EXPECT_LT(r->curve.back().trainLoss, r->curve.front().trainLoss);
    ASSERT_EQ(r->testPredicted.size(), 300u);
    EXPECT_DOUBLE_EQ(classificationMetrics(in.test.labels, r->testPredicted).accuracy, r->test.accuracy);

    // The linear probe (no hidden layer): 16·4 + 4 parameters, same data separable.
    o.architecture = ProbeArchitecture::Linear;
    auto lin = trainProbe(in, o);
    ASSERT_TRUE(lin.ok()) << lin.message();
    EXPECT_EQ(lin->parameters, 16 * 4 + 4);
    EXPECT_GE(lin->test.accuracy, 0.95);
}

TEST(Probes, UnrelatedLabelsStayNearTheMajorityBaseline)
{
    std::mt19937 rng(11);
    ProbeInputs in;
    in.numClasses = 3;
    in.labels = {"x", "y", "z"};
    in.train = unrelated(300, 16, rng);
    in.dev = unrelated(200, 16, rng);
    in.test = unrelated(600, 16, rng);
    ProbeTrainOptions o;
    o.maxEpochs = 30;
    o.patience = 5;
    auto r = trainProbe(in, o);
    ASSERT_TRUE(r.ok()) << r.message();
    // Nothing to learn: the best a probe can do is the majority class (60% in
    // expectation; the test split's own share is the baseline). 600 test
    // examples give a sampling s.d. of 2 points; allow 8.
    const double majority = share(in.test.labels, 0);
    EXPECT_NEAR(r->test.accuracy, majority, 0.08) << "majority " << majority;
    EXPECT_LE(r->test.accuracy, majority + 0.03);
}

TEST(Probes, RegressionOnALinearCode)
{
    std::mt19937 rng(5);
    ProbeInputs in;
    in.numClasses = 0;
    in.train = linearTargets(400, 8, rng);
    in.dev = linearTargets(100, 8, rng);
    in.test = linearTargets(300, 8, rng);
    ProbeTrainOptions o;
    o.learningRate = 5e-3;
    o.maxEpochs = 60;
    auto r = trainProbe(in, o);
    ASSERT_TRUE(r.ok()) << r.message();
    EXPECT_TRUE(r->regression);
    EXPECT_GE(r->test.r2, 0.9);
    // MSE in target units: the target variance is about 25.25, R² >= 0.9 means MSE <= ~2.5.
    EXPECT_LT(r->test.mse, 3.0);
    EXPECT_EQ(r->parameters, 8 * 8 + 8 + 8 + 1);
    ASSERT_EQ(r->testPredictions.size(), 300u);
    EXPECT_NEAR(regressionMetrics(in.test.targets, r->testPredictions).mse, r->test.mse, 1e-9);
    // Selection on dev MSE: the kept epoch has the lowest dev MSE of the curve.
    double lowest = 1e300;
    for (const auto &e : r->curve)
        lowest = std::min(lowest, e.devMetric);
    EXPECT_DOUBLE_EQ(r->bestDevMetric, lowest);

    o.architecture = ProbeArchitecture::Linear;
    auto lin = trainProbe(in, o);
    ASSERT_TRUE(lin.ok()) << lin.message();
    EXPECT_GE(lin->test.r2, 0.9);
}

TEST(Probes, SameSeedSameResult)
{
    const ProbeInputs in = separableInputs(3);
    ProbeTrainOptions o;
    o.maxEpochs = 6;
    o.patience = 0; // fixed number of epochs
    auto a = trainProbe(in, o);
    auto b = trainProbe(in, o);
    ASSERT_TRUE(a.ok() && b.ok());
    ASSERT_EQ(a->curve.size(), 6u);
    ASSERT_EQ(b->curve.size(), 6u);
    for (std::size_t i = 0; i < a->curve.size(); ++i) {
        EXPECT_EQ(a->curve[i].trainLoss, b->curve[i].trainLoss);
        EXPECT_EQ(a->curve[i].devLoss, b->curve[i].devLoss);
    }
    EXPECT_EQ(a->test.accuracy, b->test.accuracy);
    EXPECT_EQ(a->test.macroF1, b->test.macroF1);
    EXPECT_EQ(a->testPredicted, b->testPredicted);
    o.seed = 2;
    auto c = trainProbe(in, o);
    ASSERT_TRUE(c.ok());
    EXPECT_NE(a->curve[0].trainLoss, c->curve[0].trainLoss);
}

TEST(Probes, CancellationAndBadInputs)
{
    const ProbeInputs in = separableInputs();
    RunControl rc;
    rc.cancelled = [] { return true; };
    auto r = trainProbe(in, {}, {}, &rc);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.message(), "cancelled");

    ProbeInputs bad = in;
    bad.train.labels[3] = 9;
    auto b = trainProbe(bad, {});
    ASSERT_FALSE(b.ok());
    EXPECT_NE(b.message().find("label 9"), std::string::npos) << b.message();
    ProbeInputs empty;
    empty.numClasses = 2;
    EXPECT_FALSE(trainProbe(empty, {}).ok());
    ProbeTrainOptions o;
    o.batchSize = 0;
    EXPECT_FALSE(trainProbe(in, o).ok());
}

TEST(Probes, ProbeInputsPickTheExamplesSentences)
{
    // Three sentences, layers 0..1, d = 2; layer 1 mean vector of sentence s is
    // (10s, 10s+1), its [CLS] vector (-s, -s).
    ProbeFeatures f;
    f.layers = 1;
    f.dim = 2;
    f.hasCls = true;
    f.sentences = 3;
    f.keptLayers = {0, 1};
    f.mean = {Matrix(3, 2), Matrix(3, 2)};
    f.cls = {Matrix(3, 2), Matrix(3, 2)};
    for (int s = 0; s < 3; ++s) {
        f.mean[1].at(s, 0) = 10.0f * s;
        f.mean[1].at(s, 1) = 10.0f * s + 1;
        f.cls[1].at(s, 0) = f.cls[1].at(s, 1) = -static_cast<float>(s);
    }
    ProbeDataset ds;
    ds.labels = {"p", "q"};
    ds.train = {{2, 1, 0.0}, {0, 0, 0.0}};
    ds.dev = {{1, 0, 0.0}};
    ds.test = {{0, 1, 0.0}};
    auto in = probeInputs(ds, f, f, f, 1, SentencePooling::Mean);
    ASSERT_TRUE(in.ok()) << in.message();
    EXPECT_EQ(in->numClasses, 2);
    ASSERT_EQ(in->train.features.rows, 2);
    EXPECT_EQ(in->train.features.at(0, 0), 20.0f);
    EXPECT_EQ(in->train.features.at(0, 1), 21.0f);
    EXPECT_EQ(in->train.features.at(1, 1), 1.0f);
    EXPECT_EQ(in->train.labels, (std::vector<int>{1, 0}));
    EXPECT_EQ(in->train.sentences, (std::vector<int>{2, 0}));
    EXPECT_EQ(in->dev.features.at(0, 0), 10.0f);
    auto cls = probeInputs(ds, f, f, f, 1, SentencePooling::Cls);
    ASSERT_TRUE(cls.ok());
    EXPECT_EQ(cls->train.features.at(0, 0), -2.0f);
    EXPECT_FALSE(probeInputs(ds, f, f, f, 2, SentencePooling::Mean).ok());
    ds.test = {{5, 0, 0.0}};
    EXPECT_FALSE(probeInputs(ds, f, f, f, 1, SentencePooling::Mean).ok());
    f.hasCls = false;
    ds.test = {{0, 1, 0.0}};
    EXPECT_FALSE(probeInputs(ds, f, f, f, 1, SentencePooling::Cls).ok());
}

// ---------------------------------------------------------------------------
// Structural probes: evaluation pieces by hand
// ---------------------------------------------------------------------------

TEST(StructuralProbes, SpearmanWithTies)
{
    // x = 1 2 2 3 -> ranks 1 2.5 2.5 4; y = 1 3 2 4 -> ranks 1 3 2 4.
    // Deviations from 2.5: (-1.5 0 0 1.5), (-1.5 .5 -.5 1.5): covariance sum 4.5,
    // sums of squares 4.5 and 5 -> rho = 4.5 / sqrt(22.5) = 0.948683.
    EXPECT_NEAR(spearman({1, 2, 2, 3}, {1, 3, 2, 4}), 4.5 / std::sqrt(22.5), 1e-12);
    EXPECT_NEAR(spearman({1, 2, 3}, {30, 20, 10}), -1.0, 1e-12);
    EXPECT_TRUE(std::isnan(spearman({1, 1, 1}, {1, 2, 3})));
    EXPECT_TRUE(std::isnan(spearman({1}, {1})));
}

TEST(StructuralProbes, SpearmanAveragedPerLengthThenOverLengths5To50)
{
    // Length 5: 1.0 and 0.5 -> 0.75; length 6: 0.0; length 4 and 51 are outside
    // 5..50; the NaN is skipped. Mean over the lengths 5 and 6 = 0.375 (not the
    // mean of the three in-range values, 0.5).
    const auto avg = averageByLength({{5, 1.0}, {5, 0.5}, {6, 0.0}, {4, 0.9}, {51, 0.2}, {6, std::nan("")}});
    EXPECT_DOUBLE_EQ(avg.byLength.at(5), 0.75);
    EXPECT_DOUBLE_EQ(avg.byLength.at(6), 0.0);
    EXPECT_DOUBLE_EQ(avg.byLength.at(4), 0.9);
    EXPECT_DOUBLE_EQ(avg.byLength.at(51), 0.2);
    EXPECT_DOUBLE_EQ(avg.mean, 0.375);
    EXPECT_TRUE(std::isnan(averageByLength({{3, 1.0}}).mean));
}

namespace {

StructuralExample example(std::vector<int> heads, std::vector<char> punct = {})
{
    StructuralExample e;
    e.heads = std::move(heads);
    e.punct = punct.empty() ? std::vector<char>(e.heads.size(), 0) : std::move(punct);
    e.states = Matrix(static_cast<int>(e.heads.size()), 1);
    return e;
}

} // namespace

TEST(StructuralProbes, UuasFromMinimumSpanningTrees)
{
    // Words 0..3, heads (1-based) 2 0 2 3: edges 0-1, 1-2, 2-3 (a chain).
    // Predicted distances: d01 1, d02 2, d03 3, d12 2.5, d13 1.5, d23 1.2.
    // Kruskal: 0-1 (1), 2-3 (1.2), 1-3 (1.5) -> 2 of 3 gold edges.
    const std::vector<float> pred = {0, 1, 2, 3, 1, 0, 2.5f, 1.5f, 2, 2.5f, 0, 1.2f, 3, 1.5f, 1.2f, 0};
    std::vector<StructuralSentenceResult> out;
    auto m = evaluateStructural(StructuralProbeKind::Distance, {example({2, 0, 2, 3})}, {pred}, &out);
    EXPECT_EQ(m.edgesTotal, 3);
    EXPECT_EQ(m.edgesCorrect, 2);
    EXPECT_NEAR(m.uuas, 2.0 / 3.0, 1e-12);
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0].goldEdges, (std::vector<std::pair<int, int>>{{0, 1}, {1, 2}, {2, 3}}));
    EXPECT_EQ(out[0].predictedEdges, (std::vector<std::pair<int, int>>{{0, 1}, {1, 3}, {2, 3}}));
    EXPECT_EQ(out[0].gold, (std::vector<int>{0, 1, 2, 3, 1, 0, 1, 2, 2, 1, 0, 1, 3, 2, 1, 0}));
    // L1 loss: |1-1|+|2-2|+|3-3|+|2.5-1|+|1.5-2|+|1.2-1| = 2.2, twice, over 16.
    EXPECT_NEAR(out[0].loss, 4.4 / 16.0, 1e-6);
    EXPECT_NEAR(m.loss, 4.4 / 16.0, 1e-6);
    // Length 4 is outside 5..50: no DSpr, but the per-length table has it.
    EXPECT_TRUE(std::isnan(m.dspr));
    EXPECT_EQ(m.spearmanByLength.count(4), 1u);

    // Word 3 as punctuation leaves words 0..2: gold 0-1, 1-2; predicted MST over
    // d01 1, d02 2, d12 2.5 -> 0-1, 0-2: 1 of 2.
    auto p = evaluateStructural(StructuralProbeKind::Distance, {example({2, 0, 2, 3}, {0, 0, 0, 1})}, {pred}, &out);
    EXPECT_EQ(p.edgesTotal, 2);
    EXPECT_EQ(p.edgesCorrect, 1);
    EXPECT_EQ(out[0].predictedEdges, (std::vector<std::pair<int, int>>{{0, 1}, {0, 2}}));

    // Exact predictions of a 5-word sentence: UUAS 1 and every row's Spearman 1.
    auto five = example({2, 0, 2, 5, 3});
    DependencyTree t;
    t.heads = five.heads;
    const auto g = t.distanceMatrix();
    auto e = evaluateStructural(StructuralProbeKind::Distance, {five}, {std::vector<float>(g.begin(), g.end())});
    EXPECT_DOUBLE_EQ(e.uuas, 1.0);
    EXPECT_NEAR(e.dspr, 1.0, 1e-12);
}

TEST(StructuralProbes, RootAccuracyAndNsprByHand)
{
    // Heads 2 0 2 3: gold depths 1 0 1 2, root word 1.
    // Predicted depths .9 .7 2 .1: the smallest is word 3, but it is punctuation,
    // so the predicted root is word 1 (correct); without the flag it is word 3.
    const std::vector<float> pred = {0.9f, 0.7f, 2.0f, 0.1f};
    std::vector<StructuralSentenceResult> out;
    auto withPunct = evaluateStructural(StructuralProbeKind::Depth, {example({2, 0, 2, 3}, {0, 0, 0, 1})}, {pred}, &out);
    EXPECT_EQ(withPunct.rootsCorrect, 1);
    EXPECT_DOUBLE_EQ(withPunct.rootAccuracy, 1.0);
    EXPECT_EQ(out[0].goldRoot, 1);
    EXPECT_EQ(out[0].predictedRoot, 1);
    EXPECT_EQ(out[0].gold, (std::vector<int>{1, 0, 1, 2}));
    // L1: .1 + .7 + 1 + 1.9 = 3.7 over 4 words.
    EXPECT_NEAR(out[0].loss, 3.7 / 4.0, 1e-6);
    auto noPunct = evaluateStructural(StructuralProbeKind::Depth, {example({2, 0, 2, 3})}, {pred}, &out);
    EXPECT_DOUBLE_EQ(noPunct.rootAccuracy, 0.0);
    EXPECT_EQ(out[0].predictedRoot, 3);

    // NSpr: two 5-word sentences, one predicted exactly (rho 1) and one in reverse
    // order of depth (rho -1), and one exact 6-word sentence. Per length: 5 -> 0,
    // 6 -> 1; over lengths: 0.5 (the plain mean over the 3 sentences would be 1/3).
    auto s5 = example({0, 1, 2, 3, 4}); // a chain: depths 0 1 2 3 4
    auto s6 = example({0, 1, 1, 2, 2, 3}); // depths 0 1 1 2 2 2
    const std::vector<float> exact5 = {0, 1, 2, 3, 4}, reversed5 = {4, 3, 2, 1, 0};
    const std::vector<float> exact6 = {0, 1, 1, 2, 2, 2};
    auto n = evaluateStructural(StructuralProbeKind::Depth, {s5, s5, s6}, {exact5, reversed5, exact6});
    EXPECT_NEAR(n.spearmanByLength.at(5), 0.0, 1e-12);
    EXPECT_NEAR(n.spearmanByLength.at(6), 1.0, 1e-12);
    EXPECT_NEAR(n.nspr, 0.5, 1e-12);
    EXPECT_NEAR(n.rootAccuracy, 2.0 / 3.0, 1e-12); // the reversed one puts the root last
}

// ---------------------------------------------------------------------------
// Structural probes trained on synthetic trees
// ---------------------------------------------------------------------------

namespace {

/// Random trees of 6..14 words whose word vectors encode the tree: every
/// non-root word w gets a random unit vector e_w in dimensions 0..127 (nearly
/// orthogonal: |e_v·e_w| ~ 0.09), and h_i = Σ e_w over the words on the path from
/// the root to i (the root's own sum is empty). Then h_i − h_j is the sum over the
/// d(i,j) edges of the tree path, so ||h_i − h_j||² ≈ d(i,j) and ||h_i||² ≈ depth(i).
/// Dimensions 128..255 hold a per-word nuisance vector of norm ~3 that the
/// probe must learn to project away (without it UUAS and root accuracy are poor).
std::vector<StructuralExample> syntheticTrees(int count, std::mt19937 &rng)
{
    const int d = 256, half = 128;
    std::normal_distribution<float> gauss(0.0f, 1.0f);
    std::vector<StructuralExample> out;
    for (int s = 0; s < count; ++s) {
        const int n = 6 + static_cast<int>(rng() % 9u);
        std::vector<int> order(static_cast<std::size_t>(n));
        for (int i = 0; i < n; ++i)
            order[static_cast<std::size_t>(i)] = i;
        std::shuffle(order.begin(), order.end(), rng);
        StructuralExample ex;
        ex.sentence = s;
        ex.heads.assign(static_cast<std::size_t>(n), 0);
        for (int k = 1; k < n; ++k) {
            const int parent = order[rng() % static_cast<unsigned>(k)];
            ex.heads[static_cast<std::size_t>(order[static_cast<std::size_t>(k)])] = parent + 1;
        }
        ex.punct.assign(static_cast<std::size_t>(n), 0);
        std::vector<std::vector<float>> edge(static_cast<std::size_t>(n), std::vector<float>(half));
        for (auto &v : edge) {
            double norm = 0;
            for (auto &x : v) {
                x = gauss(rng);
                norm += x * x;
            }
            for (auto &x : v)
                x = static_cast<float>(x / std::sqrt(norm));
        }
        ex.states = Matrix(n, d);
        for (int i = 0; i < n; ++i) {
            for (int w = i; ex.heads[static_cast<std::size_t>(w)] != 0; w = ex.heads[static_cast<std::size_t>(w)] - 1)
                for (int c = 0; c < half; ++c)
                    ex.states.at(i, c) += edge[static_cast<std::size_t>(w)][static_cast<std::size_t>(c)];
            for (int c = half; c < d; ++c)
                ex.states.at(i, c) = 3.0f / std::sqrt(static_cast<float>(half)) * gauss(rng);
        }
        out.push_back(std::move(ex));
    }
    return out;
}

} // namespace

TEST(StructuralProbes, DistanceProbeRecoversSyntheticTrees)
{
    std::mt19937 rng(17);
    const auto train = syntheticTrees(400, rng), dev = syntheticTrees(60, rng), test = syntheticTrees(100, rng);
    StructuralProbeOptions o;
    o.maxEpochs = 25;
    std::vector<StructuralEpoch> seen;
    auto r = trainStructuralProbe(StructuralProbeKind::Distance, train, dev, test, o,
                                  [&](const StructuralEpoch &e) { seen.push_back(e); });
    ASSERT_TRUE(r.ok()) << r.message();
    EXPECT_EQ(r->rank, 256);
    EXPECT_EQ(r->parameters, 256 * 256);
    ASSERT_EQ(seen.size(), r->curve.size());
    EXPECT_GE(r->test.uuas, 0.95) << "first epoch dev UUAS " << seen.front().devMetric;
    EXPECT_GT(r->test.dspr, 0.8);
    ASSERT_EQ(r->testSentences.size(), 100u);
    const auto &first = r->testSentences.front();
    EXPECT_EQ(first.predicted.size(), static_cast<std::size_t>(first.length * first.length));
    EXPECT_EQ(first.goldEdges.size(), static_cast<std::size_t>(first.length - 1));
    EXPECT_EQ(first.predictedEdges.size(), static_cast<std::size_t>(first.length - 1));
    EXPECT_LT(r->curve.back().trainLoss, r->curve.front().trainLoss);

    // The nuisance dimensions make the task non-trivial: the (essentially)
    // untrained projection recovers far fewer edges.
    o.maxEpochs = 1;
    o.learningRate = 1e-12;
    auto untrained = trainStructuralProbe(StructuralProbeKind::Distance, train, dev, test, o);
    ASSERT_TRUE(untrained.ok()) << untrained.message();
    EXPECT_LT(untrained->test.uuas, 0.8);
}

TEST(StructuralProbes, DepthProbeFindsSyntheticRoots)
{
    std::mt19937 rng(23);
    const auto train = syntheticTrees(400, rng), dev = syntheticTrees(60, rng), test = syntheticTrees(100, rng);
    StructuralProbeOptions o;
    o.maxEpochs = 15;
    std::vector<StructuralEpoch> seen;
    auto r = trainStructuralProbe(StructuralProbeKind::Depth, train, dev, test, o,
                                  [&](const StructuralEpoch &e) { seen.push_back(e); });
    ASSERT_TRUE(r.ok()) << r.message();
    EXPECT_EQ(r->parameters, 256 * 256);
    ASSERT_EQ(seen.size(), r->curve.size());
    EXPECT_GE(r->test.rootAccuracy, 0.95);
    EXPECT_GT(r->test.nspr, 0.8);
    ASSERT_EQ(r->testSentences.size(), 100u);
    EXPECT_EQ(r->testSentences[5].predicted.size(), static_cast<std::size_t>(r->testSentences[5].length));

    o.maxEpochs = 1;
    o.learningRate = 1e-12;
    auto untrained = trainStructuralProbe(StructuralProbeKind::Depth, train, dev, test, o);
    ASSERT_TRUE(untrained.ok()) << untrained.message();
    EXPECT_LT(untrained->test.rootAccuracy, 0.8);
}

TEST(StructuralProbes, DeterministicAndCancellable)
{
    std::mt19937 rng(29);
    const auto train = syntheticTrees(60, rng), dev = syntheticTrees(20, rng);
    StructuralProbeOptions o;
    o.maxEpochs = 3;
    o.rank = 16;
    auto a = trainStructuralProbe(StructuralProbeKind::Distance, train, dev, dev, o);
    auto b = trainStructuralProbe(StructuralProbeKind::Distance, train, dev, dev, o);
    ASSERT_TRUE(a.ok() && b.ok());
    EXPECT_EQ(a->rank, 16);
    EXPECT_EQ(a->parameters, 256 * 16);
    ASSERT_EQ(a->curve.size(), b->curve.size());
    for (std::size_t i = 0; i < a->curve.size(); ++i) {
        EXPECT_EQ(a->curve[i].trainLoss, b->curve[i].trainLoss);
        EXPECT_EQ(a->curve[i].devLoss, b->curve[i].devLoss);
    }
    EXPECT_EQ(a->testSentences[0].predicted, b->testSentences[0].predicted);
    EXPECT_EQ(a->test.uuas, b->test.uuas);
    RunControl rc;
    rc.cancelled = [] { return true; };
    auto c = trainStructuralProbe(StructuralProbeKind::Depth, train, dev, dev, o, {}, &rc);
    ASSERT_FALSE(c.ok());
    EXPECT_EQ(c.message(), "cancelled");
    auto bad = train;
    bad[0].heads[0] = 99;
    EXPECT_FALSE(trainStructuralProbe(StructuralProbeKind::Depth, bad, dev, dev, o).ok());
}

// ---------------------------------------------------------------------------
// Feature extraction with the shipped Tree Transformer
// ---------------------------------------------------------------------------

namespace {

Sentence sentenceOf(const std::vector<std::string> &words)
{
    Sentence s;
    for (const auto &w : words) {
        Token t;
        t.text = w;
        s.tokens.push_back(t);
    }
    return s;
}

std::unique_ptr<Encoder> shippedEncoder()
{
    const std::string path = findShippedModel("tree-transformer-en-small.safetensors");
    if (path.empty())
        return nullptr;
    DeviceConfig dc;
    dc.device = "cpu";
    dc.threads = 1;
    auto e = loadEncoder(path, dc);
    EXPECT_TRUE(e.ok()) << e.message();
    return e.ok() ? std::move(*e) : nullptr;
}

} // namespace

TEST(ProbeFeatures, MeanAndClsMatchLayerStates)
{
    auto enc = shippedEncoder();
    if (!enc)
        GTEST_SKIP() << "SKIPPED: tree-transformer-en-small.safetensors is not installed";
    const std::vector<Sentence> sentences = {sentenceOf({"The", "cat", "sat", "on", "the", "mat", "."}),
                                             sentenceOf({"Dogs", "bark", "."}), sentenceOf({}),
                                             sentenceOf({"I", "saw", "a", "very", "old", "house", "near", "the",
                                                         "river", "yesterday", "."})};
    const int L = enc->info().layers;
    std::vector<std::size_t> progress;
    RunControl rc;
    rc.progress = [&](std::size_t done, std::size_t total, const std::string &) {
        progress.push_back(done);
        EXPECT_EQ(total, sentences.size());
    };
    FeatureOptions fo;
    fo.wordVectors = true;
    fo.batchSize = 2; // sentences 1+2 and 4 in different batches (padding differs)
    auto f = extractFeatures(*enc, sentences, fo, &rc);
    ASSERT_TRUE(f.ok()) << f.message();
    EXPECT_EQ(f->layers, L);
    EXPECT_EQ(f->dim, enc->info().dModel);
    EXPECT_TRUE(f->hasCls);
    EXPECT_EQ(f->emptySentences, (std::vector<int>{2}));
    EXPECT_EQ(f->wordOffset, (std::vector<int>{0, 7, 10, 10, 21}));
    ASSERT_FALSE(progress.empty());
    EXPECT_EQ(progress.back(), sentences.size());
    const int d = f->dim;
    for (std::size_t s : {0u, 1u, 3u}) {
        // Independently: layer states of this sentence alone, token 0 = [CLS], words 1..n.
        auto st = enc->layerStates({EncoderInput{sentences[s].words(), {}, {}, {}, {}, {}}});
        ASSERT_TRUE(st.ok()) << st.message();
        ASSERT_EQ((*st)[0].size(), static_cast<std::size_t>(L + 1));
        const int n = static_cast<int>(sentences[s].tokens.size());
        for (int l : {0, L}) {
            const Matrix &m = (*st)[0][static_cast<std::size_t>(l)];
            ASSERT_EQ(m.rows, n + 1);
            for (int c = 0; c < d; ++c) {
                double mean = 0;
                for (int w = 1; w <= n; ++w)
                    mean += m.at(w, c);
                mean /= n;
                EXPECT_NEAR(f->mean[static_cast<std::size_t>(l)].at(static_cast<int>(s), c), mean, 1e-4)
                    << "sentence " << s << " layer " << l << " dim " << c;
                EXPECT_NEAR(f->cls[static_cast<std::size_t>(l)].at(static_cast<int>(s), c), m.at(0, c), 1e-4);
                for (int w = 0; w < n; ++w)
                    EXPECT_NEAR(f->words[static_cast<std::size_t>(l)].at(f->wordOffset[s] + w, c), m.at(w + 1, c), 1e-4);
            }
        }
    }
    // The empty sentence's vectors are zeros.
    for (int c = 0; c < d; ++c)
        EXPECT_EQ(f->mean[static_cast<std::size_t>(L)].at(2, c), 0.0f);

    // Only the last layer kept: the others are empty.
    fo.layers = {L};
    fo.wordVectors = false;
    auto only = extractFeatures(*enc, sentences, fo);
    ASSERT_TRUE(only.ok()) << only.message();
    EXPECT_EQ(only->keptLayers, (std::vector<int>{L}));
    EXPECT_TRUE(only->mean[0].empty());
    EXPECT_EQ(only->mean[static_cast<std::size_t>(L)].rows, 4);
    EXPECT_TRUE(only->words[static_cast<std::size_t>(L)].empty());
    fo.layers = {L + 1};
    EXPECT_FALSE(extractFeatures(*enc, sentences, fo).ok());

    RunControl stop;
    stop.cancelled = [] { return true; };
    auto c = extractFeatures(*enc, sentences, {}, &stop);
    ASSERT_FALSE(c.ok());
    EXPECT_EQ(c.message(), "cancelled");
}

TEST(ProbeFeatures, StructuralExamplesFromEwt)
{
    TREELENS_REQUIRE_SHARED("data/ud-english-ewt/en_ewt-ud-dev.conllu");
    auto enc = shippedEncoder();
    if (!enc)
        GTEST_SKIP() << "SKIPPED: tree-transformer-en-small.safetensors is not installed";
    auto all = readCorpusFile(test::sharedPath("data/ud-english-ewt/en_ewt-ud-dev.conllu"), CorpusFormat::Conllu);
    ASSERT_TRUE(all.ok()) << all.message();
    ASSERT_GE(all->size(), 120u);
    const std::vector<Sentence> sentences(all->begin(), all->begin() + 120);
    const int L = enc->info().layers;
    FeatureOptions fo;
    fo.sentenceVectors = false;
    fo.wordVectors = true;
    fo.layers = {L};
    auto f = extractFeatures(*enc, sentences, fo);
    ASSERT_TRUE(f.ok()) << f.message();
    EXPECT_TRUE(f->cls[static_cast<std::size_t>(L)].empty());
    auto ex = structuralExamples(sentences, *f, L);
    ASSERT_TRUE(ex.ok()) << ex.message();
    long skipped = 0;
    for (const auto &[reason, n] : ex->skipped)
        skipped += n;
    EXPECT_EQ(ex->examples.size() + static_cast<std::size_t>(skipped), sentences.size());
    for (const auto &e : ex->examples) {
        const Sentence &s = sentences[static_cast<std::size_t>(e.sentence)];
        ASSERT_EQ(e.heads, s.dependency->heads);
        for (std::size_t i = 0; i < s.tokens.size(); ++i)
            EXPECT_EQ(e.punct[i] != 0, s.tokens[i].upos == "PUNCT");
    }
    EXPECT_FALSE(structuralExamples(sentences, *f, 0).ok()); // layer 0 was not kept
    // End to end on 90 / 30 sentences, a few epochs: the numbers are well formed.
    const std::vector<StructuralExample> train(ex->examples.begin(), ex->examples.begin() + 90);
    const std::vector<StructuralExample> rest(ex->examples.begin() + 90, ex->examples.end());
    StructuralProbeOptions o;
    o.maxEpochs = 3;
    auto r = trainStructuralProbe(StructuralProbeKind::Distance, train, rest, rest, o);
    ASSERT_TRUE(r.ok()) << r.message();
    EXPECT_GT(r->test.edgesTotal, 0);
    EXPECT_GE(r->test.uuas, 0.0);
    EXPECT_LE(r->test.uuas, 1.0);
    EXPECT_EQ(r->testSentences.size(), rest.size());
}
