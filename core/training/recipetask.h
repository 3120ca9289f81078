#pragma once
/// \file recipetask.h
/// The base of the families' TrainTasks that share more than the interface
/// (ClassifierTask, RankingTask): the run's recipe and device kept from prepare()
/// on, with the family's options read in the same step. Internal to core
/// (LibTorch types).

#include <torch/types.h>

#include "core/base/result.h"
#include "core/training/recipe.h"
#include "core/training/trainer.h"

namespace treelens::training {

class RecipeTask : public TrainTask {
protected:
    /// prepare()'s first step: keeps the recipe and the device and the family's
    /// options (`options`, read from the recipe), or says why they do not read.
    template <class Options>
    Status begin(const TrainRecipe &recipe, const torch::Device &device, Result<Options> options, Options &out)
    {
        if (!options)
            return options.error();
        m_recipe = recipe;
        m_device = device;
        out = std::move(*options);
        return {};
    }

    TrainRecipe m_recipe;
    torch::Device m_device{torch::kCPU};
};

} // namespace treelens::training
