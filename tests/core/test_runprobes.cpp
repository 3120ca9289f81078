// Stage 4 of a probing run (core/probing/runprobes.h): the sentence and
// structural probes, on the fake encoder of fakeencoder.h and the tiny corpus.
// The shape of the results (tasks × layers × poolings × variants, curve points)
// is counted from the configuration; the datasets' numbers from the corpus's
// definition (probingtestdata.h).
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <tuple>

#include "core/probing/runprobes.h"
#include "fakeencoder.h"
#include "probingtestdata.h"

using namespace treelens;

namespace {

struct Recorder {
    std::map<std::tuple<std::string, std::string, int, std::string>, int> points; ///< (task, variant, layer, pooling) -> epochs
    std::vector<std::string> finished;
    ProbeRunCallbacks callbacks()
    {
        ProbeRunCallbacks cb;
        cb.curve = [this](const ProbeCurvePoint &p) { ++points[{p.task, p.variant, p.layer, p.pooling}]; };
        cb.taskFinished = [this](const std::string &t) { finished.push_back(t); };
        return cb;
    }
};



ProbeRunConfig twoEpochs()
{
    ProbeRunConfig c;
    c.epochs = 2;
    c.patience = 0;
    c.depthMinCount = 1;
    return c;
}

/// Dependency depth in words: a chain of n words is n deep, a flat sentence 2.
int tinyDepth(int i) { return test::tinyChain(i) ? test::tinyLength(i) : 2; }

} // namespace

TEST(RunProbes, SentenceProbesPerLayerPoolingAndVariant)
{
    Recorder rec;
    const ProbeRunCallbacks cb = rec.callbacks();
    const ProbeRunContext ctx(cb, nullptr);
    test::FakeEncoder model, random(2, 3, 6, true);
    const ProbeData data = test::tinyOneCorpus();
    const ProbeTrainingPlan plan{{0, 2}, {"cls", "mean"}, &model, &random, true, true};
    ProbeRunTiming timing;
    auto tasks = runSentenceProbes(ctx, data, test::tinyTrees(), twoEpochs(), {"sentlen", "treedepth"}, plan, timing);
    ASSERT_TRUE(tasks.ok()) << tasks.message();
    ASSERT_EQ(tasks->size(), 2u);
    EXPECT_EQ(rec.finished, (std::vector<std::string>{"sentlen", "treedepth"}));
    // 2 tasks × (model, control, random init) × 2 layers × 2 poolings, 2 epochs each.
    EXPECT_EQ(rec.points.size(), 2u * 3u * 2u * 2u);
    for (const auto &[key, epochs] : rec.points)
        EXPECT_EQ(epochs, 2) << std::get<0>(key) << " " << std::get<1>(key);
    EXPECT_EQ(timing.train.size(), 2u);

    for (const SentenceProbeTask &t : *tasks) {
        ASSERT_EQ(t.layers.size(), 2u) << t.name;
        EXPECT_EQ(t.layers[0].layer, 0);
        EXPECT_EQ(t.layers[1].layer, 2);
        EXPECT_TRUE(t.control);
        EXPECT_TRUE(t.randomInit);
        ASSERT_EQ(t.randomInitLayers.size(), 2u);
        for (const auto &layer : t.layers) {
            ASSERT_EQ(layer.pooling.size(), 2u);
            for (const auto &[pooling, cell] : layer.pooling) {
                ASSERT_TRUE(cell.control.has_value());
                EXPECT_EQ(cell.result.curve.size(), 2u);
                const double expected = t.regression ? cell.result.test.r2 - cell.control->test.r2
                                                     : 100.0 * (cell.result.test.accuracy - cell.control->test.accuracy);
                EXPECT_DOUBLE_EQ(cell.selectivity, expected) << t.name << " " << pooling;
            }
        }
        EXPECT_FALSE(t.randomInitLayers[0].pooling.at("mean").control.has_value());
    }

    // SentLen: the train mean of the lengths.
    const SentenceProbeTask &sentlen = (*tasks)[0];
    EXPECT_TRUE(sentlen.regression);
    double mean = 0;
    for (int i : data.split.train)
        mean += test::tinyLength(i);
    mean /= static_cast<double>(data.split.train.size());
    EXPECT_NEAR(sentlen.baseline.meanPrediction, mean, 1e-9);
    EXPECT_EQ(sentlen.examples, (std::array<long, 3>{24, 3, 3}));
    EXPECT_TRUE(sentlen.tree.empty());

    // TreeDepth on the dependency trees: the depths seen in train are the classes.
    const SentenceProbeTask &depth = (*tasks)[1];
    std::set<int> depths;
    for (int i : data.split.train)
        depths.insert(tinyDepth(i));
    std::vector<std::string> labels;
    for (int d : depths)
        labels.push_back(std::to_string(d));
    EXPECT_EQ(depth.labels, labels);
    EXPECT_EQ(depth.tree, "dependency: gold (30 sentences)");
    long trainCount = 0;
    for (long n : depth.labelCounts[0])
        trainCount += n;
    EXPECT_EQ(trainCount, 24);
}

