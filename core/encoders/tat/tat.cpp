// The Tree Aggregation Transformer family: import and verify-fixture (see tat.h).
#include "core/encoders/tat/tat.h"

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
#include "core/encoders/tat/tatnet.h"
#include "core/formats/ptb.h"
#include "core/model/modelfile.h"
#include "core/runtime/device.h"

namespace treelens {

using nlohmann::json;

namespace {

constexpr const char *kFamily = "tree-aggregation-transformer";

struct Native {
    TatConfig config;
    TatTags tags;
    std::vector<std::string> classes;
};

Result<Native> nativeOf(const ModelFile &file)
{
    const std::string where = file.sourcePath.empty() ? "model" : file.sourcePath;
    try {
        const json j = json::parse(file.configJson);
        auto c = TatConfig::fromJson(j.at("model").dump());
        if (!c)
            return makeError(where, c.error());
        auto tags = TatTags::fromLabels(j.at("tags").get<std::vector<std::string>>(), where);
        if (!tags)
            return tags.error();
        if (static_cast<int>(tags->labels().size()) != c->tags)
            return makeError(where, "n_tags is " + std::to_string(c->tags) + " but \"tags\" lists " +
                                        std::to_string(tags->labels().size()));
        Native n{*c, std::move(*tags), j.value("classes", std::vector<std::string>{"irrelevant", "relevant"})};
        if (static_cast<int>(n.classes.size()) != c->classes)
            return makeError(where, "n_classes is " + std::to_string(c->classes) + " but \"classes\" lists " +
                                        std::to_string(n.classes.size()));
        return n;
    } catch (const std::exception &e) {
        return makeError(where, std::string("treelens.config: ") + e.what());
    }
}

/// The pair encoder: both sentences with their constituency trees (README §1-7).
class TatEncoder final : public BatchedEncoder {
public:
    TatEncoder(tat::Net net, Native native, const std::vector<std::string> &vocab, EncoderInfo info, const DeviceConfig &device)
        : BatchedEncoder(std::move(info), device), m_net(std::move(net)), m_native(std::move(native)),
          m_vocab(Vocabulary::lenient(vocab))
    {
    }

