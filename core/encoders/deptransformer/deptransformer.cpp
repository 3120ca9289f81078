// The Dependency-Transformer family: encoder, import, fixture runner (see deptransformer.h).
#include "core/encoders/deptransformer/deptransformer.h"

#include <cctype>
#include <cstring>
#include <unordered_map>

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "core/base/strings.h"
#include "core/data/overlays.h"
#include "core/encoders/common/attribution.h"
#include "core/encoders/common/batchedencoder.h"
#include "core/encoders/common/familykit.h"
#include "core/encoders/common/fixturerunner.h"
#include "core/encoders/common/noablation.h"
#include "core/encoders/common/torchtensors.h"
#include "core/encoders/common/vocabulary.h"
#include "core/encoders/deptransformer/deptransformernet.h"
#include "core/encoders/deptransformer/deptreefeatures.h"
#include "core/model/modelfile.h"
#include "core/runtime/device.h"

namespace treelens {

using nlohmann::json;

namespace {

constexpr const char *kFamily = "dependency-transformer";

/// Everything a native model file's treelens.config says.
struct Native {
    DepTransformerConfig config;
    RelationVocabulary relations;
    std::vector<std::string> classes, pairClasses;
};

Result<Native> nativeOf(const ModelFile &file)
{
    const std::string where = file.sourcePath.empty() ? "model" : file.sourcePath;
    try {
        Native n;
        const json j = json::parse(file.configJson);
        if (!j.contains("model") || !j["model"].is_object())
            return makeError(where, "treelens.config has no \"model\" object");
        auto c = DepTransformerConfig::fromJson(j["model"].dump());
        if (!c)
            return makeError(where, c.error());
        n.config = *c;
        auto rel = RelationVocabulary::fromLabels(j.at("relations").get<std::vector<std::string>>(), where);
        if (!rel)
            return rel.error();
        n.relations = std::move(*rel);
        if (n.relations.size() != n.config.relations)
            return makeError(where, "n_relations is " + std::to_string(n.config.relations) + " but \"relations\" lists " +
                                        std::to_string(n.relations.size()));
        n.classes = j.value("classes", std::vector<std::string>{});
        n.pairClasses = j.value("pair_classes", std::vector<std::string>{});
        return n;
    } catch (const std::exception &e) {
        return makeError(where, std::string("treelens.config: ") + e.what());
    }
}

class DepTransformerEncoder final : public BatchedEncoder {
public:
    DepTransformerEncoder(deptrans::Net net, Native native, std::vector<std::string> vocab, EncoderInfo info, const DeviceConfig &device)
        : BatchedEncoder(std::move(info), device), m_net(std::move(net)), m_native(std::move(native)),
          m_vocab(Vocabulary::lenient(std::move(vocab)))
    {
    }

    Result<std::vector<Analysis>> analyze(const std::vector<EncoderInput> &batch, const AnalyzeOptions &options,
                                          const RunControl *control) override
    {
        if (auto s = checkHeadAblation(info(), options.ablate); !s)
            return s.error();
        if (!m_info.pairInput)
            return analyzeSentences(batch, options, control);
        // A pair model: both sides through the encoder, then the Tai et al. head on their [root] vectors.
        auto analysed = analyzePairSides(batch, [&](const std::vector<EncoderInput> &sides) {
            return analyzeSentences(sides, options, control);
        });
        if (!analysed)
            return analysed.error();
        torch::NoGradGuard ng;
        std::vector<Analysis> out;
        const auto d = static_cast<std::int64_t>(m_native.config.dModel);
        std::vector<float> va, vb;
        for (std::size_t i = 0; i < batch.size(); ++i) {
            va.insert(va.end(), (*analysed)[2 * i].embedding.begin(), (*analysed)[2 * i].embedding.end());
            vb.insert(vb.end(), (*analysed)[2 * i + 1].embedding.begin(), (*analysed)[2 * i + 1].embedding.end());
        }
        const auto n = static_cast<std::int64_t>(batch.size());
        auto ta = torch::from_blob(va.data(), {n, d}, torch::kFloat32).clone().to(m_net.device());
        auto tb = torch::from_blob(vb.data(), {n, d}, torch::kFloat32).clone().to(m_net.device());
        auto probs = torch::softmax(m_net.pairHead(ta, tb).back(), -1).to(torch::kCPU);
        for (std::size_t i = 0; i < batch.size(); ++i) {
            Analysis a = std::move((*analysed)[2 * i]);
            // The score ranks pairs: the probability of the last label (the positive one: "YES", "1", "entailment").
            a.prediction = predictionOf(floatTensorData(probs[static_cast<std::int64_t>(i)]).toFloat(), m_native.pairClasses,
                                        PredictionScore::Last);
            a.second.push_back(std::move((*analysed)[2 * i + 1]));
            out.push_back(std::move(a));
        }
        return out;
    }

