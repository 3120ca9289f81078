// Training the Dependency-Transformer as a sentence classifier (see deptrainer.h).
#include "core/encoders/deptransformer/deptrainer.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <unordered_map>

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "core/base/inputlimits.h"
#include "core/base/strings.h"
#include "core/encoders/common/pretrainedrows.h"
#include "core/encoders/deptransformer/deptransformernet.h"
#include "core/encoders/common/vocabulary.h"
#include "core/formats/labelledtext.h"
#include "core/formats/pairs.h"
#include "core/formats/plaintext.h"
#include "core/model/modelfile.h"
#include "core/parsing/parser.h"
#include "core/training/classificationdata.h"
#include "core/training/classifiertask.h"
#include "core/training/pairtraining.h"
#include "core/training/trainer.h"

namespace treelens {

using nlohmann::json;

namespace {

struct Options {
    double dropout = 0.1;
    int minCount = 1;
    bool freezeEmbeddings = false;
    int maxWords = 100;
};

Result<Options> optionsOf(const TrainRecipe &r)
{
    return readFamilyOptions<Options>(r, [](const json &j, Options &o) -> Status {
        o.dropout = j.value("dropout", o.dropout);
        o.minCount = vocabMinCount(j, o.minCount);
        o.freezeEmbeddings = j.value("freeze_embeddings", o.freezeEmbeddings);
        o.maxWords = j.value("max_words", o.maxWords);
        if (!(o.dropout >= 0 && o.dropout < 1) || o.minCount < 1 || o.maxWords < 1)
            return makeError("recipe", "options: dropout in [0, 1), vocab.min_count >= 1, max_words >= 1");
        return {};
    });
}

class DepTask final : public training::ClassifierTask {
public:
    Result<training::DataSummary> prepare(const TrainRecipe &recipe, const ModelFile *resume,
                                          const torch::Device &device) override
    {
        if (auto s = begin(recipe, device, optionsOf(recipe), m_options); !s)
            return s.error();
        const json data = json::parse(recipe.data.extraJson);
        const bool trec = data.contains("trec_train") || data.contains("trec_test");
        m_pairs = data.contains("rte_train") || data.contains("rte_test");
        if (m_pairs ? !(data.contains("rte_train") && data.contains("rte_test"))
            : trec  ? !(data.contains("trec_train") && data.contains("trec_test"))
                    : !(data.contains("positive") && data.contains("negative")))
            return makeError("recipe", "data needs \"positive\" and \"negative\" sentence files, \"trec_train\" and "
                                       "\"trec_test\" question files, or \"rte_train\" and \"rte_test\" RTE XML files");
        std::string notesJson = "{}";
        auto split = m_pairs ? training::readRteSplit(recipe.data.extraJson, m_classes, notesJson)
                     : trec  ? training::readTrecSplit(recipe.data.extraJson, m_classes, notesJson)
                             : training::readPolaritySplit(recipe.data.extraJson);
        if (!split)
            return split.error();
        const json notes = json::parse(notesJson);
        if (!trec && !m_pairs)
            m_classes = {"negative", "positive"};
        // Parse every sentence with the shipped neural parser.
        if (auto st = training::parseSplit(*split, m_pairs, m_options.maxWords, false, m_unparsed); !st)
            return st.error();
        m_parts = std::move(*split);

        json model = json::parse(recipe.modelJson);
        if (resume) {
            m_vocab = resume->vocab;
            const json c = json::parse(resume->configJson);
            m_relationLabels = c.at("relations").get<std::vector<std::string>>();
        } else {
            buildVocabularies(model);
        }
        model["vocab_size"] = static_cast<int>(m_vocab.size());
        model["n_relations"] = static_cast<int>(m_relationLabels.size());
        if (m_pairs)
            model["n_pair_classes"] = static_cast<int>(m_classes.size()); // the sentence head stays, unused
        else
            model["n_classes"] = static_cast<int>(m_classes.size());
        auto cfg = DepTransformerConfig::fromJson(model.dump());
        if (!cfg)
            return cfg.error();
        auto rel = RelationVocabulary::fromLabels(m_relationLabels, "relations");
        if (!rel)
            return rel.error();
        m_relations = std::move(*rel);
        for (std::size_t i = 0; i < m_vocab.size(); ++i)
            m_index[m_vocab[i]] = static_cast<int>(i);
        TensorMap weights = resume ? resume->tensors : deptrans::Net::randomTensors(*cfg, recipe.seed);
        if (!resume) {
            auto rows = initialiseWordRowsFrom(weights, "emb.word.weight", data.value("embeddings", std::string()), m_vocab, 3,
                                               cfg->dModel);
            if (!rows)
                return rows.error();
            m_initialised = *rows;
        }
        auto net = deptrans::Net::fromTensors(*cfg, weights, device, "weights");
        if (!net)
            return net.error();
        m_net = std::make_unique<deptrans::Net>(std::move(*net));
        m_net->setTrainable(true);
        m_net->setDropout(m_options.dropout);
        if (m_options.freezeEmbeddings)
            m_net->named().at("emb.word.weight").set_requires_grad(false);
        for (auto *part : {&m_parts[0], &m_parts[1], &m_parts[2]}) {
            std::vector<deptrans::Prepared> prepared, second;
            for (const auto &e : *part) {
                auto p = deptrans::prepareSentence(ids(e.sentence), *e.sentence.dependency, *cfg, m_relations);
                if (!p)
                    return makeError(e.sentence.id, p.error());
                prepared.push_back(std::move(*p));
                if (e.second) {
                    auto q = deptrans::prepareSentence(ids(*e.second), *e.second->dependency, *cfg, m_relations);
                    if (!q)
                        return makeError(e.second->id, q.error());
                    second.push_back(std::move(*q));
                }
            }
            m_prepared.push_back(std::move(prepared));
            m_preparedSecond.push_back(std::move(second));
        }
        return summarizeData(m_vocab.size(), m_initialised, m_unparsed, m_relationLabels.size(), data.value("split_seed", 1u),
                             m_classes, notes);
    }

