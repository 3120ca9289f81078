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

    TrainLog log(recipe.log);
    log.write({{"event", resumeFrom.empty() ? "start" : "resume"},
               {"step", st.step},
               {"epoch", st.epoch},
               {"data", json::parse(data->json)},
               {"recipe", json::parse(recipe.toJson())}});
    const auto t0 = Clock::now();
    auto elapsed = [&] { return st.elapsedBefore + std::chrono::duration<double>(Clock::now() - t0).count(); };
    const double cpu0 = processCpuSeconds();
    auto cpu = [&] { return st.cpuBefore + processCpuSeconds() - cpu0; };
    const long stepsAtStart = st.step;
    const bool higher = task.higherIsBetter();
    auto report = [&](TrainProgress p) {
        p.step = st.step;
        p.steps = recipe.steps;
        // Between epochs (the evaluation at an epoch's end, the final report) st.epoch
        // already counts the next one: the report is about the epoch just finished,
        // all its batches done ("epoch 1/1 batch 24/24", not "epoch 2/1 batch 0/0").
        const bool betweenEpochs = st.batch == 0 && st.epoch > 0;
        p.epoch = betweenEpochs ? st.epoch : st.epoch + 1;
        if (p.batches == 0) {
            p.batches = task.batchesInEpoch(betweenEpochs ? st.epoch - 1 : st.epoch);
            p.batch = betweenEpochs ? p.batches : st.batch;
        }
        p.epochs = recipe.epochs;
        p.elapsedSeconds = elapsed();
        p.metric = task.metricName();
        p.higherIsBetter = higher;
        p.bestDevMetric = st.best;
        if (onProgress)
            onProgress(p);
    };
    {
        TrainProgress p;
        p.event = TrainProgress::Event::Started;
        p.message = (resumeFrom.empty() ? "data: " : "resumed at step " + std::to_string(st.step) + "; data: ") + data->text;
        report(p);
    }

    DevResult lastDev;
    auto evaluate = [&]() -> Result<bool> { // true = stop early
        auto dev = task.evaluate();
        if (!dev)
            return dev.error();
        lastDev = *dev;
        ++st.evaluations;
        const double v = dev->value;
        const bool improved = !std::isnan(v) && (std::isnan(st.best) || (higher ? v > st.best : v < st.best));
        if (improved) {
            st.best = v;
            st.sinceBest = 0;
        } else if (!std::isnan(v)) {
            ++st.sinceBest;
        }
        if (improved && recipe.keep == "best") {
            SnapshotInfo info{SnapshotInfo::Kind::Best, st.step, st.epoch, elapsed(), *dev};
            if (auto s = writeOutput(recipe.output, task.snapshot(info), recipe.storage); !s)
                return s.error();
        }
        log.write({{"event", "eval"},
                   {"step", st.step},
                   {"epoch", st.epoch},
                   {"metric", task.metricName()},
                   {"value", std::isnan(v) ? json(nullptr) : json(v)},
                   {"best", std::isnan(st.best) ? json(nullptr) : json(st.best)},
                   {"improved", improved},
                   {"saved", improved && recipe.keep == "best"},
                   {"details", json::parse(dev->detailsJson)},
                   {"elapsed_s", elapsed()},
                   {"cpu_s", cpu()}});
        TrainProgress p;
        p.event = TrainProgress::Event::Evaluated;
        p.devMetric = v;
        p.improved = improved;
        p.devSummary = dev->summary;
        if (improved && recipe.keep == "best")
            p.message = "best so far: model saved";
        report(p);
        return recipe.patience > 0 && st.sinceBest >= recipe.patience;
    };
    auto checkpoint = [&]() -> Status {
        if (recipe.checkpoint.empty())
            return {};
        SnapshotInfo info{SnapshotInfo::Kind::Checkpoint, st.step, st.epoch, elapsed(), lastDev};
        if (auto s = writeCheckpoint(recipe.checkpoint, task.snapshot(info), optimizer, st, elapsed(), cpu(), recipe); !s)
            return s;
        log.write({{"event", "checkpoint"}, {"step", st.step}, {"epoch", st.epoch}, {"batch", st.batch}, {"elapsed_s", elapsed()}});
        TrainProgress p;
        p.event = TrainProgress::Event::Checkpointed;
        report(p);
        return {};
    };
    auto budgetSpent = [&] {
        return (recipe.steps > 0 && st.step >= recipe.steps) || (recipe.epochs > 0 && st.epoch >= recipe.epochs);
    };
    long lastEvalStep = -1, lastCheckpointStep = -1;
    /// A dev evaluation and/or a checkpoint after the current step; true = stop early.
    auto point = [&](bool eval, bool save) -> Result<bool> {
        bool stopNow = false;
        if (eval) {
            lastEvalStep = st.step;
            auto s = evaluate();
            if (!s)
                return s.error();
            stopNow = *s;
        }
        if (save) {
            lastCheckpointStep = st.step;
            if (auto s = checkpoint(); !s)
                return s.error();
        }
        return stopNow;
    };

    // The run's last step, for a linear decay: the step budget, else epochs × the batches of an epoch.
    long lastStep = recipe.steps;
    if (lastStep == 0 && recipe.epochs > 0) {
        for (int e = 0; e < recipe.epochs; ++e)
            lastStep += task.batchesInEpoch(e);
    }
    Window window;
    bool stop = false;
    while (!stop && !budgetSpent()) {
        const long batches = task.batchesInEpoch(st.epoch);
        while (st.batch < batches && !stop) {
            if (recipe.steps > 0 && st.step >= recipe.steps)
                break;
            if (control && control->isCancelled()) {
                if (auto s = checkpoint(); !s)
                    return s;
                return makeError("training", "cancelled at step " + std::to_string(st.step) +
                                                 (recipe.checkpoint.empty() ? "" : " (checkpoint saved; resume from it)"));
            }
            std::mt19937_64 rng(recipe.seed * 7919ull + static_cast<unsigned long long>(st.step));
            torch::manual_seed(recipe.seed * 104729ull + static_cast<unsigned long long>(st.step));
            auto out = task.trainStep(st.epoch, st.batch, rng);
            if (!out)
                return out.error();
            optimizer.zeroGrad();
            out->loss.backward();
            const double lr = recipe.schedule.rate(recipe.optimizer.lr, st.step + 1, st.epoch, lastStep);
            optimizer.step(lr);
            const double lossValue = out->loss.item<double>();
            if (!std::isfinite(lossValue))
                return makeError("training", "the loss is " + std::to_string(lossValue) + " at step " + std::to_string(st.step + 1) +
                                                 " (lower the learning rate?)");
            window.loss += lossValue;
            window.correct += out->correct;
            window.predicted += out->predicted;
            window.units += out->units;
            ++window.steps;
            ++st.step;
            ++st.batch;
            const bool lastOfRun = (recipe.steps > 0 && st.step >= recipe.steps) || st.batch == batches;
            if (st.step % recipe.logEvery == 0 || lastOfRun) {
                const double secs = std::chrono::duration<double>(Clock::now() - window.start).count();
                TrainProgress p;
                p.event = TrainProgress::Event::Batch;
                p.batch = st.batch;
                p.batches = batches;
                p.loss = window.loss / static_cast<double>(std::max(1L, window.steps));
                p.accuracy = window.predicted > 0 ? window.correct / window.predicted : NAN;
                p.lr = lr;
                p.stepsPerSecond = secs > 0 ? static_cast<double>(window.steps) / secs : NAN;
                p.unitsPerSecond = secs > 0 && window.units > 0 ? window.units / secs : NAN;
                p.unit = task.unitName();
                const double sessionSecs = std::chrono::duration<double>(Clock::now() - t0).count();
                const double perStep = sessionSecs / static_cast<double>(std::max(1L, st.step - stepsAtStart));
                long remaining = 0;
                if (recipe.steps > 0)
                    remaining = recipe.steps - st.step;
                else
                    remaining = (batches - st.batch) + static_cast<long>(std::max(0, recipe.epochs - st.epoch - 1)) * batches;
                p.etaSeconds = perStep * static_cast<double>(remaining);
                report(p);
                log.write({{"event", "batch"},
                           {"step", st.step},
                           {"epoch", st.epoch + 1},
                           {"batch", st.batch},
                           {"batches", batches},
                           {"loss", p.loss},
                           {"accuracy", std::isnan(p.accuracy) ? json(nullptr) : json(p.accuracy)},
                           {"lr", lr},
                           {"steps_per_s", std::isnan(p.stepsPerSecond) ? json(nullptr) : json(p.stepsPerSecond)},
                           {"units_per_s", std::isnan(p.unitsPerSecond) ? json(nullptr) : json(p.unitsPerSecond)},
                           {"unit", p.unit},
                           {"elapsed_s", elapsed()},
                           {"cpu_s", cpu()}});
                window.reset();
            }
            const bool save = recipe.checkpointEvery > 0 && st.step % recipe.checkpointEvery == 0;
            const bool eval = recipe.evalEvery > 0 ? st.step % recipe.evalEvery == 0 : save;
            if (save || eval) {
                auto s = point(eval, save);
                if (!s)
                    return s.error();
                stop = *s;
            }
        }
        if (stop || (recipe.steps > 0 && st.step >= recipe.steps && st.batch < batches))
            break;
        // End of the epoch.
        st.batch = 0;
        ++st.epoch;
        if (recipe.checkpointEvery == 0) {
            auto s = point(recipe.evalEvery == 0, true);
            if (!s)
                return s.error();
            stop = *s;
        }
    }
    // The last weights are evaluated and checkpointed (unless that just happened:
    // a budget that ends between checkpoint points, or a run resumed at its end).
    if (lastEvalStep != st.step || lastCheckpointStep != st.step) {
        auto s = point(lastEvalStep != st.step, lastCheckpointStep != st.step);
        if (!s)
            return s.error();
    }
    // keep "best" without any dev figure (no dev data): the last weights are all there is.
    if (recipe.keep == "last" || std::isnan(st.best)) {
        if (recipe.keep == "best")
            log.write({{"event", "note"}, {"message", "no dev evaluation improved: the output holds the last weights"}});
        SnapshotInfo info{SnapshotInfo::Kind::Last, st.step, st.epoch, elapsed(), lastDev};
        if (auto s = writeOutput(recipe.output, task.snapshot(info), recipe.storage); !s)
            return s;
    }
    auto finalReport = task.finish(recipe, elapsed());
    if (!finalReport)
        return finalReport.error();
    log.write({{"event", "final"}, {"step", st.step}, {"epoch", st.epoch}, {"elapsed_s", elapsed()}, {"report", *finalReport}});
    TrainProgress p;
    p.event = TrainProgress::Event::Finished;
    p.message = "wrote " + recipe.output + (finalReport->empty() ? "" : "; " + *finalReport);
    report(p);
    return {};
}

} // namespace treelens::training