    Result<std::vector<Analysis>> analyze(const std::vector<EncoderInput> &batch, const AnalyzeOptions &options,
                                          const RunControl *control) override
    {
        if (auto s = checkAblation(options.ablate); !s)
            return s.error();
        const TatConfig &c = m_native.config;
        std::vector<tat::PairInput> pairs;
        for (std::size_t i = 0; i < batch.size(); ++i) {
            auto pair = pairOf(batch[i], i);
            if (!pair)
                return pair.error();
            pairs.push_back(std::move(*pair));
        }
        torch::NoGradGuard ng;
        const bool record = options.attention;
        return collectBatches<std::vector<Analysis>>(pairs.size(), control, {}, [&](std::size_t start, std::size_t end, std::vector<Analysis> &out) -> Status {
            std::vector<tat::PairInput> chunk(pairs.begin() + static_cast<std::ptrdiff_t>(start),
                                              pairs.begin() + static_cast<std::ptrdiff_t>(end));
            auto res = m_net.forward(chunk, record, false, options.ablate);
            auto probs = torch::softmax(res.prediction, -1).to(torch::kCPU);
            // The sequential model has no trees' vectors: its sentence vector is the LM's <s> output.
            auto pairVec = c.sequential() ? res.x.select(1, 0).to(torch::kCPU) : res.pairVec.to(torch::kCPU);
            const int streams = c.syntactic() ? 2 : 1;
            for (std::size_t i = start; i < end; ++i) {
                const auto b = static_cast<std::int64_t>(i - start);
                Analysis sides[2];
                for (int s = 0; s < 2; ++s) {
                    Analysis &a = sides[s];
                    a.family = kFamily;
                    a.input = InputKind::WordsWithConstituency;
                    a.words = s == 0 ? batch[i].words : batch[i].secondWords;
                    a.tokens = a.words;
                    for (std::size_t k = 0; k < a.words.size(); ++k)
                        a.wordToken.push_back(static_cast<int>(k));
                    a.layers = 1;
                    for (const HeadAblation &h : options.ablate)
                        a.ablated.push_back({h.layer, h.head});
                    // Heads 1..H: the semantic stream's; H+1..2H: the syntactic stream's (nodeAttention's rows).
                    a.heads = streams * c.heads;
                    const TatTree &tree = chunk[static_cast<std::size_t>(b)].side[s].tree;
                    const auto N = static_cast<int>(tree.nodes.size());
                    NamedArray level{{N}, {}}, span{{N, 2}, {}}, len{{N}, {}};
                    for (const auto &n : tree.nodes) {
                        level.data.push_back(static_cast<float>(n.level));
                        span.data.push_back(static_cast<float>(n.start));
                        span.data.push_back(static_cast<float>(n.end));
                        len.data.push_back(static_cast<float>(n.length()));
                    }
                    a.gates[overlay::kAggregationNodeLevel] = level;
                    a.gates[overlay::kAggregationNodeSpan] = span;
                    a.gates[overlay::kAggregationNodeLength] = len;
                    // The root's span embeddings [w^e; w^n] are the sentence vector (the sequential model: <s>, on the question).
                    if (c.sequential()) {
                        if (s == 0)
                            a.embedding = floatTensorData(pairVec[b]).toFloat();
                        continue;
                    }
                    const auto off = static_cast<std::int64_t>(s) * c.rootDim();
                    a.embedding = floatTensorData(pairVec[b].slice(0, off, off + c.rootDim())).toFloat();
                    if (record) {
                        const auto &r = res.sides[static_cast<std::size_t>(b)][static_cast<std::size_t>(s)];
                        a.gates[overlay::kAggregationAttentionSemantic] = namedArrayOf(r.attnSem);
                        if (streams == 2)
                            a.gates[overlay::kAggregationAttentionSyntactic] = namedArrayOf(r.attnSyn);
                        a.gates[overlay::kAggregationNodeNormSemantic] = namedArrayOf(r.nodeSem.norm(2, -1));
                        if (streams == 2)
                            a.gates[overlay::kAggregationNodeNormSyntactic] = namedArrayOf(r.nodeSyn.norm(2, -1));
                        // Per node: its attention over its children (start and end tokens left out), per head of each stream.
                        for (int v = 0; v < N; ++v) {
                            NodeAttention na;
                            na.node = v;
                            const TatNode &node = tree.nodes[static_cast<std::size_t>(v)];
                            for (const auto &ch : node.children)
                                na.targets.push_back(ch.node ? ch.index : -1 - ch.index); // phrase id, or -(word + 1)
                            for (const auto *attn : {&r.attnSem, &r.attnSyn})
                                for (int h = 0; h < c.heads && (attn == &r.attnSem || streams == 2); ++h) {
                                    std::vector<float> w;
                                    for (std::size_t k = 0; k < node.children.size(); ++k)
                                        w.push_back((*attn)[v][h][static_cast<std::int64_t>(k) + 1].item<float>());
                                    na.weights.push_back(std::move(w));
                                }
                            a.nodeAttention.push_back(std::move(na));
                        }
                    }
                }
                sides[0].prediction = predictionOf(floatTensorData(probs[b]).toFloat(), m_native.classes, PredictionScore::Positive);
                sides[0].second.push_back(std::move(sides[1]));
                out.push_back(std::move(sides[0]));
            }
            return {};
        });
    }

    Result<std::vector<std::vector<float>>> embed(const std::vector<EncoderInput> &batch, const EmbedOptions &,
                                                  const RunControl *control) override
    {
        AnalyzeOptions o;
        o.attention = false;
        return embedByAnalysis(batch, control, o, [](const Analysis &a) {
            std::vector<float> pair = a.embedding; // both sentences' vectors, side by side
            pair.insert(pair.end(), a.second.front().embedding.begin(), a.second.front().embedding.end());
            return pair;
        });
    }

