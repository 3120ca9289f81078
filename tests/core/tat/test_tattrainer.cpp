// Training the Tree Aggregation Transformer (tattrainer.h): the masked-LM stage
// and the TAT stage on a small ranking corpus, the model variants of the
// experiments (semantic stream only, the sequential model), dropout only while
// training, and the vocabulary lookup.
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "core/encoders/encoder.h"
#include "core/encoders/common/vocabulary.h"
#include "core/encoders/tat/tatnet.h"
#include "core/eval/pairtable.h"
#include "core/encoders/tat/tat.h"
#include "core/eval/paireval.h"
#include "core/formats/pairs.h"
#include "core/formats/ptb.h"
#include "core/parsing/pairparsing.h"
#include "core/parsing/parser.h"
#include "core/model/modelfile.h"
#include "core/training/training.h"

using namespace treelens;
using nlohmann::json;

namespace {

namespace fs = std::filesystem;

/// A ranking TSV: four questions, three candidates each, one correct (it repeats the question's words).
std::string writeCorpus(const fs::path &dir)
{
    fs::create_directories(dir);
    const fs::path p = dir / "pairs.tsv";
    std::ofstream o(p);
    o << "qid\tquestion\tcandidate\tlabel\n";
    const char *rows[][3] = {
        {"q1", "who wrote the novel ?", "The novel was written by a young teacher in Paris ."},
        {"q1", "who wrote the novel ?", "Paris is a large city ."},
        {"q1", "who wrote the novel ?", "The teacher liked long walks ."},
        {"q2", "where is the river ?", "The river is in the north of the country ."},
        {"q2", "where is the river ?", "Many people visit the country in summer ."},
        {"q2", "where is the river ?", "The north has cold winters ."},
        {"q3", "when did the war end ?", "The war ended in the spring of that year ."},
        {"q3", "when did the war end ?", "That year was very dry ."},
        {"q3", "when did the war end ?", "Spring brings rain to the valley ."},
        {"q4", "what is the capital ?", "The capital is a small town near the coast ."},
        {"q4", "what is the capital ?", "The coast has many beaches ."},
        {"q4", "what is the capital ?", "A town council met on Monday ."},
    };
    int k = 0;
    for (const auto &r : rows)
        o << r[0] << '\t' << r[1] << '\t' << r[2] << '\t' << (k++ % 3 == 0 ? 1 : 0) << '\n';
    return p.string();
}

TrainRecipe recipeOf(const json &j, const std::string &family)
{
    auto r = readTrainRecipe(j.dump(), "", family);
    EXPECT_TRUE(r) << r.message();
    return *r;
}

json lmRecipe(const fs::path &dir, const std::string &corpus)
{
    return {{"family", "tat-lm"},
            {"name", "tiny-lm"},
            {"output", (dir / "lm.safetensors").string()},
            {"data", {{"pairs", {corpus}}, {"dev", {corpus}}}},
            {"model",
             {{"lm", {{"d_model", 16}, {"n_layers", 1}, {"n_heads", 2}, {"d_ff", 32}, {"max_positions", 64}}},
              {"tat", {{"d_sem", 8}, {"d_syn", 8}, {"d_syn_emb", 4}, {"n_heads", 2}, {"d_ff_sem", 16}, {"d_ff_syn", 16},
                       {"max_span_positions", 32}, {"max_levels", 32}}}}},
            {"options", {{"vocab", {{"min_count", 1}}}}},
            {"training",
             {{"steps", 60}, {"batch_size", 6}, {"eval_every", 60}, {"log_every", 1}, {"checkpoint_every", 0}, {"threads", 1},
              {"device", "cpu"}, {"keep", "last"}, {"storage", "f32"},
              {"optimizer", {{"kind", "adam"}, {"lr", 0.01}}}, {"schedule", {{"kind", "constant"}}}}}};
}

TatConfig tinyConfig()
{
    TatConfig c;
    c.lmVocab = 30;
    c.lmDModel = 16;
    c.lmHeads = 2;
    c.lmDFF = 32;
    c.dSem = c.dSyn = 8;
    c.dSynEmb = 4;
    c.heads = 2;
    c.dFFSem = c.dFFSyn = 16;
    return c;
}

/// Two pairs with hand-written trees for the variants' forward passes.
std::vector<tat::PairInput> twoPairs(const TatConfig &c)
{
    auto tags = TatTags::fromLabels(pennTreebankTags(), "tags");
    auto tree = [&](const char *ptb) {
        auto t = readPtb(ptb, "test");
        EXPECT_TRUE(t && t->size() == 1);
        auto r = tatTree(t->front(), *tags, c);
        EXPECT_TRUE(r) << r.message();
        return *r;
    };
    return {tat::makePair({5, 6, 7}, tree("(S (NP (DT the) (NN cat)) (VP (VBD sat)))"), {8, 9}, tree("(S (NP (PRP it)) (VP (VBD ran)))"), c),
            tat::makePair({10, 11}, tree("(SQ (VBZ is) (NP (PRP it)))"), {12, 13, 14, 15},
                          tree("(S (NP (NNS dogs)) (VP (VBP bark) (ADVP (RB very) (RB loudly))))"), c)};
}

} // namespace

