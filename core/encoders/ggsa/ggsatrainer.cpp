// GGSA / iGGSA training on answer-selection pairs (see ggsatrainer.h).
#include "core/encoders/ggsa/ggsatrainer.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <unordered_map>

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "core/base/strings.h"
#include "core/encoders/common/pretrainedrows.h"
#include "core/encoders/ggsa/ggsanet.h"
#include "core/encoders/common/vocabulary.h"
#include "core/eval/paireval.h"
#include "core/formats/pairs.h"
#include "core/model/modelfile.h"
#include "core/training/pairtraining.h"
#include "core/training/rankingtask.h"
#include "core/training/trainer.h"

namespace treelens {

using nlohmann::json;

namespace {

struct Options {
    std::string loss = "pairwise";
    double margin = 0.1;
    int minCount = 1;
    bool freezeEmbeddings = false;
    bool embeddingVocab = true;
};

Result<Options> optionsOf(const TrainRecipe &r)
{
    return readFamilyOptions<Options>(r, [](const json &j, Options &o) -> Status {
        o.loss = j.value("loss", o.loss);
        o.margin = j.value("margin", o.margin);
        o.minCount = vocabMinCount(j, o.minCount);
        o.freezeEmbeddings = j.value("freeze_embeddings", o.freezeEmbeddings);
        o.embeddingVocab = j.value("embedding_vocab", o.embeddingVocab);
        if (o.loss != "pairwise" && o.loss != "pointwise" && o.loss != "both")
            return makeError("recipe", "options.loss must be pairwise, pointwise or both");
        if (!(o.margin >= 0.0 && o.margin <= 2.0))
            return makeError("recipe", "options.margin must be in [0, 2]");
        if (o.minCount < 1)
            return makeError("recipe", "options.vocab.min_count must be at least 1");
        return {};
    });
}

Result<GgsaConfig> modelOf(const TrainRecipe &r, int vocabSize)
{
    try {
        auto j = json::parse(r.modelJson);
        j["vocab_size"] = vocabSize;
        return GgsaConfig::fromJson(j.dump());
    } catch (const std::exception &e) {
        return makeError("recipe", std::string("model: ") + e.what());
    }
}

Status validateRecipe(const TrainRecipe &r)
{
    if (auto s = requirePairCorpus(r); !s)
        return s;
    if (auto o = optionsOf(r); !o)
        return o.error();
    if (auto c = modelOf(r, 100); !c)
        return c.error();
    if (auto s = requireBatchSize(r); !s)
        return s;
    return {};
}

std::vector<std::string> lowerWords(const Sentence &s)
{
    std::vector<std::string> w;
    for (const auto &t : s.tokens)
        w.push_back(toLowerAscii(t.text));
    return w;
}

class GgsaTask final : public training::RankingTask {
public:
    explicit GgsaTask(std::string family) : m_family(std::move(family)) {}

