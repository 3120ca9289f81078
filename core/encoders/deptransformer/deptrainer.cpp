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
#include "core/encoders/treetransformer/vocabulary.h"
#include "core/formats/labelledtext.h"
#include "core/formats/pairs.h"
#include "core/formats/plaintext.h"
#include "core/model/modelfile.h"
#include "core/parsing/parser.h"
#include "core/training/classificationdata.h"
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
    try {
        const auto j = json::parse(r.optionsJson);
        Options o;
        o.dropout = j.value("dropout", o.dropout);
        o.minCount = j.value("vocab", json::object()).value("min_count", o.minCount);
        o.freezeEmbeddings = j.value("freeze_embeddings", o.freezeEmbeddings);
        o.maxWords = j.value("max_words", o.maxWords);
        if (!(o.dropout >= 0 && o.dropout < 1) || o.minCount < 1 || o.maxWords < 1)
            return makeError("recipe", "options: dropout in [0, 1), vocab.min_count >= 1, max_words >= 1");
        return o;
    } catch (const std::exception &e) {
        return makeError("recipe", std::string("options: ") + e.what());
    }
}

class DepTask final : public training::TrainTask {
public:
    Result<training::DataSummary> prepare(const TrainRecipe &recipe, const ModelFile *resume,
                                          const torch::Device &device) override
    {
        m_recipe = recipe;
        m_device = device;
        auto opts = optionsOf(recipe);
        if (!opts)
            return opts.error();
        m_options = *opts;
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
        m_train = std::move((*split)[0]);
        m_dev = std::move((*split)[1]);
        m_test = std::move((*split)[2]);

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
        if (!resume)
            if (auto st = initialiseEmbeddings(weights, *cfg, data.value("embeddings", std::string())); !st)
                return st.error();
        auto net = deptrans::Net::fromTensors(*cfg, weights, device, "weights");
        if (!net)
            return net.error();
        m_net = std::make_unique<deptrans::Net>(std::move(*net));
        m_net->setTrainable(true);
        m_net->setDropout(m_options.dropout);
        if (m_options.freezeEmbeddings)
            m_net->named().at("emb.word.weight").set_requires_grad(false);
        for (auto *part : {&m_train, &m_dev, &m_test}) {
            std::vector<deptrans::Prepared> prepared, second;
            for (const auto &e : *part) {
                auto p = deptrans::prepareSentence(ids(e.sentence), *e.sentence.dependency, *cfg, m_relations);
                if (!p)
                    return makeError(e.sentence.id, p.message());
                prepared.push_back(std::move(*p));
                if (e.second) {
                    auto q = deptrans::prepareSentence(ids(*e.second), *e.second->dependency, *cfg, m_relations);
                    if (!q)
                        return makeError(e.second->id, q.message());
                    second.push_back(std::move(*q));
                }
            }
            m_prepared.push_back(std::move(prepared));
            m_preparedSecond.push_back(std::move(second));
        }
        training::DataSummary s;
        const char *unit = m_pairs ? " test pairs (" : " test sentences (";
        s.text = std::to_string(m_train.size()) + " train / " + std::to_string(m_dev.size()) + " dev / " +
                 std::to_string(m_test.size()) + unit + std::to_string(m_unparsed) +
                 " left out: not parsed), vocabulary " + std::to_string(m_vocab.size()) + " (" +
                 std::to_string(m_initialised) + " from the embedding model), " + std::to_string(m_relationLabels.size()) +
                 " relations";
        m_summary = {{"train", m_train.size()}, {"dev", m_dev.size()}, {"test", m_test.size()}, {"unparsed", m_unparsed},
                     {"vocabulary", m_vocab.size()}, {"embeddings_initialised", m_initialised},
                     {"relations", m_relationLabels.size()}, {"split_seed", data.value("split_seed", 1u)},
                     {"classes", m_classes}};
        m_summary.update(notes);
        s.json = m_summary.dump();
        return s;
    }

    training::NamedParameters parameters() override { return training::trainableParameters(m_net->named()); }

    long batchesInEpoch(int) override { return training::batchesOver(m_train.size(), m_recipe.batchSize); }

