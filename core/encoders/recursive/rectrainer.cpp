// Training the recursive tree models (see rectrainer.h).
#include "core/encoders/recursive/rectrainer.h"

#include <algorithm>
#include <map>
#include <set>

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "core/base/strings.h"
#include "core/encoders/common/pretrainedrows.h"
#include "core/encoders/recursive/recnet.h"
#include "core/encoders/recursive/recursive.h"
#include "core/model/modelfile.h"
#include "core/training/classificationdata.h"
#include "core/training/classifiertask.h"
#include "core/training/pairtraining.h"
#include "core/training/trainer.h"

namespace treelens {

using nlohmann::json;

namespace {

struct Options {
    bool freezeEmbeddings = true;
    bool freezeEdgeEmbeddings = true;
    int maxWords = 100;
    int minCount = 1;
    /// "level" (level-batched, the default) or "node": the README's recursion, one node per call,
    /// as a tree-at-a-time implementation trains (for the epoch-time comparison only).
    std::string order = "level";
};

Result<Options> optionsOf(const TrainRecipe &r)
{
    return readFamilyOptions<Options>(r, [](const json &j, Options &o) -> Status {
        o.freezeEmbeddings = j.value("freeze_embeddings", o.freezeEmbeddings);
        o.freezeEdgeEmbeddings = j.value("freeze_edge_embeddings", o.freezeEdgeEmbeddings);
        o.maxWords = j.value("max_words", o.maxWords);
        o.minCount = vocabMinCount(j, o.minCount);
        o.order = j.value("evaluation_order", o.order);
        if (o.minCount < 1 || o.maxWords < 1 || (o.order != "level" && o.order != "node"))
            return makeError("recipe", "options: vocab.min_count >= 1, max_words >= 1, evaluation_order level or node");
        return {};
    });
}

class RecTask final : public training::ClassifierTask {
public:
    Result<training::DataSummary> prepare(const TrainRecipe &recipe, const ModelFile *resume, const torch::Device &device) override
    {
        if (auto s = begin(recipe, device, optionsOf(recipe), m_options); !s)
            return s.error();
        const json data = json::parse(recipe.data.extraJson);
        json model = json::parse(recipe.modelJson);
        m_pairs = data.contains("rte_train") || data.contains("rte_test");
        if (m_pairs ? !(data.contains("rte_train") && data.contains("rte_test")) : !(data.contains("positive") && data.contains("negative")))
            return makeError("recipe", "data needs \"positive\" and \"negative\" sentence files or \"rte_train\" and \"rte_test\" RTE XML files");
        auto kind = recModelFromName(model.value("model", std::string("dtte")));
        if (!kind)
            return makeError("recipe", kind.error());
        const bool dependency = *kind == RecModel::Dtt || *kind == RecModel::Dtte || *kind == RecModel::TreeLstmChildSum;
        std::string notesJson = "{}";
        auto split = m_pairs ? training::readRteSplit(recipe.data.extraJson, m_classes, notesJson) : training::readPolaritySplit(recipe.data.extraJson);
        if (!split)
            return split.error();
        if (!m_pairs)
            m_classes = {"negative", "positive"};
        if (auto st = training::parseSplit(*split, m_pairs, m_options.maxWords, !dependency, m_unparsed); !st)
            return st.error();
        m_parts = std::move(*split);

        std::vector<std::string> relations;
        if (resume) {
            m_vocab = resume->vocab;
            auto c = recursiveConfigOf(*resume);
            if (!c)
                return c.error();
            relations = c->relations;
        } else {
            buildVocabulary();
            std::set<std::string> labels; // UD v2's relations and every label the parser gave
            for (const auto &r : udV2Relations())
                labels.insert(r);
            for (const auto &part : m_parts)
                for (const auto &e : part)
                    for (const Sentence *s : {&e.sentence, e.second ? &*e.second : nullptr})
                        if (s)
                            labels.insert(s->dependency->deprels.begin(), s->dependency->deprels.end());
            relations.assign(labels.begin(), labels.end());
        }
        model["vocab_size"] = static_cast<int>(m_vocab.size());
        model["relations"] = relations;
        model["task"] = m_pairs ? "pair-classification" : "classification";
        model["classes"] = m_classes;
        if (!model.contains("query") && (*kind == RecModel::TreeLstmChildSum || *kind == RecModel::TreeLstmBinary))
            model["query"] = m_pairs ? "cross" : "self";
        auto cfg = RecConfig::fromJson(model.dump());
        if (!cfg)
            return makeError("recipe", "model: " + cfg.message());
        for (std::size_t i = 0; i < m_vocab.size(); ++i)
            m_index[m_vocab[i]] = static_cast<std::int64_t>(i);
        TensorMap weights = resume ? resume->tensors : rec::Net::randomTensors(*cfg, recipe.seed);
        if (!resume) {
            auto rows = initialiseWordRowsFrom(weights, "embed.word.weight", data.value("embeddings", std::string()), m_vocab, 2,
                                               cfg->dModel);
            if (!rows)
                return rows.error();
            m_initialised = *rows;
        }
        auto net = rec::Net::fromTensors(*cfg, weights, device, "weights");
        if (!net)
            return net.error();
        m_net = std::make_unique<rec::Net>(std::move(*net));
        m_net->setTraining(true);
        for (auto &[name, t] : m_net->parameters()) {
            const bool frozen = (name == "embed.word.weight" && m_options.freezeEmbeddings) ||
                                (name.find("edge_embed") != std::string::npos && m_options.freezeEdgeEmbeddings);
            t.set_requires_grad(!frozen);
        }
        // The trees each model composes over, once.
        for (const auto &part : m_parts) {
            std::vector<rec::Sentence> first, second;
            for (const auto &e : part) {
                auto a = sentenceOf(e.sentence);
                if (!a)
                    return a.error();
                first.push_back(std::move(*a));
                if (e.second) {
                    auto b = sentenceOf(*e.second);
                    if (!b)
                        return b.error();
                    second.push_back(std::move(*b));
                }
            }
            m_first.push_back(std::move(first));
            m_second.push_back(std::move(second));
        }
        return summarizeData(m_vocab.size(), m_initialised, m_unparsed, relations.size(), data.value("split_seed", 1u), m_classes,
                             json::parse(notesJson), std::string(", model ") + recModelName(cfg->model));
    }