    Result<training::DataSummary> prepare(const TrainRecipe &recipe, const ModelFile *resume,
                                          const torch::Device &device) override
    {
        if (auto s = begin(recipe, device, optionsOf(recipe), m_options); !s)
            return s.error();
        m_loss = m_options.loss;
        auto train = training::readRankingCorpora(recipe.data.train, "GGSA");
        if (!train)
            return train.error();
        m_train = std::move(*train);
        m_trainPairs = m_train.pairs.size();
        if (!recipe.data.dev.empty()) {
            auto dev = training::readRankingCorpora(recipe.data.dev, "GGSA");
            if (!dev)
                return dev.error();
            m_dev = std::move(*dev);
        }
        const json extra = json::parse(recipe.data.extraJson);
        const std::string embeddings = extra.value("embeddings", std::string());

        if (resume) {
            auto v = Vocabulary::fromTokens(resume->vocab, "checkpoint");
            if (!v)
                return v.error();
            m_vocab = std::move(*v);
            auto cfg = modelOf(recipe, m_vocab.size());
            if (!cfg)
                return cfg.error();
            auto net = ggsa::Net::fromTensors(*cfg, resume->tensors, device, "checkpoint");
            if (!net)
                return net.error();
            m_net = std::make_unique<ggsa::Net>(std::move(*net));
        } else {
            // Vocabulary: <pad>, <unk>, the training words (min_count), then the
            // embedding model's words (never the dev or test words).
            std::map<std::string, int> counts;
            for (const auto &p : m_train.pairs)
                for (const Sentence *s : {&p.first, &p.second})
                    for (const auto &w : lowerWords(*s))
                        ++counts[w];
            std::vector<std::pair<int, std::string>> byCount;
            for (const auto &[w, n] : counts)
                if (n >= m_options.minCount)
                    byCount.push_back({-n, w});
            std::sort(byCount.begin(), byCount.end());
            std::vector<std::string> tokens = {"<pad>", "<unk>"};
            for (const auto &[n, w] : byCount)
                if (w != "<pad>" && w != "<unk>")
                    tokens.push_back(w);
            ModelFile source;
            if (!embeddings.empty()) {
                auto f = loadModelFile(embeddings);
                if (!f)
                    return f.error();
                source = std::move(*f);
                if (m_options.embeddingVocab) {
                    std::set<std::string> have(tokens.begin(), tokens.end());
                    for (const auto &w : source.vocab)
                        if (!w.empty() && w.front() != '[' && !have.count(w)) {
                            tokens.push_back(w);
                            have.insert(w);
                        }
                }
            }
            auto v = Vocabulary::fromTokens(tokens, "vocabulary");
            if (!v)
                return v.error();
            m_vocab = std::move(*v);
            auto cfg = modelOf(recipe, m_vocab.size());
            if (!cfg)
                return cfg.error();
            TensorMap weights = ggsa::Net::randomTensors(*cfg, recipe.seed);
            m_initialised = 0;
            if (!source.tensors.empty()) {
                const int D = cfg->dModel;
                auto copied = initialiseWordRows(weights, "embed.weight", source, embeddings, m_vocab.tokens(), 2, D,
                                                 [&](std::vector<float> &table, const CopiedRows &rows) {
                                                     if (rows.copied == 0)
                                                         return;
                                                     // Words the source lacks: the same spread as the copied rows.
                                                     const double sd = rows.rms * std::sqrt(static_cast<double>(D));
                                                     for (int id = 2; id < m_vocab.size(); ++id)
                                                         if (!rows.copiedRow[static_cast<std::size_t>(id)])
                                                             for (int d = 0; d < D; ++d)
                                                                 table[static_cast<std::size_t>(id) * D + d] *= static_cast<float>(sd);
                                                 });
                if (!copied)
                    return copied.error();
                m_initialised = copied->copied;
            }
            auto net = ggsa::Net::fromTensors(*cfg, weights, device, "initial weights");
            if (!net)
                return net.error();
            m_net = std::make_unique<ggsa::Net>(std::move(*net));
        }
        m_net->setTrainable(true);
        if (m_options.freezeEmbeddings)
            m_net->named().at("embed.weight").set_requires_grad(false);
        m_trainIds = encodeCorpus(m_train);
        m_devIds = encodeCorpus(m_dev);
        buildTriples();
        training::DataSummary s;
        s.text = std::to_string(m_train.pairs.size()) + " training pairs, " + std::to_string(m_triples.size()) +
                 " triples, dev " + std::to_string(m_dev.pairs.size()) + " pairs, vocabulary " +
                 std::to_string(m_vocab.size()) + " (" + std::to_string(m_initialised) + " from the embedding model)";
        s.json = json{{"train_pairs", m_train.pairs.size()}, {"triples", m_triples.size()},
                      {"dev_pairs", m_dev.pairs.size()}, {"vocabulary", m_vocab.size()},
                      {"embeddings_initialised", m_initialised}, {"embeddings", embeddings}}
                     .dump();
        m_summary = json::parse(s.json);
        return s;
    }

    training::NamedParameters parameters() override { return training::trainableParameters(m_net->named()); }

