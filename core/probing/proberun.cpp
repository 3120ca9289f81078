// proberun: one probing run over a corpus (TreeLens issue 6); see proberun.h.
//
// Only the order of the stages lives here: each stage is a unit of its own
// (core/probing/run{data,trees,features,probes,attention,report}.h) with its own
// tests. `treelens-cli probe` and the GUI's Probing dock both run this.
#include "core/probing/proberun.h"

#include <algorithm>
#include <memory>
#include <optional>

#include "core/encoders/common/randominit.h"
#include "core/encoders/encoder.h"
#include "core/probing/runattention.h"
#include "core/probing/rundata.h"
#include "core/probing/runfeaturefile.h"
#include "core/probing/runprobes.h"
#include "core/probing/runreport.h"
#include "core/probing/runtrees.h"
#include "core/probing/runwhere.h"

namespace treelens {

namespace {

/// The configured model (or the shipped default) on its device; the probes'
/// device checked before any work, and "auto" resolved to the encoder's device.
Result<std::shared_ptr<Encoder>> loadProbedEncoder(ProbeRunConfig &config, const DeviceConfig &device,
                                                   std::string &modelPath)
{
    modelPath = config.model;
    if (modelPath.empty()) {
        modelPath = defaultModelPath();
        if (modelPath.empty())
            return Error{"no model given and the shipped default model (resources/models/"
                         "tree-transformer-en-small.safetensors) was not found"};
    }
    if (config.probeDevice != "auto")
        if (auto d = probeDeviceAvailable(config.probeDevice); !d)
            return Error{"probe device: " + d.message(), d.code()};
    std::shared_ptr<Encoder> encoder;
    if (config.encoders) {
        auto shared = config.encoders->get(modelPath, device);
        if (!shared)
            return shared.error();
        encoder = *shared;
    } else {
        auto own = loadEncoder(modelPath, device);
        if (!own)
            return own.error();
        encoder = std::move(*own);
    }
    if (config.probeDevice == "auto")
        config.probeDevice = encoder->info().device; // probes train where the encoder runs: the GPU when there is one
    return encoder;
}

/// The poolings the model allows: cls needs a [CLS]-style token.
Status choosePoolings(const ProbeRunConfig &config, const EncoderInfo &info, ProbeRunPlan &plan)
{
    if (config.pooling == "cls" || config.pooling == "both") {
        if (info.hasClsToken)
            plan.poolings.push_back("cls");
        else if (config.pooling == "cls")
            return Error{"pooling cls: the " + info.family + " model has no [CLS] token; use mean"};
        else
            plan.poolingNote = "the model has no [CLS] token: mean pooling only";
    }
    if (config.pooling == "mean" || config.pooling == "both")
        plan.poolings.push_back("mean");
    return {};
}

/// The tasks of one kind (a list of probeRun*Tasks()), in the run's order.
std::vector<std::string> tasksOf(const std::vector<std::string> &tasks, const std::vector<std::string> &kind)
{
    std::vector<std::string> out;
    for (const auto &t : tasks)
        if (std::find(kind.begin(), kind.end(), t) != kind.end())
            out.push_back(t);
    return out;
}

/// What every run sets up before its stages: the configuration with the device
/// resolved, the plan, the encoder, the sentences.
struct ProbeSetup {
    ProbeRunConfig config;
    ProbeRunPlan plan;
    std::vector<std::string> sentenceTasks, structuralTasks, attentionTasks;
    DeviceConfig device;
    std::shared_ptr<Encoder> encoder;
    ProbeData data;
    std::optional<ProbeRunWhere> where; ///< config.where: the restriction's report
};

/// config.where: the sentences without an occurrence left out (runwhere.h), matched on the
/// trees the tasks read (a PTB tree's dependencies by head rules: what head-accuracy scores).
/// head-accuracy on a restriction that selects no arc is an error, not an empty grid.
Status restrictProbeRun(ProbeSetup &s)
{
    const ProbeRestriction &where = *s.config.where;
    addHeadRuleDependencies(s.data);
    auto r = restrictProbeData(where, s.data);
    if (!r)
        return r.error();
    s.where = std::move(*r);
    const bool headAccuracy =
        std::find(s.attentionTasks.begin(), s.attentionTasks.end(), "head-accuracy") != s.attentionTasks.end();
    if (headAccuracy && s.where->arcCount == 0)
        return Error{"where: head-accuracy: " +
                     std::string(where.nodes <= 1 ? "no dependency arc leads into a word an occurrence binds"
                                                  : "no dependency arc has both its head and its dependent bound by one "
                                                    "occurrence (a pattern of two or more nodes scores the arcs between "
                                                    "its bound words)") +
                     " in the " + std::to_string(s.where->sentencesMatched) + " sentences with an occurrence of " +
                     where.pattern};
    return {};
}

/// The checks, the tasks, the encoder, its layers and poolings, the corpora.
Result<ProbeSetup> setUpProbeRun(const ProbeRunConfig &configIn)
{
    ProbeSetup s;
    s.config = configIn; // probeDevice "auto" becomes the encoder's device once it is loaded
    ProbeRunConfig &config = s.config;
    if (auto st = config.validate(); !st)
        return st.error();
    s.plan.tasks = *parseProbeRunTasks(config.tasks);
    s.sentenceTasks = tasksOf(s.plan.tasks, probeRunSentenceTasks());
    s.structuralTasks = tasksOf(s.plan.tasks, probeRunStructuralTasks());
    s.attentionTasks = tasksOf(s.plan.tasks, probeRunAttentionTasks());

    s.device.device = config.device;
    s.device.threads = config.threads;
    s.device.batchSize = config.encoderBatch;
    s.device.precision = config.precision;
    auto encoder = loadProbedEncoder(config, s.device, s.plan.modelPath);
    if (!encoder)
        return encoder.error();
    s.encoder = std::move(*encoder);
    const EncoderInfo &info = s.encoder->info();
    auto layers = parseProbeRunLayers(config.layers, info.layers);
    if (!layers)
        return layers.error();
    s.plan.layers = *layers;
    if (auto st = choosePoolings(config, info, s.plan); !st)
        return st.error();
    auto data = readProbeData(config, info.maxTokens > 0 ? info.maxTokens - (info.hasClsToken ? 1 : 0) : 0);
    if (!data)
        return data.error();
    s.data = std::move(*data);
    if (config.where)
        if (auto st = restrictProbeRun(s); !st)
            return st.error();
    return s;
}

/// The features file a run with these tasks needs (runfeaturefile.h).
Result<ProbeFeatureLayout> featureLayoutFor(const ProbeSetup &s)
{
    const ProbeRunConfig &config = s.config;
    std::vector<std::string> files;
    for (const auto *split : {&config.train, &config.dev, &config.test}) {
        if (split->empty() && !(split == &config.train   ? config.trainSentences
                                : split == &config.dev ? config.devSentences
                                                       : config.testSentences)
                                   .empty())
            return Error{"features files need every corpus in files"};
        files.insert(files.end(), split->begin(), split->end());
    }
    ProbeFeatureLayout l;
    auto model = inputIdentity(s.plan.modelPath);
    if (!model)
        return model.error();
    auto input = inputIdentity(files);
    if (!input)
        return input.error();
    l.model = *model;
    l.input = *input;
    l.family = s.encoder->info().family;
    const ProbeData &d = s.data;
    if (d.oneCorpus)
        l.splits = {{"corpus", d.corpus.size()}};
    else
        l.splits = {{"train", d.train.size()}, {"dev", d.dev.size()}, {"test", d.test.size()}};
    l.layers = s.plan.layers;
    l.dim = s.encoder->info().dModel;
    const bool sentence = !s.sentenceTasks.empty();
    const auto &p = s.plan.poolings;
    l.cls = sentence && std::find(p.begin(), p.end(), "cls") != p.end();
    l.mean = sentence && std::find(p.begin(), p.end(), "mean") != p.end();
    l.words = !s.structuralTasks.empty();
    l.randomInit = config.runsRandomInit();
    l.randomInitSeed = config.seed;
    l.encoderBatch = config.encoderBatch;
    l.precision = config.precision;
    if (config.where)
        l.where = config.where->syntax + " " + config.where->pattern;
    return l;
}

} // namespace

Result<ProbeRunReport> runProbes(const ProbeRunConfig &configIn, const ProbeRunCallbacks &callbacks,
                                 const RunControl *runControl)
{
    const auto tStart = ProbeClock::now();
    auto setup = setUpProbeRun(configIn);
    if (!setup)
        return setup.error();
    ProbeRunConfig &config = setup->config;
    const ProbeRunContext ctx(callbacks, runControl);
    ProbeRunPlan &plan = setup->plan;
    const auto &sentenceTasks = setup->sentenceTasks;
    const auto &structuralTasks = setup->structuralTasks;
    const auto &attentionTasks = setup->attentionTasks;
    const DeviceConfig &device = setup->device;
    Encoder &encoder = *setup->encoder;
    const EncoderInfo &info = encoder.info();
    ProbeData &data = setup->data;

    ProbeRunReport report;
    report.where = setup->where;
    if (report.where)
        ProgressLine(ctx) << "where: " << report.where->sentencesMatched << " of " << report.where->sentences
                          << " sentences have an occurrence (" << report.where->occurrences << "); head-accuracy arcs "
                          << report.where->arcs << ": " << report.where->arcCount;
    // 1-2. Data (read above) and trees.
    auto trees = prepareProbeTrees(ctx, data, config, plan.tasks);
    if (!trees)
        return trees.error();
    report.timing.loadAndTrees = secondsSince(tStart);
    report.timing.parse = trees->parseSeconds;
    ProgressLine(ctx) << data.size() << " sentences (" << data.splitText << "); constituency trees: "
                      << trees->constituencyText() << "; dependency trees: " << trees->dependencyText();

    // 3-4. Features (extracted, or read from a features file) and probes.
    const bool probesTrain = !sentenceTasks.empty() || !structuralTasks.empty();
    std::unique_ptr<Encoder> randomEncoder;
    std::optional<ProbeFeatureFile> featureFile;
    if (!config.featuresFile.empty() && probesTrain) {
        auto file = ProbeFeatureFile::open(config.featuresFile);
        if (!file)
            return file.error();
        auto wanted = featureLayoutFor(*setup);
        if (!wanted)
            return wanted.error();
        if (const std::string why = probeFeatureMismatch(file->layout(), *wanted); !why.empty())
            return Error{"features " + config.featuresFile + " do not fit this run: " + why};
        featureFile = std::move(*file);
        ProgressLine(ctx) << "features from " << config.featuresFile;
    } else if (config.runsRandomInit() && probesTrain) {
        auto r = randomEncoderLike(plan.modelPath, config.seed, device);
        if (!r)
            return r.error();
        randomEncoder = std::move(*r);
    }
    ProbeTrainingPlan training{plan.layers, plan.poolings, &encoder, randomEncoder.get(), config.runsControl()};
    training.withRandomInit = config.runsRandomInit();
    training.featureFile = featureFile ? &*featureFile : nullptr;
    auto sentence = runSentenceProbes(ctx, data, *trees, config, sentenceTasks, training, report.timing);
    if (!sentence)
        return sentence.error();
    auto structural =
        runStructuralProbes(ctx, data, *trees, config, structuralTasks, training, report.structural, report.timing);
    if (!structural)
        return structural.error();
    randomEncoder.reset();

    // 5. Attention.
    auto attention = runAttentionTasks(ctx, encoder, data, *trees, config, attentionTasks, report.timing);
    if (!attention)
        return attention.error();

    // 6. Report.
    report.command = config.commandLine;
    report.treelensVersion = TREELENS_VERSION;
    report.model = probeRunModel(plan.modelPath, info);
    report.settings = probeRunSettings(config, plan, *trees, info.dModel);
    report.data = probeRunData(config, data, *trees, !sentenceTasks.empty() || !structuralTasks.empty());
    report.sentenceTasks = std::move(*sentence);
    report.structuralTasks = std::move(*structural);
    report.attention = std::move(attention->attention);
    report.induction = std::move(attention->induction);
    finishProbeReport(report);
    report.timing.total = secondsSince(tStart);
    ProgressLine(ctx) << "done in " << probeFixed(report.timing.total, 1) << " s";
    return report;
}

std::size_t probeFeatureBlock(int encoderBatch)
{
    const auto b = static_cast<std::size_t>(std::max(1, encoderBatch));
    return (512 + b - 1) / b * b;
}

Result<std::size_t> extractProbeRunFeatures(const ProbeRunConfig &configIn, const ShardSpec &shard,
                                            const ProbeFeatureSink &sink, const ProbeRunCallbacks &callbacks,
                                            const RunControl *runControl)
{
    const auto tStart = ProbeClock::now();
    if (!configIn.featuresFile.empty())
        return Error{"a features extraction reads no features file (features file " + configIn.featuresFile + ")"};
    auto setup = setUpProbeRun(configIn);
    if (!setup)
        return setup.error();
    const ProbeRunContext ctx(callbacks, runControl);
    const ProbeRunConfig &config = setup->config;
    std::string attention; // left to the run on the features: they read attention matrices
    for (const auto &t : setup->attentionTasks)
        attention += (attention.empty() ? "" : ", ") + t;
    if (setup->sentenceTasks.empty() && setup->structuralTasks.empty())
        return Error{"tasks: no sentence or structural task, so no features to extract" +
                     (attention.empty() ? std::string()
                                        : " (the attention tasks " + attention + " read attention matrices: run them as one job)")};
    if (!attention.empty())
        ProgressLine(ctx) << "the attention tasks (" << attention
                          << ") read attention matrices, not features: the run on the features runs them";
    Encoder &encoder = *setup->encoder;
    const EncoderInfo &info = encoder.info();
    if (!info.outputs.layerStates) // as extractFeatures() says it, before any file is written
        return Error{"features: the " + info.family + " encoder does not emit hidden states per layer" +
                     (info.pairInput ? std::string(" (it reads the two sentences of a pair together: probe its pair "
                                                   "vectors with treelens-cli probe-pairs)")
                                     : std::string())};
    ProbeData &data = setup->data;
    // The trees the encoder reads must be the whole run's: the head-rule dependencies are
    // (they depend on the sentence alone); predicted constituency trees are not made here.
    addHeadRuleDependencies(data);
    if (readsTree(info.input, TreeKind::Constituency) && config.treeSource == "parsed")
        return Error{"the " + info.family + " encoder reads constituency trees and tree source parsed predicts them for the "
                     "whole run: parse the corpus first (treelens-cli parse, with --shard on a cluster) and probe the parsed corpus"};
    auto layout = featureLayoutFor(*setup);
    if (!layout)
        return layout.error();
    const auto starts = probeFeatureBlockStarts(data, probeFeatureBlock(config.encoderBatch));
    const ShardRange range = shard.active() ? shardRangeByGroups(starts, data.size(), shard) : ShardRange{0, data.size()};
    // An encoder that reads a tree: every sentence of the range has it (the whole run would predict missing ones).
    if (info.input != InputKind::Words) {
        const bool dep = readsTree(info.input, TreeKind::Dependency);
        const auto sentences = probeSentences(data);
        for (std::size_t i = range.begin; i < range.end; ++i) {
            const Sentence &s = *sentences[i];
            if (!s.tokens.empty() && (dep ? !s.dependency : !s.constituency))
                return Error{"sentence " + std::to_string(i + 1) + (s.id.empty() ? "" : " (" + s.id + ")") + ": the " +
                             info.family + " encoder reads " + (dep ? "dependency" : "constituency") +
                             " trees and it has none: parse the corpus first (treelens-cli parse, with --shard on a "
                             "cluster) and probe the parsed corpus"};
        }
    }
    std::unique_ptr<Encoder> randomEncoder;
    if (layout->randomInit) {
        auto r = randomEncoderLike(setup->plan.modelPath, config.seed, setup->device);
        if (!r)
            return r.error();
        randomEncoder = std::move(*r);
    }
    ProgressLine(ctx) << "features of sentences " << range.begin + 1 << ".." << range.end << " of " << data.size() << " ("
                      << data.splitText << ")" << (shard.active() ? ", shard " + shard.str() : std::string());
    if (sink.begin)
        if (auto st = sink.begin(data.size(), range); !st)
            return st.error();
    if (auto st = sink.write(layout->line()); !st)
        return st.error();
    auto written = writeProbeFeatureRecords(ctx, encoder, randomEncoder.get(), data, *layout, starts, range, sink.write);
    if (!written)
        return written.error();
    ProgressLine(ctx) << "extracted in " << probeFixed(secondsSince(tStart), 1) << " s";
    return written;
}

} // namespace treelens
