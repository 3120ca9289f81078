// A probing run's features written apart and read back (core/probing/runfeaturefile.h,
// issue 35): the layout line round-trips and says why it cannot serve a run; the
// blocks of an extraction are cut by hand-counted rules; features written in pieces and
// read back equal those extractProbeFeatures() gives directly (the fake encoder's
// states, exactly); a file that does not fit the corpus is refused where it goes wrong.
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/probing/runfeaturefile.h"
#include "core/probing/runfeatures.h"
#include "fakeencoder.h"
#include "probingtestdata.h"

using namespace treelens;

namespace {

const ProbeRunCallbacks kNoCallbacks;

/// The fake encoder's states times −2: another encoder of the same shape (the random-init one).
class ScaledEncoder : public test::FakeEncoder {
public:
    using FakeEncoder::FakeEncoder;
    Result<std::vector<std::vector<Matrix>>> layerStates(const std::vector<EncoderInput> &batch,
                                                         const RunControl *control) override
    {
        auto r = FakeEncoder::layerStates(batch, control);
        if (r)
            for (auto &sentence : *r)
                for (auto &m : sentence)
                    for (float &v : m.data)
                        v *= -2.0f;
        return r;
    }
};

ProbeFeatureLayout sampleLayout()
{
    ProbeFeatureLayout l;
    l.model = {"m.safetensors", 1234, "0a0b0c0d"};
    l.family = "fake";
    l.input = {"tiny.conllu", 999, "11223344"};
    l.splits = {{"corpus", 30}};
    l.layers = {0, 2};
    l.dim = 4;
    l.cls = l.mean = l.words = true;
    l.randomInit = true;
    l.randomInitSeed = 7;
    l.encoderBatch = 32;
    l.precision = "fp32";
    return l;
}

/// The features of `data` as a file: `pieces` ranges of whole blocks written one after the other.
std::string featuresFile(const ProbeData &data, const ProbeFeatureLayout &layout, Encoder &model, Encoder *random,
                         std::size_t block, int pieces)
{
    const ProbeRunContext ctx(kNoCallbacks, nullptr);
    const auto starts = probeFeatureBlockStarts(data, block);
    std::string text = layout.line();
    for (int i = 1; i <= pieces; ++i) {
        const ShardRange range = shardRangeByGroups(starts, data.size(), ShardSpec{i, pieces});
        auto n = writeProbeFeatureRecords(ctx, model, random, data, layout, starts, range, [&](std::string_view b) {
            text.append(b);
            return Status{};
        });
        EXPECT_TRUE(n.ok()) << n.message();
        EXPECT_EQ(n.ok() ? *n : 0, range.size());
    }
    return text;
}

void expectSameFeatures(const ProbeFeatures &a, const ProbeFeatures &b, const std::vector<int> &layers)
{
    EXPECT_EQ(a.sentences, b.sentences);
    EXPECT_EQ(a.hasCls, b.hasCls);
    EXPECT_EQ(a.keptLayers, b.keptLayers);
    EXPECT_EQ(a.wordOffset, b.wordOffset);
    EXPECT_EQ(a.emptySentences, b.emptySentences);
    for (int l : layers) {
        const auto L = static_cast<std::size_t>(l);
        EXPECT_EQ(a.mean[L].data, b.mean[L].data) << "layer " << l;
        EXPECT_EQ(a.cls[L].data, b.cls[L].data) << "layer " << l;
        EXPECT_EQ(a.words[L].data, b.words[L].data) << "layer " << l;
    }
}

} // namespace

TEST(RunFeatureFile, LayoutLineRoundTrips)
{
    const ProbeFeatureLayout l = sampleLayout();
    const std::string line = l.line();
    ASSERT_EQ(line.rfind(kProbeFeaturesLine, 0), 0u);
    ASSERT_EQ(line.back(), '\n');
    auto back = parseProbeFeatureLayout(line.substr(0, line.size() - 1));
    ASSERT_TRUE(back.ok()) << back.message();
    EXPECT_EQ(back->line(), line);
    EXPECT_EQ(back->sentences(), 30u);
    // Two encoders × two layers × (cls + mean + 5 word states) × 4 values × 4 bytes.
    EXPECT_EQ(back->recordBytes(5), 2u * 2u * 7u * 4u * 4u);
    EXPECT_EQ(back->recordBytes(0), 2u * 2u * 2u * 4u * 4u);

    EXPECT_FALSE(parseProbeFeatureLayout("#treelens-shard {}").ok());
    EXPECT_FALSE(parseProbeFeatureLayout(std::string(kProbeFeaturesLine) + "{\"dim\":4}").ok());
    std::string reversed = line.substr(0, line.size() - 1);
    reversed.replace(reversed.find("[0,2]"), 5, "[2,0]");
    EXPECT_NE(parseProbeFeatureLayout(reversed).message().find("not increasing"), std::string::npos);
}

