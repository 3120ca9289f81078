#pragma once
/// \file trainer.h
/// The one training loop (internal to core: LibTorch types). A family's trainer
/// is a TrainTask — its model, its data batching and its metric — and
/// runTraining() does the rest for every family alike: seeding, the optimiser
/// and schedule of the recipe, gradient clipping, dev evaluation and best-model
/// selection, early stopping, atomic checkpoints with optimiser state, exact
/// resume, a JSON Lines log and one typed progress report.
///
/// Determinism: batch k of epoch e must depend only on (recipe.seed, e, k), and
/// any randomness of a step (masking, word dropout) only on the `rng` passed in;
/// LibTorch's generator is re-seeded before every step from (seed, step). A run
/// resumed from a checkpoint then reproduces the uninterrupted run exactly.
///
/// Checkpoint file (safetensors, written atomically): "model.<name>" weights
/// (f32), "optim.<slot>.<name>" optimiser state, and metadata treelens.config /
/// treelens.vocab (the task's model file at that point), treelens.recipe and
/// treelens.train_state ({"step", "epoch", "batch", "best", "since_best",
/// "evaluations", "elapsed_seconds", "cpu_seconds", "optimizer_steps"}). Log
/// events carry elapsed_s (wall clock) and cpu_s (process CPU time, all
/// threads), both summed over every session of the run.

#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>

#include <torch/types.h>

#include "core/base/result.h"
#include "core/base/runcontrol.h"
#include "core/model/modelfile.h"
#include "core/training/optimizer.h"
#include "core/training/recipe.h"
#include "core/training/trainprogress.h"

namespace treelens::training {

/// What one training step computed.
struct StepResult {
    torch::Tensor loss;       ///< scalar, with a graph to the parameters
    double units = 0.0;       ///< words/tokens in the batch (throughput)
    double correct = 0.0;     ///< for the family's training accuracy (0/0 = none)
    double predicted = 0.0;
};

/// A dev evaluation.
struct DevResult {
    double value = NAN;       ///< NaN = no dev data
    std::string detailsJson = "{}"; ///< the family's figures, logged and stored in the best model
    std::string summary;      ///< the same in words, for the progress line
};

/// What prepare() read, for the log and the first progress report.
struct DataSummary {
    std::string text;         ///< one line ("12,543 sentences, 204,211 words, vocabulary 8,000")
    std::string json = "{}";  ///< the same as a JSON object (logged with the start event)
};

/// Which model file a task is asked for.
struct SnapshotInfo {
    enum class Kind { Checkpoint, Best, Last } kind = Kind::Checkpoint;
    long step = 0;
    int epoch = 0;            ///< epochs completed
    double elapsedSeconds = 0.0;
    DevResult dev;            ///< the latest evaluation (Best: the one that made it best)
};

class TrainTask {
public:
    virtual ~TrainTask() = default;

    /// Reads the data, builds vocabularies and the network on `device`: fresh,
    /// or (resume != nullptr) from a checkpoint's model file — its vocabularies
    /// and weights (tensor names without the "model." prefix). Returns what it
    /// read, for the log and the progress report.
    virtual Result<DataSummary> prepare(const TrainRecipe &recipe, const ModelFile *resume, const torch::Device &device) = 0;
    /// Every trainable tensor, by name, in a fixed order.
    virtual NamedParameters parameters() = 0;
    /// Batches in 0-based epoch `epoch` (at least 1).
    virtual long batchesInEpoch(int epoch) = 0;
    /// Forward pass and loss of batch `batch` of `epoch`, in training mode.
    virtual Result<StepResult> trainStep(int epoch, long batch, std::mt19937_64 &rng) = 0;
    /// Scores the current weights on the dev data (NaN value when there is none).
    virtual Result<DevResult> evaluate() = 0;
    /// The dev metric's name and direction.
    virtual std::string metricName() const = 0;
    virtual bool higherIsBetter() const { return true; }
    /// What the throughput counts ("words", "tokens").
    virtual std::string unitName() const { return "words"; }
    /// The model file of the current weights (f32 tensors): Checkpoint for the
    /// checkpoint (with what resuming needs), Best/Last for the output file.
    virtual ModelFile snapshot(const SnapshotInfo &info) = 0;
    /// After the loop, with the output written: the family's final report (for
    /// example test scores with full decoding, stored in the output's config).
    /// Returns a line for the progress report ("" = none).
    virtual Result<std::string> finish(const TrainRecipe &recipe, double elapsedSeconds) { return std::string(); }
};

/// Trains `task` by `recipe` (already validated), from scratch or from
/// `resumeFrom` (a checkpoint written by this function). Stops early, after
/// writing a checkpoint, when control->isCancelled().
Status runTraining(TrainTask &task, const TrainRecipe &recipe, const std::string &resumeFrom,
                   const std::function<void(const TrainProgress &)> &onProgress, const RunControl *control);

/// What an output model file's config says of its training (JSON text): the recipe,
/// steps, epochs, wall time, the dev figures of the kept model and the family's data
/// summary (`dataJson`); "{}" for a checkpoint (SnapshotInfo::Kind::Checkpoint).
std::string snapshotTrainingJson(const SnapshotInfo &info, const TrainRecipe &recipe, const std::string &dataJson);

/// The family's dtype for the output file.
DType storageType(const std::string &storage);

/// What the trainers of classifiers share.
/// The tensors of `named` that take gradients, in name order (TrainTask::parameters()).
NamedParameters trainableParameters(const std::map<std::string, torch::Tensor> &named);
/// Batches of `batchSize` over `units` (at least 1).
long batchesOver(std::size_t units, int batchSize);
/// The output file written by the loop when the recipe keeps the best dev model (so that
/// finish() scores those weights); none when it keeps the last weights or writes no file.
Result<std::optional<ModelFile>> keptBestOutput(const TrainRecipe &recipe);
/// Stores `testJson` as the kept output's treelens.config training.test and rewrites it.
Status storeTestReport(const TrainRecipe &recipe, ModelFile &kept, const std::string &testJson);

} // namespace treelens::training
