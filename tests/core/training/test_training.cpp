// The training framework (core/training): the recipe's JSON round trip and
// checks, the earlier recipe files read into it, the learning-rate schedules
// (hand-computed), the optimisers against LibTorch's own torch::optim as an
// independent reference, and exact resume for each of the three trainers:
// a run cancelled and resumed from its checkpoint ends with the same weights,
// bit for bit, as the uninterrupted run.
#include <torch/torch.h>

#include <atomic>
#include <cmath>
#include <filesystem>
#include <map>
#include <fstream>

#include <nlohmann/json.hpp>

#include "core/base/fileio.h"
#include "core/model/modelfile.h"
#include "core/parsing/neural/constparser.h"
#include "core/parsing/neural/depparser.h"
#include "core/training/optimizer.h"
#include "core/training/training.h"
#include "testutil.h"

using namespace treelens;
using nlohmann::json;

namespace {

std::string tempDir(const std::string &name)
{
    const std::string dir = ::testing::TempDir() + "/training-" + name;
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    return dir;
}

/// Every tensor of two model files, compared exactly.
void expectSameWeights(const std::string &a, const std::string &b)
{
    auto fa = loadModelFile(a), fb = loadModelFile(b);
    ASSERT_TRUE(fa.ok()) << fa.message();
    ASSERT_TRUE(fb.ok()) << fb.message();
    ASSERT_EQ(fa->tensors.size(), fb->tensors.size());
    for (const auto &[name, t] : fa->tensors) {
        ASSERT_TRUE(fb->tensors.count(name)) << name;
        EXPECT_EQ(t.shape, fb->tensors.at(name).shape) << name;
        EXPECT_EQ(t.toFloat(), fb->tensors.at(name).toFloat()) << "tensor " << name << " differs";
    }
    EXPECT_EQ(fa->vocab, fb->vocab);
}

/// Trains `recipe` uninterrupted, and again cancelled after `cancelAfter` steps
/// and resumed from the checkpoint; both outputs must hold the same weights.
void expectExactResume(TrainRecipe recipe, long cancelAfter)
{
    const std::string base = recipe.output;
    recipe.output = base + ".straight.safetensors";
    recipe.checkpoint = base + ".straight.ckpt";
    ASSERT_TRUE(trainModel(recipe, "", nullptr).ok());

    TrainRecipe r2 = recipe;
    r2.output = base + ".resumed.safetensors";
    r2.checkpoint = base + ".resumed.ckpt";
    std::atomic<long> polls{0};
    RunControl stop;
    stop.cancelled = [&] { return ++polls > cancelAfter; };
    long stepAtCancel = -1;
    const Status first = trainModel(r2, "", [&](const TrainProgress &p) { stepAtCancel = p.step; }, &stop);
    ASSERT_FALSE(first.ok()) << "the run was not cancelled";
    EXPECT_NE(first.message().find("cancelled at step " + std::to_string(cancelAfter)), std::string::npos) << first.message();
    EXPECT_EQ(stepAtCancel, cancelAfter);
    std::vector<TrainProgress> events;
    ASSERT_TRUE(trainModel(r2, r2.checkpoint, [&](const TrainProgress &p) { events.push_back(p); }).ok());
    ASSERT_FALSE(events.empty());
    EXPECT_EQ(events.front().event, TrainProgress::Event::Started);
    EXPECT_NE(events.front().message.find("resumed at step " + std::to_string(cancelAfter)), std::string::npos)
        << events.front().message;
    EXPECT_EQ(events.back().event, TrainProgress::Event::Finished);
    expectSameWeights(recipe.output, r2.output);
}

TrainRecipe tinyDepRecipe(const std::string &dir)
{
    TrainRecipe r = *trainerDefaults("dependency-parser");
    r.data.train = r.data.dev = {test::testData("ui/three.conllu")};
    r.output = dir + "/dep";
    DepParserConfig m;
    m.wordDim = 8;
    m.charDim = 4;
    m.charFilters = 8;
    m.lstmLayers = 1;
    m.lstmHidden = 8;
    m.arcDim = 8;
    m.relDim = 8; // dropout and word dropout stay on: resume must reproduce the random streams
    r.modelJson = m.toJson();
    r.epochs = 4;
    r.batchWords = 50; // the 3 sentences make 2 batches per epoch
    r.optionsJson = R"({"word_min_count": 1})";
    r.threads = 1;
    r.storage = "f32";
    return r;
}

const char *kTinyPtb = "( (S (NP-SBJ (DT The) (NN cat)) (VP (VBD sat) (PP (IN on) (NP (DT the) (NN mat)))) (. .)) )\n"
                       "( (S (NP-SBJ (NNS Dogs)) (VP (VBP bark)) (. .)) )\n"
                       "( (S (NP-SBJ (PRP She)) (VP (VBD gave) (NP (PRP him)) (NP (DT a) (NN book))) (. .)) )\n"
                       "( (SINV (VP (VB Go)) (. !)) )\n";

/// A synthetic CoNLL-U corpus of `n` short sentences over a small vocabulary.
std::string syntheticConllu(int n)
{
    const char *words[] = {"the", "a", "dog", "cat", "saw", "chased", "old", "red", "man", "kite", "in", "park"};
    std::string out;
    for (int s = 0; s < n; ++s) {
        const int len = 3 + (s * 7) % 6;
        for (int k = 0; k < len; ++k)
            out += std::to_string(k + 1) + "\t" + words[(s * 5 + k * 3) % 12] + "\t_\tX\t_\t_\t" + (k == 0 ? "0" : "1") + "\t" +
                   (k == 0 ? "root" : "dep") + "\t_\t_\n";
        out += "\n";
    }
    return out;
}

} // namespace