TEST(RunFeatureFile, MismatchSaysWhy)
{
    const ProbeFeatureLayout have = sampleLayout();
    ProbeFeatureLayout want = have;
    want.layers = {2};
    want.cls = want.words = false;
    want.randomInit = false;
    EXPECT_EQ(probeFeatureMismatch(have, want), ""); // a file may hold more than a run needs
    auto differs = [&](auto change, const std::string &needle) {
        ProbeFeatureLayout w = have;
        change(w);
        const std::string why = probeFeatureMismatch(have, w);
        EXPECT_NE(why.find(needle), std::string::npos) << "'" << why << "' lacks '" << needle << "'";
    };
    differs([](ProbeFeatureLayout &w) { w.model.crc32 = "ffffffff"; }, "another model's");
    differs([](ProbeFeatureLayout &w) { w.input.size = 1; }, "another corpus");
    differs([](ProbeFeatureLayout &w) { w.splits = {{"train", 20}, {"dev", 2}, {"test", 8}}; }, "cut otherwise");
    differs([](ProbeFeatureLayout &w) { w.layers = {1}; }, "not layer 1");
    want = have;
    want.layers = {0};
    EXPECT_EQ(probeFeatureMismatch(have, want), ""); // a layer it holds
    differs([](ProbeFeatureLayout &w) { w.randomInitSeed = 8; }, "seed 7, this run's 8");
    ProbeFeatureLayout bare = have;
    bare.cls = bare.words = bare.randomInit = false;
    EXPECT_NE(probeFeatureMismatch(bare, have).find("no [CLS] vectors"), std::string::npos);
    want = have;
    want.cls = false;
    EXPECT_NE(probeFeatureMismatch(bare, want).find("no word states"), std::string::npos);
    want.words = false;
    EXPECT_NE(probeFeatureMismatch(bare, want).find("no random-init"), std::string::npos);
}

TEST(RunFeatureFile, BlocksCountSentencesWithWords)
{
    // Two splits: train of 7 sentences, the third without words; test of 3.
    ProbeData data;
    auto sentence = [](int words) {
        Sentence s;
        for (int i = 0; i < words; ++i)
            s.tokens.push_back(Token{});
        return s;
    };
    for (int w : {2, 3, 0, 4, 1, 2, 5})
        data.train.push_back(sentence(w));
    for (int w : {3, 3, 3})
        data.test.push_back(sentence(w));
    // Blocks of 2 sentences with words: [0 1 2(empty)] [3 4] [5 6] | [7 8] [9].
    EXPECT_EQ(probeFeatureBlockStarts(data, 2), (std::vector<std::size_t>{0, 3, 5, 7, 9}));
    EXPECT_EQ(probeFeatureBlockStarts(data, 100), (std::vector<std::size_t>{0, 7}));
    data.train.insert(data.train.begin(), sentence(0)); // an empty first sentence opens the block
    EXPECT_EQ(probeFeatureBlockStarts(data, 2), (std::vector<std::size_t>{0, 4, 6, 8, 10}));
}