TEST(TatTrainer, PretrainsTheLanguageModelThenTrainsTheAggregationOnParsedPairs)
{
    const fs::path dir = fs::temp_directory_path() / "treelens-tattrainer";
    fs::remove_all(dir);
    const std::string corpus = writeCorpus(dir);

    // Stage 1: the masked-LM loss falls on this small text, and the output is a TAT model file without the decoder.
    std::vector<double> losses;
    ASSERT_TRUE(trainModel(recipeOf(lmRecipe(dir, corpus), "tat-lm"), "", [&](const TrainProgress &p) {
                    if (p.step > 0 && std::isfinite(p.loss))
                        losses.push_back(p.loss);
                }).ok());
    ASSERT_GE(losses.size(), 20u);
    double first = 0, last = 0;
    for (int i = 0; i < 10; ++i) {
        first += losses[static_cast<std::size_t>(i)];
        last += losses[losses.size() - 1 - static_cast<std::size_t>(i)];
    }
    EXPECT_LT(last, 0.7 * first) << "the masked-LM loss did not fall";
    auto lm = loadModelFile((dir / "lm.safetensors").string());
    ASSERT_TRUE(lm) << lm.message();
    const json lc = json::parse(lm->configJson);
    EXPECT_EQ(lc["family"], "tree-aggregation-transformer");
    EXPECT_EQ(lc["training"]["stage"], "lm");
    EXPECT_EQ(lm->vocab[4], "<mask>");
    EXPECT_NE(std::find(lm->vocab.begin(), lm->vocab.end(), "novel"), lm->vocab.end());
    for (const auto &[name, t] : lm->tensors)
        EXPECT_NE(name.rfind("mlm.", 0), 0u) << name << ": the decoder must not reach the model file";

    // Stage 2, each head and the semantic-only ablation: the LM's weights are the start, the output scores pairs.
    for (const auto &[head, streams] : std::vector<std::pair<std::string, std::string>>{
             {"tree", "both"}, {"residual", "both"}, {"tree", "semantic"}, {"sequential", "both"}}) {
        SCOPED_TRACE(head + "/" + streams);
        const fs::path out = dir / ("tat-" + head + "-" + streams + ".safetensors");
        json r = {{"family", "tree-aggregation-transformer"},
                  {"name", "tiny-tat"},
                  {"output", out.string()},
                  {"data", {{"train", {corpus}}, {"dev", {corpus}}, {"lm", (dir / "lm.safetensors").string()}}},
                  {"model", {{"head", head}, {"tat", {{"streams", streams}}}}},
                  {"training",
                   {{"epochs", 3}, {"batch_size", 4}, {"threads", 1}, {"device", "cpu"}, {"storage", "f32"},
                    {"optimizer", {{"kind", "adam"}, {"lr", 0.003}}}}}};
        std::vector<TrainProgress> events;
        ASSERT_TRUE(trainModel(recipeOf(r, "tree-aggregation-transformer"), "", [&](const TrainProgress &p) { events.push_back(p); }).ok());
        auto file = loadModelFile(out.string());
        ASSERT_TRUE(file) << file.message();
        const json c = json::parse(file->configJson);
        EXPECT_EQ(c["model"]["head"], head);
        EXPECT_EQ(c["model"]["tat"]["streams"], streams);
        EXPECT_EQ(c["training"]["data"]["train_pairs"], 12);
        // The trained LM is where training started: the position table moved only a little from stage 1's.
        const auto before = lm->tensors.at("lm.pos_emb.weight").toFloat(), after = file->tensors.at("lm.pos_emb.weight").toFloat();
        double diff = 0, norm = 0;
        for (std::size_t i = 0; i < before.size(); ++i) {
            diff += (after[i] - before[i]) * (after[i] - before[i]);
            norm += before[i] * before[i];
        }
        EXPECT_LT(diff, norm) << "stage 2 did not start from the pre-trained language model";
        EXPECT_EQ(file->tensors.count("tat.attn_syn.q.weight") > 0, head != "sequential" && streams == "both");
        EXPECT_EQ(file->tensors.count("tat.sem_proj.weight") > 0, head != "sequential");
        EXPECT_EQ(file->tensors.count("cls_seq.weight") > 0, head == "sequential");

        // The output scores the pairs, parsed as the trainer parses them, as the trainer did on dev: the best
        // epoch's dev MAP (f32 storage) comes back from the encoder path.
        auto enc = loadEncoder(out.string(), DeviceConfig{});
        ASSERT_TRUE(enc) << enc.message();
        auto pc = readPairCorpus(corpus);
        ASSERT_TRUE(pc);
        EXPECT_FALSE(scorePairCorpus(**enc, *pc, nullptr, 16)) << "pairs without trees must be refused, not scored";
        auto parser = createParser(ParserConfig{});
        ASSERT_TRUE(parser);
        ASSERT_TRUE(parsePairCorpus(*pc, **parser));
        auto scored = scorePairCorpus(**enc, *pc, nullptr, 5);
        ASSERT_TRUE(scored) << scored.message();
        auto eval = evaluateRanking(*pc, scored->scores);
        ASSERT_TRUE(eval);
        EXPECT_NEAR(eval->map, c["training"]["dev"]["map"].get<double>(), 1e-9);
    }

    // An LM file of another family is refused, naming the stage that makes one.
    const std::string other = findShippedModel("tree-transformer-en-small.safetensors");
    ASSERT_FALSE(other.empty());
    json bad = {{"family", "tree-aggregation-transformer"},
                {"output", (dir / "bad.safetensors").string()},
                {"data", {{"train", {corpus}}, {"lm", other}}},
                {"training", {{"epochs", 1}, {"batch_size", 4}, {"threads", 1}, {"device", "cpu"}}}};
    const Status st = trainModel(recipeOf(bad, "tree-aggregation-transformer"), "", nullptr);
    ASSERT_FALSE(st.ok());
    EXPECT_NE(st.message().find("tat-lm"), std::string::npos) << st.message();
    fs::remove_all(dir);
}

