// Training the Tree Aggregation Transformer: LM pre-training and the TAT (see tattrainer.h).
#include "core/encoders/tat/tattrainer.h"

#include <algorithm>
#include <cmath>
#include <map>

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "core/base/strings.h"
#include "core/encoders/common/pretrainedrows.h"
#include "core/encoders/common/torchtensors.h"
#include "core/encoders/tat/tat.h"
#include "core/encoders/tat/tatnet.h"
#include "core/encoders/common/vocabulary.h"
#include "core/eval/paireval.h"
#include "core/formats/pairs.h"
#include "core/model/modelfile.h"
#include "core/parsing/pairparsing.h"
#include "core/parsing/parser.h"
#include "core/training/pretraincorpus.h"
#include "core/training/pairtraining.h"
#include "core/training/rankingtask.h"
#include "core/training/trainer.h"

namespace treelens {

using nlohmann::json;
namespace F = torch::nn::functional;

namespace {

constexpr const char *kFamily = "tree-aggregation-transformer";
constexpr const char *kMaskToken = "<mask>";

std::vector<std::string> stringList(const json &j, const std::string &key)
{
    if (!j.contains(key))
        return {};
    if (j[key].is_string())
        return {j[key].get<std::string>()};
    return j[key].get<std::vector<std::string>>();
}

/// The model file of a TAT network (the format tat.cpp reads).
ModelFile tatModelFile(tat::Net &net, const std::vector<std::string> &vocab, const std::string &name, json training)
{
    ModelFile f;
    f.configJson = tatConfigJson(net.config(), name, treelensTatTags(), {"irrelevant", "relevant"}, training.dump());
    f.vocab = vocab;
    f.tensors = tensorsFromParameters(net.named());
    return f;
}

/// Training-time json of a snapshot (empty for checkpoints), with the stage.
json snapshotJson(const training::SnapshotInfo &info, const TrainRecipe &recipe, const json &data, const char *stage)
{
    json j = json::parse(training::snapshotTrainingJson(info, recipe, data.dump()));
    if (!j.empty())
        j["stage"] = stage;
    return j;
}

// ------------------------------------------------------------------ stage 1: the LM

struct LmOptions {
    double maskProb = 0.15;
    int vocabMaxSize = 20000;
    int vocabMinCount = 2;
    int devPairs = 1000;
};

Result<LmOptions> lmOptionsOf(const TrainRecipe &r)
{
    try {
        const json j = json::parse(r.optionsJson);
        LmOptions o;
        for (auto it = j.begin(); it != j.end(); ++it)
            if (it.key() != "mask_prob" && it.key() != "vocab" && it.key() != "dev_pairs")
                return makeError("recipe", "unknown option \"" + it.key() + "\"");
        o.maskProb = j.value("mask_prob", o.maskProb);
        o.devPairs = j.value("dev_pairs", o.devPairs);
        const json v = j.value("vocab", json::object());
        o.vocabMaxSize = v.value("max_size", o.vocabMaxSize);
        o.vocabMinCount = v.value("min_count", o.vocabMinCount);
        if (!(o.maskProb > 0 && o.maskProb < 1))
            return makeError("recipe", "options.mask_prob must be in (0, 1)");
        if (o.vocabMaxSize < 16 || o.vocabMinCount < 1 || o.devPairs < 1)
            return makeError("recipe", "options.vocab.max_size must be at least 16, min_count and dev_pairs at least 1");
        return o;
    } catch (const std::exception &e) {
        return makeError("recipe", std::string("options: ") + e.what());
    }
}

Result<TatConfig> configOf(json model, int vocabSize)
{
    try {
        if (!model.contains("lm") || !model.contains("tat"))
            return makeError("recipe", "model needs the \"lm\" and \"tat\" objects (TatConfig)");
        model["lm"]["vocab_size"] = vocabSize;
        model["tat"]["n_tags"] = static_cast<int>(treelensTatTags().size());
        return TatConfig::fromJson(model.dump());
    } catch (const std::exception &e) {
        return makeError("recipe", std::string("model: ") + e.what());
    }
}

Status validateLmRecipe(const TrainRecipe &r)
{
    if (auto o = lmOptionsOf(r); !o)
        return o.error();
    try {
        if (auto c = configOf(json::parse(r.modelJson), 100); !c)
            return c.error();
    } catch (const std::exception &e) {
        return makeError("recipe", std::string("model: ") + e.what());
    }
    if (auto s = requireBatchSize(r); !s)
        return s;
    return {};
}

/// Two token-id sequences in the pair layout.
struct LmUnit {
    std::vector<std::int64_t> a, b;
};

using TextPair = std::pair<std::vector<std::string>, std::vector<std::string>>;

/// The masked LM's text: pairs of consecutive corpus sentences, then the
/// answer-selection pairs; the dev pairs; what each corpus gave.
struct LmText {
    std::vector<TextPair> train, dev;
    std::size_t answerPairs = 0;
    std::map<std::string, std::size_t> bySource;
};

/// The recipe's pre-training corpora (data.ud_train, wordnet_dir, ptb_dir), its
/// pair corpora (data.pairs) and at most `devPairs` pairs of its dev corpora.
Result<LmText> readLmText(const TrainRecipe &recipe, const json &data, int devPairs)
{
    PretrainSources src;
    src.udTrain = data.value("ud_train", std::string());
    src.wordnetDir = data.value("wordnet_dir", std::string());
    src.ptbDir = data.value("ptb_dir", std::string());
    src.ptbFirst = data.value("ptb_first", src.ptbFirst);
    src.ptbLast = data.value("ptb_last", src.ptbLast);
    src.maxWords = data.value("max_words", src.maxWords);
    LmText text;
    std::vector<std::vector<std::string>> sentences;
    if (!src.udTrain.empty() || !src.wordnetDir.empty() || !src.ptbDir.empty()) {
        if (auto st = src.validate(); !st)
            return st.error();
        auto corpus = loadPretrainCorpus(src);
        if (!corpus)
            return corpus.error();
        sentences = std::move(corpus->sentences);
        text.bySource = corpus->sentencesBySource;
    }
    for (std::size_t i = 0; i + 1 < sentences.size(); i += 2)
        text.train.push_back({sentences[i], sentences[i + 1]});
    auto pairs = training::readRankingCorpora(stringList(data, "pairs"), "the TAT");
    if (!pairs)
        return pairs.error();
    for (const auto &p : pairs->pairs) {
        text.train.push_back({p.first.words(), p.second.words()});
        ++text.answerPairs;
    }
    if (text.train.empty())
        return makeError("recipe", "no training text: name ud_train, wordnet_dir, ptb_dir or pairs under data");
    if (!recipe.data.dev.empty()) {
        auto dev = training::readRankingCorpora(recipe.data.dev, "the TAT");
        if (!dev)
            return dev.error();
        for (const auto &p : dev->pairs) {
            if (static_cast<int>(text.dev.size()) >= devPairs)
                break;
            text.dev.push_back({p.first.words(), p.second.words()});
        }
    }
    return text;
}

class TatLmTask final : public training::RecipeTask {
public:
    Result<training::DataSummary> prepare(const TrainRecipe &recipe, const ModelFile *resume,
                                          const torch::Device &device) override
    {
        if (auto s = begin(recipe, device, lmOptionsOf(recipe), m_options); !s)
            return s.error();
        json data;
        try {
            data = json::parse(recipe.data.extraJson);
        } catch (const std::exception &e) {
            return makeError("recipe", std::string("data: ") + e.what());
        }
        auto text = readLmText(recipe, data, m_options.devPairs);
        if (!text)
            return text.error();
        if (auto s = buildVocabulary(resume, text->train); !s)
            return s.error();
        auto cfg = configOf(json::parse(recipe.modelJson), static_cast<int>(m_vocabTokens.size()));
        if (!cfg)
            return cfg.error();
        m_config = *cfg;
        auto initialised = buildNetwork(recipe, resume, data, device);
        if (!initialised)
            return initialised.error();
        return encodeUnits(*text, *initialised);
    }