    /// Integrated Gradients / gradient x input over the word embeddings (Encoder::explain):
    /// a classifier's log p(target); a pair model's score p(last label) through its pair
    /// head on both sentences' [root] vectors (log p(target) with a target).
    Result<std::vector<Attribution>> explain(const std::vector<EncoderInput> &batch, const ExplainOptions &options,
                                             const RunControl *control) override
    {
        if (auto s = checkHeadAblation(info(), options.ablate); !s)
            return s.error();
        if (options.method == ExplainOptions::Method::Rollout)
            return Error{"attention rollout is computed from the analysis, not by the family"};
        const auto &weight = m_net.named().at("emb.word.weight");
        auto baseline = baselineEmbedding(options.baseline, weight, m_native.config.padId, m_vocab);
        if (!baseline)
            return baseline.error();
        const bool pair = m_info.pairInput;
        const auto &labels = pair ? m_native.pairClasses : m_native.classes;
        if (labels.empty())
            return Error{(m_info.name.empty() ? std::string("this model") : m_info.name) + " has no classifier to explain"};
        std::vector<Attribution> out;
        for (std::size_t i = 0; i < batch.size(); ++i) {
            const EncoderInput &in = batch[i];
            if (pair && in.secondWords.empty())
                return makeError("sentence " + std::to_string(i + 1), singleSentenceRefusal(m_info));
            std::vector<deptrans::Prepared> prepared;
            const int sides = pair ? 2 : 1;
            for (int side = 0; side < sides; ++side) {
                const auto &words = side == 0 ? in.words : in.secondWords;
                const auto &tree = side == 0 ? in.dependency : in.secondDependency;
                if (!tree || tree->size() != words.size())
                    return makeError("sentence " + std::to_string(i + 1),
                                     "the dependency-transformer needs a dependency tree of the words (parse the sentence first)");
                auto p = deptrans::prepareSentence(m_vocab.ids(words, Vocabulary::Match::Lowercase, m_native.config.unkId), *tree,
                                                   m_native.config, m_native.relations);
                if (!p)
                    return makeError("sentence " + std::to_string(i + 1), p.error());
                prepared.push_back(std::move(*p));
            }
            auto tensorsFor = [&](int side, std::int64_t copies) {
                std::vector<const deptrans::Prepared *> items(static_cast<std::size_t>(copies), &prepared[static_cast<std::size_t>(side)]);
                return deptrans::batchTensors(items, m_native.config, m_native.relations.padId(), m_net.device());
            };
            auto logitsOf = [&](std::int64_t copies) {
                if (!pair) {
                    auto t = tensorsFor(0, copies);
                    return m_net.forward(t[0], t[1], t[2], t[3], t[4], false, nullptr, false, options.ablate).logits;
                }
                AttributionScope *scope = AttributionScope::current();
                if (scope)
                    scope->setSide(0);
                auto ta = tensorsFor(0, copies);
                auto va = m_net.forward(ta[0], ta[1], ta[2], ta[3], ta[4], false, nullptr, false, options.ablate).sentence;
                if (scope)
                    scope->setSide(1);
                auto tb = tensorsFor(1, copies);
                auto vb = m_net.forward(tb[0], tb[1], tb[2], tb[3], tb[4], false, nullptr, false, options.ablate).sentence;
                return m_net.pairHead(va, vb).back();
            };
            // The target: the one asked for, else the predicted label (a pair model: its score).
            auto targetOrError = targetIndex(labels, options.target);
            if (!targetOrError)
                return targetOrError.error();
            std::int64_t target = *targetOrError;
            bool score = false;
            if (target < 0) {
                if (pair) {
                    score = true;
                    target = static_cast<std::int64_t>(labels.size()) - 1;
                } else {
                    torch::NoGradGuard ng;
                    target = logitsOf(1).argmax(-1).item<std::int64_t>();
                }
            }
            Attribution a;
            a.target = score ? "score" : labels[static_cast<std::size_t>(target)];
            a.quantity = score ? "pair score p(" + labels.back() + ")" : "log p(" + labels[static_cast<std::size_t>(target)] + ")";
            auto per = integrateGradients(
                [&](std::int64_t copies) {
                    const auto logits = logitsOf(copies);
                    return score ? torch::softmax(logits, -1).select(1, target) : torch::log_softmax(logits, -1).select(1, target);
                },
                std::vector<torch::Tensor>(static_cast<std::size_t>(sides), *baseline), options, a, control);
            if (!per)
                return per.error();
            for (int side = 0; side < sides; ++side) {
                SideAttribution sa;
                sa.words = side == 0 ? in.words : in.secondWords;
                sa.tokens = {"[root]"};
                sa.tokens.insert(sa.tokens.end(), sa.words.begin(), sa.words.end());
                sa.token = (*per)[static_cast<std::size_t>(side)];
                sa.token.resize(sa.tokens.size(), 0.0);
                sa.specials = sa.token[0];
                sa.word.assign(sa.token.begin() + 1, sa.token.end());
                a.sides.push_back(std::move(sa));
            }
            out.push_back(std::move(a));
        }
        return out;
    }