TEST(TatNet, TheSemanticOnlyAndSequentialVariantsHaveTheirOwnTensorsAndOutputs)
{
    for (const auto &[head, streams] : std::vector<std::pair<std::string, std::string>>{
             {"tree", "both"}, {"tree", "semantic"}, {"residual", "semantic"}, {"sequential", "both"}}) {
        SCOPED_TRACE(head + "/" + streams);
        TatConfig c = tinyConfig();
        c.head = head;
        c.streams = streams;
        auto back = TatConfig::fromJson(c.toJson());
        ASSERT_TRUE(back) << back.message();
        EXPECT_EQ(back->head, head);
        EXPECT_EQ(back->streams, streams);
        const auto shapes = tat::Net::parameterShapes(c);
        EXPECT_EQ(shapes.count("tat.tag_emb.weight") > 0, head != "sequential" && streams == "both");
        EXPECT_EQ(shapes.count("tat.ffn_sem.w1.weight") > 0, head != "sequential");
        auto net = tat::Net::fromTensors(c, tat::Net::randomTensors(c, 3), torch::Device(torch::kCPU), "variant");
        ASSERT_TRUE(net) << net.message();
        torch::NoGradGuard ng;
        const auto pairs = twoPairs(c);
        auto out = net->forward(pairs, true);
        ASSERT_EQ(out.prediction.sizes(), (std::vector<std::int64_t>{2, 2}));
        if (head == "sequential") {
            EXPECT_FALSE(out.pairVec.defined());
            EXPECT_TRUE(out.sides.empty());
            continue;
        }
        const std::int64_t root = streams == "both" ? c.dSem + c.dSyn : c.dSem;
        EXPECT_EQ(out.pairVec.size(1), 2 * root);
        EXPECT_TRUE(torch::equal(out.prediction, head == "residual" ? out.logitsRes : out.logits));
        // The semantic stream does not depend on the syntactic one: equal in both variants with the same weights.
        if (streams == "semantic") {
            TatConfig full = c;
            full.streams = "both";
            auto w = tat::Net::randomTensors(full, 3);
            auto sem = tat::Net::randomTensors(c, 3);
            for (auto &[name, t] : sem)
                if (name.rfind("cls", 0) != 0)
                    t = w.at(name);
            auto a = tat::Net::fromTensors(c, sem, torch::Device(torch::kCPU), "semantic");
            auto b = tat::Net::fromTensors(full, w, torch::Device(torch::kCPU), "both");
            ASSERT_TRUE(a && b);
            auto oa = a->forward(pairs, true), ob = b->forward(pairs, true);
            EXPECT_TRUE(torch::allclose(oa.sides[1][1].nodeSem, ob.sides[1][1].nodeSem, 1e-6, 1e-6));
            EXPECT_TRUE(torch::allclose(oa.pairVec.slice(1, 0, c.dSem), ob.pairVec.slice(1, 0, c.dSem), 1e-6, 1e-6));
        }
    }
}

