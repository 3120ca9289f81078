// GGSA / iGGSA: encoder, checkpoint import, fixture run and family entry (see ggsa.h).
#include "core/encoders/ggsa/ggsa.h"

#include <algorithm>
#include <cstring>

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
#include "core/encoders/ggsa/ggsanet.h"
#include "core/model/modelfile.h"
#include "core/runtime/device.h"

namespace treelens {

using nlohmann::json;

namespace {

const std::vector<std::string> kLabels = {"irrelevant", "relevant"};

/// The fixture-style configuration of one sub-model (README "This fixture").
Result<GgsaConfig> configFromFixtureJson(const json &j, const json &sub, const std::string &where)
{
    try {
        GgsaConfig c;
        c.dModel = j.at("d_model").get<int>();
        c.heads = j.at("n_heads").get<int>();
        c.groupSize = j.at("group_size").get<int>();
        c.offsets = j.at("offsets").get<std::vector<int>>();
        c.layers = j.at("n_layers").get<int>();
        c.dFF = j.at("d_ff").get<int>();
        c.dMlp = j.value("d_mlp", c.dModel);
        c.vocabSize = j.at("vocab_size").get<int>();
        c.maxLen = j.value("max_len", c.maxLen);
        c.padId = j.value("pad_id", c.padId);
        c.unkId = j.value("unk_id", c.unkId);
        c.lnEps = j.value("ln_eps", c.lnEps);
        c.embeddingScale = j.value("embedding_scale", c.embeddingScale);
        if (j.contains("d_head") && j.at("d_head").get<int>() * c.heads != c.dModel)
            return makeError(where, "d_head * n_heads != d_model");
        const std::string pe = j.value("positional_encoding", std::string("paper_literal"));
        if (pe.rfind("paper_literal", 0) == 0)
            c.positionalEncoding = "paper_literal";
        else if (pe.rfind("vaswani", 0) == 0)
            c.positionalEncoding = "vaswani";
        else
            return makeError(where, "positional_encoding '" + pe + "' is not paper_literal or vaswani");
        if (j.value("interaction_question_context", std::string("same_layer_mean")) != "same_layer_mean")
            return makeError(where, "interaction_question_context other than same_layer_mean is not supported");
        if (j.value("qa_encoders_shared", false))
            return makeError(where, "qa_encoders_shared = true is not supported (GGSA has two encoders)");
        if (sub.is_object()) {
            c.interaction = sub.value("interaction", c.interaction);
            c.composition = sub.value("composition", c.composition);
            c.score = sub.value("score", c.score);
        }
        if (auto s = c.validate(); !s)
            return makeError(where, s.error());
        return c;
    } catch (const std::exception &e) {
        return makeError(where, e.what());
    }
}

std::string modelConfigJson(const GgsaConfig &cfg, const std::string &name, const json &training)
{
    return json{{"family", "ggsa"},
                {"task", "answer-selection"},
                {"name", name},
                {"model", json::parse(cfg.toJson())},
                {"tokenizer", {{"lowercase", true}}},
                {"labels", kLabels},
                {"training", training}}
        .dump();
}

/// ids [B, L] (pad id where short) and mask [B, L] from id lists.
std::pair<torch::Tensor, torch::Tensor> padIds(const std::vector<std::vector<std::int64_t>> &rows, int padId,
                                               const torch::Device &device)
{
    std::size_t L = 1;
    for (const auto &r : rows)
        L = std::max(L, r.size());
    auto ids = torch::full({static_cast<std::int64_t>(rows.size()), static_cast<std::int64_t>(L)}, padId, torch::kLong);
    auto mask = torch::zeros({static_cast<std::int64_t>(rows.size()), static_cast<std::int64_t>(L)}, torch::kBool);
    auto ia = ids.accessor<std::int64_t, 2>();
    auto ma = mask.accessor<bool, 2>();
    for (std::size_t b = 0; b < rows.size(); ++b)
        for (std::size_t i = 0; i < rows[b].size(); ++i) {
            ia[static_cast<std::int64_t>(b)][static_cast<std::int64_t>(i)] = rows[b][i];
            ma[static_cast<std::int64_t>(b)][static_cast<std::int64_t>(i)] = true;
        }
    return {ids.to(device), mask.to(device)};
}

class GgsaEncoder final : public BatchedEncoder {
public:
    GgsaEncoder(ggsa::Net net, Vocabulary vocab, EncoderInfo info, const DeviceConfig &device)
        : BatchedEncoder(std::move(info), device), m_net(std::move(net)), m_vocab(std::move(vocab))
    {
    }