    Result<std::vector<Analysis>> analyzeSentences(const std::vector<EncoderInput> &batch, const AnalyzeOptions &options,
                                                   const RunControl *control)
    {
        std::vector<deptrans::Prepared> prepared;
        for (std::size_t i = 0; i < batch.size(); ++i) {
            const auto &in = batch[i];
            if (!in.dependency)
                return makeError("sentence " + std::to_string(i + 1),
                                 "the dependency-transformer needs a dependency tree (parse the sentence first)");
            if (in.dependency->size() != in.words.size())
                return makeError("sentence " + std::to_string(i + 1), "the dependency tree does not cover the words");
            const auto ids = m_vocab.ids(in.words, Vocabulary::Match::Lowercase, m_native.config.unkId);
            auto p = deptrans::prepareSentence(ids, *in.dependency, m_native.config, m_native.relations);
            if (!p)
                return makeError("sentence " + std::to_string(i + 1), p.error());
            prepared.push_back(std::move(*p));
        }
        torch::NoGradGuard ng;
        const bool record = options.attention || options.layerStates;
        return collectBatches<std::vector<Analysis>>(prepared.size(), control, {}, [&](std::size_t start, std::size_t end, std::vector<Analysis> &out) -> Status {
            std::vector<const deptrans::Prepared *> items;
            for (std::size_t i = start; i < end; ++i)
                items.push_back(&prepared[i]);
            auto t = deptrans::batchTensors(items, m_native.config, m_native.relations.padId(), m_net.device());
            auto res = m_net.forward(t[0], t[1], t[2], t[3], t[4], record, nullptr, false, options.ablate);
            auto probs = torch::softmax(res.logits, -1).to(torch::kCPU);
            for (std::size_t i = start; i < end; ++i) {
                const auto b = static_cast<std::int64_t>(i - start);
                const deptrans::Prepared &p = prepared[i];
                const int n1 = p.features.n1;
                const auto rows = torch::indexing::Slice(0, n1);
                Analysis a;
                a.family = kFamily;
                a.input = InputKind::WordsWithDependency;
                a.words = batch[i].words;
                a.tokens = {"[root]"};
                std::vector<int> unknown;
                for (std::size_t k = 0; k < a.words.size(); ++k) {
                    a.tokens.push_back(a.words[k]);
                    a.wordToken.push_back(static_cast<int>(k) + 1);
                    if (p.ids[k + 1] == m_native.config.unkId)
                        unknown.push_back(static_cast<int>(k));
                }
                a.unknownWords = unknown;
                a.layers = m_native.config.layers;
                for (const HeadAblation &h : options.ablate)
                    a.ablated.push_back({h.layer, h.head});
                a.heads = m_native.config.heads;
                a.embedding = floatTensorData(res.sentence[b]).toFloat();
                NamedArray ids{{n1, n1}, {}}, lv{{n1}, {}};
                for (int r : p.relations)
                    ids.data.push_back(static_cast<float>(r));
                for (auto l : p.levels)
                    lv.data.push_back(static_cast<float>(l));
                a.gates[overlay::kRelationIds] = ids;
                a.gates[overlay::kRelationLevels] = lv;
                TokenRelations tr;
                tr.n = n1;
                tr.ids.assign(p.relations.begin(), p.relations.end());
                tr.names = m_native.relations.labels();
                tr.distance = p.features.distance;
                tr.levels = p.features.levels;
                tr.noneId = m_native.relations.noneId();
                a.relations = std::move(tr);
                if (record) {
                    const auto &rec = res.record;
                    auto cut = [&](const torch::Tensor &x) { return x[b].index({torch::indexing::Slice(), torch::indexing::Slice(), rows, rows}); };
                    a.gates[overlay::kRelationGate] = namedArrayOf(cut(rec.gates));
                    a.gates[overlay::kRelationAttention] = namedArrayOf(cut(rec.relWeights));
                    if (options.attention) {
                        auto attn = cut(rec.attn), self = cut(rec.selfWeights), rel = cut(rec.relWeights), gate = cut(rec.gates);
                        const auto L = static_cast<std::size_t>(a.layers);
                        a.attention.resize(L);
                        a.attentionRaw.resize(L);
                        a.attentionRelation.resize(L);
                        a.relationGate.resize(L);
                        for (std::size_t l = 0; l < L; ++l)
                            for (int h = 0; h < a.heads; ++h) {
                                const auto li = static_cast<std::int64_t>(l);
                                a.attention[l].push_back(matrixOf(attn[li][h]));
                                a.attentionRaw[l].push_back(matrixOf(self[li][h]));
                                a.attentionRelation[l].push_back(matrixOf(rel[li][h]));
                                a.relationGate[l].push_back(matrixOf(gate[li][h]));
                            }
                    }
                    auto hid = rec.hidden[b].index({torch::indexing::Slice(), rows});
                    a.meanEmbedding = floatTensorData(hid[a.layers].slice(0, 1, n1).mean(0)).toFloat();
                    if (options.layerStates)
                        for (int l = 0; l <= a.layers; ++l)
                            a.layerStates.push_back(matrixOf(hid[l]));
                }
                if (!m_info.pairInput && !m_native.classes.empty())
                    a.prediction = predictionOf(floatTensorData(probs[b]).toFloat(), m_native.classes, PredictionScore::Best);
                out.push_back(std::move(a));
            }
            return {};
        });
    }