    Result<std::vector<std::vector<Matrix>>> layerStates(const std::vector<EncoderInput> &, const RunControl *) override
    {
        return makeError(m_info.name.empty() ? kFamily : m_info.name,
                         "a tree-aggregation-transformer has no per-word layer states (its units are the trees' phrases)");
    }

    /// Integrated Gradients / gradient x input over the language model's input embeddings
    /// (`<s> q </s></s> a </s>`, one sequence): the pair's score (p of the positive label,
    /// what score-pairs ranks by), or log p(target). Each sentence's separators are its specials.
    Result<std::vector<Attribution>> explain(const std::vector<EncoderInput> &batch, const ExplainOptions &options,
                                             const RunControl *control) override
    {
        if (auto s = checkAblation(options.ablate); !s)
            return s.error();
        if (options.method == ExplainOptions::Method::Rollout)
            return Error{"attention rollout is computed from the analysis, not by the family"};
        const TatConfig &c = m_native.config;
        const auto &labels = m_native.classes;
        auto baseline = baselineEmbedding(options.baseline, m_net.named().at("lm.tok_emb.weight"), c.padId, m_vocab);
        if (!baseline)
            return baseline.error();
        auto targetOrError = targetIndex(labels, options.target);
        if (!targetOrError)
            return targetOrError.error();
        const std::int64_t target = *targetOrError, positive = labels.size() > 1 ? 1 : 0; // PredictionScore::Positive
        std::vector<Attribution> out;
        for (std::size_t i = 0; i < batch.size(); ++i) {
            const auto &in = batch[i];
            auto pair = pairOf(in, i);
            if (!pair)
                return pair.error();
            Attribution a;
            a.target = target < 0 ? "score" : labels[static_cast<std::size_t>(target)];
            a.quantity = target < 0 ? "pair score p(" + labels[static_cast<std::size_t>(positive)] + ")" : "log p(" + a.target + ")";
            auto per = integrateGradients(
                [&](std::int64_t copies) {
                    const auto res = m_net.forward(std::vector<tat::PairInput>(static_cast<std::size_t>(copies), *pair), false, false, options.ablate);
                    return target < 0 ? torch::softmax(res.prediction, -1).select(1, positive)
                                      : torch::log_softmax(res.prediction, -1).select(1, target);
                },
                {*baseline}, options, a, control);
            if (!per)
                return per.error();
            const std::vector<double> &token = (*per)[0];
            auto at = [&](int position) {
                return position >= 0 && static_cast<std::size_t>(position) < token.size() ? token[static_cast<std::size_t>(position)] : 0.0;
            };
            for (int s = 0; s < 2; ++s) {
                const tat::SideInput &side = pair->side[s];
                SideAttribution sa;
                sa.words = s == 0 ? in.words : in.secondWords;
                sa.tokens.push_back(s == 0 ? "<s>" : "</s>");
                sa.token.push_back(at(side.startPosition));
                for (std::size_t k = 0; k < sa.words.size(); ++k) {
                    sa.tokens.push_back(sa.words[k]);
                    sa.word.push_back(at(side.wordPositions.at(k)));
                    sa.token.push_back(sa.word.back());
                }
                sa.tokens.push_back("</s>");
                sa.token.push_back(at(side.endPosition));
                sa.specials = sa.token.front() + sa.token.back();
                a.sides.push_back(std::move(sa));
            }
            out.push_back(std::move(a));
        }
        return out;
    }

private:
    /// Head ablation of the aggregation layer (the only layer with heads: layer 0), its heads
    /// numbered as the views number them (semantic 0..H-1, then syntactic H..2H-1); the
    /// sequential model has no aggregation layer, so nothing to switch off.
    Status checkAblation(const std::vector<HeadAblation> &ablate) const
    {
        if (ablate.empty())
            return {};
        const TatConfig &c = m_native.config;
        if (c.sequential())
            return makeError("--ablate", (m_info.name.empty() ? std::string("this model") : m_info.name) +
                                             " is the sequential variant: it has no aggregation layer whose heads could be switched off",
                             ErrorCode::Refused);
        EncoderInfo shown = m_info;
        shown.heads = (c.syntactic() ? 2 : 1) * c.heads;
        return checkHeadAblation(shown, ablate);
    }