    training::NamedParameters parameters() override
    {
        training::NamedParameters v;
        for (auto &[name, t] : m_net->named())
            if (name.rfind("lm.", 0) == 0)
                v.push_back({name, t});
        for (auto &[name, t] : m_head)
            v.push_back({name, t});
        return v;
    }

    long batchesInEpoch(int) override
    {
        return std::max(1L, static_cast<long>((m_units.size() + m_recipe.batchSize - 1) / m_recipe.batchSize));
    }

    Result<training::StepResult> trainStep(int epoch, long batch, std::mt19937_64 &rng) override
    {
        const auto &order = orderFor(epoch);
        const std::size_t begin = static_cast<std::size_t>(batch) * m_recipe.batchSize;
        const std::size_t end = std::min(order.size(), begin + m_recipe.batchSize);
        std::vector<const LmUnit *> units;
        for (std::size_t i = begin; i < end; ++i)
            units.push_back(&m_units[static_cast<std::size_t>(order[i])]);
        m_net->setTraining(true);
        auto [loss, count] = mlmLoss(units, rng);
        m_net->setTraining(false);
        training::StepResult r;
        r.loss = loss;
        r.units = count;
        return r;
    }

    Result<training::DevResult> evaluate() override
    {
        training::DevResult d;
        if (m_devUnits.empty())
            return d;
        torch::NoGradGuard ng;
        std::mt19937_64 rng(20211);
        double total = 0, count = 0;
        for (std::size_t start = 0; start < m_devUnits.size(); start += 64) {
            std::vector<const LmUnit *> units;
            for (std::size_t i = start; i < std::min(m_devUnits.size(), start + 64); ++i)
                units.push_back(&m_devUnits[i]);
            auto [loss, n] = mlmLoss(units, rng);
            total += loss.item<double>() * n;
            count += n;
        }
        d.value = total / std::max(1.0, count);
        d.detailsJson = json{{"mlm_loss", d.value}, {"masked", count}}.dump();
        char buf[96];
        std::snprintf(buf, sizeof buf, "dev masked-LM loss %.4f (%.0f masked words)", d.value, count);
        d.summary = buf;
        return d;
    }

