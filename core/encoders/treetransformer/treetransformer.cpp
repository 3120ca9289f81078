#include "core/encoders/treetransformer/treetransformer.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <optional>
#include <random>

#include <nlohmann/json.hpp>

#include "core/encoders/common/configschema.h"
#include <torch/torch.h>

#include "core/encoders/common/batchedencoder.h"
#include "core/encoders/common/familykit.h"
#include "core/encoders/common/noablation.h"
#include "core/encoders/treetransformer/treetransformernet.h"
#include "core/encoders/common/vocabulary.h"
#include "core/model/modelfile.h"
#include "core/encoders/common/precisionrule.h"
#include "core/runtime/cpufeatures.h"
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

namespace {

/// treelens.config's "model" object of a Tree Transformer.
const std::vector<ConfigField<TreeTransformerConfig>> &configFields()
{
    using C = TreeTransformerConfig;
    static const std::vector<ConfigField<C>> fields = {
        {"layers", &C::layers, true}, {"d_model", &C::dModel, true}, {"heads", &C::heads, true}, {"d_ff", &C::dFF, true},
        {"vocab_size", &C::vocabSize, true},
        {"max_len", &C::maxLen}, {"dropout", &C::dropout}, {"group_divisor", &C::groupDivisor},
        {"layer_norm_eps", &C::layerNormEps}, {"constituent_prior", &C::constituentPrior}};
    return fields;
}

} // namespace

std::string TreeTransformerConfig::toJson() const
{
    return configToJson(*this, configFields()).dump();
}

