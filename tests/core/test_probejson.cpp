// A probing report as JSON (core/probing/probejson.h).
//
// Reports of earlier versions: tests/data/probing/tiny-*.json were written by
// `treelens-cli probe` of commit 9afa67c (tests/data/probing/make_fixtures.sh),
// which counted the attention tasks' layers and heads and the start layers from
// 0 and probed the embeddings as layer 0. Read into the typed report and written
// again they come back numbered from 1 (docs/cli.md, "Numbering") and otherwise
// byte for byte, "timing" included; the renumbering is redone here by hand on
// the JSON. The other tests check the mapping from typed values to JSON against
// numbers worked out by hand, and that a run's JSON carries its typed values.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>

#include <nlohmann/json.hpp>

#include "core/base/fileio.h"
#include "core/encoders/encoder.h"
#include "core/probing/probejson.h"
#include "core/probing/probecompare.h"
#include "core/probing/proberun.h"
#include "probingtestdata.h"

using namespace treelens;
using nlohmann::json;

namespace {

/// An earlier version's report as today's writer numbers it: every "layer" and
/// "head" from 1, the embedding layer "embeddings", the start layers from 1 and
/// the unsupervised-parsing config as a person reads it.
json renumbered(json r)
{
    const int layers = r["model"]["layers"].get<int>();
    auto probed = [](json &layer) {
        if (layer == 0)
            layer = "embeddings";
    };
    auto plusOne = [](json &v) {
        if (v.is_number())
            v = v.get<int>() + 1;
    };
    r["layer_numbering"] = "1-based";
    for (auto &l : r["settings"]["layers"])
        probed(l);
    for (auto &t : r["tasks"]) {
        const std::string kind = t["kind"];
        if (kind == "sentence" || kind == "structural") {
            for (auto &l : t["layers"])
                probed(l["layer"]);
            if (t.contains("random_init"))
                for (auto &l : t["random_init"]["layers"])
                    probed(l["layer"]);
        } else if (kind == "attention") {
            t["layer_numbering"] = "1-based: \"layer\" and \"head\" count from 1; row i of a grid is layer i + 1, "
                                   "column j head j + 1";
            if (t.contains("relations")) // earlier versions always folded UD subtypes
                t["relation_subtypes"] = "folded";
            if (t.contains("relations"))
                for (auto &rel : t["relations"])
                    for (const char *best : {"best_dep_to_head", "best_head_to_dep"}) {
                        plusOne(rel[best]["layer"]);
                        plusOne(rel[best]["head"]);
                    }
            if (t.contains("best")) {
                plusOne(t["best"]["layer"]);
                plusOne(t["best"]["head"]);
            }
            if (t.contains("per_layer"))
                for (auto &l : t["per_layer"])
                    plusOne(l["layer"]);
        } else if (kind == "induction") {
            t["layer_numbering"] = "1-based";
            if (t.contains("by_start_layer"))
                for (auto &l : t["by_start_layer"])
                    plusOne(l["start_layer"]);
            if (t.contains("config")) {
                json &c = t["config"];
                c["start_layer"] = c["start_layer"] == -1 ? layers : c["start_layer"].get<int>() + 1;
                plusOne(c["min_layer"]);
            }
        }
    }
    return r;
}

/// A written report without what is derived from its numbers on writing (issue 47):
/// each sentence task's "notes" and each test accuracy's "accuracy_ci95" (tested by hand
/// in test_runreport.cpp), so that a report of an earlier version compares as it was.
std::string withoutDerived(const std::string &written)
{
    json j = json::parse(written);
    auto strip = [](json &report) {
        for (auto &t : report["tasks"]) {
            if (t["kind"] != "sentence")
                continue;
            t.erase("notes");
            for (json *layers : {&t["layers"], t.contains("random_init") ? &t["random_init"]["layers"] : nullptr})
                if (layers)
                    for (auto &l : *layers)
                        for (auto &[key, cell] : l.items())
                            if (cell.is_object() && cell.contains("test"))
                                cell["test"].erase("accuracy_ci95");
        }
    };
    if (j.contains("models"))
        for (auto &m : j["models"])
            strip(m);
    else
        strip(j);
    return j.dump();
}

std::string fixture(const std::string &name)
{
    auto text = readFile(test::testData("probing/" + name));
    EXPECT_TRUE(text.ok()) << text.message();
    std::string s = text.ok() ? *text : std::string();
    while (!s.empty() && s.back() == '\n')
        s.pop_back();
    return s;
}

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

/// A classification probe with numbers chosen to exercise the rounding.
ProbeResult probe(double testAccuracy, double devAccuracy, int epochs)
{
    ProbeResult r;
    r.parameters = 42;
    r.bestEpoch = 1;
    r.test.accuracy = testAccuracy;
    r.test.macroF1 = 0.5;
    r.test.loss = 1.23456;
    r.dev.accuracy = devAccuracy;
    r.dev.macroF1 = kNaN;
    r.dev.loss = -0.00001; // rounds to 0: written 0.0, never -0.0
    for (int e = 1; e <= epochs; ++e)
        r.curve.push_back(ProbeEpoch{e, 2.0 / e, kNaN, 0.25 * e});
    return r;
}

ProbeRunReport handBuilt()
{
    ProbeRunReport r;
    r.command = "treelens-cli probe";
    r.treelensVersion = "9.9";
    r.model = ProbeRunModel{"m.safetensors", "m", "fake", 2, 3, 6, 100, "cpu"};
    r.settings.tasks = {"treedepth", "constituent-mass"};
    r.settings.layers = {1};
    r.settings.poolings = {"mean"};
    r.settings.probe = "mlp";
    r.settings.control = true;
    r.settings.sentenceProbe = ProbeTrainingSettings{100, 10, 0.001, 64, 1};
    r.settings.structuralProbe = ProbeTrainingSettings{40, 5, 0.001, 20, 1};
    r.settings.structuralRank = 6;
    r.data.trainFiles = {"a.conllu"};
    r.data.testFiles = {"b.conllu"};
    r.data.split = "given";
    r.data.train = 10;
    r.data.test = 4;
    r.data.noDev = true;
    r.data.parseFailures = 5;
    r.data.parseFailureExamples = {"x:1: too long"};
    SentenceProbeTask t;
    t.name = "treedepth";
    t.labels = {"2", "3"};
    t.split = "given";
    t.examples = {10, 0, 4};
    t.labelCounts = {std::vector<long>{6, 4}, std::vector<long>{0, 0}, std::vector<long>{3, 1}};
    t.baseline.majorityLabel = "2";
    t.baseline.majorityAccuracy = 0.75;
    t.baseline.majorityMacroF1 = 2 * 0.75 / 1.75 / 2;
    t.control = true;
    SentenceProbeLayer layer{1, {}};
    SentenceProbeCell cell;
    cell.result = probe(0.123456, 0.5, 2);
    cell.control = probe(0.1, kNaN, 3);
    cell.selectivity = 2.3456; // accuracy points: 2 decimals
    layer.pooling["mean"] = cell;
    t.layers.push_back(layer);
    r.sentenceTasks.push_back(t);
    ConstituentMassReport mass;
    mass.layers = 2;
    mass.heads = 3;
    mass.mass = LayerHeadGrid(2, 3, 0.5);
    mass.baseline = LayerHeadGrid(2, 3, 0.25);
    mass.difference = LayerHeadGrid(2, 3, kNaN);
    mass.words = {3, 0, 0, 0, 0, 1};
    r.attention.constituentMass = mass;
    AttentionTaskSummary s;
    s.scope = "test split";
    s.sentences = 4;
    s.tree = "dependency";
    s.trees = "gold (14 sentences)";
    r.attention.summaries["constituent-mass"] = s; // no finite difference: no best head
    r.timing.train["treedepth"] = 0.123;
    return r;
}

} // namespace

