// The pretrained-transformer family: Hugging Face BERT / RoBERTa folders against the
// reference fixture (written by transformers itself), the same folder with
// pytorch_model.bin or sharded safetensors, bad folders (one line naming the file and
// the tensor or field), and the word-level analysis against the fixture's piece-level
// attention pooled by hand (Clark et al. 2019).
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "core/encoders/encoder.h"
#include "core/encoders/family.h"
#include "core/encoders/pretrained/hfconfig.h"
#include "core/encoders/pretrained/wordpieces.h"
#include "core/data/specialtokens.h"
#include "core/formats/analysisjson.h"
#include "core/model/safetensors.h"
#include "testutil.h"
#include "torchsave.h"

using namespace treelens;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

const char *kBert = "fixtures/hf-transformers-reference/bert-tiny-random";
const char *kRoberta = "fixtures/hf-transformers-reference/roberta-tiny-random";

std::string slurp(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

const EncoderFamily &family()
{
    const EncoderFamily *f = findEncoderFamily("pretrained-transformer");
    EXPECT_NE(f, nullptr);
    return *f;
}

/// A copy of a reference folder in a fresh temporary folder (without expected.json unless asked).
std::string copyFolder(const std::string &from, const std::string &name, bool withExpected = false)
{
    const fs::path to = fs::path(::testing::TempDir()) / ("pretrained-" + name);
    fs::remove_all(to);
    fs::create_directories(to);
    for (const auto &e : fs::directory_iterator(from))
        if (withExpected || e.path().filename() != "expected.json") {
            fs::copy_file(e.path(), to / e.path().filename());
            fs::permissions(to / e.path().filename(), fs::perms::owner_read | fs::perms::owner_write);
        }
    return to.string();
}

/// The largest difference of every float check, all checks passed.
void expectFixturePasses(const std::string &dir)
{
    std::string computed;
    auto report = family().verifyFolderFixture(dir, &computed);
    ASSERT_TRUE(report.has_value()) << dir << " is not taken as a fixture folder";
    ASSERT_TRUE(*report) << report->message();
    ASSERT_FALSE((*report)->checks.empty());
    for (const auto &c : (*report)->checks)
        EXPECT_TRUE(c.ok) << c.name << ": " << c.problem << " max|diff| " << c.maxAbsDiff;
    EXPECT_LE((*report)->tolerance, 1e-5);
}

/// The bert reference folder's first sentence, "The old man saw a red kite.": as the
/// library computed it (`sentence`, from expected.json) and as the encoder analyses its words.
void analyseFirstBertSentence(json &sentence, Analysis &analysis, EncoderInfo &info)
{
    const std::string dir = test::sharedPath(kBert);
    sentence = json::parse(slurp(dir + "/expected.json"))["sentences"][0];
    auto enc = loadEncoder(dir);
    ASSERT_TRUE(enc) << enc.message();
    info = (*enc)->info();
    EncoderInput in;
    in.words = {"The", "old", "man", "saw", "a", "red", "kite", "."};
    auto r = (*enc)->analyze({in});
    ASSERT_TRUE(r) << r.message();
    analysis = std::move(r->front());
}

} // namespace

TEST(PretrainedTransformer, BertReferenceFolderMatchesTheLibrary)
{
    TREELENS_REQUIRE_SHARED(kBert);
    expectFixturePasses(test::sharedPath(kBert));
}

TEST(PretrainedTransformer, RobertaReferenceFolderMatchesTheLibrary)
{
    TREELENS_REQUIRE_SHARED(kRoberta);
    expectFixturePasses(test::sharedPath(kRoberta));
}