    training::NamedParameters parameters() override { return training::trainableParameters(m_net->parameters()); }

    ModelFile snapshot(const training::SnapshotInfo &info) override
    {
        ModelFile f;
        f.configJson = recursiveConfigJson(m_net->config(), m_recipe.name, trainingRecord(info).dump());
        f.vocab = m_vocab;
        f.tensors = tensorsFromParameters(m_net->parameters());
        return f;
    }

private:
    Result<rec::Sentence> sentenceOf(const Sentence &s) const
    {
        const auto words = s.words();
        auto t = recTreeFor(m_net->config(), words.size(), s.dependency ? &*s.dependency : nullptr,
                            s.constituency ? &*s.constituency : nullptr, s.id.empty() ? "sentence" : s.id);
        if (!t)
            return t.error();
        rec::Sentence out;
        for (const auto &w : words) {
            const auto it = m_index.find(toLowerAscii(w));
            out.ids.push_back(it == m_index.end() ? 1 : it->second);
        }
        out.tree = std::move(*t);
        return out;
    }

    void buildVocabulary()
    {
        std::map<std::string, int> counts;
        for (const auto &e : m_parts[0])
            for (const Sentence *s : {&e.sentence, e.second ? &*e.second : nullptr})
                if (s)
                    for (const auto &w : s->words())
                        ++counts[toLowerAscii(w)];
        m_vocab = {"<pad>", "<unk>"};
        std::vector<std::pair<int, std::string>> byCount;
        for (const auto &[w, n] : counts)
            if (n >= m_options.minCount && w != "<pad>" && w != "<unk>")
                byCount.push_back({-n, w});
        std::sort(byCount.begin(), byCount.end());
        for (const auto &[n, w] : byCount)
            m_vocab.push_back(w);
    }

    torch::Tensor logitsOf(int part, const std::vector<std::size_t> &items, bool train) override
    {
        m_net->setTraining(train);
        std::vector<const rec::Sentence *> a, b;
        for (auto k : items) {
            a.push_back(&m_first[static_cast<std::size_t>(part)][k]);
            if (m_pairs)
                b.push_back(&m_second[static_cast<std::size_t>(part)][k]);
        }
        const auto order = m_options.order == "node" ? rec::Order::NodeByNode : rec::Order::LevelBatched;
        if (m_pairs)
            return m_net->forwardPairs(a, b, false, order).head.logits;
        const auto enc = m_net->encode(a, torch::Tensor(), false, order);
        return m_net->head(enc.roots, torch::Tensor()).logits;
    }