Result<TreeTransformerConfig> TreeTransformerConfig::fromJson(const std::string &text)
{
    try {
        const auto j = json::parse(text);
        if (!j.is_object())
            return makeError("tree-transformer config", "\"model\" must be a JSON object");
        TreeTransformerConfig c;
        configFromJson(j, c, configFields());
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

/// The leading n×n block of a row-major L×L matrix.
Matrix squareBlock(const float *p, int64_t L, int n)
{
    Matrix m(n, n);
    for (int i = 0; i < n; ++i)
        std::memcpy(m.data.data() + static_cast<std::size_t>(i) * static_cast<std::size_t>(n), p + i * L,
                    static_cast<std::size_t>(n) * sizeof(float));
    return m;
}

class TreeTransformerEncoder final : public BatchedEncoder {
public:
    TreeTransformerEncoder(EncoderInfo info, Vocabulary vocab, tt::Net net, DeviceConfig device)
        : BatchedEncoder(std::move(info), device), m_vocab(std::move(vocab)), m_net(std::move(net)),
          m_device(std::move(device))
    {
    }

    Result<std::vector<Analysis>> analyze(const std::vector<EncoderInput> &batch, const AnalyzeOptions &options,
                                          const RunControl *control) override
    {
        // Zero ablation of the self-attention's heads (the prior C is not a head).
        if (auto s = checkHeadAblation(info(), options.ablate); !s)
            return s.error();
        const InductionConfig induction = options.induction.value_or(m_info.induction);
        if (auto s = induction.validate(m_info.layers); !s)
            return s.error();
        if (auto s = checkLengths(batch); !s)
            return s.error();
        // Corpus analysis: sentences go through the model shortest first, so a
        // forward pass pads each sentence only to the longest of similar length
        // (in input order a batch pads to its longest: most of a treebank's
        // batches would be mostly padding). Results come back in input order.
        const std::vector<std::size_t> order = lengthOrder(batch);
        std::vector<Analysis> out(batch.size());
        const auto threads = cpuThreadScope();
        auto status = forEachBatchOrdered(order, control, [&](std::size_t begin, std::size_t end) -> Status {
            const std::vector<std::size_t> members(order.begin() + static_cast<std::ptrdiff_t>(begin),
                                                   order.begin() + static_cast<std::ptrdiff_t>(end));
            prepare(batch, members);
            torch::InferenceMode guard;
            tt::ForwardOptions fo;
            fo.keepAttention = options.attention;
            fo.keepPrior = true;
            fo.keepLayerOut = options.layerStates;
            fo.ablate = options.ablate;
            const auto res = tt::forward(m_net, m_ids, m_mask, fo);
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
            for (std::size_t k = 0; k < members.size(); ++k) {
                const int64_t bi = static_cast<int64_t>(k);
                const auto &words = batch[members[k]].words;
                const int n = static_cast<int>(words.size()) + 1;
                Analysis a;
                a.family = m_info.family;
                if (!m_info.outputs.constituentPrior) { // the prior off: no tree in it
                    a.architecture = "a plain Transformer";
                    a.notes.push_back("no constituent prior (a plain Transformer): no link probabilities and no induced tree");
                }
                a.words = words;
                a.tokens.reserve(words.size() + 1);
                a.tokens.push_back("[CLS]");
                for (std::size_t w = 0; w < words.size(); ++w) {
                    a.tokens.push_back(words[w]);
                    a.wordToken.push_back(static_cast<int>(w) + 1);
                }
                a.layers = m_info.layers;
                a.heads = m_info.heads;
                for (const HeadAblation &h : options.ablate)
                    a.ablated.push_back({h.layer, h.head});
                std::vector<std::vector<float>> wordLinks;
                for (int l = 0; l < m_info.layers; ++l) {
                    const int64_t L = A[l].size(1);
                    const float *pa = A[l].data_ptr<float>() + bi * L * L;
                    std::vector<float> links;
                    links.reserve(static_cast<std::size_t>(n));
                    for (int k2 = 0; k2 + 1 < n; ++k2)
                        links.push_back(pa[k2 * L + k2 + 1]);
                    wordLinks.emplace_back(links.begin() + (links.empty() ? 0 : 1), links.end());
                    a.linkProbs.push_back(std::move(links));
                    a.constituentPrior.push_back(squareBlock(C[l].data_ptr<float>() + bi * L * L, L, n));
                    if (options.attention) {
                        std::vector<Matrix> heads, rawHeads;
                        heads.reserve(static_cast<std::size_t>(m_info.heads));
                        rawHeads.reserve(static_cast<std::size_t>(m_info.heads));
                        for (int h = 0; h < m_info.heads; ++h) {
                            const int64_t off = (bi * m_info.heads + h) * L * L;
                            heads.push_back(squareBlock(att[l].data_ptr<float>() + off, L, n));
                            rawHeads.push_back(squareBlock(raw[l].data_ptr<float>() + off, L, n));
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
                // With the prior off the pass computed C = 1 and links of 1 on the way: every door
                // (CLI, app, probing) gets only what the model declares, never a flat "tree".
                keepDeclaredOutputs(a, m_info.outputs);
                out[members[k]] = std::move(a);
            }
            if (control)
                control->report(end, batch.size(), "analysing");
            return {};
        }, "analysis");
        if (!status)
            return status.error();
        if (options.pseudoLogLikelihood && m_info.sentenceScore == SentenceScore::PseudoLogLikelihood)
            if (auto s = pseudoLogLikelihoods(batch, options, out, control); !s)
                return s.error();
        return out;
    }

    Result<std::vector<std::vector<float>>> embed(const std::vector<EncoderInput> &batch, const EmbedOptions &options,
                                                  const RunControl *control) override
    {
        if (options.layer < -1 || options.layer > m_info.layers)
            return makeError("embed", "layer " + std::to_string(options.layer) + " is outside -1.." + std::to_string(m_info.layers));
        if (auto s = checkLengths(batch); !s)
            return s.error();
        const std::vector<std::size_t> order = lengthOrder(batch);
        std::vector<std::vector<float>> out(batch.size());
        const auto threads = cpuThreadScope();
        auto status = forEachBatchOrdered(order, control, [&](std::size_t begin, std::size_t end) -> Status {
            const std::vector<std::size_t> members(order.begin() + static_cast<std::ptrdiff_t>(begin),
                                                   order.begin() + static_cast<std::ptrdiff_t>(end));
            prepare(batch, members);
            torch::InferenceMode guard;
            tt::ForwardOptions fo;
            fo.keepPrior = false;
            fo.keepLayerOut = options.layer > 0;
            const auto res = tt::forward(m_net, m_ids, m_mask, fo);
            torch::Tensor h = options.layer == -1 ? res.finalHidden
                            : options.layer == 0  ? res.embed
                                                  : res.layerOut[static_cast<std::size_t>(options.layer - 1)];
            h = h.to(torch::kCPU, torch::kFloat32).contiguous();
            for (std::size_t k = 0; k < members.size(); ++k) {
                const int64_t bi = static_cast<int64_t>(k);
                const int n = static_cast<int>(batch[members[k]].words.size()) + 1;
                torch::Tensor v = options.pooling == EmbedOptions::Pooling::Cls ? h[bi][0] : h[bi].narrow(0, 1, n - 1).mean(0);
                v = v.contiguous();
                out[members[k]].assign(v.data_ptr<float>(), v.data_ptr<float>() + v.numel());
            }
            if (control)
                control->report(end, batch.size(), "embedding");
            return {};
        }, "embed");
        if (!status)
            return status.error();
        return out;
    }

    Result<std::vector<std::vector<Matrix>>> layerStates(const std::vector<EncoderInput> &batch,
                                                         const RunControl *control) override
    {
        return layerStatesByAnalysis(batch, control);
    }

private:
    /// The pseudo-log-likelihood of every input (Salazar et al. 2020): each word masked alone
    /// ([MASK] in its place, every other word and [CLS] as they are) and predicted by the
    /// vocabulary projection from the final states, with the run's ablated heads; a word the
    /// vocabulary lacks is scored as the model reads it, [UNK]. Fills each analysis's
    /// surprisal (-log p per word, nats) and logprob (their negated sum). A sentence's masked
    /// copies go through the model the device's batch size at a time, the logits taken at the
    /// masked rows only.
    Status pseudoLogLikelihoods(const std::vector<EncoderInput> &batch, const AnalyzeOptions &options,
                                std::vector<Analysis> &out, const RunControl *control)
    {
        const auto threads = cpuThreadScope();
        const auto chunk = std::max<std::int64_t>(1, static_cast<std::int64_t>(m_batch));
        return forEachBatch(batch.size(), control, [&](std::size_t begin, std::size_t end) -> Status {
            torch::InferenceMode guard;
            for (std::size_t i = begin; i < end; ++i) {
                const std::vector<int> enc = m_vocab.encode(batch[i].words);
                const auto n = static_cast<std::int64_t>(enc.size()) - 1; // words after [CLS]
                const auto L = n + 1;
                const auto ids = torch::tensor(std::vector<std::int64_t>(enc.begin(), enc.end()), torch::kInt64);
                std::vector<double> logp(static_cast<std::size_t>(n), 0.0);
                for (std::int64_t from = 0; from < n; from += chunk) {
                    const std::int64_t k = std::min(chunk, n - from);
                    const auto rows = torch::arange(k, torch::kInt64);
                    const auto at = rows + from + 1; // the masked positions (after [CLS])
                    auto masked = ids.unsqueeze(0).repeat({k, 1});
                    masked.index_put_({rows, at}, static_cast<std::int64_t>(m_vocab.maskId()));
                    tt::ForwardOptions fo;
                    fo.keepPrior = false;
                    fo.logits = true;
                    fo.ablate = options.ablate;
                    fo.logitRows = (rows * L + at).to(m_net.device());
                    const auto res = tt::forward(m_net, masked.to(m_net.device()), torch::ones({k, L}, torch::kBool).to(m_net.device()), fo);
                    const auto picked = res.logits.to(torch::kCPU, torch::kFloat64)
                                            .log_softmax(-1)
                                            .gather(1, ids.index_select(0, at).unsqueeze(1))
                                            .squeeze(1)
                                            .contiguous();
                    std::copy_n(picked.data_ptr<double>(), k, logp.begin() + from);
                }
                Analysis &a = out[i];
                a.surprisal.clear();
                double sum = 0.0;
                for (double lp : logp) {
                    a.surprisal.push_back(-lp);
                    sum += lp;
                }
                a.logprob = sum;
                a.notes.push_back("sentence score: pseudo-log-likelihood (each of the " + std::to_string(n) +
                                  " words masked in turn)");
            }
            if (control)
                control->report(end, batch.size(), "pseudo-log-likelihood");
            return {};
        }, "pseudo-log-likelihood");
    }

    /// Threads for one analyze()/embed() call on the CPU: this encoder's count on the
    /// calling thread, and the GEMMs' library given them for the whole call (not only
    /// each forward: idle OpenMP workers left spinning by the copies between batches
    /// would otherwise meet OpenBLAS's threads).
    std::optional<ThreadScope> cpuThreadScope() const
    {
        if (!m_net.device().is_cpu())
            return std::nullopt;
        return std::optional<ThreadScope>(std::in_place, m_device.threads,
                                          m_net.precision() == "fp32" ? ThreadScope::Gemms::OpenBlas : ThreadScope::Gemms::OneDnn);
    }

    /// Every input's length against the model, before anything runs: the error
    /// names the first bad sentence in input order.
    Status checkLengths(const std::vector<EncoderInput> &batch) const
    {
        for (std::size_t b = 0; b < batch.size(); ++b) {
            const auto &words = batch[b].words;
            if (words.empty())
                return makeError("sentence " + std::to_string(b + 1), "no words to analyse");
            if (static_cast<int>(words.size()) + 1 > m_info.maxTokens)
                return makeError("sentence " + std::to_string(b + 1),
                                 std::to_string(words.size()) + " words; the model takes at most " +
                                     std::to_string(m_info.maxTokens - 1) + " (" + std::to_string(m_info.maxTokens) +
                                     " positions including [CLS])");
        }
        return {};
    }

    /// Input indices, shortest sentence first (ties in input order).
    static std::vector<std::size_t> lengthOrder(const std::vector<EncoderInput> &batch)
    {
        std::vector<std::size_t> order(batch.size());
        for (std::size_t i = 0; i < order.size(); ++i)
            order[i] = i;
        std::stable_sort(order.begin(), order.end(),
                         [&](std::size_t a, std::size_t b) { return batch[a].words.size() < batch[b].words.size(); });
        return order;
    }

    /// Fills m_ids/m_mask [B, L] for the inputs `members` (L = the longest + [CLS]),
    /// reusing the host buffers of earlier batches when they are large enough.
    void prepare(const std::vector<EncoderInput> &batch, const std::vector<std::size_t> &members)
    {
        std::int64_t L = 0;
        for (std::size_t m : members)
            L = std::max<std::int64_t>(L, static_cast<std::int64_t>(batch[m].words.size()) + 1);
        const auto B = static_cast<std::int64_t>(members.size());
        if (!m_hostIds.defined() || m_hostIds.numel() < B * L) {
            m_hostIds = torch::empty({B * L}, torch::kInt64);
            m_hostMask = torch::empty({B * L}, torch::kBool);
        }
        auto ids = m_hostIds.narrow(0, 0, B * L).view({B, L});
        auto mask = m_hostMask.narrow(0, 0, B * L).view({B, L});
        ids.zero_();
        mask.zero_();
        std::int64_t *pi = ids.data_ptr<std::int64_t>();
        bool *pm = mask.data_ptr<bool>();
        for (std::int64_t b = 0; b < B; ++b) {
            const std::vector<int> enc = m_vocab.encode(batch[members[static_cast<std::size_t>(b)]].words);
            for (std::size_t i = 0; i < enc.size(); ++i) {
                pi[b * L + static_cast<std::int64_t>(i)] = enc[i];
                pm[b * L + static_cast<std::int64_t>(i)] = true;
            }
        }
        if (m_net.device().is_cpu()) {
            m_ids = ids;
            m_mask = mask;
        } else {
            m_ids = ids.to(m_net.device());
            m_mask = mask.to(m_net.device());
        }
    }

    Vocabulary m_vocab;
    tt::Net m_net;
    DeviceConfig m_device;
    torch::Tensor m_hostIds, m_hostMask; ///< reused host buffers of prepare()
    torch::Tensor m_ids, m_mask;         ///< the current batch on the model's device
};

} // namespace

namespace {

struct PrecisionChoice {
    std::string precision;
    std::string note;
};

/// Sets `net` to the requested precision. "auto" times every candidate on this
/// machine (one 40-word sentence, as the app analyses a typed sentence; warm-up,
/// then three interleaved rounds, the fastest of each) and keeps the fastest of
/// those whose link probabilities on that sentence stay within kAutoLinkBound of
/// fp32's; a candidate other than fp32 must also beat fp32 by 10%, since it
/// changes the numbers (the rule: pickPrecision, precisionrule.h).
Result<PrecisionChoice> choosePrecision(tt::Net &net, const std::string &requested)
{
    const bool cpu = net.device().is_cpu();
    const bool nativeBf16 = !cpu || cpuFeatures().nativeBf16();
    if (requested != "auto") {
        if (requested != "fp32")
            if (auto st = net.refreshFused(requested); !st)
                return st.error();
        std::string note;
        if (requested == "bf16" && !nativeBf16)
            note = "bf16 is emulated on this CPU (no AVX512_BF16 or AMX-BF16): usually slower than fp32 here";
        return PrecisionChoice{requested, note};
    }
    const std::vector<std::string> candidates = autoPrecisionCandidates(tt::int8Available(net.device()), nativeBf16);
    std::vector<tt::Net> nets;
    for (const auto &c : candidates) {
        nets.push_back(net);
        if (auto st = nets.back().refreshFused(c); !st)
            return st.error();
    }
    const int64_t L = std::min<int64_t>(41, net.config().maxLen);
    torch::manual_seed(17);
    auto ids = torch::randint(4, net.config().vocabSize, {1, L}, torch::TensorOptions().dtype(torch::kInt64)).to(net.device());
    ids.index_put_({0, 0}, 3);
    auto mask = torch::ones({1, L}, torch::TensorOptions().dtype(torch::kBool)).to(net.device());
    tt::ForwardOptions fo;
    fo.keepAttention = true;
    std::vector<torch::Tensor> links(nets.size());
    auto once = [&](std::size_t i) {
        torch::InferenceMode guard;
        const auto t0 = std::chrono::steady_clock::now();
        auto out = tt::forward(nets[i], ids, mask, fo);
        std::vector<torch::Tensor> perLayer;
        for (const auto &A : out.breakProb)
            perLayer.push_back(A[0].diagonal(1).to(torch::kCPU, torch::kFloat32));
        links[i] = torch::stack(perLayer);
        return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    };
    std::vector<double> best(candidates.size(), 1e300);
    for (std::size_t i = 0; i < nets.size(); ++i)
        once(i);
    for (int round = 0; round < 3; ++round)
        for (std::size_t i = 0; i < nets.size(); ++i)
            best[i] = std::min(best[i], once(i));
    std::vector<PrecisionTiming> timings;
    for (std::size_t i = 0; i < nets.size(); ++i)
        timings.push_back({candidates[i], best[i], i == 0 ? 0.0 : (links[i] - links[0]).abs().max().item<double>()});
    const PrecisionPick chosen = pickPrecision(timings, static_cast<int>(L - 1), nativeBf16);
    net = std::move(nets[chosen.index]);
    const std::string &forced = cpuFeatures().overridden;
    return PrecisionChoice{candidates[chosen.index], chosen.note + (cpu && !forced.empty() ? " [" + forced + "]" : "")};
}

} // namespace

Result<std::unique_ptr<Encoder>> createTreeTransformer(const ModelFile &file, const DeviceConfig &device)
{
    const std::string where = modelWhere(file);
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
        return makeError(where, cfg.error());
    auto vocab = Vocabulary::withSpecials(file.vocab);
    if (!vocab)
        return makeError(where, vocab.error());
    if (auto s = checkVocabularySize(file, cfg->vocabSize); !s)
        return s.error();
    if (auto s = validateTreeTransformerWeights(*cfg, file.tensors, where); !s)
        return s.error();
    auto dev = resolveDevice(device);
    if (!dev)
        return dev.error();
    auto net = tt::Net::fromTensors(*cfg, file.tensors, *dev);
    if (!net)
        return net.error();
    auto precision = choosePrecision(*net, device.precision);
    if (!precision)
        return makeError(where, precision.error());

    EncoderInfo info = commonEncoderInfo(file, "tree-transformer", "masked-lm", dev->str(), device,
                                         {cfg->layers, cfg->heads, cfg->dModel, cfg->dFF, cfg->vocabSize, cfg->maxLen});
    long long params = 0;
    for (const auto &[name, t] : file.tensors)
        if (name != "word_embed.1.pe")
            params += static_cast<long long>(t.numel());
    info.parameters = params;  // the sinusoid table is no parameter
    info.input = InputKind::Words;
    info.hasClsToken = true;
    info.outputs.attention = info.outputs.attentionRaw = true;
    // Without the constituent prior (a plain Transformer) C = 1 and every link is 1: nothing to induce.
    info.outputs.constituentPrior = info.outputs.linkProbs = info.outputs.inducedTree = cfg->constituentPrior;
    if (!cfg->constituentPrior)
        info.architecture = "a plain Transformer, constituent prior off";
    info.outputs.embedding = info.outputs.layerStates = true;
    info.precision = precision->precision;
    info.precisionNote = precision->note;
    if (net->hasProjection())
        info.sentenceScore = SentenceScore::PseudoLogLikelihood;
    else
        info.sentenceScoreNote = "the file holds no vocabulary projection, proj.weight, to predict a word with; a model "
                                 "trained without options.keep_projection leaves it out";
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
