// mlmtrainer: the Tree Transformer's masked-LM trainer (see mlmtrainer.h).
#include "core/encoders/treetransformer/mlmtrainer.h"

#include <cmath>
#include <numeric>
#include <random>

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "core/base/fileio.h"
#include "core/data/induction.h"
#include "core/encoders/treetransformer/treetransformernet.h"
#include "core/encoders/common/vocabulary.h"
#include "core/eval/inductioneval.h"
#include "core/formats/conllu.h"
#include "core/model/modelfile.h"
#include "core/training/pretraincorpus.h"
#include "core/training/recipetask.h"
#include "core/training/trainer.h"

namespace treelens {

using nlohmann::json;

namespace {

/// [PAD] [UNK] [MASK] [CLS] then the corpus's words as frequentWordTokens() orders them.
Vocabulary buildVocabulary(const PretrainCorpus &corpus, int maxSize, int minCount)
{
    std::vector<const std::vector<std::string> *> sentences;
    sentences.reserve(corpus.sentences.size());
    for (const auto &s : corpus.sentences)
        sentences.push_back(&s);
    return std::move(*Vocabulary::withSpecials(frequentWordTokens(sentences, {"[PAD]", "[UNK]", "[MASK]", "[CLS]"}, maxSize, minCount)));
}


/// The family's own recipe options, read from TrainRecipe::optionsJson and data.extraJson.
struct MlmOptions {
    double maskProb = 0.15;
    bool keepProjection = false;  ///< keep the vocabulary projection in the final model
    int validationSentences = 400;
    int vocabMaxSize = 12000;
    int vocabMinCount = 2;
    std::string select = "mlm_loss"; ///< the dev metric: "mlm_loss" or "induction_f1" (needs induction_dev)
    PretrainSources data;
    std::vector<std::string> inductionDev; ///< PTB development files scored for unsupervised parsing at every evaluation

