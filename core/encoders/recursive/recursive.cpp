// The recursive tree models' family: import, encoder, verify-fixture (see recursive.h).
#include "core/encoders/recursive/recursive.h"


#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "core/data/overlays.h"
#include "core/encoders/common/attribution.h"
#include "core/encoders/common/batchedencoder.h"
#include "core/encoders/common/familykit.h"
#include "core/encoders/common/fixturerunner.h"
#include "core/encoders/common/noablation.h"
#include "core/encoders/common/torchtensors.h"
#include "core/encoders/common/vocabulary.h"
#include "core/encoders/recursive/recnet.h"
#include "core/formats/ptb.h"
#include "core/model/modelfile.h"
#include "core/runtime/device.h"

namespace treelens {

using nlohmann::json;

namespace {

constexpr const char *kFamily = "recursive-tree-transformer";
constexpr RecModel kAllModels[] = {RecModel::Ctt, RecModel::Dtt, RecModel::Dtte, RecModel::TreeLstmChildSum,
                                   RecModel::TreeLstmBinary};

std::int64_t unkIdOf(const std::vector<std::string> &vocab)
{
    for (std::size_t i = 0; i < vocab.size(); ++i)
        if (vocab[i] == "<unk>")
            return static_cast<std::int64_t>(i);
    return std::min<std::int64_t>(1, static_cast<std::int64_t>(vocab.size()) - 1);
}

/// One side's Analysis from what encode() recorded.
Analysis sideAnalysis(const RecConfig &c, const rec::Sentence &s, const rec::SentenceRecord &r, const std::vector<std::string> &words,
                      const rec::Net &net, bool record)
{
    Analysis a;
    a.family = kFamily;
    a.input = c.dependency() ? InputKind::WordsWithDependency : InputKind::WordsWithConstituency;
    a.words = words;
    a.tokens = words;
    for (std::size_t k = 0; k < words.size(); ++k)
        a.wordToken.push_back(static_cast<int>(k));
    a.layers = 1;
    a.heads = c.treeLstm() ? 1 : c.branches;
    a.embedding = floatTensorData(r.root).toFloat();
    const auto N = static_cast<int>(s.tree.nodes.size());
    NamedArray height{{N}, {}}, norm{{N}, {}};
    const torch::Tensor norms = r.states.numel() > 0 ? r.states.norm(2, -1).to(torch::kCPU) : torch::zeros({0});
    for (int v = 0; v < N; ++v) {
        height.data.push_back(static_cast<float>(s.tree.nodes[static_cast<std::size_t>(v)].height));
        norm.data.push_back(norms[v].item<float>());
    }
    a.gates[overlay::kCompositionNodeHeight] = height;
    a.gates[overlay::kCompositionNodeNorm] = norm;
    if (c.multiBranch() && !c.treeLstm()) {
        const std::string pre = c.prefix();
        a.gates[overlay::kCompositionBranchKappa] = namedArrayOf(net.parameters().at(pre + "mb.kappa"));
        a.gates[overlay::kCompositionBranchAlpha] = namedArrayOf(net.parameters().at(pre + "mb.alpha"));
    }
    if (!record)
        return a;
    const bool headRow = c.model == RecModel::Dtt || c.model == RecModel::Dtte;
    for (int v = 0; v < N; ++v) {
        const RecNode &node = s.tree.nodes[static_cast<std::size_t>(v)];
        const rec::NodeRecord &nr = r.nodes[static_cast<std::size_t>(v)];
        NodeAttention na;
        na.node = v;
        na.start = node.start;
        na.end = node.end;
        na.headWord = node.headWord;
        na.label = node.label;
        na.norm = norm.data[static_cast<std::size_t>(v)];
        if (headRow)
            na.targets.push_back(-1 - node.headWord);
        for (const RecChild &ch : node.children)
            na.targets.push_back(ch.node ? ch.index : -1 - ch.index);
        // One weight per member: the attention it receives, averaged over the query rows.
        torch::Tensor attn = nr.attn.to(torch::kCPU);
        if (c.treeLstm()) {
            const torch::Tensor row = attn.dim() == 1 ? attn : attn.mean(0);
            na.weights.push_back(floatTensorData(row).toFloat());
            na.arrays["alpha"] = namedArrayOf(attn);
            na.arrays[overlay::kNodeCellGates] = namedArrayOf(nr.gates);
            na.arrays[overlay::kNodeForgetGates] = namedArrayOf(nr.f);
            na.arrays["h_att"] = namedArrayOf(nr.hAtt);
        } else {
            const torch::Tensor mean = attn.mean(1); // [branch, key]
            for (std::int64_t b = 0; b < mean.size(0); ++b)
                na.weights.push_back(floatTensorData(mean[b]).toFloat());
            na.arrays[overlay::kNodeMemberAttention] = namedArrayOf(attn);
            if (c.model == RecModel::Dtte) {
                na.arrays[overlay::kNodeEdgeForwardAttention] = namedArrayOf(nr.edgeFwdAttn);
                na.arrays[overlay::kNodeEdgeBackwardAttention] = namedArrayOf(nr.edgeBwdAttn);
            }
        }
        a.nodeAttention.push_back(std::move(na));
    }
    return a;
}

/// Relatedness scores Σ i·p_i; the other tasks the chosen label's probability.
Prediction recPrediction(const RecConfig &c, const torch::Tensor &logits)
{
    return predictionOf(floatTensorData(torch::softmax(logits, -1).to(torch::kCPU)).toFloat(), c.classes,
                        c.task == "relatedness" ? PredictionScore::Expected : PredictionScore::Best);
}

class RecursiveEncoder final : public BatchedEncoder {
public:
    RecursiveEncoder(rec::Net net, const std::vector<std::string> &vocab, EncoderInfo info, const DeviceConfig &device)
        : BatchedEncoder(std::move(info), device), m_net(std::move(net)), m_vocab(Vocabulary::lenient(vocab)), m_unk(unkIdOf(vocab))
    {
    }