TEST(PretrainedTransformer, PytorchModelBinGivesTheSameNumbers)
{
    TREELENS_REQUIRE_SHARED(kBert);
    const std::string dir = copyFolder(test::sharedPath(kBert), "bin", true);
    auto file = readSafetensors(dir + "/model.safetensors");
    ASSERT_TRUE(file) << file.message();
    // torch.save's layout (as save_pretrained(safe_serialization=False) writes it): an
    // OrderedDict of tensors in archive/data.pkl, each tensor's storage in archive/data/K.
    test::Pickle p;
    p.global("collections", "OrderedDict").op(')').op('R').mark();
    std::vector<std::pair<std::string, std::string>> entries;
    int key = 0;
    for (const auto &[name, t] : file->tensors) {
        const std::vector<float> values = t.toFloat();
        std::vector<std::int64_t> stride(t.shape.size(), 1);
        for (int d = static_cast<int>(t.shape.size()) - 2; d >= 0; --d)
            stride[static_cast<std::size_t>(d)] = stride[static_cast<std::size_t>(d) + 1] * t.shape[static_cast<std::size_t>(d) + 1];
        p.str(name).tensor("FloatStorage", std::to_string(key), static_cast<std::int64_t>(values.size()), 0, t.shape, stride);
        entries.emplace_back("archive/data/" + std::to_string(key++),
                             std::string(reinterpret_cast<const char *>(values.data()), values.size() * sizeof(float)));
    }
    p.op('u').stop();
    entries.emplace_back("archive/data.pkl", p.b);
    entries.emplace_back("archive/version", "3\n");
    test::makeZip(dir + "/pytorch_model.bin", entries);
    fs::remove(dir + "/model.safetensors");
    expectFixturePasses(dir);
}

TEST(PretrainedTransformer, ShardedSafetensorsGiveTheSameNumbers)
{
    TREELENS_REQUIRE_SHARED(kBert);
    const std::string dir = copyFolder(test::sharedPath(kBert), "sharded", true);
    auto file = readSafetensors(dir + "/model.safetensors");
    ASSERT_TRUE(file) << file.message();
    TensorMap shard[2];
    json map = json::object();
    int i = 0;
    for (const auto &[name, t] : file->tensors) {
        const int k = i++ % 2;
        shard[k][name] = t;
        map[name] = "model-0000" + std::to_string(k + 1) + "-of-00002.safetensors";
    }
    for (int k = 0; k < 2; ++k)
        ASSERT_TRUE(writeSafetensors(dir + "/model-0000" + std::to_string(k + 1) + "-of-00002.safetensors", shard[k], {}));
    std::ofstream(dir + "/model.safetensors.index.json") << json{{"metadata", json::object()}, {"weight_map", map}}.dump();
    fs::remove(dir + "/model.safetensors");
    expectFixturePasses(dir);
    // A shard the index names that cannot be read: one line naming that file, nothing loaded.
    fs::remove(dir + "/model-00002-of-00002.safetensors");
    auto enc = loadEncoder(dir);
    ASSERT_FALSE(enc);
    EXPECT_NE(enc.message().find("model-00002-of-00002.safetensors"), std::string::npos) << enc.message();
    EXPECT_EQ(enc.message().find('\n'), std::string::npos) << enc.message();
}

TEST(PretrainedTransformer, BadFoldersAreRefusedWithOneLineNamingWhat)
{
    TREELENS_REQUIRE_SHARED(kBert);
    const std::string src = test::sharedPath(kBert);
    auto configWith = [&](const std::string &name, const std::function<void(json &)> &edit) {
        const std::string dir = copyFolder(src, name);
        json c = json::parse(slurp(dir + "/config.json"));
        edit(c);
        std::ofstream(dir + "/config.json") << c.dump(2);
        return dir;
    };
    auto message = [](const std::string &dir) {
        auto enc = loadEncoder(dir);
        EXPECT_FALSE(enc) << dir << " opened";
        return enc ? std::string() : enc.message();
    };
    // An architecture the table does not have (T5 is an encoder-decoder): refused, naming it.
    std::string m = message(configWith("t5", [](json &c) { c["model_type"] = "t5"; }));
    EXPECT_NE(m.find("model_type \"t5\""), std::string::npos) << m;
    EXPECT_EQ(m.find('\n'), std::string::npos) << m;
    m = message(configWith("act", [](json &c) { c["hidden_act"] = "quick_gelu"; }));
    EXPECT_NE(m.find("quick_gelu"), std::string::npos) << m;
    m = message(configWith("vocab", [](json &c) { c["vocab_size"] = 3000; }));
    EXPECT_NE(m.find("embeddings.word_embeddings.weight"), std::string::npos) << m;
    EXPECT_NE(m.find("3000"), std::string::npos) << m;
    m = message(configWith("layers", [](json &c) { c["num_hidden_layers"] = 4; }));
    EXPECT_NE(m.find("encoder.layer.3."), std::string::npos) << m;
    EXPECT_NE(m.find("model.safetensors"), std::string::npos) << m;
    // A tensor missing from the weights: named, with the file.
    const std::string dir = copyFolder(src, "missing");
    auto file = readSafetensors(dir + "/model.safetensors");
    ASSERT_TRUE(file);
    file->tensors.erase("encoder.layer.1.output.dense.weight");
    ASSERT_TRUE(writeSafetensors(dir + "/model.safetensors", file->tensors, {}));
    m = message(dir);
    EXPECT_NE(m.find("encoder.layer.1.output.dense.weight"), std::string::npos) << m;
    // No weights at all.
    fs::remove(dir + "/model.safetensors");
    m = message(dir);
    EXPECT_NE(m.find("no weights"), std::string::npos) << m;
}

