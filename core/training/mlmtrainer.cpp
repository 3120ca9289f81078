#include "core/training/mlmtrainer.h"

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <random>

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "core/base/fileio.h"
#include "core/encoders/treetransformer/treetransformernet.h"
#include "core/formats/conllu.h"
#include "core/model/modelfile.h"
#include "core/model/safetensors.h"
#include "core/runtime/device.h"

namespace treelens {

using nlohmann::json;

Status MlmRecipe::validate() const
{
    auto bad = [](const std::string &m) { return Status(makeError("recipe", m)); };
    if (family != "tree-transformer")
        return bad("family '" + family + "' cannot be trained with masked LM here (tree-transformer can)");
    if (output.empty())
        return bad("\"output\" (the model file to write) is missing");
    if (checkpoint.empty())
        return bad("\"checkpoint\" is missing");
    if (steps < 1 || batchSize < 1 || warmup < 0)
        return bad("steps and batch_size must be positive, warmup non-negative");
    if (!(lr > 0.0) || !(beta1 >= 0 && beta1 < 1) || !(beta2 >= 0 && beta2 < 1) || !(adamEps > 0))
        return bad("lr, beta1, beta2, eps out of range");
    if (!(maskProb > 0 && maskProb < 1))
        return bad("mask_prob must be in (0, 1)");
    if (vocabMaxSize < 5 || vocabMinCount < 1)
        return bad("vocab max_size must be >= 5 and min_count >= 1");
    if (storage != "f32" && storage != "f16" && storage != "bf16")
        return bad("storage must be f32, f16 or bf16");
    if (checkpointEvery < 1 || logEvery < 1)
        return bad("checkpoint_every and log_every must be positive");
    if (data.maxWords + 1 > model.maxLen)
        return bad("data max_words + 1 must fit the position table (max_len)");
    if (auto s = data.validate(); !s)
        return s;
    TreeTransformerConfig m = model;
    m.vocabSize = std::max(m.vocabSize, 5);
    return m.validate();
}

Result<MlmRecipe> MlmRecipe::fromJson(const std::string &text, const std::string &baseDir)
{
    try {
        const auto j = json::parse(text);
        MlmRecipe r;
        auto path = [&](const json &o, const char *key) -> std::string {
            if (!o.contains(key) || o[key].is_null())
                return {};
            std::string p = o[key].get<std::string>();
            if (p.empty() || p[0] == '/' || baseDir.empty())
                return p;
            return (std::filesystem::path(baseDir) / p).lexically_normal().string();
        };
        r.family = j.value("family", r.family);
        r.name = j.value("name", r.name);
        r.output = path(j, "output");
        r.checkpoint = path(j, "checkpoint");
        r.log = path(j, "log");
        r.validation = path(j, "validation");
        r.validationSentences = j.value("validation_sentences", r.validationSentences);
        if (j.contains("data")) {
            const auto &d = j["data"];
            r.data.udTrain = path(d, "ud_train");
            r.data.wordnetDir = path(d, "wordnet_dir");
            r.data.ptbDir = path(d, "ptb_dir");
            r.data.ptbFirst = d.value("ptb_first", r.data.ptbFirst);
            r.data.ptbLast = d.value("ptb_last", r.data.ptbLast);
            r.data.maxWords = d.value("max_words", r.data.maxWords);
        }
        if (j.contains("vocab")) {
            r.vocabMaxSize = j["vocab"].value("max_size", r.vocabMaxSize);
            r.vocabMinCount = j["vocab"].value("min_count", r.vocabMinCount);
        }
        if (j.contains("model")) {
            json m = j["model"];
            if (!m.contains("vocab_size"))
                m["vocab_size"] = 5; // filled in from the built vocabulary
            auto c = TreeTransformerConfig::fromJson(m.dump());
            if (!c)
                return makeError("recipe", c.message());
            r.model = *c;
        }
        if (j.contains("training")) {
            const auto &t = j["training"];
            r.steps = t.value("steps", r.steps);
            r.batchSize = t.value("batch_size", r.batchSize);
            r.lr = t.value("lr", r.lr);
            r.warmup = t.value("warmup", r.warmup);
            r.beta1 = t.value("beta1", r.beta1);
            r.beta2 = t.value("beta2", r.beta2);
            r.adamEps = t.value("eps", r.adamEps);
            r.weightDecay = t.value("weight_decay", r.weightDecay);
            r.clipNorm = t.value("clip_norm", r.clipNorm);
            r.maskProb = t.value("mask_prob", r.maskProb);
            r.seed = t.value("seed", r.seed);
            r.checkpointEvery = t.value("checkpoint_every", r.checkpointEvery);
            r.logEvery = t.value("log_every", r.logEvery);
            r.threads = t.value("threads", r.threads);
            r.device = t.value("device", r.device);
            r.storage = t.value("storage", r.storage);
            r.keepProjection = t.value("keep_projection", r.keepProjection);
        }
        if (auto s = r.validate(); !s)
            return s.error();
        return r;
    } catch (const std::exception &e) {
        return makeError("recipe", e.what());
    }
}

std::string MlmRecipe::toJson() const
{
    json j;
    j["family"] = family;
    j["name"] = name;
    j["output"] = output;
    j["checkpoint"] = checkpoint;
    j["log"] = log;
    j["validation"] = validation;
    j["validation_sentences"] = validationSentences;
    j["data"] = {{"ud_train", data.udTrain}, {"wordnet_dir", data.wordnetDir}, {"ptb_dir", data.ptbDir},
                 {"ptb_first", data.ptbFirst}, {"ptb_last", data.ptbLast}, {"max_words", data.maxWords}};
    j["vocab"] = {{"max_size", vocabMaxSize}, {"min_count", vocabMinCount}};
    j["model"] = json::parse(model.toJson());
    j["training"] = {{"steps", steps}, {"batch_size", batchSize}, {"lr", lr}, {"warmup", warmup}, {"beta1", beta1},
                     {"beta2", beta2}, {"eps", adamEps}, {"weight_decay", weightDecay}, {"clip_norm", clipNorm},
                     {"mask_prob", maskProb}, {"seed", seed}, {"checkpoint_every", checkpointEvery},
                     {"log_every", logEvery}, {"threads", threads}, {"device", device}, {"storage", storage},
                     {"keep_projection", keepProjection}};
    return j.dump(2);
}

namespace {

struct Batch {
    torch::Tensor ids, mask, rows, targets;
    std::int64_t tokens = 0;
};

/// BERT masking over the word tokens of a batch (never [CLS] or padding).
Batch makeBatch(const std::vector<const std::vector<int> *> &sents, const Vocabulary &vocab, double maskProb,
                std::mt19937_64 &rng, const torch::Device &dev)
{
    std::size_t L = 0;
    for (const auto *s : sents)
        L = std::max(L, s->size());
    const auto B = static_cast<std::int64_t>(sents.size());
    auto ids = torch::zeros({B, static_cast<std::int64_t>(L)}, torch::kInt64);
    auto mask = torch::zeros({B, static_cast<std::int64_t>(L)}, torch::kBool);
    auto ia = ids.accessor<std::int64_t, 2>();
    auto ma = mask.accessor<bool, 2>();
    std::vector<std::int64_t> rows, targets;
    std::uniform_real_distribution<double> u(0.0, 1.0);
    std::uniform_int_distribution<int> randomWord(4, vocab.size() - 1);
    Batch b;
    for (std::int64_t i = 0; i < B; ++i) {
        const auto &s = *sents[static_cast<std::size_t>(i)];
        for (std::size_t k = 0; k < s.size(); ++k) {
            ia[i][static_cast<std::int64_t>(k)] = s[k];
            ma[i][static_cast<std::int64_t>(k)] = true;
        }
        b.tokens += static_cast<std::int64_t>(s.size());
        std::vector<std::size_t> chosen;
        for (std::size_t k = 1; k < s.size(); ++k)
            if (u(rng) < maskProb)
                chosen.push_back(k);
        if (chosen.empty() && s.size() > 1) // every sentence contributes at least one prediction
            chosen.push_back(1 + static_cast<std::size_t>(rng() % (s.size() - 1)));
        for (std::size_t k : chosen) {
            rows.push_back(i * static_cast<std::int64_t>(L) + static_cast<std::int64_t>(k));
            targets.push_back(s[k]);
            const double r = u(rng);
            if (r < 0.8)
                ia[i][static_cast<std::int64_t>(k)] = vocab.maskId();
            else if (r < 0.9)
                ia[i][static_cast<std::int64_t>(k)] = randomWord(rng);
        }
    }
    b.ids = ids.to(dev);
    b.mask = mask.to(dev);
    b.rows = torch::tensor(rows, torch::kInt64).to(dev);
    b.targets = torch::tensor(targets, torch::kInt64).to(dev);
    return b;
}

TensorData tensorToData(const torch::Tensor &t)
{
    auto c = t.detach().to(torch::kCPU, torch::kFloat32).contiguous();
    std::vector<float> v(c.data_ptr<float>(), c.data_ptr<float>() + c.numel());
    return TensorData::fromFloat(std::vector<std::int64_t>(c.sizes().begin(), c.sizes().end()), v);
}

torch::Tensor dataToTensor(const TensorData &d, const torch::Device &dev)
{
    const auto v = d.toFloat();
    std::vector<std::int64_t> shape(d.shape.begin(), d.shape.end());
    return torch::from_blob(const_cast<float *>(v.data()), shape, torch::kFloat32).clone().to(dev);
}

double learningRate(const MlmRecipe &r, int step)
{
    // Linear warm-up to the peak, then inverse-square-root decay (Noam shape).
    const double s = std::max(step, 1);
    if (r.warmup > 0 && s < r.warmup)
        return r.lr * s / r.warmup;
    return r.warmup > 0 ? r.lr * std::sqrt(static_cast<double>(r.warmup) / s) : r.lr;
}

std::string modelConfigJson(const MlmRecipe &r, const TreeTransformerConfig &model, const json &training)
{
    json c;
    c["family"] = "tree-transformer";
    c["task"] = "masked-lm";
    c["name"] = r.name;
    c["model"] = json::parse(model.toJson());
    c["tokenizer"] = {{"lowercase", true}, {"digits", "N"}, {"cls", "[CLS]"}, {"unknown", "[UNK]"},
                      {"words", "TreeLens UD/PTB tokenizer"}};
    c["induction"] = json::parse(InductionConfig{}.toJson());
    c["training"] = training;
    return c.dump();
}

} // namespace

Status trainMaskedLm(const MlmRecipe &recipe, const std::string &resumeFrom,
                     const std::function<void(const TrainProgress &)> &onProgress, const RunControl *control)
{
    if (auto s = recipe.validate(); !s)
        return s;
    DeviceConfig dc;
    dc.device = recipe.device;
    dc.threads = recipe.threads;
    auto dev = resolveDevice(dc);
    if (!dev)
        return dev.error();
    auto report = [&](TrainProgress p) {
        if (onProgress)
            onProgress(p);
    };

    // ---- data and vocabulary
    auto corpus = loadPretrainCorpus(recipe.data);
    if (!corpus)
        return corpus.error();
    TreeTransformerConfig cfg = recipe.model;
    Vocabulary vocab;
    TensorMap weights;
    int startStep = 0;
    double elapsedBefore = 0.0;
    std::map<std::string, torch::Tensor> m1, m2;
    if (!resumeFrom.empty()) {
        auto ck = readSafetensors(resumeFrom);
        if (!ck)
            return ck.error();
        const auto &meta = ck->metadata;
        if (!meta.count("treelens.vocab") || !meta.count("treelens.train_state"))
            return makeError(resumeFrom, "not a TreeLens training checkpoint (no treelens.train_state)");
        auto v = Vocabulary::fromLines(meta.at("treelens.vocab"), resumeFrom);
        if (!v)
            return v.error();
        vocab = std::move(*v);
        const auto state = json::parse(meta.at("treelens.train_state"));
        startStep = state.at("step").get<int>();
        elapsedBefore = state.value("elapsed_seconds", 0.0);
        cfg.vocabSize = vocab.size();
        for (auto &[name, t] : ck->tensors) {
            if (name.rfind("model.", 0) == 0)
                weights[name.substr(6)] = t;
        }
        for (auto &[name, t] : ck->tensors) {
            if (name.rfind("adam.m.", 0) == 0)
                m1[name.substr(7)] = dataToTensor(t, *dev);
            else if (name.rfind("adam.v.", 0) == 0)
                m2[name.substr(7)] = dataToTensor(t, *dev);
        }
    } else {
        vocab = buildVocabulary(*corpus, recipe.vocabMaxSize, recipe.vocabMinCount);
        cfg.vocabSize = vocab.size();
        weights = randomTreeTransformerWeights(cfg, recipe.seed);
    }
    if (auto s = cfg.validate(); !s)
        return s;
    if (auto s = validateTreeTransformerWeights(cfg, weights, resumeFrom.empty() ? "initial weights" : resumeFrom); !s)
        return s;
    auto netR = tt::Net::fromTensors(cfg, weights, *dev);
    if (!netR)
        return netR.error();
    tt::Net net = std::move(*netR);
    net.setTrainable(true);

    std::vector<std::vector<int>> encoded;
    encoded.reserve(corpus->sentences.size());
    std::size_t unk = 0, words = 0;
    for (const auto &s : corpus->sentences) {
        encoded.push_back(vocab.encode(s));
        for (std::size_t k = 1; k < encoded.back().size(); ++k)
            unk += encoded.back()[k] == vocab.unkId();
        words += s.size();
    }
    std::vector<std::vector<int>> validation;
    if (!recipe.validation.empty()) {
        auto text = readFile(recipe.validation);
        if (!text)
            return text.error();
        auto sents = readConllu(*text, recipe.validation);
        if (!sents)
            return sents.error();
        for (const auto &s : *sents) {
            if (static_cast<int>(validation.size()) >= recipe.validationSentences)
                break;
            auto w = s.words();
            if (w.size() < 2 || static_cast<int>(w.size()) > recipe.data.maxWords)
                continue;
            validation.push_back(vocab.encode(w));
        }
    }

    json dataSummary = {{"sentences", corpus->sentences.size()},
                        {"words", words},
                        {"unknown_rate", words ? static_cast<double>(unk) / static_cast<double>(words) : 0.0},
                        {"by_source", corpus->sentencesBySource},
                        {"vocab_size", vocab.size()}};
    std::ofstream log;
    if (!recipe.log.empty()) {
        std::filesystem::create_directories(std::filesystem::path(recipe.log).parent_path().empty()
                                                ? std::filesystem::path(".")
                                                : std::filesystem::path(recipe.log).parent_path());
        log.open(recipe.log, std::ios::app);
        log << json{{"event", resumeFrom.empty() ? "start" : "resume"}, {"step", startStep}, {"data", dataSummary},
                    {"recipe", json::parse(recipe.toJson())}}
                   .dump()
            << "\n";
        log.flush();
    }
    {
        TrainProgress p;
        p.step = startStep;
        p.steps = recipe.steps;
        p.message = "data: " + std::to_string(corpus->sentences.size()) + " sentences, " + std::to_string(words) +
                    " words, vocabulary " + std::to_string(vocab.size()) + ", unknown " +
                    std::to_string(100.0 * static_cast<double>(unk) / std::max<double>(1.0, static_cast<double>(words))) + "%";
        report(p);
    }

    auto params = net.named();
    for (auto &[name, t] : params) {
        if (!m1.count(name))
            m1[name] = torch::zeros_like(t).detach();
        if (!m2.count(name))
            m2[name] = torch::zeros_like(t).detach();
    }

    // Deterministic order from (seed, epoch), so a resumed run continues the
    // same sequence: shuffle, sort chunks of 50 batches by length (little
    // padding), then shuffle the batches.
    const std::size_t B = static_cast<std::size_t>(recipe.batchSize);
    const std::size_t perEpoch = std::max<std::size_t>(1, encoded.size() / B);
    std::size_t cachedEpoch = static_cast<std::size_t>(-1);
    std::vector<std::size_t> order;     // sentence indices, batch after batch
    std::vector<std::size_t> batchOrder;
    auto batchAt = [&](int step, std::mt19937_64 &rng) {
        const std::size_t epoch = static_cast<std::size_t>(step) / perEpoch;
        const std::size_t within = static_cast<std::size_t>(step) % perEpoch;
        if (epoch != cachedEpoch) {
            order.resize(encoded.size());
            std::iota(order.begin(), order.end(), 0);
            std::mt19937_64 shuffle(recipe.seed * 1000003ull + epoch);
            std::shuffle(order.begin(), order.end(), shuffle);
            const std::size_t chunk = B * 50;
            for (std::size_t c = 0; c < order.size(); c += chunk) {
                auto end = order.begin() + static_cast<long>(std::min(order.size(), c + chunk));
                std::stable_sort(order.begin() + static_cast<long>(c), end, [&](std::size_t a, std::size_t b) {
                    return encoded[a].size() < encoded[b].size();
                });
            }
            batchOrder.resize(perEpoch);
            std::iota(batchOrder.begin(), batchOrder.end(), 0);
            std::shuffle(batchOrder.begin(), batchOrder.end(), shuffle);
            cachedEpoch = epoch;
        }
        std::vector<const std::vector<int> *> sents;
        const std::size_t first = batchOrder[within] * B;
        for (std::size_t k = 0; k < B; ++k)
            sents.push_back(&encoded[order[(first + k) % order.size()]]);
        return makeBatch(sents, vocab, recipe.maskProb, rng, *dev);
    };

    auto validationLoss = [&]() -> double {
        if (validation.empty())
            return -1.0;
        torch::NoGradGuard ng;
        std::mt19937_64 rng(12345);
        double total = 0.0;
        std::int64_t count = 0;
        for (std::size_t b = 0; b < validation.size(); b += 32) {
            std::vector<const std::vector<int> *> sents;
            for (std::size_t k = b; k < std::min(validation.size(), b + 32); ++k)
                sents.push_back(&validation[k]);
            auto batch = makeBatch(sents, vocab, recipe.maskProb, rng, *dev);
            tt::ForwardOptions fo;
            fo.keepPrior = false;
            fo.logits = true;
            fo.logitRows = batch.rows;
            net.refreshFused();
            auto out = tt::forward(net, batch.ids, batch.mask, fo);
            total += torch::nn::functional::cross_entropy(out.logits, batch.targets,
                                                          torch::nn::functional::CrossEntropyFuncOptions().reduction(torch::kSum))
                         .item<double>();
            count += batch.targets.size(0);
        }
        return total / static_cast<double>(std::max<std::int64_t>(1, count));
    };

    auto saveCheckpoint = [&](int step, double elapsed) -> Status {
        TensorMap all;
        for (auto &[name, t] : net.toTensors())
            all["model." + name] = std::move(t);
        for (auto &[name, t] : m1)
            all["adam.m." + name] = tensorToData(t);
        for (auto &[name, t] : m2)
            all["adam.v." + name] = tensorToData(t);
        std::map<std::string, std::string> meta;
        meta["treelens.vocab"] = vocab.toLines();
        meta["treelens.config"] = modelConfigJson(recipe, cfg, json::object());
        meta["treelens.train_state"] = json{{"step", step}, {"elapsed_seconds", elapsed}}.dump();
        meta["treelens.recipe"] = recipe.toJson();
        std::filesystem::path dir = std::filesystem::path(recipe.checkpoint).parent_path();
        if (!dir.empty())
            std::filesystem::create_directories(dir);
        return writeSafetensors(recipe.checkpoint, all, meta);
    };

    const auto t0 = std::chrono::steady_clock::now();
    auto elapsedNow = [&] {
        return elapsedBefore + std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    };
    double lossSum = 0.0, correct = 0.0, predicted = 0.0;
    std::int64_t tokens = 0;
    int windowSteps = 0;
    auto windowStart = std::chrono::steady_clock::now();
    double lastValidation = -1.0;
    tt::ForwardOptions fo;
    fo.train = true;
    fo.keepPrior = false;
    fo.logits = true;
    for (int step = startStep; step < recipe.steps; ++step) {
        if (control && control->isCancelled()) {
            if (auto s = saveCheckpoint(step, elapsedNow()); !s)
                return s;
            return makeError("training", "cancelled at step " + std::to_string(step) + " (checkpoint saved)");
        }
        std::mt19937_64 rng(recipe.seed * 7919ull + static_cast<unsigned long long>(step));
        torch::manual_seed(recipe.seed * 104729ull + static_cast<unsigned long long>(step));
        auto batch = batchAt(step, rng);
        fo.logitRows = batch.rows;
        auto out = tt::forward(net, batch.ids, batch.mask, fo);
        auto loss = torch::nn::functional::cross_entropy(out.logits, batch.targets);
        for (auto &[name, t] : params)
            if (t.grad().defined())
                t.mutable_grad().zero_();
        loss.backward();
        {
            torch::NoGradGuard ng;
            if (recipe.clipNorm > 0) {
                std::vector<torch::Tensor> ps;
                for (auto &[name, t] : params)
                    ps.push_back(t);
                torch::nn::utils::clip_grad_norm_(ps, recipe.clipNorm);
            }
            const int t = step + 1;
            const double lr = learningRate(recipe, t);
            const double bc1 = 1.0 - std::pow(recipe.beta1, t), bc2 = 1.0 - std::pow(recipe.beta2, t);
            for (auto &[name, p] : params) {
                if (!p.grad().defined())
                    continue;
                const auto &g = p.grad();
                m1[name].mul_(recipe.beta1).add_(g, 1.0 - recipe.beta1);
                m2[name].mul_(recipe.beta2).addcmul_(g, g, 1.0 - recipe.beta2);
                auto denom = (m2[name] / bc2).sqrt_().add_(recipe.adamEps);
                if (recipe.weightDecay > 0 && name.find("norm") == std::string::npos && name.find("bias") == std::string::npos)
                    p.mul_(1.0 - lr * recipe.weightDecay);
                p.addcdiv_(m1[name], denom, -lr / bc1);
            }
            lossSum += loss.item<double>();
            correct += out.logits.argmax(-1).eq(batch.targets).sum().item<double>();
            predicted += static_cast<double>(batch.targets.size(0));
            tokens += batch.tokens;
            ++windowSteps;
        }
        const int done = step + 1;
        const bool atCheckpoint = done % recipe.checkpointEvery == 0 || done == recipe.steps;
        if (done % recipe.logEvery == 0 || atCheckpoint) {
            const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - windowStart).count();
            TrainProgress p;
            p.step = done;
            p.steps = recipe.steps;
            p.loss = lossSum / std::max(1, windowSteps);
            p.accuracy = predicted > 0 ? correct / predicted : 0.0;
            p.lr = learningRate(recipe, done);
            p.stepsPerSecond = secs > 0 ? windowSteps / secs : 0.0;
            p.tokensPerSecond = secs > 0 ? static_cast<double>(tokens) / secs : 0.0;
            p.elapsedSeconds = elapsedNow();
            if (atCheckpoint) {
                lastValidation = validationLoss();
                p.validationLoss = lastValidation;
                if (auto s = saveCheckpoint(done, elapsedNow()); !s)
                    return s;
                p.message = "checkpoint saved";
            }
            if (log.is_open()) {
                log << json{{"step", p.step}, {"loss", p.loss}, {"accuracy", p.accuracy}, {"lr", p.lr},
                            {"steps_per_s", p.stepsPerSecond}, {"tokens_per_s", p.tokensPerSecond},
                            {"elapsed_s", p.elapsedSeconds}, {"validation_loss", p.validationLoss}}
                           .dump()
                    << "\n";
                log.flush();
            }
            report(p);
            lossSum = correct = predicted = 0.0;
            tokens = 0;
            windowSteps = 0;
            windowStart = std::chrono::steady_clock::now();
        }
    }

    // ---- final model file
    if (lastValidation < 0) // resumed at the last step: measure it now
        lastValidation = validationLoss();
    TensorMap finalWeights = net.toTensors();
    if (!recipe.keepProjection) {
        finalWeights.erase("proj.weight");
        finalWeights.erase("proj.bias");
    }
    finalWeights.erase("word_embed.1.pe"); // recomputed at load time (sinusoidal)
    json training = {{"recipe", json::parse(recipe.toJson())},
                     {"steps", recipe.steps},
                     {"elapsed_seconds", elapsedNow()},
                     {"final_validation_mlm_loss", lastValidation},
                     {"data", dataSummary}};
    ModelFile file;
    file.configJson = modelConfigJson(recipe, cfg, training);
    file.vocab = vocab.tokens();
    file.tensors = std::move(finalWeights);
    const DType storage = recipe.storage == "f16" ? DType::F16 : recipe.storage == "bf16" ? DType::BF16 : DType::F32;
    std::filesystem::path dir = std::filesystem::path(recipe.output).parent_path();
    if (!dir.empty())
        std::filesystem::create_directories(dir);
    return saveModelFile(recipe.output, file, storage);
}

} // namespace treelens