    Result<std::vector<Analysis>> analyze(const std::vector<EncoderInput> &batch, const AnalyzeOptions &options,
                                          const RunControl *control) override
    {
        if (auto st = checkAblation(options.ablate); !st)
            return st.error();
        const RecConfig &c = m_net.config();
        std::vector<rec::Sentence> left, right;
        for (std::size_t i = 0; i < batch.size(); ++i) {
            auto sides = sentencesOf(batch[i], i);
            if (!sides)
                return sides.error();
            left.push_back(std::move(sides->first));
            if (c.pair())
                right.push_back(std::move(sides->second));
        }
        torch::NoGradGuard ng;
        return collectBatches<std::vector<Analysis>>(left.size(), control, {}, [&](std::size_t start, std::size_t end, std::vector<Analysis> &out) -> Status {
            std::vector<const rec::Sentence *> l, r;
            for (std::size_t i = start; i < end; ++i) {
                l.push_back(&left[i]);
                if (c.pair())
                    r.push_back(&right[i]);
            }
            if (c.pair()) {
                const auto res = m_net.forwardPairs(l, r, options.attention, rec::Order::LevelBatched, "", options.ablate);
                for (std::size_t i = start; i < end; ++i) {
                    const std::size_t b = i - start;
                    Analysis a = sideAnalysis(c, left[i], res.a.sentences[b], batch[i].words, m_net, options.attention);
                    if (!batch[i].secondWords.empty())
                        a.second.push_back(sideAnalysis(c, right[i], res.b.sentences[b], batch[i].secondWords, m_net, options.attention));
                    a.prediction = recPrediction(c, res.head.logits[static_cast<std::int64_t>(b)]);
                    markAblated(a, options.ablate);
                    out.push_back(std::move(a));
                }
            } else {
                const auto enc = m_net.encode(l, torch::Tensor(), options.attention, rec::Order::LevelBatched, "", options.ablate);
                const auto head = m_net.head(enc.roots, torch::Tensor());
                for (std::size_t i = start; i < end; ++i) {
                    const std::size_t b = i - start;
                    Analysis a = sideAnalysis(c, left[i], enc.sentences[b], batch[i].words, m_net, options.attention);
                    a.prediction = recPrediction(c, head.logits[static_cast<std::int64_t>(b)]);
                    markAblated(a, options.ablate);
                    out.push_back(std::move(a));
                }
            }
            return {};
        });
    }

    Result<std::vector<std::vector<float>>> embed(const std::vector<EncoderInput> &batch, const EmbedOptions &,
                                                  const RunControl *control) override
    {
        AnalyzeOptions o;
        o.attention = false;
        return embedByAnalysis(batch, control, o, [](const Analysis &a) { return a.embedding; });
    }

    /// Per-word features for probing: layer 0 = each word as a leaf (the Tree Transformers' word
    /// vector e_t, the Tree-LSTMs' leaf state h), layer 1 = the word's node state: the dependency
    /// models' state of the token's subtree (a token without dependents keeps its leaf), the
    /// constituency models' state of the smallest constituent holding the word (DTT + edges: the
    /// word traversal r_u; Tree-LSTMs: h). A pair model reads each sentence against itself.
    Result<std::vector<std::vector<Matrix>>> layerStates(const std::vector<EncoderInput> &batch, const RunControl *control) override
    {
        const RecConfig &c = m_net.config();
        std::vector<rec::Sentence> sents;
        for (std::size_t i = 0; i < batch.size(); ++i) {
            const auto &in = batch[i];
            auto t = recTreeFor(c, in.words.size(), in.dependency ? &*in.dependency : nullptr, in.constituency ? &*in.constituency : nullptr,
                             "sentence " + std::to_string(i + 1));
            if (!t)
                return t.error();
            sents.push_back({m_vocab.ids(in.words, Vocabulary::Match::AnyForm, m_unk), std::move(*t)});
        }
        torch::NoGradGuard ng;
        std::vector<std::vector<Matrix>> out;
        auto status = forEachBatch(sents.size(), control, [&](std::size_t start, std::size_t end) -> Status {
            std::vector<const rec::Sentence *> chunk;
            for (std::size_t i = start; i < end; ++i)
                chunk.push_back(&sents[i]);
            const bool cross = c.treeLstm() && c.query == "cross";
            const auto enc = m_net.encode(chunk, cross ? m_net.sentenceVectors(chunk) : torch::Tensor(), false);
            for (std::size_t k = 0; k < chunk.size(); ++k) {
                const RecTree &tree = chunk[k]->tree;
                const rec::SentenceRecord &r = enc.sentences[k];
                const torch::Tensor leaf = c.treeLstm() ? r.leafGates[4] : r.words;
                torch::Tensor node = leaf.clone();
                for (std::size_t w = 0; w < static_cast<std::size_t>(tree.words); ++w) {
                    int v = -1;
                    if (tree.dependency) {
                        v = tree.tokenNode[w];
                    } else {
                        // The smallest constituent holding the word: the node that has it as a child.
                        for (std::size_t n = 0; n < tree.nodes.size() && v < 0; ++n)
                            for (const RecChild &ch : tree.nodes[n].children)
                                if (!ch.node && ch.index == static_cast<int>(w))
                                    v = static_cast<int>(n);
                    }
                    if (v >= 0)
                        node[static_cast<std::int64_t>(w)] = r.states[v];
                }
                out.push_back({matrixOf(leaf), matrixOf(node)});
            }
            return {};
        }, "layerStates");
        if (!status)
            return status.error();
        return out;
    }