TEST(PretrainedTransformer, WordAttentionIsThePiecesPooledAsClarkEtAlDefineIt)
{
    TREELENS_REQUIRE_SHARED(kBert);
    json s;
    Analysis a;
    EncoderInfo info;
    ASSERT_NO_FATAL_FAILURE(analyseFirstBertSentence(s, a, info));
    EXPECT_EQ(info.family, "pretrained-transformer");
    EXPECT_EQ(info.layers, 3);
    EXPECT_EQ(info.heads, 4);
    // [CLS], the eight words, [SEP]; "red" is re ##d and "kite" k ##i ##t ##e in this vocabulary.
    ASSERT_EQ(a.tokens, (std::vector<std::string>{"[CLS]", "The", "old", "man", "saw", "a", "red", "kite", ".", "[SEP]"}));
    ASSERT_EQ(a.wordToken, (std::vector<int>{1, 2, 3, 4, 5, 6, 7, 8}));
    // The pieces of each unit, by the fixture's tokens: [CLS] the old man saw a re ##d k ##i ##t ##e . [SEP]
    const std::vector<std::vector<int>> unitPieces = {{0}, {1}, {2}, {3}, {4}, {5}, {6, 7}, {8, 9, 10, 11}, {12}, {13}};
    ASSERT_EQ(s["tokens"].size(), 14u);
    double worst = 0;
    for (int l = 0; l < 3; ++l)
        for (int h = 0; h < 4; ++h) {
            const json &A = s["attentions"][l][h];
            const Matrix &m = a.attention[static_cast<std::size_t>(l)][static_cast<std::size_t>(h)];
            ASSERT_EQ(m.rows, 10);
            for (int i = 0; i < 10; ++i) {
                double rowSum = 0;
                for (int j = 0; j < 10; ++j) {
                    double v = 0; // mean over i's pieces of the sum over j's pieces
                    for (int p : unitPieces[static_cast<std::size_t>(i)])
                        for (int q : unitPieces[static_cast<std::size_t>(j)])
                            v += A[p][q].get<double>();
                    v /= static_cast<double>(unitPieces[static_cast<std::size_t>(i)].size());
                    worst = std::max(worst, std::fabs(v - m.at(i, j)));
                    rowSum += m.at(i, j);
                }
                EXPECT_NEAR(rowSum, 1.0, 1e-5);
            }
        }
    EXPECT_LT(worst, 1e-5);
    // The [CLS] vector is the last hidden state's first row.
    const json &last = s["hidden_states"][3][0];
    ASSERT_EQ(a.embedding.size(), last.size());
    for (std::size_t d = 0; d < last.size(); ++d)
        EXPECT_NEAR(a.embedding[d], last[d].get<double>(), 1e-5);
}

TEST(PretrainedTransformer, WordsTheTokenizerDropsKeepTheirPlace)
{
    // The RoBERTa reference vocabulary has only its five special tokens and no merges: every
    // character is dropped, so the words are units without pieces between <s> and </s>.
    TREELENS_REQUIRE_SHARED(kRoberta);
    auto enc = loadEncoder(test::sharedPath(kRoberta));
    ASSERT_TRUE(enc) << enc.message();
    EncoderInput in;
    in.words = {"The", "old", "man"};
    auto r = (*enc)->analyze({in});
    ASSERT_TRUE(r) << r.message();
    const Analysis &a = r->front();
    EXPECT_EQ(a.tokens, (std::vector<std::string>{"<s>", "The", "old", "man", "</s>"}));
    ASSERT_TRUE(a.unknownWords.has_value());
    EXPECT_EQ(*a.unknownWords, (std::vector<int>{0, 1, 2}));
    const Matrix &m = a.attention[0][0];
    for (int j = 0; j < 5; ++j)
        EXPECT_EQ(m.at(1, j), 0.0f); // a word without pieces attends nowhere ...
    EXPECT_EQ(m.at(0, 2), 0.0f);     // ... and is attended by nothing
    EXPECT_NEAR(m.at(0, 0) + m.at(0, 4), 1.0, 1e-6);
}