    training::NamedParameters parameters() override { return training::trainableParameters(m_net->named()); }

    ModelFile snapshot(const training::SnapshotInfo &info) override
    {
        const json trainingJson = trainingRecord(info);
        ModelFile f;
        f.configJson = json{{"family", "dependency-transformer"},
                            {"task", m_pairs ? "pair-classification" : "classification"},
                            {"name", m_recipe.name},
                            {"model", json::parse(m_net->config().toJson())},
                            {"relations", m_relationLabels},
                            // A pair model's sentence head is untrained: no sentence classes.
                            {"classes", m_pairs ? json::array() : json(m_classes)},
                            {"pair_classes", m_pairs ? json(m_classes) : json::array({"entailment", "neutral", "contradiction"})},
                            {"tokenizer", {{"lowercase", true}, {"root", "[root]"}}},
                            {"training", trainingJson}}
                           .dump();
        f.vocab = m_vocab;
        f.tensors = m_net->toTensors();
        return f;
    }

private:
    std::vector<std::int64_t> ids(const Sentence &s) const
    {
        std::vector<std::int64_t> v;
        for (const auto &t : s.tokens) {
            auto it = m_index.find(toLowerAscii(t.text));
            v.push_back(it == m_index.end() ? 1 : it->second);
        }
        return v;
    }

    void buildVocabularies(const json &model)
    {
        std::map<std::string, int> counts;
        std::set<std::string> labels;
        for (const auto &e : m_parts[0])
            for (const Sentence *s : {&e.sentence, e.second ? &*e.second : nullptr}) {
                if (!s)
                    continue;
                for (const auto &t : s->tokens)
                    ++counts[toLowerAscii(t.text)];
                for (const auto &l : s->dependency->deprels)
                    labels.insert(l);
            }
        m_vocab = {"[pad]", "[unk]", "[root]"};
        std::vector<std::pair<int, std::string>> byCount;
        for (const auto &[w, n] : counts)
            if (n >= m_options.minCount)
                byCount.push_back({-n, w});
        std::sort(byCount.begin(), byCount.end());
        for (const auto &[n, w] : byCount)
            if (w != "[pad]" && w != "[unk]" && w != "[root]")
                m_vocab.push_back(w);
        labels.insert("dep");
        m_relationLabels = {"[pad]", "[none]", "[self]"};
        m_relationLabels.insert(m_relationLabels.end(), labels.begin(), labels.end());
        const int T = model.value("max_rel_dist", 3);
        for (int sum = 2; sum <= T; ++sum)
            for (int a = sum; a >= 0; --a)
                m_relationLabels.push_back(std::to_string(a) + ":" + std::to_string(sum - a));
    }