    static Result<MlmOptions> from(const TrainRecipe &r)
    {
        auto bad = [](const std::string &m) { return makeError("recipe", m); };
        MlmOptions o;
        try {
            const json j = json::parse(r.optionsJson);
            for (auto it = j.begin(); it != j.end(); ++it)
                if (it.key() != "mask_prob" && it.key() != "keep_projection" && it.key() != "validation_sentences" &&
                    it.key() != "vocab" && it.key() != "select")
                    return bad("unknown option \"" + it.key() + "\"");
            o.maskProb = j.value("mask_prob", o.maskProb);
            o.keepProjection = j.value("keep_projection", o.keepProjection);
            o.validationSentences = j.value("validation_sentences", o.validationSentences);
            o.select = j.value("select", o.select);
            const json v = j.value("vocab", json::object());
            o.vocabMaxSize = v.value("max_size", o.vocabMaxSize);
            o.vocabMinCount = v.value("min_count", o.vocabMinCount);
            const json d = json::parse(r.data.extraJson);
            for (auto it = d.begin(); it != d.end(); ++it)
                if (it.key() != "ud_train" && it.key() != "wordnet_dir" && it.key() != "ptb_dir" && it.key() != "ptb_first" &&
                    it.key() != "ptb_last" && it.key() != "max_words" && it.key() != "ptb_repeat" && it.key() != "induction_dev" &&
                    it.key() != "strip_punctuation")
                    return bad("unknown data key \"" + it.key() + "\"");
            o.data.udTrain = d.value("ud_train", std::string());
            o.data.wordnetDir = d.value("wordnet_dir", std::string());
            o.data.ptbDir = d.value("ptb_dir", std::string());
            o.data.ptbFirst = d.value("ptb_first", o.data.ptbFirst);
            o.data.ptbLast = d.value("ptb_last", o.data.ptbLast);
            o.data.maxWords = d.value("max_words", o.data.maxWords);
            o.data.ptbRepeat = d.value("ptb_repeat", o.data.ptbRepeat);
            o.data.stripPunctuation = d.value("strip_punctuation", o.data.stripPunctuation);
            if (d.contains("induction_dev"))
                o.inductionDev = d.at("induction_dev").get<std::vector<std::string>>();
        } catch (const std::exception &e) {
            return bad(e.what());
        }
        return o;
    }
};

Result<TreeTransformerConfig> modelConfig(const TrainRecipe &r, int vocabSize)
{
    try {
        json m = json::parse(r.modelJson);
        m["vocab_size"] = vocabSize; // filled in from the built vocabulary
        return TreeTransformerConfig::fromJson(m.dump());
    } catch (const std::exception &e) {
        return makeError("recipe", std::string("model: ") + e.what());
    }
}

Status validateRecipe(const TrainRecipe &r)
{
    auto bad = [](const std::string &m) { return Status(makeError("recipe", m)); };
    auto o = MlmOptions::from(r);
    if (!o)
        return o.error();
    if (r.steps < 1 || r.batchSize < 1)
        return bad("steps and batch_size must be positive");
    if (!(o->maskProb > 0 && o->maskProb < 1))
        return bad("mask_prob must be in (0, 1)");
    if (o->vocabMaxSize < 5 || o->vocabMinCount < 1)
        return bad("vocab max_size must be >= 5 and min_count >= 1");
    if (r.data.dev.size() > 1)
        return bad("\"dev\" (validation) is one CoNLL-U file");
    if (o->select != "mlm_loss" && o->select != "induction_f1")
        return bad("select must be mlm_loss or induction_f1");
    if (o->select == "induction_f1" && o->inductionDev.empty())
        return bad("select induction_f1 needs data \"induction_dev\" (PTB development files)");
    for (const auto &f : o->inductionDev)
        for (int k = 180; k <= 199; ++k)
            if (f.find("wsj_0" + std::to_string(k)) != std::string::npos)
                return bad(f + " is a test file: induction_dev must be development trees (wsj_0160-wsj_0179)");
    if (auto s = o->data.validate(); !s)
        return s;
    auto cfg = modelConfig(r, 5);
    if (!cfg)
        return cfg.error();
    if (o->data.maxWords + 1 > cfg->maxLen)
        return bad("data max_words + 1 must fit the position table (max_len)");
    return cfg->validate();
}

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

class MlmTask : public training::RecipeTask {
public:
    Result<training::DataSummary> prepare(const TrainRecipe &recipe, const ModelFile *resume,
                                          const torch::Device &device) override
    {
        if (auto s = begin(recipe, device, MlmOptions::from(recipe), m_options); !s)
            return s.error();
        auto corpus = loadPretrainCorpus(m_options.data);
        if (!corpus)
            return corpus.error();
        TensorMap weights;
        if (resume) {
            auto v = Vocabulary::withSpecials(resume->vocab);
            if (!v)
                return makeError(resume->sourcePath, v.error());
            m_vocab = std::move(*v);
            weights = resume->tensors;
        } else {
            m_vocab = buildVocabulary(*corpus, m_options.vocabMaxSize, m_options.vocabMinCount);
        }
        auto cfg = modelConfig(recipe, m_vocab.size());
        if (!cfg)
            return cfg.error();
        m_cfg = *cfg;
        if (auto s = m_cfg.validate(); !s)
            return s.error();
        if (!resume)
            weights = randomTreeTransformerWeights(m_cfg, recipe.seed);
        const std::string where = resume ? resume->sourcePath : "initial weights";
        if (auto s = validateTreeTransformerWeights(m_cfg, weights, where); !s)
            return s.error();
        auto net = tt::Net::fromTensors(m_cfg, weights, device);
        if (!net)
            return net.error();
        m_net = std::make_unique<tt::Net>(std::move(*net));
        m_net->setTrainable(true);

        m_encoded.clear();
        m_encoded.reserve(corpus->sentences.size());
        std::size_t unk = 0, words = 0;
        for (const auto &s : corpus->sentences) {
            m_encoded.push_back(m_vocab.encode(s));
            for (std::size_t k = 1; k < m_encoded.back().size(); ++k)
                unk += m_encoded.back()[k] == m_vocab.unkId();
            words += s.size();
        }
        if (auto s = readValidation(); !s)
            return s.error();
        m_inductionGold.clear();
        if (!m_options.inductionDev.empty()) {
            auto gold = readInductionGoldFiles(m_options.inductionDev, m_cfg.maxLen - 1);
            if (!gold)
                return gold.error();
            m_inductionGold = std::move(*gold);
        }
        m_dataSummary = {{"sentences", corpus->sentences.size()},
                         {"words", words},
                         {"unknown_rate", words ? static_cast<double>(unk) / static_cast<double>(words) : 0.0},
                         {"by_source", corpus->sentencesBySource},
                         {"vocab_size", m_vocab.size()},
                         {"validation_sentences", m_validation.size()}};
        training::DataSummary d;
        d.text = std::to_string(corpus->sentences.size()) + " sentences, " + std::to_string(words) + " words, vocabulary " +
                 std::to_string(m_vocab.size()) + ", unknown " +
                 std::to_string(100.0 * static_cast<double>(unk) / std::max<double>(1.0, static_cast<double>(words))) + "%";
        d.json = m_dataSummary.dump();
        return d;
    }