TEST(PretrainedTransformer, GroupsPiecesByOffsets)
{
    // Hand-made: "un ##believ ##able" for word 0, nothing for word 1, "x" for word 2.
    TokenEncoding e;
    e.tokens = {"[CLS]", "un", "##believ", "##able", "x", "[SEP]"};
    e.ids = {2, 10, 11, 12, 13, 3};
    e.sequence = {-1, 0, 0, 0, 0, -1};
    e.typeIds = {0, 0, 0, 0, 0, 0};
    std::vector<std::pair<int, int>> spans;
    const std::vector<std::string> words = {"unbelievable", "\xe2\x80\x8b", "x"};
    EXPECT_EQ(joinWords(words, spans), "unbelievable \xe2\x80\x8b x");
    ASSERT_EQ(spans, (std::vector<std::pair<int, int>>{{0, 12}, {13, 14}, {15, 16}}));
    e.offsets = {{0, 0}, {0, 2}, {2, 8}, {8, 12}, {15, 16}, {0, 0}};
    const std::vector<std::string> *w[2] = {&words, nullptr};
    const std::vector<std::pair<int, int>> *sp[2] = {&spans, nullptr};
    const PieceUnits u = groupPieces(e, w, sp);
    EXPECT_EQ(u.names, (std::vector<std::string>{"[CLS]", "unbelievable", "\xe2\x80\x8b", "x", "[SEP]"}));
    EXPECT_EQ(u.pieces[1], (std::vector<int>{1, 2, 3}));
    EXPECT_TRUE(u.pieces[2].empty());
    EXPECT_EQ(u.unitOfWord[0], (std::vector<int>{1, 2, 3}));
    EXPECT_EQ(u.pieceless[0], (std::vector<int>{1}));
}

// What a classification head reads, by config.json (HfConfig::pairInput): each rule once.
TEST(PretrainedTransformer, ConfigSaysWhetherAHeadReadsPairs)
{
    const std::string base = R"({"model_type":"bert","vocab_size":10,"hidden_size":8,"num_hidden_layers":1,
        "num_attention_heads":2,"intermediate_size":16,"max_position_embeddings":16,"type_vocab_size":2)";
    auto input = [&](const std::string &extra) {
        auto c = parseHfConfig(base + extra + "}", "config.json");
        EXPECT_TRUE(c) << extra << ": " << c.message();
        return c ? std::make_pair(c->pairInput, c->inputReason) : std::make_pair(false, std::string());
    };
    EXPECT_FALSE(input(R"(,"id2label":{"0":"negative","1":"positive"})").first);
    EXPECT_TRUE(input(R"(,"id2label":{"0":"negative","1":"positive"},"treelens_input":"pair")").first);
    EXPECT_FALSE(input(R"(,"finetuning_task":"qnli","treelens_input":"single")").first) << "the user's word first";
    EXPECT_TRUE(input(R"(,"sbert_ce_default_activation_function":"torch.nn.modules.linear.Identity")").first);
    EXPECT_TRUE(input(R"(,"sentence_transformers":{"activation_fn":"torch.nn.modules.activation.Sigmoid"})").first);
    EXPECT_TRUE(input(R"(,"finetuning_task":"MNLI")").first);
    const auto sst = input(R"(,"finetuning_task":"sst2")");
    EXPECT_FALSE(sst.first);
    EXPECT_NE(sst.second.find("\"sst2\", not a sentence-pair task"), std::string::npos) << sst.second;
    EXPECT_TRUE(input(R"(,"id2label":{"0":"CONTRADICTION","1":"NEUTRAL","2":"ENTAILMENT"})").first);
    auto bad = parseHfConfig(base + R"(,"treelens_input":"both"})", "config.json");
    ASSERT_FALSE(bad);
    EXPECT_NE(bad.message().find("\"treelens_input\" must be \"pair\" or \"single\""), std::string::npos) << bad.message();
}

