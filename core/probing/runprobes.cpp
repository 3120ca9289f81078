// runprobes: stage 4 of a probing run, the sentence and structural probes; see runprobes.h.
#include "core/probing/runprobes.h"

#include "core/base/numbering.h"
#include "core/encoders/encoder.h"
#include "core/probing/runfeaturefile.h"
#include "core/probing/runfeatures.h"

namespace treelens {

namespace {

/// A probed layer in progress lines and errors: "embeddings" or "layer k" (from 1).
std::string probedLayerText(int layer) { return layer == 0 ? kEmbeddingsLayerName : "layer " + std::to_string(layer); }

/// The features of the model or the random-init encoder: extracted, or read from the plan's file.
Result<ProbeSplitFeatures> featuresOf(const ProbeRunContext &ctx, const ProbeTrainingPlan &plan, const ProbeData &data,
                                      bool randomInit, const FeatureOptions &options, const std::string &what)
{
    if (plan.featureFile)
        return plan.featureFile->load(ctx, data, randomInit, options, what);
    return extractProbeFeatures(ctx, randomInit ? *plan.randomInit : *plan.model, data, options, what);
}

// ---------------------------------------------------------------------------
// Sentence probes

using LayerPooling = std::pair<int, std::string>;

/// One sentence task while its probes train.
struct SentenceWork {
    std::string name;
    ProbeDataset dataset, control;
    std::map<LayerPooling, ProbeResult> main, controlResults, randomInit;
    double seconds = 0.0;
};

std::string probeSummary(const ProbeResult &r)
{
    if (r.regression)
        return "test R2 " + probeFixed(r.test.r2, 4) + " MSE " + probeFixed(r.test.mse, 3);
    return "test acc " + probeFixed(100 * r.test.accuracy, 2) + " F1 " + probeFixed(100 * r.test.macroF1, 2);
}

/// Trains one probe per layer × pooling on `dataset`; `variant` names the curve
/// points ("", "control", "random-init") and `label` the progress lines.
Status trainSentenceProbes(const ProbeRunContext &ctx, const ProbeDataset &dataset, const ProbeSplitFeatures &f,
                           bool oneCorpus, const ProbeTrainingPlan &plan, const ProbeTrainOptions &options,
                           const std::string &task, const std::string &variant, const std::string &label,
                           std::map<LayerPooling, ProbeResult> &out)
{
    // One corpus: the dataset's indices of every split refer to it.
    const ProbeFeatures &tr = f.train;
    const ProbeFeatures &dv = oneCorpus ? f.train : f.dev;
    const ProbeFeatures &te = oneCorpus ? f.train : f.test;
    for (int layer : plan.layers) {
        for (const auto &pooling : plan.poolings) {
            const auto t0 = ProbeClock::now();
            auto inputs =
                probeInputs(dataset, tr, dv, te, layer, pooling == "cls" ? SentencePooling::Cls : SentencePooling::Mean);
            if (!inputs)
                return Error{label + ", " + probedLayerText(layer) + ": " + inputs.message(), inputs.code()};
            auto r = trainProbe(
                *inputs, options,
                [&](const ProbeEpoch &e) {
                    ctx.curve(ProbeCurvePoint{task, variant, layer, pooling, e.epoch, e.trainLoss, e.devLoss, e.devMetric});
                },
                ctx.control());
            if (!r)
                return Error{label + ", " + probedLayerText(layer) + " " + pooling + ": " + r.message(), r.code()};
            r->testPredicted.clear();
            r->testPredictions.clear();
            ProgressLine(ctx) << label << " " << probedLayerText(layer) << " " << pooling << ": " << probeSummary(*r)
                              << " (best epoch " << r->bestEpoch << "/" << r->curve.size() << ", "
                              << probeFixed(secondsSince(t0), 1) << " s)";
            out[LayerPooling{layer, pooling}] = std::move(*r);
        }
    }
    return {};
}

/// Task − control, in accuracy points (classification) or R² (SentLen).
double selectivity(const ProbeResult &task, const ProbeResult &control)
{
    return task.regression ? task.test.r2 - control.test.r2 : 100.0 * (task.test.accuracy - control.test.accuracy);
}

/// The typed result of one task's dataset and probes.
SentenceProbeTask sentenceTask(SentenceWork &w, const ProbeTrees &trees, const ProbeRunConfig &config,
                               const ProbeTrainingPlan &plan)
{
    const ProbeDataset &ds = w.dataset;
    SentenceProbeTask t;
    t.name = w.name;
    t.regression = ds.regression();
    t.labels = ds.labels;
    t.split = ds.split;
    t.examples = {static_cast<long>(ds.train.size()), static_cast<long>(ds.dev.size()), static_cast<long>(ds.test.size())};
    if (!t.regression)
        t.labelCounts = {labelCounts(ds.train, ds.labels.size()), labelCounts(ds.dev, ds.labels.size()),
                         labelCounts(ds.test, ds.labels.size())};
    t.excluded = ds.excluded;
    if (!ds.depthSource.empty())
        t.tree = ds.depthSource + ": " + (ds.depthSource == "dependency" ? trees.dependencyText() : trees.constituencyText());
    else if (w.name == "topconst")
        t.tree = "constituency: " + trees.constituencyText();
    if (t.regression) {
        const auto b = meanBaseline(ds);
        t.baseline.meanPrediction = b.mean;
        t.baseline.meanMse = b.mse;
        t.baseline.meanR2 = b.r2;
    } else {
        const int m = majorityLabel(ds);
        t.baseline.majorityLabel = m >= 0 ? ds.labels[static_cast<std::size_t>(m)] : std::string();
        t.baseline.majorityAccuracy = majorityAccuracy(ds);
        t.baseline.majorityMacroF1 = majorityMacroF1(ds);
    }
    t.control = plan.control;
    t.randomInit = plan.withRandomInit;
    t.randomInitSeed = config.seed;
    for (int layer : plan.layers) {
        SentenceProbeLayer main{layer, {}}, random{layer, {}};
        for (const auto &pooling : plan.poolings) {
            const LayerPooling key{layer, pooling};
            SentenceProbeCell cell;
            cell.result = std::move(w.main.at(key));
            if (t.control) {
                cell.control = std::move(w.controlResults.at(key));
                cell.selectivity = selectivity(cell.result, *cell.control);
            }
            main.pooling[pooling] = std::move(cell);
            if (t.randomInit)
                random.pooling[pooling].result = std::move(w.randomInit.at(key));
        }
        t.layers.push_back(std::move(main));
        if (t.randomInit)
            t.randomInitLayers.push_back(std::move(random));
    }
    return t;
}

/// The datasets (and control tasks) of the sentence tasks.
Result<std::vector<SentenceWork>> sentenceDatasets(const ProbeData &data, const ProbeTrees &trees,
                                                   const ProbeRunConfig &config, const std::vector<std::string> &tasks,
                                                   bool control)
{
    ProbeTaskOptions options;
    options.depthSource = trees.tree == "dependency" ? DepthSource::Dependency : DepthSource::Constituency;
    options.depthMinCount = config.depthMinCount;
    options.splitSeed = config.splitSeed;
    std::vector<SentenceWork> out;
    for (const auto &name : tasks) {
        SentenceWork w;
        w.name = name;
        const ProbeTask task = *parseProbeTask(name);
        auto ds = data.oneCorpus ? buildProbeDataset(task, data.corpus, options)
                                 : buildProbeDataset(task, data.train, data.dev, data.test, options);
        if (!ds)
            return ds.error();
        w.dataset = std::move(*ds);
        if (control)
            w.control = data.oneCorpus ? controlTask(w.dataset, data.corpus, config.seed)
                                       : controlTask(w.dataset, data.train, data.dev, data.test, config.seed);
        out.push_back(std::move(w));
    }
    return out;
}

// ---------------------------------------------------------------------------
// Structural probes

/// One structural task while its probes train.
struct StructuralWork {
    StructuralProbeTask task;
    ProbeRunStructural viewer;
    double seconds = 0.0;
};

std::string structuralSummary(const StructuralProbeResult &r)
{
    return r.kind == StructuralProbeKind::Distance
               ? "test UUAS " + probeFixed(100 * r.test.uuas, 2) + " DSpr " + probeFixed(r.test.dspr, 4)
               : "test root acc " + probeFixed(100 * r.test.rootAccuracy, 2) + " NSpr " + probeFixed(r.test.nspr, 4);
}

/// Trains every task's probe on one layer's examples.
Status trainStructuralLayer(const ProbeRunContext &ctx, const ProbeData &data, const StructuralSplits &ex, int layer,
                            const StructuralProbeOptions &options, bool randomInit, std::vector<StructuralWork> &work)
{
    const std::string variant = randomInit ? " (random init)" : "";
    for (auto &w : work) {
        StructuralProbeTask &task = w.task;
        const auto t0 = ProbeClock::now();
        if (!randomInit) {
            task.examples = {static_cast<long>(ex.train.size()), static_cast<long>(ex.dev.size()),
                             static_cast<long>(ex.test.size())};
            task.skipped = ex.skipped;
        }
        if (ex.train.empty() || ex.test.empty())
            return Error{task.name + ": no " + std::string(ex.train.empty() ? "train" : "test") +
                         " sentence with a valid dependency tree"};
        auto r = trainStructuralProbe(
            task.kind, ex.train, ex.dev, ex.test, options,
            [&](const StructuralEpoch &e) {
                ctx.curve(ProbeCurvePoint{task.name, randomInit ? "random-init" : "", layer, "", e.epoch, e.trainLoss,
                                          e.devLoss, e.devMetric});
            },
            ctx.control());
        if (!r)
            return Error{task.name + variant + ", " + probedLayerText(layer) + ": " + r.message(), r.code()};
        if (!randomInit) {
            // Keep the predictions for the viewer; result.sentence indexes its sentences.
            if (w.viewer.sentences.empty())
                for (const auto &e : ex.test)
                    w.viewer.sentences.push_back(
                        (data.oneCorpus ? data.corpus : data.test)[static_cast<std::size_t>(e.sentence)]);
            for (std::size_t i = 0; i < r->testSentences.size(); ++i)
                r->testSentences[i].sentence = static_cast<int>(i);
            w.viewer.byLayer[layer] = std::move(r->testSentences);
        }
        r->testSentences.clear();
        const double s = secondsSince(t0);
        w.seconds += s;
        ProgressLine(ctx) << task.name << variant << " " << probedLayerText(layer) << ": " << structuralSummary(*r)
                          << " (best epoch " << r->bestEpoch << "/" << r->curve.size() << ", " << probeFixed(s, 1)
                          << " s)";
        (randomInit ? task.randomInitLayers : task.layers).push_back(StructuralProbeLayer{layer, std::move(*r)});
    }
    return {};
}

/// Trains the structural probes on every layer with one encoder (the model's, or the random-init one).
Status trainStructural(const ProbeRunContext &ctx, const ProbeTrainingPlan &plan, const ProbeData &data,
                       const ProbeRunConfig &config, bool randomInit, std::vector<StructuralWork> &work)
{
    const std::vector<int> &layers = plan.layers;
    const std::string variant = randomInit ? " (random init)" : "";
    // Word states of all layers at once when they fit comfortably, else one layer at a time.
    const bool allAtOnce = wordStatesFitAtOnce(data, layers.size(), plan.model->info().dModel);
    ProbeSplitFeatures all;
    FeatureOptions fo;
    fo.sentenceVectors = false;
    fo.wordVectors = true;
    fo.batchSize = config.encoderBatch;
    if (allAtOnce) {
        fo.layers = layers;
        auto f = featuresOf(ctx, plan, data, randomInit, fo, "word states" + variant);
        if (!f)
            return Error{"word states" + variant + ": " + f.message(), f.code()};
        all = std::move(*f);
    }
    const StructuralProbeOptions options = structuralProbeOptions(config);
    for (int layer : layers) {
        ProbeSplitFeatures one;
        if (!allAtOnce) {
            fo.layers = {layer};
            auto f = featuresOf(ctx, plan, data, randomInit, fo, "word states" + variant + ", " + probedLayerText(layer));
            if (!f)
                return Error{"word states" + variant + ": " + f.message(), f.code()};
            one = std::move(*f);
        }
        auto ex = structuralSplits(data, allAtOnce ? all : one, layer);
        if (!ex)
            return Error{"structural probe examples: " + ex.message(), ex.code()};
        if (auto s = trainStructuralLayer(ctx, data, *ex, layer, options, randomInit, work); !s)
            return s;
    }
    return {};
}

} // namespace

Result<std::vector<SentenceProbeTask>> runSentenceProbes(const ProbeRunContext &ctx, const ProbeData &data,
                                                         const ProbeTrees &trees, const ProbeRunConfig &config,
                                                         const std::vector<std::string> &tasks,
                                                         const ProbeTrainingPlan &plan, ProbeRunTiming &timing)
{
    std::vector<SentenceProbeTask> out;
    if (tasks.empty())
        return out;
    auto work = sentenceDatasets(data, trees, config, tasks, plan.control);
    if (!work)
        return work.error();
    FeatureOptions fo;
    fo.sentenceVectors = true;
    fo.layers = plan.layers;
    fo.batchSize = config.encoderBatch;
    const ProbeTrainOptions options = sentenceProbeOptions(config);
    for (int variant = 0; variant < (plan.withRandomInit ? 2 : 1); ++variant) {
        const std::string vname = variant == 0 ? "" : " (random init)";
        const auto tf = ProbeClock::now();
        auto feats = featuresOf(ctx, plan, data, variant == 1, fo, "sentence vectors" + vname);
        if (!feats)
            return Error{"sentence vectors" + vname + ": " + feats.message(), feats.code()};
        timing.sentenceVectors += secondsSince(tf);
        for (auto &w : *work) {
            const auto t0 = ProbeClock::now();
            if (auto s = trainSentenceProbes(ctx, w.dataset, *feats, data.oneCorpus, plan, options, w.name,
                                             variant == 0 ? "" : "random-init", w.name + vname,
                                             variant == 0 ? w.main : w.randomInit);
                !s)
                return s.error();
            if (variant == 0 && plan.control)
                if (auto s = trainSentenceProbes(ctx, w.control, *feats, data.oneCorpus, plan, options, w.name,
                                                 "control", w.name + " control", w.controlResults);
                    !s)
                    return s.error();
            w.seconds += secondsSince(t0);
        }
    }
    for (auto &w : *work) {
        timing.train[w.name] = w.seconds;
        out.push_back(sentenceTask(w, trees, config, plan));
    }
    for (const auto &t : out)
        ctx.finished(t.name);
    return out;
}

Result<std::vector<StructuralProbeTask>> runStructuralProbes(const ProbeRunContext &ctx, const ProbeData &data,
                                                             const ProbeTrees &trees, const ProbeRunConfig &config,
                                                             const std::vector<std::string> &tasks,
                                                             const ProbeTrainingPlan &plan,
                                                             std::map<std::string, ProbeRunStructural> &viewers,
                                                             ProbeRunTiming &timing)
{
    std::vector<StructuralProbeTask> out;
    if (tasks.empty())
        return out;
    std::vector<StructuralWork> work;
    for (const auto &name : tasks) {
        StructuralWork w;
        w.task.name = name;
        w.task.kind = name == "structural-distance" ? StructuralProbeKind::Distance : StructuralProbeKind::Depth;
        w.task.dependencyTrees = trees.dependencyText();
        w.task.split = data.splitText;
        w.task.randomInit = plan.withRandomInit;
        w.task.randomInitSeed = config.seed;
        w.viewer.kind = w.task.kind;
        work.push_back(std::move(w));
    }
    if (auto s = trainStructural(ctx, plan, data, config, false, work); !s)
        return s.error();
    if (plan.withRandomInit)
        if (auto s = trainStructural(ctx, plan, data, config, true, work); !s)
            return s.error();
    for (auto &w : work) {
        timing.train[w.task.name] = w.seconds;
        viewers[w.task.name] = std::move(w.viewer);
        out.push_back(std::move(w.task));
    }
    for (const auto &t : out)
        ctx.finished(t.name);
    return out;
}

} // namespace treelens
