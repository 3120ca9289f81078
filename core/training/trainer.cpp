// trainer: the one training loop of every family (see trainer.h).
#include "core/training/trainer.h"

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sys/resource.h>

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "core/base/strings.h"
#include "core/model/safetensors.h"
#include "core/runtime/device.h"

namespace treelens::training {

using nlohmann::json;

std::string snapshotTrainingJson(const SnapshotInfo &info, const TrainRecipe &recipe, const std::string &dataJson)
{
    if (info.kind == SnapshotInfo::Kind::Checkpoint)
        return "{}";
    return json{{"recipe", json::parse(recipe.toJson())},
                {"steps", info.step},
                {"epochs", info.epoch},
                {"elapsed_seconds", info.elapsedSeconds},
                {"dev", json::parse(info.dev.detailsJson)},
                {"data", json::parse(dataJson)}}
        .dump();
}

DType storageType(const std::string &storage)
{
    return storage == "f32" ? DType::F32 : storage == "bf16" ? DType::BF16 : DType::F16;
}

NamedParameters trainableParameters(const std::map<std::string, torch::Tensor> &named)
{
    NamedParameters v;
    for (const auto &[name, t] : named)
        if (t.requires_grad())
            v.push_back({name, t});
    return v;
}

long batchesOver(std::size_t units, int batchSize)
{
    return std::max<long>(1, (static_cast<long>(units) + batchSize - 1) / batchSize);
}

Result<std::optional<ModelFile>> keptBestOutput(const TrainRecipe &recipe)
{
    if (recipe.keep != "best" || recipe.output.empty())
        return std::optional<ModelFile>();
    auto f = loadModelFile(recipe.output);
    if (!f)
        return f.error();
    return std::optional<ModelFile>(std::move(*f));
}

Status storeTestReport(const TrainRecipe &recipe, ModelFile &kept, const std::string &testJson)
{
    json c = json::parse(kept.configJson);
    c["training"]["test"] = json::parse(testJson);
    kept.configJson = c.dump();
    return saveModelFile(recipe.output, kept, storageType(recipe.storage));
}

namespace {

using Clock = std::chrono::steady_clock;

/// The JSON Lines log: one object per line, flushed at once (a crash loses nothing).
class TrainLog {
public:
    explicit TrainLog(const std::string &path)
    {
        if (path.empty())
            return;
        const auto dir = std::filesystem::path(path).parent_path();
        std::error_code ec;
        if (!dir.empty())
            std::filesystem::create_directories(dir, ec);
        m_out.open(path, std::ios::app);
    }
    void write(const json &j)
    {
        if (m_out.is_open())
            m_out << j.dump() << '\n' << std::flush;
    }

private:
    std::ofstream m_out;
};

/// Where a run stands; what a checkpoint records besides weights and optimiser state.
struct RunState {
    long step = 0;          ///< optimisation steps done
    int epoch = 0;          ///< 0-based epoch in progress
    long batch = 0;         ///< next batch of that epoch
    double best = NAN;      ///< best dev metric so far
    int sinceBest = 0;      ///< evaluations since the best
    int evaluations = 0;
    double elapsedBefore = 0.0; ///< seconds of earlier sessions
    double cpuBefore = 0.0;     ///< CPU seconds (all threads) of earlier sessions

