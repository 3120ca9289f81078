// probejsonread: a probing report read back from its JSON; see probejson.h.
// The inverse of probejson.cpp, field for field.
#include "core/probing/probejson.h"

#include <algorithm>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "core/base/numbering.h"
#include "core/probing/proberunconfig.h"

namespace treelens {

namespace {

using nlohmann::json;

/// How the report numbers layers and heads: from 1 (top-level "layer_numbering":
/// "1-based"), or from 0 as reports of earlier versions did.
struct Numbering {
    bool fromOne = true;
    /// An encoder layer or head of the JSON as a 0-based index (-1 for null).
    int index(const json &j) const { return j.is_null() ? -1 : j.get<int>() - (fromOne ? 1 : 0); }
};

/// A probed layer: "embeddings" is 0, k is encoder layer k (in every version).
int probedLayer(const json &j)
{
    if (j.is_string()) {
        if (j.get<std::string>() != kEmbeddingsLayerName)
            throw std::invalid_argument("unknown layer '" + j.get<std::string>() + "'");
        return 0;
    }
    return j.get<int>();
}

/// A number of the JSON; null (a NaN or infinity when written) is NaN.
double num(const json &j) { return j.is_null() ? kNoValue : j.get<double>(); }
/// A percent of the JSON as a fraction.
double fraction(const json &j) { return num(j) / 100.0; }

std::map<std::string, long> counts(const json &j)
{
    std::map<std::string, long> m;
    for (const auto &[k, v] : j.items())
        m[k] = v.get<long>();
    return m;
}

LayerHeadGrid grid(const json &rows)
{
    const int layers = static_cast<int>(rows.size());
    const int heads = layers > 0 ? static_cast<int>(rows.at(0).size()) : 0;
    LayerHeadGrid g(layers, heads);
    for (int l = 0; l < layers; ++l)
        for (int h = 0; h < heads; ++h)
            g.at(l, h) = num(rows.at(static_cast<std::size_t>(l)).at(static_cast<std::size_t>(h)));
    return g;
}

// ---------------------------------------------------------------------------
// Model, settings, data

ProbeRunModel readModel(const json &j)
{
    return ProbeRunModel{j.at("path").get<std::string>(), j.at("name").get<std::string>(),
                         j.at("family").get<std::string>(), j.at("layers").get<int>(),
                         j.at("heads").get<int>(),          j.at("d_model").get<int>(),
                         j.at("parameters").get<long long>(), j.at("device").get<std::string>()};
}

ProbeTrainingSettings readTraining(const json &j)
{
    return ProbeTrainingSettings{j.at("max_epochs").get<int>(), j.at("patience").get<int>(),
                                 j.at("learning_rate").get<double>(), j.at("batch_size").get<int>(),
                                 j.at("threads").get<int>()};
}

ProbeRunSettings readSettings(const json &j)
{
    ProbeRunSettings s;
    s.tasks = j.at("tasks").get<std::vector<std::string>>();
    for (const json &l : j.at("layers"))
        s.layers.push_back(probedLayer(l));
    s.poolings = j.at("pooling").get<std::vector<std::string>>();
    s.probe = j.at("probe").get<std::string>();
    s.seed = j.at("seed").get<unsigned>();
    s.splitSeed = j.at("split_seed").get<unsigned>();
    s.control = j.at("control").get<bool>();
    s.randomInit = j.at("random_init").get<bool>();
    s.rawAttention = j.at("raw_attention").get<bool>();
    s.treeSource = j.at("tree_source").get<std::string>();
    s.tree = j.at("tree").get<std::string>();
    s.treeReason = j.at("tree_reason").get<std::string>();
    s.depthMinCount = j.at("depth_min_count").get<int>();
    s.attentionOn = j.at("attention_on").get<std::string>();
    s.probeDevice = j.at("probe_device").get<std::string>();
    s.sentenceProbe = readTraining(j.at("sentence_probe"));
    s.structuralProbe = readTraining(j.at("structural_probe"));
    s.structuralRank = j.at("structural_probe").at("rank").get<int>();
    s.poolingNote = j.value("pooling_note", std::string());
    return s;
}

ProbeRunData readData(const json &j)
{
    ProbeRunData d;
    const json &files = j.at("files");
    d.trainFiles = files.at("train").get<std::vector<std::string>>();
    d.devFiles = files.at("dev").get<std::vector<std::string>>();
    d.testFiles = files.at("test").get<std::vector<std::string>>();
    d.split = j.at("split").get<std::string>();
    d.constituencyTrees = j.at("constituency_trees").get<std::string>();
    d.dependencyTrees = j.at("dependency_trees").get<std::string>();
    d.excluded = counts(j.at("excluded"));
    const json &s = j.at("sentences");
    d.oneCorpus = s.contains("corpus");
    if (d.oneCorpus)
        d.corpus = s.at("corpus").get<std::size_t>();
    d.train = s.at("train").get<std::size_t>();
    d.dev = s.at("dev").get<std::size_t>();
    d.test = s.at("test").get<std::size_t>();
    d.parseFailures = j.value("parse_failures", 0L);
    if (j.contains("parse_failure_examples"))
        d.parseFailureExamples = j.at("parse_failure_examples").get<std::vector<std::string>>();
    d.noDev = j.contains("note");
    return d;
}

// ---------------------------------------------------------------------------
// Sentence probes

ProbeMetrics readMetrics(const json &j, bool regression)
{
    ProbeMetrics m;
    if (regression) {
        m.mse = num(j.at("mse"));
        m.r2 = num(j.at("r2"));
    } else {
        m.accuracy = fraction(j.at("accuracy"));
        m.macroF1 = fraction(j.at("macro_f1"));
    }
    m.loss = num(j.at("loss"));
    return m;
}

ProbeResult readProbe(const json &j, bool regression)
{
    ProbeResult r;
    r.regression = regression;
    r.test = readMetrics(j.at("test"), regression);
    r.dev = readMetrics(j.at("dev"), regression);
    r.bestEpoch = j.at("best_epoch").get<int>();
    r.stoppedEarly = j.at("stopped_early").get<bool>();
    r.parameters = j.at("parameters").get<long long>();
    const auto epochs = j.at("epochs").get<std::size_t>();
    for (std::size_t e = 0; e < epochs; ++e) {
        ProbeEpoch p;
        p.epoch = static_cast<int>(e + 1);
        p.trainLoss = kNoValue; // a control probe's curve is not in the JSON
        if (j.contains("curve")) {
            const json &c = j.at("curve");
            p.trainLoss = num(c.at("train_loss").at(e));
            p.devLoss = num(c.at("dev_loss").at(e));
            p.devMetric = regression ? num(c.at("dev_metric").at(e)) : fraction(c.at("dev_metric").at(e));
        }
        r.curve.push_back(p);
    }
    return r;
}

/// Every entry of a "layers" array: its "layer", the rest by `readOne(entry, layer)`.
template <class Layer, class ReadOne>
std::vector<Layer> readLayers(const json &rows, ReadOne readOne)
{
    std::vector<Layer> layers;
    for (const json &lj : rows) {
        Layer layer;
        layer.layer = probedLayer(lj.at("layer"));
        readOne(lj, layer);
        layers.push_back(std::move(layer));
    }
    return layers;
}

std::vector<SentenceProbeLayer> readSentenceLayers(const json &rows, bool regression)
{
    return readLayers<SentenceProbeLayer>(rows, [regression](const json &lj, SentenceProbeLayer &layer) {
        for (const char *pooling : {"cls", "mean"}) {
            if (!lj.contains(pooling))
                continue;
            const json &pj = lj.at(pooling);
            SentenceProbeCell cell;
            cell.result = readProbe(pj, regression);
            if (pj.contains("control")) {
                cell.control = readProbe(pj.at("control"), regression);
                cell.selectivity = num(pj.at("selectivity"));
            }
            layer.pooling[pooling] = std::move(cell);
        }
    });
}

SentenceProbeTask readSentenceTask(const std::string &name, const json &j)
{
    SentenceProbeTask t;
    t.name = name;
    t.regression = j.at("regression").get<bool>();
    t.labels = j.at("labels").get<std::vector<std::string>>();
    t.split = j.at("split").get<std::string>();
    const json &ex = j.at("examples");
    t.examples = {ex.at("train").get<long>(), ex.at("dev").get<long>(), ex.at("test").get<long>()};
    if (!t.regression) {
        const json &lc = j.at("label_counts");
        t.labelCounts = {lc.at("train").get<std::vector<long>>(), lc.at("dev").get<std::vector<long>>(),
                         lc.at("test").get<std::vector<long>>()};
    }
    t.excluded = counts(j.at("excluded"));
    t.tree = j.value("tree", std::string());
    const json &b = j.at("baselines");
    if (t.regression) {
        const json &m = b.at("mean");
        t.baseline.meanPrediction = num(m.at("prediction"));
        t.baseline.meanMse = num(m.at("mse"));
        t.baseline.meanR2 = num(m.at("r2"));
    } else {
        const json &m = b.at("majority");
        t.baseline.majorityLabel = m.at("label").get<std::string>();
        t.baseline.majorityAccuracy = fraction(m.at("accuracy"));
        t.baseline.majorityMacroF1 = fraction(m.at("macro_f1"));
    }
    t.layers = readSentenceLayers(j.at("layers"), t.regression);
    t.control = j.contains("control_task");
    t.randomInit = j.contains("random_init");
    if (t.randomInit) {
        t.randomInitSeed = j.at("random_init").at("seed").get<unsigned>();
        t.randomInitLayers = readSentenceLayers(j.at("random_init").at("layers"), t.regression);
    }
    return t;
}

// ---------------------------------------------------------------------------
// Structural probes

StructuralMetrics readStructuralMetrics(const json &j, StructuralProbeKind kind)
{
    StructuralMetrics m;
    if (kind == StructuralProbeKind::Distance) {
        m.uuas = fraction(j.at("uuas"));
        m.dspr = num(j.at("dspr"));
        m.edgesCorrect = j.at("edges_correct").get<long>();
        m.edgesTotal = j.at("edges_total").get<long>();
    } else {
        m.rootAccuracy = fraction(j.at("root_accuracy"));
        m.nspr = num(j.at("nspr"));
        m.rootsCorrect = j.at("roots_correct").get<long>();
    }
    m.sentences = j.at("sentences").get<long>();
    m.loss = num(j.at("loss"));
    return m;
}

std::vector<StructuralProbeLayer> readStructuralLayers(const json &rows, StructuralProbeKind kind)
{
    return readLayers<StructuralProbeLayer>(rows, [kind](const json &lj, StructuralProbeLayer &layer) {
        StructuralProbeResult &r = layer.result;
        r.kind = kind;
        r.test = readStructuralMetrics(lj.at("test"), kind);
        r.dev = readStructuralMetrics(lj.at("dev"), kind);
        r.rank = lj.at("rank").get<int>();
        r.bestEpoch = lj.at("best_epoch").get<int>();
        r.stoppedEarly = lj.at("stopped_early").get<bool>();
        r.parameters = lj.at("parameters").get<long long>();
        const json &c = lj.at("curve");
        for (std::size_t e = 0; e < lj.at("epochs").get<std::size_t>(); ++e)
            r.curve.push_back(StructuralEpoch{static_cast<int>(e + 1), num(c.at("train_loss").at(e)),
                                              num(c.at("dev_loss").at(e)), fraction(c.at("dev_metric").at(e)),
                                              num(c.at("learning_rate").at(e))});
    });
}

StructuralProbeTask readStructuralTask(const std::string &name, const json &j)
{
    StructuralProbeTask t;
    t.name = name;
    t.kind = name == "structural-distance" ? StructuralProbeKind::Distance : StructuralProbeKind::Depth;
    const json &ex = j.at("examples");
    t.examples = {ex.at("train").get<long>(), ex.at("dev").get<long>(), ex.at("test").get<long>()};
    t.skipped = counts(j.at("skipped"));
    t.dependencyTrees = j.at("dependency_trees").get<std::string>();
    t.split = j.at("split").get<std::string>();
    t.layers = readStructuralLayers(j.at("layers"), t.kind);
    t.randomInit = j.contains("random_init");
    if (t.randomInit) {
        t.randomInitSeed = j.at("random_init").at("seed").get<unsigned>();
        t.randomInitLayers = readStructuralLayers(j.at("random_init").at("layers"), t.kind);
    }
    return t;
}

// ---------------------------------------------------------------------------
// Attention

AttentionTaskSummary readSummary(const json &j)
{
    AttentionTaskSummary s;
    s.scope = j.at("scope").get<std::string>();
    s.attention = j.at("attention").get<std::string>();
    s.sentences = j.at("sentences").get<std::size_t>();
    s.excluded = counts(j.at("excluded"));
    if (j.contains("tree")) {
        s.tree = j.at("tree").get<std::string>();
        s.trees = j.at("tree_source").get<std::string>();
    } else {
        s.trees = j.at("dependency_trees").get<std::string>();
    }
    return s;
}

BestCell readBestCell(const json &j, const char *value, const Numbering &n)
{
    BestCell b;
    b.layer = n.index(j.at("layer"));
    b.head = n.index(j.at("head"));
    b.accuracy = num(j.at(value));
    return b;
}

void readHeadAccuracy(const json &j, AttentionTaskSummary &s, ProbeRunAttention &a, const Numbering &n)
{
    HeadAccuracyReport rep;
    rep.layers = j.at("layers").get<int>();
    rep.heads = j.at("heads").get<int>();
    rep.sentences = s.sentences;
    rep.subtypesKept = j.value("relation_subtypes", std::string("folded")) == "kept"; // absent before: folded
    for (const json &rj : j.at("relations")) {
        RelationHeadAccuracy rel;
        rel.relation = rj.at("relation").get<std::string>();
        rel.count = rj.at("count").get<long>();
        rel.depToHead = grid(rj.at("dep_to_head"));
        rel.headToDep = grid(rj.at("head_to_dep"));
        rel.bestDepToHead = readBestCell(rj.at("best_dep_to_head"), "accuracy", n);
        rel.bestHeadToDep = readBestCell(rj.at("best_head_to_dep"), "accuracy", n);
        rel.bestOffset.offset = rj.at("best_offset").at("offset").get<int>();
        rel.bestOffset.accuracy = num(rj.at("best_offset").at("accuracy"));
        rep.relations.push_back(std::move(rel));
    }
    if (j.contains("worst_sentences_best_dep_to_head"))
        s.worstSentences = j.at("worst_sentences_best_dep_to_head").get<std::vector<std::string>>();
    a.headAccuracy = std::move(rep);
}

void readAttentionMst(const json &j, AttentionTaskSummary &s, ProbeRunAttention &a, const Numbering &n)
{
    UuasReport rep;
    rep.layers = j.at("layers").get<int>();
    rep.heads = j.at("heads").get<int>();
    rep.uuas = grid(j.at("uuas"));
    for (const json &v : j.at("layer_mean_uuas"))
        rep.layerMean.push_back(num(v));
    rep.edges = j.at("edges").get<long>();
    rep.skipped = j.at("skipped_one_word").get<std::size_t>();
    s.best = readBestCell(j.at("best"), "uuas", n);
    if (j.at("best").contains("worst_sentences"))
        s.worstSentences = j.at("best").at("worst_sentences").get<std::vector<std::string>>();
    a.attentionMst = std::move(rep);
}

void readConstituentMass(const json &j, AttentionTaskSummary &s, ProbeRunAttention &a, const Numbering &n)
{
    ConstituentMassReport rep;
    rep.layers = j.at("layers").get<int>();
    rep.heads = j.at("heads").get<int>();
    rep.mass = grid(j.at("mass"));
    rep.baseline = grid(j.at("baseline"));
    rep.difference = grid(j.at("difference"));
    for (const json &row : j.at("words"))
        for (const json &v : row)
            rep.words.push_back(v.get<long>());
    rep.skippedWords = j.at("skipped_words").get<long>();
    if (j.contains("best")) {
        s.best = readBestCell(j.at("best"), "difference", n);
        s.worstSentences = j.at("best").at("worst_sentences").get<std::vector<std::string>>();
    }
    a.constituentMass = std::move(rep);
}

void readLinkProbs(const json &j, ProbeRunAttention &a)
{
    LinkProbabilityReport rep;
    for (const json &pj : j.at("per_layer")) {
        LinkLayerStats st;
        st.gaps = pj.at("gaps").get<long>();
        st.mean = num(pj.at("mean"));
        st.stddev = num(pj.at("stddev"));
        st.spearman = num(pj.at("spearman"));
        const json &buckets = pj.at("by_constituent_size");
        for (int k = 0; k < LinkBucketCount; ++k) {
            st.bucketCount[static_cast<std::size_t>(k)] = buckets.at(linkBucketName(k)).at("gaps").get<long>();
            st.bucketMean[static_cast<std::size_t>(k)] = num(buckets.at(linkBucketName(k)).at("mean"));
        }
        rep.perLayer.push_back(st);
    }
    rep.layers = static_cast<int>(rep.perLayer.size());
    rep.skipped = j.at("skipped_short").get<std::size_t>();
    a.linkProbs = std::move(rep);
}

// ---------------------------------------------------------------------------
// Unsupervised parsing

InductionScore readScore(const json &j)
{
    InductionScore s;
    s.sentences = j.at("sentences").get<std::size_t>();
    s.sentenceF1 = num(j.at("sentence_f1"));
    s.corpusF1 = num(j.at("corpus_f1"));
    s.precision = num(j.at("precision"));
    s.recall = num(j.at("recall"));
    return s;
}

InductionSplit readSplit(const json &j)
{
    InductionSplit s;
    if (j.contains("model"))
        s.model = readScore(j.at("model"));
    s.left = readScore(j.at("left_branching"));
    s.right = readScore(j.at("right_branching"));
    s.random = readScore(j.at("random"));
    return s;
}

Result<ProbeRunInduction> readInduction(const json &j, const Numbering &n, int layers)
{
    ProbeRunInduction r;
    r.applicable = j.at("applicable").get<bool>();
    r.reason = j.value("reason", std::string());
    r.scope = j.at("scope").get<std::string>();
    r.sentences = j.at("sentences").get<std::size_t>();
    r.excluded = counts(j.at("excluded"));
    r.constituencyTrees = j.at("constituency_trees").get<std::string>();
    if (j.contains("config")) {
        auto config = n.fromOne ? InductionConfig::fromNumberedJson(j.at("config").dump())
                                : InductionConfig::fromJson(j.at("config").dump());
        if (!config)
            return config.error();
        r.report.config = *config;
        r.report.layers = layers;
    }
    r.report.all = readSplit(j.at("all"));
    r.report.upTo10 = readSplit(j.at("length_10"));
    if (j.contains("by_start_layer"))
        for (const json &lj : j.at("by_start_layer"))
            r.report.byStartLayer.push_back(InductionReport::StartLayer{n.index(lj.at("start_layer")),
                                                                        readScore(lj.at("all")),
                                                                        readScore(lj.at("length_10"))});
    if (j.contains("worst_sentences"))
        for (const json &w : j.at("worst_sentences"))
            r.worstSentences.emplace_back(w.at("id").get<std::string>(), num(w.at("f1")));
    return r;
}

// ---------------------------------------------------------------------------
// The report

ProbeRunTiming readTiming(const json &j)
{
    ProbeRunTiming t;
    t.total = num(j.at("total_seconds"));
    t.loadAndTrees = num(j.at("load_and_trees_seconds"));
    t.parse = num(j.at("parse_seconds"));
    t.sentenceVectors = num(j.at("sentence_vectors_seconds"));
    if (j.contains("train_seconds"))
        for (const auto &[k, v] : j.at("train_seconds").items())
            t.train[k] = num(v);
    if (j.contains("attention_seconds"))
        for (const auto &[k, v] : j.at("attention_seconds").items())
            t.attention[k] = num(v);
    return t;
}

/// Orders tasks as `order` lists them (the JSON's object is sorted by name).
template <class Task>
void canonicalOrder(std::vector<Task> &tasks, const std::vector<std::string> &order)
{
    auto rank = [&](const Task &t) { return std::find(order.begin(), order.end(), t.name) - order.begin(); };
    std::stable_sort(tasks.begin(), tasks.end(), [&](const Task &a, const Task &b) { return rank(a) < rank(b); });
}

/// `probe --where`'s object (probejson.cpp's whereJson).
ProbeRunWhere readWhere(const json &j)
{
    ProbeRunWhere w;
    w.pattern = j.at("pattern").get<std::string>();
    w.syntax = j.value("syntax", std::string());
    w.sentences = j.value("sentences", std::size_t{0});
    w.sentencesMatched = j.value("sentences_matched", std::size_t{0});
    w.occurrences = j.value("occurrences", std::size_t{0});
    w.unsearched = j.value("unsearched", std::size_t{0});
    w.trees = j.value("trees", std::string());
    w.parser = j.value("parser", std::string());
    w.arcs = j.value("head_accuracy_arcs", std::string());
    w.arcCount = j.value("head_accuracy_arc_count", 0L);
    if (j.contains("splits"))
        w.splits = j.at("splits").get<std::map<std::string, std::size_t>>();
    return w;
}

Result<ProbeRunReport> readReport(const json &j)
{
    ProbeRunReport r;
    const Numbering numbering{j.value("layer_numbering", std::string()) == "1-based"};
    r.command = j.at("command").get<std::string>();
    r.treelensVersion = j.at("treelens_version").get<std::string>();
    r.model = readModel(j.at("model"));
    r.settings = readSettings(j.at("settings"));
    r.data = readData(j.at("data"));
    if (j.contains("where"))
        r.where = readWhere(j.at("where"));
    for (const auto &[name, t] : j.at("tasks").items()) {
        const std::string kind = t.at("kind").get<std::string>();
        if (kind == "sentence") {
            r.sentenceTasks.push_back(readSentenceTask(name, t));
        } else if (kind == "structural") {
            r.structuralTasks.push_back(readStructuralTask(name, t));
        } else if (kind == "induction") {
            auto induction = readInduction(t, numbering, r.model.layers);
            if (!induction)
                return Error{"unsupervised-parsing: " + induction.message(), induction.code()};
            r.induction = std::move(*induction);
        } else if (kind == "attention") {
            AttentionTaskSummary s = readSummary(t);
            if (name == "head-accuracy")
                readHeadAccuracy(t, s, r.attention, numbering);
            else if (name == "attention-mst")
                readAttentionMst(t, s, r.attention, numbering);
            else if (name == "constituent-mass")
                readConstituentMass(t, s, r.attention, numbering);
            else if (name == "link-probs")
                readLinkProbs(t, r.attention);
            else
                return Error{"unknown attention task '" + name + "'"};
            r.attention.summaries[name] = std::move(s);
        } else {
            return Error{"task '" + name + "' has an unknown kind '" + kind + "'"};
        }
    }
    canonicalOrder(r.sentenceTasks, probeRunSentenceTasks());
    canonicalOrder(r.structuralTasks, probeRunStructuralTasks());
    r.timing = readTiming(j.at("timing"));
    return r;
}

} // namespace

Result<std::vector<ProbeRunReport>> readProbeReportsJson(const std::string &text, const std::string &source)
{
    const json j = json::parse(text, nullptr, false);
    if (j.is_discarded())
        return Error{source + ": not JSON"};
    std::vector<ProbeRunReport> out;
    try {
        const bool several = j.is_object() && j.contains("models") && !j.contains("tasks");
        for (const json &report : several ? j.at("models") : json::array({j})) {
            auto r = readReport(report);
            if (!r)
                return Error{source + ": " + r.message(), r.code()};
            out.push_back(std::move(*r));
        }
    } catch (const json::exception &e) {
        return Error{source + ": not a probing report: " + e.what()};
    } catch (const std::invalid_argument &e) {
        return Error{source + ": not a probing report: " + e.what()};
    }
    return out;
}

} // namespace treelens