    std::string metricName() const override { return "dev_mlm_loss"; }
    bool higherIsBetter() const override { return false; }
    std::string unitName() const override { return "masked words"; }

    ModelFile snapshot(const training::SnapshotInfo &info) override
    {
        ModelFile f = tatModelFile(*m_net, m_vocabTokens, m_recipe.name, snapshotJson(info, m_recipe, m_summary, "lm"));
        if (info.kind == training::SnapshotInfo::Kind::Checkpoint)
            for (const auto &[name, t] : m_head)
                f.tensors[name] = floatTensorData(t);
        return f;
    }

private:
    /// The vocabulary: a checkpoint's, or the training text's frequent words after
    /// the five special tokens; it must hold <mask>.
    Status buildVocabulary(const ModelFile *resume, const std::vector<TextPair> &train)
    {
        if (resume) {
            m_vocabTokens = resume->vocab;
        } else {
            std::vector<const std::vector<std::string> *> sentences;
            for (const auto &[a, b] : train) {
                sentences.push_back(&a);
                sentences.push_back(&b);
            }
            m_vocabTokens = frequentWordTokens(sentences, {"<pad>", "<s>", "</s>", "<unk>", kMaskToken}, m_options.vocabMaxSize,
                                               m_options.vocabMinCount);
        }
        m_vocab = Vocabulary::lenient(m_vocabTokens);
        const auto maskIt = std::find(m_vocabTokens.begin(), m_vocabTokens.end(), kMaskToken);
        if (maskIt == m_vocabTokens.end())
            return makeError("vocabulary", "no <mask> token");
        m_maskId = maskIt - m_vocabTokens.begin();
        return {};
    }

    /// The network (a checkpoint's weights, or fresh ones, the token table from
    /// data.embeddings when it names a model) and the tied decoder's own tensors.
    /// Returns how many token rows came from the embedding model.
    Result<int> buildNetwork(const TrainRecipe &recipe, const ModelFile *resume, const json &data, const torch::Device &device)
    {
        TensorMap weights, headInit; // a checkpoint holds the decoder's tensors too
        int initialised = 0;
        if (resume) {
            for (const auto &[name, t] : resume->tensors)
                (name.rfind("mlm.", 0) == 0 ? headInit : weights)[name] = t;
        } else {
            weights = tat::Net::randomTensors(m_config, recipe.seed);
            const std::string embeddings = data.value("embeddings", std::string());
            if (!embeddings.empty()) {
                auto copied = copyEmbeddingRows(weights, embeddings);
                if (!copied)
                    return copied.error();
                initialised = *copied;
            }
        }
        auto net = tat::Net::fromTensors(m_config, weights, device, resume ? "checkpoint" : "initial weights");
        if (!net)
            return net.error();
        m_net = std::make_unique<tat::Net>(std::move(*net));
        setRequiresGrad(m_net->named(), true);
        initDecoder(headInit, recipe, device);
        return initialised;
    }

