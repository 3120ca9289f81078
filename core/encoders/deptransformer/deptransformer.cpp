// The Dependency-Transformer family: encoder, import, fixture runner (see deptransformer.h).
#include "core/encoders/deptransformer/deptransformer.h"

#include <cctype>
#include <cstring>
#include <filesystem>
#include <unordered_map>

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "core/base/strings.h"
#include "core/encoders/common/torchtensors.h"
#include "core/encoders/fixture.h"
#include "core/encoders/deptransformer/deptransformernet.h"
#include "core/encoders/deptransformer/deptreefeatures.h"
#include "core/model/modelfile.h"
#include "core/runtime/device.h"

namespace treelens {

using nlohmann::json;

namespace {

/// Everything a native model file's treelens.config says.
struct Native {
    DepTransformerConfig config;
    RelationVocabulary relations;
    std::vector<std::string> classes, pairClasses;
    json j;
};

Result<Native> nativeOf(const ModelFile &file)
{
    const std::string where = file.sourcePath.empty() ? "model" : file.sourcePath;
    try {
        Native n;
        n.j = json::parse(file.configJson);
        if (!n.j.contains("model") || !n.j["model"].is_object())
            return makeError(where, "treelens.config has no \"model\" object");
        auto c = DepTransformerConfig::fromJson(n.j["model"].dump());
        if (!c)
            return makeError(where, c.message());
        n.config = *c;
        auto rel = RelationVocabulary::fromLabels(n.j.at("relations").get<std::vector<std::string>>(), where);
        if (!rel)
            return rel.error();
        n.relations = std::move(*rel);
        if (n.relations.size() != n.config.relations)
            return makeError(where, "n_relations is " + std::to_string(n.config.relations) + " but \"relations\" lists " +
                                        std::to_string(n.relations.size()));
        n.classes = n.j.value("classes", std::vector<std::string>{});
        n.pairClasses = n.j.value("pair_classes", std::vector<std::string>{});
        return n;
    } catch (const std::exception &e) {
        return makeError(where, std::string("treelens.config: ") + e.what());
    }
}

class DepTransformerEncoder final : public Encoder {
public:
    DepTransformerEncoder(deptrans::Net net, Native native, std::vector<std::string> vocab, EncoderInfo info, int batch)
        : m_net(std::move(net)), m_native(std::move(native)), m_info(std::move(info)), m_batch(std::max(1, batch))
    {
        for (std::size_t i = 0; i < vocab.size(); ++i)
            m_vocab.emplace(vocab[i], static_cast<int>(i));
    }
    const EncoderInfo &info() const override { return m_info; }

