// End-to-end tests of `treelens-cli probe` (issue 6): the JSON report's shape,
// determinism, the tree bookkeeping and errors, run as a user would.
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <numeric>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/base/fileio.h"
#include "core/formats/conllu.h"
#include "core/probing/probetasks.h"
#include "clirun.h"
#include "testutil.h"

using namespace treelens;
using nlohmann::json;

namespace {

using test::CliRun;
std::string tempDir() { return test::cliTempDir(); }
std::string quote(const std::string &s) { return test::shellQuote(s); }
CliRun cli(const std::string &args) { return test::runCli(args); }

// The tiny corpus: sentence i has n = 3 + i % 6 words; every third sentence is a
// chain (word k+1 depends on word k, so the dependency depth in words is n), the
// others are flat (every word depends on the first: depth 2). The last word is
// "." (PUNCT).
bool tinyChain(int i) { return i % 3 == 0; }
int tinyLength(int i) { return 3 + i % 6; }
int tinyDepth(int i) { return tinyChain(i) ? tinyLength(i) : 2; }
constexpr int kTiny = 30;

std::string tinyCorpus()
{
    const char *words[] = {"the", "cat", "saw", "a", "dog", "near", "the", "old", "house"};
    std::ostringstream os;
    for (int i = 0; i < kTiny; ++i) {
        const int n = tinyLength(i);
        os << "# sent_id = s" << i + 1 << "\n";
        for (int k = 1; k <= n; ++k) {
            const bool last = k == n;
            const int head = k == 1 ? 0 : (tinyChain(i) ? k - 1 : 1);
            os << k << '\t' << (last ? "." : words[(i + k) % 9]) << "\t_\t" << (last ? "PUNCT" : "NOUN") << "\t_\t_\t" << head
               << '\t' << (k == 1 ? "root" : last ? "punct" : "dep") << "\t_\t_\n";
        }
        os << "\n";
    }
    return os.str();
}

std::string tinyPath()
{
    static const std::string p = [] {
        const std::string path = tempDir() + "/tiny.conllu";
        std::ofstream(path, std::ios::binary) << tinyCorpus();
        return path;
    }();
    return p;
}

json withoutTiming(json j)
{
    j.erase("timing");
    return j;
}

} // namespace

TEST(CliProbe, HelpListsTheCommand)
{
    const CliRun top = cli("--help");
    EXPECT_NE(top.out.find("probe"), std::string::npos);
    const CliRun r = cli("probe --help");
    EXPECT_EQ(r.code, 0);
    EXPECT_NE(r.out.find("--random-init"), std::string::npos);
    EXPECT_NE(r.out.find("--tree-source"), std::string::npos);
    EXPECT_NE(r.out.find("unsupervised-parsing"), std::string::npos);
    EXPECT_NE(r.out.find("--probe-device"), std::string::npos);
}

TEST(CliProbe, UnsupervisedParsingOnHandScoredTrees)
{
    // Punctuation removed, unlabelled, single words and the whole sentence ignored:
    //   The cat sat on the mat   gold (0,2) (2,6) (3,6) (4,6); right-branching 3 of 4 -> 75
    //   She left                 nothing to find either side -> 100
    //   Dogs bark and cats meow  gold (0,2) (3,5); right-branching (1,5)(2,5)(3,5): 1 -> F1 40
    // Right-branching: sentence F1 (75 + 100 + 40) / 3 = 71.67, corpus 2·4/(7+6) = 61.54.
    const std::string path = tempDir() + "/induction.mrg";
    {
        std::ofstream out(path);
        out << "( (S (NP (DT The) (NN cat)) (VP (VBD sat) (PP (IN on) (NP (DT the) (NN mat)))) (. .)) )\n"
               "( (S (NP (PRP She)) (VP (VBD left)) (. .)) )\n"
               "( (S (S (NP (NNS Dogs)) (VP (VBP bark))) (, ,) (CC and) (S (NP (NNS cats)) (VP (VBP meow))) (. .)) )\n";
    }
    const std::string f = quote(path);
    const CliRun r = cli("probe --task unsupervised-parsing --attention-on test --device cpu --json --train " + f +
                         " --dev " + f + " --test " + f);
    ASSERT_EQ(r.code, 0) << r.err;
    const json t = json::parse(r.out)["tasks"]["unsupervised-parsing"];
    EXPECT_EQ(t["sentences"], 3);
    EXPECT_EQ(t["constituency_trees"], "gold (9 sentences)"); // train, dev and test are the same file
    EXPECT_EQ(t["all"]["right_branching"]["sentence_f1"], 71.67);
    EXPECT_EQ(t["all"]["right_branching"]["corpus_f1"], 61.54);
    EXPECT_EQ(t["all"]["left_branching"]["sentence_f1"], 55.0);
    EXPECT_TRUE(t["all"].contains("model"));
    EXPECT_EQ(t["by_start_layer"].size(), 4u); // the shipped model's 4 layers
    // Start layers numbered from 1; the model's own parse settings, the ones
    // eval-induction uses on the same trees, with the same score.
    EXPECT_EQ(t["by_start_layer"][0]["start_layer"], 1);
    EXPECT_EQ(t["by_start_layer"][3]["start_layer"], 4);
    const CliRun e = cli("eval-induction --device cpu --json --gold " + f);
    ASSERT_EQ(e.code, 0) << e.err;
    const json eval = json::parse(e.out);
    EXPECT_EQ(t["config"], eval["config"]);
    EXPECT_EQ(t["all"]["model"]["sentence_f1"], eval["all"]["model"]["sentence_f1"]);
}