    Result<std::vector<std::vector<float>>> embed(const std::vector<EncoderInput> &batch, const EmbedOptions &options,
                                                  const RunControl *control) override
    {
        AnalyzeOptions o;
        o.attention = false;
        o.layerStates = options.layer >= 0 || options.pooling == EmbedOptions::Pooling::Mean;
        auto vectorOf = [&](const Analysis &a) {
            if (options.layer < 0)
                return options.pooling == EmbedOptions::Pooling::Mean ? a.meanEmbedding : a.embedding;
            const Matrix &m = a.layerStates[static_cast<std::size_t>(std::min<int>(options.layer, a.layers))];
            if (options.pooling == EmbedOptions::Pooling::Cls)
                return std::vector<float>(m.data.begin(), m.data.begin() + m.cols); // the [root] row
            return meanOfRows(m, 1);
        };
        // A pair model's encoder reads one sentence too.
        return embedByAnalysis(batch, control, o, vectorOf, [this](const std::vector<EncoderInput> &b, const AnalyzeOptions &opt,
                                                                   const RunControl *c) { return analyzeSentences(b, opt, c); });
    }

    Result<std::vector<std::vector<Matrix>>> layerStates(const std::vector<EncoderInput> &batch,
                                                         const RunControl *control) override
    {
        // A pair model's encoder reads one sentence too.
        return layerStatesByAnalysis(batch, control, [this](const std::vector<EncoderInput> &b, const AnalyzeOptions &o,
                                                            const RunControl *c) { return analyzeSentences(b, o, c); });
    }

private:
    deptrans::Net m_net;
    Native m_native;
    Vocabulary m_vocab;
};

Result<std::unique_ptr<Encoder>> createDepTransformer(const ModelFile &file, const DeviceConfig &device)
{
    auto native = nativeOf(file);
    if (!native)
        return native.error();
    const DepTransformerConfig &c = native->config;
    auto opened = networkFor<deptrans::Net>(file, c, c.vocabSize, "vocab_size", device);
    if (!opened)
        return opened.error();
    EncoderInfo info = commonEncoderInfo(file, kFamily, "classification", opened->second.str(), device,
                                         {c.layers, c.heads, c.dModel, c.dFF, c.vocabSize, c.maxLen});
    info.input = InputKind::WordsWithDependency;
    info.hasClsToken = true;
    // A model trained on pairs ("task": "pair-classification") reads pairs and predicts with its pair head.
    info.pairInput = info.task == "pair-classification";
    info.labels = info.pairInput ? native->pairClasses : native->classes;
    info.outputs.attention = true;
    info.outputs.attentionRaw = true;
    info.outputs.gates = true;
    info.outputs.embedding = true;
    info.outputs.layerStates = true;
    info.outputs.prediction = !info.labels.empty();
    return std::unique_ptr<Encoder>(
        new DepTransformerEncoder(std::move(opened->first), std::move(*native), file.vocab, std::move(info), device));
}

// ---- verify-fixture ---------------------------------------------------------------

Result<TensorMap> computeDepTransformerFixture(const FixtureRequest &req)
{
    auto file = importFixtureModel(req, importDepTransformerCheckpoint);
    if (!file)
        return file.error();
    auto native = nativeOf(*file);
    if (!native)
        return native.error();
    auto net = deptrans::Net::fromTensors(native->config, file->tensors, torch::Device(torch::kCPU), req.stateDictPath);
    if (!net)
        return net.error();
    return runFixture(req, [&](const json &config, const json &inputs, TensorMap &out) -> Status {
        const auto &sentences = inputs.at("sentences");
        std::vector<deptrans::Prepared> prepared;
        for (const auto &s : sentences) {
            DependencyTree tree;
            tree.heads = s.at("heads").get<std::vector<int>>();
            tree.deprels = s.at("deprels").get<std::vector<std::string>>();
            auto p = deptrans::prepareSentence(s.at("token_ids").get<std::vector<std::int64_t>>(), tree, native->config,
                                               native->relations);
            if (!p)
                return makeError(req.inputsPath, "sentence " + s.value("id", std::string("?")) + ": " + p.message());
            for (auto id : p->ids)
                if (id < 0 || id >= native->config.vocabSize)
                    return makeError(req.inputsPath, "token id " + std::to_string(id) + " is outside the vocabulary");
            prepared.push_back(std::move(*p));
        }
        // The variants to run: the full model, then config "variants" (flags) other than "full".
        std::vector<std::pair<std::string, DepTransformerConfig>> variants = {{"", native->config}};
        if (config.contains("variants"))
            for (const auto &[name, v] : config["variants"].items()) {
                if (name == "full")
                    continue;
                DepTransformerConfig c = native->config;
                c.levelEmbedding = v.value("level_embedding", c.levelEmbedding);
                c.relationAttention = v.value("relation_attention", c.relationAttention);
                c.gate = v.value("gate", c.gate);
                variants.push_back({name, c});
            }
        std::vector<torch::Tensor> sentenceVecs;
        for (std::size_t k = 0; k < prepared.size(); ++k) {
            const deptrans::Prepared &p = prepared[k];
            const std::string s = "s" + std::to_string(k);
            auto t = deptrans::batchTensors({&p}, native->config, native->relations.padId(), torch::Device(torch::kCPU));
            for (const auto &[name, cfg] : variants) {
                auto res = net->forward(t[0], t[1], t[2], t[3], t[4], name.empty(), &cfg);
                if (!name.empty()) {
                    out["variant." + name + "." + s + ".sentence_vec"] = floatTensorData(res.sentence[0]);
                    out["variant." + name + "." + s + ".logits"] = floatTensorData(res.logits[0]);
                    continue;
                }
                const auto n1 = static_cast<std::int64_t>(p.ids.size());
                std::vector<std::int64_t> depth(p.features.depth.begin(), p.features.depth.end()), dist;
                for (const auto &[a, b] : p.features.distance) {
                    dist.push_back(a);
                    dist.push_back(b);
                }
                out[s + ".input_ids"] = int64TensorData({n1}, p.ids);
                out[s + ".positions"] = int64TensorData({n1}, p.positions);
                out[s + ".levels"] = int64TensorData({n1}, p.levels);
                out[s + ".depth"] = int64TensorData({n1}, depth);
                out[s + ".tree_dist"] = int64TensorData({n1, n1, 2}, dist);
                out[s + ".relation_ids"] = int64TensorData({n1, n1}, p.relations);
                const auto &r = res.record;
                out[s + ".embeddings"] = floatTensorData(r.hidden[0][0]);
                out[s + ".hidden"] = floatTensorData(r.hidden[0]);
                out[s + ".attn_ln"] = floatTensorData(r.attnLn[0]);
                out[s + ".self_scores"] = floatTensorData(r.selfScores[0]);
                out[s + ".self_weights"] = floatTensorData(r.selfWeights[0]);
                out[s + ".rel_scores"] = floatTensorData(r.relScores[0]);
                out[s + ".rel_weights"] = floatTensorData(r.relWeights[0]);
                out[s + ".gates"] = floatTensorData(r.gates[0]);
                out[s + ".scores"] = floatTensorData(r.scores[0]);
                out[s + ".attn"] = floatTensorData(r.attn[0]);
                out[s + ".sentence_vec"] = floatTensorData(res.sentence[0]);
                out[s + ".logits"] = floatTensorData(res.logits[0]);
                out[s + ".probs"] = floatTensorData(torch::softmax(res.logits[0], -1));
                out[s + ".node_logits"] = floatTensorData(res.nodeLogits[0]);
                out[s + ".node_probs"] = floatTensorData(torch::softmax(res.nodeLogits[0], -1));
                sentenceVecs.push_back(res.sentence[0]);
            }
        }
        if (inputs.contains("pairs"))
            for (std::size_t q = 0; q < inputs["pairs"].size(); ++q) {
                const auto &pr = inputs["pairs"][q];
                const auto a = pr.at("first").get<std::size_t>(), b = pr.at("second").get<std::size_t>();
                if (a >= sentenceVecs.size() || b >= sentenceVecs.size())
                    return makeError(req.inputsPath, "a pair names a sentence that does not exist");
                const std::string name = "pair" + std::to_string(q);
                auto h = net->pairHead(sentenceVecs[a].unsqueeze(0), sentenceVecs[b].unsqueeze(0));
                out[name + ".h_mul"] = floatTensorData(h[0][0]);
                out[name + ".h_abs"] = floatTensorData(h[1][0]);
                out[name + ".h_s"] = floatTensorData(h[2][0]);
                out[name + ".logits"] = floatTensorData(h[3][0]);
                out[name + ".probs"] = floatTensorData(torch::softmax(h[3][0], -1));
            }
        return {};
    });
}

} // namespace

Result<ModelFile> importDepTransformerCheckpoint(ImportRequest request)
{
    const std::string &ckpt = request.checkpointPath;
    auto parsed = importConfigOf(request, kFamily);
    if (!parsed)
        return parsed.error();
    const json j = std::move(*parsed);
    try {
        for (const auto &[key, want] : std::vector<std::pair<std::string, std::string>>{
                 {"layer_norm", "post"}, {"ffn_activation", "relu"}, {"gate_activation", "sigmoid"}})
            if (j.contains(key) && j[key].get<std::string>() != want)
                return makeError(request.configPath, key + " '" + j[key].get<std::string>() + "' is not supported (only " +
                                                         want + ")");
    } catch (const std::exception &e) {
        return makeError(request.configPath, std::string("not valid JSON: ") + e.what());
    }
    auto cfg = DepTransformerConfig::fromJson(j.dump());
    if (!cfg)
        return makeError(request.configPath, cfg.error());
    std::vector<std::string> vocab, relations, classes, pairClasses;
    try {
        vocab = j.at("vocab").get<std::vector<std::string>>();
        relations = j.at("relations").get<std::vector<std::string>>();
        classes = j.value("classes", std::vector<std::string>{});
        pairClasses = j.value("pair_classes", std::vector<std::string>{});
    } catch (const std::exception &e) {
        return makeError(request.configPath, e.what());
    }
    if (static_cast<int>(vocab.size()) != cfg->vocabSize)
        return makeError(request.configPath, "\"vocab\" lists " + std::to_string(vocab.size()) + " words but vocab_size is " +
                                                 std::to_string(cfg->vocabSize));
    if (auto rel = RelationVocabulary::fromLabels(relations, request.configPath); !rel)
        return rel.error();
    if (static_cast<int>(relations.size()) != cfg->relations)
        return makeError(request.configPath, "\"relations\" lists " + std::to_string(relations.size()) +
                                                 " labels but n_relations is " + std::to_string(cfg->relations));
    if (auto net = deptrans::Net::fromTensors(*cfg, request.tensors, torch::Device(torch::kCPU), ckpt); !net)
        return net.error();
    std::string config = json{{"family", kFamily},
                           {"task", "classification"},
                           {"name", importedModelName(request)},
                           {"model", json::parse(cfg->toJson())},
                           {"relations", relations},
                           {"classes", classes},
                           {"pair_classes", pairClasses},
                           {"tokenizer", {{"lowercase", true}, {"root", "[root]"}}},
                           {"training", importedTrainingRecord(request)}}
                          .dump();
    return importedModelFile(request, std::move(config), std::move(vocab));
}

EncoderFamily depTransformerFamily()
{
    EncoderFamily f;
    f.name = kFamily;
    f.create = createDepTransformer;
    f.importCheckpoint = importDepTransformerCheckpoint;
    f.summary = summaryWith(nativeOf, [](const Native &n) {
        const auto &c = n.config;
        return std::to_string(c.layers) + " layers, d_model " + std::to_string(c.dModel) + ", " + std::to_string(c.heads) +
               " heads, d_rel " + std::to_string(c.dRel) + ", " + std::to_string(c.relations) + " relations (T = " +
               std::to_string(c.maxRelDist) + "), vocabulary " + std::to_string(c.vocabSize);
    });
    f.computeFixture = computeDepTransformerFixture;
    return f;
}

} // namespace treelens
