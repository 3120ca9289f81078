// treelens-cli train-parser: trains the neural dependency (and, later,
// constituency) parser from a recipe, with progress and resumable checkpoints.
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>

#include "app/cli/command.h"
#include "core/base/fileio.h"
#include "core/parsing/neural/constparser.h"
#include "core/parsing/neural/depparser.h"

namespace treelens::cli {

void addTrainParserCommand(CLI::App &app, Action &action)
{
    auto *cmd = app.add_subcommand("train-parser", "Train a neural parser (dep: biaffine dependency parser + tagger) from a recipe");
    struct Spec {
        std::string kind;
        std::string config;
        std::string resume;
        int epochs = 0;
    };
    auto spec = std::make_shared<Spec>();
    cmd->add_option("kind", spec->kind, "dep (dependency parser and tagger) or const (constituency parser)")
        ->required()
        ->check(CLI::IsMember({"dep", "const"}));
    cmd->add_option("--config,-c", spec->config, "Recipe JSON (relative paths are relative to it)")->required()->type_name("RECIPE.json");
    cmd->add_option("--resume", spec->resume, "Continue from the checkpoint of an earlier run")->type_name("CKPT");
    cmd->add_option("--epochs", spec->epochs, "Override the recipe's epoch count");
    cmd->footer("Progress goes to stderr; a checkpoint is written atomically after every epoch and the model\n"
                "file whenever the dev LAS improves. Recipe keys and the shipped recipes: docs/parsers.md.");
    cmd->callback([&action, spec]() {
        action = [spec]() {
            auto text = readFile(spec->config);
            if (!text)
                return fail(text.message());
            const std::string base = std::filesystem::path(spec->config).parent_path().string();
            if (spec->kind == "const") {
                auto recipe = ConstParserRecipe::fromJson(*text, base);
                if (!recipe)
                    return fail(spec->config + ": " + recipe.message());
                if (spec->epochs > 0)
                    recipe->epochs = spec->epochs;
                auto progress = [](const ConstTrainProgress &p) {
                    char buf[320];
                    if (p.devF1 >= 0) {
                        std::snprintf(buf, sizeof buf, "epoch %d/%d  loss %.3f  dev labelled F1 %.2f  best %.2f  %.0f s%s%s",
                                      p.epoch, p.epochs, p.loss, p.devF1, p.bestDevF1, p.elapsedSeconds,
                                      p.message.empty() ? "" : "  ", p.message.c_str());
                        std::cerr << buf << std::endl;
                    } else if (!p.message.empty()) {
                        std::cerr << "train-parser: " << p.message << std::endl;
                    } else {
                        std::snprintf(buf, sizeof buf, "\repoch %d/%d  batch %d/%d  loss %.3f  %.0f words/s  %.0f s   ",
                                      p.epoch, p.epochs, p.batch, p.batches, p.loss, p.wordsPerSecond, p.elapsedSeconds);
                        std::cerr << buf << std::flush;
                        if (p.batch == p.batches)
                            std::cerr << std::endl;
                    }
                };
                if (auto s = trainConstituencyParser(*recipe, spec->resume, progress); !s)
                    return fail(s.message());
                std::cerr << "train-parser: wrote " << recipe->output << std::endl;
                return 0;
            }
            auto recipe = DepParserRecipe::fromJson(*text, base);
            if (!recipe)
                return fail(spec->config + ": " + recipe.message());
            if (spec->epochs > 0)
                recipe->epochs = spec->epochs;
            auto progress = [](const DepTrainProgress &p) {
                char buf[320];
                if (p.devLas >= 0) {
                    std::snprintf(buf, sizeof buf, "epoch %d/%d  loss %.3f  dev UAS %.2f LAS %.2f UPOS %.2f  best LAS %.2f  %.0f s%s%s",
                                  p.epoch, p.epochs, p.loss, p.devUas, p.devLas, p.devUpos, p.bestDevLas, p.elapsedSeconds,
                                  p.message.empty() ? "" : "  ", p.message.c_str());
                    std::cerr << buf << std::endl;
                } else if (!p.message.empty()) {
                    std::cerr << "train-parser: " << p.message << std::endl;
                } else {
                    std::snprintf(buf, sizeof buf, "\repoch %d/%d  batch %d/%d  loss %.3f  %.0f words/s  %.0f s   ", p.epoch,
                                  p.epochs, p.batch, p.batches, p.loss, p.wordsPerSecond, p.elapsedSeconds);
                    std::cerr << buf << std::flush;
                    if (p.batch == p.batches)
                        std::cerr << std::endl;
                }
            };
            if (auto s = trainDependencyParser(*recipe, spec->resume, progress); !s)
                return fail(s.message());
            std::cerr << "train-parser: wrote " << recipe->output << std::endl;
            return 0;
        };
    });
}

} // namespace treelens::cli