    /// Integrated Gradients / gradient x input over the word embeddings of both trees: a
    /// relatedness model's score (the expected relatedness score-pairs ranks by), else log
    /// p(target) (default: the predicted label).
    Result<std::vector<Attribution>> explain(const std::vector<EncoderInput> &batch, const ExplainOptions &options,
                                             const RunControl *control) override
    {
        if (auto st = checkAblation(options.ablate); !st)
            return st.error();
        if (options.method == ExplainOptions::Method::Rollout)
            return Error{"attention rollout is computed from the analysis, not by the family"};
        const RecConfig &c = m_net.config();
        const int pad = m_vocab.padId() >= 0 ? m_vocab.padId() : m_vocab.id("<pad>"); // the trainer's vocabularies say <pad>
        // The multi-branch models layer-normalise each word's vector with its branch's output: f jumps at
        // the zero vector, so their default baseline is the unknown word.
        ExplainOptions opt = options;
        if (opt.baseline.empty() && c.multiBranch() && !c.treeLstm() && m_unk >= 0 &&
            m_unk < m_vocab.size())
            opt.baseline = m_vocab.token(static_cast<int>(m_unk));
        auto baseline = baselineEmbedding(opt.baseline, m_net.parameters().at("embed.word.weight"), pad, m_vocab);
        if (!baseline)
            return baseline.error();
        auto targetOrError = targetIndex(c.classes, options.target);
        if (!targetOrError)
            return targetOrError.error();
        const bool cross = c.treeLstm() && c.query == "cross";
        std::vector<Attribution> out;
        for (std::size_t i = 0; i < batch.size(); ++i) {
            auto sides = sentencesOf(batch[i], i);
            if (!sides)
                return sides.error();
            // The logits of `copies` copies of the input, each side's words looked up under its side.
            auto logitsOf = [&](std::int64_t copies) {
                AttributionScope *scope = AttributionScope::current();
                auto side = [&](int s) {
                    if (scope)
                        scope->setSide(s);
                };
                const std::vector<const rec::Sentence *> l(static_cast<std::size_t>(copies), &sides->first),
                    r(static_cast<std::size_t>(copies), &sides->second);
                if (!c.pair()) {
                    side(0);
                    return m_net.head(m_net.encode(l, torch::Tensor(), false, rec::Order::LevelBatched, "", options.ablate).roots, torch::Tensor()).logits;
                }
                // As forwardPairs, each side's sentence vector read on its own (the LSTM is row-wise).
                torch::Tensor sa, sb;
                if (cross) {
                    side(0);
                    sa = m_net.sentenceVectors(l);
                    side(1);
                    sb = m_net.sentenceVectors(r);
                }
                side(0);
                const auto a = m_net.encode(l, sb, false, rec::Order::LevelBatched, "", options.ablate);
                side(1);
                const auto b = m_net.encode(r, sa, false, rec::Order::LevelBatched, "", options.ablate);
                return m_net.head(a.roots, b.roots).logits;
            };
            std::int64_t target = *targetOrError;
            const bool score = target < 0 && c.task == "relatedness";
            if (target < 0 && !score) {
                torch::NoGradGuard ng;
                target = logitsOf(1).argmax(-1).item<std::int64_t>();
            }
            Attribution a;
            a.target = score ? "score" : c.classes[static_cast<std::size_t>(target)];
            a.quantity = score ? "relatedness score (expected class)" : "log p(" + a.target + ")";
            const int sideCount = c.pair() ? 2 : 1;
            auto per = integrateGradients(
                [&](std::int64_t copies) {
                    const auto logits = logitsOf(copies);
                    if (!score)
                        return torch::log_softmax(logits, -1).select(1, target);
                    const auto k = torch::arange(1, logits.size(1) + 1, logits.options());
                    return (torch::softmax(logits, -1) * k).sum(-1); // Σ (k+1) p_k, as recPrediction's score
                },
                std::vector<torch::Tensor>(static_cast<std::size_t>(sideCount), *baseline), opt, a, control);
            if (!per)
                return per.error();
            for (int s = 0; s < sideCount; ++s)
                a.sides.push_back(wordSide(s == 0 ? batch[i].words : batch[i].secondWords, (*per)[static_cast<std::size_t>(s)]));
            out.push_back(std::move(a));
        }
        return out;
    }

private:
    /// Head ablation of the recursive layer (the model's one layer, applied at every node): its
    /// branches (multi-branch) or heads (multi-head) are its heads; a Tree-LSTM's attention over a
    /// node's children is no set of heads, and is refused as such.
    Status checkAblation(const std::vector<HeadAblation> &ablate) const
    {
        if (ablate.empty())
            return {};
        if (m_net.config().treeLstm())
            return makeError("--ablate", (m_info.name.empty() ? std::string("this model") : m_info.name) +
                                             " is a Tree-LSTM: it has no attention heads to switch off",
                             ErrorCode::Refused);
        return checkHeadAblation(m_info, ablate);
    }