// ---------------------------------------------------------------- recipes

TEST(TrainRecipe, JsonRoundTripKeepsEveryField)
{
    for (const auto &family : trainableFamilies()) {
        auto d = trainerDefaults(family);
        ASSERT_TRUE(d.ok()) << family;
        TrainRecipe r = *d;
        r.output = "/tmp/out.safetensors";
        r.checkpoint = "/tmp/ck";
        r.log = "/tmp/log.jsonl";
        r.data.train = {"/a/train1", "/a/train2"};
        r.data.dev = {"/a/dev"};
        r.seed = 7;
        r.optimizer.kind = "rmsprop";
        r.optimizer.momentum = 0.5;
        r.schedule.kind = "linear";
        r.schedule.warmup = 3;
        r.patience = 4;
        r.evalEvery = 9;
        r.threads = 2;
        auto back = TrainRecipe::fromJson(r.toJson(), "", TrainRecipe{});
        ASSERT_TRUE(back.ok()) << back.message();
        EXPECT_EQ(back->toJson(), r.toJson()) << family;
        EXPECT_EQ(back->optimizer.kind, "rmsprop");
        EXPECT_EQ(back->optimizer.momentum, 0.5);
        EXPECT_EQ(back->schedule.warmup, 3);
        EXPECT_EQ(back->data.train, r.data.train);
        EXPECT_EQ(back->seed, 7u);
    }
}