    Result<std::vector<Analysis>> analyze(const std::vector<EncoderInput> &batch, const AnalyzeOptions &options,
                                          const RunControl *control) override
    {
        if (auto s = checkHeadAblation(info(), options.ablate); !s)
            return s.error();
        torch::NoGradGuard noGrad;
        const auto &cfg = m_net.config();
        return collectBatches<std::vector<Analysis>>(batch.size(), control, {}, [&](std::size_t start, std::size_t end, std::vector<Analysis> &out) -> Status {
            std::vector<std::vector<std::int64_t>> qs, as;
            for (std::size_t i = start; i < end; ++i) {
                if (auto s = checkLength(batch[i].words, i, "first"); !s)
                    return s.error();
                if (auto s = checkLength(batch[i].secondWords, i, "second"); !s && !batch[i].secondWords.empty())
                    return s.error();
                qs.push_back(ids(batch[i].words));
                // A single sentence runs through the question encoder only; a
                // one-token placeholder answer keeps the batch shape (discarded).
                as.push_back(batch[i].secondWords.empty() ? std::vector<std::int64_t>{cfg.unkId} : ids(batch[i].secondWords));
            }
            auto [qIds, qMask] = padIds(qs, cfg.padId, m_net.device());
            auto [aIds, aMask] = padIds(as, cfg.padId, m_net.device());
            const bool record = options.attention || options.layerStates;
            auto res = m_net.forward(qIds, qMask, aIds, aMask, ggsa::AttentionKernel::Blocked, false, record, options.ablate);
            auto prob = torch::softmax(res.logits, 1).to(torch::kCPU);
            auto cosine = res.cosine.to(torch::kCPU);
            auto score = res.score.to(torch::kCPU);
            for (std::size_t i = start; i < end; ++i) {
                const auto b = static_cast<std::int64_t>(i - start);
                const auto &in = batch[i];
                Analysis q = side(in.words, res.q, b, record, options, &res.vq);
                if (!in.secondWords.empty()) {
                    Analysis a = side(in.secondWords, res.a, b, record, options, &res.va);
                    if (record && cfg.interaction) {
                        const int La = static_cast<int>(in.secondWords.size());
                        a.gates[overlay::kPairInteractionNorm] =
                            namedArrayOf(res.a.Rint[b].index({torch::indexing::Slice(), torch::indexing::Slice(0, La)}).norm(2, -1));
                    }
                    if (res.compAttn.defined())
                        q.crossAttention.push_back(
                            matrixOf(res.compAttn[b].slice(0, 0, static_cast<std::int64_t>(in.secondWords.size())).unsqueeze(0)));
                    Prediction p;
                    p.labels = kLabels;
                    p.probabilities = {prob[b][0].item<float>(), prob[b][1].item<float>()};
                    p.label = p.probabilities[1] >= 0.5f ? kLabels[1] : kLabels[0];
                    p.score = score[b].item<float>();
                    q.prediction = p;
                    q.gates[overlay::kPairScoreCosine] = NamedArray{{1}, {cosine[b].item<float>()}};
                    q.gates[overlay::kPairScoreMlpRelevant] = NamedArray{{1}, {prob[b][1].item<float>()}};
                    q.second.push_back(std::move(a));
                }
                for (const HeadAblation &h : options.ablate) {
                    q.ablated.push_back({h.layer, h.head});
                    for (Analysis &second : q.second) // both encoders ran without the head
                        second.ablated.push_back({h.layer, h.head});
                }
                out.push_back(std::move(q));
            }
            return {};
        });
    }

