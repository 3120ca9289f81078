// proberun: one probing run over a corpus (TreeLens issue 6); see proberun.h.
//
// Only the order of the stages lives here: each stage is a unit of its own
// (core/probing/run{data,trees,features,probes,attention,report}.h) with its own
// tests. `treelens-cli probe` and the GUI's Probing dock both run this.
#include "core/probing/proberun.h"

#include <algorithm>
#include <memory>

#include "core/encoders/common/randominit.h"
#include "core/encoders/encoder.h"
#include "core/probing/runattention.h"
#include "core/probing/rundata.h"
#include "core/probing/runprobes.h"
#include "core/probing/runreport.h"
#include "core/probing/runtrees.h"

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
            return Error{"probe device: " + d.message()};
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

} // namespace

Result<ProbeRunReport> runProbes(const ProbeRunConfig &configIn, const ProbeRunCallbacks &callbacks,
                                 const RunControl *runControl)
{
    ProbeRunConfig config = configIn; // probeDevice "auto" becomes the encoder's device once it is loaded
    const ProbeRunContext ctx(callbacks, runControl);
    const auto tStart = ProbeClock::now();
    if (auto s = config.validate(); !s)
        return s.error();
    ProbeRunPlan plan;
    plan.tasks = *parseProbeRunTasks(config.tasks);
    const auto sentenceTasks = tasksOf(plan.tasks, probeRunSentenceTasks());
    const auto structuralTasks = tasksOf(plan.tasks, probeRunStructuralTasks());
    const auto attentionTasks = tasksOf(plan.tasks, probeRunAttentionTasks());

    DeviceConfig device;
    device.device = config.device;
    device.threads = config.threads;
    device.batchSize = config.encoderBatch;
    device.precision = config.precision;
    auto encoder = loadProbedEncoder(config, device, plan.modelPath);
    if (!encoder)
        return encoder.error();
    const EncoderInfo &info = (*encoder)->info();
    auto layers = parseProbeRunLayers(config.layers, info.layers);
    if (!layers)
        return layers.error();
    plan.layers = *layers;
    if (auto s = choosePoolings(config, info, plan); !s)
        return s.error();

    ProbeRunReport report;
    // 1-2. Data and trees.
    const auto tLoad = ProbeClock::now();
    auto data = readProbeData(config, info.maxTokens > 0 ? info.maxTokens - (info.hasClsToken ? 1 : 0) : 0);
    if (!data)
        return data.error();
    auto trees = prepareProbeTrees(ctx, *data, config, plan.tasks);
    if (!trees)
        return trees.error();
    report.timing.loadAndTrees = secondsSince(tLoad);
    report.timing.parse = trees->parseSeconds;
    ProgressLine(ctx) << data->size() << " sentences (" << data->splitText << "); constituency trees: "
                      << trees->constituencyText() << "; dependency trees: " << trees->dependencyText();

    // 3-4. Features and probes.
    std::unique_ptr<Encoder> randomEncoder;
    if (config.runsRandomInit() && (!sentenceTasks.empty() || !structuralTasks.empty())) {
        auto r = randomEncoderLike(plan.modelPath, config.seed, device);
        if (!r)
            return r.error();
        randomEncoder = std::move(*r);
    }
    const ProbeTrainingPlan training{plan.layers, plan.poolings, encoder->get(), randomEncoder.get(),
                                     config.runsControl()};
    auto sentence = runSentenceProbes(ctx, *data, *trees, config, sentenceTasks, training, report.timing);
    if (!sentence)
        return sentence.error();
    auto structural =
        runStructuralProbes(ctx, *data, *trees, config, structuralTasks, training, report.structural, report.timing);
    if (!structural)
        return structural.error();
    randomEncoder.reset();

    // 5. Attention.
    auto attention = runAttentionTasks(ctx, **encoder, *data, *trees, config, attentionTasks, report.timing);
    if (!attention)
        return attention.error();

    // 6. Report.
    report.command = config.commandLine;
    report.treelensVersion = TREELENS_VERSION;
    report.model = probeRunModel(plan.modelPath, info);
    report.settings = probeRunSettings(config, plan, *trees, info.dModel);
    report.data = probeRunData(config, *data, *trees, !sentenceTasks.empty() || !structuralTasks.empty());
    report.sentenceTasks = std::move(*sentence);
    report.structuralTasks = std::move(*structural);
    report.attention = std::move(attention->attention);
    report.induction = std::move(attention->induction);
    finishProbeReport(report);
    report.timing.total = secondsSince(tStart);
    ProgressLine(ctx) << "done in " << probeFixed(report.timing.total, 1) << " s";
    return report;
}

} // namespace treelens