    Result<std::vector<Analysis>> analyze(const std::vector<EncoderInput> &batch, const AnalyzeOptions &options,
                                          const RunControl *control) override
    {
        if (!m_info.pairInput)
            return analyzeSentences(batch, options, control);
        // A pair model: both sides through the encoder, then the Tai et al. head on their [root] vectors.
        std::vector<EncoderInput> sides;
        for (std::size_t i = 0; i < batch.size(); ++i) {
            const auto &in = batch[i];
            if (in.secondWords.empty())
                return makeError("pair " + std::to_string(i + 1), singleSentenceRefusal(m_info));
            sides.push_back(EncoderInput{in.words, in.dependency, in.constituency, {}, {}, {}});
            sides.push_back(EncoderInput{in.secondWords, in.secondDependency, in.secondConstituency, {}, {}, {}});
        }
        auto analysed = analyzeSentences(sides, options, control);
        if (!analysed) {
            // "sentence 2k+1/2k+2" -> the pair and its side.
            std::string m = analysed.message();
            const auto at = m.find("sentence ");
            if (at != std::string::npos) {
                std::size_t k = 0, digits = at + 9;
                while (digits < m.size() && std::isdigit(static_cast<unsigned char>(m[digits])))
                    k = k * 10 + static_cast<std::size_t>(m[digits++] - '0');
                if (k > 0)
                    m.replace(at, digits - at, "pair " + std::to_string((k + 1) / 2) + (k % 2 ? " (first sentence)" : " (second sentence)"));
            }
            return Error{m};
        }
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
            Prediction pr;
            pr.labels = m_native.pairClasses;
            const auto row = probs[static_cast<std::int64_t>(i)];
            for (std::int64_t c = 0; c < row.size(0); ++c)
                pr.probabilities.push_back(row[c].item<float>());
            const auto best = static_cast<std::size_t>(row.argmax().item<std::int64_t>());
            pr.label = best < pr.labels.size() ? pr.labels[best] : std::to_string(best);
            // The score ranks pairs: the probability of the last label (the positive one: "YES", "1", "entailment").
            pr.score = pr.probabilities.back();
            a.prediction = pr;
            a.second.push_back(std::move((*analysed)[2 * i + 1]));
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
            std::vector<std::int64_t> ids;
            for (const auto &w : in.words) {
                auto it = m_vocab.find(toLowerAscii(w));
                ids.push_back(it == m_vocab.end() ? m_native.config.unkId : it->second);
            }
            auto p = deptrans::prepareSentence(ids, *in.dependency, m_native.config, m_native.relations);
            if (!p)
                return makeError("sentence " + std::to_string(i + 1), p.message());
            prepared.push_back(std::move(*p));
        }
        torch::NoGradGuard ng;
        std::vector<Analysis> out;
        const bool record = options.attention || options.layerStates;
        for (std::size_t start = 0; start < prepared.size(); start += static_cast<std::size_t>(m_batch)) {
            if (control && control->isCancelled())
                return makeError("analyze", "cancelled");
            const std::size_t end = std::min(prepared.size(), start + static_cast<std::size_t>(m_batch));
            std::vector<const deptrans::Prepared *> items;
            for (std::size_t i = start; i < end; ++i)
                items.push_back(&prepared[i]);
            auto t = deptrans::batchTensors(items, m_native.config, m_native.relations.padId(), m_net.device());
            auto res = m_net.forward(t[0], t[1], t[2], t[3], t[4], record);
            auto probs = torch::softmax(res.logits, -1).to(torch::kCPU);
            for (std::size_t i = start; i < end; ++i) {
                const auto b = static_cast<std::int64_t>(i - start);
                const deptrans::Prepared &p = prepared[i];
                const int n1 = p.features.n1;
                const auto rows = torch::indexing::Slice(0, n1);
                Analysis a;
                a.family = "dependency-transformer";
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
                a.heads = m_native.config.heads;
                a.embedding = floatTensorData(res.sentence[b]).toFloat();
                NamedArray ids{{n1, n1}, {}}, lv{{n1}, {}};
                for (int r : p.relations)
                    ids.data.push_back(static_cast<float>(r));
                for (auto l : p.levels)
                    lv.data.push_back(static_cast<float>(l));
                a.gates["deptrans.relation_ids"] = ids;
                a.gates["deptrans.levels"] = lv;
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
                    a.gates["deptrans.gate"] = namedArrayOf(cut(rec.gates));
                    a.gates["deptrans.relation_weights"] = namedArrayOf(cut(rec.relWeights));
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
                if (!m_info.pairInput && !m_native.classes.empty()) {
                    Prediction pr;
                    pr.labels = m_native.classes;
                    for (int c = 0; c < probs.size(1); ++c)
                        pr.probabilities.push_back(probs[b][c].item<float>());
                    const auto best = static_cast<std::size_t>(probs[b].argmax().item<std::int64_t>());
                    pr.label = best < pr.labels.size() ? pr.labels[best] : std::to_string(best);
                    pr.score = pr.probabilities[best];
                    a.prediction = pr;
                }
                out.push_back(std::move(a));
            }
        }
        return out;
    }

    Result<std::vector<std::vector<float>>> embed(const std::vector<EncoderInput> &batch, const EmbedOptions &options,
                                                  const RunControl *control) override
    {
        AnalyzeOptions o;
        o.attention = false;
        o.layerStates = options.layer >= 0 || options.pooling == EmbedOptions::Pooling::Mean;
        auto r = analyzeSentences(batch, o, control); // a pair model's encoder reads one sentence too
        if (!r)
            return r.error();
        std::vector<std::vector<float>> v;
        for (const auto &a : *r) {
            if (options.layer < 0) {
                v.push_back(options.pooling == EmbedOptions::Pooling::Mean ? a.meanEmbedding : a.embedding);
                continue;
            }
            const Matrix &m = a.layerStates[static_cast<std::size_t>(std::min<int>(options.layer, a.layers))];
            std::vector<float> out(static_cast<std::size_t>(m.cols), 0.0f);
            if (options.pooling == EmbedOptions::Pooling::Cls) {
                for (int c = 0; c < m.cols; ++c)
                    out[static_cast<std::size_t>(c)] = m.at(0, c);
            } else {
                for (int r2 = 1; r2 < m.rows; ++r2)
                    for (int c = 0; c < m.cols; ++c)
                        out[static_cast<std::size_t>(c)] += m.at(r2, c) / static_cast<float>(std::max(1, m.rows - 1));
            }
            v.push_back(out);
        }
        return v;
    }