TEST(TrainRecipe, ReadsTheRecipesOfEarlierVersions)
{
    // The shipped recipe files predate the common recipe: flat optimiser keys,
    // top-level train/dev/validation/storage/vocab. Values checked by hand against the files.
    const std::string dir = std::string(TREELENS_SOURCE_DIR) + "/resources/models";
    auto read = [&](const std::string &name) {
        auto text = readFile(dir + "/" + name);
        EXPECT_TRUE(text.ok());
        return readTrainRecipe(text.ok() ? *text : "", dir);
    };
    // The Tree Transformer's recipe of that format, kept as it shipped (the shipped
    // model's recipe is of the common format now).
    auto tt = [&] {
        const std::string fixtures = std::string(TREELENS_TEST_DATA_DIR) + "/training";
        auto text = readFile(fixtures + "/tree-transformer-en-small.v1.recipe.json");
        EXPECT_TRUE(text.ok());
        return readTrainRecipe(text.ok() ? *text : "", dir);
    }();
    ASSERT_TRUE(tt.ok()) << tt.message();
    EXPECT_EQ(tt->family, "tree-transformer");
    EXPECT_EQ(tt->steps, 8000);
    EXPECT_EQ(tt->batchSize, 64);
    EXPECT_DOUBLE_EQ(tt->optimizer.lr, 0.001);
    EXPECT_DOUBLE_EQ(tt->optimizer.beta2, 0.98);
    EXPECT_DOUBLE_EQ(tt->optimizer.eps, 1e-9);
    EXPECT_EQ(tt->optimizer.kind, "adam");
    EXPECT_EQ(tt->schedule.kind, "noam");
    EXPECT_EQ(tt->schedule.warmup, 600);
    EXPECT_EQ(tt->checkpointEvery, 250);
    EXPECT_EQ(tt->logEvery, 25);
    EXPECT_EQ(tt->keep, "last");
    ASSERT_EQ(tt->data.dev.size(), 1u);
    EXPECT_EQ(std::filesystem::path(tt->data.dev[0]).filename(), "en_ewt-ud-dev.conllu");
    const json options = json::parse(tt->optionsJson);
    EXPECT_DOUBLE_EQ(options.at("mask_prob").get<double>(), 0.15);
    EXPECT_EQ(options.at("vocab").at("max_size"), 8000);
    EXPECT_EQ(options.at("validation_sentences"), 400);
    const json data = json::parse(tt->data.extraJson);
    EXPECT_EQ(data.at("ptb_last"), 159);
    EXPECT_EQ(data.at("wordnet_dir"), "/usr/share/wordnet");
    EXPECT_EQ(json::parse(tt->modelJson).at("d_model"), 128);

    auto dep = read("parser-dep-en-ewt.recipe.json");
    ASSERT_TRUE(dep.ok()) << dep.message();
    EXPECT_EQ(dep->epochs, 80);
    EXPECT_EQ(dep->batchWords, 2000);
    EXPECT_EQ(dep->schedule.kind, "step");
    EXPECT_DOUBLE_EQ(dep->schedule.decay, 0.75);
    EXPECT_EQ(dep->schedule.decayEvery, 10);
    EXPECT_EQ(dep->patience, 25);
    EXPECT_DOUBLE_EQ(dep->optimizer.beta2, 0.9);
    EXPECT_DOUBLE_EQ(dep->optimizer.clipNorm, 5.0);
    EXPECT_EQ(dep->storage, "f16");
    EXPECT_EQ(dep->keep, "best");
    ASSERT_EQ(dep->data.test.size(), 1u);

    auto cons = read("parser-const-en-ptb.recipe.json");
    ASSERT_TRUE(cons.ok()) << cons.message();
    ASSERT_EQ(cons->data.train.size(), 159u);
    EXPECT_EQ(std::filesystem::path(cons->data.train.back()).filename(), "wsj_0159.mrg");
    EXPECT_EQ(cons->data.dev.size(), 20u);
    EXPECT_EQ(std::filesystem::path(json::parse(cons->data.extraJson).at("tagger").get<std::string>()).filename(),
              "parser-dep-en-ewt.safetensors");
    EXPECT_EQ(cons->schedule.decayEvery, 8);
}

TEST(TrainRecipe, RefusesBadValuesWithClearMessages)
{
    auto refused = [](const std::string &text, const std::string &family, const std::string &needle) {
        auto r = readTrainRecipe(text, "", family);
        ASSERT_FALSE(r.ok()) << text;
        EXPECT_NE(r.message().find(needle), std::string::npos) << r.message();
    };
    const std::string ok = R"("train": "a.conllu", "dev": "b.conllu", "output": "o")";
    refused("{" + ok + R"(, "trainnig": {}})", "dependency-parser", "unknown key \"trainnig\"");
    refused("{" + ok + R"(, "training": {"optimizer": "sgd"}})", "dependency-parser", "optimizer 'sgd'");
    refused("{" + ok + R"(, "training": {"lr": 0}})", "dependency-parser", "lr must be");
    refused("{" + ok + R"(, "training": {"precision": "bf16"}})", "dependency-parser", "fp32 only");
    refused("{" + ok + R"(, "training": {"schedule": {"kind": "cosine"}}})", "dependency-parser", "schedule 'cosine'");
    refused("{" + ok + R"(, "training": {"word_min_cont": 1}})", "dependency-parser", "unknown option \"word_min_cont\"");
    refused("{" + ok + R"(, "family": "constituency-parser"})", "dependency-parser", "trains 'constituency-parser'");
    refused(R"({"family": "gpt", "output": "o"})", "", "no trainer for family 'gpt'");
    refused(R"({"family": "tree-transformer", "output": "o", "data": {"ud_train": "x-test.conllu"}})", "", "test file");
}