    /// Starts the token table from the Tree Transformer's MLM-trained word vectors
    /// in `embeddings` (rescaled to this table's spread); returns the rows copied.
    Result<int> copyEmbeddingRows(TensorMap &weights, const std::string &embeddings)
    {
        auto source = loadModelFile(embeddings);
        if (!source)
            return source.error();
        const int D = m_config.lmDModel;
        auto copied = initialiseWordRows(weights, "lm.tok_emb.weight", *source, embeddings, m_vocabTokens, 5, D,
                                         [&](std::vector<float> &table, const CopiedRows &rows) {
                                             if (!(rows.rms > 0))
                                                 return;
                                             for (int id = 5; id < static_cast<int>(m_vocabTokens.size()); ++id)
                                                 if (rows.copiedRow[static_cast<std::size_t>(id)])
                                                     for (int d = 0; d < D; ++d)
                                                         table[static_cast<std::size_t>(id) * D + d] *= static_cast<float>(0.02 / rows.rms);
                                         });
        if (!copied)
            return copied.error();
        return copied->copied;
    }

    /// The tied decoder's own tensors: a checkpoint's (`headInit`), else fresh.
    void initDecoder(const TensorMap &headInit, const TrainRecipe &recipe, const torch::Device &device)
    {
        const std::int64_t d = m_config.lmDModel;
        torch::manual_seed(recipe.seed + 7);
        auto headTensor = [&](const std::string &name, torch::Tensor init) {
            auto it = headInit.find(name);
            torch::Tensor t = it != headInit.end()
                                  ? torch::from_blob(const_cast<float *>(it->second.toFloat().data()), init.sizes(), torch::kFloat32).clone()
                                  : init;
            m_head[name] = t.to(device).set_requires_grad(true);
        };
        headTensor("mlm.dense.weight", torch::randn({d, d}) * 0.02);
        headTensor("mlm.dense.bias", torch::zeros({d}));
        headTensor("mlm.ln.weight", torch::ones({d}));
        headTensor("mlm.ln.bias", torch::zeros({d}));
        headTensor("mlm.bias", torch::zeros({static_cast<std::int64_t>(m_vocabTokens.size())}));
    }

    /// The text as token ids (each pair cut to the LM's positions), and what was read.
    training::DataSummary encodeUnits(const LmText &text, int initialised)
    {
        const int maxWords = m_config.lmMaxPositions - 4;
        auto unitOf = [&](const std::vector<std::string> &a, const std::vector<std::string> &b) {
            LmUnit u{m_vocab.ids(a, Vocabulary::Match::AnyForm, m_config.unkId), m_vocab.ids(b, Vocabulary::Match::AnyForm, m_config.unkId)};
            while (static_cast<int>(u.a.size() + u.b.size()) > maxWords)
                (u.b.size() >= u.a.size() ? u.b : u.a).pop_back();
            return u;
        };
        long words = 0, unknown = 0;
        for (const auto &[a, b] : text.train) {
            m_units.push_back(unitOf(a, b));
            for (const auto *s : {&m_units.back().a, &m_units.back().b}) {
                words += static_cast<long>(s->size());
                unknown += std::count(s->begin(), s->end(), static_cast<std::int64_t>(m_config.unkId));
            }
        }
        for (const auto &[a, b] : text.dev)
            m_devUnits.push_back(unitOf(a, b));
        const std::size_t answerPairs = text.answerPairs;
        training::DataSummary s;
        char buf[256];
        std::snprintf(buf, sizeof buf, "%zu training pairs (%zu sentence pairs, %zu answer-selection pairs), %ld words, "
                      "%.1f%% unknown, dev %zu pairs, vocabulary %zu (%d from the embedding model)",
                      m_units.size(), m_units.size() - answerPairs, answerPairs, words, 100.0 * unknown / std::max(1L, words),
                      m_devUnits.size(), m_vocabTokens.size(), initialised);
        s.text = buf;
        m_summary = {{"pairs", m_units.size()}, {"sentence_pairs", m_units.size() - answerPairs},
                     {"answer_pairs", answerPairs}, {"words", words}, {"unknown", unknown},
                     {"dev_pairs", m_devUnits.size()}, {"vocabulary", m_vocabTokens.size()},
                     {"embeddings_initialised", initialised}, {"sentences_by_source", text.bySource}};
        s.json = m_summary.dump();
        return s;
    }