// A head fine-tuned on a one-sentence task (sst2) classifies one sentence: its
// prediction is the head on [CLS] A [SEP], computed here from the folder's tensors.
TEST(PretrainedTransformer, AOneSentenceClassifierPredictsForOneSentence)
{
    TREELENS_REQUIRE_SHARED(kBert);
    if (std::system("python3 -c '' 2>/dev/null") != 0)
        GTEST_SKIP() << "SKIPPED: python3 is not installed (scripts/add_hf_head.py)";
    const std::string dir = ::testing::TempDir() + "/pretrained-sst2";
    const std::string cmd = "python3 '" + std::string(TREELENS_SOURCE_DIR) + "/scripts/add_hf_head.py' '" + test::sharedPath(kBert) +
                            "' '" + dir + "' --labels negative,positive --task sst2 > /dev/null";
    ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
    auto enc = loadEncoder(dir);
    ASSERT_TRUE(enc) << enc.message();
    EXPECT_FALSE((*enc)->info().pairInput);
    EXPECT_EQ((*enc)->info().task, "classification");
    EXPECT_FALSE((*enc)->info().outputs.crossAttention);
    EncoderInput single;
    single.words = {"a", "fine", "film", "."};
    auto r = (*enc)->analyze({single});
    ASSERT_TRUE(r) << r.message();
    const Analysis &a = r->front();
    ASSERT_TRUE(a.prediction.has_value());
    EXPECT_TRUE(a.second.empty());
    EXPECT_EQ(a.tokens, (std::vector<std::string>{"[CLS]", "a", "fine", "film", ".", "[SEP]"}));
    auto file = readSafetensors(dir + "/model.safetensors");
    ASSERT_TRUE(file);
    auto vec = [&](const std::string &name) { return file->tensors.at(name).toFloat(); };
    const auto wp = vec("pooler.dense.weight"), bp = vec("pooler.dense.bias"), wc = vec("classifier.weight"), bc = vec("classifier.bias");
    const std::size_t d = a.embedding.size();
    double logit[2] = {bc[0], bc[1]};
    for (std::size_t i = 0; i < d; ++i) {
        double s = bp[i];
        for (std::size_t j = 0; j < d; ++j)
            s += wp[i * d + j] * a.embedding[j];
        for (std::size_t k = 0; k < 2; ++k)
            logit[k] += wc[k * d + i] * std::tanh(s);
    }
    const double positive = 1.0 / (1.0 + std::exp(logit[0] - logit[1]));
    ASSERT_EQ(a.prediction->probabilities.size(), 2u);
    EXPECT_NEAR(a.prediction->probabilities[1], positive, 1e-5);
    EXPECT_NEAR(a.prediction->probabilities[0], 1.0 - positive, 1e-5);
}

TEST(PretrainedTransformer, AClassificationHeadScoresPairsAsACrossEncoder)
{
    // The bert reference folder with a head added by scripts/add_hf_head.py (seeded weights,
    // labels irrelevant/relevant): a cross-encoder over [CLS] A [SEP] B [SEP].
    TREELENS_REQUIRE_SHARED(kBert);
    if (std::system("python3 -c '' 2>/dev/null") != 0)
        GTEST_SKIP() << "SKIPPED: python3 is not installed (scripts/add_hf_head.py)";
    const std::string dir = ::testing::TempDir() + "/pretrained-head";
    const std::string cmd = "python3 '" + std::string(TREELENS_SOURCE_DIR) + "/scripts/add_hf_head.py' '" + test::sharedPath(kBert) +
                            "' '" + dir + "' > /dev/null";
    ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
    auto enc = loadEncoder(dir);
    ASSERT_TRUE(enc) << enc.message();
    const EncoderInfo &info = (*enc)->info();
    EXPECT_TRUE(info.pairInput);
    EXPECT_EQ(info.labels, (std::vector<std::string>{"irrelevant", "relevant"}));
    EncoderInput single;
    single.words = {"who", "wrote", "hamlet", "?"};
    EXPECT_FALSE((*enc)->analyze({single})); // one sentence: refused, naming where pairs go
    EncoderInput pair = single;
    pair.secondWords = {"shakespeare", "wrote", "hamlet", "."};
    auto r = (*enc)->analyze({pair});
    ASSERT_TRUE(r) << r.message();
    const Analysis &a = r->front();
    ASSERT_TRUE(a.prediction.has_value());
    ASSERT_EQ(a.second.size(), 1u);
    EXPECT_EQ(a.tokens, (std::vector<std::string>{"[CLS]", "who", "wrote", "hamlet", "?", "[SEP]"}));
    EXPECT_EQ(a.second.front().tokens, (std::vector<std::string>{"shakespeare", "wrote", "hamlet", ".", "[SEP]"}));
    // The head, computed here from the folder's tensors: softmax(W tanh(Wp h[CLS] + bp) + b).
    auto file = readSafetensors(dir + "/model.safetensors");
    ASSERT_TRUE(file);
    auto vec = [&](const std::string &name) { return file->tensors.at(name).toFloat(); };
    const auto wp = vec("pooler.dense.weight"), bp = vec("pooler.dense.bias"), wc = vec("classifier.weight"), bc = vec("classifier.bias");
    const std::size_t d = a.embedding.size();
    std::vector<double> pooled(d);
    for (std::size_t i = 0; i < d; ++i) {
        double s = bp[i];
        for (std::size_t j = 0; j < d; ++j)
            s += wp[i * d + j] * a.embedding[j];
        pooled[i] = std::tanh(s);
    }
    double logit[2];
    for (std::size_t k = 0; k < 2; ++k) {
        logit[k] = bc[k];
        for (std::size_t j = 0; j < d; ++j)
            logit[k] += wc[k * d + j] * pooled[j];
    }
    const double relevant = 1.0 / (1.0 + std::exp(logit[0] - logit[1]));
    EXPECT_NEAR(a.prediction->score, relevant, 1e-5);
    ASSERT_EQ(a.prediction->probabilities.size(), 2u);
    EXPECT_NEAR(a.prediction->probabilities[1], relevant, 1e-5);
    // Attention from each first-sentence word: within its sentence + to the other sentence's words <= 1.
    ASSERT_EQ(a.crossAttention.size(), 12u); // 3 layers x 4 heads
    for (int k = 0; k < 12; ++k) {
        const Matrix &within = a.attention[static_cast<std::size_t>(k / 4)][static_cast<std::size_t>(k % 4)];
        const Matrix &cross = a.crossAttention[static_cast<std::size_t>(k)];
        ASSERT_EQ(cross.rows, 4);
        ASSERT_EQ(cross.cols, 4);
        for (int w = 0; w < 4; ++w) {
            double s = 0;
            for (int j = 0; j < within.cols; ++j)
                s += within.at(a.wordToken[static_cast<std::size_t>(w)], j);
            for (int j = 0; j < cross.cols; ++j)
                s += cross.at(w, j);
            EXPECT_LE(s, 1.0 + 1e-5);
            EXPECT_GT(s, 0.5); // only the final [SEP] is outside both
        }
    }
}

