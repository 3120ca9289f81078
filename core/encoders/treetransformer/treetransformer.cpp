#include "core/encoders/treetransformer/treetransformer.h"

#include <cmath>
#include <random>

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "core/encoders/treetransformer/treetransformernet.h"
#include "core/encoders/treetransformer/vocabulary.h"
#include "core/model/modelfile.h"
#include "core/runtime/device.h"
#include "core/training/pretraincorpus.h"

namespace treelens {

using nlohmann::json;

Status TreeTransformerConfig::validate() const
{
    auto bad = [](const std::string &m) { return Status(makeError("tree-transformer config", m)); };
    if (layers < 1 || layers > 64) return bad("layers must be 1..64, not " + std::to_string(layers));
    if (dModel < 2 || dModel > 8192) return bad("d_model must be 2..8192, not " + std::to_string(dModel));
    if (heads < 1 || dModel % heads != 0) return bad("heads (" + std::to_string(heads) + ") must divide d_model (" + std::to_string(dModel) + ")");
    if (dFF < 1 || dFF > 65536) return bad("d_ff must be 1..65536, not " + std::to_string(dFF));
    if (vocabSize < 5 || vocabSize > 1000000) return bad("vocab_size must be 5..1000000, not " + std::to_string(vocabSize));
    if (maxLen < 2 || maxLen > 8192) return bad("max_len must be 2..8192, not " + std::to_string(maxLen));
    if (!(dropout >= 0.0 && dropout < 1.0)) return bad("dropout must be in [0, 1)");
    if (!(groupDivisor > 0.0) || !std::isfinite(groupDivisor)) return bad("group_divisor must be positive");
    if (!(layerNormEps > 0.0) || !std::isfinite(layerNormEps)) return bad("layer_norm_eps must be positive");
    return {};
}

std::string TreeTransformerConfig::toJson() const
{
    return json{{"layers", layers}, {"d_model", dModel}, {"heads", heads}, {"d_ff", dFF}, {"vocab_size", vocabSize},
                {"max_len", maxLen}, {"dropout", dropout}, {"group_divisor", groupDivisor},
                {"layer_norm_eps", layerNormEps}, {"constituent_prior", constituentPrior}}
        .dump();
}

Result<TreeTransformerConfig> TreeTransformerConfig::fromJson(const std::string &text)
{
    try {
        const auto j = json::parse(text);
        if (!j.is_object())
            return makeError("tree-transformer config", "\"model\" must be a JSON object");
        TreeTransformerConfig c;
        c.layers = j.at("layers").get<int>();
        c.dModel = j.at("d_model").get<int>();
        c.heads = j.at("heads").get<int>();
        c.dFF = j.at("d_ff").get<int>();
        c.vocabSize = j.at("vocab_size").get<int>();
        c.maxLen = j.value("max_len", c.maxLen);
        c.dropout = j.value("dropout", c.dropout);
        c.groupDivisor = j.value("group_divisor", c.groupDivisor);
        c.layerNormEps = j.value("layer_norm_eps", c.layerNormEps);
        c.constituentPrior = j.value("constituent_prior", c.constituentPrior);
        if (auto s = c.validate(); !s)
            return s.error();
        return c;
    } catch (const std::exception &e) {
        return makeError("tree-transformer config", e.what());
    }
}

namespace {


std::map<std::string, std::vector<std::int64_t>> expectedShapes(const TreeTransformerConfig &c, bool withProj)
{
    std::map<std::string, std::vector<std::int64_t>> m;
    const std::int64_t d = c.dModel, f = c.dFF, V = c.vocabSize;
    m["word_embed.0.lut.weight"] = {V, d};
    for (int l = 0; l < c.layers; ++l) {
        const std::string p = "layers." + std::to_string(l) + ".";
        for (int i = 0; i < 4; ++i) {
            m[p + "self_attn.linears." + std::to_string(i) + ".weight"] = {d, d};
            m[p + "self_attn.linears." + std::to_string(i) + ".bias"] = {d};
        }
        m[p + "feed_forward.w_1.weight"] = {f, d};
        m[p + "feed_forward.w_1.bias"] = {f};
        m[p + "feed_forward.w_2.weight"] = {d, f};
        m[p + "feed_forward.w_2.bias"] = {d};
        for (const char *g : {"linear_key", "linear_query"}) {
            m[p + "group_attn." + g + ".weight"] = {d, d};
            m[p + "group_attn." + g + ".bias"] = {d};
        }
        for (const char *n : {"group_attn.norm", "sublayer.0.norm", "sublayer.1.norm"}) {
            m[p + n + ".a_2"] = {d};
            m[p + n + ".b_2"] = {d};
        }
    }
    m["norm.a_2"] = {d};
    m["norm.b_2"] = {d};
    if (withProj) {
        m["proj.weight"] = {V, d};
        m["proj.bias"] = {V};
    }
    return m;
}

} // namespace

Status validateTreeTransformerWeights(const TreeTransformerConfig &config, const TensorMap &tensors,
                                      const std::string &where)
{
    const bool withProj = tensors.count("proj.weight") || tensors.count("proj.bias");
    const auto expected = expectedShapes(config, withProj);
    for (const auto &[name, shape] : expected) {
        const auto it = tensors.find(name);
        if (it == tensors.end())
            return makeError(where, "tensor '" + name + "' is missing (expected shape " + shapeText(shape) + ")");
        if (it->second.dtype != DType::F32 && it->second.dtype != DType::F16 && it->second.dtype != DType::BF16)
            return makeError(where, "tensor '" + name + "' has dtype " + dtypeName(it->second.dtype) + ", expected F32, F16 or BF16");
        if (it->second.shape != shape)
            return makeError(where, "tensor '" + name + "' has shape " + shapeText(it->second.shape) + ", expected " + shapeText(shape));
    }
    for (const auto &[name, t] : tensors) {
        if (expected.count(name))
            continue;
        if (name == "word_embed.1.pe") {
            const std::vector<std::int64_t> want{1, config.maxLen, config.dModel};
            if (t.shape != want)
                return makeError(where, "tensor '" + name + "' has shape " + shapeText(t.shape) + ", expected " + shapeText(want));
            continue;
        }
        return makeError(where, "unexpected tensor '" + name + "' for a tree-transformer with " +
                                    std::to_string(config.layers) + " layers");
    }
    return {};
}

TensorMap randomTreeTransformerWeights(const TreeTransformerConfig &config, unsigned seed)
{
    torch::manual_seed(seed);
    TensorMap out;
    for (const auto &[name, shape] : expectedShapes(config, true)) {
        torch::Tensor t;
        const bool isNorm = name.find(".a_2") != std::string::npos;
        if (isNorm)
            t = torch::ones(shape);
        else if (shape.size() >= 2) {
            // Xavier uniform, as the official make_model does for every p.dim() > 1.
            const double bound = std::sqrt(6.0 / static_cast<double>(shape[0] + shape[1]));
            t = torch::empty(shape).uniform_(-bound, bound);
        } else if (name.find(".b_2") != std::string::npos)
            t = torch::zeros(shape);
        else {
            const double bound = 1.0 / std::sqrt(static_cast<double>(config.dModel));
            t = torch::empty(shape).uniform_(-bound, bound);
        }
        t = t.contiguous();
        std::vector<float> v(t.data_ptr<float>(), t.data_ptr<float>() + t.numel());
        out[name] = TensorData::fromFloat(std::vector<std::int64_t>(shape.begin(), shape.end()), v);
    }
    return out;
}

namespace {

Matrix toMatrix(const torch::Tensor &t2d, int n)
{
    // t2d: CPU float [>=n, >=n] (or [n, cols]); copies the leading n rows.
    Matrix m(n, static_cast<int>(t2d.size(1)));
    auto c = t2d.narrow(0, 0, n).contiguous();
    std::memcpy(m.data.data(), c.data_ptr<float>(), m.data.size() * sizeof(float));
    return m;
}

class TreeTransformerEncoder final : public Encoder {
public:
    TreeTransformerEncoder(EncoderInfo info, Vocabulary vocab, tt::Net net, DeviceConfig device)
        : m_info(std::move(info)), m_vocab(std::move(vocab)), m_net(std::move(net)), m_device(std::move(device))
    {
    }