    Result<std::vector<std::vector<float>>> embed(const std::vector<EncoderInput> &batch, const EmbedOptions &options,
                                                  const RunControl *control) override
    {
        AnalyzeOptions o;
        o.attention = options.layer >= 0;
        o.layerStates = options.layer >= 0;
        return embedByAnalysis(batch, control, o, [&](const Analysis &a) {
            if (options.layer < 0)
                return options.pooling == EmbedOptions::Pooling::Mean ? a.meanEmbedding : a.embedding;
            const int l = std::min<int>(options.layer, static_cast<int>(a.layerStates.size()) - 1);
            return meanOfRows(a.layerStates[static_cast<std::size_t>(l)], 0);
        });
    }

    Result<std::vector<std::vector<Matrix>>> layerStates(const std::vector<EncoderInput> &batch,
                                                         const RunControl *control) override
    {
        return layerStatesByAnalysis(batch, control);
    }

    /// Integrated Gradients / gradient x input over both sentences' word embeddings: the
    /// pair's score (cosine or p[relevant], what score-pairs ranks by), or log p(target).
    Result<std::vector<Attribution>> explain(const std::vector<EncoderInput> &batch, const ExplainOptions &options,
                                             const RunControl *control) override
    {
        if (auto s = checkHeadAblation(info(), options.ablate); !s)
            return s.error();
        if (options.method == ExplainOptions::Method::Rollout)
            return Error{"attention rollout is computed from the analysis, not by the family"};
        const auto &cfg = m_net.config();
        auto baseline = baselineEmbedding(options.baseline, m_net.named().at("embed.weight"), cfg.padId, m_vocab);
        if (!baseline)
            return baseline.error();
        auto targetOrError = targetIndex(kLabels, options.target);
        if (!targetOrError)
            return targetOrError.error();
        std::int64_t target = *targetOrError;
        std::vector<Attribution> out;
        for (std::size_t i = 0; i < batch.size(); ++i) {
            const EncoderInput &in = batch[i];
            if (in.secondWords.empty())
                return makeError("input " + std::to_string(i + 1), singleSentenceRefusal(m_info));
            if (auto s = checkLength(in.words, i, "first"); !s)
                return s.error();
            if (auto s = checkLength(in.secondWords, i, "second"); !s)
                return s.error();
            const auto q = ids(in.words), a = ids(in.secondWords);
            Attribution at;
            at.target = target < 0 ? "score" : kLabels[static_cast<std::size_t>(target)];
            at.quantity = target >= 0 ? "log p(" + kLabels[static_cast<std::size_t>(target)] + ")"
                                      : (cfg.score == "mlp" ? "pair score p(relevant)" : "pair score (cosine)");
            auto per = integrateGradients(
                [&](std::int64_t copies) {
                    auto [qIds, qMask] = padIds(std::vector<std::vector<std::int64_t>>(static_cast<std::size_t>(copies), q), cfg.padId, m_net.device());
                    auto [aIds, aMask] = padIds(std::vector<std::vector<std::int64_t>>(static_cast<std::size_t>(copies), a), cfg.padId, m_net.device());
                    auto res = m_net.forward(qIds, qMask, aIds, aMask, ggsa::AttentionKernel::Blocked, false, false, options.ablate);
                    return target < 0 ? res.score : torch::log_softmax(res.logits, 1).select(1, target);
                },
                {*baseline, *baseline}, options, at, control);
            if (!per)
                return per.error();
            for (int side = 0; side < 2; ++side)
                at.sides.push_back(wordSide(side == 0 ? in.words : in.secondWords, (*per)[static_cast<std::size_t>(side)]));
            out.push_back(std::move(at));
        }
        return out;
    }

private:
    std::vector<std::int64_t> ids(const std::vector<std::string> &words) const
    {
        return m_vocab.ids(words, Vocabulary::Match::Lowercase, m_net.config().unkId);
    }