    Result<std::vector<std::vector<Matrix>>> layerStates(const std::vector<EncoderInput> &batch,
                                                         const RunControl *control) override
    {
        AnalyzeOptions o;
        o.attention = false;
        o.layerStates = true;
        auto r = analyzeSentences(batch, o, control); // a pair model's encoder reads one sentence too
        if (!r)
            return r.error();
        std::vector<std::vector<Matrix>> v;
        for (auto &a : *r)
            v.push_back(std::move(a.layerStates));
        return v;
    }

private:
    deptrans::Net m_net;
    Native m_native;
    EncoderInfo m_info;
    int m_batch;
    std::unordered_map<std::string, int> m_vocab;
};

Result<std::unique_ptr<Encoder>> createDepTransformer(const ModelFile &file, const DeviceConfig &device)
{
    const std::string where = file.sourcePath.empty() ? "model" : file.sourcePath;
    auto native = nativeOf(file);
    if (!native)
        return native.error();
    if (static_cast<int>(file.vocab.size()) != native->config.vocabSize)
        return makeError(where, "the vocabulary has " + std::to_string(file.vocab.size()) + " entries but vocab_size is " +
                                    std::to_string(native->config.vocabSize));
    auto dev = resolveDevice(device);
    if (!dev)
        return dev.error();
    auto net = deptrans::Net::fromTensors(native->config, file.tensors, *dev, where);
    if (!net)
        return net.error();
    EncoderInfo info;
    info.family = "dependency-transformer";
    info.task = native->j.value("task", std::string("classification"));
    info.name = native->j.value("name", std::string());
    info.layers = native->config.layers;
    info.heads = native->config.heads;
    info.dModel = native->config.dModel;
    info.dFF = native->config.dFF;
    info.vocabSize = native->config.vocabSize;
    info.maxTokens = native->config.maxLen;
    for (const auto &[name, t] : file.tensors)
        info.parameters += static_cast<long long>(t.numel());
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
    info.device = dev->str();
    info.precisionNote = fp32OnlyNote(device.precision);
    info.configJson = file.configJson;
    return std::unique_ptr<Encoder>(
        new DepTransformerEncoder(std::move(*net), std::move(*native), file.vocab, std::move(info), device.batchSize));
}

// ---- verify-fixture ---------------------------------------------------------------

Result<TensorMap> computeDepTransformerFixture(const FixtureRequest &req)
{
    ImportRequest ir = importRequestFor(req);
    auto file = importDepTransformerCheckpoint(std::move(ir));
    if (!file)
        return file.error();
    if (auto s = validateModelFile(*file, req.stateDictPath); !s)
        return s.error();
    auto native = nativeOf(*file);
    if (!native)
        return native.error();
    auto net = deptrans::Net::fromTensors(native->config, file->tensors, torch::Device(torch::kCPU), req.stateDictPath);
    if (!net)
        return net.error();
    TensorMap out;
    torch::NoGradGuard ng;
    try {
        const json config = json::parse(req.configJson), inputs = json::parse(req.inputsJson);
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
    } catch (const std::exception &e) {
        return makeError(req.inputsPath, e.what());
    }
    return out;
}

} // namespace

Result<ModelFile> importDepTransformerCheckpoint(ImportRequest request)
{
    const std::string &ckpt = request.checkpointPath;
    if (request.configJson.empty())
        return makeError(ckpt, "a dependency-transformer checkpoint needs its configuration (--config config.json)");
    json j;
    try {
        j = json::parse(request.configJson);
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
        return makeError(request.configPath, cfg.message());
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
    const std::string name = request.name.empty() ? std::filesystem::path(ckpt).stem().string() : request.name;
    ModelFile file;
    file.configJson = json{{"family", "dependency-transformer"},
                           {"task", "classification"},
                           {"name", name},
                           {"model", json::parse(cfg->toJson())},
                           {"relations", relations},
                           {"classes", classes},
                           {"pair_classes", pairClasses},
                           {"tokenizer", {{"lowercase", true}, {"root", "[root]"}}},
                           {"training", {{"imported_from", std::filesystem::path(ckpt).filename().string()}, {"note", request.note}}}}
                          .dump();
    file.vocab = std::move(vocab);
    file.tensors = std::move(request.tensors);
    file.sourcePath = ckpt;
    return file;
}

EncoderFamily depTransformerFamily()
{
    EncoderFamily f;
    f.name = "dependency-transformer";
    f.create = createDepTransformer;
    f.importCheckpoint = importDepTransformerCheckpoint;
    f.summary = [](const ModelFile &file) -> std::string {
        auto n = nativeOf(file);
        if (!n)
            return n.message();
        const auto &c = n->config;
        return std::to_string(c.layers) + " layers, d_model " + std::to_string(c.dModel) + ", " + std::to_string(c.heads) +
               " heads, d_rel " + std::to_string(c.dRel) + ", " + std::to_string(c.relations) + " relations (T = " +
               std::to_string(c.maxRelDist) + "), vocabulary " + std::to_string(c.vocabSize);
    };
    f.computeFixture = computeDepTransformerFixture;
    return f;
}

} // namespace treelens