TEST(TrainSchedule, RatesByHand)
{
    ScheduleConfig noam;
    noam.kind = "noam";
    noam.warmup = 4;
    EXPECT_DOUBLE_EQ(noam.rate(1.0, 1, 0, 0), 0.25);
    EXPECT_DOUBLE_EQ(noam.rate(1.0, 4, 0, 0), 1.0);
    EXPECT_DOUBLE_EQ(noam.rate(1.0, 16, 0, 0), 0.5); // sqrt(4/16)
    ScheduleConfig step;
    step.kind = "step";
    step.decay = 0.5;
    step.decayEvery = 2;
    EXPECT_DOUBLE_EQ(step.rate(1.0, 99, 1, 0), 1.0);
    EXPECT_DOUBLE_EQ(step.rate(1.0, 99, 2, 0), 0.5);
    EXPECT_DOUBLE_EQ(step.rate(1.0, 99, 5, 0), 0.25);
    ScheduleConfig linear;
    linear.kind = "linear";
    linear.warmup = 2;
    EXPECT_DOUBLE_EQ(linear.rate(1.0, 1, 0, 10), 0.5);
    EXPECT_DOUBLE_EQ(linear.rate(1.0, 2, 0, 10), 1.0);
    EXPECT_DOUBLE_EQ(linear.rate(1.0, 6, 0, 10), 0.5); // (10-6)/(10-2)
    EXPECT_DOUBLE_EQ(linear.rate(1.0, 10, 0, 10), 0.0);
    ScheduleConfig constant;
    EXPECT_DOUBLE_EQ(constant.rate(0.3, 1000, 7, 0), 0.3);
    constant.warmup = 4; // ignored: recipes that only set the kind keep a family's default warm-up
    EXPECT_DOUBLE_EQ(constant.rate(1.0, 1, 0, 0), 1.0);
    ScheduleConfig warm;
    warm.kind = "warmup-constant"; // a linear warm-up, then the peak
    warm.warmup = 4;
    EXPECT_DOUBLE_EQ(warm.rate(1.0, 1, 0, 0), 0.25);
    EXPECT_DOUBLE_EQ(warm.rate(1.0, 4, 0, 0), 1.0);
    EXPECT_DOUBLE_EQ(warm.rate(1.0, 1000, 3, 0), 1.0);
}

// ---------------------------------------------------------------- optimisers

namespace {

/// Runs 5 steps of ours and of torch::optim on the same quadratic loss from the same start.
template <class TorchOpt, class Options>
void compareWithLibTorch(const OptimizerConfig &config, const Options &options)
{
    torch::manual_seed(3);
    const torch::Tensor start = torch::randn({4, 3});
    const torch::Tensor target = torch::randn({4, 3});
    torch::Tensor ours = start.clone().requires_grad_(true);
    torch::Tensor theirs = start.clone().requires_grad_(true);
    auto opt = training::Optimizer::create(config, {{"layers.0.weight", ours}});
    ASSERT_TRUE(opt.ok()) << opt.message();
    TorchOpt reference({theirs}, options);
    for (int step = 0; step < 5; ++step) {
        (*opt)->zeroGrad();
        ((ours - target).pow(2).sum() * (step + 1)).backward();
        (*opt)->step(config.lr);
        reference.zero_grad();
        ((theirs - target).pow(2).sum() * (step + 1)).backward();
        reference.step();
    }
    EXPECT_TRUE(torch::allclose(ours, theirs, 1e-6, 1e-7)) << config.kind << "\n" << ours << "\n" << theirs;
    EXPECT_FALSE(torch::equal(ours, start));
}

} // namespace

TEST(TrainOptimizer, MatchesLibTorchsOwnOptimisers)
{
    OptimizerConfig c;
    c.kind = "adam";
    c.lr = 0.1;
    c.beta1 = 0.8;
    c.beta2 = 0.95;
    c.eps = 1e-8;
    compareWithLibTorch<torch::optim::Adam>(c, torch::optim::AdamOptions(0.1).betas({0.8, 0.95}).eps(1e-8));
    c.weightDecay = 0.01; // L2 in the gradient, as torch::optim::Adam
    compareWithLibTorch<torch::optim::Adam>(c, torch::optim::AdamOptions(0.1).betas({0.8, 0.95}).eps(1e-8).weight_decay(0.01));
    c.kind = "adamw";
    compareWithLibTorch<torch::optim::AdamW>(c, torch::optim::AdamWOptions(0.1).betas({0.8, 0.95}).eps(1e-8).weight_decay(0.01));
    OptimizerConfig g;
    g.kind = "adagrad";
    g.lr = 0.1;
    g.eps = 1e-10;
    g.initialAccumulator = 0.1;
    compareWithLibTorch<torch::optim::Adagrad>(g, torch::optim::AdagradOptions(0.1).eps(1e-10).initial_accumulator_value(0.1));
    OptimizerConfig r;
    r.kind = "rmsprop";
    r.lr = 0.01;
    r.beta2 = 0.9; // LibTorch's alpha
    r.eps = 1e-8;
    compareWithLibTorch<torch::optim::RMSprop>(r, torch::optim::RMSpropOptions(0.01).alpha(0.9).eps(1e-8));
    r.momentum = 0.5;
    compareWithLibTorch<torch::optim::RMSprop>(r, torch::optim::RMSpropOptions(0.01).alpha(0.9).eps(1e-8).momentum(0.5));
}