    Status checkLength(const std::vector<std::string> &words, std::size_t index, const char *which) const
    {
        if (words.empty())
            return makeError("input " + std::to_string(index + 1), std::string("the ") + which + " sentence is empty");
        if (static_cast<int>(words.size()) > m_net.config().maxLen)
            return makeError("input " + std::to_string(index + 1),
                             std::string("the ") + which + " sentence has " + std::to_string(words.size()) +
                                 " words, the model takes at most " + std::to_string(m_net.config().maxLen));
        return {};
    }

    /// One side's Analysis from the recorded tensors of batch row b.
    Analysis side(const std::vector<std::string> &words, const ggsa::SideRecord &rec, std::int64_t b, bool record,
                  const AnalyzeOptions &options, const torch::Tensor *pooled) const
    {
        using torch::indexing::Slice;
        const auto &cfg = m_net.config();
        const int L = static_cast<int>(words.size());
        Analysis a;
        a.family = "ggsa";
        a.words = words;
        a.tokens = words;
        for (int i = 0; i < L; ++i)
            a.wordToken.push_back(i);
        a.layers = cfg.layers;
        a.heads = cfg.heads;
        std::vector<int> unknown;
        for (int i = 0; i < L; ++i)
            if (m_vocab.id(words[static_cast<std::size_t>(i)], Vocabulary::Match::Lowercase) < 0)
                unknown.push_back(i);
        a.unknownWords = unknown;
        NamedArray gid{{cfg.heads, L}, {}}, offs{{cfg.heads}, {}};
        for (int h = 0; h < cfg.heads; ++h) {
            const int o = cfg.globalAttention ? 0 : cfg.offsets[static_cast<std::size_t>(h)];
            const int l = cfg.globalAttention ? std::max(L, 1) : cfg.groupSize;
            offs.data.push_back(static_cast<float>(o));
            for (int i = 0; i < L; ++i)
                gid.data.push_back(static_cast<float>(ggsaGroupId(i, o, l)));
        }
        a.gates[overlay::kTokenGroupId] = gid;
        a.gates[overlay::kTokenGroupOffsets] = offs;
        a.embedding = floatTensorData((*pooled)[b]).toFloat();
        if (!record)
            return a;
        const auto rows = Slice(0, L);
        auto gate = rec.gate[b].index({Slice(), rows});                         // [N, L, D]
        a.gates[overlay::kTokenGateMean] = namedArrayOf(gate.mean(-1));
        a.gates[overlay::kTokenGateNorm] = namedArrayOf(gate.norm(2, -1));
        if (options.layerStates)
            a.gates[overlay::kTokenGate] = namedArrayOf(gate);
        auto finalH = rec.H[b].select(0, cfg.layers - 1).index({rows});
        a.meanEmbedding = floatTensorData(finalH.mean(0)).toFloat();
        if (options.attention) {
            a.attention.resize(static_cast<std::size_t>(cfg.layers));
            a.attentionRaw.resize(static_cast<std::size_t>(cfg.layers));
            for (int k = 0; k < cfg.layers; ++k)
                for (int h = 0; h < cfg.heads; ++h) {
                    a.attention[static_cast<std::size_t>(k)].push_back(matrixOf(rec.localAttn[b][k][h].index({rows, rows})));
                    a.attentionRaw[static_cast<std::size_t>(k)].push_back(matrixOf(rec.globalAttn[b][k][h].index({rows, rows})));
                }
        }
        if (options.layerStates) {
            a.layerStates.push_back(matrixOf(rec.x0[b].index({rows})));
            for (int k = 0; k < cfg.layers; ++k)
                a.layerStates.push_back(matrixOf(rec.H[b][k].index({rows})));
        }
        return a;
    }

