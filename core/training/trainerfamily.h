#pragma once
/// \file trainerfamily.h
/// What a family registers to be trainable (torch-free; the task itself is a
/// training::TrainTask, core/training/trainer.h). The trainers' registry
/// (`core/registry/trainers.cpp`) is the one list of them.

#include <functional>
#include <memory>
#include <string>

#include "core/base/result.h"
#include "core/training/recipe.h"

namespace treelens::training {

class TrainTask;

struct TrainerFamily {
    std::string name;                 ///< the recipe's "family"
    std::string description;          ///< one line for --help
    TrainRecipe defaults;             ///< what a recipe file leaves out
    /// The family's own defaults over `defaults`, written as a recipe file writes them
    /// ("name", "model", "options", "training"), read by the one recipe reader
    /// (trainerDefaults); "" = `defaults` as they are.
    std::string defaultsJson;
    /// The family's checks of recipe.modelJson, .data and .optionsJson (the
    /// common fields are checked by TrainRecipe::validate()).
    std::function<Status(const TrainRecipe &)> validate;
    std::function<std::unique_ptr<TrainTask>()> create;
};

} // namespace treelens::training
