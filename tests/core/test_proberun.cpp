// One probing run (core/probing/proberun.h), the code behind `treelens-cli probe`
// and the GUI probing panel. Expectations are counted by hand from the
// configuration (epochs × layers × poolings curve points, the tasks in canonical
// order) or are invariances that must hold whatever the numbers: a seeded run
// repeats exactly, sentences given in memory give the same report as the same
// sentences read from a file, and the in-memory attention results are those of
// the JSON report.

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/encoders/encoder.h"
#include "core/encoders/common/randominit.h"
#include "core/eval/inductioneval.h"
#include "core/formats/corpus.h"
#include "core/probing/probejson.h"
#include "core/probing/proberun.h"
#include "core/probing/runreport.h"
#include "testutil.h"

using namespace treelens;
using nlohmann::json;

namespace {

const char *kDev = "data/ud-english-ewt/en_ewt-ud-dev.conllu";

/// The first `n` sentences of EWT dev, copied verbatim to a file of their own.
std::string ewtSliceFile(std::size_t n, const std::string &name)
{
    std::ifstream in(test::sharedPath(kDev));
    const std::string path = ::testing::TempDir() + "/" + name;
    std::ofstream out(path);
    std::string line;
    std::size_t done = 0;
    while (done < n && std::getline(in, line)) {
        out << line << "\n";
        if (line.empty())
            ++done;
    }
    return path;
}

std::vector<Sentence> readSlice(const std::string &path)
{
    auto r = readCorpusFile(path, CorpusFormat::Conllu);
    EXPECT_TRUE(r.ok()) << r.message();
    return r.ok() ? std::move(*r) : std::vector<Sentence>{};
}

ProbeRunConfig smallConfig(const std::string &model)
{
    ProbeRunConfig c;
    c.tasks = "sentlen,structural-depth,head-accuracy";
    c.model = model;
    c.layers = "0,2";
    c.pooling = "both";
    c.epochs = 3;
    c.patience = 0; // never stop early: exactly 3 epochs per probe
    c.device = "cpu";
    c.threads = 1;
    c.commandLine = "test";
    return c;
}

json withoutTiming(const std::string &text)
{
    json j = json::parse(text);
    j.erase("timing");
    return j;
}

} // namespace