TEST(PretrainedTransformer, ThePieceLevelAttentionIsTheLibrarysOwn)
{
    // The analysis keeps the attention between pieces as the model computed it: for the
    // fixture's first sentence it is the library's `attentions`, piece for piece.
    TREELENS_REQUIRE_SHARED(kBert);
    json s;
    Analysis a;
    EncoderInfo info;
    ASSERT_NO_FATAL_FAILURE(analyseFirstBertSentence(s, a, info));
    EXPECT_EQ(a.pieces, s["tokens"].get<std::vector<std::string>>());
    // [CLS] the old man saw a re ##d k ##i ##t ##e . [SEP] -> the units [CLS] The old man saw a red kite . [SEP]
    EXPECT_EQ(a.pieceToken, (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 6, 7, 7, 7, 7, 8, 9}));
    ASSERT_EQ(a.pieceAttention.size(), 3u);
    double worst = 0;
    for (int l = 0; l < 3; ++l)
        for (int h = 0; h < 4; ++h) {
            const Matrix &m = a.pieceAttention[static_cast<std::size_t>(l)][static_cast<std::size_t>(h)];
            ASSERT_EQ(m.rows, 14);
            for (int i = 0; i < 14; ++i)
                for (int j = 0; j < 14; ++j)
                    worst = std::max(worst, std::fabs(m.at(i, j) - s["attentions"][l][h][i][j].get<double>()));
        }
    EXPECT_LT(worst, 1e-5);
    // analyze --json writes them (docs/cli.md).
    const json j = json::parse(analysisToJson(a, true));
    EXPECT_EQ(j.at("pieces").size(), 14u);
    EXPECT_EQ(j.at("piece_token").at(7), 6);
    EXPECT_EQ(j.at("piece_attention").size(), 3u);
    EXPECT_EQ(j.at("piece_attention").at(0).at(0).size(), 14u);
    EXPECT_FALSE(json::parse(analysisToJson(a, false)).contains("piece_attention"));
}

