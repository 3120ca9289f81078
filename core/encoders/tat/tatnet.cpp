// LibTorch Tree Aggregation Transformer (see tatnet.h; the fixture README is the specification).
#include "core/encoders/tat/tatnet.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <torch/torch.h>

#include "core/encoders/common/attribution.h"
#include "core/encoders/common/headmask.h"

namespace treelens::tat {

namespace F = torch::nn::functional;

std::vector<std::int64_t> pairIds(const std::vector<std::int64_t> &first, const std::vector<std::int64_t> &second,
                                  const TatConfig &config)
{
    std::vector<std::int64_t> ids;
    ids.reserve(first.size() + second.size() + 4);
    ids.push_back(config.bosId);
    ids.insert(ids.end(), first.begin(), first.end());
    ids.push_back(config.sepId);
    ids.push_back(config.sepId);
    ids.insert(ids.end(), second.begin(), second.end());
    ids.push_back(config.sepId);
    return ids;
}

PairInput makePair(const std::vector<std::int64_t> &questionIds, TatTree question, const std::vector<std::int64_t> &answerIds,
                   TatTree answer, const TatConfig &config)
{
    PairInput p;
    const int m = static_cast<int>(questionIds.size()), n = static_cast<int>(answerIds.size());
    p.ids = pairIds(questionIds, answerIds, config);
    SideInput &q = p.side[0], &a = p.side[1];
    q.tree = std::move(question);
    a.tree = std::move(answer);
    for (int i = 0; i < m; ++i)
        q.wordPositions.push_back(1 + i);
    q.startPosition = 0;
    q.endPosition = m + 1;
    for (int j = 0; j < n; ++j)
        a.wordPositions.push_back(m + 3 + j);
    a.startPosition = m + 2;
    a.endPosition = m + n + 3;
    return p;
}

Result<PairInput> pairInputOf(const std::vector<std::string> &first, const ConstituencyTree *firstTree,
                              const std::vector<std::string> &second, const ConstituencyTree *secondTree,
                              const Vocabulary &vocab, const TatTags &tags, const TatConfig &config,
                              const std::string &where)
{
    if (second.empty() && first.empty())
        return makeError(where, "a tree-aggregation-transformer reads sentence pairs (question and answer)");
    if (first.empty() || second.empty())
        return makeError(where, std::string("the ") + (first.empty() ? "first" : "second") +
                                    " sentence is empty (a tree-aggregation-transformer reads both sentences of a pair)");
    if (!firstTree || !secondTree)
        return makeError(where, "the tree-aggregation-transformer needs the constituency trees of both sentences "
                                "(parse them first)");
    if (static_cast<int>(first.size() + second.size()) + 4 > config.lmMaxPositions)
        return makeError(where, std::to_string(first.size() + second.size()) + " words; the model's language model takes at most " +
                                    std::to_string(config.lmMaxPositions - 4) + " for both sentences together");
    auto q = tatTree(*firstTree, tags, config);
    if (!q)
        return makeError(where + " (first sentence)", q.error());
    auto a = tatTree(*secondTree, tags, config);
    if (!a)
        return makeError(where + " (second sentence)", a.error());
    if (q->wordTags.size() != first.size() || a->wordTags.size() != second.size())
        return makeError(where, "a constituency tree does not cover its sentence's words");
    return makePair(vocab.ids(first, Vocabulary::Match::AnyForm, config.unkId), std::move(*q), vocab.ids(second, Vocabulary::Match::AnyForm, config.unkId), std::move(*a), config);
}

std::map<std::string, std::vector<std::int64_t>> Net::parameterShapes(const TatConfig &c)
{
    std::map<std::string, std::vector<std::int64_t>> m;
    const std::int64_t d = c.lmDModel;
    m["lm.tok_emb.weight"] = {c.lmVocab, d};
    m["lm.pos_emb.weight"] = {c.lmMaxPositions, d};
    m["lm.emb_ln.weight"] = {d};
    m["lm.emb_ln.bias"] = {d};
    for (int l = 0; l < c.lmLayers; ++l) {
        const std::string pre = "lm.layers." + std::to_string(l) + ".";
        for (const char *w : {"q", "k", "v", "o"}) {
            m[pre + "attn." + w + ".weight"] = {d, d};
            m[pre + "attn." + w + ".bias"] = {d};
        }
        for (const char *ln : {"ln1", "ln2"}) {
            m[pre + ln + ".weight"] = {d};
            m[pre + ln + ".bias"] = {d};
        }
        m[pre + "ffn.w1.weight"] = {c.lmDFF, d};
        m[pre + "ffn.w1.bias"] = {c.lmDFF};
        m[pre + "ffn.w2.weight"] = {d, c.lmDFF};
        m[pre + "ffn.w2.bias"] = {d};
    }
    if (c.sequential()) {
        // The sequential model: the LM's <s> output alone.
        m["cls_seq.weight"] = {c.classes, d};
        m["cls_seq.bias"] = {c.classes};
        return m;
    }
    m["tat.sem_proj.weight"] = {c.dSem, d};
    m["tat.sem_proj.bias"] = {c.dSem};
    std::vector<std::tuple<std::string, int, int>> streams{{"sem", c.dSem, c.dFFSem}};
    if (c.syntactic()) {
        m["tat.tag_emb.weight"] = {c.tags, c.dSynEmb};
        m["tat.pos_emb.weight"] = {c.maxSpanPositions, c.dSynEmb};
        m["tat.level_emb.weight"] = {c.maxLevels, c.dSynEmb};
        m["tat.syn_proj.weight"] = {c.dSyn, c.dSynEmb};
        m["tat.syn_proj.bias"] = {c.dSyn};
        streams.push_back({"syn", c.dSyn, c.dFFSyn});
    }
    for (const auto &[stream, dz, ff] : streams) {
        for (const char *w : {"q", "k", "v", "o"})
            m["tat.attn_" + stream + "." + w + ".weight"] = {dz, dz};
        m["tat.attn_" + stream + ".o.bias"] = {dz};
        m["tat.ffn_" + stream + ".w1.weight"] = {ff, dz};
        m["tat.ffn_" + stream + ".w1.bias"] = {ff};
        m["tat.ffn_" + stream + ".w2.weight"] = {dz, ff};
        m["tat.ffn_" + stream + ".w2.bias"] = {dz};
    }
    const std::int64_t pairDim = 2 * c.rootDim();
    m["cls.weight"] = {c.classes, pairDim};
    m["cls.bias"] = {c.classes};
    m["cls_res.weight"] = {c.classes, d + pairDim};
    m["cls_res.bias"] = {c.classes};
    return m;
}

TensorMap Net::randomTensors(const TatConfig &c, unsigned seed)
{
    return randomTensorsFor(parameterShapes(c), seed, [](const std::string &name, const std::vector<std::int64_t> &shape) {
        const bool layerNorm = name.find("ln") != std::string::npos && name.find("_emb") == std::string::npos;
        if (layerNorm && name.size() > 7 && name.compare(name.size() - 7, 7, ".weight") == 0)
            return torch::ones(shape);
        if (shape.size() < 2)
            return torch::zeros(shape);
        if (name.rfind("lm.", 0) == 0)
            return torch::randn(shape) * 0.02; // BERT's initialisation
        if (name.find("_emb") != std::string::npos)
            return torch::randn(shape); // the aggregation's tag, position and level tables: nn.Embedding's N(0, 1)
        return xavierUniform(shape, shape[0] + shape[1]);
    });
}

Result<Net> Net::fromTensors(const TatConfig &config, const TensorMap &tensors, const torch::Device &device,
                             const std::string &where)
{
    auto p = configuredParameters(config, parameterShapes(config), tensors, device, where, "a tree-aggregation-transformer", true);
    if (!p)
        return p.error();
    return Net(config, device, std::move(*p));
}

torch::Tensor Net::lm(const torch::Tensor &ids, const torch::Tensor &mask, Output *record) const
{
    const auto &c = m_config;
    const auto B = ids.size(0), T = ids.size(1);
    const std::int64_t d = c.lmDModel, H = c.lmHeads, dh = d / H;
    auto positions = torch::arange(T, torch::TensorOptions().dtype(torch::kLong).device(m_device));
    // The words through inputEmbedding: attributions (Encoder::explain) interpolate them.
    auto h = F::layer_norm(inputEmbedding(p("lm.tok_emb.weight"), ids, 0) + torch::embedding(p("lm.pos_emb.weight"), positions),
                           F::LayerNormFuncOptions({d}).weight(p("lm.emb_ln.weight")).bias(p("lm.emb_ln.bias")).eps(c.lnEps));
    h = drop(h);
    if (record)
        record->lmEmb = h;
    const auto keyMask = mask.logical_not().view({B, 1, 1, T});
    for (int l = 0; l < c.lmLayers; ++l) {
        const std::string pre = "lm.layers." + std::to_string(l) + ".";
        auto lin = [&](const torch::Tensor &x, const std::string &n) {
            return F::linear(x, p(pre + n + ".weight"), p(pre + n + ".bias"));
        };
        auto split = [&](const torch::Tensor &x) { return x.view({B, T, H, dh}).transpose(1, 2); };
        auto q = split(lin(h, "attn.q")), k = split(lin(h, "attn.k")), v = split(lin(h, "attn.v"));
        auto scores = torch::matmul(q, k.transpose(-1, -2)) / std::sqrt(static_cast<double>(dh));
        scores = scores.masked_fill(keyMask, -std::numeric_limits<float>::infinity());
        auto ctx = torch::matmul(torch::softmax(scores, -1), v).transpose(1, 2).reshape({B, T, d});
        auto ln = [&](const torch::Tensor &x, const std::string &n) {
            return F::layer_norm(x, F::LayerNormFuncOptions({d}).weight(p(pre + n + ".weight")).bias(p(pre + n + ".bias")).eps(c.lnEps));
        };
        h = ln(h + drop(lin(ctx, "attn.o")), "ln1");
        h = ln(h + drop(lin(torch::gelu(lin(h, "ffn.w1")), "ffn.w2")), "ln2");
        if (record)
            record->lmLayers.push_back(h);
    }
    return h;
}

namespace {

/// A node of the batch: pair, side, id in the side's table.
struct NodeRef {
    int pair = 0, side = 0, node = 0;
};

/// Where a computed node's span embedding is: its step and row.
struct Slot {
    int step = -1, row = -1;
};

/// What a step recorded for one node: its inputs and the position-0 outputs.
struct StepRecord {
    torch::Tensor inSem, inSyn, attnSem, attnSyn, outSem, outSyn; // per step, rows = nodes
    std::vector<std::vector<std::int64_t>> kind, src, tag;       // per node, per position
};

} // namespace

namespace {

/// The pairs' LM inputs padded into [B, T] ids and mask.
std::pair<torch::Tensor, torch::Tensor> paddedIds(const std::vector<PairInput> &pairs, const TatConfig &c)
{
    const auto B = static_cast<std::int64_t>(pairs.size());
    std::int64_t T = 1;
    for (const auto &pr : pairs)
        T = std::max<std::int64_t>(T, static_cast<std::int64_t>(pr.ids.size()));
    std::vector<std::int64_t> ids(static_cast<std::size_t>(B * T), c.padId);
    std::vector<char> mask(static_cast<std::size_t>(B * T), 0);
    for (std::int64_t b = 0; b < B; ++b)
        for (std::size_t t = 0; t < pairs[static_cast<std::size_t>(b)].ids.size(); ++t) {
            ids[static_cast<std::size_t>(b * T) + t] = pairs[static_cast<std::size_t>(b)].ids[t];
            mask[static_cast<std::size_t>(b * T) + t] = 1;
        }
    auto idsT = torch::tensor(ids, torch::kLong).view({B, T});
    auto maskT = torch::tensor(std::vector<std::int64_t>(mask.begin(), mask.end()), torch::kLong).view({B, T}).to(torch::kBool);
    return {idsT, maskT};
}


/// The schedule: level by level (deepest first, every side of every pair), or one node per step in post-order.
std::vector<std::vector<NodeRef>> aggregationSchedule(const std::vector<PairInput> &pairs, bool nodeByNode)
{
    const auto B = static_cast<int>(pairs.size());
    std::vector<std::vector<NodeRef>> steps;
    if (nodeByNode) {
        for (int b = 0; b < B; ++b)
            for (int s = 0; s < 2; ++s)
                for (int v = 0; v < static_cast<int>(pairs[static_cast<std::size_t>(b)].side[s].tree.nodes.size()); ++v)
                    steps.push_back({{b, s, v}});
        return steps;
    }
    int maxLevel = -1;
    for (const auto &pr : pairs)
        for (const auto &sd : pr.side)
            for (const auto &n : sd.tree.nodes)
                maxLevel = std::max(maxLevel, n.level);
    for (int l = maxLevel; l >= 0; --l) {
        std::vector<NodeRef> step;
        for (int b = 0; b < B; ++b)
            for (int s = 0; s < 2; ++s) {
                const auto &nodes = pairs[static_cast<std::size_t>(b)].side[s].tree.nodes;
                for (int v = 0; v < static_cast<int>(nodes.size()); ++v)
                    if (nodes[static_cast<std::size_t>(v)].level == l)
                        step.push_back({b, s, v});
            }
        if (!step.empty())
            steps.push_back(std::move(step));
    }
    return steps;
}

/// One step's inputs in its [V, L] layout (V nodes, L = their longest span):
/// token entries (start, words, end) and child entries, each as (row, position).
struct StepEntries {
    std::int64_t V = 0, L = 0;
    std::vector<std::int64_t> tv, ti, tRow, tTag, tPos, tLevel; ///< token entries: row, position, LM row, tag, position, level
    std::vector<std::int64_t> cv, ci;                            ///< child entries: row, position
    std::vector<std::pair<int, int>> cSlot;                      ///< child entries: the step and row that computed the child
    std::vector<std::int64_t> valid;                             ///< [V * L]: 1 at a real position
};

/// The aggregation layers over the pairs' trees (the fixture README's §5-6): each
/// step computes its nodes' span embeddings (both streams) from their tokens' LM
/// outputs and their children's span embeddings of earlier steps.
class Aggregation {
public:
    Aggregation(const std::vector<PairInput> &pairs, const TatConfig &c, const TorchParameters &parameters,
                const torch::Device &device, std::int64_t T, bool record, const std::vector<HeadAblation> &ablate)
        : m_pairs(pairs), m_c(c), m_p(parameters), m_device(device), m_T(T), m_record(record), m_syntactic(c.syntactic()),
          m_slots(pairs.size())
    {
        // The views' head numbering (0..H-1 semantic, H..2H-1 syntactic) as each stream's own.
        for (const HeadAblation &a : ablate) {
            if (a.layer != 0)
                continue;
            if (a.head < 0 || a.head < c.heads)
                m_ablateSem.push_back({0, a.head});
            if (a.head < 0 || a.head >= c.heads)
                m_ablateSyn.push_back({0, a.head < 0 ? -1 : a.head - c.heads});
        }
        for (std::size_t b = 0; b < pairs.size(); ++b)
            for (int s = 0; s < 2; ++s)
                m_slots[b][static_cast<std::size_t>(s)].resize(pairs[b].side[s].tree.nodes.size());
    }