    Result<training::StepResult> trainStep(int epoch, long batch, std::mt19937_64 &) override
    {
        if (m_orderEpoch != epoch) {
            m_order = training::epochOrder(m_train.size(), m_recipe.seed, epoch);
            m_orderEpoch = epoch;
        }
        const long begin = batch * m_recipe.batchSize,
                   end = std::min<long>(static_cast<long>(m_order.size()), begin + m_recipe.batchSize);
        std::vector<const deptrans::Prepared *> items, seconds;
        std::vector<std::int64_t> labels;
        double words = 0;
        for (long i = begin; i < end; ++i) {
            const auto k = static_cast<std::size_t>(m_order[static_cast<std::size_t>(i)]);
            items.push_back(&m_prepared[0][k]);
            labels.push_back(m_train[k].label);
            words += static_cast<double>(m_train[k].sentence.tokens.size());
            if (m_pairs) {
                seconds.push_back(&m_preparedSecond[0][k]);
                words += static_cast<double>(m_train[k].second->tokens.size());
            }
        }
        auto logits = logitsOf(items, seconds, true);
        auto target = torch::tensor(labels, torch::kLong).to(m_device);
        training::StepResult r;
        r.loss = torch::nn::functional::cross_entropy(logits, target);
        r.units = words;
        r.correct = (logits.argmax(1) == target).sum().item<double>();
        r.predicted = static_cast<double>(labels.size());
        return r;
    }

    Result<training::DevResult> evaluate() override
    {
        training::DevResult d;
        if (m_dev.empty())
            return d;
        d.value = accuracy(1, m_dev);
        d.detailsJson = json{{"accuracy", d.value}, {m_pairs ? "pairs" : "sentences", m_dev.size()}}.dump();
        char buf[96];
        std::snprintf(buf, sizeof buf, "dev accuracy %.4f (%zu %s)", d.value, m_dev.size(), m_pairs ? "pairs" : "sentences");
        d.summary = buf;
        return d;
    }

    std::string metricName() const override { return "dev_accuracy"; }