TEST(PretrainedTransformer, SpecialTokensFoldAway)
{
    // A hand-made analysis: [CLS] a b [SEP], one head; folding keeps the words' rows and columns as they were.
    Analysis a;
    a.tokens = {"[CLS]", "a", "b", "[SEP]"};
    a.words = {"a", "b"};
    a.wordToken = {1, 2};
    a.pieces = {"[CLS]", "a", "b", "[SEP]"};
    a.pieceToken = {0, 1, 2, 3};
    Matrix m(4, 4);
    for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j)
            m.at(i, j) = static_cast<float>(10 * i + j);
    a.attention = {{m}};
    a.layerStates = {Matrix(4, 2, 1.0f)};
    a.layerStates[0].at(2, 1) = 7.0f;
    ASSERT_TRUE(hasFoldableSpecialTokens(a));
    const Analysis f = foldSpecialTokens(a);
    EXPECT_EQ(f.tokens, (std::vector<std::string>{"a", "b"}));
    EXPECT_EQ(f.wordToken, (std::vector<int>{0, 1}));
    EXPECT_EQ(f.pieceToken, (std::vector<int>{-1, 0, 1, -1}));
    const Matrix &g = f.attention[0][0];
    ASSERT_EQ(g.rows, 2);
    EXPECT_EQ(g.at(0, 0), 11.0f);
    EXPECT_EQ(g.at(0, 1), 12.0f);
    EXPECT_EQ(g.at(1, 0), 21.0f);
    EXPECT_EQ(g.at(1, 1), 22.0f);
    EXPECT_EQ(f.layerStates[0].rows, 2);
    EXPECT_EQ(f.layerStates[0].at(1, 1), 7.0f);
    EXPECT_FALSE(hasFoldableSpecialTokens(f));
    // A model whose units are words (no pieces): nothing to fold.
    Analysis plain = a;
    plain.pieces.clear();
    EXPECT_FALSE(hasFoldableSpecialTokens(plain));
    EXPECT_EQ(foldSpecialTokens(plain).tokens.size(), 4u);
}

// Attributions (issue 34) of a folder with a classification head: the one-sentence
// classifier's log p(predicted) and the cross-encoder's pair score, complete to 2% at 256
// steps, f(input) equal to the analysis' prediction; a word's attribution is its pieces' sum.
TEST(PretrainedTransformer, AClassificationHeadIsExplainedOverItsPieces)
{
    TREELENS_REQUIRE_SHARED(kBert);
    if (std::system("python3 -c '' 2>/dev/null") != 0)
        GTEST_SKIP() << "SKIPPED: python3 is not installed (scripts/add_hf_head.py)";
    for (const char *task : {"sst2", "wikiqa"}) {
        const std::string dir = ::testing::TempDir() + "/pretrained-explain-" + task;
        const std::string cmd = "python3 '" + std::string(TREELENS_SOURCE_DIR) + "/scripts/add_hf_head.py' '" +
                                test::sharedPath(kBert) + "' '" + dir + "' --task " + task + " > /dev/null";
        ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
        auto enc = loadEncoder(dir);
        ASSERT_TRUE(enc) << enc.message();
        const bool pair = (*enc)->info().pairInput;
        EncoderInput in;
        in.words = {"an", "unbelievably", "fine", "film", "."};
        if (pair)
            in.secondWords = {"who", "made", "it", "?"};
        auto analysed = (*enc)->analyze({in});
        ASSERT_TRUE(analysed) << analysed.message();
        const Prediction &p = *analysed->front().prediction;
        ExplainOptions o;
        o.steps = 256;
        auto r = (*enc)->explain({in}, o);
        ASSERT_TRUE(r) << r.message();
        const Attribution &a = r->front();
        if (pair) {
            EXPECT_EQ(a.target, "score");
            EXPECT_NEAR(a.fInput, p.score, 1e-5);
            ASSERT_EQ(a.sides.size(), 2u);
        } else {
            const auto k = static_cast<std::size_t>(std::find(p.labels.begin(), p.labels.end(), p.label) - p.labels.begin());
            EXPECT_EQ(a.target, p.label);
            EXPECT_NEAR(a.fInput, std::log(p.probabilities[k]), 1e-5);
            ASSERT_EQ(a.sides.size(), 1u);
        }
        const double delta = a.fInput - a.fBaseline;
        EXPECT_LT(std::abs(a.completenessGap()), std::max(0.02 * std::abs(delta), 1e-4)) << task << ": " << a.total() << " vs " << delta;
        // "unbelievably" is several pieces: its attribution is their sum; [CLS] and [SEP] are specials.
        const SideAttribution &s = a.sides.front();
        ASSERT_EQ(s.word.size(), 5u);
        double pieces = 0.0, words = 0.0;
        for (double v : s.token)
            pieces += v;
        for (double v : s.word)
            words += v;
        EXPECT_NEAR(pieces, words + s.specials, 1e-9);
        EXPECT_GT(s.tokens.size(), 7u) << "more pieces than words and specials";
        EXPECT_EQ(s.tokens.front(), "[CLS]");
    }
    // A folder without a head has nothing to explain.
    auto plain = loadEncoder(test::sharedPath(kBert));
    ASSERT_TRUE(plain);
    EncoderInput in;
    in.words = {"a", "film"};
    auto r = (*plain)->explain({in}, ExplainOptions{});
    ASSERT_FALSE(r);
    EXPECT_NE(r.message().find("makes no prediction to explain"), std::string::npos) << r.message();
}

