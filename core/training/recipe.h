#pragma once
/// \file recipe.h
/// The one training recipe of every trainer (masked-LM encoders, the neural
/// parsers, and the model families to come): data paths, seed, optimiser,
/// schedule, epochs/steps, patience, checkpoint policy, precision, threads.
/// What only one family knows (its model hyper-parameters and a few task
/// options such as the masking rate) travels as JSON objects that the family
/// validates. Filled alike by recipe files and by the `train`/`train-parser`
/// flags (sherpa style: one config struct, validate(), a JSON round trip).
/// Torch-free.
///
/// Recipe file (keys in snake_case; every string under "data" is a path,
/// relative to the recipe file):
///
///     {"family": "dependency-parser", "name": "...", "output": "...", "checkpoint": "...", "log": "...",
///      "data": {"train": FILES, "dev": FILES, "test": FILES, ...family keys},
///      "model": {...family hyper-parameters},
///      "training": {"seed", "epochs", "steps", "batch_size", "batch_words", "patience",
///                   "eval_every", "checkpoint_every", "log_every", "keep", "precision", "storage",
///                   "threads", "device",
///                   "optimizer": {"kind", "lr", "beta1", "beta2", "eps", "weight_decay", "momentum",
///                                 "initial_accumulator", "clip_norm"},
///                   "schedule": {"kind", "warmup", "decay", "decay_every"}},
///      "options": {...family training options}}
///
/// FILES is a path, a list of paths, or {"dir": D, "pattern": "wsj_%04d.mrg", "first": 1, "last": 159};
/// a family's own "data" keys may be FILES too (read back as a list of paths).
/// The recipes of earlier TreeLens versions (flat optimiser keys in "training",
/// "train"/"dev"/"test"/"validation"/"tagger"/"storage"/"vocab" at the top level)
/// are read too; docs/training.md lists the mapping.

#include <exception>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/base/result.h"

namespace treelens {

struct OptimizerConfig {
    /// adam (bias-corrected, eps added to sqrt(v̂)), adamw (adam with decoupled
    /// weight decay; LayerNorm gains and biases excluded), adagrad, rmsprop.
    std::string kind = "adam";
    double lr = 1e-3;                ///< peak learning rate
    double beta1 = 0.9, beta2 = 0.999; ///< adam/adamw moments; rmsprop's smoothing constant is beta2
    double eps = 1e-8;
    double weightDecay = 0.0;        ///< adamw: decoupled; adam, adagrad, rmsprop: L2 added to the gradient
    double momentum = 0.0;           ///< rmsprop
    double initialAccumulator = 0.0; ///< adagrad
    double clipNorm = 0.0;           ///< gradient-norm clipping over all parameters (0 = off)

    Status validate() const;
};

struct ScheduleConfig {
    /// constant (warmup ignored); warmup-constant (linear warm-up, then the peak); step (× decay every
    /// decay_every epochs); noam (linear warm-up, then lr·sqrt(warmup/step)); linear
    /// (linear warm-up, then linear decay to 0 at the last step: the step budget, or
    /// for a run bounded by epochs, epochs × the batches of an epoch).
    std::string kind = "constant";
    int warmup = 0;                  ///< steps
    double decay = 1.0;              ///< step: factor
    int decayEvery = 1;              ///< step: epochs

    Status validate() const;
    /// The learning rate of 1-based optimisation step `step` in 0-based `epoch`
    /// (totalSteps: the run's last step, for "linear"; 0 when unknown).
    double rate(double peak, long step, int epoch, long totalSteps) const;
};

struct TrainRecipe {
    std::string family;              ///< trainer: tree-transformer, dependency-parser, constituency-parser
    std::string name;                ///< model name stored in the output
    std::string output;              ///< the model file written (best or last, see keep)
    std::string checkpoint;          ///< training checkpoint, rewritten atomically ("" = none)
    std::string log;                 ///< JSON Lines log ("" = none)

    struct Data {
        std::vector<std::string> train, dev, test;
        std::string extraJson = "{}"; ///< the family's other "data" keys (strings already resolved as paths)
    } data;
    std::string modelJson = "{}";    ///< the family's "model" object
    std::string optionsJson = "{}";  ///< the family's "options" object

    unsigned seed = 1;
    OptimizerConfig optimizer;
    ScheduleConfig schedule;
    int epochs = 0;                  ///< stop after this many epochs (0 = steps decide)
    long steps = 0;                  ///< stop after this many optimisation steps (0 = epochs decide)
    int batchSize = 0;               ///< sentences per batch (families batching by sentences)
    int batchWords = 0;              ///< words per batch (families batching by length buckets)
    int patience = 0;                ///< stop after this many dev evaluations without improvement (0 = never)
    long evalEvery = 0;              ///< steps between dev evaluations (0 = at the end of every epoch)
    long checkpointEvery = 0;        ///< steps between checkpoints (0 = at the end of every epoch)
    long logEvery = 10;              ///< steps between progress reports
    std::string keep = "best";       ///< the output holds the "best" dev model or the "last" weights
    std::string precision = "fp32";  ///< arithmetic of training (fp32 only today)
    std::string storage = "f16";     ///< dtype of the output file: f32, f16, bf16
    int threads = 0;                 ///< CPU threads (0 = LibTorch's default)
    std::string device = "cpu";      ///< cpu, cuda, cuda:N or auto

    /// The family-independent checks (a family adds its own: see training.h).
    Status validate() const;
    /// Reads a recipe file's text. Keys absent from the file keep the values of
    /// `defaults` (a family's defaults, see trainerDefaults()); relative paths
    /// are resolved against `baseDir`. Only parses; validateTrainRecipe() checks.
    static Result<TrainRecipe> fromJson(const std::string &json, const std::string &baseDir,
                                        const TrainRecipe &defaults);
    /// The recipe in the current format (fromJson(toJson()) gives it back).
    std::string toJson() const;
};

/// A trainer's options from recipe.optionsJson: `read` fills them from the JSON
/// object (a family's keys and checks); what it throws is an error "recipe:
/// options: ...".
template <class Options>
Result<Options> readFamilyOptions(const TrainRecipe &recipe,
                                  const std::function<Status(const nlohmann::json &options, Options &out)> &read)
{
    try {
        Options o;
        if (auto s = read(nlohmann::json::parse(recipe.optionsJson), o); !s)
            return s.error();
        return o;
    } catch (const std::exception &e) {
        return makeError("recipe", std::string("options: ") + e.what());
    }
}

/// options.vocab.min_count, `fallback` when absent.
inline int vocabMinCount(const nlohmann::json &options, int fallback)
{
    return options.value("vocab", nlohmann::json::object()).value("min_count", fallback);
}

/// "training.batch_size must be at least 1" unless it is (trainers batching by examples).
Status requireBatchSize(const TrainRecipe &recipe);
/// "data.train names no pair corpus" unless it names one (trainers of pair models).
Status requirePairCorpus(const TrainRecipe &recipe);

} // namespace treelens