    /// Step `st` over `nodes`; `xFlat` = the LM output [B * T, d_lm], `options` its tensors'.
    void step(int st, const std::vector<NodeRef> &nodes, const torch::Tensor &xFlat, const torch::TensorOptions &options)
    {
        StepRecord rec;
        const StepEntries e = gather(st, nodes, rec);
        torch::Tensor xs, xn;
        stepInputs(e, xFlat, options, xs, xn);
        const auto keyMask = torch::tensor(e.valid, longOptions()).view({e.V, 1, 1, e.L}).to(m_device).eq(0);
        torch::Tensor aSem, aSyn, oSem, oSyn;
        m_ySem.push_back(stream(xs, "sem", m_c.dSem, keyMask, m_record ? &aSem : nullptr, m_record ? &oSem : nullptr));
        if (m_syntactic)
            m_ySyn.push_back(stream(xn, "syn", m_c.dSyn, keyMask, m_record ? &aSyn : nullptr, m_record ? &oSyn : nullptr));
        else
            m_ySyn.push_back(torch::Tensor());
        if (m_record) {
            rec.inSem = xs;
            rec.inSyn = xn;
            rec.attnSem = aSem;
            rec.attnSyn = aSyn;
            rec.outSem = oSem;
            rec.outSyn = oSyn;
            m_records.push_back(std::move(rec));
        }
    }