namespace {

/// The largest difference of two analyses' word attention, and of their surprisal (0 without).
std::pair<double, double> largestDifference(const Analysis &a, const Analysis &b)
{
    double att = 0.0, s = 0.0;
    for (std::size_t l = 0; l < a.attention.size(); ++l)
        for (std::size_t h = 0; h < a.attention[l].size(); ++h)
            for (std::size_t k = 0; k < a.attention[l][h].data.size(); ++k)
                att = std::max(att, std::abs(double(a.attention[l][h].data[k]) - double(b.attention[l][h].data[k])));
    for (std::size_t w = 0; w < a.surprisal.size() && w < b.surprisal.size(); ++w)
        if (!std::isnan(a.surprisal[w]))
            s = std::max(s, std::abs(a.surprisal[w] - b.surprisal[w]));
    return {att, s};
}

} // namespace

// --precision for the pretrained family: bf16 runs the blocks' projections in bfloat16 and
// says so (the numbers move, within what bf16 rounding of a tiny random model gives; the
// independent check against an eager PyTorch forward of the same scheme is
// bench/decoder_precision_check.py, ctest decoder_layouts); int8 is not a path of this family
// and says so; auto reports what it measured. The machine's choice is never asserted.
TEST(PretrainedTransformerPrecision, Bf16RunsTheProjectionsInBf16AndOthersSaySo)
{
    const char *kGpt2 = "fixtures/hf-decoders-reference/gpt2-tiny-random";
    TREELENS_REQUIRE_SHARED(kGpt2);
    const std::string dir = test::sharedPath(kGpt2);
    EncoderInput in;
    in.words = {"The", "keys", "to", "the", "cabinet", "are", "on", "the", "table", "."};
    auto run = [&](const std::string &precision, EncoderInfo &info) {
        DeviceConfig d;
        d.device = "cpu";
        d.precision = precision;
        auto enc = loadEncoder(dir, d);
        EXPECT_TRUE(enc) << enc.message();
        info = (*enc)->info();
        auto r = (*enc)->analyze({in});
        EXPECT_TRUE(r) << r.message();
        return r->front();
    };
    EncoderInfo plainInfo, bfInfo, int8Info, autoInfo;
    const Analysis plain = run("fp32", plainInfo);
    EXPECT_EQ(plainInfo.precision, "fp32");
    EXPECT_TRUE(plainInfo.precisionNote.empty()) << plainInfo.precisionNote;

    const Analysis bf = run("bf16", bfInfo);
    EXPECT_EQ(bfInfo.precision, "bf16");
    const auto [att, surprisal] = largestDifference(plain, bf);
    EXPECT_GT(att + surprisal, 0.0) << "bf16 gave fp32's numbers exactly: the projections did not run in bf16";
    EXPECT_LT(att, 0.05);
    EXPECT_LT(surprisal, 0.25);
    ASSERT_EQ(bf.surprisal.size(), in.words.size());
    EXPECT_TRUE(std::isnan(bf.surprisal[0])); // still nothing predicts the first word

    const Analysis viaInt8 = run("int8", int8Info);
    EXPECT_EQ(int8Info.precision, "fp32");
    EXPECT_NE(int8Info.precisionNote.find("not applied"), std::string::npos) << int8Info.precisionNote;
    EXPECT_EQ(largestDifference(plain, viaInt8), std::make_pair(0.0, 0.0));

    run("auto", autoInfo);
    EXPECT_TRUE(autoInfo.precision == "fp32" || autoInfo.precision == "bf16") << autoInfo.precision;
    EXPECT_EQ(autoInfo.precisionNote.rfind("auto: " + autoInfo.precision + " (", 0), 0u) << autoInfo.precisionNote;
    EXPECT_NE(autoInfo.precisionNote.find("-piece sentence"), std::string::npos) << autoInfo.precisionNote;
}
