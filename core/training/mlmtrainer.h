#pragma once
/// \file mlmtrainer.h
/// Masked-LM pre-training of encoders (BERT masking: 15% of the word tokens,
/// of which 80% become [MASK], 10% a random word, 10% stay; Adam with
/// β = 0.9/0.98, linear warm-up then inverse-square-root decay). Checkpoints
/// are safetensors files written atomically (weights + Adam moments + state),
/// so training resumes where it stopped. Torch-free header.

#include <functional>
#include <string>

#include "core/base/result.h"
#include "core/base/runcontrol.h"
#include "core/encoders/treetransformer/treetransformer.h"
#include "core/model/tensordata.h"
#include "core/training/pretraincorpus.h"

namespace treelens {

struct MlmRecipe {
    std::string family = "tree-transformer";
    std::string name = "tree-transformer-en-small";
    std::string output;         ///< final model (.safetensors)
    std::string checkpoint;     ///< training checkpoint (.safetensors), rewritten atomically
    std::string log;            ///< JSON-lines training log ("" = none)
    std::string validation;     ///< CoNLL-U file whose sentences measure held-out MLM loss ("" = none)
    int validationSentences = 400;

    PretrainSources data;
    int vocabMaxSize = 12000;
    int vocabMinCount = 2;
    TreeTransformerConfig model;

    int steps = 10000;
    int batchSize = 64;         ///< sentences per step
    double lr = 5e-4;           ///< peak learning rate (after warm-up)
    int warmup = 1000;
    double beta1 = 0.9, beta2 = 0.98, adamEps = 1e-9;
    double weightDecay = 0.0;
    double clipNorm = 1.0;      ///< gradient norm clipping (0 = off)
    double maskProb = 0.15;
    unsigned seed = 1;
    int checkpointEvery = 500;  ///< steps
    int logEvery = 50;          ///< steps
    int threads = 0;
    std::string device = "auto";
    std::string storage = "f16"; ///< dtype of the final model file: f32, f16 or bf16
    bool keepProjection = false; ///< keep the vocabulary projection in the final model

    Status validate() const;
    /// Reads a recipe; relative paths are resolved against `baseDir`.
    static Result<MlmRecipe> fromJson(const std::string &json, const std::string &baseDir);
    std::string toJson() const;
};

struct TrainProgress {
    int step = 0;
    int steps = 0;
    double loss = 0.0;          ///< mean masked-token cross-entropy over the last logEvery steps
    double accuracy = 0.0;      ///< masked-token accuracy over the same steps
    double lr = 0.0;
    double stepsPerSecond = 0.0;
    double tokensPerSecond = 0.0;
    double elapsedSeconds = 0.0;
    double validationLoss = -1.0; ///< at checkpoints (-1 = not measured)
    std::string message;          ///< e.g. "checkpoint saved"
};

/// Trains (or resumes from `resumeFrom`, a checkpoint written by this function)
/// and writes recipe.output when done. Stops early, after saving a checkpoint,
/// when control->isCancelled().
Status trainMaskedLm(const MlmRecipe &recipe, const std::string &resumeFrom,
                     const std::function<void(const TrainProgress &)> &onProgress, const RunControl *control = nullptr);

} // namespace treelens