TEST(ProbeJson, ReportsOfEarlierVersionsComeBackNumberedFromOne)
{
    for (const char *name : {"tiny-tree.json", "tiny-plain.json", "tiny-tree-induction.json", "tiny-given.json"}) {
        const std::string text = fixture(name);
        ASSERT_FALSE(text.empty()) << name;
        ASSERT_FALSE(json::parse(text).contains("layer_numbering")) << name; // an earlier version's
        auto reports = readProbeReportsJson(text, name);
        ASSERT_TRUE(reports.ok()) << reports.message();
        ASSERT_EQ(reports->size(), 1u) << name;
        const std::string written = probeReportJson(reports->front());
        EXPECT_EQ(withoutDerived(written), renumbered(json::parse(text)).dump()) << name;
        // Today's JSON reads back to the same bytes.
        auto again = readProbeReportsJson(written, name);
        ASSERT_TRUE(again.ok()) << again.message();
        EXPECT_EQ(probeReportJson(again->front()), written) << name;
    }
    const std::string models = fixture("tiny-models.json");
    auto reports = readProbeReportsJson(models, "tiny-models.json");
    ASSERT_TRUE(reports.ok()) << reports.message();
    ASSERT_EQ(reports->size(), 2u);
    json expected = json::parse(models);
    for (auto &m : expected["models"])
        m = renumbered(m);
    EXPECT_EQ(withoutDerived(probeReportsJson({&(*reports)[0], &(*reports)[1]})), expected.dump());
    EXPECT_EQ((*reports)[1].model.name, "transformer-en-small");
}