TEST(ProbeRun, CurvesTasksAndDeterminism)
{
    TREELENS_REQUIRE_SHARED(kDev);
    const std::string model = findShippedModel("tree-transformer-en-small.safetensors");
    if (model.empty())
        GTEST_SKIP() << "SKIPPED: tree-transformer-en-small.safetensors is not installed";
    ProbeRunConfig config = smallConfig(model);
    const std::string path = ewtSliceFile(60, "proberun_slice60.conllu");
    config.trainSentences = readSlice(path);
    ASSERT_EQ(config.trainSentences.size(), 60u);

    // (task, variant, layer, pooling) -> epochs seen, in order.
    std::map<std::tuple<std::string, std::string, int, std::string>, std::vector<int>> epochs;
    std::vector<std::string> finished, progress;
    ProbeRunCallbacks cb;
    cb.curve = [&](const ProbeCurvePoint &p) { epochs[{p.task, p.variant, p.layer, p.pooling}].push_back(p.epoch); };
    cb.taskFinished = [&](const std::string &t) { finished.push_back(t); };
    cb.progress = [&](const std::string &line) { progress.push_back(line); };
    auto first = runProbes(config, cb);
    ASSERT_TRUE(first.ok()) << first.message();

    // The shipped model has a [CLS] token: pooling both = cls and mean. sentlen:
    // 2 layers × 2 poolings; structural-depth: 2 layers; 3 epochs each, 1, 2, 3.
    const std::vector<int> oneTwoThree = {1, 2, 3};
    EXPECT_EQ(epochs.size(), 2u * 2u + 2u);
    for (int layer : {0, 2}) {
        for (const char *pooling : {"cls", "mean"})
            EXPECT_EQ((epochs[{"sentlen", "", layer, pooling}]), oneTwoThree) << layer << " " << pooling;
        EXPECT_EQ((epochs[{"structural-depth", "", layer, ""}]), oneTwoThree) << layer;
    }
    EXPECT_EQ(finished, (std::vector<std::string>{"sentlen", "structural-depth", "head-accuracy"}));
    EXPECT_FALSE(progress.empty());

    const json j = json::parse(probeReportJson(*first));
    EXPECT_EQ(j["command"], "test");
    EXPECT_EQ(j["settings"]["layers"], (json{"embeddings", 2})); // the embedding layer by name
    EXPECT_EQ(j["tasks"]["sentlen"]["layers"][0]["cls"]["epochs"], 3);
    EXPECT_EQ(j["tasks"]["sentlen"]["layers"][0]["cls"]["curve"]["train_loss"].size(), 3u);
    // 60 sentences cut 0.8/0.1/0.1.
    EXPECT_EQ(j["data"]["sentences"]["corpus"], 60);
    EXPECT_EQ(j["data"]["sentences"]["train"], 48);
    EXPECT_EQ(j["data"]["sentences"]["test"], 6);

    // The attention results in memory are those of the report: one id per scored
    // sentence (every sentence here has a valid tree: all 60).
    ASSERT_TRUE(first->attention.headAccuracy.has_value());
    EXPECT_EQ(j["tasks"]["head-accuracy"]["sentences"], 60);
    ASSERT_EQ(first->attention.sentenceIds.at("head-accuracy").size(), 60u);
    EXPECT_EQ(first->attention.sentenceIds.at("head-accuracy")[0], config.trainSentences[0].id);
    EXPECT_FALSE(first->attention.attentionMst.has_value());
    const auto *all = first->attention.headAccuracy->find("all");
    ASSERT_NE(all, nullptr);
    EXPECT_EQ(j["tasks"]["head-accuracy"]["layers"], all->depToHead.layers);

    // The structural probe's predictions for the viewer: every probed layer, the
    // test sentences of the report, gold depths and roots from the gold heads.
    ASSERT_EQ(first->structural.count("structural-depth"), 1u);
    const ProbeRunStructural &view = first->structural.at("structural-depth");
    EXPECT_EQ(view.kind, StructuralProbeKind::Depth);
    ASSERT_EQ(view.byLayer.size(), 2u);
    EXPECT_EQ(view.byLayer.count(0) + view.byLayer.count(2), 2u);
    const json &depthTask = j["tasks"]["structural-depth"];
    EXPECT_EQ(static_cast<long>(view.sentences.size()), depthTask["examples"]["test"].get<long>());
    // Best layer = lowest dev loss, as scripts/probing_tables.py picks it.
    const int bestByDev = depthTask["layers"][0]["dev"]["loss"].get<double>() <= depthTask["layers"][1]["dev"]["loss"].get<double>() ? 0 : 2;
    EXPECT_EQ(view.bestLayer, bestByDev);
    for (const auto &[layer, results] : view.byLayer) {
        ASSERT_EQ(results.size(), view.sentences.size()) << layer;
        for (std::size_t i = 0; i < results.size(); ++i) {
            const Sentence &s = view.sentences[i];
            ASSERT_TRUE(s.dependency.has_value());
            EXPECT_EQ(results[i].sentence, static_cast<int>(i));
            EXPECT_EQ(results[i].length, static_cast<int>(s.tokens.size()));
            ASSERT_EQ(results[i].gold.size(), s.tokens.size());
            ASSERT_EQ(results[i].predicted.size(), s.tokens.size());
            // Depth = hops to the root, walked here from the CoNLL-U heads.
            const auto &heads = s.dependency->heads;
            for (std::size_t w = 0; w < heads.size(); ++w) {
                int depth = 0;
                for (int h = heads[w]; h != 0; h = heads[static_cast<std::size_t>(h - 1)])
                    ++depth;
                EXPECT_EQ(results[i].gold[w], depth) << s.id << " word " << w;
                if (heads[w] == 0) {
                    EXPECT_EQ(results[i].goldRoot, static_cast<int>(w)) << s.id;
                }
            }
        }
    }

    // Seeded: a second run gives the same report apart from timings.
    auto second = runProbes(config);
    ASSERT_TRUE(second.ok()) << second.message();
    EXPECT_EQ(withoutTiming(probeReportJson(*first)), withoutTiming(probeReportJson(*second)));
    auto stripTime = [](std::string t) { return t.substr(0, t.rfind("\ntime: ")); };
    EXPECT_EQ(stripTime(probeReportText(*first)), stripTime(probeReportText(*second)));

    // The same sentences from a file (what the CLI reads) give the same numbers.
    ProbeRunConfig fromFile = smallConfig(model);
    fromFile.train = {path};
    auto third = runProbes(fromFile);
    ASSERT_TRUE(third.ok()) << third.message();
    json a = withoutTiming(probeReportJson(*first)), b = withoutTiming(probeReportJson(*third));
    a["data"].erase("files");
    b["data"].erase("files");
    EXPECT_EQ(a, b);
}