    /// Says in the analysis (and its second sentence's) which heads were switched off.
    static void markAblated(Analysis &a, const std::vector<HeadAblation> &ablate)
    {
        for (const HeadAblation &h : ablate) {
            a.ablated.push_back({h.layer, h.head});
            for (Analysis &second : a.second)
                second.ablated.push_back({h.layer, h.head});
        }
    }

    /// Input i's sentence and, for a pair model, its second sentence, with the trees the model composes over.
    Result<std::pair<rec::Sentence, rec::Sentence>> sentencesOf(const EncoderInput &in, std::size_t i) const
    {
        const RecConfig &c = m_net.config();
        const std::string where = (c.pair() ? "pair " : "sentence ") + std::to_string(i + 1);
        auto t = recTreeFor(c, in.words.size(), in.dependency ? &*in.dependency : nullptr, in.constituency ? &*in.constituency : nullptr, where);
        if (!t)
            return t.error();
        std::pair<rec::Sentence, rec::Sentence> out;
        out.first = {m_vocab.ids(in.words, Vocabulary::Match::AnyForm, m_unk), std::move(*t)};
        if (!c.pair())
            return out;
        // A pair model predicts from both sentences: one sentence read against itself would
        // give a label that means nothing (as the Dependency-Transformer's pair head refuses).
        if (in.secondWords.empty())
            return makeError(where, singleSentenceRefusal(m_info));
        auto t2 = recTreeFor(c, in.secondWords.size(), in.secondDependency ? &*in.secondDependency : nullptr,
                             in.secondConstituency ? &*in.secondConstituency : nullptr, where + " (second sentence)");
        if (!t2)
            return t2.error();
        out.second = {m_vocab.ids(in.secondWords, Vocabulary::Match::AnyForm, m_unk), std::move(*t2)};
        return out;
    }