    Result<training::StepResult> trainStep(int epoch, long batch, std::mt19937_64 &rng) override
    {
        const auto &order = orderFor(epoch);
        const long B = m_recipe.batchSize;
        const long begin = batch * B, end = std::min<long>(static_cast<long>(order.size()), begin + B);
        training::StepResult r;
        torch::Tensor loss = torch::zeros({}, torch::TensorOptions().device(m_device));
        if (m_options.loss == "pointwise") {
            std::vector<int> pairs(order.begin() + begin, order.begin() + end);
            auto out = run(pairs, true);
            std::vector<float> y;
            for (int p : pairs)
                y.push_back(m_train.pairs[static_cast<std::size_t>(p)].label == "1" ? 1.0f : 0.0f);
            auto target = torch::tensor(y, torch::kFloat32).to(m_device).to(torch::kLong);
            loss = torch::nn::functional::cross_entropy(out.logits, target);
            r.units = static_cast<double>(pairs.size());
            auto pred = out.logits.argmax(1);
            r.correct = (pred == target).sum().item<double>();
            r.predicted = static_cast<double>(pairs.size());
        } else {
            std::vector<int> pos, neg;
            for (long i = begin; i < end; ++i) {
                const auto &t = m_triples[static_cast<std::size_t>(order[static_cast<std::size_t>(i)])];
                pos.push_back(t.first);
                neg.push_back(t.second);
            }
            auto op = run(pos, true), on = run(neg, true);
            loss = torch::clamp_min(m_options.margin - op.cosine + on.cosine, 0.0).mean();
            if (m_options.loss == "both") {
                auto lp = torch::nn::functional::cross_entropy(op.logits, torch::ones({op.logits.size(0)}, torch::kLong).to(m_device));
                auto ln = torch::nn::functional::cross_entropy(on.logits, torch::zeros({on.logits.size(0)}, torch::kLong).to(m_device));
                loss = loss + 0.5 * (lp + ln);
            }
            r.units = static_cast<double>(pos.size());
            r.correct = (op.cosine > on.cosine).sum().item<double>();
            r.predicted = static_cast<double>(pos.size());
        }
        r.loss = loss;
        return r;
    }

    std::vector<double> devScores() override { return score(m_dev, m_devIds); }

    ModelFile snapshot(const training::SnapshotInfo &info) override
    {
        const json trainingJson = json::parse(training::snapshotTrainingJson(info, m_recipe, m_summary.dump()));
        json c = {{"family", "ggsa"},
                  {"task", "answer-selection"},
                  {"name", m_recipe.name},
                  {"model", json::parse(m_net->config().toJson())},
                  {"tokenizer", {{"lowercase", true}}},
                  {"labels", {"irrelevant", "relevant"}},
                  {"training", trainingJson}};
        ModelFile f;
        f.configJson = c.dump();
        f.vocab = m_vocab.tokens();
        f.tensors = m_net->toTensors();
        return f;
    }

private:
    struct Encoded {
        std::vector<std::vector<std::int64_t>> q, a;
    };

    Encoded encodeCorpus(const PairCorpus &c) const
    {
        Encoded e;
        const int maxLen = m_net->config().maxLen;
        auto ids = [&](const Sentence &s) {
            std::vector<std::int64_t> v;
            for (const auto &w : lowerWords(s)) {
                const int id = m_vocab.id(w, Vocabulary::Match::Lowercase);
                v.push_back(id >= 0 ? id : m_net->config().unkId);
                if (static_cast<int>(v.size()) == maxLen)
                    break;
            }
            if (v.empty())
                v.push_back(m_net->config().unkId);
            return v;
        };
        for (const auto &p : c.pairs) {
            e.q.push_back(ids(p.first));
            e.a.push_back(ids(p.second));
        }
        return e;
    }

    void buildTriples()
    {
        std::vector<int> all(m_train.pairs.size());
        for (std::size_t i = 0; i < all.size(); ++i)
            all[i] = static_cast<int>(i);
        m_triples = training::rankingTriples(m_train, all);
    }