TEST(ProbeRun, UnsupervisedParsingAgainstHandScoredBaselines)
{
    const std::string model = findShippedModel("tree-transformer-en-small.safetensors");
    if (model.empty())
        GTEST_SKIP() << "SKIPPED: tree-transformer-en-small.safetensors is not installed";
    // Three gold trees. Without punctuation, unlabelled, whole sentence and single
    // words ignored:
    //   The cat sat on the mat      gold (0,2) (2,6) (3,6) (4,6)
    //   She left                    gold none
    //   Dogs bark and cats meow     gold (0,2) (3,5)
    // Right-branching (1,n)...(n-2,n): 3/4 matched -> 75; none vs none -> 100;
    // (1,5)(2,5)(3,5) vs 2 gold, 1 match -> P 1/3 R 1/2 F1 40.
    // Left-branching (0,2)...(0,n-1): 1/4 -> 25; 100; (0,2)(0,3)(0,4): 1 match -> 40.
    const std::string path = ::testing::TempDir() + "/proberun_induction.mrg";
    {
        std::ofstream out(path);
        out << "( (S (NP (DT The) (NN cat)) (VP (VBD sat) (PP (IN on) (NP (DT the) (NN mat)))) (. .)) )\n"
               "( (S (NP (PRP She)) (VP (VBD left)) (. .)) )\n"
               "( (S (S (NP (NNS Dogs)) (VP (VBP bark))) (, ,) (CC and) (S (NP (NNS cats)) (VP (VBP meow))) (. .)) )\n";
    }
    ProbeRunConfig config;
    config.tasks = "parsing-f1"; // an alias
    config.model = model;
    config.train = {path};
    config.dev = {path};
    config.test = {path};
    config.attentionOn = "test";
    config.device = "cpu";
    config.threads = 1;
    auto r = runProbes(config);
    ASSERT_TRUE(r.ok()) << r.message();
    ASSERT_TRUE(r->induction.has_value());
    const ProbeRunInduction &ind = *r->induction;
    EXPECT_TRUE(ind.applicable);
    ASSERT_EQ(ind.sentenceIds.size(), 3u);
    EXPECT_EQ(ind.words[0], (std::vector<std::string>{"The", "cat", "sat", "on", "the", "mat"}));
    EXPECT_EQ(ind.gold[0], (std::vector<std::pair<int, int>>{{0, 2}, {2, 6}, {3, 6}, {4, 6}}));
    EXPECT_TRUE(ind.gold[1].empty());
    EXPECT_EQ(ind.gold[2], (std::vector<std::pair<int, int>>{{0, 2}, {3, 5}}));
    const InductionScore &right = ind.report.all.right, &left = ind.report.all.left;
    ASSERT_EQ(right.perSentence.size(), 3u);
    EXPECT_NEAR(right.perSentence[0], 75.0, 1e-9);
    EXPECT_NEAR(right.perSentence[1], 100.0, 1e-9);
    EXPECT_NEAR(right.perSentence[2], 40.0, 1e-9);
    EXPECT_NEAR(right.sentenceF1, (75.0 + 100.0 + 40.0) / 3, 1e-9);
    EXPECT_NEAR(right.corpusF1, 100.0 * 8 / 13, 1e-9); // 4 matched, 7 predicted, 6 gold
    EXPECT_NEAR(left.perSentence[0], 25.0, 1e-9);
    EXPECT_NEAR(left.sentenceF1, (25.0 + 100.0 + 40.0) / 3, 1e-9);
    EXPECT_NEAR(left.corpusF1, 100.0 * 4 / 13, 1e-9);
    // The model's scores are those of `eval-induction` reading the same file.
    DeviceConfig dc;
    dc.device = "cpu";
    dc.threads = 1;
    auto enc = loadEncoder(model, dc);
    ASSERT_TRUE(enc.ok()) << enc.message();
    // With the model's own parse settings, as the probe uses them.
    auto direct = evaluateInduction(**enc, {path}, (*enc)->info().induction);
    ASSERT_TRUE(direct.ok()) << direct.message();
    EXPECT_DOUBLE_EQ(ind.report.all.model.sentenceF1, direct->all.model.sentenceF1);
    EXPECT_DOUBLE_EQ(ind.report.all.model.corpusF1, direct->all.model.corpusF1);
    ASSERT_EQ(ind.report.byStartLayer.size(), direct->byStartLayer.size());
    ASSERT_EQ(ind.predicted.size(), 3u);
    const json j = json::parse(probeReportJson(*r))["tasks"]["unsupervised-parsing"];
    EXPECT_EQ(j["sentences"], 3);
    EXPECT_EQ(j["applicable"], true);
    EXPECT_EQ(j["all"]["right_branching"]["corpus_f1"], 61.54);
    EXPECT_EQ(j["worst_sentences"].size(), 3u);

    // A plain Transformer (constituent prior off) induces nothing: baselines only.
    const std::string plain = findShippedModel("transformer-en-small.safetensors");
    if (plain.empty())
        return;
    config.model = plain;
    r = runProbes(config);
    ASSERT_TRUE(r.ok()) << r.message();
    ASSERT_TRUE(r->induction.has_value());
    EXPECT_FALSE(r->induction->applicable);
    EXPECT_NE(r->induction->reason.find("constituent prior off"), std::string::npos) << r->induction->reason;
    EXPECT_NEAR(r->induction->report.all.right.corpusF1, 100.0 * 8 / 13, 1e-9);
    const json k = json::parse(probeReportJson(*r))["tasks"]["unsupervised-parsing"];
    EXPECT_FALSE(k["all"].contains("model"));
    EXPECT_FALSE(k.contains("by_start_layer"));
}