    json toJson(double elapsed, double cpu, long optimizerSteps) const
    {
        return {{"step", step},
                {"epoch", epoch},
                {"batch", batch},
                {"best", std::isnan(best) ? json(nullptr) : json(best)},
                {"since_best", sinceBest},
                {"evaluations", evaluations},
                {"elapsed_seconds", elapsed},
                {"cpu_seconds", cpu},
                {"optimizer_steps", optimizerSteps}};
    }
};

struct Checkpoint {
    ModelFile model;        ///< weights without the "model." prefix
    TensorMap optimizer;    ///< "optim.*"
    RunState state;
    long optimizerSteps = 0;
};

Result<Checkpoint> readCheckpoint(const std::string &path, const std::string &family)
{
    auto file = readSafetensors(path);
    if (!file)
        return file.error();
    const auto &meta = file->metadata;
    for (const char *key : {"treelens.train_state", "treelens.config", "treelens.vocab"})
        if (!meta.count(key))
            return makeError(path, std::string("not a TreeLens training checkpoint (no ") + key + ")");
    Checkpoint ck;
    ck.model.sourcePath = path;
    ck.model.configJson = meta.at("treelens.config");
    for (auto line : splitView(meta.at("treelens.vocab"), '\n'))
        ck.model.vocab.emplace_back(line);
    while (!ck.model.vocab.empty() && ck.model.vocab.back().empty())
        ck.model.vocab.pop_back();
    try {
        const auto config = json::parse(ck.model.configJson);
        if (config.value("family", std::string()) != family)
            return makeError(path, "a checkpoint of '" + config.value("family", std::string()) + "', not of '" + family + "'");
        const auto s = json::parse(meta.at("treelens.train_state"));
        ck.state.step = s.at("step").get<long>();
        ck.state.epoch = s.at("epoch").get<int>();
        ck.state.batch = s.at("batch").get<long>();
        ck.state.best = s.at("best").is_null() ? NAN : s.at("best").get<double>();
        ck.state.sinceBest = s.at("since_best").get<int>();
        ck.state.evaluations = s.at("evaluations").get<int>();
        ck.state.elapsedBefore = s.at("elapsed_seconds").get<double>();
        ck.state.cpuBefore = s.value("cpu_seconds", 0.0);
        ck.optimizerSteps = s.at("optimizer_steps").get<long>();
        if (ck.state.step < 0 || ck.state.epoch < 0 || ck.state.batch < 0 || ck.optimizerSteps < 0)
            return makeError(path, "treelens.train_state has negative counters");
    } catch (const std::exception &e) {
        return makeError(path, std::string("treelens.train_state: ") + e.what());
    }
    for (auto &[name, t] : file->tensors) {
        if (startsWith(name, "model."))
            ck.model.tensors[name.substr(6)] = std::move(t);
        else if (startsWith(name, "optim."))
            ck.optimizer[name] = std::move(t);
        else
            return makeError(path, "unexpected tensor '" + name + "' in a training checkpoint");
    }
    return ck;
}

Status writeCheckpoint(const std::string &path, const ModelFile &model, const Optimizer &optimizer, const RunState &state,
                       double elapsed, double cpu, const TrainRecipe &recipe)
{
    TensorMap all;
    for (const auto &[name, t] : model.tensors)
        all["model." + name] = t;
    optimizer.saveState(all);
    std::map<std::string, std::string> meta;
    meta["treelens.config"] = model.configJson;
    meta["treelens.vocab"] = join(model.vocab, "\n");
    meta["treelens.recipe"] = recipe.toJson();
    meta["treelens.train_state"] = state.toJson(elapsed, cpu, optimizer.steps()).dump();
    const auto dir = std::filesystem::path(path).parent_path();
    std::error_code ec;
    if (!dir.empty())
        std::filesystem::create_directories(dir, ec);
    return writeSafetensors(path, all, meta);
}

Status writeOutput(const std::string &path, const ModelFile &file, const std::string &storage)
{
    const auto dir = std::filesystem::path(path).parent_path();
    std::error_code ec;
    if (!dir.empty())
        std::filesystem::create_directories(dir, ec);
    return saveModelFile(path, file, storageType(storage));
}

/// CPU seconds of this process so far, all threads (user + system).
double processCpuSeconds()
{
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
           static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

/// Means over the steps since the last progress report.
struct Window {
    double loss = 0.0, correct = 0.0, predicted = 0.0, units = 0.0;
    long steps = 0;
    Clock::time_point start = Clock::now();
    void reset() { *this = Window{}; }
};

/// One run of the loop after its setup: the task, its optimiser and where the run
/// stands, with the stages of the loop (steps, progress reports, evaluations,
/// checkpoints, the final output) as methods.
class TrainingRun {
public:
    TrainingRun(TrainTask &task, const TrainRecipe &recipe, Optimizer &optimizer, const RunState &state,
                const std::function<void(const TrainProgress &)> &onProgress)
        : m_task(task), m_recipe(recipe), m_optimizer(optimizer), m_st(state), m_onProgress(onProgress),
          m_log(recipe.log), m_higher(task.higherIsBetter())
    {
    }

    /// The start (or resume) event, then the clocks start.
    void start(bool resumed, const DataSummary &data)
    {
        m_log.write({{"event", resumed ? "resume" : "start"},
                     {"step", m_st.step},
                     {"epoch", m_st.epoch},
                     {"data", json::parse(data.json)},
                     {"recipe", json::parse(m_recipe.toJson())}});
        m_t0 = Clock::now();
        m_cpu0 = processCpuSeconds();
        m_stepsAtStart = m_st.step;
        TrainProgress p;
        p.event = TrainProgress::Event::Started;
        p.message = (!resumed ? "data: " : "resumed at step " + std::to_string(m_st.step) + "; data: ") + data.text;
        report(p);
    }

    /// The epochs until the budget is spent, early stopping or cancellation.
    Status trainEpochs(const RunControl *control)
    {
        m_lastStep = lastStepOfRun();
        m_window.reset(); // throughput counts from the first step
        bool stop = false;
        while (!stop && !budgetSpent()) {
            const long batches = m_task.batchesInEpoch(m_st.epoch);
            while (m_st.batch < batches && !stop) {
                if (m_recipe.steps > 0 && m_st.step >= m_recipe.steps)
                    break;
                if (control && control->isCancelled())
                    return cancelled();
                auto s = trainStep(batches);
                if (!s)
                    return s.error();
                stop = *s;
            }
            if (stop || (m_recipe.steps > 0 && m_st.step >= m_recipe.steps && m_st.batch < batches))
                break;
            // End of the epoch.
            m_st.batch = 0;
            ++m_st.epoch;
            if (m_recipe.checkpointEvery == 0) {
                auto s = point(m_recipe.evalEvery == 0, true);
                if (!s)
                    return s.error();
                stop = *s;
            }
        }
        return {};
    }

    /// After the loop: the last weights evaluated and checkpointed, the output
    /// written (unless the best is kept), the task's final report.
    Status finish()
    {
        // The last weights are evaluated and checkpointed (unless that just happened:
        // a budget that ends between checkpoint points, or a run resumed at its end).
        if (m_lastEvalStep != m_st.step || m_lastCheckpointStep != m_st.step) {
            auto s = point(m_lastEvalStep != m_st.step, m_lastCheckpointStep != m_st.step);
            if (!s)
                return s.error();
        }
        // keep "best" without any dev figure (no dev data): the last weights are all there is.
        if (m_recipe.keep == "last" || std::isnan(m_st.best)) {
            if (m_recipe.keep == "best")
                m_log.write({{"event", "note"}, {"message", "no dev evaluation improved: the output holds the last weights"}});
            SnapshotInfo info{SnapshotInfo::Kind::Last, m_st.step, m_st.epoch, elapsed(), m_lastDev};
            if (auto s = writeOutput(m_recipe.output, m_task.snapshot(info), m_recipe.storage); !s)
                return s;
        }
        auto finalReport = m_task.finish(m_recipe, elapsed());
        if (!finalReport)
            return finalReport.error();
        m_log.write({{"event", "final"}, {"step", m_st.step}, {"epoch", m_st.epoch}, {"elapsed_s", elapsed()}, {"report", *finalReport}});
        TrainProgress p;
        p.event = TrainProgress::Event::Finished;
        p.message = "wrote " + m_recipe.output + (finalReport->empty() ? "" : "; " + *finalReport);
        report(p);
        return {};
    }

private:
    double elapsed() const { return m_st.elapsedBefore + std::chrono::duration<double>(Clock::now() - m_t0).count(); }
    double cpu() const { return m_st.cpuBefore + processCpuSeconds() - m_cpu0; }

    bool budgetSpent() const
    {
        return (m_recipe.steps > 0 && m_st.step >= m_recipe.steps) || (m_recipe.epochs > 0 && m_st.epoch >= m_recipe.epochs);
    }

    /// The run's last step, for a linear decay: the step budget, else epochs × the batches of an epoch.
    long lastStepOfRun()
    {
        long lastStep = m_recipe.steps;
        if (lastStep == 0 && m_recipe.epochs > 0) {
            for (int e = 0; e < m_recipe.epochs; ++e)
                lastStep += m_task.batchesInEpoch(e);
        }
        return lastStep;
    }

    /// Fills in where the run stands and hands `p` to the caller.
    void report(TrainProgress p)
    {
        p.step = m_st.step;
        p.steps = m_recipe.steps;
        // Between epochs (the evaluation at an epoch's end, the final report) st.epoch
        // already counts the next one: the report is about the epoch just finished,
        // all its batches done ("epoch 1/1 batch 24/24", not "epoch 2/1 batch 0/0").
        const bool betweenEpochs = m_st.batch == 0 && m_st.epoch > 0;
        p.epoch = betweenEpochs ? m_st.epoch : m_st.epoch + 1;
        if (p.batches == 0) {
            p.batches = m_task.batchesInEpoch(betweenEpochs ? m_st.epoch - 1 : m_st.epoch);
            p.batch = betweenEpochs ? p.batches : m_st.batch;
        }
        p.epochs = m_recipe.epochs;
        p.elapsedSeconds = elapsed();
        p.metric = m_task.metricName();
        p.higherIsBetter = m_higher;
        p.bestDevMetric = m_st.best;
        if (m_onProgress)
            m_onProgress(p);
    }

    /// One optimisation step on the next batch of the epoch (of `batches`), its
    /// progress report, and the evaluation/checkpoint due after it; true = stop early.
    Result<bool> trainStep(long batches)
    {
        std::mt19937_64 rng(m_recipe.seed * 7919ull + static_cast<unsigned long long>(m_st.step));
        torch::manual_seed(m_recipe.seed * 104729ull + static_cast<unsigned long long>(m_st.step));
        auto out = m_task.trainStep(m_st.epoch, m_st.batch, rng);
        if (!out)
            return out.error();
        m_optimizer.zeroGrad();
        out->loss.backward();
        const double lr = m_recipe.schedule.rate(m_recipe.optimizer.lr, m_st.step + 1, m_st.epoch, m_lastStep);
        m_optimizer.step(lr);
        const double lossValue = out->loss.item<double>();
        if (!std::isfinite(lossValue))
            return makeError("training", "the loss is " + std::to_string(lossValue) + " at step " + std::to_string(m_st.step + 1) +
                                             " (lower the learning rate?)");
        m_window.loss += lossValue;
        m_window.correct += out->correct;
        m_window.predicted += out->predicted;
        m_window.units += out->units;
        ++m_window.steps;
        ++m_st.step;
        ++m_st.batch;
        const bool lastOfRun = (m_recipe.steps > 0 && m_st.step >= m_recipe.steps) || m_st.batch == batches;
        if (m_st.step % m_recipe.logEvery == 0 || lastOfRun)
            reportBatches(batches, lr);
        const bool save = m_recipe.checkpointEvery > 0 && m_st.step % m_recipe.checkpointEvery == 0;
        const bool eval = m_recipe.evalEvery > 0 ? m_st.step % m_recipe.evalEvery == 0 : save;
        if (save || eval)
            return point(eval, save);
        return false;
    }

    /// The means of the steps since the last report (window), the throughput and
    /// the time left, reported and logged; the window starts again.
    void reportBatches(long batches, double lr)
    {
        const double secs = std::chrono::duration<double>(Clock::now() - m_window.start).count();
        TrainProgress p;
        p.event = TrainProgress::Event::Batch;
        p.batch = m_st.batch;
        p.batches = batches;
        p.loss = m_window.loss / static_cast<double>(std::max(1L, m_window.steps));
        p.accuracy = m_window.predicted > 0 ? m_window.correct / m_window.predicted : NAN;
        p.lr = lr;
        p.stepsPerSecond = secs > 0 ? static_cast<double>(m_window.steps) / secs : NAN;
        p.unitsPerSecond = secs > 0 && m_window.units > 0 ? m_window.units / secs : NAN;
        p.unit = m_task.unitName();
        const double sessionSecs = std::chrono::duration<double>(Clock::now() - m_t0).count();
        const double perStep = sessionSecs / static_cast<double>(std::max(1L, m_st.step - m_stepsAtStart));
        long remaining = 0;
        if (m_recipe.steps > 0)
            remaining = m_recipe.steps - m_st.step;
        else
            remaining = (batches - m_st.batch) + static_cast<long>(std::max(0, m_recipe.epochs - m_st.epoch - 1)) * batches;
        p.etaSeconds = perStep * static_cast<double>(remaining);
        report(p);
        m_log.write({{"event", "batch"},
                     {"step", m_st.step},
                     {"epoch", m_st.epoch + 1},
                     {"batch", m_st.batch},
                     {"batches", batches},
                     {"loss", p.loss},
                     {"accuracy", std::isnan(p.accuracy) ? json(nullptr) : json(p.accuracy)},
                     {"lr", lr},
                     {"steps_per_s", std::isnan(p.stepsPerSecond) ? json(nullptr) : json(p.stepsPerSecond)},
                     {"units_per_s", std::isnan(p.unitsPerSecond) ? json(nullptr) : json(p.unitsPerSecond)},
                     {"unit", p.unit},
                     {"elapsed_s", elapsed()},
                     {"cpu_s", cpu()}});
        m_window.reset();
    }

    /// A dev evaluation: the best so far is written when the recipe keeps the best; true = stop early (patience).
    Result<bool> evaluate()
    {
        auto dev = m_task.evaluate();
        if (!dev)
            return dev.error();
        m_lastDev = *dev;
        ++m_st.evaluations;
        const double v = dev->value;
        const bool improved = !std::isnan(v) && (std::isnan(m_st.best) || (m_higher ? v > m_st.best : v < m_st.best));
        if (improved) {
            m_st.best = v;
            m_st.sinceBest = 0;
        } else if (!std::isnan(v)) {
            ++m_st.sinceBest;
        }
        if (improved && m_recipe.keep == "best") {
            SnapshotInfo info{SnapshotInfo::Kind::Best, m_st.step, m_st.epoch, elapsed(), *dev};
            if (auto s = writeOutput(m_recipe.output, m_task.snapshot(info), m_recipe.storage); !s)
                return s.error();
        }
        m_log.write({{"event", "eval"},
                     {"step", m_st.step},
                     {"epoch", m_st.epoch},
                     {"metric", m_task.metricName()},
                     {"value", std::isnan(v) ? json(nullptr) : json(v)},
                     {"best", std::isnan(m_st.best) ? json(nullptr) : json(m_st.best)},
                     {"improved", improved},
                     {"saved", improved && m_recipe.keep == "best"},
                     {"details", json::parse(dev->detailsJson)},
                     {"elapsed_s", elapsed()},
                     {"cpu_s", cpu()}});
        TrainProgress p;
        p.event = TrainProgress::Event::Evaluated;
        p.devMetric = v;
        p.improved = improved;
        p.devSummary = dev->summary;
        if (improved && m_recipe.keep == "best")
            p.message = "best so far: model saved";
        report(p);
        return m_recipe.patience > 0 && m_st.sinceBest >= m_recipe.patience;
    }

    /// A checkpoint of the weights, the optimiser and the run state (when the recipe names one).
    Status checkpoint()
    {
        if (m_recipe.checkpoint.empty())
            return {};
        SnapshotInfo info{SnapshotInfo::Kind::Checkpoint, m_st.step, m_st.epoch, elapsed(), m_lastDev};
        if (auto s = writeCheckpoint(m_recipe.checkpoint, m_task.snapshot(info), m_optimizer, m_st, elapsed(), cpu(), m_recipe); !s)
            return s;
        m_log.write({{"event", "checkpoint"}, {"step", m_st.step}, {"epoch", m_st.epoch}, {"batch", m_st.batch}, {"elapsed_s", elapsed()}});
        TrainProgress p;
        p.event = TrainProgress::Event::Checkpointed;
        report(p);
        return {};
    }

    /// A dev evaluation and/or a checkpoint after the current step; true = stop early.
    Result<bool> point(bool eval, bool save)
    {
        bool stopNow = false;
        if (eval) {
            m_lastEvalStep = m_st.step;
            auto s = evaluate();
            if (!s)
                return s.error();
            stopNow = *s;
        }
        if (save) {
            m_lastCheckpointStep = m_st.step;
            if (auto s = checkpoint(); !s)
                return s.error();
        }
        return stopNow;
    }

    /// Cancelled between steps: a checkpoint, then the cancellation's error.
    Status cancelled()
    {
        if (auto s = checkpoint(); !s)
            return s;
        return makeError("training", "cancelled at step " + std::to_string(m_st.step) +
                                         (m_recipe.checkpoint.empty() ? "" : " (checkpoint saved; resume from it)"));
    }

    TrainTask &m_task;
    const TrainRecipe &m_recipe;
    Optimizer &m_optimizer;
    RunState m_st;
    const std::function<void(const TrainProgress &)> &m_onProgress;
    TrainLog m_log;
    const bool m_higher;
    Clock::time_point m_t0 = Clock::now();
    double m_cpu0 = 0.0;
    long m_stepsAtStart = 0;
    long m_lastStep = 0;
    DevResult m_lastDev;
    long m_lastEvalStep = -1, m_lastCheckpointStep = -1;
    Window m_window;
};

} // namespace

Status runTraining(TrainTask &task, const TrainRecipe &recipe, const std::string &resumeFrom,
                   const std::function<void(const TrainProgress &)> &onProgress, const RunControl *control)
{
    DeviceConfig dc;
    dc.device = recipe.device;
    dc.threads = recipe.threads;
    auto device = resolveDevice(dc);
    if (!device)
        return device.error();
    // The recipe's threads for the run, on this thread and OpenBLAS's pool; the
    // allocator is the program's (ComputeContext::retainFreedMemory: `train` sets it).
    const ThreadScope threads(recipe.threads);

    std::optional<Checkpoint> resume;
    if (!resumeFrom.empty()) {
        auto ck = readCheckpoint(resumeFrom, recipe.family);
        if (!ck)
            return ck.error();
        resume = std::move(*ck);
    }
    torch::manual_seed(recipe.seed); // the fresh network's initial weights
    auto data = task.prepare(recipe, resume ? &resume->model : nullptr, *device);
    if (!data)
        return data.error();
    auto optimizerR = Optimizer::create(recipe.optimizer, task.parameters());
    if (!optimizerR)
        return optimizerR.error();
    Optimizer &optimizer = **optimizerR;
    RunState st;
    if (resume) {
        if (auto s = optimizer.loadState(resume->optimizer, resume->optimizerSteps, resumeFrom); !s)
            return s;
        st = resume->state;
        resume.reset(); // the weights are in the network now
    }

    TrainingRun run(task, recipe, optimizer, st, onProgress);
    run.start(!resumeFrom.empty(), *data);
    if (auto s = run.trainEpochs(control); !s)
        return s;
    return run.finish();
}

} // namespace treelens::training