    std::pair<torch::Tensor, torch::Tensor> pad(const std::vector<const std::vector<std::int64_t> *> &rows) const
    {
        std::size_t L = 1;
        for (const auto *r : rows)
            L = std::max(L, r->size());
        const auto B = static_cast<std::int64_t>(rows.size());
        auto ids = torch::full({B, static_cast<std::int64_t>(L)}, m_net->config().padId, torch::kLong);
        auto mask = torch::zeros({B, static_cast<std::int64_t>(L)}, torch::kBool);
        auto ia = ids.accessor<std::int64_t, 2>();
        auto ma = mask.accessor<bool, 2>();
        for (std::int64_t b = 0; b < B; ++b)
            for (std::size_t i = 0; i < rows[static_cast<std::size_t>(b)]->size(); ++i) {
                ia[b][static_cast<std::int64_t>(i)] = (*rows[static_cast<std::size_t>(b)])[i];
                ma[b][static_cast<std::int64_t>(i)] = true;
            }
        return {ids.to(m_device), mask.to(m_device)};
    }

    ggsa::PairOutput runEncoded(const Encoded &e, const std::vector<int> &pairs, bool train) const
    {
        std::vector<const std::vector<std::int64_t> *> q, a;
        for (int p : pairs) {
            q.push_back(&e.q[static_cast<std::size_t>(p)]);
            a.push_back(&e.a[static_cast<std::size_t>(p)]);
        }
        auto [qi, qm] = pad(q);
        auto [ai, am] = pad(a);
        return m_net->forward(qi, qm, ai, am, ggsa::AttentionKernel::Blocked, train, false);
    }

    ggsa::PairOutput run(const std::vector<int> &pairs, bool train) const { return runEncoded(m_trainIds, pairs, train); }

    std::vector<double> score(const PairCorpus &c, const Encoded &e) const
    {
        torch::NoGradGuard ng;
        std::vector<double> out;
        for (std::size_t start = 0; start < c.pairs.size(); start += 128) {
            std::vector<int> idx;
            for (std::size_t i = start; i < std::min(c.pairs.size(), start + 128); ++i)
                idx.push_back(static_cast<int>(i));
            auto s = runEncoded(e, idx, false).score.to(torch::kCPU);
            for (std::int64_t i = 0; i < s.size(0); ++i)
                out.push_back(s[i].item<double>());
        }
        return out;
    }

    std::string m_family;
    Options m_options;
    PairCorpus m_train;
    Encoded m_trainIds, m_devIds;
    Vocabulary m_vocab;
    std::unique_ptr<ggsa::Net> m_net;
    int m_initialised = 0;
};

training::TrainerFamily makeTrainer(const std::string &name, bool interaction)
{
    training::TrainerFamily f;
    f.name = name;
    f.description = interaction ? "iGGSA (GGSA with question-answer interaction), answer selection on sentence pairs"
                                : "GGSA (gated group self-attention), answer selection on sentence pairs";
    GgsaConfig c;
    c.dModel = 128;
    c.heads = 4;
    c.groupSize = 10;
    c.offsets = {0, 0, 5, 5};
    c.layers = 2;
    c.dFF = 256;
    c.dMlp = 128;
    c.vocabSize = 2;
    c.maxLen = 256;
    c.interaction = interaction;
    c.composition = interaction ? "attention" : "max";
    c.score = "cosine";
    json d = json::parse(R"({
        "options": {"loss": "pairwise", "margin": 0.1, "vocab": {"min_count": 1}, "freeze_embeddings": false,
                    "embedding_vocab": true},
        "training": {"optimizer": {"kind": "adam", "lr": 5e-4, "clip_norm": 5.0}, "schedule": "constant", "epochs": 10,
                     "batch_size": 64, "log_every": 20, "patience": 4, "keep": "best", "storage": "f16", "device": "auto"}})");
    d["name"] = name + "-en-wikiqa";
    d["model"] = json::parse(c.toJson());
    d["model"].erase("vocab_size");
    f.defaultsJson = d.dump();
    f.validate = validateRecipe;
    f.create = [name] { return std::unique_ptr<training::TrainTask>(new GgsaTask(name)); };
    return f;
}

} // namespace

training::TrainerFamily ggsaTrainer()
{
    return makeTrainer("ggsa", false);
}

training::TrainerFamily iggsaTrainer()
{
    return makeTrainer("iggsa", true);
}

} // namespace treelens