    /// Eq. (9): the roots (last node of each side) of both sentences, per pair [B, 2(dSem + dSyn)].
    torch::Tensor rootVectors() const
    {
        std::vector<torch::Tensor> vecs;
        for (std::size_t b = 0; b < m_pairs.size(); ++b) {
            std::vector<torch::Tensor> parts;
            for (int s = 0; s < 2; ++s) {
                const Slot &root = m_slots[b][static_cast<std::size_t>(s)].back();
                parts.push_back(m_ySem[static_cast<std::size_t>(root.step)][root.row]);
                if (m_syntactic)
                    parts.push_back(m_ySyn[static_cast<std::size_t>(root.step)][root.row]);
            }
            vecs.push_back(torch::cat(parts));
        }
        return torch::stack(vecs);
    }

    /// What side `s` of pair `b` recorded, in its node order, padded to the side's largest L_v.
    SideRecord sideRecord(std::size_t b, int s) const;

private:
    static torch::TensorOptions longOptions() { return torch::TensorOptions().dtype(torch::kLong); }
    torch::Tensor dev(const std::vector<std::int64_t> &v) const { return torch::tensor(v, longOptions()).to(m_device); }

    /// The step's entries node by node; each node's slot is set to (st, its row).
    StepEntries gather(int st, const std::vector<NodeRef> &nodes, StepRecord &rec);

