// probejson: a probing report as JSON (the writer); see probejson.h. The reader
// is in probejsonread.cpp.
#include "core/probing/probejson.h"

#include <cmath>

#include <nlohmann/json.hpp>

#include "core/base/numbering.h"
#include "core/probing/probenotes.h"

namespace treelens {

namespace {

using nlohmann::json;

json rounded(double v, int digits)
{
    const double r = reportRounded(v, digits);
    return std::isnan(r) ? json(nullptr) : json(r);
}
json pct(double fraction) { return rounded(100.0 * fraction, 2); }
json r4(double v) { return rounded(v, 4); }

/// A probed layer as a person names it: "embeddings", or k for encoder layer k.
json probedLayerJson(int layer) { return layer == 0 ? json(kEmbeddingsLayerName) : json(layer); }

/// An encoder layer or head index, numbered from 1; null for none (-1).
json numbered(int index) { return index < 0 ? json(nullptr) : json(index + 1); }

const char *kAttentionNumbering = "1-based: \"layer\" and \"head\" count from 1; row i of a grid is layer i + 1, "
                                  "column j head j + 1";

json countsJson(const std::map<std::string, long> &m)
{
    json j = json::object();
    for (const auto &[k, n] : m)
        j[k] = n;
    return j;
}

json gridJson(const LayerHeadGrid &g, bool percent)
{
    json rows = json::array();
    for (int l = 0; l < g.layers; ++l) {
        json row = json::array();
        for (int h = 0; h < g.heads; ++h)
            row.push_back(percent ? rounded(g.at(l, h), 2) : r4(g.at(l, h)));
        rows.push_back(row);
    }
    return rows;
}

// ---------------------------------------------------------------------------
// Model, settings, data

json modelJson(const ProbeRunModel &m)
{
    return {{"path", m.path},         {"name", m.name},        {"family", m.family},
            {"layers", m.layers},     {"heads", m.heads},      {"d_model", m.dModel},
            {"parameters", m.parameters}, {"device", m.device}};
}

json trainingJson(const ProbeTrainingSettings &t)
{
    return {{"max_epochs", t.maxEpochs}, {"patience", t.patience}, {"learning_rate", t.learningRate},
            {"batch_size", t.batchSize}, {"threads", t.threads}};
}

json settingsJson(const ProbeRunSettings &s)
{
    json layers = json::array();
    for (int l : s.layers)
        layers.push_back(probedLayerJson(l));
    json j = {{"tasks", s.tasks},
              {"layers", layers},
              {"pooling", s.poolings},
              {"probe", s.probe},
              {"seed", s.seed},
              {"split_seed", s.splitSeed},
              {"control", s.control},
              {"random_init", s.randomInit},
              {"raw_attention", s.rawAttention},
              {"tree_source", s.treeSource},
              {"tree", s.tree},
              {"tree_reason", s.treeReason},
              {"depth_min_count", s.depthMinCount},
              {"attention_on", s.attentionOn},
              {"probe_device", s.probeDevice}};
    j["sentence_probe"] = trainingJson(s.sentenceProbe);
    j["sentence_probe"]["architecture"] = s.probe;
    j["structural_probe"] = trainingJson(s.structuralProbe);
    j["structural_probe"]["rank"] = s.structuralRank;
    if (!s.poolingNote.empty())
        j["pooling_note"] = s.poolingNote;
    return j;
}

const char *kNoDevNote = "no dev split: the probes keep their last epoch (no model selection, no early stopping)";

json dataJson(const ProbeRunData &d)
{
    json j = {{"files", {{"train", d.trainFiles}, {"dev", d.devFiles}, {"test", d.testFiles}}},
              {"split", d.split},
              {"constituency_trees", d.constituencyTrees},
              {"dependency_trees", d.dependencyTrees},
              {"excluded", countsJson(d.excluded)}};
    if (d.oneCorpus)
        j["sentences"] = {{"corpus", d.corpus}, {"train", d.train}, {"dev", d.dev}, {"test", d.test}};
    else
        j["sentences"] = {{"train", d.train}, {"dev", d.dev}, {"test", d.test}};
    if (d.parseFailures > 0) {
        j["parse_failures"] = d.parseFailures;
        j["parse_failure_examples"] = d.parseFailureExamples;
    }
    if (d.noDev)
        j["note"] = kNoDevNote;
    return j;
}

// ---------------------------------------------------------------------------
// Sentence probes

json metricsJson(const ProbeMetrics &m, bool regression)
{
    if (regression)
        return {{"mse", r4(m.mse)}, {"r2", r4(m.r2)}, {"loss", r4(m.loss)}};
    return {{"accuracy", pct(m.accuracy)}, {"macro_f1", pct(m.macroF1)}, {"loss", r4(m.loss)}};
}

json probeJson(const ProbeResult &r, bool withCurve = true)
{
    json j = {{"test", metricsJson(r.test, r.regression)},
              {"dev", metricsJson(r.dev, r.regression)},
              {"best_epoch", r.bestEpoch},
              {"epochs", r.curve.size()},
              {"stopped_early", r.stoppedEarly},
              {"parameters", r.parameters}};
    if (withCurve) {
        json curve = {{"train_loss", json::array()}, {"dev_loss", json::array()}, {"dev_metric", json::array()}};
        for (const auto &e : r.curve) {
            curve["train_loss"].push_back(r4(e.trainLoss));
            curve["dev_loss"].push_back(r4(e.devLoss));
            curve["dev_metric"].push_back(r.regression ? r4(e.devMetric) : pct(e.devMetric));
        }
        j["curve"] = curve;
    }
    return j;
}

/// The poolings a task's layers were probed with ("cls", "mean"), in the report's order.
std::vector<std::string> poolingsOf(const SentenceProbeTask &t)
{
    std::vector<std::string> out;
    if (!t.layers.empty())
        for (const auto &entry : t.layers.front().pooling)
            out.push_back(entry.first);
    return out;
}

json sentenceLayersJson(const std::vector<SentenceProbeLayer> &layers, bool regression, long testExamples)
{
    json rows = json::array();
    for (const auto &layer : layers) {
        json lj = {{"layer", probedLayerJson(layer.layer)}};
        for (const auto &[pooling, cell] : layer.pooling) {
            json pj = probeJson(cell.result);
            if (!regression) {
                const auto [lo, hi] = accuracyInterval(cell.result.test.accuracy, testExamples);
                pj["test"]["accuracy_ci95"] = {pct(lo), pct(hi)};
            }
            if (cell.control) {
                pj["control"] = probeJson(*cell.control, false);
                pj["selectivity"] = regression ? r4(cell.selectivity) : rounded(cell.selectivity, 2);
            }
            lj[pooling] = pj;
        }
        rows.push_back(lj);
    }
    return rows;
}

json sentenceTaskJson(const SentenceProbeTask &t)
{
    const bool reg = t.regression;
    json j;
    j["kind"] = "sentence";
    j["regression"] = reg;
    j["labels"] = t.labels;
    j["split"] = t.split;
    j["examples"] = {{"train", t.examples[0]}, {"dev", t.examples[1]}, {"test", t.examples[2]}};
    if (!reg)
        j["label_counts"] = {{"train", t.labelCounts[0]}, {"dev", t.labelCounts[1]}, {"test", t.labelCounts[2]}};
    j["excluded"] = countsJson(t.excluded);
    if (!t.tree.empty())
        j["tree"] = t.tree;
    const SentenceProbeBaseline &b = t.baseline;
    if (reg)
        j["baselines"]["mean"] = {{"prediction", r4(b.meanPrediction)}, {"mse", r4(b.meanMse)}, {"r2", r4(b.meanR2)}};
    else
        j["baselines"]["majority"] = {{"label", b.majorityLabel},
                                      {"accuracy", pct(b.majorityAccuracy)},
                                      {"macro_f1", pct(b.majorityMacroF1)}};
    j["layers"] = sentenceLayersJson(t.layers, reg, t.examples[2]);
    if (t.control)
        j["control_task"] = "labels a seeded random function of the lower-cased first word (Hewitt & Liang); "
                            "selectivity = test " +
                            std::string(reg ? "R2" : "accuracy points") + " of the task minus the control";
    if (t.randomInit)
        j["random_init"] = {{"seed", t.randomInitSeed}, {"layers", sentenceLayersJson(t.randomInitLayers, reg, t.examples[2])}};
    j["notes"] = sentenceTaskNotes(t, poolingsOf(t));
    return j;
}

// ---------------------------------------------------------------------------
// Structural probes

json structuralMetricsJson(const StructuralMetrics &m, StructuralProbeKind kind)
{
    if (kind == StructuralProbeKind::Distance)
        return {{"uuas", pct(m.uuas)},          {"dspr", r4(m.dspr)},         {"edges_correct", m.edgesCorrect},
                {"edges_total", m.edgesTotal}, {"sentences", m.sentences}, {"loss", r4(m.loss)}};
    return {{"root_accuracy", pct(m.rootAccuracy)}, {"nspr", r4(m.nspr)},       {"roots_correct", m.rootsCorrect},
            {"sentences", m.sentences},            {"loss", r4(m.loss)}};
}

json structuralLayersJson(const std::vector<StructuralProbeLayer> &layers)
{
    json rows = json::array();
    for (const auto &layer : layers) {
        const StructuralProbeResult &r = layer.result;
        json curve = {{"train_loss", json::array()}, {"dev_loss", json::array()}, {"dev_metric", json::array()},
                      {"learning_rate", json::array()}};
        for (const auto &e : r.curve) {
            curve["train_loss"].push_back(r4(e.trainLoss));
            curve["dev_loss"].push_back(r4(e.devLoss));
            curve["dev_metric"].push_back(pct(e.devMetric));
            curve["learning_rate"].push_back(e.learningRate);
        }
        rows.push_back({{"test", structuralMetricsJson(r.test, r.kind)},
                        {"dev", structuralMetricsJson(r.dev, r.kind)},
                        {"rank", r.rank},
                        {"best_epoch", r.bestEpoch},
                        {"epochs", r.curve.size()},
                        {"stopped_early", r.stoppedEarly},
                        {"parameters", r.parameters},
                        {"curve", curve},
                        {"layer", probedLayerJson(layer.layer)}});
    }
    return rows;
}

json structuralTaskJson(const StructuralProbeTask &t)
{
    json j = {{"kind", "structural"},
              {"examples", {{"train", t.examples[0]}, {"dev", t.examples[1]}, {"test", t.examples[2]}}},
              {"skipped", countsJson(t.skipped)},
              {"dependency_trees", t.dependencyTrees},
              {"split", t.split}};
    j["layers"] = structuralLayersJson(t.layers);
    if (t.randomInit)
        j["random_init"] = {{"seed", t.randomInitSeed}, {"layers", structuralLayersJson(t.randomInitLayers)}};
    return j;
}

// ---------------------------------------------------------------------------
// Attention

json attentionCommonJson(const AttentionTaskSummary &s, const ProbeRunModel &model)
{
    json j = {{"kind", "attention"},
              {"scope", s.scope},
              {"attention", s.attention},
              {"sentences", s.sentences},
              {"excluded", countsJson(s.excluded)},
              {"layers", model.layers},
              {"heads", model.heads},
              {"layer_numbering", kAttentionNumbering}};
    if (s.tree.empty()) {
        j["dependency_trees"] = s.trees;
    } else {
        j["tree"] = s.tree;
        j["tree_source"] = s.trees;
    }
    return j;
}

json bestCellJson(const BestCell &b)
{
    return json{{"layer", numbered(b.layer)}, {"head", numbered(b.head)}, {"accuracy", rounded(b.accuracy, 2)}};
}

json headAccuracyJson(const HeadAccuracyReport &rep, json j, const AttentionTaskSummary &s)
{
    json rels = json::array();
    for (const auto &rel : rep.relations)
        rels.push_back({{"relation", rel.relation},
                        {"count", rel.count},
                        {"dep_to_head", gridJson(rel.depToHead, true)},
                        {"head_to_dep", gridJson(rel.headToDep, true)},
                        {"best_dep_to_head", bestCellJson(rel.bestDepToHead)},
                        {"best_head_to_dep", bestCellJson(rel.bestHeadToDep)},
                        {"best_offset", {{"offset", rel.bestOffset.offset}, {"accuracy", rounded(rel.bestOffset.accuracy, 2)}}}});
    j["relations"] = rels;
    j["relation_subtypes"] = rep.subtypesKept ? "kept" : "folded";
    if (s.worstSentences)
        j["worst_sentences_best_dep_to_head"] = *s.worstSentences;
    return j;
}

json attentionMstJson(const UuasReport &rep, json j, const AttentionTaskSummary &s)
{
    json means = json::array();
    for (double v : rep.layerMean)
        means.push_back(rounded(v, 2));
    j["uuas"] = gridJson(rep.uuas, true);
    j["layer_mean_uuas"] = means;
    j["edges"] = rep.edges;
    j["skipped_one_word"] = rep.skipped;
    j["best"] = {{"layer", numbered(s.best.layer)}, {"head", numbered(s.best.head)}, {"uuas", rounded(s.best.accuracy, 2)}};
    if (s.worstSentences)
        j["best"]["worst_sentences"] = *s.worstSentences;
    return j;
}

json constituentMassJson(const ConstituentMassReport &rep, json j, const AttentionTaskSummary &s)
{
    json words = json::array();
    for (int l = 0; l < rep.layers; ++l) {
        json row = json::array();
        for (int h = 0; h < rep.heads; ++h)
            row.push_back(rep.words[static_cast<std::size_t>(l * rep.heads + h)]);
        words.push_back(row);
    }
    j["mass"] = gridJson(rep.mass, false);
    j["baseline"] = gridJson(rep.baseline, false);
    j["difference"] = gridJson(rep.difference, false);
    j["words"] = words;
    j["skipped_words"] = rep.skippedWords;
    const BestCell &b = s.best;
    if (b.layer >= 0)
        j["best"] = {{"layer", numbered(b.layer)},
                     {"head", numbered(b.head)},
                     {"difference", r4(b.accuracy)},
                     {"mass", r4(rep.mass.at(b.layer, b.head))},
                     {"baseline", r4(rep.baseline.at(b.layer, b.head))},
                     {"worst_sentences", s.worstSentences ? *s.worstSentences : std::vector<std::string>{}}};
    return j;
}

json linkProbsJson(const LinkProbabilityReport &rep, json j)
{
    json per = json::array();
    for (int l = 0; l < rep.layers; ++l) {
        const auto &st = rep.perLayer[static_cast<std::size_t>(l)];
        json buckets = json::object();
        for (int k = 0; k < LinkBucketCount; ++k)
            buckets[linkBucketName(k)] = {{"gaps", st.bucketCount[static_cast<std::size_t>(k)]},
                                          {"mean", r4(st.bucketMean[static_cast<std::size_t>(k)])}};
        per.push_back({{"layer", l + 1}, {"gaps", st.gaps}, {"mean", r4(st.mean)}, {"stddev", r4(st.stddev)},
                       {"spearman", r4(st.spearman)}, {"by_constituent_size", buckets}});
    }
    j["per_layer"] = per;
    j["skipped_short"] = rep.skipped;
    return j;
}

const char *kInductionProtocol =
    "Tree Transformer / PRPN evaluation: unlabelled brackets, punctuation words removed (tags . , : "
    "-LRB- -RRB- '' ``) before encoding, single words and the whole sentence ignored; sentence_f1 = "
    "mean of per-sentence F1 (the paper's figure), corpus_f1 = F1 over all brackets";

json inductionJson(const ProbeRunInduction &r)
{
    json j = json::parse(inductionReportJson(r.report));
    j.erase("files");
    j.erase("skipped");
    if (!r.applicable) {
        j["all"].erase("model");
        j["length_10"].erase("model");
        j.erase("by_start_layer");
        j.erase("config");
    }
    j["kind"] = "induction";
    j["applicable"] = r.applicable;
    if (!r.applicable)
        j["reason"] = r.reason;
    j["scope"] = r.scope;
    j["sentences"] = r.sentences;
    j["excluded"] = countsJson(r.excluded);
    j["constituency_trees"] = r.constituencyTrees;
    j["protocol"] = kInductionProtocol;
    if (r.applicable) {
        json worst = json::array();
        for (const auto &[id, f1] : r.worstSentences)
            worst.push_back({{"id", id}, {"f1", rounded(f1, 2)}});
        j["worst_sentences"] = worst;
    }
    return j;
}

json attentionTasksJson(const ProbeRunReport &r)
{
    json tasks = json::object();
    const ProbeRunAttention &a = r.attention;
    for (const auto &[name, s] : a.summaries) {
        json j = attentionCommonJson(s, r.model);
        if (name == "head-accuracy" && a.headAccuracy)
            tasks[name] = headAccuracyJson(*a.headAccuracy, j, s);
        else if (name == "attention-mst" && a.attentionMst)
            tasks[name] = attentionMstJson(*a.attentionMst, j, s);
        else if (name == "constituent-mass" && a.constituentMass)
            tasks[name] = constituentMassJson(*a.constituentMass, j, s);
        else if (name == "link-probs" && a.linkProbs)
            tasks[name] = linkProbsJson(*a.linkProbs, j);
    }
    if (r.induction)
        tasks["unsupervised-parsing"] = inductionJson(*r.induction);
    return tasks;
}

/// `probe --where`: the pattern, what it found, the arcs head-accuracy scores.
json whereJson(const ProbeRunWhere &w)
{
    json j = {{"pattern", w.pattern},
              {"syntax", w.syntax},
              {"sentences", w.sentences},
              {"sentences_matched", w.sentencesMatched},
              {"occurrences", w.occurrences},
              {"trees", w.trees},
              {"head_accuracy_arcs", w.arcs},
              {"head_accuracy_arc_count", w.arcCount},
              {"splits", w.splits}};
    if (!w.parser.empty())
        j["parser"] = w.parser;
    if (w.unsearched > 0)
        j["unsearched"] = w.unsearched;
    return j;
}

json timingJson(const ProbeRunTiming &t)
{
    json j = {{"total_seconds", rounded(t.total, 2)},
              {"load_and_trees_seconds", rounded(t.loadAndTrees, 2)},
              {"parse_seconds", rounded(t.parse, 2)},
              {"sentence_vectors_seconds", rounded(t.sentenceVectors, 2)}};
    for (const auto &[name, s] : t.train)
        j["train_seconds"][name] = rounded(s, 2);
    for (const auto &[name, s] : t.attention)
        j["attention_seconds"][name] = rounded(s, 2);
    return j;
}

} // namespace

std::string probeReportJson(const ProbeRunReport &r)
{
    json report;
    report["command"] = r.command;
    report["layer_numbering"] = "1-based";
    report["treelens_version"] = r.treelensVersion;
    report["model"] = modelJson(r.model);
    report["settings"] = settingsJson(r.settings);
    report["data"] = dataJson(r.data);
    if (r.where)
        report["where"] = whereJson(*r.where);
    json tasks = attentionTasksJson(r);
    for (const auto &t : r.sentenceTasks)
        tasks[t.name] = sentenceTaskJson(t);
    for (const auto &t : r.structuralTasks)
        tasks[t.name] = structuralTaskJson(t);
    report["tasks"] = tasks;
    report["timing"] = timingJson(r.timing);
    return report.dump();
}

std::string probeReportsJson(const std::vector<const ProbeRunReport *> &reports)
{
    std::string out = "{\"models\":[";
    for (std::size_t i = 0; i < reports.size(); ++i)
        out += (i ? "," : "") + probeReportJson(*reports[i]);
    return out + "]}";
}

} // namespace treelens