TEST(ProbeJson, LayersAndHeadsNumberedFromOne)
{
    const json old = json::parse(fixture("tiny-tree.json"));
    auto reports = readProbeReportsJson(old.dump(), "tiny-tree.json");
    ASSERT_TRUE(reports.ok()) << reports.message();
    const json j = json::parse(probeReportJson(reports->front()));
    EXPECT_EQ(j["layer_numbering"], "1-based");
    // --layers 0,2: the embeddings and encoder layer 2.
    EXPECT_EQ(old["settings"]["layers"], json::parse("[0,2]"));
    EXPECT_EQ(j["settings"]["layers"], json::parse("[\"embeddings\",2]"));
    EXPECT_EQ(j["tasks"]["sentlen"]["layers"][0]["layer"], "embeddings");
    EXPECT_EQ(j["tasks"]["sentlen"]["layers"][1]["layer"], 2);
    EXPECT_EQ(j["tasks"]["structural-depth"]["random_init"]["layers"][0]["layer"], "embeddings");
    // The best head of the MST UUAS: 0-based layer 2, head 2 then; layer 3, head 3 now.
    EXPECT_EQ(old["tasks"]["attention-mst"]["best"]["layer"], 2);
    EXPECT_EQ(j["tasks"]["attention-mst"]["best"]["layer"], 3);
    EXPECT_EQ(j["tasks"]["attention-mst"]["best"]["head"], 3);
    EXPECT_EQ(j["tasks"]["constituent-mass"]["best"]["layer"], 1);
    EXPECT_EQ(j["tasks"]["link-probs"]["per_layer"][0]["layer"], 1);
    EXPECT_EQ(j["tasks"]["link-probs"]["per_layer"][3]["layer"], 4);
    const json &up = j["tasks"]["unsupervised-parsing"];
    EXPECT_EQ(up["by_start_layer"][0]["start_layer"], 1);
    EXPECT_EQ(up["by_start_layer"][3]["start_layer"], 4);
    // The official setting: the top of 4 layers, never below the third.
    EXPECT_EQ(old["tasks"]["unsupervised-parsing"]["config"]["start_layer"], -1);
    EXPECT_EQ(up["config"], json::parse(R"({"descend":0.7,"min_layer":3,"start_layer":4,"threshold":0.8})"));
    // The typed report keeps indices: the config is the file's 0-based one again.
    EXPECT_EQ(reports->front().induction->report.config.minLayer, 2);
    for (const auto &[name, task] : j["tasks"].items())
        if (task["kind"] == "attention") {
            EXPECT_EQ(task["layer_numbering"].get<std::string>().rfind("1-based", 0), 0u) << name;
        }
    // Nothing numbers a layer or head 0 any more.
    std::function<void(const json &, const std::string &)> noZero = [&](const json &v, const std::string &path) {
        if (v.is_object()) {
            for (const auto &[k, x] : v.items()) {
                if ((k == "layer" || k == "head" || k == "start_layer" || k == "min_layer") && x.is_number()) {
                    EXPECT_GE(x.get<int>(), 1) << path << "/" << k;
                }
                noZero(x, path + "/" + k);
            }
        } else if (v.is_array()) {
            for (const auto &x : v)
                noZero(x, path);
        }
    };
    noZero(j, "");
}

TEST(ProbeJson, AnUnknownLayerNameIsAReadError)
{
    json j = json::parse(fixture("tiny-tree.json"));
    j["layer_numbering"] = "1-based";
    j["tasks"]["sentlen"]["layers"][0]["layer"] = "bottom";
    auto r = readProbeReportsJson(j.dump(), "n.json");
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.message(), "n.json: not a probing report: unknown layer 'bottom'");
}