    /// Eq. (1) and (2) for every token entry of the step at once, and the children's span
    /// embeddings as they are: the semantic inputs `xs` [V, L, dSem] and syntactic `xn` [V, L, dSyn].
    void stepInputs(const StepEntries &e, const torch::Tensor &xFlat, const torch::TensorOptions &options, torch::Tensor &xs,
                    torch::Tensor &xn) const;

    /// One stream of the layer for position 0 only (README §5.6: the other rows are never used).
    torch::Tensor stream(const torch::Tensor &X, const std::string &z, int dz, const torch::Tensor &keyMask, torch::Tensor *attn,
                         torch::Tensor *o0) const
    {
        const std::int64_t V = X.size(0), L = X.size(1), H = m_c.heads;
        const std::int64_t dh = dz / H;
        const auto pre = "tat.attn_" + z + ".";
        auto q0 = F::linear(X.select(1, 0), m_p.at(pre + "q.weight")).view({V, H, 1, dh});
        auto k = F::linear(X, m_p.at(pre + "k.weight")).view({V, L, H, dh}).transpose(1, 2);
        auto v = F::linear(X, m_p.at(pre + "v.weight")).view({V, L, H, dh}).transpose(1, 2);
        auto scores = torch::matmul(q0, k.transpose(-1, -2)) / std::sqrt(static_cast<double>(dh));
        scores = scores.masked_fill(keyMask, -std::numeric_limits<float>::infinity());
        auto a = torch::softmax(scores, -1);                 // [V, H, 1, L]
        auto ctx = withoutAblatedHeads(torch::matmul(a, v), z == "sem" ? m_ablateSem : m_ablateSyn, 0).reshape({V, dz}); // heads concatenated
        auto o = X.select(1, 0) + F::linear(ctx, m_p.at(pre + "o.weight"), m_p.at(pre + "o.bias"));
        const auto ffn = "tat.ffn_" + z + ".";
        auto y = o + F::linear(torch::relu(F::linear(o, m_p.at(ffn + "w1.weight"), m_p.at(ffn + "w1.bias"))), m_p.at(ffn + "w2.weight"),
                               m_p.at(ffn + "w2.bias"));
        if (attn)
            *attn = a.squeeze(2);
        if (o0)
            *o0 = o;
        return y;
    }

