// trainers: the one list of trainable families and the entry points of training.h.
#include "core/training/training.h"

#include <nlohmann/json.hpp>

#include "core/encoders/deptransformer/deptrainer.h"
#include "core/encoders/ggsa/ggsatrainer.h"
#include "core/encoders/recursive/rectrainer.h"
#include "core/encoders/tat/tattrainer.h"
#include "core/encoders/treetransformer/mlmtrainer.h"
#include "core/parsing/neural/constparser.h"
#include "core/parsing/neural/depparser.h"
#include "core/parsing/neural/morphtagger.h"
#include "core/training/trainer.h"
#include "core/training/trainerfamily.h"

namespace treelens {

namespace {

const std::vector<training::TrainerFamily> &families()
{
    static const std::vector<training::TrainerFamily> list = {
        maskedLmTrainer(),
        dependencyParserTrainer(),
        constituencyParserTrainer(),
        morphTaggerTrainer(),
        ggsaTrainer(),
        iggsaTrainer(),
        depTransformerTrainer(),
        tatLmTrainer(),
        tatTrainer(),
        recursiveTreeTransformerTrainer(),
        treeLstmAttentionTrainer(),
    };
    return list;
}

const training::TrainerFamily *find(const std::string &name)
{
    for (const auto &f : families())
        if (f.name == name)
            return &f;
    return nullptr;
}

Error unknown(const std::string &family)
{
    std::string known;
    for (const auto &f : families())
        known += (known.empty() ? "" : ", ") + f.name;
    return makeError("recipe", "no trainer for family '" + family + "' (trainable: " + known + ")");
}

} // namespace

std::vector<std::string> trainableFamilies()
{
    std::vector<std::string> out;
    for (const auto &f : families())
        out.push_back(f.name);
    return out;
}

std::string trainerDescription(const std::string &family)
{
    const auto *f = find(family);
    return f ? f->description : std::string();
}

Result<TrainRecipe> trainerDefaults(const std::string &family)
{
    const auto *f = find(family);
    if (!f)
        return unknown(family);
    if (f->defaultsJson.empty())
        return f->defaults;
    auto r = TrainRecipe::fromJson(f->defaultsJson, "", f->defaults);
    if (!r)
        return makeError(family + " defaults", r.error());
    r->family = f->name;
    return r;
}

Result<TrainRecipe> readTrainRecipe(const std::string &json, const std::string &baseDir, const std::string &family)
{
    std::string name = family;
    try {
        const auto j = nlohmann::json::parse(json);
        if (j.is_object() && j.contains("family")) {
            if (!j["family"].is_string())
                return makeError("recipe", "\"family\" must be a string");
            const std::string fileFamily = j["family"].get<std::string>();
            if (!family.empty() && fileFamily != family)
                return makeError("recipe", "the recipe trains '" + fileFamily + "', not '" + family + "'");
            name = fileFamily;
        }
    } catch (const std::exception &e) {
        return makeError("recipe", e.what());
    }
    if (name.empty())
        return makeError("recipe", "\"family\" is missing");
    auto defaults = trainerDefaults(name);
    if (!defaults)
        return defaults.error();
    auto r = TrainRecipe::fromJson(json, baseDir, *defaults);
    if (!r)
        return r.error();
    r->family = name;
    if (auto s = validateTrainRecipe(*r); !s)
        return s.error();
    return r;
}

Status validateTrainRecipe(const TrainRecipe &recipe)
{
    const auto *f = find(recipe.family);
    if (!f)
        return unknown(recipe.family);
    if (auto s = recipe.validate(); !s)
        return s;
    return f->validate ? f->validate(recipe) : Status();
}

Status trainModel(const TrainRecipe &recipe, const std::string &resumeFrom,
                  const std::function<void(const TrainProgress &)> &onProgress, const RunControl *control)
{
    if (auto s = validateTrainRecipe(recipe); !s)
        return s;
    auto task = find(recipe.family)->create();
    return training::runTraining(*task, recipe, resumeFrom, onProgress, control);
}

} // namespace treelens