    const EncoderInfo &info() const override { return m_info; }

    Result<std::vector<Analysis>> analyze(const std::vector<EncoderInput> &batch, const AnalyzeOptions &options,
                                          const RunControl *control) override
    {
        const InductionConfig induction = options.induction.value_or(m_info.induction);
        if (auto s = induction.validate(m_info.layers); !s)
            return s.error();
        std::vector<Analysis> out;
        out.reserve(batch.size());
        const int chunk = std::max(1, m_device.batchSize);
        for (std::size_t begin = 0; begin < batch.size(); begin += static_cast<std::size_t>(chunk)) {
            if (control && control->isCancelled())
                return makeError("analysis", "cancelled");
            const std::size_t end = std::min(batch.size(), begin + static_cast<std::size_t>(chunk));
            auto prepared = prepare(batch, begin, end);
            if (!prepared)
                return prepared.error();
            torch::InferenceMode guard;
            tt::ForwardOptions fo;
            fo.keepAttention = options.attention;
            fo.keepPrior = true;
            fo.keepLayerOut = options.layerStates;
            const auto res = tt::forward(m_net, prepared->ids, prepared->mask, fo);
            auto cpu = [](const torch::Tensor &t) { return t.to(torch::kCPU, torch::kFloat32).contiguous(); };
            std::vector<torch::Tensor> A, C, att, raw, states;
            for (int l = 0; l < m_info.layers; ++l) {
                A.push_back(cpu(res.breakProb[l]));
                C.push_back(cpu(res.groupProb[l]));
                if (options.attention) {
                    att.push_back(cpu(res.attn[l]));
                    raw.push_back(cpu(res.attnRaw[l]));
                }
                if (options.layerStates)
                    states.push_back(cpu(res.layerOut[l]));
            }
            const auto finalHidden = cpu(res.finalHidden);
            const auto embedded = options.layerStates ? cpu(res.embed) : torch::Tensor();
            for (std::size_t b = begin; b < end; ++b) {
                const int64_t bi = static_cast<int64_t>(b - begin);
                const auto &words = batch[b].words;
                const int n = static_cast<int>(words.size()) + 1;
                Analysis a;
                a.family = m_info.family;
                a.words = words;
                a.tokens.push_back("[CLS]");
                for (std::size_t w = 0; w < words.size(); ++w) {
                    a.tokens.push_back(words[w]);
                    a.wordToken.push_back(static_cast<int>(w) + 1);
                }
                a.layers = m_info.layers;
                a.heads = m_info.heads;
                std::vector<std::vector<float>> wordLinks;
                for (int l = 0; l < m_info.layers; ++l) {
                    auto Ab = A[l][bi];
                    const float *pa = Ab.data_ptr<float>();
                    const int64_t L = Ab.size(0);
                    std::vector<float> links;
                    for (int k = 0; k + 1 < n; ++k)
                        links.push_back(pa[k * L + k + 1]);
                    wordLinks.emplace_back(links.begin() + (links.empty() ? 0 : 1), links.end());
                    a.linkProbs.push_back(std::move(links));
                    a.constituentPrior.push_back(toMatrix(C[l][bi].narrow(1, 0, n), n));
                    if (options.attention) {
                        std::vector<Matrix> heads, rawHeads;
                        for (int h = 0; h < m_info.heads; ++h) {
                            heads.push_back(toMatrix(att[l][bi][h].narrow(1, 0, n), n));
                            rawHeads.push_back(toMatrix(raw[l][bi][h].narrow(1, 0, n), n));
                        }
                        a.attention.push_back(std::move(heads));
                        a.attentionRaw.push_back(std::move(rawHeads));
                    }
                }
                a.inducedBrackets = induceBrackets(wordLinks, induction);
                a.inducedTree = bracketsToTree(words, a.inducedBrackets);
                if (m_info.outputs.inducedTree)
                    a.induction = induction;
                // Words the vocabulary lacks reach the model as [UNK] (prepare() encodes the same way).
                // Punctuation is not counted: a model trained without it (data strip_punctuation)
                // has none in its vocabulary, and a sentence's commas say nothing of its language.
                std::vector<int> unknown;
                for (std::size_t w = 0; w < words.size(); ++w)
                    if (m_vocab.id(Vocabulary::normalize(words[w])) < 0 && !isPunctuationToken(words[w]))
                        unknown.push_back(static_cast<int>(w));
                a.unknownWords = std::move(unknown);
                auto fh = finalHidden[bi];
                a.embedding.assign(fh[0].data_ptr<float>(), fh[0].data_ptr<float>() + m_info.dModel);
                auto mean = fh.narrow(0, 1, n - 1).mean(0).contiguous();
                a.meanEmbedding.assign(mean.data_ptr<float>(), mean.data_ptr<float>() + m_info.dModel);
                if (options.layerStates) {
                    a.layerStates.push_back(toMatrix(embedded[bi], n));
                    for (int l = 0; l < m_info.layers; ++l)
                        a.layerStates.push_back(toMatrix(states[l][bi], n));
                }
                out.push_back(std::move(a));
            }
            if (control)
                control->report(end, batch.size(), "analysing");
        }
        return out;
    }