    /// BERT masking of the word positions, the LM, the tied decoder: (mean loss, masked count).
    std::pair<torch::Tensor, double> mlmLoss(const std::vector<const LmUnit *> &units, std::mt19937_64 &rng)
    {
        std::size_t T = 0;
        for (const auto *u : units)
            T = std::max(T, u->a.size() + u->b.size() + 4);
        const auto B = static_cast<std::int64_t>(units.size());
        std::vector<std::int64_t> ids(static_cast<std::size_t>(B) * T, m_config.padId), rows, targets;
        std::vector<std::int64_t> mask(static_cast<std::size_t>(B) * T, 0);
        std::uniform_real_distribution<double> uni(0.0, 1.0);
        std::uniform_int_distribution<std::int64_t> randomWord(5, static_cast<std::int64_t>(m_vocabTokens.size()) - 1);
        for (std::int64_t b = 0; b < B; ++b) {
            const LmUnit &u = *units[static_cast<std::size_t>(b)];
            std::vector<std::int64_t> seq = tat::pairIds(u.a, u.b, m_config);
            std::vector<std::size_t> wordPos; // a's words at 1.., b's after the two separators
            for (std::size_t i = 0; i < u.a.size(); ++i)
                wordPos.push_back(1 + i);
            for (std::size_t j = 0; j < u.b.size(); ++j)
                wordPos.push_back(u.a.size() + 3 + j);
            std::vector<std::size_t> chosen;
            for (auto p : wordPos)
                if (uni(rng) < m_options.maskProb)
                    chosen.push_back(p);
            if (chosen.empty() && !wordPos.empty())
                chosen.push_back(wordPos[rng() % wordPos.size()]);
            for (auto p : chosen) {
                rows.push_back(b * static_cast<std::int64_t>(T) + static_cast<std::int64_t>(p));
                targets.push_back(seq[p]);
                const double r = uni(rng);
                if (r < 0.8)
                    seq[p] = m_maskId;
                else if (r < 0.9)
                    seq[p] = randomWord(rng);
            }
            for (std::size_t t = 0; t < seq.size(); ++t) {
                ids[static_cast<std::size_t>(b) * T + t] = seq[t];
                mask[static_cast<std::size_t>(b) * T + t] = 1;
            }
        }
        const auto L = static_cast<std::int64_t>(T);
        auto idsT = torch::tensor(ids, torch::kLong).view({B, L}).to(m_device);
        auto maskT = torch::tensor(mask, torch::kLong).view({B, L}).to(torch::kBool).to(m_device);
        auto h = m_net->lmOnly(idsT, maskT).reshape({B * L, m_config.lmDModel});
        auto sel = h.index_select(0, torch::tensor(rows, torch::kLong).to(m_device));
        auto z = F::layer_norm(torch::gelu(F::linear(sel, m_head.at("mlm.dense.weight"), m_head.at("mlm.dense.bias"))),
                               F::LayerNormFuncOptions({m_config.lmDModel}).weight(m_head.at("mlm.ln.weight")).bias(m_head.at("mlm.ln.bias")));
        auto logits = F::linear(z, m_net->named().at("lm.tok_emb.weight"), m_head.at("mlm.bias"));
        auto loss = F::cross_entropy(logits, torch::tensor(targets, torch::kLong).to(m_device));
        return {loss, static_cast<double>(targets.size())};
    }

    const std::vector<int> &orderFor(int epoch)
    {
        if (m_orderEpoch != epoch) {
            m_order = training::epochOrder(m_units.size(), m_recipe.seed, epoch);
            m_orderEpoch = epoch;
        }
        return m_order;
    }