TEST(TrainOptimizer, StateRoundTripsAndIsChecked)
{
    torch::Tensor p = torch::ones({2, 2}).requires_grad_(true);
    OptimizerConfig c;
    auto a = training::Optimizer::create(c, {{"w", p}});
    ASSERT_TRUE(a.ok());
    p.sum().backward();
    (*a)->step(0.1);
    TensorMap state;
    (*a)->saveState(state);
    EXPECT_EQ(state.size(), 2u); // optim.m.w, optim.v.w
    torch::Tensor q = p.detach().clone().requires_grad_(true);
    auto b = training::Optimizer::create(c, {{"w", q}});
    ASSERT_TRUE(b.ok());
    ASSERT_TRUE((*b)->loadState(state, (*a)->steps(), "ck").ok());
    TensorMap again;
    (*b)->saveState(again);
    for (const auto &[k, t] : state)
        EXPECT_EQ(t.toFloat(), again.at(k).toFloat()) << k;
    TensorMap broken = state;
    broken.erase("optim.v.w");
    auto s = (*b)->loadState(broken, 1, "ck.safetensors");
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.message().find("ck.safetensors: missing optimiser state 'optim.v.w'"), std::string::npos) << s.message();
}

// ---------------------------------------------------------------- exact resume

TEST(TrainResume, DependencyParserContinuesBitForBit)
{
    const std::string dir = tempDir("dep");
    TrainRecipe r = tinyDepRecipe(dir);
    ASSERT_TRUE(validateTrainRecipe(r).ok()) << validateTrainRecipe(r).message();
    expectExactResume(r, 3); // mid-epoch: the second epoch's first batch is next
}

TEST(TrainResume, ConstituencyParserContinuesBitForBit)
{
    const std::string dir = tempDir("const");
    {
        std::ofstream(dir + "/tiny.mrg") << kTinyPtb;
    }
    TrainRecipe r = *trainerDefaults("constituency-parser");
    r.data.train = r.data.dev = {dir + "/tiny.mrg"};
    r.output = dir + "/const";
    ConstParserConfig m;
    m.wordDim = 8;
    m.charDim = 4;
    m.charFilters = 8;
    m.tagDim = 4;
    m.lstmLayers = 1;
    m.lstmHidden = 8;
    m.labelHidden = 8;
    r.modelJson = m.toJson();
    r.epochs = 3;
    r.batchWords = 60;
    r.optionsJson = R"({"word_min_count": 1})";
    r.threads = 1;
    r.storage = "f32";
    expectExactResume(r, 2);
}

TEST(TrainResume, MaskedLmContinuesBitForBitAcrossAnEpoch)
{
    const std::string dir = tempDir("mlm");
    {
        std::ofstream(dir + "/train.conllu") << syntheticConllu(40);
        std::ofstream(dir + "/dev.conllu") << syntheticConllu(8);
    }
    const std::string text = R"({"family": "tree-transformer", "name": "tiny-mlm", "output": "mlm",
        "data": {"ud_train": "train.conllu", "dev": "dev.conllu", "max_words": 20},
        "model": {"layers": 2, "d_model": 16, "heads": 2, "d_ff": 32, "max_len": 32, "dropout": 0.1},
        "training": {"steps": 12, "batch_size": 8, "checkpoint_every": 5, "log_every": 2, "threads": 1,
                     "device": "cpu", "storage": "f32", "schedule": {"kind": "noam", "warmup": 4}},
        "options": {"vocab": {"max_size": 50, "min_count": 1}}})";
    auto r = readTrainRecipe(text, dir);
    ASSERT_TRUE(r.ok()) << r.message();
    EXPECT_EQ(r->data.dev, std::vector<std::string>{std::filesystem::path(dir + "/dev.conllu").lexically_normal().string()});
    // 40 sentences / 8 = 5 batches an epoch: step 7 is in the second epoch,
    // between the checkpoints at 5 and 10.
    expectExactResume(*r, 7);
    // The held-out loss of the last weights is in the model file.
    auto f = loadModelFile(r->output + ".resumed.safetensors");
    ASSERT_TRUE(f.ok());
    const json c = json::parse(f->configJson);
    EXPECT_GT(c.at("training").at("final_validation_mlm_loss").get<double>(), 0.0);
    EXPECT_EQ(c.at("training").at("steps"), 12);
    EXPECT_FALSE(f->tensors.count("proj.weight")); // analysis-only file
}

