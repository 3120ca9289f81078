// treelens-cli train / train-parser: any trainable family from a recipe, with
// the recipe's values overridable by flags, progress on stderr and resumable
// checkpoints (core/training/training.h).
#include <filesystem>
#include <iostream>
#include <memory>
#include <unistd.h>

#include "app/cli/command.h"
#include "core/base/fileio.h"
#include "core/runtime/computecontext.h"
#include "core/training/training.h"

namespace treelens::cli {

namespace {

/// The recipe's values that flags may override (0 / "" = keep the recipe's).
struct TrainFlags {
    std::string config, resume;
    long steps = 0;
    int epochs = 0;
    double lr = 0.0;
    int batchSize = 0, batchWords = 0, patience = -1, threads = -1;
    long seed = -1;
    std::string device, output, checkpoint, log, storage;
};

void addTrainFlags(CLI::App *cmd, TrainFlags &f)
{
    cmd->add_option("--config,-c", f.config, "Recipe JSON (relative paths are relative to it)")->required()->type_name("RECIPE.json");
    cmd->add_option("--resume", f.resume, "Continue from the checkpoint of an earlier run of the same recipe")->type_name("CKPT");
    cmd->add_option("--steps", f.steps, "Override the recipe's step budget")->check(CLI::PositiveNumber);
    cmd->add_option("--epochs", f.epochs, "Override the recipe's epoch budget")->check(CLI::PositiveNumber);
    cmd->add_option("--lr", f.lr, "Override the peak learning rate")->check(CLI::PositiveNumber);
    cmd->add_option("--batch-size", f.batchSize, "Override the sentences per batch")->check(CLI::PositiveNumber);
    cmd->add_option("--batch-words", f.batchWords, "Override the words per batch")->check(CLI::PositiveNumber);
    cmd->add_option("--patience", f.patience, "Override the early-stopping patience (dev evaluations; 0 = never)")
        ->check(CLI::NonNegativeNumber);
    cmd->add_option("--seed", f.seed, "Override the seed")->check(CLI::NonNegativeNumber);
    cmd->add_option("--threads", f.threads, "Override the CPU threads (0 = LibTorch's default)")->check(CLI::NonNegativeNumber);
    cmd->add_option("--device", f.device, "Override the device (cpu, cuda, cuda:N, auto)");
    cmd->add_option("-o,--output", f.output, "Override the model file written")->type_name("OUT.safetensors");
    cmd->add_option("--checkpoint", f.checkpoint, "Override the checkpoint file")->type_name("CKPT");
    cmd->add_option("--log", f.log, "Override the JSON Lines log")->type_name("LOG.jsonl");
    cmd->add_option("--storage", f.storage, "Override the output dtype")->check(CLI::IsMember({"f32", "f16", "bf16"}));
}

void applyFlags(const TrainFlags &f, TrainRecipe &r)
{
    if (f.steps > 0)
        r.steps = f.steps;
    if (f.epochs > 0)
        r.epochs = f.epochs;
    if (f.lr > 0)
        r.optimizer.lr = f.lr;
    if (f.batchSize > 0)
        r.batchSize = f.batchSize;
    if (f.batchWords > 0)
        r.batchWords = f.batchWords;
    if (f.patience >= 0)
        r.patience = f.patience;
    if (f.seed >= 0)
        r.seed = static_cast<unsigned>(f.seed);
    if (f.threads >= 0)
        r.threads = f.threads;
    for (auto [flag, dest] : {std::pair<const std::string *, std::string *>{&f.device, &r.device}, {&f.output, &r.output},
                              {&f.checkpoint, &r.checkpoint}, {&f.log, &r.log}, {&f.storage, &r.storage}})
        if (!flag->empty())
            *dest = *flag;
}

/// Batch lines overwrite each other on a terminal and stay separate lines in a log file.
void printProgress(const char *prefix, const TrainProgress &p)
{
    static const bool tty = isatty(STDERR_FILENO) != 0;
    const std::string line = formatTrainProgress(p);
    if (line.empty())
        return;
    if (p.event == TrainProgress::Event::Batch && tty) {
        std::cerr << '\r' << line << "   " << std::flush;
        if (p.batch == p.batches || (p.steps > 0 && p.step == p.steps))
            std::cerr << std::endl;
        return;
    }
    if (tty)
        std::cerr << '\r';
    std::cerr << prefix << line << std::endl;
}

int runTrain(const std::string &family, const TrainFlags &flags, const char *prefix)
{
    auto text = readFile(flags.config);
    if (!text)
        return fail(text.message());
    auto recipe = readTrainRecipe(*text, std::filesystem::path(flags.config).parent_path().string(), family);
    if (!recipe)
        return fail(flags.config + ": " + recipe.message());
    applyFlags(flags, *recipe);
    if (auto s = validateTrainRecipe(*recipe); !s)
        return fail(flags.config + " (with the flags): " + s.message());
    auto progress = [prefix](const TrainProgress &p) { printProgress(prefix, p); };
    ComputeContext compute;
    compute.retainFreedMemory = true; // a training process: keep freed batch memory in the heap
    applyComputeContext(compute);
    if (auto s = trainModel(*recipe, flags.resume, progress); !s)
        return fail(s.message());
    return 0;
}

} // namespace

void addTrainCommand(CLI::App &app, Action &action)
{
    auto *cmd = app.add_subcommand("train", "Train a model from a recipe (any trainable family)");
    struct Spec {
        std::string family;
        TrainFlags flags;
    };
    auto spec = std::make_shared<Spec>();
    std::string families;
    for (const auto &f : trainableFamilies())
        families += "\n  " + f + ": " + trainerDescription(f);
    cmd->add_option("family", spec->family, "Model family")->required()->check(CLI::IsMember(trainableFamilies()));
    addTrainFlags(cmd, spec->flags);
    cmd->footer("Families:" + families +
                "\nProgress (loss, throughput, ETA, dev metric) goes to stderr; checkpoints (weights + optimiser state)\n"
                "are written atomically and --resume continues a run exactly. Recipe keys: docs/training.md.");
    cmd->callback([&action, spec]() { action = [spec]() { return runTrain(spec->family, spec->flags, "train: "); }; });
}

void addTrainParserCommand(CLI::App &app, Action &action)
{
    auto *cmd = app.add_subcommand("train-parser", "Train a neural parser or the morphological tagger from a recipe (same as "
                                                   "train dependency-parser|constituency-parser|morph-tagger)");
    struct Spec {
        std::string kind;
        TrainFlags flags;
    };
    auto spec = std::make_shared<Spec>();
    cmd->add_option("kind", spec->kind,
                    "dep (dependency parser and tagger), const (constituency parser) or morph (LEMMA/FEATS tagger)")
        ->required()
        ->check(CLI::IsMember({"dep", "const", "morph"}));
    addTrainFlags(cmd, spec->flags);
    cmd->footer("Progress goes to stderr; a checkpoint is written atomically after every epoch and the model\n"
                "file whenever the dev metric improves. Recipe keys and the shipped recipes: docs/parsers.md.");
    cmd->callback([&action, spec]() {
        action = [spec]() {
            const std::string family = spec->kind == "dep"     ? "dependency-parser"
                                       : spec->kind == "morph" ? "morph-tagger"
                                                               : "constituency-parser";
            return runTrain(family, spec->flags, "train-parser: ");
        };
    });
}

} // namespace treelens::cli