    LmOptions m_options;
    TatConfig m_config;
    std::vector<std::string> m_vocabTokens;
    Vocabulary m_vocab;
    std::int64_t m_maskId = 4;
    std::unique_ptr<tat::Net> m_net;
    TorchParameters m_head;
    std::vector<LmUnit> m_units, m_devUnits;
    std::vector<int> m_order;
    int m_orderEpoch = -1;
    json m_summary;
};

// ------------------------------------------------------------------ stage 2: the TAT

struct TatOptions {
    std::string loss = "pointwise";
    double margin = 1.0;
    bool freezeLm = false;
};

Result<TatOptions> tatOptionsOf(const TrainRecipe &r)
{
    return readFamilyOptions<TatOptions>(r, [](const json &j, TatOptions &o) -> Status {
        for (auto it = j.begin(); it != j.end(); ++it)
            if (it.key() != "loss" && it.key() != "margin" && it.key() != "freeze_lm")
                return makeError("recipe", "unknown option \"" + it.key() + "\"");
        o.loss = j.value("loss", o.loss);
        o.margin = j.value("margin", o.margin);
        o.freezeLm = j.value("freeze_lm", o.freezeLm);
        if (o.loss != "pointwise" && o.loss != "pairwise" && o.loss != "both")
            return makeError("recipe", "options.loss must be pointwise, pairwise or both");
        if (!(o.margin >= 0.0 && o.margin <= 100.0))
            return makeError("recipe", "options.margin must be in [0, 100]");
        return {};
    });
}

Status validateTatRecipe(const TrainRecipe &r)
{
    if (auto s = requirePairCorpus(r); !s)
        return s;
    if (auto o = tatOptionsOf(r); !o)
        return o.error();
    try {
        if (json::parse(r.data.extraJson).value("lm", std::string()).empty())
            return makeError("recipe", "data.lm names no pre-trained language model (train one with family tat-lm)");
        const json m = json::parse(r.modelJson);
        if (!m.is_object())
            return makeError("recipe", "model must be an object");
    } catch (const std::exception &e) {
        return makeError("recipe", e.what());
    }
    if (auto s = requireBatchSize(r); !s)
        return s;
    return {};
}

/// The configuration of stage 2: the LM file's, with the recipe's "tat" keys, "head" and "dropout" over it.
Result<TatConfig> mergedConfig(const ModelFile &lmFile, const TrainRecipe &r)
{
    try {
        json base = json::parse(lmFile.configJson).at("model");
        const json over = json::parse(r.modelJson);
        for (auto it = over.begin(); it != over.end(); ++it) {
            if (it.key() == "tat")
                for (auto t = it->begin(); t != it->end(); ++t)
                    base["tat"][t.key()] = *t;
            else if (it.key() == "lm")
                return makeError("recipe", "model.lm: the language model's sizes come from data.lm");
            else
                base[it.key()] = *it;
        }
        base["tat"]["n_tags"] = static_cast<int>(treelensTatTags().size());
        return TatConfig::fromJson(base.dump());
    } catch (const std::exception &e) {
        return makeError("recipe", std::string("model: ") + e.what());
    }
}

class TatTask final : public training::RankingTask {
public:
    Result<training::DataSummary> prepare(const TrainRecipe &recipe, const ModelFile *resume,
                                          const torch::Device &device) override
    {
        if (auto s = begin(recipe, device, tatOptionsOf(recipe), m_options); !s)
            return s.error();
        m_loss = m_options.loss;
        const json data = json::parse(recipe.data.extraJson);
        const std::string lmPath = data.value("lm", std::string());
        auto lmFile = loadModelFile(lmPath);
        if (!lmFile)
            return lmFile.error();
        if (json::parse(lmFile->configJson).value("family", std::string()) != kFamily)
            return makeError(lmPath, "not a tree-aggregation-transformer model file (train the LM with family tat-lm)");
        auto cfg = mergedConfig(*lmFile, recipe);
        if (!cfg)
            return cfg.error();
        m_config = *cfg;
        m_vocabTokens = lmFile->vocab;
        m_vocab = Vocabulary::lenient(m_vocabTokens);
        auto tags = TatTags::fromLabels(treelensTatTags(), "tags");
        if (!tags)
            return tags.error();
        m_tags = std::move(*tags);

        TensorMap weights;
        if (resume) {
            weights = resume->tensors;
        } else {
            weights = tat::Net::randomTensors(m_config, recipe.seed);
            for (auto &[name, t] : weights)
                if (name.rfind("lm.", 0) == 0) {
                    auto it = lmFile->tensors.find(name);
                    if (it == lmFile->tensors.end() || it->second.shape != t.shape)
                        return makeError(lmPath, "the language model has no tensor " + name + " of the configured shape");
                    t = TensorData::fromFloat(it->second.shape, it->second.toFloat());
                }
        }
        auto net = tat::Net::fromTensors(m_config, weights, device, resume ? "checkpoint" : "initial weights");
        if (!net)
            return net.error();
        m_net = std::make_unique<tat::Net>(std::move(*net));
        setRequiresGrad(m_net->named(), true);

        // The pairs, both sides parsed by the shipped parser.
        auto parser = createParser(ParserConfig{});
        if (!parser)
            return parser.error();
        auto train = training::readRankingCorpora(recipe.data.train, "the TAT");
        if (!train)
            return train.error();
        if (auto u = parsePairCorpus(*train, **parser); !u)
            return u.error();
        m_train = std::move(*train);
        m_trainInputs = inputsOf(m_train, m_trainDropped);
        if (!recipe.data.dev.empty()) {
            auto dev = training::readRankingCorpora(recipe.data.dev, "the TAT");
            if (!dev)
                return dev.error();
            if (auto u = parsePairCorpus(*dev, **parser); !u)
                return u.error();
            m_dev = std::move(*dev);
            m_devInputs = inputsOf(m_dev, m_devDropped);
        }
        for (std::size_t i = 0; i < m_trainInputs.size(); ++i)
            if (m_trainInputs[i])
                m_trainIndex.push_back(static_cast<int>(i));
        m_triples = training::rankingTriples(m_train, m_trainIndex);
        m_trainPairs = m_trainIndex.size();
        long parameters = 0;
        for (const auto &[name, t] : m_net->named())
            parameters += t.numel();
        training::DataSummary s;
        s.text = std::to_string(m_trainIndex.size()) + " training pairs (" + std::to_string(m_trainDropped) +
                 " left out: no tree or over the model's tables), " + std::to_string(m_triples.size()) + " triples, dev " +
                 std::to_string(m_dev.pairs.size()) + " pairs (" + std::to_string(m_devDropped) + " unscorable, ranked last), " +
                 std::to_string(parameters) + " parameters, head " + m_config.head + ", streams " + m_config.streams;
        m_summary = {{"train_pairs", m_trainIndex.size()}, {"train_dropped", m_trainDropped}, {"triples", m_triples.size()},
                     {"dev_pairs", m_dev.pairs.size()}, {"dev_unscorable", m_devDropped}, {"lm", lmPath},
                     {"parameters", parameters}};
        s.json = m_summary.dump();
        return s;
    }