TEST(TrainProgressReport, TypedEventsInOrderWithDevMetricAndEta)
{
    const std::string dir = tempDir("progress");
    TrainRecipe r = tinyDepRecipe(dir);
    r.output = dir + "/dep.safetensors";
    r.log = dir + "/log.jsonl";
    std::vector<TrainProgress> events;
    ASSERT_TRUE(trainModel(r, "", [&](const TrainProgress &p) { events.push_back(p); }).ok());
    ASSERT_GE(events.size(), 3u);
    EXPECT_EQ(events.front().event, TrainProgress::Event::Started);
    EXPECT_EQ(events.back().event, TrainProgress::Event::Finished);
    int evaluations = 0;
    double best = -1;
    for (const auto &p : events) {
        if (p.event == TrainProgress::Event::Evaluated) {
            ++evaluations;
            EXPECT_EQ(p.metric, "LAS");
            EXPECT_GE(p.devMetric, 0.0);
            EXPECT_LE(p.devMetric, 100.0);
            best = std::max(best, p.devMetric);
            EXPECT_DOUBLE_EQ(p.bestDevMetric, best);
            EXPECT_NE(p.devSummary.find("UAS"), std::string::npos);
        }
        if (p.event == TrainProgress::Event::Batch) {
            EXPECT_GE(p.etaSeconds, 0.0);
            EXPECT_GT(p.stepsPerSecond, 0.0);
            EXPECT_EQ(p.unit, "words");
            EXPECT_FALSE(formatTrainProgress(p).empty());
        }
    }
    EXPECT_EQ(evaluations, r.epochs); // one per epoch
    // Every report names an epoch of the run and a batch of that epoch: the evaluation at an
    // epoch's end and the final report are about the epoch just finished ("epoch 2/1 batch
    // 0/0" was printed after a one-epoch run).
    for (const auto &p : events) {
        EXPECT_GE(p.epoch, 1);
        EXPECT_LE(p.epoch, r.epochs) << formatTrainProgress(p);
        EXPECT_GT(p.batches, 0) << formatTrainProgress(p);
        EXPECT_LE(p.batch, p.batches) << formatTrainProgress(p);
    }
    EXPECT_EQ(events.back().epoch, r.epochs);
    EXPECT_EQ(events.back().batch, events.back().batches);
    // The log is JSON Lines: start, batches, evals, checkpoints, final.
    std::ifstream in(r.log);
    std::string line;
    std::map<std::string, int> kinds;
    while (std::getline(in, line))
        ++kinds[json::parse(line).at("event").get<std::string>()];
    EXPECT_EQ(kinds["start"], 1);
    EXPECT_EQ(kinds["eval"], r.epochs);
    EXPECT_EQ(kinds["final"], 1);
    EXPECT_GE(kinds["batch"], r.epochs);
}

TEST(TrainSchedule, ALinearRunBoundedByEpochsDecaysToZeroAtItsLastStep)
{
    // Bounded by 4 epochs, no step budget: warm-up over 2 steps, then a linear decay that
    // reaches 0 at the run's last step (epochs x the batches of an epoch).
    const std::string dir = tempDir("linear-epochs");
    TrainRecipe r = tinyDepRecipe(dir);
    r.schedule.kind = "linear";
    r.schedule.warmup = 2;
    r.optimizer.lr = 1.0e-3;
    r.logEvery = 1;
    std::map<long, double> lr;
    ASSERT_TRUE(trainModel(r, "", [&](const TrainProgress &p) {
                    if (p.step > 0 && std::isfinite(p.lr))
                        lr[p.step] = p.lr;
                }).ok());
    ASSERT_GE(lr.size(), 4u);
    const long last = lr.rbegin()->first;
    EXPECT_EQ(static_cast<long>(lr.size()), last); // every step reported
    EXPECT_EQ(last % r.epochs, 0);
    EXPECT_DOUBLE_EQ(lr[1], 0.5e-3);
    EXPECT_DOUBLE_EQ(lr[2], 1.0e-3);
    for (long s = 3; s <= last; ++s)
        EXPECT_DOUBLE_EQ(lr[s], 1.0e-3 * static_cast<double>(last - s) / static_cast<double>(last - 2)) << "step " << s;
    EXPECT_DOUBLE_EQ(lr[last], 0.0);
}