    double unitsOf(std::size_t k) const override
    {
        return static_cast<double>(m_first[0][k].ids.size() + (m_pairs ? m_second[0][k].ids.size() : 0));
    }

    Status loadWeights(const TensorMap &tensors, const std::string &where) override
    {
        auto net = rec::Net::fromTensors(m_net->config(), tensors, m_device, where);
        if (!net)
            return net.error();
        *m_net = std::move(*net);
        return {};
    }

    Options m_options;
    std::vector<std::vector<rec::Sentence>> m_first, m_second;
    std::vector<std::string> m_vocab, m_classes;
    std::map<std::string, std::int64_t> m_index;
    std::unique_ptr<rec::Net> m_net;
};

Status validateRecipe(const TrainRecipe &r)
{
    if (auto o = optionsOf(r); !o)
        return o.error();
    if (auto s = requireBatchSize(r); !s)
        return s;
    try {
        const std::string model = json::parse(r.modelJson).value("model", std::string());
        const bool treeLstm = model.rfind("treelstm.", 0) == 0;
        if (!model.empty() && treeLstm != (r.family == "tree-lstm-attention"))
            return makeError("recipe", "model.model \"" + model + "\" is trained by `train " +
                                           (treeLstm ? "tree-lstm-attention" : "recursive-tree-transformer") + "`");
    } catch (const std::exception &e) {
        return makeError("recipe", std::string("model: ") + e.what());
    }
    return {};
}

/// The trainer of one of the two families: `model` and `optimizer` are its recipe's objects.
training::TrainerFamily family(const std::string &name, const std::string &description, const std::string &model,
                               const std::string &optimizer)
{
    training::TrainerFamily f;
    f.name = name;
    f.description = description;
    json d = json::parse(R"({
        "options": {"freeze_embeddings": true, "freeze_edge_embeddings": true, "max_words": 100, "vocab": {"min_count": 1}},
        "training": {"schedule": "constant", "epochs": 10, "batch_size": 25, "log_every": 50, "patience": 3,
                     "keep": "best", "storage": "f16", "device": "auto"}})");
    d["name"] = name + "-en-polarity";
    d["model"] = json::parse(model);
    d["training"]["optimizer"] = json::parse(optimizer);
    f.defaultsJson = d.dump();
    f.validate = validateRecipe;
    f.create = [] { return std::unique_ptr<training::TrainTask>(new RecTask()); };
    return f;
}

} // namespace

training::TrainerFamily recursiveTreeTransformerTrainer()
{
    // Chapters 8-9: multi-branch composition, 6 branches of d_k 50 over 300-d vectors (here
    // d 128 = the word vectors of tree-transformer-en-small, 4 branches of 32), dropout 0.1,
    // Adagrad at a fixed 2e-4 (L2071), frozen word and edge vectors.
    auto f = family("recursive-tree-transformer",
                    "recursive Tree Transformer (CTT, DTT, DTT + edge labels; seed 004), sentence or pair classification",
                    R"({"model": "dtte", "d_model": 128, "n_branches": 4, "d_k": 32, "d_ff": 256, "head_hidden": 64,
                        "composition": "multi-branch", "positional_encoding": false, "dropout": 0.1})",
                    R"({"kind": "adagrad", "lr": 2e-4})");
    return f;
}

training::TrainerFamily treeLstmAttentionTrainer()
{
    // Chapter 4 (Table 4.1): Adagrad, learning rate from {0.01, 0.025, 0.05}, batch 25, weight
    // decay 1e-5, clipping 5, memory 150 and MLP 50 (here memory 128, head 64).
    auto f = family("tree-lstm-attention", "attentive Child-Sum / binary Tree-LSTM (seed 004, ch. 4), sentence or pair classification",
                    R"({"model": "treelstm.cs", "d_model": 128, "mem_dim": 128, "head_hidden": 64, "dropout": 0.1})",
                    R"({"kind": "adagrad", "lr": 0.025, "weight_decay": 1e-5, "clip_norm": 5.0})");
    return f;
}

} // namespace treelens