    /// Input i as the model reads it: both sentences, their constituency trees, the LM layout.
    Result<tat::PairInput> pairOf(const EncoderInput &in, std::size_t i) const
    {
        return tat::pairInputOf(in.words, in.constituency ? &*in.constituency : nullptr, in.secondWords,
                                in.secondConstituency ? &*in.secondConstituency : nullptr, m_vocab, m_native.tags,
                                m_native.config, "pair " + std::to_string(i + 1));
    }

    tat::Net m_net;
    Native m_native;
    Vocabulary m_vocab;
};

Result<std::unique_ptr<Encoder>> createTat(const ModelFile &file, const DeviceConfig &device)
{
    auto native = nativeOf(file);
    if (!native)
        return native.error();
    const TatConfig &c = native->config;
    auto opened = networkFor<tat::Net>(file, c, c.lmVocab, "lm.vocab_size", device);
    if (!opened)
        return opened.error();
    EncoderInfo info = commonEncoderInfo(file, kFamily, "pair-ranking", opened->second.str(), device,
                                         {1, c.heads, c.dSem + c.dSyn, c.dFFSem, c.lmVocab, c.lmMaxPositions});
    info.input = InputKind::WordsWithConstituency;
    info.pairInput = true;
    info.labels = native->classes;
    info.outputs.gates = true;
    info.outputs.nodeAttention = true;
    info.outputs.embedding = true;
    info.outputs.prediction = true;
    return std::unique_ptr<Encoder>(new TatEncoder(std::move(opened->first), std::move(*native), file.vocab, std::move(info), device));
}

/// The side of a fixture pair as TatTree, read from its PTB string with the real reader.
Result<TatTree> fixtureTree(const json &side, const Native &n, const std::string &where)
{
    const std::string ptb = side.at("ptb").get<std::string>();
    auto trees = readPtb(ptb, where);
    if (!trees)
        return trees.error();
    if (trees->size() != 1)
        return makeError(where, "a pair side holds " + std::to_string(trees->size()) + " trees, not one");
    auto t = tatTree(trees->front(), n.tags, n.config);
    if (!t)
        return makeError(where, t.error());
    return t;
}

Result<TensorMap> computeTatFixture(const FixtureRequest &req)
{
    auto file = importFixtureModel(req, importTatCheckpoint);
    if (!file)
        return file.error();
    auto native = nativeOf(*file);
    if (!native)
        return native.error();
    auto net = tat::Net::fromTensors(native->config, file->tensors, torch::Device(torch::kCPU), req.stateDictPath);
    if (!net)
        return net.error();
    return runFixture(req, [&](const json &, const json &inputs, TensorMap &out) -> Status {
        std::vector<tat::PairInput> pairs;
        for (std::size_t i = 0; i < inputs.at("pairs").size(); ++i) {
            const json &pr = inputs["pairs"][i];
            const std::string where = req.inputsPath + ": pair " + std::to_string(i);
            auto q = fixtureTree(pr.at("question"), *native, where + " question");
            auto a = fixtureTree(pr.at("answer"), *native, where + " answer");
            if (!q || !a)
                return q ? a.error() : q.error();
            auto pair = tat::makePair(pr["question"].at("token_ids").get<std::vector<std::int64_t>>(), std::move(*q),
                                      pr["answer"].at("token_ids").get<std::vector<std::int64_t>>(), std::move(*a), native->config);
            if (pair.ids != pr.at("lm_input_ids").get<std::vector<std::int64_t>>())
                return makeError(where, "the LM input built from the token ids differs from lm_input_ids");
            for (auto id : pair.ids)
                if (id < 0 || id >= native->config.lmVocab)
                    return makeError(where, "token id " + std::to_string(id) + " is outside the vocabulary");
            if (static_cast<int>(pair.ids.size()) > native->config.lmMaxPositions)
                return makeError(where, "the pair is longer than the LM's position table");
            pairs.push_back(std::move(pair));
        }
        auto res = net->forward(pairs, true);
        std::vector<float> scores, scoresRes;
        for (std::size_t b = 0; b < pairs.size(); ++b) {
            const std::string pre = "p" + std::to_string(b) + ".";
            const auto T = static_cast<std::int64_t>(pairs[b].ids.size());
            const auto rows = torch::indexing::Slice(0, T);
            const auto bi = static_cast<std::int64_t>(b);
            out[pre + "lm.input_ids"] = int64TensorData({T}, pairs[b].ids);
            out[pre + "lm.emb"] = floatTensorData(res.lmEmb[bi].index({rows}));
            for (std::size_t l = 0; l < res.lmLayers.size(); ++l)
                out[pre + "lm.layer" + std::to_string(l) + ".out"] = floatTensorData(res.lmLayers[l][bi].index({rows}));
            out[pre + "lm.x"] = floatTensorData(res.x[bi].index({rows}));
            for (int s = 0; s < 2; ++s) {
                const std::string sp = pre + (s == 0 ? "q." : "a.");
                const auto &tree = pairs[b].side[s].tree;
                const auto &r = res.sides[b][static_cast<std::size_t>(s)];
                const auto N = static_cast<std::int64_t>(tree.nodes.size());
                std::vector<std::int64_t> level, len, span;
                for (const auto &n : tree.nodes) {
                    level.push_back(n.level);
                    len.push_back(n.length());
                    span.push_back(n.start);
                    span.push_back(n.end);
                }
                out[sp + "node_level"] = int64TensorData({N}, level);
                out[sp + "node_len"] = int64TensorData({N}, len);
                out[sp + "node_span"] = int64TensorData({N, 2}, span);
                auto ints = [](const torch::Tensor &t) {
                    auto c = t.contiguous();
                    std::vector<std::int64_t> v(c.data_ptr<std::int64_t>(), c.data_ptr<std::int64_t>() + c.numel());
                    return int64TensorData(c.sizes().vec(), v);
                };
                out[sp + "node_in_kind"] = ints(r.inKind);
                out[sp + "node_in_src"] = ints(r.inSrc);
                out[sp + "node_in_tag"] = ints(r.inTag);
                out[sp + "node_in_sem"] = floatTensorData(r.inSem);
                out[sp + "node_in_syn"] = floatTensorData(r.inSyn);
                out[sp + "attn_sem"] = floatTensorData(r.attnSem);
                out[sp + "attn_syn"] = floatTensorData(r.attnSyn);
                out[sp + "attn_out_sem"] = floatTensorData(r.outSem);
                out[sp + "attn_out_syn"] = floatTensorData(r.outSyn);
                out[sp + "node_sem"] = floatTensorData(r.nodeSem);
                out[sp + "node_syn"] = floatTensorData(r.nodeSyn);
                out[sp + "sent_sem"] = floatTensorData(r.nodeSem[N - 1]);
                out[sp + "sent_syn"] = floatTensorData(r.nodeSyn[N - 1]);
            }
            auto probs = torch::softmax(res.logits[bi], -1), probsRes = torch::softmax(res.logitsRes[bi], -1);
            out[pre + "pair_vec"] = floatTensorData(res.pairVec[bi]);
            out[pre + "logits"] = floatTensorData(res.logits[bi]);
            out[pre + "probs"] = floatTensorData(probs);
            out[pre + "score"] = floatTensorData(probs[1]);
            out[pre + "pair_vec_res"] = floatTensorData(res.pairVecRes[bi]);
            out[pre + "logits_res"] = floatTensorData(res.logitsRes[bi]);
            out[pre + "probs_res"] = floatTensorData(probsRes);
            out[pre + "score_res"] = floatTensorData(probsRes[1]);
            scores.push_back(probs[1].item<float>());
            scoresRes.push_back(probsRes[1].item<float>());
        }
        const auto P = static_cast<std::int64_t>(pairs.size());
        out["scores"] = TensorData::fromFloat({P}, scores);
        out["scores_res"] = TensorData::fromFloat({P}, scoresRes);
        return {};
    });
}

} // namespace

std::string tatConfigJson(const TatConfig &config, const std::string &name, const std::vector<std::string> &tags,
                          const std::vector<std::string> &classes, const std::string &trainingJson)
{
    return json{{"family", kFamily},
                {"task", "pair-ranking"},
                {"name", name},
                {"model", json::parse(config.toJson())},
                {"tags", tags},
                {"classes", classes},
                {"training", json::parse(trainingJson)}}
        .dump();
}

Result<ModelFile> importTatCheckpoint(ImportRequest request)
{
    const std::string &ckpt = request.checkpointPath;
    auto parsed = importConfigOf(request, kFamily);
    if (!parsed)
        return parsed.error();
    const json j = std::move(*parsed);
    try {
        if (j.contains("tat")) {
            const json &t = j["tat"];
            for (const auto &[key, want] : std::vector<std::pair<std::string, json>>{
                     {"ffn_activation", "relu"}, {"layer_norm", false}, {"qkv_bias", false}})
                if (t.contains(key) && t[key] != want)
                    return makeError(request.configPath, "tat." + key + " " + t[key].dump() + " is not supported (only " + want.dump() + ")");
        }
    } catch (const std::exception &e) {
        return makeError(request.configPath, std::string("not valid JSON: ") + e.what());
    }
    auto cfg = TatConfig::fromJson(j.dump());
    if (!cfg)
        return makeError(request.configPath, cfg.error());
    std::vector<std::string> vocab, tags, classes;
    try {
        vocab = j.at("vocab").get<std::vector<std::string>>();
        tags = j.at("tags").get<std::vector<std::string>>();
        classes = j.contains("classifier") ? j["classifier"].value("classes", std::vector<std::string>{"irrelevant", "relevant"})
                                           : j.value("classes", std::vector<std::string>{"irrelevant", "relevant"});
    } catch (const std::exception &e) {
        return makeError(request.configPath, e.what());
    }
    if (static_cast<int>(vocab.size()) != cfg->lmVocab)
        return makeError(request.configPath, "\"vocab\" lists " + std::to_string(vocab.size()) + " tokens but lm.vocab_size is " +
                                                 std::to_string(cfg->lmVocab));
    if (static_cast<int>(tags.size()) != cfg->tags)
        return makeError(request.configPath, "\"tags\" lists " + std::to_string(tags.size()) + " tags but tat.n_tags is " +
                                                 std::to_string(cfg->tags));
    if (auto t = TatTags::fromLabels(tags, request.configPath); !t)
        return t.error();
    if (auto net = tat::Net::fromTensors(*cfg, request.tensors, torch::Device(torch::kCPU), ckpt); !net)
        return net.error();
    return importedModelFile(request, tatConfigJson(*cfg, importedModelName(request), tags, classes, importedTrainingRecord(request).dump()),
                             std::move(vocab));
}

EncoderFamily tatFamily()
{
    EncoderFamily f;
    f.name = kFamily;
    f.create = createTat;
    f.importCheckpoint = importTatCheckpoint;
    f.randomWeightsLike = randomWeightsWith(nativeOf, [](const Native &n, unsigned seed) { return tat::Net::randomTensors(n.config, seed); });
    f.summary = summaryWith(nativeOf, [](const Native &n) {
        const auto &c = n.config;
        return "LM " + std::to_string(c.lmLayers) + " layers, d_lm " + std::to_string(c.lmDModel) + "; TAT d_sem " +
               std::to_string(c.dSem) + ", d_syn " + std::to_string(c.dSyn) + ", " + std::to_string(c.heads) +
               " heads per stream, " + std::to_string(c.tags) + " tags, vocabulary " + std::to_string(c.lmVocab);
    });
    f.computeFixture = computeTatFixture;
    return f;
}

} // namespace treelens