TEST(RunProbes, StructuralProbesAndTheirViewers)
{
    Recorder rec;
    const ProbeRunCallbacks cb = rec.callbacks();
    const ProbeRunContext ctx(cb, nullptr);
    test::FakeEncoder model, random;
    const ProbeData data = test::tinyOneCorpus();
    const ProbeTrainingPlan plan{{1}, {"mean"}, &model, &random, false, true};
    std::map<std::string, ProbeRunStructural> viewers;
    ProbeRunTiming timing;
    auto tasks = runStructuralProbes(ctx, data, test::tinyTrees(), twoEpochs(),
                                     {"structural-distance", "structural-depth"}, plan, viewers, timing);
    ASSERT_TRUE(tasks.ok()) << tasks.message();
    ASSERT_EQ(tasks->size(), 2u);
    EXPECT_EQ(rec.finished, (std::vector<std::string>{"structural-distance", "structural-depth"}));
    EXPECT_EQ(rec.points.size(), 2u * 2u); // 2 tasks × (model, random init) × 1 layer
    EXPECT_EQ(rec.points.count({"structural-depth", "random-init", 1, ""}), 1u);

    // Test edges: a tree over the non-punctuation words (all but the last) has n − 2 edges.
    long edges = 0;
    for (int i : data.split.test)
        edges += test::tinyLength(i) - 2;
    for (const StructuralProbeTask &t : *tasks) {
        EXPECT_EQ(t.examples, (std::array<long, 3>{24, 3, 3}));
        EXPECT_EQ(t.dependencyTrees, "gold (30 sentences)");
        EXPECT_EQ(t.split, "seeded 0.8/0.1/0.1 seed=1");
        ASSERT_EQ(t.layers.size(), 1u);
        ASSERT_EQ(t.randomInitLayers.size(), 1u);
        EXPECT_EQ(t.layers[0].layer, 1);
        EXPECT_TRUE(t.layers[0].result.testSentences.empty()); // moved to the viewer
        if (t.kind == StructuralProbeKind::Distance) {
            EXPECT_EQ(t.layers[0].result.test.edgesTotal, edges);
        }
        const ProbeRunStructural &v = viewers.at(t.name);
        EXPECT_EQ(v.kind, t.kind);
        EXPECT_EQ(v.bestLayer, -1); // decided by the report stage
        ASSERT_EQ(v.sentences.size(), 3u);
        for (std::size_t k = 0; k < 3; ++k)
            EXPECT_EQ(v.sentences[k].id, data.corpus[static_cast<std::size_t>(data.split.test[k])].id);
        ASSERT_EQ(v.byLayer.count(1), 1u);
        EXPECT_EQ(v.byLayer.at(1).size(), 3u);
        EXPECT_EQ(v.byLayer.at(1)[2].sentence, 2);
    }
    EXPECT_EQ(timing.train.count("structural-depth"), 1u);
}

TEST(RunProbes, NoTasksNoWork)
{
    const ProbeRunCallbacks cb;
    const ProbeRunContext ctx(cb, nullptr);
    test::FakeEncoder model;
    const ProbeData data = test::tinyOneCorpus();
    const ProbeTrainingPlan plan{{0}, {"mean"}, &model, nullptr, false};
    ProbeRunTiming timing;
    std::map<std::string, ProbeRunStructural> viewers;
    auto s = runSentenceProbes(ctx, data, test::tinyTrees(), twoEpochs(), {}, plan, timing);
    ASSERT_TRUE(s.ok());
    EXPECT_TRUE(s->empty());
    auto st = runStructuralProbes(ctx, data, test::tinyTrees(), twoEpochs(), {}, plan, viewers, timing);
    ASSERT_TRUE(st.ok());
    EXPECT_TRUE(st->empty());
    EXPECT_EQ(model.stateCalls(), 0);
    EXPECT_TRUE(timing.train.empty());
}