    training::NamedParameters parameters() override
    {
        training::NamedParameters out;
        for (auto &[name, t] : m_net->named())
            out.emplace_back(name, t);
        return out;
    }

    long batchesInEpoch(int) override
    {
        return static_cast<long>(std::max<std::size_t>(1, m_encoded.size() / static_cast<std::size_t>(m_recipe.batchSize)));
    }

    /// Deterministic order from (seed, epoch): shuffle, sort chunks of 50
    /// batches by length (little padding), then shuffle the batches.
    Result<training::StepResult> trainStep(int epoch, long batch, std::mt19937_64 &rng) override
    {
        const std::size_t B = static_cast<std::size_t>(m_recipe.batchSize);
        if (epoch != m_cachedEpoch) {
            const auto perEpoch = static_cast<std::size_t>(batchesInEpoch(epoch));
            m_order.resize(m_encoded.size());
            std::iota(m_order.begin(), m_order.end(), 0);
            std::mt19937_64 shuffle(m_recipe.seed * 1000003ull + static_cast<unsigned long long>(epoch));
            std::shuffle(m_order.begin(), m_order.end(), shuffle);
            const std::size_t chunk = B * 50;
            for (std::size_t c = 0; c < m_order.size(); c += chunk) {
                auto end = m_order.begin() + static_cast<long>(std::min(m_order.size(), c + chunk));
                std::stable_sort(m_order.begin() + static_cast<long>(c), end,
                                 [&](std::size_t a, std::size_t b) { return m_encoded[a].size() < m_encoded[b].size(); });
            }
            m_batchOrder.resize(perEpoch);
            std::iota(m_batchOrder.begin(), m_batchOrder.end(), 0);
            std::shuffle(m_batchOrder.begin(), m_batchOrder.end(), shuffle);
            m_cachedEpoch = epoch;
        }
        std::vector<const std::vector<int> *> sents;
        const std::size_t first = m_batchOrder[static_cast<std::size_t>(batch)] * B;
        for (std::size_t k = 0; k < B; ++k)
            sents.push_back(&m_encoded[m_order[(first + k) % m_order.size()]]);
        auto b = makeBatch(sents, m_vocab, m_options.maskProb, rng, m_device);
        tt::ForwardOptions fo;
        fo.train = true;
        fo.keepPrior = false;
        fo.logits = true;
        fo.logitRows = b.rows;
        auto out = tt::forward(*m_net, b.ids, b.mask, fo);
        training::StepResult r;
        r.loss = torch::nn::functional::cross_entropy(out.logits, b.targets);
        r.units = static_cast<double>(b.tokens);
        {
            torch::NoGradGuard ng;
            r.correct = out.logits.argmax(-1).eq(b.targets).sum().item<double>();
        }
        r.predicted = static_cast<double>(b.targets.size(0));
        return r;
    }