TEST(RunFeatureFile, PiecesReadBackAsTheDirectExtraction)
{
    const ProbeRunContext ctx(kNoCallbacks, nullptr);
    test::FakeEncoder model(3, 2, 4);
    ScaledEncoder random(3, 2, 4);
    ProbeData data = test::tinyOneCorpus();
    data.corpus[4].tokens.clear(); // a sentence without words: zeros, no word states
    ProbeFeatureLayout layout = sampleLayout();
    layout.layers = {0, 2, 3};
    layout.splits = {{"corpus", data.corpus.size()}};
    // Blocks of 4 sentences with words, written in 3 pieces, then whole: the same bytes.
    const std::string pieces = featuresFile(data, layout, model, &random, 4, 3);
    EXPECT_EQ(pieces, featuresFile(data, layout, model, &random, 4, 1));
    const std::string path = test::writeTemp("features.bin", pieces);
    auto file = ProbeFeatureFile::open(path);
    ASSERT_TRUE(file.ok()) << file.message();
    EXPECT_EQ(file->layout().line(), layout.line());

    for (bool words : {false, true}) {
        FeatureOptions fo;
        fo.sentenceVectors = !words;
        fo.wordVectors = words;
        fo.layers = {2, 3};
        auto direct = extractProbeFeatures(ctx, model, data, fo, "direct");
        auto read = file->load(ctx, data, false, fo, "read");
        ASSERT_TRUE(direct.ok() && read.ok()) << direct.message() << read.message();
        expectSameFeatures(read->train, direct->train, fo.layers);
        auto rDirect = extractProbeFeatures(ctx, random, data, fo, "direct");
        auto rRead = file->load(ctx, data, true, fo, "read");
        ASSERT_TRUE(rDirect.ok() && rRead.ok()) << rDirect.message() << rRead.message();
        expectSameFeatures(rRead->train, rDirect->train, fo.layers);
        const auto &of = [&](const ProbeFeatures &f) { return (words ? f.words[2] : f.mean[2]).data; };
        EXPECT_FALSE(of(rRead->train).empty());
        EXPECT_NE(of(rRead->train), of(read->train)); // the random-init encoder's own
    }
    // A layer the file does not hold.
    FeatureOptions fo;
    fo.layers = {1};
    EXPECT_NE(file->load(ctx, data, false, fo, "read").message().find("does not hold layer 1"), std::string::npos);
}

TEST(RunFeatureFile, GivenSplitsAndRefusals)
{
    const ProbeRunContext ctx(kNoCallbacks, nullptr);
    test::FakeEncoder model(2, 2, 4);
    const auto corpus = test::tinyCorpus();
    ProbeData data;
    data.train.assign(corpus.begin(), corpus.begin() + 20);
    data.dev.assign(corpus.begin() + 20, corpus.begin() + 22);
    data.test.assign(corpus.begin() + 22, corpus.end());
    ProbeFeatureLayout layout = sampleLayout();
    layout.randomInit = false;
    layout.splits = {{"train", 20}, {"dev", 2}, {"test", 8}};
    const std::string text = featuresFile(data, layout, model, nullptr, 3, 2);
    const std::string path = test::writeTemp("splits.bin", text);
    auto file = ProbeFeatureFile::open(path);
    ASSERT_TRUE(file.ok()) << file.message();
    FeatureOptions fo;
    fo.wordVectors = true;
    fo.layers = {0, 2};
    auto direct = extractProbeFeatures(ctx, model, data, fo, "direct");
    auto read = file->load(ctx, data, false, fo, "read");
    ASSERT_TRUE(direct.ok() && read.ok()) << direct.message() << read.message();
    expectSameFeatures(read->train, direct->train, fo.layers);
    expectSameFeatures(read->dev, direct->dev, fo.layers);
    expectSameFeatures(read->test, direct->test, fo.layers);
    EXPECT_NE(file->load(ctx, data, true, fo, "read").message().find("no random-init"), std::string::npos);

    // Cut short; one sentence more in the corpus; a sentence of other length; a shard's output.
    const std::string cut = test::writeTemp("cut.bin", text.substr(0, text.size() / 2));
    EXPECT_NE(ProbeFeatureFile::open(cut)->load(ctx, data, false, fo, "read").message().find("sentence "), std::string::npos);
    ProbeData more = data;
    more.test.push_back(corpus.front());
    EXPECT_NE(file->load(ctx, more, false, fo, "read").message().find("holds 30 sentences, this run has 31"),
              std::string::npos);
    ProbeData other = data;
    other.dev[1].tokens.pop_back();
    EXPECT_NE(file->load(ctx, other, false, fo, "read").message().find("sentence 22: "), std::string::npos);
    const std::string shard = test::writeTemp("shard.bin", "#treelens-shard {}\n" + text);
    EXPECT_NE(ProbeFeatureFile::open(shard).message().find("join the shards first"), std::string::npos);
    const std::string longer = test::writeTemp("longer.bin", text + "30 0\n\n");
    EXPECT_NE(ProbeFeatureFile::open(longer)->load(ctx, data, false, fo, "read").message().find("holds more than"),
              std::string::npos);
}