    ggsa::Net m_net;
    Vocabulary m_vocab;
};

Result<std::pair<GgsaConfig, json>> nativeConfig(const ModelFile &file)
{
    const std::string where = file.sourcePath.empty() ? "model" : file.sourcePath;
    try {
        auto j = json::parse(file.configJson);
        if (!j.contains("model") || !j["model"].is_object())
            return makeError(where, "treelens.config has no \"model\" object");
        auto cfg = GgsaConfig::fromJson(j["model"].dump());
        if (!cfg)
            return makeError(where, cfg.error());
        return std::make_pair(*cfg, j);
    } catch (const std::exception &e) {
        return makeError(where, std::string("treelens.config is not valid JSON: ") + e.what());
    }
}

Result<std::unique_ptr<Encoder>> createGgsa(const ModelFile &file, const DeviceConfig &device)
{
    const std::string where = modelWhere(file);
    auto parsed = nativeConfig(file);
    if (!parsed)
        return parsed.error();
    const GgsaConfig &cfg = parsed->first;
    auto vocab = Vocabulary::fromTokens(file.vocab, where);
    if (!vocab)
        return vocab.error();
    if (auto s = checkVocabularySize(file, cfg.vocabSize); !s)
        return s.error();
    auto dev = resolveDevice(device);
    if (!dev)
        return dev.error();
    auto net = ggsa::Net::fromTensors(cfg, file.tensors, *dev, where);
    if (!net)
        return net.error();
    EncoderInfo info = commonEncoderInfo(file, "ggsa", "answer-selection", dev->str(), device,
                                         {cfg.layers, cfg.heads, cfg.dModel, cfg.dFF, cfg.vocabSize, cfg.maxLen});
    info.input = InputKind::Words;
    info.pairInput = true;
    info.labels = kLabels;
    info.outputs.attention = true;
    info.outputs.attentionRaw = true;
    info.outputs.gates = true;
    info.outputs.embedding = true;
    info.outputs.layerStates = true;
    info.outputs.prediction = true;
    info.outputs.crossAttention = cfg.composition == "attention";
    return std::unique_ptr<Encoder>(new GgsaEncoder(std::move(*net), std::move(*vocab), std::move(info), device));
}

// ---- verify-fixture ---------------------------------------------------------------

Result<TensorMap> computeGgsaFixture(const FixtureRequest &req)
{
    return runFixture(req, [&](const json &config, const json &inputs, TensorMap &out) -> Status {
        std::vector<std::string> subs;
        if (config.contains("submodels") && config["submodels"].is_object())
            for (const auto &[name, v] : config["submodels"].items())
                subs.push_back(name);
        if (subs.empty())
            subs.push_back("");
        const GgsaConfig *layout = nullptr;
        std::vector<GgsaConfig> cfgs;
        const auto &questions = inputs.at("questions");
        const auto &pairs = inputs.at("pairs");
        std::vector<std::vector<std::int64_t>> qIds, aIds;
        std::vector<int> pairQuestion, pairLabel;
        for (const auto &q : questions)
            qIds.push_back(q.at("ids").get<std::vector<std::int64_t>>());
        for (const auto &p : pairs) {
            aIds.push_back(p.at("answer_ids").get<std::vector<std::int64_t>>());
            pairQuestion.push_back(p.at("question").get<int>());
            pairLabel.push_back(p.at("label").get<int>());
            if (pairQuestion.back() < 0 || pairQuestion.back() >= static_cast<int>(qIds.size()))
                return makeError(req.inputsPath, "pair " + std::to_string(aIds.size() - 1) + " names question " +
                                                     std::to_string(pairQuestion.back()) + ", which does not exist");
        }
        std::size_t maxL = 1;
        for (const auto &v : qIds)
            maxL = std::max(maxL, v.size());
        for (const auto &v : aIds)
            maxL = std::max(maxL, v.size());

        for (const auto &sub : subs) {
            auto file = importFixtureModel(req, importGgsaCheckpoint, sub);
            if (!file)
                return file.error();
            auto parsed = nativeConfig(*file);
            if (!parsed)
                return parsed.error();
            const GgsaConfig cfg = parsed->first;
            auto net = ggsa::Net::fromTensors(cfg, file->tensors, torch::Device(torch::kCPU), req.stateDictPath);
            if (!net)
                return net.error();
            cfgs.push_back(cfg);
            const std::string pre = sub.empty() ? std::string() : sub + ".";
            auto one = [&](const std::vector<std::int64_t> &v) {
                for (auto id : v)
                    if (id < 0 || id >= cfg.vocabSize)
                        throw std::runtime_error("token id " + std::to_string(id) + " is outside the vocabulary");
                auto ids = torch::tensor(v, torch::kLong).unsqueeze(0);
                return std::make_pair(ids, torch::ones_like(ids, torch::kBool));
            };
            auto putSide = [&](const std::string &name, const ggsa::SideRecord &r, bool answer) {
                out[pre + name + ".x0"] = floatTensorData(r.x0[0]);
                out[pre + name + ".xbar"] = floatTensorData(r.xbar[0]);
                out[pre + name + ".gate"] = floatTensorData(r.gate[0]);
                out[pre + name + ".local_attn"] = floatTensorData(r.localAttn[0]);
                out[pre + name + ".global_attn"] = floatTensorData(r.globalAttn[0]);
                out[pre + name + ".Y"] = floatTensorData(r.Y[0]);
                out[pre + name + ".H"] = floatTensorData(r.H[0]);
                if (answer && r.cq.defined()) {
                    out[pre + name + ".c_q"] = floatTensorData(r.cq[0]);
                    out[pre + name + ".R_int"] = floatTensorData(r.Rint[0]);
                    out[pre + name + ".Y_int"] = floatTensorData(r.Yint[0]);
                }
            };
            std::vector<torch::Tensor> cosines, probs;
            for (std::size_t k = 0; k < aIds.size(); ++k) {
                auto [qi, qm] = one(qIds[static_cast<std::size_t>(pairQuestion[k])]);
                auto [ai, am] = one(aIds[k]);
                auto r = net->forward(qi, qm, ai, am, ggsa::AttentionKernel::Dense, false, true);
                // The blocked kernel must give the same block outputs (it is what scoring uses).
                auto blocked = net->forward(qi, qm, ai, am, ggsa::AttentionKernel::Blocked, false, false);
                if ((blocked.cosine - r.cosine).abs().max().item<double>() > 1e-5)
                    return makeError(req.dir, "the blocked group-attention kernel disagrees with the dense one");
                putSide("q" + std::to_string(pairQuestion[k]), r.q, false);
                putSide("a" + std::to_string(k), r.a, true);
                const std::string pk = pre + "pair" + std::to_string(k);
                out[pk + ".v_q"] = floatTensorData(r.vq[0]);
                out[pk + ".v_a"] = floatTensorData(r.va[0]);
                if (r.compAttn.defined())
                    out[pk + ".comp_attn"] = floatTensorData(r.compAttn[0]);
                out[pk + ".score_cos"] = floatTensorData(r.cosine[0]);
                out[pk + ".mlp_logits"] = floatTensorData(r.logits[0]);
                auto prob = torch::softmax(r.logits[0], 0);
                out[pk + ".prob"] = floatTensorData(prob);
                out[pk + ".s"] = floatTensorData(prob[1]);
                cosines.push_back(r.cosine[0]);
                probs.push_back(prob[1]);
            }
            if (inputs.contains("triples")) {
                std::vector<torch::Tensor> losses;
                for (const auto &t : inputs["triples"]) {
                    const auto pos = t.at("positive_pair").get<std::size_t>(), neg = t.at("negative_pair").get<std::size_t>();
                    if (pos >= cosines.size() || neg >= cosines.size())
                        return makeError(req.inputsPath, "a triple names a pair that does not exist");
                    losses.push_back(torch::clamp_min(config.value("hinge_margin", 0.1) - cosines[pos] + cosines[neg], 0.0));
                }
                out[pre + "loss_pairwise"] = floatTensorData(losses.empty() ? torch::zeros({0}) : torch::stack(losses));
            }
            auto s = torch::stack(probs).to(torch::kFloat64);
            auto y = torch::tensor(std::vector<double>(pairLabel.begin(), pairLabel.end()), torch::kFloat64);
            out[pre + "loss_pointwise"] = floatTensorData(-(y * torch::log(s) + (1 - y) * torch::log(1 - s)).sum());
        }
        layout = &cfgs.front();
        out["pe"] = floatTensorData(ggsa::Net::positionTable(*layout, static_cast<int>(maxL)));
        auto putLayout = [&](const std::string &name, int L) {
            const auto &c = *layout;
            std::vector<std::int64_t> gid, span, pg, sb;
            for (int h = 0; h < c.heads; ++h) {
                const int o = c.offsets[static_cast<std::size_t>(h)];
                for (int i = 0; i < L; ++i) {
                    gid.push_back(ggsaGroupId(i, o, c.groupSize));
                    const auto [s0, e0] = ggsaGroupSpan(i, L, o, c.groupSize);
                    span.push_back(s0);
                    span.push_back(e0);
                }
                pg.push_back(ggsaPairsGroup(L, o, c.groupSize));
                sb.push_back(ggsaSlotsBlocked(L, o, c.groupSize));
            }
            out[name + ".group_id"] = int64TensorData({c.heads, L}, gid);
            out[name + ".group_span"] = int64TensorData({c.heads, L, 2}, span);
            out[name + ".pairs_group"] = int64TensorData({c.heads}, pg);
            out[name + ".slots_blocked"] = int64TensorData({c.heads}, sb);
            out[name + ".pairs_global"] = int64TensorData({}, {static_cast<std::int64_t>(L) * L});
        };
        for (std::size_t i = 0; i < qIds.size(); ++i)
            putLayout("q" + std::to_string(i), static_cast<int>(qIds[i].size()));
        for (std::size_t k = 0; k < aIds.size(); ++k)
            putLayout("a" + std::to_string(k), static_cast<int>(aIds[k].size()));
        return {};
    });
}

} // namespace

Result<ModelFile> importGgsaCheckpoint(ImportRequest request)
{
    const std::string &ckpt = request.checkpointPath;
    auto parsed = importConfigOf(request, "ggsa");
    if (!parsed)
        return parsed.error();
    const json j = std::move(*parsed);
    if (!j.is_object())
        return makeError(request.configPath, "not a JSON object");
    std::string sub = request.submodel;
    json subConfig;
    if (j.contains("submodels") && j["submodels"].is_object() && !j["submodels"].empty()) {
        const auto &subs = j["submodels"];
        if (sub.empty()) {
            if (subs.size() > 1) {
                std::string names;
                for (const auto &[n, v] : subs.items())
                    names += (names.empty() ? "" : ", ") + n;
                return makeError(request.configPath, "the checkpoint holds the sub-models " + names +
                                                         ": choose one with --submodel");
            }
            sub = subs.begin().key();
        }
        if (!subs.contains(sub))
            return makeError(request.configPath, "no sub-model '" + sub + "' in \"submodels\"");
        subConfig = subs[sub];
    } else if (!sub.empty()) {
        return makeError(request.configPath, "--submodel " + sub + " given, but the configuration lists no \"submodels\"");
    }
    // The sub-model's tensors, prefix removed.
    TensorMap tensors;
    const std::string pre = sub.empty() ? std::string() : sub + ".";
    for (auto &[name, t] : request.tensors)
        if (name.compare(0, pre.size(), pre) == 0)
            tensors[name.substr(pre.size())] = std::move(t);
    if (tensors.empty())
        return makeError(ckpt, "no tensors named '" + pre + "*' in the checkpoint");
    if (!subConfig.is_object())
        subConfig = json::object();
    if (!subConfig.contains("interaction"))
        subConfig["interaction"] = tensors.count("a_enc.layers.0.inter_ffn.w1.weight") > 0;
    if (!subConfig.contains("composition"))
        subConfig["composition"] = j.value("composition", std::string(tensors.count("comp.w_am.weight") ? "attention" : "max"));
    if (!subConfig.contains("score") && j.contains("score"))
        subConfig["score"] = j["score"];
    auto cfg = configFromFixtureJson(j, subConfig, request.configPath);
    if (!cfg)
        return cfg.error();
    // Vocabulary: --vocab (one token per line) or the config's "vocab" list.
    std::vector<std::string> vocab;
    if (!request.vocabText.empty()) {
        std::string line;
        for (char ch : request.vocabText + "\n")
            if (ch == '\n') {
                if (!line.empty() && line.back() == '\r')
                    line.pop_back();
                if (!line.empty())
                    vocab.push_back(line);
                line.clear();
            } else {
                line += ch;
            }
    } else if (j.contains("vocab")) {
        try {
            vocab = j["vocab"].get<std::vector<std::string>>();
        } catch (const std::exception &e) {
            return makeError(request.configPath, std::string("\"vocab\": ") + e.what());
        }
    } else {
        return makeError(request.configPath, "no vocabulary: give --vocab or a \"vocab\" list in the configuration");
    }
    if (auto v = Vocabulary::fromTokens(vocab, request.vocabPath.empty() ? request.configPath : request.vocabPath); !v)
        return v.error();
    if (static_cast<int>(vocab.size()) != cfg->vocabSize)
        return makeError(request.configPath, "the vocabulary has " + std::to_string(vocab.size()) +
                                                 " entries but vocab_size is " + std::to_string(cfg->vocabSize));
    // Shapes and names are checked by building the network on the CPU once.
    if (auto net = ggsa::Net::fromTensors(*cfg, tensors, torch::Device(torch::kCPU), ckpt); !net)
        return net.error();
    const std::string name = request.name.empty() && !sub.empty() ? sub : importedModelName(request);
    request.tensors = std::move(tensors);
    return importedModelFile(request, modelConfigJson(*cfg, name, importedTrainingRecord(request, {{"submodel", sub}})),
                             std::move(vocab));
}

EncoderFamily ggsaFamily()
{
    EncoderFamily f;
    f.name = "ggsa";
    f.create = createGgsa;
    f.importCheckpoint = importGgsaCheckpoint;
    auto configOf = [](const ModelFile &file) -> Result<GgsaConfig> {
        auto parsed = nativeConfig(file);
        if (!parsed)
            return parsed.error();
        return parsed->first;
    };
    f.randomWeightsLike = randomWeightsWith(configOf, ggsa::Net::randomTensors);
    f.summary = summaryWith(configOf, [](const GgsaConfig &c) {
        std::string offs;
        for (int o : c.offsets)
            offs += (offs.empty() ? "" : ",") + std::to_string(o);
        return std::string(c.interaction ? "iGGSA" : "GGSA") + ", " + std::to_string(c.layers) + " blocks, d_model " +
               std::to_string(c.dModel) + ", " + std::to_string(c.heads) + " heads, groups of " +
               std::to_string(c.groupSize) + " (offsets " + offs + "), composition " + c.composition + ", vocabulary " +
               std::to_string(c.vocabSize);
    });
    f.computeFixture = computeGgsaFixture;
    return f;
}

} // namespace treelens