    rec::Net m_net;
    Vocabulary m_vocab;
    std::int64_t m_unk;
};

Result<std::unique_ptr<Encoder>> createRecursive(const ModelFile &file, const DeviceConfig &device)
{
    auto c = recursiveConfigOf(file);
    if (!c)
        return c.error();
    auto opened = networkFor<rec::Net>(file, *c, c->vocab, "vocab_size", device);
    if (!opened)
        return opened.error();
    EncoderInfo info = commonEncoderInfo(file, kFamily, c->task, opened->second.str(), device,
                                         {1, c->treeLstm() ? 1 : c->branches, c->treeLstm() ? c->memDim : c->dModel, c->dFF, c->vocab, 0});
    info.task = c->task; // the model's own task, whatever the file's top level says
    info.input = c->dependency() ? InputKind::WordsWithDependency : InputKind::WordsWithConstituency;
    info.pairInput = c->pair();
    info.labels = c->classes;
    info.outputs.gates = true;
    info.outputs.nodeAttention = true;
    info.outputs.embedding = true;
    info.outputs.prediction = true;
    info.outputs.layerStates = true;
    return std::unique_ptr<Encoder>(new RecursiveEncoder(std::move(opened->first), file.vocab, std::move(info), device));
}

// ---- verify-fixture -------------------------------------------------------------------------

/// The fixture side's trees built by TreeLens (from `heads`/`rels` and the PTB string with the
/// real reader), checked against the README's derived tables in inputs.json.
struct FixtureSide {
    std::vector<std::string> tokens;
    std::vector<std::int64_t> ids;
    RecTree dep, nary, binary;
};

Status sameAsTable(const RecTree &t, const json &table, const std::string &where)
{
    if (t.nodes.size() != table.size())
        return Error{where + ": " + std::to_string(t.nodes.size()) + " nodes built, the table lists " + std::to_string(table.size())};
    for (std::size_t v = 0; v < t.nodes.size(); ++v) {
        const RecNode &n = t.nodes[v];
        const json &w = table[v];
        bool ok = n.label == w.at("label").get<std::string>() && n.dummy == w.value("dummy", false) &&
                  n.start == w.at("span")[0].get<int>() && n.end == w.at("span")[1].get<int>() &&
                  n.parent == w.at("parent").get<int>() && n.height == w.at("height").get<int>() &&
                  n.children.size() == w.at("children").size();
        for (std::size_t k = 0; ok && k < n.children.size(); ++k) {
            const json &wc = w["children"][k];
            ok = n.children[k].node == wc.contains("node") &&
                 n.children[k].index == (wc.contains("node") ? wc["node"].get<int>() : wc.at("word").get<int>());
        }
        if (!ok)
            return Error{where + ": node " + std::to_string(v) + " (" + n.label + ") differs from the table's " + w.dump()};
    }
    return {};
}

Result<FixtureSide> fixtureSide(const json &side, const RecConfig &anyConfig, const std::vector<std::string> &vocab,
                                const std::string &where)
{
    FixtureSide fs;
    fs.tokens = side.at("tokens").get<std::vector<std::string>>();
    fs.ids = Vocabulary::lenient(vocab).ids(fs.tokens, Vocabulary::Match::AnyForm, unkIdOf(vocab));
    if (fs.ids != side.at("token_ids").get<std::vector<std::int64_t>>())
        return makeError(where, "the token ids looked up in the vocabulary differ from token_ids");
    DependencyTree dt{side.at("heads").get<std::vector<int>>(), side.at("rels").get<std::vector<std::string>>()};
    auto dep = dependencyRecTree(dt, anyConfig.relations);
    if (!dep)
        return makeError(where, dep.error());
    if (side.contains("rel_ids")) {
        const auto relIds = side["rel_ids"].get<std::vector<int>>();
        for (const RecNode &n : dep->nodes)
            for (std::size_t k = 0; k < n.children.size(); ++k) {
                const int tok = n.children[k].node ? dep->nodes[static_cast<std::size_t>(n.children[k].index)].headWord : n.children[k].index;
                if (relIds.at(static_cast<std::size_t>(tok)) != n.relations[k])
                    return makeError(where, "relation ids differ from rel_ids at token " + std::to_string(tok));
            }
    }
    // Post-order of the tokens with dependents, as the README's dep_post_order has it.
    std::vector<int> order;
    for (int t : side.at("dep_post_order").get<std::vector<int>>())
        if (dep->tokenNode.at(static_cast<std::size_t>(t)) >= 0)
            order.push_back(t);
    for (std::size_t v = 0; v < dep->nodes.size(); ++v)
        if (v >= order.size() || dep->nodes[v].headWord != order[v])
            return makeError(where, "the dependency post-order differs from dep_post_order");
    auto trees = readPtb(side.at("ptb").get<std::string>(), where);
    if (!trees)
        return trees.error();
    if (trees->size() != 1)
        return makeError(where, "ptb holds " + std::to_string(trees->size()) + " trees, not one");
    auto nary = constituencyRecTree(trees->front(), false);
    auto bin = constituencyRecTree(trees->front(), true);
    if (!nary || !bin)
        return makeError(where, nary ? bin.message() : nary.message());
    if (auto s = sameAsTable(*nary, side.at("nary_nodes"), where + " nary_nodes"); !s)
        return s.error();
    if (auto s = sameAsTable(*bin, side.at("binary_nodes"), where + " binary_nodes"); !s)
        return s.error();
    fs.dep = std::move(*dep);
    fs.nary = std::move(*nary);
    fs.binary = std::move(*bin);
    return fs;
}

/// An [n, ...] stack over the tokens: a token's node row, else `leaf` row t.
torch::Tensor byToken(const RecTree &t, const torch::Tensor &nodeRows, const torch::Tensor &leaf)
{
    torch::Tensor out = leaf.clone();
    for (std::size_t tok = 0; tok < t.tokenNode.size(); ++tok)
        if (t.tokenNode[tok] >= 0)
            out[static_cast<std::int64_t>(tok)] = nodeRows[t.tokenNode[tok]];
    return out;
}

/// The fixture's networks, one per model, each imported from the fixture's state dict.
Result<std::map<RecModel, rec::Net>> fixtureNets(const FixtureRequest &req)
{
    std::map<RecModel, rec::Net> nets;
    for (RecModel m : kAllModels) {
        auto file = importFixtureModel(req, importRecursiveCheckpoint, recModelName(m));
        if (!file)
            return file.error();
        auto c = recursiveConfigOf(*file);
        if (!c)
            return c.error();
        auto net = rec::Net::fromTensors(*c, file->tensors, torch::Device(torch::kCPU), req.stateDictPath);
        if (!net)
            return net.error();
        nets.emplace(m, std::move(*net));
    }
    return nets;
}

/// The fixture's pairs: both sides of each (pair P: sides 2P (a) and 2P + 1 (b)) and its gold score.
struct FixturePairs {
    std::vector<FixtureSide> sides;
    std::vector<double> gold;
};

Result<FixturePairs> fixturePairs(const json &inputs, const RecConfig &anyConfig, const std::vector<std::string> &vocab,
                                  const std::string &inputsPath)
{
    FixturePairs fp;
    const auto &pairs = inputs.at("pairs");
    for (std::size_t i = 0; i < pairs.size(); ++i) {
        for (const char *s : {"a", "b"}) {
            auto fs = fixtureSide(pairs[i].at(s), anyConfig, vocab, inputsPath + ": pair " + std::to_string(i) + " " + s);
            if (!fs)
                return fs.error();
            fp.sides.push_back(std::move(*fs));
        }
        fp.gold.push_back(pairs[i].at("gold_score").get<double>());
    }
    return fp;
}

/// Writes what the models computed on the fixture's pairs into `out`, under the
/// README's tensor names ("p<P>.<a|b>.<model>...", "p<P>.<model>.head...").
class FixtureOutputs {
public:
    FixtureOutputs(TensorMap &out, const std::vector<double> &gold) : m_out(out), m_gold(gold), m_pairs(gold.size()) {}