TEST(ProbeJson, TypedValuesAsTheJsonWritesThem)
{
    const json j = json::parse(probeReportJson(handBuilt()));
    const json &td = j["tasks"]["treedepth"];
    const json &mean = td["layers"][0]["mean"];
    EXPECT_EQ(td["layers"][0]["layer"], 1);
    EXPECT_FALSE(td["layers"][0].contains("cls"));
    EXPECT_DOUBLE_EQ(mean["test"]["accuracy"].get<double>(), 12.35); // percent, 2 decimals
    EXPECT_DOUBLE_EQ(mean["test"]["loss"].get<double>(), 1.2346);    // 4 decimals
    EXPECT_TRUE(mean["dev"]["macro_f1"].is_null());                  // NaN
    EXPECT_EQ(mean["dev"]["loss"].dump(), "0.0");                    // not -0.0
    EXPECT_EQ(mean["epochs"], 2);
    EXPECT_EQ(mean["curve"]["train_loss"], json({2.0, 1.0}));
    EXPECT_EQ(mean["curve"]["dev_metric"], json({25.0, 50.0}));
    EXPECT_EQ(mean["control"]["epochs"], 3);
    EXPECT_FALSE(mean["control"].contains("curve"));
    EXPECT_DOUBLE_EQ(mean["selectivity"].get<double>(), 2.35);
    EXPECT_EQ(td["label_counts"]["test"], json({3, 1}));
    EXPECT_DOUBLE_EQ(td["baselines"]["majority"]["accuracy"].get<double>(), 75.0);
    EXPECT_EQ(td["control_task"], "labels a seeded random function of the lower-cased first word (Hewitt & Liang); "
                                  "selectivity = test accuracy points of the task minus the control");
    EXPECT_FALSE(td.contains("random_init"));
    EXPECT_FALSE(td.contains("tree"));

    const json &d = j["data"];
    EXPECT_EQ(d["note"], "no dev split: the probes keep their last epoch (no model selection, no early stopping)");
    EXPECT_EQ(d["parse_failures"], 5);
    EXPECT_EQ(d["sentences"], json({{"train", 10}, {"dev", 0}, {"test", 4}}));
    EXPECT_FALSE(j["settings"].contains("pooling_note"));
    EXPECT_EQ(j["settings"]["structural_probe"]["rank"], 6);
    EXPECT_EQ(j["settings"]["sentence_probe"]["architecture"], "mlp");

    const json &cm = j["tasks"]["constituent-mass"];
    EXPECT_FALSE(cm.contains("best")); // no finite cell
    EXPECT_EQ(cm["tree"], "dependency");
    EXPECT_EQ(cm["tree_source"], "gold (14 sentences)");
    EXPECT_FALSE(cm.contains("dependency_trees"));
    EXPECT_EQ(cm["difference"], json::parse("[[null,null,null],[null,null,null]]"));
    EXPECT_EQ(cm["mass"], json::parse("[[0.5,0.5,0.5],[0.5,0.5,0.5]]"));
    EXPECT_EQ(cm["words"], json::parse("[[3,0,0],[0,0,1]]"));
    EXPECT_EQ(cm["layers"], 2); // the model's
    EXPECT_EQ(j["timing"]["train_seconds"]["treedepth"], 0.12);
    EXPECT_FALSE(j["timing"].contains("attention_seconds"));

    // Read back: the same JSON.
    auto back = readProbeReportsJson(probeReportJson(handBuilt()), "hand");
    ASSERT_TRUE(back.ok()) << back.message();
    EXPECT_EQ(probeReportJson(back->front()), probeReportJson(handBuilt()));
}

TEST(ProbeJson, ReadErrorsNameTheSource)
{
    auto r = readProbeReportsJson("{", "x.json");
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.message(), "x.json: not JSON");
    r = readProbeReportsJson("{\"tasks\": {}}", "y.json");
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.message().rfind("y.json: not a probing report: ", 0), 0u) << r.message();
    json j = json::parse(fixture("tiny-given.json"));
    j["tasks"]["sentlen"]["kind"] = "novel";
    r = readProbeReportsJson(j.dump(), "z.json");
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.message(), "z.json: task 'sentlen' has an unknown kind 'novel'");
}

