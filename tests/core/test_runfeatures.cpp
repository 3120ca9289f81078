// Stage 3 of a probing run (core/probing/runfeatures.h): the encoder's layer
// states per split, on the fake encoder of fakeencoder.h, whose states are known
// in closed form, and the structural probes' examples per split.
#include <gtest/gtest.h>

#include "core/probing/runfeatures.h"
#include "fakeencoder.h"
#include "probingtestdata.h"

using namespace treelens;

namespace {

const ProbeRunCallbacks kNoCallbacks;


} // namespace

TEST(RunFeatures, SentenceVectorsOfOneCorpus)
{
    const ProbeRunContext ctx(kNoCallbacks, nullptr);
    test::FakeEncoder encoder(3, 2, 4);
    const ProbeData data = test::tinyOneCorpus();
    FeatureOptions fo;
    fo.layers = {0, 2};
    auto f = extractProbeFeatures(ctx, encoder, data, fo, "sentence vectors");
    ASSERT_TRUE(f.ok()) << f.message();
    EXPECT_EQ(f->train.sentences, 30u);
    EXPECT_EQ(f->dev.sentences, 0u);
    EXPECT_EQ(f->test.sentences, 0u);
    EXPECT_TRUE(f->train.hasLayer(0) && f->train.hasLayer(2));
    EXPECT_FALSE(f->train.hasLayer(1));
    // Word token t of an n-word sentence at layer l: state (l+1)·(n, t, ...); the
    // words are tokens 1..n, so the mean of dimension 1 is (l+1)(n+1)/2; [CLS] is token 0.
    for (int s = 0; s < 30; ++s) {
        const int n = test::tinyLength(s);
        EXPECT_FLOAT_EQ(f->train.mean[2].at(s, 0), 3.0f * n);
        EXPECT_FLOAT_EQ(f->train.mean[2].at(s, 1), 3.0f * (n + 1) / 2.0f);
        EXPECT_FLOAT_EQ(f->train.cls[0].at(s, 1), 0.0f);
    }
}

TEST(RunFeatures, GivenSplitsAndTheirErrors)
{
    const ProbeRunContext ctx(kNoCallbacks, nullptr);
    test::FakeEncoder encoder;
    const auto corpus = test::tinyCorpus();
    ProbeData data;
    data.train.assign(corpus.begin(), corpus.begin() + 20);
    data.dev.assign(corpus.begin() + 20, corpus.begin() + 22);
    data.test.assign(corpus.begin() + 22, corpus.end());
    auto f = extractProbeFeatures(ctx, encoder, data, FeatureOptions{}, "sentence vectors");
    ASSERT_TRUE(f.ok()) << f.message();
    EXPECT_EQ(f->train.sentences, 20u);
    EXPECT_EQ(f->dev.sentences, 2u);
    EXPECT_EQ(f->test.sentences, 8u);

    RunControl stop;
    stop.cancelled = [] { return true; };
    const ProbeRunContext cancelled(kNoCallbacks, &stop);
    f = extractProbeFeatures(cancelled, encoder, data, FeatureOptions{}, "sentence vectors");
    ASSERT_FALSE(f.ok());
    EXPECT_EQ(f.message(), "train: cancelled"); // the split is named
}

TEST(RunFeatures, StructuralExamplesGoToTheirSplit)
{
    const ProbeRunContext ctx(kNoCallbacks, nullptr);
    test::FakeEncoder encoder;
    ProbeData data = test::tinyOneCorpus();
    data.corpus[5].dependency.reset(); // skipped, and counted
    FeatureOptions fo;
    fo.sentenceVectors = false;
    fo.wordVectors = true;
    fo.layers = {1};
    auto f = extractProbeFeatures(ctx, encoder, data, fo, "word states");
    ASSERT_TRUE(f.ok()) << f.message();
    auto ex = structuralSplits(data, *f, 1);
    ASSERT_TRUE(ex.ok()) << ex.message();
    EXPECT_EQ(ex->train.size() + ex->dev.size() + ex->test.size(), 29u);
    EXPECT_EQ(ex->skipped, (std::map<std::string, long>{{"corpus/no-dependency-tree", 1}}));
    for (const auto &e : ex->test) {
        EXPECT_TRUE(std::find(data.split.test.begin(), data.split.test.end(), e.sentence) != data.split.test.end());
        EXPECT_EQ(e.states.rows, static_cast<int>(data.corpus[static_cast<std::size_t>(e.sentence)].tokens.size()));
    }
    EXPECT_FALSE(structuralSplits(data, *f, 0).ok()); // layer 0 was not kept
}

TEST(RunFeatures, WordStatesAtOnceUpTo768MiB)
{
    const ProbeData data = test::tinyOneCorpus(); // 5 · (3 + 4 + ... + 8) = 165 words
    // 165 words · 1 layer · d floats of 4 bytes against 768 MiB.
    EXPECT_TRUE(wordStatesFitAtOnce(data, 1, 1220161));
    EXPECT_FALSE(wordStatesFitAtOnce(data, 1, 1220162));
    EXPECT_TRUE(wordStatesFitAtOnce(data, 5, 256));
}