    Result<std::vector<std::vector<float>>> embed(const std::vector<EncoderInput> &batch, const EmbedOptions &options,
                                                  const RunControl *control) override
    {
        if (options.layer < -1 || options.layer > m_info.layers)
            return makeError("embed", "layer " + std::to_string(options.layer) + " is outside -1.." + std::to_string(m_info.layers));
        std::vector<std::vector<float>> out;
        const int chunk = std::max(1, m_device.batchSize);
        for (std::size_t begin = 0; begin < batch.size(); begin += static_cast<std::size_t>(chunk)) {
            if (control && control->isCancelled())
                return makeError("embed", "cancelled");
            const std::size_t end = std::min(batch.size(), begin + static_cast<std::size_t>(chunk));
            auto prepared = prepare(batch, begin, end);
            if (!prepared)
                return prepared.error();
            torch::InferenceMode guard;
            tt::ForwardOptions fo;
            fo.keepPrior = false;
            fo.keepLayerOut = options.layer > 0;
            const auto res = tt::forward(m_net, prepared->ids, prepared->mask, fo);
            torch::Tensor h = options.layer == -1 ? res.finalHidden
                            : options.layer == 0  ? res.embed
                                                  : res.layerOut[static_cast<std::size_t>(options.layer - 1)];
            h = h.to(torch::kCPU, torch::kFloat32).contiguous();
            for (std::size_t b = begin; b < end; ++b) {
                const int64_t bi = static_cast<int64_t>(b - begin);
                const int n = static_cast<int>(batch[b].words.size()) + 1;
                torch::Tensor v = options.pooling == EmbedOptions::Pooling::Cls ? h[bi][0] : h[bi].narrow(0, 1, n - 1).mean(0);
                v = v.contiguous();
                out.emplace_back(v.data_ptr<float>(), v.data_ptr<float>() + v.numel());
            }
            if (control)
                control->report(end, batch.size(), "embedding");
        }
        return out;
    }

