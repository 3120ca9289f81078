// The biaffine dependency parser: it learns (overfits a tiny treebank to 100%),
// its model file round-trips, and decoding always yields well-formed trees.
#include <filesystem>
#include <fstream>

#include "core/formats/corpus.h"
#include "core/parsing/neural/depparser.h"
#include "core/parsing/parser.h"
#include "core/training/training.h"
#include "testutil.h"

using namespace treelens;

namespace {

std::vector<Sentence> threeSentences()
{
    auto r = readCorpusFile(test::testData("ui/three.conllu"), CorpusFormat::Conllu);
    EXPECT_TRUE(r.ok());
    return r.ok() ? *r : std::vector<Sentence>{};
}

TrainRecipe tinyRecipe(const std::string &dir)
{
    TrainRecipe r = *trainerDefaults("dependency-parser");
    r.name = "tiny";
    r.data.train = r.data.dev = {test::testData("ui/three.conllu")};
    r.output = dir + "/tiny.safetensors";
    r.checkpoint = dir + "/tiny.ckpt.safetensors";
    DepParserConfig model;
    model.wordDim = 16;
    model.charDim = 8;
    model.charFilters = 16;
    model.lstmLayers = 1;
    model.lstmHidden = 32;
    model.arcDim = 32;
    model.relDim = 16;
    model.dropout = 0.0;
    model.wordDropout = 0.0;
    r.modelJson = model.toJson();
    r.epochs = 80;
    r.batchWords = 100;
    r.optimizer.lr = 1e-2;
    r.patience = 80;
    r.optionsJson = R"({"word_min_count": 1})";
    r.threads = 1;
    r.storage = "f32";
    return r;
}

} // namespace

TEST(DependencyParser, OverfitsATinyTreebankAndRoundTripsItsModelFile)
{
    const std::string dir = ::testing::TempDir() + "/depparser-test";
    std::filesystem::create_directories(dir);
    const TrainRecipe recipe = tinyRecipe(dir);
    double lastDevLas = -1;
    ASSERT_TRUE(trainModel(recipe, "", [&](const TrainProgress &p) {
                    if (p.hasDev())
                        lastDevLas = p.bestDevMetric;
                }).ok());
    EXPECT_DOUBLE_EQ(lastDevLas, 100.0);

    auto model = DependencyParserModel::load(recipe.output, 1);
    ASSERT_TRUE(model.ok()) << model.message();
    const auto gold = threeSentences();
    for (const bool projective : {false, true}) {
        auto pred = gold;
        for (auto &s : pred) {
            s.dependency.reset();
            for (auto &t : s.tokens)
                t.upos.clear();
        }
        ASSERT_TRUE((*model)->parse(pred, projective).ok());
        for (std::size_t i = 0; i < gold.size(); ++i) {
            ASSERT_TRUE(pred[i].dependency);
            EXPECT_EQ(pred[i].dependency->heads, gold[i].dependency->heads) << "sentence " << i;
            EXPECT_EQ(pred[i].dependency->deprels, gold[i].dependency->deprels) << "sentence " << i;
            for (std::size_t t = 0; t < gold[i].tokens.size(); ++t)
                EXPECT_EQ(pred[i].tokens[t].upos, gold[i].tokens[t].upos);
        }
    }
}

TEST(DependencyParser, AlwaysProducesWellFormedTrees)
{
    // An untrained model (1 epoch, random-ish scores) on sentences it never saw:
    // decoding must still give a single-rooted tree, projective when asked.
    const std::string dir = ::testing::TempDir() + "/depparser-test-wf";
    std::filesystem::create_directories(dir);
    TrainRecipe recipe = tinyRecipe(dir);
    recipe.epochs = 1;
    ASSERT_TRUE(trainModel(recipe, "", nullptr).ok());
    auto model = DependencyParserModel::load(recipe.output, 1);
    ASSERT_TRUE(model.ok());
    std::vector<Sentence> inputs;
    for (int n : {1, 2, 7, 31, 120}) {
        Sentence s;
        s.id = "n" + std::to_string(n);
        for (int i = 0; i < n; ++i) {
            Token t;
            t.text = i % 3 ? "word" + std::to_string(i) : "the";
            s.tokens.push_back(t);
        }
        inputs.push_back(s);
    }
    for (const bool projective : {false, true}) {
        auto pred = inputs;
        ASSERT_TRUE((*model)->parse(pred, projective).ok());
        for (const auto &s : pred) {
            ASSERT_TRUE(s.dependency);
            EXPECT_TRUE(s.dependency->validate().ok()) << s.id << ": " << s.dependency->validate().message();
            if (projective) {
                EXPECT_TRUE(s.dependency->isProjective()) << s.id;
            }
        }
    }
}

