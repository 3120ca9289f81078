// Stage 1 of a probing run (core/probing/rundata.h): the sentences. Counts are
// worked out from the tiny corpus's definition (tests/core/probingtestdata.h).
#include <gtest/gtest.h>

#include "core/probing/rundata.h"
#include "probingtestdata.h"

using namespace treelens;

TEST(RunData, TrainAloneIsCutBySeededSplit)
{
    ProbeRunConfig config;
    config.train = {test::tinyPath()};
    auto data = readProbeData(config, 0);
    ASSERT_TRUE(data.ok()) << data.message();
    EXPECT_TRUE(data->oneCorpus);
    ASSERT_EQ(data->corpus.size(), static_cast<std::size_t>(test::kTinySentences));
    EXPECT_TRUE(data->train.empty() && data->dev.empty() && data->test.empty());
    // 30 · 0.8 = 24 train, 30 · 0.1 = 3 dev, the remaining 3 test.
    EXPECT_EQ(data->split.train.size(), 24u);
    EXPECT_EQ(data->split.dev.size(), 3u);
    EXPECT_EQ(data->split.test.size(), 3u);
    EXPECT_EQ(data->splitText, "seeded 0.8/0.1/0.1 seed=1");
    const SplitIndices expected = seededSplit(30, 0.8, 0.1, 1);
    EXPECT_EQ(data->split.test, expected.test);
    const auto test = data->testSentences();
    ASSERT_EQ(test.size(), 3u);
    EXPECT_EQ(test[0], &data->corpus[static_cast<std::size_t>(expected.test[0])]);
    EXPECT_EQ(data->size(), 30u);

    config.splitSeed = 7;
    auto other = readProbeData(config, 0);
    ASSERT_TRUE(other.ok());
    EXPECT_EQ(other->splitText, "seeded 0.8/0.1/0.1 seed=7");
    EXPECT_EQ(other->split.test, seededSplit(30, 0.8, 0.1, 7).test);
}

TEST(RunData, GivenSplitsAndInMemorySentences)
{
    const auto corpus = test::tinyCorpus();
    ProbeRunConfig config;
    config.trainSentences.assign(corpus.begin(), corpus.begin() + 20);
    config.devSentences.assign(corpus.begin() + 20, corpus.begin() + 25);
    config.test = {test::tinyPath()}; // files win over sentences of the same split
    config.testSentences.assign(corpus.begin(), corpus.begin() + 1);
    auto data = readProbeData(config, 0);
    ASSERT_TRUE(data.ok()) << data.message();
    EXPECT_FALSE(data->oneCorpus);
    EXPECT_EQ(data->train.size(), 20u);
    EXPECT_EQ(data->dev.size(), 5u);
    EXPECT_EQ(data->test.size(), 30u);
    EXPECT_EQ(data->splitText, "given");
    EXPECT_EQ(data->train[3].id, corpus[3].id);
    EXPECT_EQ(data->testSentences().size(), 30u);
    EXPECT_EQ(data->size(), 55u);
}

TEST(RunData, SentencesLongerThanTheModelAreLeftOutAndCounted)
{
    // Lengths 3..8; a limit of 6 words drops the sentences of 7 and 8 words: 2 of every 6.
    ProbeRunConfig config;
    config.train = {test::tinyPath()};
    auto data = readProbeData(config, 6);
    ASSERT_TRUE(data.ok()) << data.message();
    EXPECT_EQ(data->corpus.size(), 20u);
    ASSERT_EQ(data->excluded.size(), 1u);
    EXPECT_EQ(data->excluded.at("corpus/longer-than-model (6 words)"), 10);
    for (const auto &s : data->corpus)
        EXPECT_LE(s.tokens.size(), 6u);
    // The split is of what is left.
    EXPECT_EQ(data->split.train.size(), 16u);

    config.test = {test::tinyPath()};
    data = readProbeData(config, 6);
    ASSERT_TRUE(data.ok());
    EXPECT_EQ(data->excluded.at("train/longer-than-model (6 words)"), 10);
    EXPECT_EQ(data->excluded.at("test/longer-than-model (6 words)"), 10);
    EXPECT_EQ(data->excluded.count("dev/longer-than-model (6 words)"), 0u);
}

TEST(RunData, ReadErrorsNameTheFile)
{
    ProbeRunConfig config;
    config.train = {"/nonexistent/probe.conllu"};
    auto data = readProbeData(config, 0);
    ASSERT_FALSE(data.ok());
    EXPECT_NE(data.message().find("/nonexistent/probe.conllu"), std::string::npos) << data.message();

    const std::string empty = test::writeTemp("rundata-empty.conllu", "");
    config.train = {empty};
    data = readProbeData(config, 0);
    ASSERT_FALSE(data.ok());
    EXPECT_EQ(data.message(), empty + ":1: no sentences in the input");

    config.train = {test::tinyPath()};
    config.from = "nonsense";
    data = readProbeData(config, 0);
    EXPECT_FALSE(data.ok());
}