    const std::vector<PairInput> &m_pairs;
    const TatConfig &m_c;
    const TorchParameters &m_p;
    torch::Device m_device;
    std::int64_t m_T;
    bool m_record, m_syntactic;
    std::vector<std::array<std::vector<Slot>, 2>> m_slots; ///< per pair and side, where each node's span embedding is
    std::vector<torch::Tensor> m_ySem, m_ySyn;              ///< per step, the span embeddings of its nodes
    std::vector<StepRecord> m_records;                      ///< per step, with record
    std::vector<HeadAblation> m_ablateSem, m_ablateSyn;     ///< the heads switched off, per stream
};

StepEntries Aggregation::gather(int st, const std::vector<NodeRef> &nodes, StepRecord &rec)
{
    StepEntries e;
    e.V = static_cast<std::int64_t>(nodes.size());
    for (const auto &r : nodes)
        e.L = std::max<std::int64_t>(e.L, m_pairs[static_cast<std::size_t>(r.pair)].side[r.side].tree.nodes[static_cast<std::size_t>(r.node)].length());
    const std::int64_t L = e.L;
    e.valid.assign(static_cast<std::size_t>(e.V * L), 0);
    for (std::int64_t v = 0; v < e.V; ++v) {
        const NodeRef &r = nodes[static_cast<std::size_t>(v)];
        const SideInput &side = m_pairs[static_cast<std::size_t>(r.pair)].side[r.side];
        const TatNode &node = side.tree.nodes[static_cast<std::size_t>(r.node)];
        const std::int64_t k = static_cast<std::int64_t>(node.children.size());
        std::vector<std::int64_t> kind(static_cast<std::size_t>(L), -1), src(static_cast<std::size_t>(L), -1),
            tag(static_cast<std::size_t>(L), -1);
        auto token = [&](std::int64_t i, int lmPos, int tagId, int kindId) {
            e.tv.push_back(v);
            e.ti.push_back(i);
            e.tRow.push_back(r.pair * m_T + lmPos);
            e.tTag.push_back(tagId);
            e.tPos.push_back(i);
            e.tLevel.push_back(node.level);
            kind[static_cast<std::size_t>(i)] = kindId;
            src[static_cast<std::size_t>(i)] = lmPos;
            tag[static_cast<std::size_t>(i)] = tagId;
        };
        token(0, side.startPosition, node.tag, 0);
        for (std::int64_t j = 0; j < k; ++j) {
            const TatChild &ch = node.children[static_cast<std::size_t>(j)];
            if (ch.node) {
                e.cv.push_back(v);
                e.ci.push_back(j + 1);
                const Slot &sl = m_slots[static_cast<std::size_t>(r.pair)][static_cast<std::size_t>(r.side)][static_cast<std::size_t>(ch.index)];
                e.cSlot.push_back({sl.step, sl.row});
                kind[static_cast<std::size_t>(j + 1)] = 2;
                src[static_cast<std::size_t>(j + 1)] = ch.index;
            } else {
                token(j + 1, side.wordPositions[static_cast<std::size_t>(ch.index)], side.tree.wordTags[static_cast<std::size_t>(ch.index)], 1);
            }
        }
        token(k + 1, side.endPosition, node.tag, 3);
        for (std::int64_t i = 0; i < k + 2; ++i)
            e.valid[static_cast<std::size_t>(v * L + i)] = 1;
        if (m_record) {
            rec.kind.push_back(std::move(kind));
            rec.src.push_back(std::move(src));
            rec.tag.push_back(std::move(tag));
        }
        m_slots[static_cast<std::size_t>(r.pair)][static_cast<std::size_t>(r.side)][static_cast<std::size_t>(r.node)] =
            Slot{st, static_cast<int>(v)};
    }
    return e;
}

void Aggregation::stepInputs(const StepEntries &e, const torch::Tensor &xFlat, const torch::TensorOptions &options,
                             torch::Tensor &xs, torch::Tensor &xn) const
{
    const auto tvI = dev(e.tv), tiI = dev(e.ti);
    auto em = F::linear(xFlat.index_select(0, dev(e.tRow)), m_p.at("tat.sem_proj.weight"), m_p.at("tat.sem_proj.bias"));
    auto n = !m_syntactic ? torch::Tensor()
                          : F::linear(torch::embedding(m_p.at("tat.tag_emb.weight"), dev(e.tTag)) +
                                          torch::embedding(m_p.at("tat.pos_emb.weight"), dev(e.tPos)) +
                                          torch::embedding(m_p.at("tat.level_emb.weight"), dev(e.tLevel)),
                                      m_p.at("tat.syn_proj.weight"), m_p.at("tat.syn_proj.bias"));
    xs = torch::zeros({e.V, e.L, m_c.dSem}, options);
    xs = xs.index_put({tvI, tiI}, em);
    if (m_syntactic) {
        xn = torch::zeros({e.V, e.L, m_c.dSyn}, options);
        xn = xn.index_put({tvI, tiI}, n);
    }
    if (e.cv.empty())
        return;
    // Children's span embeddings as they are, grouped by the step that computed them.
    std::map<int, std::vector<std::size_t>> bySource;
    for (std::size_t q = 0; q < e.cSlot.size(); ++q)
        bySource[e.cSlot[q].first].push_back(q);
    for (const auto &[source, which] : bySource) {
        std::vector<std::int64_t> rows, vv, ii;
        for (std::size_t q : which) {
            rows.push_back(e.cSlot[q].second);
            vv.push_back(e.cv[q]);
            ii.push_back(e.ci[q]);
        }
        const auto rowsI = dev(rows), vvI = dev(vv), iiI = dev(ii);
        xs = xs.index_put({vvI, iiI}, m_ySem[static_cast<std::size_t>(source)].index_select(0, rowsI));
        if (m_syntactic)
            xn = xn.index_put({vvI, iiI}, m_ySyn[static_cast<std::size_t>(source)].index_select(0, rowsI));
    }
}

SideRecord Aggregation::sideRecord(std::size_t b, int s) const
{
    const auto &c = m_c;
    const bool syntactic = m_syntactic;
    const std::int64_t H = c.heads;
    const auto &tree = m_pairs[b].side[s].tree;
    const auto N = static_cast<std::int64_t>(tree.nodes.size());
    const std::int64_t Lm = tree.maxLength();
    SideRecord r;
    r.inKind = torch::full({N, Lm}, -1, torch::kLong);
    r.inSrc = torch::full({N, Lm}, -1, torch::kLong);
    r.inTag = torch::full({N, Lm}, -1, torch::kLong);
    r.inSem = torch::zeros({N, Lm, c.dSem});
    const std::int64_t dSyn = syntactic ? c.dSyn : 0;
    r.inSyn = torch::zeros({N, Lm, dSyn});
    r.attnSem = torch::zeros({N, H, Lm});
    r.attnSyn = torch::zeros({N, H, Lm});
    r.outSem = torch::zeros({N, c.dSem});
    r.outSyn = torch::zeros({N, dSyn});
    r.nodeSem = torch::zeros({N, c.dSem});
    r.nodeSyn = torch::zeros({N, dSyn});
    for (std::int64_t v = 0; v < N; ++v) {
        const Slot &sl = m_slots[b][static_cast<std::size_t>(s)][static_cast<std::size_t>(v)];
        const StepRecord &rec = m_records[static_cast<std::size_t>(sl.step)];
        const std::int64_t len = tree.nodes[static_cast<std::size_t>(v)].length();
        for (std::int64_t i = 0; i < len; ++i) {
            r.inKind[v][i] = rec.kind[static_cast<std::size_t>(sl.row)][static_cast<std::size_t>(i)];
            r.inSrc[v][i] = rec.src[static_cast<std::size_t>(sl.row)][static_cast<std::size_t>(i)];
            r.inTag[v][i] = rec.tag[static_cast<std::size_t>(sl.row)][static_cast<std::size_t>(i)];
        }
        const auto cut = torch::indexing::Slice(0, len);
        r.inSem[v].index_put_({cut}, rec.inSem[sl.row].index({cut}).detach().cpu());
        if (syntactic)
            r.inSyn[v].index_put_({cut}, rec.inSyn[sl.row].index({cut}).detach().cpu());
        r.attnSem[v].index_put_({torch::indexing::Slice(), cut}, rec.attnSem[sl.row].index({torch::indexing::Slice(), cut}).detach().cpu());
        if (syntactic)
            r.attnSyn[v].index_put_({torch::indexing::Slice(), cut}, rec.attnSyn[sl.row].index({torch::indexing::Slice(), cut}).detach().cpu());
        r.outSem[v] = rec.outSem[sl.row].detach().cpu();
        if (syntactic)
            r.outSyn[v] = rec.outSyn[sl.row].detach().cpu();
        r.nodeSem[v] = m_ySem[static_cast<std::size_t>(sl.step)][sl.row].detach().cpu();
        if (syntactic)
            r.nodeSyn[v] = m_ySyn[static_cast<std::size_t>(sl.step)][sl.row].detach().cpu();
    }
    return r;
}

} // namespace

torch::Tensor Net::drop(const torch::Tensor &x) const
{
    return m_training && m_config.dropout > 0.0 ? F::dropout(x, F::DropoutFuncOptions().p(m_config.dropout).training(true)) : x;
}

torch::Tensor Net::lmForward(const std::vector<PairInput> &pairs) const
{
    auto [ids, mask] = paddedIds(pairs, m_config);
    return lm(ids.to(m_device), mask.to(m_device), nullptr);
}

Output Net::forward(const std::vector<PairInput> &pairs, bool record, bool nodeByNode, const std::vector<HeadAblation> &ablate) const
{
    const auto &c = m_config;
    Output out;
    const auto B = static_cast<std::int64_t>(pairs.size());
    auto [ids, mask] = paddedIds(pairs, c);
    const std::int64_t T = ids.size(1);
    ids = ids.to(m_device);
    mask = mask.to(m_device);
    auto x = lm(ids, mask, record ? &out : nullptr);
    out.x = x;
    if (c.sequential()) {
        out.prediction = F::linear(drop(torch::tanh(x.select(1, 0))), p("cls_seq.weight"), p("cls_seq.bias"));
        return out;
    }
    auto xFlat = x.reshape({B * T, c.lmDModel});
    Aggregation agg(pairs, c, m_p, m_device, T, record, ablate);
    const auto steps = aggregationSchedule(pairs, nodeByNode);
    for (std::size_t st = 0; st < steps.size(); ++st) {
        agg.step(static_cast<int>(st), steps[st], xFlat, x.options());
        ++out.layerCalls;
    }
    out.pairVec = agg.rootVectors();
    out.logits = F::linear(drop(torch::tanh(out.pairVec)), p("cls.weight"), p("cls.bias"));
    out.pairVecRes = torch::cat({x.select(1, 0), out.pairVec}, 1);
    out.logitsRes = F::linear(drop(torch::tanh(out.pairVecRes)), p("cls_res.weight"), p("cls_res.bias"));
    out.prediction = c.head == "residual" ? out.logitsRes : out.logits;
    if (record)
        for (std::size_t b = 0; b < pairs.size(); ++b)
            out.sides.push_back({agg.sideRecord(b, 0), agg.sideRecord(b, 1)});
    return out;
}

} // namespace treelens::tat
