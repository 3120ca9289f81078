#pragma once
/// \file training.h
/// Training any trainable family from a recipe: the entry point of
/// `treelens-cli train` / `train-parser` and of the app. Torch-free.

#include <functional>
#include <string>
#include <vector>

#include "core/base/result.h"
#include "core/base/runcontrol.h"
#include "core/training/recipe.h"
#include "core/training/trainprogress.h"

namespace treelens {

/// Families with a trainer, in a fixed order.
std::vector<std::string> trainableFamilies();
/// One line describing the family's trainer ("" for an unknown family).
std::string trainerDescription(const std::string &family);
/// The family's default recipe.
Result<TrainRecipe> trainerDefaults(const std::string &family);
/// Reads a recipe file's text with its family's defaults; the family is the
/// file's "family", else `family` (which, when given, the file must agree with).
/// Relative paths are resolved against `baseDir`. Validates.
Result<TrainRecipe> readTrainRecipe(const std::string &json, const std::string &baseDir, const std::string &family = "");
/// TrainRecipe::validate() and the family's own checks.
Status validateTrainRecipe(const TrainRecipe &recipe);
/// Validates, then trains (or resumes from `resumeFrom`, a checkpoint of an
/// earlier run of the same recipe) and writes recipe.output.
Status trainModel(const TrainRecipe &recipe, const std::string &resumeFrom,
                  const std::function<void(const TrainProgress &)> &onProgress, const RunControl *control = nullptr);

} // namespace treelens