    /// The sentence classifier's logits, or (pairs) the pair head's on both sides' [root] vectors.
    torch::Tensor logitsOf(int part, const std::vector<std::size_t> &items, bool train) override
    {
        std::vector<const deptrans::Prepared *> first, seconds;
        for (auto k : items) {
            first.push_back(&m_prepared[static_cast<std::size_t>(part)][k]);
            if (m_pairs)
                seconds.push_back(&m_preparedSecond[static_cast<std::size_t>(part)][k]);
        }
        auto t = deptrans::batchTensors(first, m_net->config(), m_relations.padId(), m_device);
        auto out = m_net->forward(t[0], t[1], t[2], t[3], t[4], false, nullptr, train);
        if (!m_pairs)
            return out.logits;
        auto u = deptrans::batchTensors(seconds, m_net->config(), m_relations.padId(), m_device);
        auto other = m_net->forward(u[0], u[1], u[2], u[3], u[4], false, nullptr, train);
        return m_net->pairHead(out.sentence, other.sentence).back();
    }

    double unitsOf(std::size_t k) const override
    {
        const auto &e = m_parts[0][k];
        return static_cast<double>(e.sentence.tokens.size()) + (m_pairs ? static_cast<double>(e.second->tokens.size()) : 0.0);
    }

    Status loadWeights(const TensorMap &tensors, const std::string &where) override
    {
        auto net = deptrans::Net::fromTensors(m_net->config(), tensors, m_device, where);
        if (!net)
            return net.error();
        *m_net = std::move(*net);
        return {};
    }

    Options m_options;
    std::vector<std::vector<deptrans::Prepared>> m_prepared;
    std::vector<std::string> m_vocab, m_relationLabels, m_classes;
    std::vector<std::vector<deptrans::Prepared>> m_preparedSecond; ///< pairs: the hypotheses, per part
    std::unordered_map<std::string, int> m_index;
    RelationVocabulary m_relations;
    std::unique_ptr<deptrans::Net> m_net;
};

Status validateRecipe(const TrainRecipe &r)
{
    if (auto o = optionsOf(r); !o)
        return o.error();
    if (auto s = requireBatchSize(r); !s)
        return s;
    return {};
}

} // namespace

training::TrainerFamily depTransformerTrainer()
{
    training::TrainerFamily f;
    f.name = "dependency-transformer";
    f.description = "Dependency-Transformer, sentence classification over parsed sentences (sentence polarity)";
    // The paper's optimiser (l. 91): AdaGrad, learning rate 1e-3, batch 32.
    f.defaultsJson = R"({"name": "dependency-transformer-en-polarity",
        "model": {"n_layers": 3, "n_heads": 4, "d_model": 128, "d_ff": 256, "d_rel": 32, "max_rel_dist": 3,
                  "max_level": 8, "max_len": 128, "layer_norm_eps": 1e-5, "pad_id": 0, "unk_id": 1, "root_id": 2,
                  "n_pair_classes": 3, "pair_hidden": 16},
        "options": {"dropout": 0.1, "vocab": {"min_count": 1}, "freeze_embeddings": false, "max_words": 100},
        "training": {"optimizer": {"kind": "adagrad", "lr": 1e-3, "clip_norm": 5.0}, "schedule": "constant", "epochs": 10,
                     "batch_size": 32, "log_every": 50, "patience": 3, "keep": "best", "storage": "f16", "device": "auto"}})";
    f.validate = validateRecipe;
    f.create = [] { return std::unique_ptr<training::TrainTask>(new DepTask()); };
    return f;
}

} // namespace treelens