    /// A Tree Transformer (CTT, DTT, DTT + edges): every node's record, the states, the roots, the head.
    void treeTransformer(RecModel m, const rec::Net &net, const std::vector<const rec::Sentence *> &left,
                         const std::vector<const rec::Sentence *> &right)
    {
        const RecConfig &c = net.config();
        const std::string model = recModelName(m);
        const auto res = net.forwardPairs(left, right, true);
        for (std::size_t p = 0; p < m_pairs; ++p)
            for (int s = 0; s < 2; ++s) {
                const rec::Sentence &sen = *(s == 0 ? left : right)[p];
                const rec::SentenceRecord &r = (s == 0 ? res.a : res.b).sentences[p];
                const RecTree &t = sen.tree;
                for (std::size_t v = 0; v < t.nodes.size(); ++v) {
                    const rec::NodeRecord &nr = r.nodes[v];
                    const std::string node =
                        model + ".node" + std::to_string(c.dependency() ? t.nodes[v].headWord : static_cast<int>(v)) + ".";
                    if (m == RecModel::Ctt) {
                        m_out[name(p, s, node + "attn")] = floatTensorData(nr.attn);
                        m_out[name(p, s, node + "branch")] = floatTensorData(nr.branch);
                        m_out[name(p, s, node + "mb_out")] = floatTensorData(nr.mbOut);
                    } else if (m == RecModel::Dtt) {
                        m_out[name(p, s, node + "attn")] = floatTensorData(nr.attn);
                    } else {
                        m_out[name(p, s, node + "word.attn")] = floatTensorData(nr.attn);
                        m_out[name(p, s, node + "edge_fwd.input")] = floatTensorData(nr.edgeFwdInput);
                        m_out[name(p, s, node + "edge_bwd.input")] = floatTensorData(nr.edgeBwdInput);
                        m_out[name(p, s, node + "edge_fwd.attn")] = floatTensorData(nr.edgeFwdAttn);
                        m_out[name(p, s, node + "edge_bwd.attn")] = floatTensorData(nr.edgeBwdAttn);
                        m_out[name(p, s, node + "edge_fwd.state")] = floatTensorData(nr.edgeFwdState);
                        m_out[name(p, s, node + "edge_bwd.state")] = floatTensorData(nr.edgeBwdState);
                    }
                }
                if (m == RecModel::Ctt)
                    m_out[name(p, s, "ctt.states")] = floatTensorData(r.states);
                else if (m == RecModel::Dtt)
                    m_out[name(p, s, "dtt.states")] = floatTensorData(byToken(t, r.states, r.words));
                else {
                    m_out[name(p, s, "dtte.word_states")] = floatTensorData(byToken(t, r.states, r.words));
                    m_out[name(p, s, "dtte.edge_states")] = floatTensorData(byToken(t, r.edgeStates, r.words));
                }
                m_out[name(p, s, model + ".root")] = floatTensorData(r.root);
            }
        head(model, res.head);
    }

    /// A Tree-LSTM: the sentence vectors, then both query modes with the same weights.
    void treeLstm(RecModel m, const rec::Net &net, const std::vector<rec::Sentence> &sents,
                  const std::vector<const rec::Sentence *> &left, const std::vector<const rec::Sentence *> &right)
    {
        const std::string model = recModelName(m);
        std::vector<const rec::Sentence *> all;
        for (const auto &s : sents)
            all.push_back(&s);
        const torch::Tensor sv = net.sentenceVectors(all);
        for (std::size_t p = 0; p < m_pairs; ++p)
            for (int s = 0; s < 2; ++s)
                m_out[name(p, s, model + ".sent_vec")] = floatTensorData(sv[static_cast<std::int64_t>(2 * p + static_cast<std::size_t>(s))]);
        for (const char *mode : {"cross", "self"}) {
            const auto res = net.forwardPairs(left, right, true, rec::Order::LevelBatched, mode);
            const std::string mp = model + "." + mode + ".";
            for (std::size_t p = 0; p < m_pairs; ++p)
                for (int s = 0; s < 2; ++s) {
                    const rec::Sentence &sen = *(s == 0 ? left : right)[p];
                    const rec::SentenceRecord &r = (s == 0 ? res.a : res.b).sentences[p];
                    if (m == RecModel::TreeLstmChildSum)
                        childSumSide(p, s, mp, net.config(), sen.tree, r);
                    else
                        binarySide(p, s, model, mp, std::string(mode) == "cross", net.config(), r);
                    m_out[name(p, s, mp + "root")] = floatTensorData(r.root);
                }
            head(model + "." + mode, res.head);
        }
    }

private:
    static std::string name(std::size_t p, int s, const std::string &rest)
    {
        return "p" + std::to_string(p) + "." + (s == 0 ? "a." : "b.") + rest;
    }

    /// The relatedness head of every pair, with Eq. 8.9's target and the KL divergence to it.
    void head(const std::string &model, const rec::HeadOutput &h)
    {
        for (std::size_t p = 0; p < m_pairs; ++p) {
            const auto pi = static_cast<std::int64_t>(p);
            const std::string pre = "p" + std::to_string(p) + "." + model + ".head.";
            const torch::Tensor logp = torch::log_softmax(h.logits[pi], -1), probs = torch::softmax(h.logits[pi], -1);
            const torch::Tensor score = (probs * torch::arange(1, probs.size(0) + 1, probs.options())).sum();
            // Eq. 8.9's target and KL(p̃ ‖ probs) over the classes with p̃ > 0.
            const double y = m_gold[p];
            const auto fl = static_cast<std::int64_t>(std::floor(y));
            torch::Tensor target = torch::zeros({probs.size(0)});
            if (fl >= 1 && fl <= probs.size(0))
                target[fl - 1] = fl - y + 1.0;
            if (fl + 1 >= 1 && fl + 1 <= probs.size(0))
                target[fl] = y - static_cast<double>(fl);
            const torch::Tensor pos = target.gt(0);
            const torch::Tensor kl = (target.masked_select(pos) * (target.masked_select(pos).log() - logp.masked_select(pos))).sum();
            m_out[pre + "h_mul"] = floatTensorData(h.hMul[pi]);
            m_out[pre + "h_abs"] = floatTensorData(h.hAbs[pi]);
            m_out[pre + "hidden"] = floatTensorData(h.hidden[pi]);
            m_out[pre + "logits"] = floatTensorData(h.logits[pi]);
            m_out[pre + "log_probs"] = floatTensorData(logp);
            m_out[pre + "probs"] = floatTensorData(probs);
            m_out[pre + "score"] = floatTensorData(score);
            m_out[pre + "kl"] = floatTensorData(kl);
            m_out["p" + std::to_string(p) + ".target_dist"] = floatTensorData(target);
        }
    }