TEST(DependencyParser, ParallelWorkersGiveTheSameTreesAsOne)
{
    // Batches are spread over worker threads (longest first); each batch is
    // computed the same way whatever thread runs it, so the output must not
    // depend on the number of workers. 300 sentences of 1-40 words make ~10 batches.
    const std::string dir = ::testing::TempDir() + "/depparser-test-par";
    std::filesystem::create_directories(dir);
    TrainRecipe recipe = tinyRecipe(dir);
    recipe.epochs = 2;
    ASSERT_TRUE(trainModel(recipe, "", nullptr).ok());
    std::vector<Sentence> inputs;
    for (int k = 0; k < 300; ++k) {
        Sentence s;
        s.id = "s" + std::to_string(k);
        for (int i = 0; i < 1 + (k * 7) % 40; ++i) {
            Token t;
            t.text = (i + k) % 4 ? "w" + std::to_string((i * 13 + k) % 50) : "the";
            s.tokens.push_back(t);
        }
        inputs.push_back(s);
    }
    std::vector<std::vector<Sentence>> outs;
    for (const int workers : {1, 2, 3}) {
        auto model = DependencyParserModel::load(recipe.output, workers);
        ASSERT_TRUE(model.ok());
        auto pred = inputs;
        int reports = 0;
        RunControl control;
        control.progress = [&](std::size_t, std::size_t, const std::string &) { ++reports; };
        ASSERT_TRUE((*model)->parse(pred, false, &control).ok());
        EXPECT_GT(reports, 1);
        outs.push_back(pred);
    }
    for (std::size_t i = 0; i < inputs.size(); ++i)
        for (std::size_t w = 1; w < outs.size(); ++w) {
            ASSERT_TRUE(outs[w][i].dependency);
            EXPECT_EQ(outs[w][i].dependency->heads, outs[0][i].dependency->heads) << "sentence " << i << ", workers " << w + 1;
            EXPECT_EQ(outs[w][i].dependency->deprels, outs[0][i].dependency->deprels) << "sentence " << i;
        }
    // Cancellation stops the parallel run with an error.
    auto model = DependencyParserModel::load(recipe.output, 2);
    ASSERT_TRUE(model.ok());
    RunControl cancel;
    cancel.cancelled = [] { return true; };
    auto pred = inputs;
    EXPECT_FALSE((*model)->parse(pred, false, &cancel).ok());
}

TEST(DependencyParser, RefusesBadRecipesAndModelFiles)
{
    EXPECT_FALSE(readTrainRecipe(R"({"train": "a.conllu"})", "", "dependency-parser").ok()); // no dev / output
    EXPECT_FALSE(readTrainRecipe(R"({"train":"a","dev":"b","output":"c","model":{"lstm_layers":0}})", "", "dependency-parser").ok());
    auto m = DependencyParserModel::load(test::testData("ui/three.conllu"));
    EXPECT_FALSE(m.ok());
}

// ------------------------------------------------------------ constituency parser

#include "core/eval/bracketeval.h"
#include "core/formats/ptb.h"
#include "core/parsing/neural/constparser.h"

namespace {
const char *kTinyPtb = "( (S (NP-SBJ (DT The) (NN cat)) (VP (VBD sat) (PP (IN on) (NP (DT the) (NN mat)))) (. .)) )\n"
                       "( (S (NP-SBJ (NNS Dogs)) (VP (VBP bark)) (. .)) )\n"
                       "( (S (NP-SBJ (PRP She)) (VP (VBD gave) (NP (PRP him)) (NP (DT a) (NN book))) (. .)) )\n"
                       "( (SINV (VP (VB Go)) (. !)) )\n";
}

TEST(ConstituencyParser, OverfitsATinyTreebankIncludingUnaryChains)
{
    const std::string dir = ::testing::TempDir() + "/constparser-test";
    std::filesystem::create_directories(dir);
    {
        std::ofstream(dir + "/tiny.mrg") << kTinyPtb;
    }
    TrainRecipe r = *trainerDefaults("constituency-parser");
    r.data.train = r.data.dev = {dir + "/tiny.mrg"};
    r.output = dir + "/tiny.safetensors";
    ConstParserConfig config;
    config.wordDim = 16;
    config.charDim = 8;
    config.charFilters = 16;
    config.tagDim = 8;
    config.lstmLayers = 1;
    config.lstmHidden = 32;
    config.labelHidden = 32;
    config.dropout = config.wordDropout = config.tagDropout = 0.0;
    r.modelJson = config.toJson();
    r.epochs = 120;
    r.batchWords = 200;
    r.optimizer.lr = 1e-2;
    r.patience = 120;
    r.optionsJson = R"({"word_min_count": 1})";
    r.threads = 1;
    r.storage = "f32";
    double best = -1;
    ASSERT_TRUE(trainModel(r, "", [&](const TrainProgress &p) { best = p.bestDevMetric; }).ok());
    EXPECT_DOUBLE_EQ(best, 100.0);

    auto model = ConstituencyParserModel::load(r.output, 1);
    ASSERT_TRUE(model.ok()) << model.message();
    CorpusReadOptions o;
    o.stripTraces = o.stripFunctionTags = true;
    auto gold = readCorpus(kTinyPtb, "tiny", CorpusFormat::Ptb, o);
    ASSERT_TRUE(gold.ok());
    auto pred = *gold;
    for (auto &s : pred)
        s.constituency.reset();
    ASSERT_TRUE((*model)->parse(pred).ok());
    for (std::size_t i = 0; i < gold->size(); ++i) {
        ASSERT_TRUE(pred[i].constituency);
        const auto c = compareTrees(*(*gold)[i].constituency, *pred[i].constituency, true);
        EXPECT_EQ(c.matched, c.gold) << "sentence " << i;
        EXPECT_EQ(c.predicted, c.gold) << "sentence " << i;
        EXPECT_EQ(pred[i].constituency->words(), (*gold)[i].constituency->words());
    }
    // The unary chain SINV -> VP over "Go" comes back as nested nodes.
    EXPECT_NE(writePtbTree(*pred[3].constituency).find("(VP (VB Go))"), std::string::npos)
        << writePtbTree(*pred[3].constituency);
}

TEST(ConstituencyParser, RefusesTheTestSectionAsTrainingData)
{
    auto r = readTrainRecipe(
        R"({"train": {"dir": "/x", "first": 170, "last": 185}, "dev": ["/x/wsj_0160.mrg"], "output": "o"})", "",
        "constituency-parser");
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.message().find("wsj_0180"), std::string::npos) << r.message();
}