    training::NamedParameters parameters() override
    {
        training::NamedParameters v;
        for (auto &[name, t] : m_net->named()) {
            if (m_options.freezeLm && name.rfind("lm.", 0) == 0)
                continue;
            // Only the configured head's classifier gets gradients.
            if ((name.rfind("cls.", 0) == 0 && m_config.head != "tree") || (name.rfind("cls_res.", 0) == 0 && m_config.head != "residual"))
                continue;
            v.push_back({name, t});
        }
        return v;
    }

    Result<training::StepResult> trainStep(int epoch, long batch, std::mt19937_64 &) override
    {
        const auto &order = orderFor(epoch);
        const long B = m_recipe.batchSize;
        const long begin = batch * B, end = std::min<long>(static_cast<long>(order.size()), begin + B);
        training::StepResult r;
        m_net->setTraining(true);
        if (m_options.loss == "pointwise") {
            std::vector<tat::PairInput> in;
            std::vector<std::int64_t> y;
            for (long i = begin; i < end; ++i) {
                const int p = m_trainIndex[static_cast<std::size_t>(order[static_cast<std::size_t>(i)])];
                in.push_back(*m_trainInputs[static_cast<std::size_t>(p)]);
                y.push_back(m_train.pairs[static_cast<std::size_t>(p)].label == "1" ? 1 : 0);
            }
            auto logits = m_net->forward(in, false).prediction;
            auto target = torch::tensor(y, torch::kLong).to(m_device);
            r.loss = F::cross_entropy(logits, target);
            r.correct = (logits.argmax(1) == target).sum().item<double>();
            r.predicted = static_cast<double>(in.size());
            r.units = static_cast<double>(in.size());
        } else {
            std::vector<tat::PairInput> in;
            const long n = end - begin;
            for (int side = 0; side < 2; ++side)
                for (long i = begin; i < end; ++i) {
                    const auto &t = m_triples[static_cast<std::size_t>(order[static_cast<std::size_t>(i)])];
                    in.push_back(*m_trainInputs[static_cast<std::size_t>(side == 0 ? t.first : t.second)]);
                }
            auto logits = m_net->forward(in, false).prediction;
            auto margin = logits.select(1, 1) - logits.select(1, 0);
            auto pos = margin.slice(0, 0, n), neg = margin.slice(0, n, 2 * n);
            r.loss = torch::clamp_min(m_options.margin - pos + neg, 0.0).mean();
            if (m_options.loss == "both") {
                std::vector<std::int64_t> y(static_cast<std::size_t>(2 * n), 0);
                std::fill(y.begin(), y.begin() + n, 1);
                r.loss = r.loss + F::cross_entropy(logits, torch::tensor(y, torch::kLong).to(m_device));
            }
            r.correct = (pos > neg).sum().item<double>();
            r.predicted = static_cast<double>(n);
            r.units = static_cast<double>(2 * n);
        }
        m_net->setTraining(false);
        return r;
    }

    std::vector<double> devScores() override { return score(m_devInputs); }