    /// One side of the Child-Sum Tree-LSTM in one query mode (prefix `mp`): each
    /// node's attention and forget gates, the gates of every token.
    void childSumSide(std::size_t p, int s, const std::string &mp, const RecConfig &c, const RecTree &t,
                      const rec::SentenceRecord &r)
    {
        for (std::size_t v = 0; v < t.nodes.size(); ++v) {
            const rec::NodeRecord &nr = r.nodes[v];
            const std::string node = mp + "node" + std::to_string(t.nodes[v].headWord) + ".";
            m_out[name(p, s, node + "alpha")] = floatTensorData(nr.attn);
            m_out[name(p, s, node + "h_att")] = floatTensorData(nr.hAtt);
            m_out[name(p, s, node + "f")] = floatTensorData(nr.f);
        }
        std::vector<torch::Tensor> nodeGates;
        for (const auto &nr : r.nodes)
            nodeGates.push_back(nr.gates);
        // [5, N, m]; a one-word sentence has no internal node.
        const torch::Tensor ng5 = nodeGates.empty() ? torch::zeros({5, 0, c.memDim}) : torch::stack(nodeGates, 1);
        const char *g[] = {"i", "o", "u", "c", "h"};
        for (int k = 0; k < 5; ++k)
            m_out[name(p, s, mp + g[k])] = floatTensorData(byToken(t, ng5[k], r.leafGates[k]));
    }

    /// One side of the binary Tree-LSTM in one query mode (prefix `mp`): the leaves'
    /// gates, the nodes' attention, forget gates and gates stacked.
    void binarySide(std::size_t p, int s, const std::string &model, const std::string &mp, bool cross, const RecConfig &c,
                    const rec::SentenceRecord &r)
    {
        const char *g[] = {"i", "o", "u", "c", "h"};
        for (int k = 0; k < 5; ++k)
            m_out[name(p, s, model + ".leaf_" + g[k])] = floatTensorData(r.leafGates[k]);
        std::vector<torch::Tensor> alpha, hatt, f, nodeGates;
        for (const auto &nr : r.nodes) {
            alpha.push_back(nr.attn);
            hatt.push_back(nr.hAtt);
            f.push_back(nr.f);
            nodeGates.push_back(nr.gates);
        }
        const std::int64_t m = c.memDim;
        auto stacked = [](const std::vector<torch::Tensor> &v, std::vector<std::int64_t> empty) {
            return v.empty() ? torch::zeros(empty) : torch::stack(v);
        };
        m_out[name(p, s, mp + "alpha")] = floatTensorData(stacked(alpha, cross ? std::vector<std::int64_t>{0, 2} : std::vector<std::int64_t>{0, 2, 2}));
        m_out[name(p, s, mp + "h_att")] = floatTensorData(stacked(hatt, cross ? std::vector<std::int64_t>{0, m} : std::vector<std::int64_t>{0, 2, m}));
        m_out[name(p, s, mp + "f")] = floatTensorData(stacked(f, {0, 2, m}));
        const torch::Tensor ng5 = nodeGates.empty() ? torch::zeros({5, 0, m}) : torch::stack(nodeGates, 1);
        for (int k = 0; k < 5; ++k)
            m_out[name(p, s, mp + g[k])] = floatTensorData(ng5[k]);
    }