TEST(ProbeJson, ARunsJsonCarriesItsTypedValues)
{
    const std::string model = findShippedModel("tree-transformer-en-small.safetensors");
    if (model.empty())
        GTEST_SKIP() << "SKIPPED: tree-transformer-en-small.safetensors is not installed";
    ProbeRunConfig config;
    config.tasks = "sentlen,treedepth,structural-distance,head-accuracy,attention-mst";
    config.model = model;
    config.trainSentences = test::tinyCorpus();
    config.layers = "0,2";
    config.epochs = 2;
    config.depthMinCount = 1;
    config.baselines = true;
    config.device = "cpu";
    auto r = runProbes(config);
    ASSERT_TRUE(r.ok()) << r.message();
    const json j = json::parse(probeReportJson(*r));
    std::vector<std::string> tasks;
    for (const auto &[k, v] : j["tasks"].items())
        tasks.push_back(k);
    std::vector<std::string> expected = r->settings.tasks;
    std::sort(expected.begin(), expected.end());
    EXPECT_EQ(tasks, expected);
    auto same = [](const json &v, double typed) {
        return std::isnan(typed) ? v.is_null() : v.is_number() && v.get<double>() == typed;
    };
    for (const auto &t : r->sentenceTasks) {
        const json &tj = j["tasks"][t.name];
        ASSERT_EQ(tj["layers"].size(), t.layers.size()) << t.name;
        for (std::size_t i = 0; i < t.layers.size(); ++i) {
            // Probed layer 0 is the embeddings, by name.
            EXPECT_EQ(tj["layers"][i]["layer"], t.layers[i].layer == 0 ? json("embeddings") : json(t.layers[i].layer));
            for (const auto &[pooling, cell] : t.layers[i].pooling) {
                const json &pj = tj["layers"][i][pooling];
                if (t.regression) {
                    EXPECT_TRUE(same(pj["test"]["r2"], reportRounded(cell.result.test.r2, 4))) << t.name;
                    EXPECT_TRUE(same(pj["dev"]["mse"], reportRounded(cell.result.dev.mse, 4))) << t.name;
                    EXPECT_TRUE(same(pj["selectivity"], reportRounded(cell.result.test.r2 - cell.control->test.r2, 4)));
                } else {
                    EXPECT_TRUE(same(pj["test"]["accuracy"], reportPercent(cell.result.test.accuracy))) << t.name;
                    EXPECT_TRUE(same(pj["selectivity"],
                                     reportRounded(100 * (cell.result.test.accuracy - cell.control->test.accuracy), 2)));
                }
                EXPECT_EQ(pj["epochs"], cell.result.curve.size());
                const json &rj = tj["random_init"]["layers"][i][pooling];
                EXPECT_EQ(rj["best_epoch"], t.randomInitLayers[i].pooling.at(pooling).result.bestEpoch);
            }
        }
        EXPECT_EQ(tj["examples"]["test"], t.examples[2]);
    }
    const StructuralProbeTask *sd = r->structuralTask("structural-distance");
    ASSERT_NE(sd, nullptr);
    for (std::size_t i = 0; i < sd->layers.size(); ++i) {
        const json &lj = j["tasks"]["structural-distance"]["layers"][i];
        EXPECT_TRUE(same(lj["test"]["uuas"], reportPercent(sd->layers[i].result.test.uuas)));
        EXPECT_TRUE(same(lj["dev"]["loss"], reportRounded(sd->layers[i].result.dev.loss, 4)));
        EXPECT_EQ(lj["test"]["edges_total"], sd->layers[i].result.test.edgesTotal);
    }
    // The viewer's best layer is the comparison's pick.
    const int best = bestStructuralProbeLayer(sd->layers);
    EXPECT_EQ(r->structural.at("structural-distance").bestLayer, sd->layers[static_cast<std::size_t>(best)].layer);
    const auto &ha = *r->attention.headAccuracy;
    const json &hj = j["tasks"]["head-accuracy"];
    EXPECT_EQ(hj["relations"].size(), ha.relations.size());
    EXPECT_EQ(hj["sentences"], r->attention.summaries.at("head-accuracy").sentences);
    for (int l = 0; l < ha.layers; ++l)
        for (int h = 0; h < ha.heads; ++h)
            EXPECT_TRUE(same(hj["relations"][0]["dep_to_head"][l][h], reportRounded(ha.relations[0].depToHead.at(l, h), 2)));
    const auto &mst = r->attention.summaries.at("attention-mst");
    EXPECT_EQ(j["tasks"]["attention-mst"]["best"]["layer"], mst.best.layer + 1); // numbered from 1
    EXPECT_EQ(j["tasks"]["attention-mst"]["best"]["worst_sentences"], json(*mst.worstSentences));

    // One rule set: the report in memory and read back from its JSON compare alike.
    auto back = readProbeReportsJson(probeReportJson(*r), "run");
    ASSERT_TRUE(back.ok()) << back.message();
    EXPECT_EQ(probeTablesMarkdown({{"m", *r}}), probeTablesMarkdown({{"m", back->front()}}));
    EXPECT_EQ(probeReportJson(back->front()), probeReportJson(*r));
}