    ModelFile snapshot(const training::SnapshotInfo &info) override
    {
        return tatModelFile(*m_net, m_vocabTokens, m_recipe.name, snapshotJson(info, m_recipe, m_summary, "tat"));
    }

private:
    /// Every pair as the network's input; nullopt where a side has no tree or does not fit the model's tables.
    std::vector<std::optional<tat::PairInput>> inputsOf(const PairCorpus &c, long &dropped) const
    {
        std::vector<std::optional<tat::PairInput>> out;
        for (const auto &p : c.pairs) {
            auto pair = tat::pairInputOf(p.first.words(), p.first.constituency ? &*p.first.constituency : nullptr, p.second.words(),
                                         p.second.constituency ? &*p.second.constituency : nullptr, m_vocab, m_tags, m_config, "");
            if (!pair)
                ++dropped;
            out.push_back(pair ? std::optional<tat::PairInput>(std::move(*pair)) : std::nullopt);
        }
        return out;
    }

    std::vector<double> score(const std::vector<std::optional<tat::PairInput>> &inputs) const
    {
        torch::NoGradGuard ng;
        std::vector<double> out(inputs.size(), -1.0); // unscorable pairs rank last
        std::vector<tat::PairInput> batch;
        std::vector<std::size_t> where;
        auto flush = [&] {
            if (batch.empty())
                return;
            auto probs = torch::softmax(m_net->forward(batch, false).prediction, -1).select(1, 1).to(torch::kCPU);
            for (std::size_t i = 0; i < where.size(); ++i)
                out[where[i]] = probs[static_cast<std::int64_t>(i)].item<double>();
            batch.clear();
            where.clear();
        };
        for (std::size_t i = 0; i < inputs.size(); ++i) {
            if (!inputs[i])
                continue;
            batch.push_back(*inputs[i]);
            where.push_back(i);
            if (batch.size() == 64)
                flush();
        }
        flush();
        return out;
    }

    TatOptions m_options;
    TatConfig m_config;
    TatTags m_tags;
    std::vector<std::string> m_vocabTokens;
    Vocabulary m_vocab;
    std::unique_ptr<tat::Net> m_net;
    PairCorpus m_train;
    std::vector<std::optional<tat::PairInput>> m_trainInputs, m_devInputs;
    std::vector<int> m_trainIndex;
    long m_trainDropped = 0, m_devDropped = 0;
};

/// The shipped size (docs/tree-aggregation-transformer.md): an LM of 4 × 128 and a TAT of 64 + 64.
json defaultModel()
{
    auto j = json::parse(treelensTatConfig(5).toJson());
    j["lm"].erase("vocab_size");
    j["tat"].erase("n_tags");
    j.erase("special_tokens");
    return j;
}

} // namespace

training::TrainerFamily tatLmTrainer()
{
    training::TrainerFamily f;
    f.name = "tat-lm";
    f.description = "Tree Aggregation Transformer stage 1: masked-LM pre-training of its language model in the pair layout";
    json d = json::parse(R"({"name": "tat-lm-en",
        "options": {"mask_prob": 0.15, "vocab": {"max_size": 20000, "min_count": 2}, "dev_pairs": 1000},
        "training": {"optimizer": {"kind": "adam", "lr": 1e-3, "beta2": 0.98, "eps": 1e-9, "clip_norm": 1.0},
                     "schedule": {"kind": "noam", "warmup": 500}, "steps": 4000, "batch_size": 64, "eval_every": 500,
                     "checkpoint_every": 250, "log_every": 50, "keep": "last", "storage": "f32", "device": "auto"}})");
    d["model"] = defaultModel();
    f.defaultsJson = d.dump();
    f.validate = validateLmRecipe;
    f.create = [] { return std::unique_ptr<training::TrainTask>(new TatLmTask()); };
    return f;
}

training::TrainerFamily tatTrainer()
{
    training::TrainerFamily f;
    f.name = kFamily;
    f.description = "Tree Aggregation Transformer stage 2: answer selection on constituency-parsed pairs, from a tat-lm model";
    // The training settings are the shipped recipe's (docs/tree-aggregation-transformer.md,
    // "How the recipe was chosen").
    f.defaultsJson = R"({"name": "tat-en-wikiqa", "model": {"head": "tree", "dropout": 0.1},
        "options": {"loss": "pointwise", "margin": 1.0, "freeze_lm": false},
        "training": {"optimizer": {"kind": "adam", "lr": 1e-4, "clip_norm": 1.0},
                     "schedule": {"kind": "warmup-constant", "warmup": 100}, "epochs": 4, "batch_size": 32,
                     "log_every": 20, "patience": 0, "keep": "best", "storage": "f16", "device": "auto"}})";
    f.validate = validateTatRecipe;
    f.create = [] { return std::unique_ptr<training::TrainTask>(new TatTask()); };
    return f;
}

} // namespace treelens