    ModelFile snapshot(const training::SnapshotInfo &info) override
    {
        json trainingJson = json::parse(training::snapshotTrainingJson(info, m_recipe, m_summary.dump()));
        if (!m_testReport.is_null())
            trainingJson["test"] = m_testReport;
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

    Result<std::string> finish(const TrainRecipe &recipe, double) override
    {
        // The kept output is reloaded by runTraining's caller; score the current
        // weights only when the last weights are kept, else the best file.
        auto best = training::keptBestOutput(recipe);
        if (!best)
            return best.error();
        if (*best) {
            auto net = deptrans::Net::fromTensors(m_net->config(), (*best)->tensors, m_device, recipe.output);
            if (!net)
                return net.error();
            *m_net = std::move(*net);
        }
        const double acc = accuracy(2, m_test);
        m_testReport = {{"accuracy", acc}, {m_pairs ? "pairs" : "sentences", m_test.size()}};
        if (*best)
            if (auto st = training::storeTestReport(recipe, **best, m_testReport.dump()); !st)
                return st.error();
        char buf[96];
        std::snprintf(buf, sizeof buf, "test accuracy %.4f (%zu %s)", acc, m_test.size(), m_pairs ? "pairs" : "sentences");
        return std::string(buf);
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
        for (const auto &e : m_train)
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

    Status initialiseEmbeddings(TensorMap &weights, const DepTransformerConfig &cfg, const std::string &path)
    {
        if (path.empty())
            return {};
        auto f = loadModelFile(path);
        if (!f)
            return f.error();
        auto table = weights.at("emb.word.weight").toFloat();
        auto copied = copyPretrainedWordRows(*f, path, m_vocab, 3, cfg.dModel, table);
        if (!copied)
            return copied.error();
        m_initialised = copied->copied;
        weights["emb.word.weight"] = TensorData::fromFloat(weights.at("emb.word.weight").shape, table);
        return {};
    }

    /// The sentence classifier's logits, or (pairs) the pair head's on both sides' [root] vectors.
    torch::Tensor logitsOf(const std::vector<const deptrans::Prepared *> &items,
                           const std::vector<const deptrans::Prepared *> &seconds, bool train) const
    {
        auto t = deptrans::batchTensors(items, m_net->config(), m_relations.padId(), m_device);
        auto out = m_net->forward(t[0], t[1], t[2], t[3], t[4], false, nullptr, train);
        if (!m_pairs)
            return out.logits;
        auto u = deptrans::batchTensors(seconds, m_net->config(), m_relations.padId(), m_device);
        auto other = m_net->forward(u[0], u[1], u[2], u[3], u[4], false, nullptr, train);
        return m_net->pairHead(out.sentence, other.sentence).back();
    }

    double accuracy(int part, const std::vector<training::LabelledExample> &examples) const
    {
        torch::NoGradGuard ng;
        long correct = 0;
        const auto &prepared = m_prepared[static_cast<std::size_t>(part)];
        const auto &second = m_preparedSecond[static_cast<std::size_t>(part)];
        for (std::size_t start = 0; start < prepared.size(); start += 128) {
            std::vector<const deptrans::Prepared *> items, seconds;
            for (std::size_t i = start; i < std::min(prepared.size(), start + 128); ++i) {
                items.push_back(&prepared[i]);
                if (m_pairs)
                    seconds.push_back(&second[i]);
            }
            auto pred = logitsOf(items, seconds, false).argmax(1).to(torch::kCPU);
            for (std::int64_t i = 0; i < pred.size(0); ++i)
                correct += pred[i].item<std::int64_t>() == examples[start + static_cast<std::size_t>(i)].label;
        }
        return examples.empty() ? 0.0 : static_cast<double>(correct) / static_cast<double>(examples.size());
    }

    TrainRecipe m_recipe;
    Options m_options;
    torch::Device m_device{torch::kCPU};
    std::vector<training::LabelledExample> m_train, m_dev, m_test;
    std::vector<std::vector<deptrans::Prepared>> m_prepared;
    std::vector<std::string> m_vocab, m_relationLabels, m_classes;
    bool m_pairs = false;                                   ///< RTE: the pair head on (text, hypothesis)
    std::vector<std::vector<deptrans::Prepared>> m_preparedSecond; ///< pairs: the hypotheses, per part
    std::unordered_map<std::string, int> m_index;
    RelationVocabulary m_relations;
    std::unique_ptr<deptrans::Net> m_net;
    std::vector<int> m_order;
    int m_orderEpoch = -1;
    int m_initialised = 0;
    long m_unparsed = 0;
    json m_summary, m_testReport;
};

Status validateRecipe(const TrainRecipe &r)
{
    if (auto o = optionsOf(r); !o)
        return o.error();
    if (r.batchSize < 1)
        return makeError("recipe", "training.batch_size must be at least 1");
    return {};
}

} // namespace

training::TrainerFamily depTransformerTrainer()
{
    training::TrainerFamily f;
    f.name = "dependency-transformer";
    f.description = "Dependency-Transformer, sentence classification over parsed sentences (sentence polarity)";
    TrainRecipe &d = f.defaults;
    d.family = f.name;
    d.name = "dependency-transformer-en-polarity";
    d.modelJson = R"({"n_layers": 3, "n_heads": 4, "d_model": 128, "d_ff": 256, "d_rel": 32, "max_rel_dist": 3,
                      "max_level": 8, "max_len": 128, "layer_norm_eps": 1e-5, "pad_id": 0, "unk_id": 1, "root_id": 2,
                      "n_pair_classes": 3, "pair_hidden": 16})";
    d.optionsJson = R"({"dropout": 0.1, "vocab": {"min_count": 1}, "freeze_embeddings": false, "max_words": 100})";
    // The paper's optimiser (l. 91): AdaGrad, learning rate 1e-3, batch 32.
    d.optimizer.kind = "adagrad";
    d.optimizer.lr = 1e-3;
    d.optimizer.clipNorm = 5.0;
    d.schedule.kind = "constant";
    d.epochs = 10;
    d.batchSize = 32;
    d.logEvery = 50;
    d.patience = 3;
    d.keep = "best";
    d.storage = "f16";
    d.device = "auto";
    f.validate = validateRecipe;
    f.create = [] { return std::unique_ptr<training::TrainTask>(new DepTask()); };
    return f;
}

} // namespace treelens