TEST(CliProbe, JsonShapeAndDeterminism)
{
    const std::string args = "probe --task sentlen,treedepth,head-accuracy,structural-depth --train " + quote(tinyPath()) +
                             " --layers embeddings,2 --pooling both --epochs 3 --depth-min-count 1 --device cpu --json";
    const CliRun a = cli(args);
    ASSERT_EQ(a.code, 0) << a.err;
    const CliRun b = cli(args);
    ASSERT_EQ(b.code, 0) << b.err;
    const json ja = json::parse(a.out), jb = json::parse(b.out);
    ASSERT_TRUE(ja.contains("timing"));
    // Two runs: the same report byte for byte once the timings are set aside.
    EXPECT_EQ(withoutTiming(ja).dump(), withoutTiming(jb).dump());

    // Top level.
    for (const char *k : {"command", "model", "settings", "data", "tasks", "timing"})
        EXPECT_TRUE(ja.contains(k)) << k;
    EXPECT_NE(ja["command"].get<std::string>().find("--task sentlen,treedepth"), std::string::npos);
    EXPECT_EQ(ja["layer_numbering"], "1-based");
    EXPECT_EQ(ja["settings"]["layers"], json::array({"embeddings", 2}));
    EXPECT_EQ(ja["settings"]["pooling"], json::array({"cls", "mean"}));
    EXPECT_EQ(ja["settings"]["probe_device"], "cpu"); // auto = where the encoder runs (--device cpu)
    const int L = ja["model"]["layers"].get<int>(), H = ja["model"]["heads"].get<int>();
    ASSERT_GT(L, 2);

    // Seeded split of 30 sentences: llround(24) train, llround(3) dev, the rest test.
    const auto &d = ja["data"];
    EXPECT_EQ(d["split"], "seeded 0.8/0.1/0.1 seed=1");
    EXPECT_EQ(d["sentences"]["corpus"], kTiny);
    EXPECT_EQ(d["sentences"]["train"], 24);
    EXPECT_EQ(d["sentences"]["dev"], 3);
    EXPECT_EQ(d["sentences"]["test"], 3);
    EXPECT_EQ(d["constituency_trees"], "none (not needed)"); // nothing asked for them: no parsing
    EXPECT_EQ(d["dependency_trees"], "gold (30 sentences)");

    const SplitIndices split = seededSplit(kTiny, 0.8, 0.1, 1);

    // sentlen: regression, per layer per pooling; the mean baseline predicts the
    // mean train length (computed here from the corpus definition).
    const auto &sl = ja["tasks"]["sentlen"];
    EXPECT_EQ(sl["kind"], "sentence");
    EXPECT_TRUE(sl["regression"].get<bool>());
    EXPECT_EQ(sl["examples"]["train"], 24);
    EXPECT_EQ(sl["examples"]["test"], 3);
    double trainMean = 0;
    for (int i : split.train)
        trainMean += tinyLength(i);
    trainMean /= static_cast<double>(split.train.size());
    EXPECT_NEAR(sl["baselines"]["mean"]["prediction"].get<double>(), trainMean, 1e-4);
    ASSERT_EQ(sl["layers"].size(), 2u);
    for (const auto &layer : sl["layers"]) {
        for (const char *p : {"cls", "mean"}) {
            const auto &m = layer[p];
            ASSERT_TRUE(m.contains("test")) << p;
            EXPECT_TRUE(m["test"]["mse"].is_number());
            EXPECT_TRUE(m["test"]["r2"].is_number());
            EXPECT_EQ(m["epochs"], 3);
            EXPECT_EQ(m["curve"]["train_loss"].size(), 3u);
            EXPECT_GE(m["best_epoch"].get<int>(), 1);
        }
    }
    EXPECT_EQ(sl["layers"][0]["layer"], "embeddings");
    EXPECT_EQ(sl["layers"][1]["layer"], 2);

    // treedepth on the dependency trees (the input has no constituency trees):
    // classes = the depths seen in train; the majority baseline's accuracy is the
    // test share of the most frequent train depth.
    const auto &td = ja["tasks"]["treedepth"];
    EXPECT_EQ(td["tree"].get<std::string>().rfind("dependency", 0), 0u) << td["tree"];
    std::map<int, int> trainDepths;
    for (int i : split.train)
        ++trainDepths[tinyDepth(i)];
    std::vector<std::string> labels;
    int majority = -1, best = 0;
    for (const auto &[depth, n] : trainDepths) {
        labels.push_back(std::to_string(depth));
        if (n > best) {
            best = n;
            majority = depth;
        }
    }
    EXPECT_EQ(td["labels"], json(labels));
    // Test sentences whose depth is no train class are excluded ("test/rare-depth").
    int hits = 0, scored = 0;
    for (int i : split.test) {
        scored += trainDepths.count(tinyDepth(i)) ? 1 : 0;
        hits += tinyDepth(i) == majority;
    }
    ASSERT_GT(scored, 0);
    ASSERT_GT(hits, 0); // the corpus is built so that the check is not vacuous
    EXPECT_EQ(td["examples"]["test"], scored);
    EXPECT_EQ(td["examples"]["train"], 24);
    EXPECT_NEAR(td["baselines"]["majority"]["accuracy"].get<double>(), 100.0 * hits / scored, 0.01);
    EXPECT_EQ(td["baselines"]["majority"]["label"], std::to_string(majority));
    for (const auto &layer : td["layers"]) {
        const double acc = layer["mean"]["test"]["accuracy"].get<double>();
        EXPECT_GE(acc, 0.0);
        EXPECT_LE(acc, 100.0);
        EXPECT_TRUE(layer["cls"]["test"]["macro_f1"].is_number());
    }

    // head-accuracy over the whole corpus: every non-root word is one arc.
    const auto &ha = ja["tasks"]["head-accuracy"];
    EXPECT_EQ(ha["kind"], "attention");
    EXPECT_EQ(ha["sentences"], kTiny);
    ASSERT_FALSE(ha["relations"].empty());
    const auto &all = ha["relations"][0];
    EXPECT_EQ(all["relation"], "all");
    long arcs = 0;
    for (int i = 0; i < kTiny; ++i)
        arcs += tinyLength(i) - 1;
    EXPECT_EQ(all["count"], arcs);
    ASSERT_EQ(all["dep_to_head"].size(), static_cast<std::size_t>(L));
    EXPECT_EQ(all["dep_to_head"][0].size(), static_cast<std::size_t>(H));
    EXPECT_EQ(all["head_to_dep"].size(), static_cast<std::size_t>(L));
    // The best head is the grid's maximum.
    double gridMax = -1;
    for (const auto &row : all["dep_to_head"])
        for (const auto &v : row)
            gridMax = std::max(gridMax, v.get<double>());
    EXPECT_DOUBLE_EQ(all["best_dep_to_head"]["accuracy"].get<double>(), gridMax);
    // Relations: "all", then dep, punct (alphabetical), with their arc counts.
    ASSERT_EQ(ha["relations"].size(), 3u);
    EXPECT_EQ(ha["relations"][1]["relation"], "dep");
    EXPECT_EQ(ha["relations"][2]["relation"], "punct");
    EXPECT_EQ(ha["relations"][2]["count"], kTiny);
    // Chains: a word's head is the previous word; flat: the first word. Offset −1
    // is right for every chain arc and for word 2 of flat sentences.
    long offsetMinus1 = 0;
    for (int i = 0; i < kTiny; ++i)
        offsetMinus1 += tinyChain(i) ? tinyLength(i) - 1 : 1;
    EXPECT_EQ(all["best_offset"]["offset"], -1);
    EXPECT_NEAR(all["best_offset"]["accuracy"].get<double>(), 100.0 * offsetMinus1 / arcs, 0.01);

    // structural-depth: examples follow the split; the depth metrics are bounded.
    const auto &sd = ja["tasks"]["structural-depth"];
    EXPECT_EQ(sd["kind"], "structural");
    EXPECT_EQ(sd["examples"]["train"], 24);
    EXPECT_EQ(sd["examples"]["dev"], 3);
    EXPECT_EQ(sd["examples"]["test"], 3);
    for (const auto &layer : sd["layers"]) {
        EXPECT_EQ(layer["test"]["sentences"], 3);
        const double acc = layer["test"]["root_accuracy"].get<double>();
        EXPECT_TRUE(acc == 0.0 || std::fabs(acc - 100.0 / 3) < 0.01 || std::fabs(acc - 200.0 / 3) < 0.01 || acc == 100.0) << acc;
        EXPECT_EQ(layer["rank"], ja["model"]["d_model"]);
    }
}