    /// Held-out masked-LM loss with a fixed masking seed (NaN without dev sentences).
    /// Held-out masked-LM loss with a fixed masking seed (NaN without dev
    /// sentences) and, with induction_dev, unsupervised-parsing F1 on those trees.
    Result<training::DevResult> evaluate() override
    {
        training::DevResult r;
        json details = json::object();
        const double loss = validationLoss();
        if (!std::isnan(loss))
            details = {{"mlm_loss", loss}, {"sentences", m_validation.size()}};
        std::string summary;
        double f1 = NAN;
        if (!m_inductionGold.empty()) {
            auto scored = inductionScores();
            if (!scored)
                return scored.error();
            details["induction"] = scored->first;
            f1 = scored->second;
            char buf[96];
            std::snprintf(buf, sizeof buf, "induction F1 %.2f (best start layer %d)", f1,
                          scored->first.value("best_start_layer", 0));
            summary = buf;
        }
        if (!std::isnan(loss)) {
            char buf[64];
            std::snprintf(buf, sizeof buf, "MLM loss %.4f", loss);
            summary = summary.empty() ? std::string(buf) : std::string(buf) + ", " + summary;
        }
        r.value = m_options.select == "induction_f1" ? f1 : loss;
        r.detailsJson = details.dump();
        r.summary = summary;
        return r;
    }

    std::string metricName() const override
    {
        return m_options.select == "induction_f1" ? "induction F1 (dev, best start layer)" : "held-out MLM loss";
    }
    bool higherIsBetter() const override { return m_options.select == "induction_f1"; }
    std::string unitName() const override { return "tokens"; }

    ModelFile snapshot(const training::SnapshotInfo &info) override
    {
        const bool checkpoint = info.kind == training::SnapshotInfo::Kind::Checkpoint;
        TensorMap weights = m_net->toTensors();
        json trainingJson = json::object();
        if (!checkpoint) {
            if (!m_options.keepProjection) {
                weights.erase("proj.weight");
                weights.erase("proj.bias");
            }
            weights.erase("word_embed.1.pe"); // recomputed at load time (sinusoidal)
            trainingJson = {{"recipe", json::parse(m_recipe.toJson())},
                            {"steps", info.step},
                            {"elapsed_seconds", info.elapsedSeconds},
                            {"final_validation_mlm_loss", json::parse(info.dev.detailsJson).value("mlm_loss", -1.0)},
                            {"dev", json::parse(info.dev.detailsJson)},
                            {"data", m_dataSummary}};
        }
        json c;
        c["family"] = "tree-transformer";
        c["task"] = "masked-lm";
        c["name"] = m_recipe.name;
        c["model"] = json::parse(m_cfg.toJson());
        c["tokenizer"] = {{"lowercase", true}, {"digits", "N"}, {"cls", "[CLS]"}, {"unknown", "[UNK]"},
                          {"words", "TreeLens UD/PTB tokenizer"}};
        c["induction"] = json::parse(InductionConfig::defaultsFor(m_cfg.layers).toJson());
        c["training"] = trainingJson;
        ModelFile file;
        file.configJson = c.dump();
        file.vocab = m_vocab.tokens();
        file.tensors = std::move(weights);
        return file;
    }

private:
    double validationLoss()
    {
        if (m_validation.empty())
            return NAN;
        torch::NoGradGuard ng;
        std::mt19937_64 rng(12345);
        double total = 0.0;
        std::int64_t count = 0;
        for (std::size_t b = 0; b < m_validation.size(); b += 32) {
            std::vector<const std::vector<int> *> sents;
            for (std::size_t k = b; k < std::min(m_validation.size(), b + 32); ++k)
                sents.push_back(&m_validation[k]);
            auto batch = makeBatch(sents, m_vocab, m_options.maskProb, rng, m_device);
            tt::ForwardOptions fo;
            fo.keepPrior = false;
            fo.logits = true;
            fo.logitRows = batch.rows;
            (void)m_net->refreshFused(); // fp32 always succeeds
            auto out = tt::forward(*m_net, batch.ids, batch.mask, fo);
            total += torch::nn::functional::cross_entropy(out.logits, batch.targets,
                                                          torch::nn::functional::CrossEntropyFuncOptions().reduction(torch::kSum))
                         .item<double>();
            count += batch.targets.size(0);
        }
        return total / static_cast<double>(std::max<std::int64_t>(1, count));
    }