    Result<std::vector<std::vector<Matrix>>> layerStates(const std::vector<EncoderInput> &batch,
                                                         const RunControl *control) override
    {
        AnalyzeOptions o;
        o.attention = false;
        o.layerStates = true;
        auto a = analyze(batch, o, control);
        if (!a)
            return a.error();
        std::vector<std::vector<Matrix>> out;
        for (auto &x : *a)
            out.push_back(std::move(x.layerStates));
        return out;
    }

private:
    struct Prepared {
        torch::Tensor ids, mask;
    };

    Result<Prepared> prepare(const std::vector<EncoderInput> &batch, std::size_t begin, std::size_t end) const
    {
        std::vector<std::vector<int>> ids;
        std::size_t L = 0;
        for (std::size_t b = begin; b < end; ++b) {
            const auto &words = batch[b].words;
            if (words.empty())
                return makeError("sentence " + std::to_string(b + 1), "no words to analyse");
            if (static_cast<int>(words.size()) + 1 > m_info.maxTokens)
                return makeError("sentence " + std::to_string(b + 1),
                                 std::to_string(words.size()) + " words; the model takes at most " +
                                     std::to_string(m_info.maxTokens - 1) + " (" + std::to_string(m_info.maxTokens) +
                                     " positions including [CLS])");
            ids.push_back(m_vocab.encode(words));
            L = std::max(L, ids.back().size());
        }
        const auto B = static_cast<int64_t>(ids.size());
        auto idT = torch::zeros({B, static_cast<int64_t>(L)}, torch::kInt64);
        auto maskT = torch::zeros({B, static_cast<int64_t>(L)}, torch::kBool);
        auto ia = idT.accessor<int64_t, 2>();
        auto ma = maskT.accessor<bool, 2>();
        for (int64_t b = 0; b < B; ++b)
            for (std::size_t i = 0; i < ids[static_cast<std::size_t>(b)].size(); ++i) {
                ia[b][static_cast<int64_t>(i)] = ids[static_cast<std::size_t>(b)][i];
                ma[b][static_cast<int64_t>(i)] = true;
            }
        return Prepared{idT.to(m_net.device()), maskT.to(m_net.device())};
    }