TEST(CliProbe, TextTableByDefault)
{
    const CliRun r = cli("probe --task sentlen --train " + quote(tinyPath()) + " --layers 1 --pooling mean --epochs 2 --device cpu");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("sentlen (regression"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("mean R2"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("baseline: predict the train mean"), std::string::npos) << r.out;
    EXPECT_NE(r.err.find("probe: sentlen layer 1 mean"), std::string::npos) << r.err; // progress on stderr
}

TEST(CliProbe, TopConstWithoutConstituencyTreesAndParsingOffIsAClearError)
{
    const CliRun r = cli("probe --task topconst --tree-source gold --train " + quote(tinyPath()) + " --device cpu");
    EXPECT_EQ(r.code, 1);
    EXPECT_TRUE(r.out.empty());
    EXPECT_NE(r.err.find("treelens-cli: error: topconst needs constituency trees"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("--tree-source gold"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(tinyPath()), std::string::npos) << r.err;
}

TEST(CliProbe, UsageErrors)
{
    EXPECT_EQ(cli("probe --task sentlen").code, 2); // --train missing
    const CliRun unknown = cli("probe --task frobnicate --train " + quote(tinyPath()));
    EXPECT_EQ(unknown.code, 1);
    EXPECT_NE(unknown.err.find("unknown task 'frobnicate'"), std::string::npos) << unknown.err;
    const CliRun layer = cli("probe --task sentlen --layers 0,99 --train " + quote(tinyPath()) + " --device cpu");
    EXPECT_EQ(layer.code, 1);
    EXPECT_NE(layer.err.find("--layers: layer 99: the model has 4 layers (embeddings and 1..4)"), std::string::npos)
        << layer.err;
    // No machine has 100 GPUs: the probes' device is checked before any work.
    const CliRun gpu = cli("probe --task sentlen --train " + quote(tinyPath()) + " --device cpu --probe-device cuda:99");
    EXPECT_EQ(gpu.code, 1);
    EXPECT_NE(gpu.err.find("--probe-device"), std::string::npos) << gpu.err;
    const CliRun devOnly = cli("probe --task sentlen --train " + quote(tinyPath()) + " --dev " + quote(tinyPath()));
    EXPECT_EQ(devOnly.code, 1);
    EXPECT_NE(devOnly.err.find("--dev needs --test"), std::string::npos) << devOnly.err;
}

TEST(CliProbe, LayersNumberedFromOneWithTheEmbeddingsNamed)
{
    const std::string tiny = quote(tinyPath());
    const std::string common = " --train " + tiny + " --pooling mean --epochs 1 --device cpu";
    // The old spelling "0" of the embeddings still works, with a note, and gives
    // the same report as "embeddings".
    const CliRun named = cli("probe --task sentlen,attention-mst --layers embeddings,4" + common + " --json");
    ASSERT_EQ(named.code, 0) << named.err;
    EXPECT_EQ(named.err.find("old spelling"), std::string::npos) << named.err;
    const CliRun old = cli("probe --task sentlen,attention-mst --layers 0,4" + common + " --json");
    ASSERT_EQ(old.code, 0) << old.err;
    EXPECT_NE(old.err.find("treelens-cli: note: --layers: 0 is the old spelling of embeddings"), std::string::npos)
        << old.err;
    json a = withoutTiming(json::parse(named.out)), b = withoutTiming(json::parse(old.out));
    a.erase("command");
    b.erase("command");
    EXPECT_EQ(a.dump(), b.dump());
    EXPECT_EQ(a["settings"]["layers"], json::array({"embeddings", 4}));
    const json &best = a["tasks"]["attention-mst"]["best"];
    EXPECT_GE(best["layer"].get<int>(), 1);
    EXPECT_LE(best["layer"].get<int>(), 4);
    EXPECT_GE(best["head"].get<int>(), 1);

    // The text: the embeddings by name, encoder layers and heads from 1.
    const CliRun text = cli("probe --task sentlen,attention-mst --layers embeddings,4" + common);
    ASSERT_EQ(text.code, 0) << text.err;
    EXPECT_NE(text.out.find("\n  embeddings "), std::string::npos) << text.out;
    EXPECT_EQ(text.out.find("\n  0 "), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("  layer      h1      h2      h3      h4\n"), std::string::npos) << text.out;
    EXPECT_EQ(text.out.find(" h0 "), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("  best head: layer " + std::to_string(best["layer"].get<int>()) + " head " +
                            std::to_string(best["head"].get<int>()) + ", UUAS "),
              std::string::npos)
        << text.out;

    // Out of range: below 1 (no layer 0 but the old embeddings), beyond the model.
    CliRun r = cli("probe --task sentlen --layers 5" + common);
    EXPECT_EQ(r.code, 1);
    EXPECT_EQ(r.err, "treelens-cli: error: --layers: layer 5: the model has 4 layers (embeddings and 1..4)\n");
    r = cli("probe --task sentlen --layers -1" + common);
    EXPECT_EQ(r.code, 1);
    EXPECT_EQ(r.err, "treelens-cli: error: --layers: layer -1: layers are numbered from 1 (embeddings and 1..4)\n");
}

TEST(CliProbe, StructuralDistanceOnAnEwtSlice)
{
    TREELENS_REQUIRE_SHARED("data/ud-english-ewt/en_ewt-ud-dev.conllu");
    auto all = readConllu(*readFile(test::sharedPath("data/ud-english-ewt/en_ewt-ud-dev.conllu")), "dev");
    ASSERT_TRUE(all.ok()) << all.message();
    std::vector<Sentence> slice(all->begin(), all->begin() + 100);
    const std::string path = tempDir() + "/ewt100.conllu";
    std::ofstream(path, std::ios::binary) << writeConllu(slice);

    const CliRun r = cli("probe --task structural-distance --train " + quote(path) +
                         " --layers 0,2 --epochs 4 --device cpu --json");
    ASSERT_EQ(r.code, 0) << r.err;
    const json j = json::parse(r.out);
    const auto &t = j["tasks"]["structural-distance"];
    EXPECT_EQ(t["examples"]["train"], 80);
    EXPECT_EQ(t["examples"]["dev"], 10);
    EXPECT_EQ(t["examples"]["test"], 10);
    // Gold MST edges over the non-punctuation words of the test sentences,
    // counted from the corpus: a tree over n' words has n' − 1 edges.
    const SplitIndices split = seededSplit(100, 0.8, 0.1, 1);
    long edges = 0;
    for (int i : split.test) {
        long n = 0;
        for (const auto &tok : slice[static_cast<std::size_t>(i)].tokens)
            n += tok.upos != "PUNCT";
        edges += std::max(0L, n - 1);
    }
    ASSERT_EQ(t["layers"].size(), 2u);
    for (const auto &layer : t["layers"]) {
        EXPECT_EQ(layer["test"]["edges_total"], edges);
        const double uuas = layer["test"]["uuas"].get<double>();
        EXPECT_NEAR(uuas, 100.0 * layer["test"]["edges_correct"].get<double>() / static_cast<double>(edges), 0.0051);
        EXPECT_GT(uuas, 0.0);
        EXPECT_LE(uuas, 100.0);
        const double dspr = layer["test"]["dspr"].get<double>();
        EXPECT_GE(dspr, -1.0);
        EXPECT_LE(dspr, 1.0);
        EXPECT_EQ(layer["epochs"].get<int>(), static_cast<int>(layer["curve"]["train_loss"].size()));
    }
    EXPECT_EQ(j["data"]["dependency_trees"], "gold (100 sentences)");
}

TEST(CliProbe, PtbInputGetsHeadRuleDependenciesAndGoldConstituents)
{
    TREELENS_REQUIRE_SHARED("data/ptb-sample/wsj_0001.mrg");
    std::string files;
    for (int k = 1; k <= 12; ++k) {
        char name[64];
        std::snprintf(name, sizeof name, "data/ptb-sample/wsj_%04d.mrg", k);
        files += " " + quote(test::sharedPath(name));
    }
    const CliRun r = cli("probe --task topconst,structural-depth --train" + files +
                         " --layers 0 --pooling mean --epochs 2 --device cpu --json");
    ASSERT_EQ(r.code, 0) << r.err;
    const json j = json::parse(r.out);
    const std::string c = j["data"]["constituency_trees"], d = j["data"]["dependency_trees"];
    EXPECT_EQ(c.rfind("gold (", 0), 0u) << c;
    EXPECT_EQ(c.find("predicted"), std::string::npos) << c; // no parser run on a treebank
    EXPECT_NE(d.find("Collins head rules"), std::string::npos) << d;
    EXPECT_EQ(j["tasks"]["topconst"]["labels"].back(), "other");
    EXPECT_EQ(j["settings"]["tree"], "constituency");
}

TEST(CliProbe, CoreMessagesGetTheFlagNames)
{
    const std::string tiny = quote(tinyPath());
    CliRun r = cli("probe --task sentlen --depth-min-count 0 --train " + tiny);
    EXPECT_EQ(r.code, 1);
    EXPECT_EQ(r.err, "treelens-cli: error: --depth-min-count must be at least 1\n");
    r = cli("probe --task sentlen --encoder-batch 0 --train " + tiny);
    EXPECT_EQ(r.err, "treelens-cli: error: --encoder-batch must be at least 1\n");
    r = cli("probe --task sentlen --layers embeddings,x --train " + tiny + " --device cpu");
    EXPECT_EQ(r.err, "treelens-cli: error: --layers: 'x' is not a layer (expected all, or a list such as embeddings,2,4)\n");
    r = cli("probe --task treedepth,topconst --tree constituency --tree-source gold --device cpu --train " + tiny);
    EXPECT_EQ(r.code, 1);
    EXPECT_EQ(r.err, "treelens-cli: error: topconst, treedepth (--tree constituency) needs constituency trees, and " +
                         tinyPath() + " has none; --tree-source gold turns off predicting them with the neural parser "
                                      "(drop --tree-source gold, or give a PTB treebank)\n");
}

namespace {

std::string probingData(const std::string &name) { return test::testData("probing/" + name); }

} // namespace

TEST(CliProbe, TablesAsTheScriptPrintedThem)
{
    // tables-*.md: what scripts/probing_tables.py printed before it ran probe-tables
    // (tests/data/probing/make_fixtures.sh), the embedding layer named
    // "(embeddings)" where it printed "(0)". The reports are of that version
    // (layers counted from 0): probe-tables still reads them.
    const CliRun named = cli("probe-tables tree=" + quote(probingData("tiny-tree.json")) + "+" +
                             quote(probingData("tiny-tree-induction.json")) + " plain=" + quote(probingData("tiny-plain.json")));
    ASSERT_EQ(named.code, 0) << named.err;
    EXPECT_EQ(named.out, *readFile(probingData("tables-named.md")));
    // The dock's export: one column group per model, named by the model; exports
    // come before named reports.
    const std::string out = tempDir() + "/tables.md";
    const CliRun exported = cli("probe-tables " + quote(probingData("tiny-models.json")) + " -o " + quote(out));
    ASSERT_EQ(exported.code, 0) << exported.err;
    EXPECT_TRUE(exported.out.empty());
    EXPECT_EQ(*readFile(out), *readFile(probingData("tables-export.md")));

    const CliRun missing = cli("probe-tables x=/nonexistent/report.json");
    EXPECT_EQ(missing.code, 1);
    EXPECT_NE(missing.err.find("/nonexistent/report.json"), std::string::npos) << missing.err;
    const CliRun notReport = cli("probe-tables x=" + quote(tinyPath()));
    EXPECT_EQ(notReport.code, 1);
    EXPECT_NE(notReport.err.find("not JSON"), std::string::npos) << notReport.err;
    EXPECT_EQ(cli("probe-tables").code, 2);
}

TEST(CliProbe, TheTablesScriptRunsProbeTables)
{
    if (std::system("python3 -c '' 2>/dev/null") != 0)
        GTEST_SKIP() << "SKIPPED: no python3";
    const std::string out = tempDir() + "/script.md";
    const std::string cmd = "TREELENS_CLI=" + quote(TREELENS_CLI) + " python3 " +
                            quote(std::string(TREELENS_SOURCE_DIR) + "/scripts/probing_tables.py") + " " +
                            quote(probingData("tiny-models.json")) + " >" + quote(out);
    ASSERT_EQ(std::system(cmd.c_str()), 0);
    EXPECT_EQ(*readFile(out), *readFile(probingData("tables-export.md")));
}

TEST(CliProbe, RunsOnTheDependencyTransformerWithItsGoldTrees)
{
    // The Dependency-Transformer reads each sentence's own tree (the CoNLL-U file's gold trees here):
    // the sentence and structural probes read its layer states, head-accuracy its 3 x 4 attention grid.
    const std::string dt = std::string(TREELENS_SOURCE_DIR) + "/resources/models/dependency-transformer-en-polarity.safetensors";
    const CliRun r = cli("probe --task sentlen,head-accuracy,structural-depth --train " + quote(tinyPath()) + " --model " +
                         quote(dt) + " --epochs 3 --device cpu --json");
    ASSERT_EQ(r.code, 0) << r.err;
    const json j = json::parse(r.out);
    EXPECT_EQ(j["model"]["family"], "dependency-transformer");
    EXPECT_NE(r.err.find("dependency trees: gold"), std::string::npos) << r.err;
    const auto &all = j["tasks"]["head-accuracy"]["relations"][0];
    long arcs = 0;
    for (int i = 0; i < kTiny; ++i)
        arcs += tinyLength(i) - 1;
    EXPECT_EQ(all["count"], arcs);
    ASSERT_EQ(all["dep_to_head"].size(), 3u);
    EXPECT_EQ(all["dep_to_head"][0].size(), 4u);
    // Layer states: embeddings and the three layers.
    const auto &sentlen = j["tasks"]["sentlen"];
    ASSERT_TRUE(sentlen.contains("layers")) << sentlen.dump().substr(0, 400);
    EXPECT_EQ(sentlen["layers"].size(), 4u);
    EXPECT_EQ(j["tasks"]["structural-depth"]["layers"].size(), 4u);
}

TEST(CliProbe, RunsOnTheShippedRecursiveModelsNodeStates)
{
    // The recursive DTT + edges (dependency, gold trees) and a Tree-LSTM with attention: the
    // sentence and structural probes read layer 0 (each word as a leaf) and layer 1 (its node state).
    for (const char *model : {"dtt-edges-en-polarity", "tree-lstm-attention-en-rte"}) {
        const std::string path = std::string(TREELENS_SOURCE_DIR) + "/resources/models/" + model + ".safetensors";
        const CliRun r = cli("probe --task sentlen,structural-depth --train " + quote(tinyPath()) + " --model " + quote(path) +
                             " --epochs 2 --device cpu --json");
        ASSERT_EQ(r.code, 0) << model << ": " << r.err;
        const json j = json::parse(r.out);
        EXPECT_EQ(j["model"]["family"], "recursive-tree-transformer") << model;
        EXPECT_NE(r.err.find("dependency trees: gold"), std::string::npos) << r.err;
        ASSERT_TRUE(j["tasks"]["sentlen"].contains("layers")) << model;
        EXPECT_EQ(j["tasks"]["sentlen"]["layers"].size(), 2u) << model; // the leaves and the node states
    }
}

// Issue 32: Clark et al.'s per-relation head accuracy on a Hugging Face BERT folder
// opened in place: the table over its 3 x 4 heads, both directions, the best fixed
// offset, and every arc of the gold trees counted once.
TEST(CliProbe, HeadAccuracyOnAHuggingFaceFolder)
{
    TREELENS_REQUIRE_SHARED("fixtures/hf-transformers-reference/bert-tiny-random");
    const std::string model = test::sharedPath("fixtures/hf-transformers-reference/bert-tiny-random");
    const std::string gold = test::testData("conformance/gold.conllu");
    // The arcs of the gold trees (every word but the root), counted from the file.
    int arcs = 0, sentences = 0;
    std::ifstream in(gold);
    for (std::string line; std::getline(in, line);) {
        if (line.empty())
            ++sentences;
        if (line.empty() || line[0] == '#')
            continue;
        std::vector<std::string> cols;
        std::stringstream ss(line);
        for (std::string c; std::getline(ss, c, '\t');)
            cols.push_back(c);
        if (cols.size() >= 7 && cols[0].find_first_of("-.") == std::string::npos && cols[6] != "0")
            ++arcs;
    }
    const CliRun r = cli("probe --task head-accuracy --json --model " + quote(model) + " --train " + quote(gold) + " --test " +
                         quote(gold));
    ASSERT_EQ(r.code, 0) << r.err;
    const json j = json::parse(r.out);
    const json &ha = j.at("tasks").at("head-accuracy");
    EXPECT_EQ(ha.at("attention"), "softmax attention");
    EXPECT_EQ(ha.at("layers"), 3);
    EXPECT_EQ(ha.at("heads"), 4);
    const json &all = ha.at("relations").at(0);
    EXPECT_EQ(all.at("relation"), "all");
    EXPECT_EQ(all.at("count").get<int>(), 2 * arcs); // train and test are the same file: the whole corpus, twice
    EXPECT_EQ(all.at("dep_to_head").size(), 3u);
    EXPECT_EQ(all.at("head_to_dep").at(0).size(), 4u);
    EXPECT_TRUE(all.at("best_offset").contains("offset"));
    bool det = false;
    for (const auto &rel : ha.at("relations"))
        det = det || rel.at("relation") == "det";
    EXPECT_TRUE(det);
    const CliRun text = cli("probe --task head-accuracy --model " + quote(model) + " --train " + quote(gold) + " --test " + quote(gold));
    ASSERT_EQ(text.code, 0) << text.err;
    EXPECT_NE(text.out.find("best offset"), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("pretrained-transformer"), std::string::npos) << text.out;
    EXPECT_EQ(ha.at("relation_subtypes"), "folded");
    EXPECT_NE(text.out.find("subtypes folded (nsubj:pass counted as nsubj"), std::string::npos) << text.out;

    // Issue 47 (item 9): subtypes folded or kept, said either way. The relations of a
    // hand-written treebank with two subtype arcs (nmod:poss, acl:relcl), read from the file:
    // kept, the rows are exactly its relations; folded, the subtypes are gone.
    const std::string sub = test::testData("ui/agreement.conllu");
    std::set<std::string> relations{"all"}, folded{"all"};
    std::ifstream subIn(sub);
    for (std::string line; std::getline(subIn, line);) {
        std::vector<std::string> cols;
        std::stringstream ss(line);
        for (std::string c; std::getline(ss, c, '\t');)
            cols.push_back(c);
        if (cols.size() == 10 && line[0] != '#' && cols[6] != "0") {
            relations.insert(cols[7]);
            folded.insert(cols[7].substr(0, cols[7].find(':')));
        }
    }
    ASSERT_NE(relations, folded) << "the file has no subtype";
    for (const bool keep : {true, false}) {
        const CliRun k = cli("probe --task head-accuracy --json --model " + quote(model) + " --train " + quote(sub) +
                             " --test " + quote(sub) + (keep ? " --relation-subtypes keep" : ""));
        ASSERT_EQ(k.code, 0) << k.err;
        const json kj = json::parse(k.out).at("tasks").at("head-accuracy");
        EXPECT_EQ(kj.at("relation_subtypes"), keep ? "kept" : "folded");
        std::set<std::string> rows;
        for (const auto &rel : kj.at("relations"))
            rows.insert(rel.at("relation").get<std::string>());
        EXPECT_EQ(rows, keep ? relations : folded);
    }
}