    TensorMap &m_out;
    const std::vector<double> &m_gold;
    std::size_t m_pairs;
};

Result<TensorMap> computeRecursiveFixture(const FixtureRequest &req)
{
    return runFixture(req, [&](const json &config, const json &inputs, TensorMap &out) -> Status {
        const auto vocab = config.at("vocab").get<std::vector<std::string>>();
        auto nets = fixtureNets(req);
        if (!nets)
            return nets.error();
        auto pairs = fixturePairs(inputs, nets->at(RecModel::Dtte).config(), vocab, req.inputsPath);
        if (!pairs)
            return pairs.error();
        const std::size_t P = pairs->gold.size();
        FixtureOutputs outputs(out, pairs->gold);
        for (RecModel m : kAllModels) {
            const rec::Net &net = nets->at(m);
            const RecConfig &c = net.config();
            // The sentences as this model reads them.
            std::vector<rec::Sentence> sents;
            for (const auto &fs : pairs->sides)
                sents.push_back({fs.ids, c.dependency() ? fs.dep : (m == RecModel::TreeLstmBinary ? fs.binary : fs.nary)});
            std::vector<const rec::Sentence *> left, right;
            for (std::size_t p = 0; p < P; ++p) {
                left.push_back(&sents[2 * p]);
                right.push_back(&sents[2 * p + 1]);
            }
            if (!c.treeLstm())
                outputs.treeTransformer(m, net, left, right);
            else
                outputs.treeLstm(m, net, sents, left, right);
        }
        return {};
    });
}

} // namespace

std::string recursiveConfigJson(const RecConfig &config, const std::string &name, const std::string &trainingJson)
{
    return json{{"family", kFamily},
                {"task", config.task},
                {"name", name},
                {"model", json::parse(config.toJson())},
                {"training", json::parse(trainingJson)}}
        .dump();
}

Result<RecConfig> recursiveConfigOf(const ModelFile &file)
{
    const std::string where = file.sourcePath.empty() ? "model" : file.sourcePath;
    try {
        const json j = json::parse(file.configJson);
        auto c = RecConfig::fromJson(j.at("model").dump());
        if (!c)
            return makeError(where, c.error());
        return c;
    } catch (const std::exception &e) {
        return makeError(where, std::string("treelens.config: ") + e.what());
    }
}

Result<ModelFile> importRecursiveCheckpoint(ImportRequest request)
{
    const std::string &ckpt = request.checkpointPath;
    auto parsed = importConfigOf(request, kFamily);
    if (!parsed)
        return parsed.error();
    const json j = std::move(*parsed);
    // Which sub-model: --submodel, else the only one the checkpoint holds.
    std::string sub = request.submodel;
    if (sub.empty() && j.contains("model") && j["model"].is_string())
        sub = j["model"].get<std::string>();
    if (sub.empty()) {
        std::vector<std::string> present;
        for (RecModel m : kAllModels) {
            const std::string pre = std::string(recModelName(m)) + ".";
            for (const auto &[name, t] : request.tensors)
                if (name.rfind(pre, 0) == 0) {
                    present.push_back(recModelName(m));
                    break;
                }
        }
        if (present.size() != 1) {
            std::string list;
            for (const auto &p : present)
                list += (list.empty() ? "" : ", ") + p;
            return makeError(ckpt, present.empty() ? std::string("no sub-model's tensors (ctt., dtt., dtte., treelstm.cs., treelstm.bin.)")
                                                   : "the checkpoint holds several models (" + list + "): choose one with --submodel");
        }
        sub = present.front();
    }
    auto model = recModelFromName(sub);
    if (!model)
        return makeError(ckpt, model.error());
    Result<RecConfig> cfg = j.contains("tree_transformer") ? RecConfig::fromFixtureJson(request.configJson, *model)
                                                           : RecConfig::fromJson(j.contains("model") && j["model"].is_object() ? j["model"].dump() : j.dump());
    if (!cfg)
        return makeError(request.configPath, cfg.error());
    cfg->model = *model;
    std::vector<std::string> vocab;
    try {
        if (j.contains("vocab"))
            vocab = j["vocab"].get<std::vector<std::string>>();
    } catch (const std::exception &e) {
        return makeError(request.configPath, std::string("\"vocab\": ") + e.what());
    }
    if (vocab.empty() && !request.vocabText.empty()) {
        std::string line;
        for (char ch : request.vocabText) {
            if (ch == '\n') {
                vocab.push_back(line);
                line.clear();
            } else if (ch != '\r') {
                line.push_back(ch);
            }
        }
        if (!line.empty())
            vocab.push_back(line);
    }
    if (vocab.empty())
        return makeError(request.configPath, "no vocabulary: give \"vocab\" in the configuration or --vocab");
    if (static_cast<int>(vocab.size()) != cfg->vocab)
        return makeError(request.configPath, "the vocabulary lists " + std::to_string(vocab.size()) + " tokens but vocab_size is " +
                                                 std::to_string(cfg->vocab));
    // The sub-model's tensors and the shared word vectors; the other sub-models' are left behind.
    TensorMap mine;
    const std::string pre = cfg->prefix();
    for (auto &[name, t] : request.tensors) {
        const bool other = name != "embed.word.weight" && name.rfind(pre, 0) != 0 &&
                           (name.rfind("ctt.", 0) == 0 || name.rfind("dtt.", 0) == 0 || name.rfind("dtte.", 0) == 0 ||
                            name.rfind("treelstm.", 0) == 0);
        if (!other)
            mine[name] = std::move(t);
    }
    if (auto net = rec::Net::fromTensors(*cfg, mine, torch::Device(torch::kCPU), ckpt); !net)
        return net.error();
    request.tensors = std::move(mine);
    return importedModelFile(request,
                             recursiveConfigJson(*cfg, importedModelName(request, "-" + sub),
                                                 importedTrainingRecord(request, {{"submodel", sub}}).dump()),
                             std::move(vocab));
}

EncoderFamily recursiveFamily()
{
    EncoderFamily f;
    f.name = kFamily;
    f.create = createRecursive;
    f.importCheckpoint = importRecursiveCheckpoint;
    f.randomWeightsLike = randomWeightsWith(recursiveConfigOf, rec::Net::randomTensors);
    f.summary = summaryWith(recursiveConfigOf, [](const RecConfig &c) {
        std::string s = std::string(recModelName(c.model)) + ", d " + std::to_string(c.dModel);
        if (c.treeLstm())
            s += ", memory " + std::to_string(c.memDim) + ", query " + c.query;
        else
            s += ", " + std::to_string(c.branches) + " branches, d_k " + std::to_string(c.dK) + ", d_ff " + std::to_string(c.dFF);
        return s + ", task " + c.task + ", vocabulary " + std::to_string(c.vocab);
    });
    f.computeFixture = computeRecursiveFixture;
    return f;
}

} // namespace treelens
