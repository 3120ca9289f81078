// verify-fixture, score-pairs and eval-pairs end to end, against independent
// references: the GGSA fixture's expected tensors (through import-checkpoint and
// score-pairs) and IDF sums computed by hand.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "clirun.h"
#include "testutil.h"

using namespace treelens;

namespace {

test::CliRun cli(const std::string &args) { return test::runCli(args, ""); }
std::string q(const std::string &s) { return test::shellQuote(s); }

std::string writeTemp(const std::string &name, const std::string &content)
{
    const std::string p = test::cliTempDir() + "/" + name;
    std::ofstream(p, std::ios::binary) << content;
    return p;
}

std::vector<std::vector<std::string>> tsvRows(const std::string &text)
{
    std::vector<std::vector<std::string>> rows;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
        std::vector<std::string> cells;
        std::istringstream l(line);
        for (std::string c; std::getline(l, c, '\t');)
            cells.push_back(c);
        rows.push_back(cells);
    }
    return rows;
}

} // namespace

TEST(CliPairs, VerifyFixturePassesOnThePublicGgsaFixture)
{
    TREELENS_REQUIRE_SHARED("fixtures/ggsa-reference/expected.json");
    const std::string computed = test::cliTempDir() + "/computed.json";
    const auto r = cli("verify-fixture " + q(test::sharedPath("fixtures/ggsa-reference")) + " -o " + q(computed));
    EXPECT_EQ(r.code, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("ok    iggsa.a0.R_int"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("FAIL"), std::string::npos) << r.out;
    std::ifstream in(computed);
    const auto j = nlohmann::json::parse(in);
    EXPECT_TRUE(j["tensors"].contains("ggsa.pair3.score_cos"));
}

TEST(CliPairs, VerifyFixtureFailsOnAChangedOrMissingTensor)
{
    TREELENS_REQUIRE_SHARED("fixtures/ggsa-reference/expected.json");
    namespace fs = std::filesystem;
    const fs::path src = test::sharedPath("fixtures/ggsa-reference");
    const fs::path dir = fs::path(test::cliTempDir()) / "fixture-copy";
    fs::create_directories(dir);
    for (const char *f : {"config.json", "state_dict.pt", "inputs.json"})
        fs::copy_file(src / f, dir / f, fs::copy_options::overwrite_existing);
    std::ifstream in(src / "expected.json");
    auto j = nlohmann::json::parse(in);
    j["tensors"]["iggsa.pair1.s"]["data"] = j["tensors"]["iggsa.pair1.s"]["data"].get<double>() + 1e-3;
    j["tensors"]["made.up"] = {{"shape", {1}}, {"dtype", "float32"}, {"data", {0.5}}};
    std::ofstream(dir / "expected.json") << j.dump();
    const auto r = cli("verify-fixture -q " + q(dir.string()));
    EXPECT_EQ(r.code, 1) << r.out << r.err;
    EXPECT_NE(r.out.find("FAIL  iggsa.pair1.s"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("FAIL  made.up  missing"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("2 failed"), std::string::npos) << r.out;
}

// Issue 47, item 10: verify-fixture on the Tree Transformer's official-code fixture said
// "config.json: No such file"; it checks that layout now (any folder of it), and fails when a
// number in it is changed.
TEST(CliPairs, VerifyFixtureChecksTheOfficialTreeTransformerLayout)
{
    TREELENS_REQUIRE_SHARED("fixtures/tree-transformer-official/summary.json");
    namespace fs = std::filesystem;
    const fs::path src = test::sharedPath("fixtures/tree-transformer-official");
    const auto r = cli("verify-fixture " + q(src.string()));
    EXPECT_EQ(r.code, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("sentences[1].link_probs_word_level"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("parser_cases.brackets"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("FAIL"), std::string::npos) << r.out;
    const fs::path dir = fs::path(test::cliTempDir()) / "tt-official-copy";
    fs::create_directories(dir);
    for (const char *f : {"state_dict.pt", "dictionary.json"})
        fs::copy_file(src / f, dir / f, fs::copy_options::overwrite_existing);
    std::ifstream in(src / "summary.json");
    auto j = nlohmann::json::parse(in);
    j["sentences"][0]["link_probs_word_level"][2][1] = j["sentences"][0]["link_probs_word_level"][2][1].get<double>() + 1e-3;
    std::ofstream(dir / "summary.json") << j.dump();
    const auto changed = cli("verify-fixture -q " + q(dir.string()));
    EXPECT_EQ(changed.code, 1) << changed.out << changed.err;
    EXPECT_NE(changed.out.find("FAIL  sentences[0].link_probs_word_level"), std::string::npos) << changed.out;
}

TEST(CliPairs, ImportedFixtureModelScoresPairsAsTheFixtureSays)
{
    TREELENS_REQUIRE_SHARED("fixtures/ggsa-reference/expected.json");
    const std::string fx = test::sharedPath("fixtures/ggsa-reference");
    std::ifstream ein(fx + "/expected.json"), iin(fx + "/inputs.json");
    const auto expected = nlohmann::json::parse(ein)["tensors"];
    const auto inputs = nlohmann::json::parse(iin);
    // The fixture's pairs as a ranking TSV (its tokens are already lower-case and space-separated).
    std::string tsv = "qid\tquestion\tcandidate\tlabel\n";
    for (const auto &p : inputs["pairs"]) {
        const auto &question = inputs["questions"][p["question"].get<std::size_t>()];
        tsv += "q" + std::to_string(p["question"].get<int>()) + "\t" + question["text"].get<std::string>() + "\t" +
               p["answer_text"].get<std::string>() + "\t" + std::to_string(p["label"].get<int>()) + "\n";
    }
    const std::string pairs = writeTemp("fixture-pairs.tsv", tsv);
    for (const std::string sub : {"ggsa", "iggsa"}) {
        const std::string model = test::cliTempDir() + "/" + sub + ".safetensors";
        const auto imp = cli("import-checkpoint --family ggsa --submodel " + sub + " " + q(fx + "/state_dict.pt") +
                             " --config " + q(fx + "/config.json") + " -o " + q(model));
        ASSERT_EQ(imp.code, 0) << imp.err;
        const auto r = cli("score-pairs --model " + q(model) + " --input " + q(pairs) + " --device cpu");
        ASSERT_EQ(r.code, 0) << r.err;
        const auto rows = tsvRows(r.out);
        ASSERT_EQ(rows.size(), inputs["pairs"].size() + 1);
        EXPECT_EQ(rows[0], (std::vector<std::string>{"qid", "index", "label", "score"}));
        for (std::size_t k = 0; k < inputs["pairs"].size(); ++k) {
            EXPECT_EQ(rows[k + 1][1], std::to_string(k));
            const double want = expected[sub + ".pair" + std::to_string(k) + ".score_cos"]["data"].get<double>();
            EXPECT_NEAR(std::stod(rows[k + 1][3]), want, 1e-5) << sub << " pair " << k;
        }
    }
}

TEST(CliPairs, IdfBaselineScoresAndMetricsByHand)
{
    // IDF over the 3 candidates: wrote in 1 (ln 3), hamlet in 2 (ln 1.5).
    const std::string pairs = writeTemp("hamlet.tsv", "q1\twho wrote hamlet ?\tshakespeare wrote hamlet .\t0\n"
                                                      "q1\twho wrote hamlet ?\thamlet is a play .\t1\n"
                                                      "q1\twho wrote hamlet ?\tthe sky is blue .\t0\n");
    const auto r = cli("score-pairs --model idf-overlap --input " + q(pairs));
    ASSERT_EQ(r.code, 0) << r.err;
    const auto rows = tsvRows(r.out);
    ASSERT_EQ(rows.size(), 4u);
    EXPECT_NEAR(std::stod(rows[1][3]), std::log(3.0) + std::log(1.5), 1e-6);
    EXPECT_NEAR(std::stod(rows[2][3]), std::log(1.5), 1e-6);
    EXPECT_NEAR(std::stod(rows[3][3]), 0.0, 1e-9);
    // The correct candidate ranks 2nd: AP = RR = 1/2, P@1 = 0.
    const auto e = cli("eval-pairs --model idf-overlap --input " + q(pairs) + " --json --slices");
    ASSERT_EQ(e.code, 0) << e.err;
    const auto j = nlohmann::json::parse(e.out);
    EXPECT_DOUBLE_EQ(j["overall"]["map"].get<double>(), 0.5);
    EXPECT_DOUBLE_EQ(j["overall"]["mrr"].get<double>(), 0.5);
    EXPECT_DOUBLE_EQ(j["overall"]["p_at_1"].get<double>(), 0.0);
    EXPECT_EQ(j["overall"]["questions"].get<int>(), 1);
    bool who = false;
    for (const auto &row : j["slices"]["question-word"])
        if (row["slice"] == "who") {
            who = true;
            EXPECT_EQ(row["pairs"].get<int>(), 3);
        }
    EXPECT_TRUE(who);
    // --slices parses both sides: every question has a dependency tree and a depth bin.
    for (const auto &row : j["slices"]["tree-depth"]) {
        if (row["slice"] == "unknown") {
            EXPECT_EQ(row["pairs"].get<int>(), 0);
        }
    }
}

TEST(CliPairs, ClassificationNeedsAClassificationHead)
{
    TREELENS_REQUIRE_SHARED("data/rte/rte1_dev.xml");
    const auto r = cli("eval-pairs --model idf-overlap --input " + q(test::sharedPath("data/rte/rte1_dev.xml")));
    EXPECT_EQ(r.code, 1);
    EXPECT_NE(r.err.find("classification"), std::string::npos) << r.err;
}

TEST(CliFixtures, VerifyFixturePassesOnTheDependencyTransformerFixture)
{
    TREELENS_REQUIRE_SHARED("fixtures/dependency-transformer-reference/expected.json");
    const auto r = cli("verify-fixture -q " + q(test::sharedPath("fixtures/dependency-transformer-reference")));
    EXPECT_EQ(r.code, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("dependency-transformer:"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("FAIL"), std::string::npos) << r.out;
}

TEST(CliFixtures, TrainsADependencyTransformerOnSentenceFiles)
{
    // Ten sentences per class, parsed by the shipped parser, three steps: the
    // output loads, analyses a parsed sentence and records its test accuracy.
    std::string pos, neg;
    for (int i = 0; i < 10; ++i) {
        pos += "a good and moving film number " + std::to_string(i) + " .\n";
        neg += "a dull and tired film number " + std::to_string(i) + " .\n";
    }
    const std::string posFile = writeTemp("dt-pos.txt", pos), negFile = writeTemp("dt-neg.txt", neg);
    const std::string out = test::cliTempDir() + "/dt.safetensors";
    const std::string recipe = writeTemp("dt.recipe.json", nlohmann::json{
        {"family", "dependency-transformer"},
        {"output", out},
        {"data", {{"positive", posFile}, {"negative", negFile}, {"split_seed", 3}}},
        {"model", {{"n_layers", 1}, {"n_heads", 2}, {"d_model", 16}, {"d_ff", 16}, {"d_rel", 4}, {"max_len", 32}}},
        {"training", {{"steps", 3}, {"batch_size", 4}, {"threads", 1}, {"device", "cpu"}}}}.dump());
    const auto r = cli("train dependency-transformer -c " + q(recipe));
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.err.find("16 train / 2 dev / 2 test sentences"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("test accuracy"), std::string::npos) << r.err;
    const auto a = cli("analyze --json --no-attention --model " + q(out) + " \"a good film .\"");
    ASSERT_EQ(a.code, 0) << a.err;
    const auto j = nlohmann::json::parse(a.out.substr(0, a.out.find('\n')));
    EXPECT_EQ(j["family"], "dependency-transformer");
    EXPECT_EQ(j["tokens"][0], "[root]");
    EXPECT_EQ(j["prediction"]["labels"].size(), 2u);
}

TEST(CliFixtures, TrainsADependencyTransformerPairHeadOnRteAndScoresPairsWithIt)
{
    // Twelve RTE pairs (a text and its hypothesis, YES/NO), both sides parsed by the
    // shipped parser, three steps: the output is a pair model (task pair-classification,
    // labels NO/YES) that score-pairs and eval-pairs run on, and analyze --pairs gives both
    // sides' analyses with the pair prediction.
    std::string xml = "<?xml version=\"1.0\"?>\n<entailment-corpus>\n";
    for (int i = 0; i < 12; ++i) {
        const bool yes = i % 2 == 0;
        xml += "<pair id=\"" + std::to_string(i + 1) + "\" entailment=\"" + (yes ? "YES" : "NO") + "\"><t>The cat number " +
               std::to_string(i) + " sat on the mat near the door .</t><h>" + (yes ? "A cat sat on the mat ." : "A dog ran away .") +
               "</h></pair>\n";
    }
    xml += "</entailment-corpus>\n";
    const std::string train = writeTemp("dt-rte-train.xml", xml), test = writeTemp("dt-rte-test.xml", xml);
    const std::string out = test::cliTempDir() + "/dt-rte.safetensors";
    const std::string recipe = writeTemp("dt-rte.recipe.json", nlohmann::json{
        {"family", "dependency-transformer"},
        {"output", out},
        {"data", {{"rte_train", {train}}, {"rte_test", {test}}, {"dev_fraction", 0.25}, {"split_seed", 3}}},
        {"model", {{"n_layers", 1}, {"n_heads", 2}, {"d_model", 16}, {"d_ff", 16}, {"d_rel", 4}, {"max_len", 32}}},
        {"training", {{"steps", 3}, {"batch_size", 4}, {"threads", 1}, {"device", "cpu"}}}}.dump());
    const auto r = cli("train dependency-transformer -c " + q(recipe));
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.err.find("9 train / 3 dev / 12 test pairs"), std::string::npos) << r.err;
    const auto s = cli("score-pairs --model " + q(out) + " --input " + q(test) + " --device cpu");
    ASSERT_EQ(s.code, 0) << s.err;
    int lines = 0;
    for (char c : s.out)
        lines += c == '\n';
    EXPECT_EQ(lines, 13) << s.out; // header + 12 pairs
    const auto a = cli("analyze --json --no-attention --model " + q(out) + " --pairs " + q(test));
    ASSERT_EQ(a.code, 0) << a.err;
    const auto j = nlohmann::json::parse(a.out.substr(0, a.out.find('\n')));
    EXPECT_EQ(j["family"], "dependency-transformer");
    EXPECT_EQ(j["prediction"]["labels"], (std::vector<std::string>{"NO", "YES"}));
    // The first pair's hypothesis "A cat sat on the mat ." with the [root] token first.
    ASSERT_EQ(j["second"]["tokens"].size(), 8u);
    EXPECT_EQ(j["second"]["tokens"][0], "[root]");
    EXPECT_EQ(j["second"]["family"], "dependency-transformer");
}

TEST(CliFixtures, VerifyFixturePassesOnTheTreeAggregationTransformerFixture)
{
    TREELENS_REQUIRE_SHARED("fixtures/tree-aggregation-transformer-reference/expected.json");
    const auto r = cli("verify-fixture -q " + q(test::sharedPath("fixtures/tree-aggregation-transformer-reference")));
    EXPECT_EQ(r.code, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("tree-aggregation-transformer: 134 of 134 tensors"), std::string::npos) << r.out;
}

TEST(CliFixtures, TrainsARecursiveTreeTransformerWithEdgeLabelsOnSentenceFiles)
{
    // DTT + edge labels on ten sentences per class, three steps: the output loads, analyses a
    // parsed sentence, carries one node-attention entry per token with dependents, and its
    // edge traversal; the test accuracy is recorded.
    std::string pos, neg;
    for (int i = 0; i < 10; ++i) {
        pos += "a good and moving film number " + std::to_string(i) + " .\n";
        neg += "a dull and tired film number " + std::to_string(i) + " .\n";
    }
    const std::string posFile = writeTemp("rec-pos.txt", pos), negFile = writeTemp("rec-neg.txt", neg);
    const std::string out = test::cliTempDir() + "/dtte.safetensors";
    const std::string recipe = writeTemp("rec.recipe.json", nlohmann::json{
        {"family", "recursive-tree-transformer"},
        {"output", out},
        {"data", {{"positive", posFile}, {"negative", negFile}, {"split_seed", 3}}},
        {"model", {{"model", "dtte"}, {"d_model", 16}, {"n_branches", 2}, {"d_k", 8}, {"d_ff", 16}, {"head_hidden", 8}}},
        {"training", {{"steps", 3}, {"batch_size", 4}, {"threads", 1}, {"device", "cpu"}}}}.dump());
    const auto r = cli("train recursive-tree-transformer -c " + q(recipe));
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.err.find("16 train / 2 dev / 2 test sentences"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("test accuracy"), std::string::npos) << r.err;
    const auto a = cli("analyze --json --model " + q(out) + " \"a good film about the old man .\"");
    ASSERT_EQ(a.code, 0) << a.err;
    const auto j = nlohmann::json::parse(a.out.substr(0, a.out.find('\n')));
    EXPECT_EQ(j["family"], "recursive-tree-transformer");
    EXPECT_EQ(j["prediction"]["labels"], (std::vector<std::string>{"negative", "positive"}));
    ASSERT_FALSE(j["node_attention"].empty()) << a.out;
    const auto &root = j["node_attention"].back();
    EXPECT_EQ(root["weights"].size(), 2u); // one row per branch
    EXPECT_TRUE(root["arrays"].contains("edge_fwd.attn"));
    EXPECT_GE(root["head_word"].get<int>(), 0);
    // A Tree-LSTM recipe is refused by the Tree Transformer trainer, by name.
    const std::string wrong = writeTemp("rec-wrong.recipe.json", nlohmann::json{
        {"family", "recursive-tree-transformer"}, {"output", out},
        {"data", {{"positive", posFile}, {"negative", negFile}}},
        {"model", {{"model", "treelstm.cs"}}}}.dump());
    const auto w = cli("train recursive-tree-transformer -c " + q(wrong));
    EXPECT_NE(w.code, 0);
    EXPECT_NE(w.err.find("train tree-lstm-attention"), std::string::npos) << w.err;
}

TEST(CliFixtures, TrainsATreeLstmWithCrossAttentionOnRtePairsAndScoresThem)
{
    // The Child-Sum Tree-LSTM with attention, its query from the other sentence, on twelve RTE
    // pairs: a pair model (labels NO/YES) that score-pairs and analyze --pairs run on.
    std::string xml = "<?xml version=\"1.0\"?>\n<entailment-corpus>\n";
    for (int i = 0; i < 12; ++i) {
        const bool yes = i % 2 == 0;
        xml += "<pair id=\"" + std::to_string(i + 1) + "\" entailment=\"" + (yes ? "YES" : "NO") + "\"><t>The cat number " +
               std::to_string(i) + " sat on the mat near the door .</t><h>" + (yes ? "A cat sat on the mat ." : "A dog ran away .") +
               "</h></pair>\n";
    }
    xml += "</entailment-corpus>\n";
    const std::string train = writeTemp("tl-rte-train.xml", xml), test = writeTemp("tl-rte-test.xml", xml);
    const std::string out = test::cliTempDir() + "/tl-rte.safetensors";
    const std::string recipe = writeTemp("tl-rte.recipe.json", nlohmann::json{
        {"family", "tree-lstm-attention"},
        {"output", out},
        {"data", {{"rte_train", {train}}, {"rte_test", {test}}, {"dev_fraction", 0.25}, {"split_seed", 3}}},
        {"model", {{"model", "treelstm.cs"}, {"d_model", 16}, {"mem_dim", 12}, {"head_hidden", 8}}},
        {"training", {{"steps", 3}, {"batch_size", 4}, {"threads", 1}, {"device", "cpu"}}}}.dump());
    const auto r = cli("train tree-lstm-attention -c " + q(recipe));
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.err.find("9 train / 3 dev / 12 test pairs"), std::string::npos) << r.err;
    const auto s = cli("score-pairs --model " + q(out) + " --input " + q(test) + " --device cpu");
    ASSERT_EQ(s.code, 0) << s.err;
    const auto a = cli("analyze --json --model " + q(out) + " --pairs " + q(test));
    ASSERT_EQ(a.code, 0) << a.err;
    const auto j = nlohmann::json::parse(a.out.substr(0, a.out.find('\n')));
    EXPECT_EQ(j["family"], "recursive-tree-transformer");
    EXPECT_EQ(j["prediction"]["labels"], (std::vector<std::string>{"NO", "YES"}));
    // The hypothesis "A cat sat on the mat ." attends over its children with the text's query.
    ASSERT_TRUE(j.contains("second"));
    ASSERT_FALSE(j["second"]["node_attention"].empty());
    const auto &node = j["second"]["node_attention"].back();
    EXPECT_EQ(node["weights"].size(), 1u);
    EXPECT_TRUE(node["arrays"].contains("gates"));
    double sum = 0;
    for (double w : node["weights"][0])
        sum += w;
    EXPECT_NEAR(sum, 1.0, 1e-4);
}

TEST(CliFixtures, TheShippedRecursiveModelsLoadAndDrawTheirNodeAttention)
{
    // dtt-edges-en-polarity: one node per word with dependents, 4 branches, the edge traversal,
    // a prediction over negative/positive; tree-lstm-attention-en-rte: a pair model whose
    // hypothesis tree attends with the text's query.
    const std::string dir = std::string(TREELENS_SOURCE_DIR) + "/resources/models/";
    const auto a = cli("analyze --json --model " + q(dir + "dtt-edges-en-polarity.safetensors") +
                       " \"The film is not as funny as its trailer , but the actors save it .\"");
    ASSERT_EQ(a.code, 0) << a.err;
    const auto j = nlohmann::json::parse(a.out.substr(0, a.out.find('\n')));
    EXPECT_EQ(j["family"], "recursive-tree-transformer");
    EXPECT_EQ(j["prediction"]["labels"], (std::vector<std::string>{"negative", "positive"}));
    ASSERT_GE(j["node_attention"].size(), 3u);
    for (const auto &n : j["node_attention"]) {
        EXPECT_EQ(n["weights"].size(), 4u);
        EXPECT_TRUE(n["arrays"].contains("edge_fwd.attn"));
    }
    std::string xml = "<?xml version=\"1.0\"?>\n<entailment-corpus>\n<pair id=\"1\" entailment=\"YES\"><t>The cat sat on the "
                      "mat near the door .</t><h>A cat sat on the mat .</h></pair>\n</entailment-corpus>\n";
    const std::string pairs = writeTemp("shipped-tl.xml", xml);
    const auto p = cli("analyze --json --model " + q(dir + "tree-lstm-attention-en-rte.safetensors") + " --pairs " + q(pairs));
    ASSERT_EQ(p.code, 0) << p.err;
    const auto k = nlohmann::json::parse(p.out.substr(0, p.out.find('\n')));
    EXPECT_EQ(k["prediction"]["labels"], (std::vector<std::string>{"NO", "YES"}));
    ASSERT_FALSE(k["second"]["node_attention"].empty());
    EXPECT_TRUE(k["second"]["node_attention"].back()["arrays"].contains("alpha"));
}

TEST(CliFixtures, VerifyFixturePassesOnTheRecursiveTreeTransformerFixture)
{
    TREELENS_REQUIRE_SHARED("fixtures/recursive-tree-transformer-reference/expected.json");
    const auto r = cli("verify-fixture -q " + q(test::sharedPath("fixtures/recursive-tree-transformer-reference")));
    EXPECT_EQ(r.code, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("recursive-tree-transformer: 547 of 547 tensors"), std::string::npos) << r.out;
}

TEST(CliPairs, ProbePairsProbesTheShippedTreeAggregationTransformerAndItsRandomInit)
{
    const std::string model = std::string(TREELENS_SOURCE_DIR) + "/resources/models/tat-en-wikiqa.safetensors";
    ASSERT_TRUE(std::filesystem::exists(model)) << model;
    // 48 pairs of 8 questions: candidates of two shapes and several lengths.
    std::ostringstream tsv;
    tsv << "qid\tquestion\tcandidate\tlabel\n";
    const char *subjects[] = {"the river", "the old city", "a small town", "the king", "the war", "the museum", "the bridge", "the school"};
    const char *tails[] = {"", " near the coast", " in the north of the country", " after the long war with its neighbours"};
    for (int q = 0; q < 8; ++q)
        for (int c = 0; c < 6; ++c) {
            const std::string s = subjects[(q + c) % 8];
            const std::string text = c % 2 ? "In " + std::to_string(1800 + 10 * c) + " , " + s + " grew" + tails[c % 4] + " ."
                                           : s + " is famous" + tails[(c + q) % 4] + " .";
            tsv << "q" << q << "\twhere is " << subjects[q] << " ?\t" << text << "\t" << (c == 0 ? 1 : 0) << "\n";
        }
    const std::string pairs = writeTemp("probe-pairs.tsv", tsv.str());
    const auto r = cli("probe-pairs -m " + q(model) + " --train " + q(pairs) + " --dev " + q(pairs) + " --test " + q(pairs) +
                       " --epochs 3 --random-init --json");
    ASSERT_EQ(r.code, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    ASSERT_EQ(j.size(), 2u); // the model, then its configuration with random weights
    EXPECT_FALSE(j[0]["random_init"].get<bool>());
    EXPECT_TRUE(j[1]["random_init"].get<bool>());
    EXPECT_EQ(j[0]["dim"], 256); // [w^e_q; w^n_q; w^e_s; w^n_s], 64 each
    EXPECT_EQ(j[0]["pairs"][0], 48);
    ASSERT_EQ(j[0]["rows"].size(), 3u);
    EXPECT_EQ(j[0]["rows"][0]["task"], "topconst");
    EXPECT_EQ(j[0]["rows"][1]["task"], "treedepth");
    EXPECT_EQ(j[0]["rows"][2]["task"], "sentlen");
    EXPECT_EQ(j[0]["rows"][2]["metric"], "mse");
    for (const auto &row : j[0]["rows"])
        EXPECT_TRUE(row["probe"].is_number());
    // A task it does not know is a usage error naming it.
    const auto bad = cli("probe-pairs -m " + q(model) + " --train " + q(pairs) + " --dev " + q(pairs) + " --test " + q(pairs) +
                         " --tasks topconst,colour");
    EXPECT_NE(bad.code, 0);
    EXPECT_NE(bad.err.find("colour"), std::string::npos) << bad.err;
}

TEST(CliEvalPairs, FiguresOnAModelsOwnTrainingDataSaySo)
{
    // Issue 30: the workbench showed tree-lstm-attention-en-rte at accuracy 0.955 on RTE-3 dev,
    // its training data, without a word. A corpus named as its recipe names its training data
    // (rte/rte3_dev.xml) is said to be that data, with the model's held-out figure.
    std::filesystem::create_directories(test::cliTempDir() + "/rte");
    const std::string xml = "<?xml version=\"1.0\"?>\n<entailment-corpus>\n"
                            "<pair id=\"1\" entailment=\"YES\"><t>The cat sat on the mat .</t><h>A cat sat .</h></pair>\n"
                            "<pair id=\"2\" entailment=\"NO\"><t>The dog ran .</t><h>The cat slept .</h></pair>\n"
                            "</entailment-corpus>\n";
    const std::string own = writeTemp("rte/rte3_dev.xml", xml);
    const std::string model = std::string(TREELENS_SOURCE_DIR) + "/resources/models/tree-lstm-attention-en-rte.safetensors";
    auto r = cli("eval-pairs --model " + q(model) + " --input " + q(own));
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("note: tree-lstm-attention-en-rte was trained on this data"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("its test accuracy: 0.524"), std::string::npos) << r.out;
    r = cli("eval-pairs --json --model " + q(model) + " --input " + q(own));
    ASSERT_EQ(r.code, 0) << r.err;
    auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["data_use"]["role"], "training");
    EXPECT_NE(r.err.find("was trained on this data"), std::string::npos) << r.err;
    // The same pairs under another name are not claimed.
    const std::string other = writeTemp("my-pairs.xml", xml);
    r = cli("eval-pairs --json --model " + q(model) + " --input " + q(other));
    ASSERT_EQ(r.code, 0) << r.err;
    j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["data_use"]["role"], "unseen");
    EXPECT_EQ(r.err.find("trained on this data"), std::string::npos) << r.err;
}

TEST(CliEvalPairs, SlicesThatSplitAQuestionSayWhyTheyRunHigh)
{
    // Issue 30: candidate-length slices all scored above the whole set and counted fewer
    // questions, with no word on why.
    const std::string pairs = test::testData("conformance/pairs.tsv");
    auto r = cli("eval-pairs --model idf-overlap --slices --input " + q(pairs));
    ASSERT_EQ(r.code, 0) << r.err;
    const auto at = r.out.find("-- candidate-length");
    ASSERT_NE(at, std::string::npos) << r.out;
    const auto next = r.out.find("-- ", at + 3);
    const std::string block = r.out.substr(at, next - at);
    EXPECT_NE(block.find("each question is ranked among its candidates in the slice only"), std::string::npos) << block;
    // Question-side slices keep questions whole: no such note.
    const auto qw = r.out.find("-- question-word");
    ASSERT_NE(qw, std::string::npos);
    EXPECT_EQ(r.out.substr(qw, r.out.find("-- ", qw + 3) - qw).find("ranked among"), std::string::npos);
    r = cli("eval-pairs --json --model idf-overlap --slices --input " + q(pairs));
    ASSERT_EQ(r.code, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_TRUE(j["slice_notes"].contains("candidate-length")) << j.dump().substr(0, 400);
    EXPECT_FALSE(j["slice_notes"].contains("question-word"));
}

// Issue 32: a Hugging Face BERT folder with a classification head (scripts/add_hf_head.py on
// the tiny reference folder) ranks WikiQA candidates as a cross-encoder; a pair over its
// position table is refused naming it.
TEST(CliPairs, HuggingFaceCrossEncoderScoresWikiQa)
{
    TREELENS_REQUIRE_SHARED("fixtures/hf-transformers-reference/bert-tiny-random");
    TREELENS_REQUIRE_SHARED("data/wikiqa/test/a.toks");
    if (std::system("python3 -c '' 2>/dev/null") != 0)
        GTEST_SKIP() << "SKIPPED: python3 is not installed (scripts/add_hf_head.py)";
    const std::string model = test::cliTempDir() + "/bert-cross-encoder";
    const std::string make = "python3 " + q(std::string(TREELENS_SOURCE_DIR) + "/scripts/add_hf_head.py") + " " +
                             q(test::sharedPath("fixtures/hf-transformers-reference/bert-tiny-random")) + " " + q(model) + " > /dev/null";
    ASSERT_EQ(std::system(make.c_str()), 0) << make;
    // The WikiQA test questions whose pairs are short enough for the tiny model's 128 positions.
    const std::string src = test::sharedPath("data/wikiqa/test");
    auto lines = [&](const char *file) {
        std::vector<std::string> v;
        std::ifstream in(src + "/" + file);
        for (std::string l; std::getline(in, l);)
            v.push_back(l);
        return v;
    };
    const auto a = lines("a.toks"), b = lines("b.toks"), id = lines("id.txt"), sim = lines("sim.txt");
    ASSERT_EQ(a.size(), b.size());
    auto words = [](const std::string &s) {
        std::istringstream in(s);
        int n = 0;
        for (std::string w; in >> w;)
            ++n;
        return n;
    };
    std::map<std::string, std::vector<std::size_t>> byQuestion;
    std::vector<std::string> order;
    for (std::size_t i = 0; i < a.size(); ++i) {
        if (!byQuestion.count(id[i]))
            order.push_back(id[i]);
        byQuestion[id[i]].push_back(i);
    }
    const std::string dir = test::cliTempDir() + "/wikiqa-short";
    std::filesystem::create_directories(dir);
    std::ofstream oa(dir + "/a.toks"), ob(dir + "/b.toks"), oi(dir + "/id.txt"), os(dir + "/sim.txt");
    int pairs = 0, questions = 0;
    for (const auto &question : order) {
        const auto &rows = byQuestion[question];
        bool fits = true, correct = false, wrong = false;
        for (std::size_t i : rows) {
            fits = fits && words(a[i]) + words(b[i]) <= 24;
            (sim[i] == "1" ? correct : wrong) = true;
        }
        if (!fits || !correct || !wrong)
            continue;
        for (std::size_t i : rows) {
            oa << a[i] << '\n';
            ob << b[i] << '\n';
            oi << id[i] << '\n';
            os << sim[i] << '\n';
            ++pairs;
        }
        if (++questions == 5)
            break;
    }
    oa.close(), ob.close(), oi.close(), os.close();
    ASSERT_GE(questions, 2);
    const std::string scores = test::cliTempDir() + "/cross-encoder-scores.tsv";
    const auto r = cli("score-pairs --model " + q(model) + " --input " + q(dir) + " -o " + q(scores));
    ASSERT_EQ(r.code, 0) << r.err;
    std::ifstream in(scores);
    std::stringstream ss;
    ss << in.rdbuf();
    const auto rows = tsvRows(ss.str());
    ASSERT_EQ(static_cast<int>(rows.size()), pairs + 1);
    for (std::size_t i = 1; i < rows.size(); ++i) {
        const double s = std::stod(rows[i].at(3));
        EXPECT_GT(s, 0.0);
        EXPECT_LT(s, 1.0);
    }
    const auto e = cli("eval-pairs --model " + q(model) + " --input " + q(dir));
    ASSERT_EQ(e.code, 0) << e.err;
    EXPECT_NE(e.out.find("MAP"), std::string::npos) << e.out;
    // The whole test set has pairs over 128 pieces: refused, naming the pair and the limit.
    const auto whole = cli("score-pairs --model " + q(model) + " --input " + q(src));
    EXPECT_EQ(whole.code, 1);
    EXPECT_NE(whole.err.find("word pieces, the model takes at most 128"), std::string::npos) << whole.err;
}

// Issue 32: analyze --special-tokens fold leaves [CLS]/[SEP] out of a word-piece model's units.
TEST(CliPairs, SpecialTokensFoldAwayInAnalyze)
{
    TREELENS_REQUIRE_SHARED("fixtures/hf-transformers-reference/bert-tiny-random");
    const std::string model = test::sharedPath("fixtures/hf-transformers-reference/bert-tiny-random");
    const auto shown = cli("analyze --json --model " + q(model) + " " + q("The old man saw a red kite ."));
    ASSERT_EQ(shown.code, 0) << shown.err;
    const auto folded = cli("analyze --json --special-tokens fold --model " + q(model) + " " + q("The old man saw a red kite ."));
    ASSERT_EQ(folded.code, 0) << folded.err;
    const auto s = nlohmann::json::parse(shown.out), f = nlohmann::json::parse(folded.out);
    EXPECT_EQ(s.at("tokens").front(), "[CLS]");
    EXPECT_EQ(s.at("tokens").back(), "[SEP]");
    EXPECT_EQ(f.at("tokens"), nlohmann::json({"The", "old", "man", "saw", "a", "red", "kite", "."}));
    // The words' rows and columns as they were: word 2 -> word 3 of the shown matrix is word 1 -> word 2 folded.
    EXPECT_EQ(f.at("attention")[1][2][1][2], s.at("attention")[1][2][2][3]);
    EXPECT_EQ(f.at("pieces").size(), s.at("pieces").size()); // the pieces stay, their specials mapped to -1
    EXPECT_EQ(f.at("piece_token").front(), -1);
    const auto bad = cli("analyze --special-tokens hide --model " + q(model) + " x");
    EXPECT_NE(bad.code, 0);
}