    EncoderInfo m_info;
    Vocabulary m_vocab;
    tt::Net m_net;
    DeviceConfig m_device;
};

} // namespace

Result<std::unique_ptr<Encoder>> createTreeTransformer(const ModelFile &file, const DeviceConfig &device)
{
    const std::string where = file.sourcePath.empty() ? "model" : file.sourcePath;
    json config;
    try {
        config = json::parse(file.configJson);
    } catch (const std::exception &e) {
        return makeError(where, std::string("treelens.config is not valid JSON: ") + e.what());
    }
    if (!config.contains("model") || !config["model"].is_object())
        return makeError(where, "treelens.config has no \"model\" object");
    auto cfg = TreeTransformerConfig::fromJson(config["model"].dump());
    if (!cfg)
        return makeError(where, cfg.message());
    auto vocab = Vocabulary::fromTokens(file.vocab);
    if (!vocab)
        return makeError(where, vocab.message());
    if (vocab->size() != cfg->vocabSize)
        return makeError(where, "the vocabulary has " + std::to_string(vocab->size()) + " entries but vocab_size is " +
                                    std::to_string(cfg->vocabSize));
    if (auto s = validateTreeTransformerWeights(*cfg, file.tensors, where); !s)
        return s.error();
    auto dev = resolveDevice(device);
    if (!dev)
        return dev.error();
    auto net = tt::Net::fromTensors(*cfg, file.tensors, *dev);
    if (!net)
        return net.error();
    if (device.precision != "fp32")
        net->refreshFused(device.precision);

    EncoderInfo info;
    info.family = "tree-transformer";
    info.task = config.value("task", std::string("masked-lm"));
    info.name = config.value("name", std::string());
    info.layers = cfg->layers;
    info.heads = cfg->heads;
    info.dModel = cfg->dModel;
    info.dFF = cfg->dFF;
    info.vocabSize = cfg->vocabSize;
    info.maxTokens = cfg->maxLen;
    long long params = 0;
    for (const auto &[name, t] : file.tensors)
        if (name != "word_embed.1.pe")
            params += static_cast<long long>(t.numel());
    info.parameters = params;
    info.input = InputKind::Words;
    info.hasClsToken = true;
    info.outputs.attention = info.outputs.attentionRaw = true;
    // Without the constituent prior (a plain Transformer) C = 1 and every link is 1: nothing to induce.
    info.outputs.constituentPrior = info.outputs.linkProbs = info.outputs.inducedTree = cfg->constituentPrior;
    info.outputs.embedding = info.outputs.layerStates = true;
    info.device = dev->str();
    info.configJson = file.configJson;
    if (config.contains("induction")) {
        auto induction = InductionConfig::fromJson(config["induction"].dump());
        if (!induction)
            return makeError(where, "treelens.config \"induction\": " + induction.message());
        if (auto s = induction->validate(cfg->layers); !s)
            return makeError(where, "treelens.config \"induction\": " + s.message());
        info.induction = *induction;
    } else {
        info.induction = InductionConfig::defaultsFor(cfg->layers);
    }
    return std::unique_ptr<Encoder>(new TreeTransformerEncoder(std::move(info), std::move(*vocab), std::move(*net), device));
}

} // namespace treelens