    /// Unsupervised parsing of the development trees by the current weights
    /// (eval-induction's protocol, the default settings, every start layer): the
    /// figures, and the best start layer's mean sentence F1.
    Result<std::pair<json, double>> inductionScores()
    {
        ModelFile file = snapshot({training::SnapshotInfo::Kind::Last, 0, 0, 0.0, {}});
        file.sourcePath = "the model in training";
        DeviceConfig dc;
        dc.device = m_device.str();
        auto encoder = createTreeTransformer(file, dc);
        if (!encoder)
            return encoder.error();
        auto report = evaluateInductionGold(encoder->get(), m_inductionGold, InductionConfig::defaultsFor(m_cfg.layers));
        if (!report)
            return report.error();
        // Start layers numbered from 1, as eval-induction prints them; the default
        // settings start at the top layer.
        json byLayer = json::array();
        double best = report->all.model.sentenceF1;
        int bestLayer = m_cfg.layers;
        for (const auto &sl : report->byStartLayer) {
            byLayer.push_back({{"start_layer", sl.layer + 1}, {"sentence_f1", sl.all.sentenceF1}, {"corpus_f1", sl.all.corpusF1}});
            if (sl.all.sentenceF1 > best) {
                best = sl.all.sentenceF1;
                bestLayer = sl.layer + 1;
            }
        }
        json j = {{"sentences", m_inductionGold.size()},
                  {"sentence_f1", report->all.model.sentenceF1},
                  {"corpus_f1", report->all.model.corpusF1},
                  {"right_branching_sentence_f1", report->all.right.sentenceF1},
                  {"by_start_layer", byLayer},
                  {"best_start_layer", bestLayer},
                  {"best_sentence_f1", best}};
        return std::make_pair(j, best);
    }

    Status readValidation()
    {
        m_validation.clear();
        if (m_recipe.data.dev.empty())
            return {};
        const std::string &path = m_recipe.data.dev.front();
        auto text = readFile(path);
        if (!text)
            return text.error();
        auto sents = readConllu(*text, path);
        if (!sents)
            return sents.error();
        for (const auto &s : *sents) {
            if (static_cast<int>(m_validation.size()) >= m_options.validationSentences)
                break;
            auto w = s.words();
            if (w.size() < 2 || static_cast<int>(w.size()) > m_options.data.maxWords)
                continue;
            m_validation.push_back(m_vocab.encode(w));
        }
        return {};
    }

    MlmOptions m_options;
    Vocabulary m_vocab;
    TreeTransformerConfig m_cfg;
    std::unique_ptr<tt::Net> m_net;
    std::vector<std::vector<int>> m_encoded, m_validation;
    std::vector<InductionGold> m_inductionGold;
    json m_dataSummary;
    int m_cachedEpoch = -1;
    std::vector<std::size_t> m_order, m_batchOrder;
};

} // namespace

training::TrainerFamily maskedLmTrainer()
{
    training::TrainerFamily f;
    f.name = "tree-transformer";
    f.description = "Tree Transformer, masked-LM pre-training on raw text (UD EWT, WordNet, WSJ)";
    f.defaultsJson = R"({"name": "tree-transformer-en-small",
        "options": {"mask_prob": 0.15, "keep_projection": false, "validation_sentences": 400,
                    "vocab": {"max_size": 12000, "min_count": 2}},
        "training": {"optimizer": {"kind": "adam", "lr": 5e-4, "beta1": 0.9, "beta2": 0.98, "eps": 1e-9, "clip_norm": 1.0},
                     "schedule": {"kind": "noam", "warmup": 1000}, "steps": 10000, "batch_size": 64,
                     "checkpoint_every": 500, "log_every": 50, "keep": "last", "storage": "f16", "device": "auto"}})";
    f.validate = validateRecipe;
    f.create = [] { return std::unique_ptr<training::TrainTask>(new MlmTask()); };
    return f;
}

} // namespace treelens