TEST(TatNet, DropoutActsOnlyWhileTraining)
{
    TatConfig c = tinyConfig();
    c.dropout = 0.5;
    auto net = tat::Net::fromTensors(c, tat::Net::randomTensors(c, 5), torch::Device(torch::kCPU), "dropout");
    ASSERT_TRUE(net);
    torch::NoGradGuard ng;
    const auto pairs = twoPairs(c);
    auto a = net->forward(pairs, false).prediction, b = net->forward(pairs, false).prediction;
    EXPECT_TRUE(torch::equal(a, b));
    net->setTraining(true);
    auto d = net->forward(pairs, false).prediction;
    net->setTraining(false);
    EXPECT_FALSE(torch::allclose(a, d));
    EXPECT_TRUE(torch::equal(a, net->forward(pairs, false).prediction));
}

TEST(TatVocabulary, ExactThenLowerCaseThenNormalisedThenUnknown)
{
    // The TAT's LM lookup is the one vocabulary's AnyForm rule.
    const Vocabulary v = Vocabulary::lenient({"<pad>", "<s>", "</s>", "<unk>", "<mask>", "Paris", "paris", "the", "N-N"});
    auto id = [&](const std::string &w, std::int64_t unk) { return v.ids({w}, Vocabulary::Match::AnyForm, unk).front(); };
    EXPECT_EQ(id("Paris", 3), 5);
    EXPECT_EQ(id("PARIS", 3), 6);
    EXPECT_EQ(id("The", 3), 7);
    EXPECT_EQ(id("12-345", 3), 8);
    EXPECT_EQ(id("London", 3), 3);
    EXPECT_EQ(v.ids({"the", "London"}, Vocabulary::Match::AnyForm, 3), (std::vector<std::int64_t>{7, 3}));
}