TEST(ProbeRun, ErrorsAndCancellation)
{
    TREELENS_REQUIRE_SHARED(kDev);
    const std::string model = findShippedModel("tree-transformer-en-small.safetensors");
    if (model.empty())
        GTEST_SKIP() << "SKIPPED: tree-transformer-en-small.safetensors is not installed";
    ProbeRunConfig config = smallConfig(model);
    config.trainSentences = readSlice(ewtSliceFile(20, "proberun_slice20.conllu"));

    ProbeRunConfig bad = config;
    bad.tasks = "nonsense";
    auto r = runProbes(bad);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.message().find("unknown task 'nonsense'"), std::string::npos) << r.message();

    bad = config;
    bad.layers = "99";
    r = runProbes(bad);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.message().find("layers: layer 99: the model has"), std::string::npos) << r.message();

    RunControl stop;
    stop.cancelled = [] { return true; };
    r = runProbes(config, {}, &stop);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.message().find("cancel"), std::string::npos) << r.message();
    auto uncancelled = runProbes(config);
    EXPECT_TRUE(uncancelled.ok()) << uncancelled.message();

    auto tasks = parseProbeRunTasks("link_probs, sentlen ,depth");
    ASSERT_TRUE(tasks.ok()) << tasks.message();
    EXPECT_EQ(*tasks, (std::vector<std::string>{"sentlen", "structural-depth", "link-probs"}));
}

TEST(RandomEncoderLike, SameConfigurationSeededWeights)
{
    const std::string model = findShippedModel("tree-transformer-en-small.safetensors");
    if (model.empty())
        GTEST_SKIP() << "SKIPPED: tree-transformer-en-small.safetensors is not installed";
    DeviceConfig dc;
    dc.device = "cpu";
    dc.threads = 1;
    auto trained = loadEncoder(model, dc);
    ASSERT_TRUE(trained.ok()) << trained.message();
    auto a = randomEncoderLike(model, 7, dc);
    auto b = randomEncoderLike(model, 7, dc);
    auto c = randomEncoderLike(model, 8, dc);
    ASSERT_TRUE(a.ok()) << a.message();
    ASSERT_TRUE(b.ok() && c.ok());
    const EncoderInfo &ti = (*trained)->info(), &ai = (*a)->info();
    EXPECT_EQ(ai.layers, ti.layers);
    EXPECT_EQ(ai.heads, ti.heads);
    EXPECT_EQ(ai.dModel, ti.dModel);
    // (parameters may differ: the random weights include the MLM output head,
    // which a shipped analysis model may leave out)
    EXPECT_EQ(ai.name, ti.name + " (random init, seed 7)");

    EncoderInput in;
    in.words = {"The", "cat", "sat", "."};
    AnalyzeOptions ao;
    ao.attention = false;
    ao.layerStates = true;
    auto sa = (*a)->analyze({in}, ao), sb = (*b)->analyze({in}, ao), sc = (*c)->analyze({in}, ao),
         st = (*trained)->analyze({in}, ao);
    ASSERT_TRUE(sa.ok() && sb.ok() && sc.ok() && st.ok());
    const Matrix &last = (*sa)[0].layerStates.back();
    auto same = [](const Matrix &x, const Matrix &y) {
        if (x.rows != y.rows || x.cols != y.cols)
            return false;
        for (int r = 0; r < x.rows; ++r)
            for (int k = 0; k < x.cols; ++k)
                if (x.at(r, k) != y.at(r, k))
                    return false;
        return true;
    };
    EXPECT_TRUE(same(last, (*sb)[0].layerStates.back()));  // same seed, same weights
    EXPECT_FALSE(same(last, (*sc)[0].layerStates.back())); // another seed
    EXPECT_FALSE(same(last, (*st)[0].layerStates.back())); // not the trained weights

    auto missing = randomEncoderLike("/nonexistent/model.safetensors", 1, dc);
    EXPECT_FALSE(missing.ok());
}