TEST(TatEncoder, BadPairsAreRefusedNamingThePairAndNothingIsScoredHalfWay)
{
    TatConfig c = tinyConfig();
    c.lmMaxPositions = 16;
    c.maxLevels = 4;
    c.tags = static_cast<int>(treelensTatTags().size());
    std::vector<std::string> vocab = {"<pad>", "<s>", "</s>", "<unk>", "<mask>", "the", "cat", "sat"};
    c.lmVocab = static_cast<int>(vocab.size());
    ModelFile f;
    f.configJson = json{{"family", "tree-aggregation-transformer"}, {"task", "pair-ranking"}, {"name", "tiny"},
                        {"model", json::parse(c.toJson())}, {"tags", treelensTatTags()}, {"classes", {"irrelevant", "relevant"}}}
                       .dump();
    f.vocab = vocab;
    f.tensors = tat::Net::randomTensors(c, 1);
    const fs::path path = fs::temp_directory_path() / "treelens-tat-badinput.safetensors";
    ASSERT_TRUE(saveModelFile(path.string(), f));
    auto enc = loadEncoder(path.string(), DeviceConfig{});
    ASSERT_TRUE(enc) << enc.message();
    auto sentence = [](const std::string &ptb) {
        auto s = readPtbSentences(ptb, "test");
        EXPECT_TRUE(s && s->size() == 1) << ptb;
        return s->front();
    };
    const Sentence good = sentence("(S (NP (DT the) (NN cat)) (VP (VBD sat)))");
    auto refused = [&](EncoderInput bad, const std::string &what) {
        auto r = (*enc)->analyze({pairEncoderInput(good, good), bad}, AnalyzeOptions{}, nullptr);
        ASSERT_FALSE(r) << what << ": scored";
        EXPECT_NE(r.message().find("pair 2"), std::string::npos) << r.message();
        EXPECT_NE(r.message().find(what), std::string::npos) << r.message();
    };
    // A tree that does not cover its sentence's words.
    EncoderInput uncovered = pairEncoderInput(good, good);
    uncovered.secondWords.push_back("again");
    refused(uncovered, "does not cover");
    // An empty side.
    EncoderInput empty = pairEncoderInput(good, good);
    empty.words.clear();
    refused(empty, "first sentence is empty");
    // A tree deeper than the level table (4 levels).
    const Sentence deep = sentence("(S (VP (VBD sat) (PP (IN in) (NP (NP (DT the) (NN box)) (PP (IN on) (NP (DT the) (NN cat)))))))");
    refused(pairEncoderInput(good, deep), "deep");
    // A pair longer than the LM's position table (16 positions: 12 words).
    const Sentence longer = sentence("(S (NP (DT the) (NN cat) (NN cat) (NN cat) (NN cat) (NN cat) (NN cat) (NN cat) (NN cat)) (VP (VBD sat)))");
    refused(pairEncoderInput(good, longer), "at most 12");
    // A tag outside the inventory.
    refused(pairEncoderInput(good, sentence("(S (NP (ZZ the) (NN cat)) (VP (VBD sat)))")), "'ZZ'");
    // No trees at all.
    EncoderInput bare = pairEncoderInput(good, good);
    bare.secondConstituency.reset();
    refused(bare, "constituency trees");
    // The good pair alone is scored.
    EXPECT_TRUE((*enc)->analyze({pairEncoderInput(good, good)}, AnalyzeOptions{}, nullptr));
    fs::remove(path);
}
