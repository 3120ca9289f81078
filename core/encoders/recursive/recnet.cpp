// The recursive tree models in LibTorch (see recnet.h; § = the fixture README).
#include "core/encoders/recursive/recnet.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <torch/torch.h>

#include "core/encoders/common/attribution.h"
#include "core/encoders/common/headmask.h"

namespace treelens::rec {

using torch::Tensor;

namespace {

using Shapes = std::map<std::string, std::vector<std::int64_t>>;

/// The PCNN weights of every branch stacked, and the other MB tensors, for one call of encode().
struct MbWeights {
    Tensor wqkv;                    // [d, 3 · n · d_k]: W^Q, W^K, W^V of every branch side by side
    Tensor wb, lnW, lnB, kappa, alpha;
    Tensor c1, c1b, c2, c2b;        // [n, d, dff] (transposed), [n, dff], [n, dff, d] (transposed), [n, d]
    std::int64_t n = 0, dk = 0;
    bool multiBranch = true;        // false: heads concatenated (multi-head, single-head)
    double dropout = 0.0;           // on each branch's PCNN output, training only
    bool training = false;
    Tensor keep;                    // [n] 1/0 per branch (head ablation, headmask.h); undefined: every branch kept
};

/// Where the real member rows of a group of nodes sit: rows packed node after node
/// ([R, ·]); `pos` = each row's place g·K + j in the padded [G, K] layout, `group` = g.
struct Packing {
    Tensor pos, group, mask; // [R], [R], [G, K] (true = a real member)
    std::int64_t G = 0, K = 0;
};

struct MbOut {
    Tensor out;    // X̃ [R, d] (packed)
    Tensor attn;   // [G, n, K, K] (padded)
    Tensor branch; // B̄ [n, R, d] (packed)
};

/// MB(X) of §3 for a group of nodes. Only the attention runs padded (padded keys masked
/// to -inf); the projections, LayerNorm and PCNN run on the packed real rows, branch-major
/// with bmm, so neither padding nor a weight broadcast over the nodes costs anything.
MbOut multiBranch(const MbWeights &w, const Tensor &xp, const Packing &pk, double eps)
{
    const auto R = xp.size(0), d = xp.size(1), n = w.n, dk = w.dk, G = pk.G, K = pk.K;
    const Tensor qkv = torch::zeros({G * K, 3 * n * dk}, xp.options()).index_copy(0, pk.pos, xp.matmul(w.wqkv)).view({G, K, 3, n, dk});
    const Tensor q = qkv.select(2, 0).permute({2, 0, 1, 3}), k = qkv.select(2, 1).permute({2, 0, 1, 3}),
                 v = qkv.select(2, 2).permute({2, 0, 1, 3}); // [n, G, K, dk]
    Tensor s = q.matmul(k.transpose(-1, -2)) / std::sqrt(static_cast<double>(dk)); // [n, G, K, K]
    s = s.masked_fill(pk.mask.view({1, G, 1, K}).logical_not(), -std::numeric_limits<float>::infinity());
    const Tensor attn = torch::softmax(s, -1);
    Tensor av = attn.matmul(v).reshape({n, G * K, dk}).index_select(1, pk.pos); // [n, R, dk]
    if (w.keep.defined()) // head ablation: a switched-off head's output is zero before its projection
        av = av * w.keep.view({n, 1, 1});
    MbOut o;
    o.attn = attn.permute({1, 0, 2, 3});
    if (!w.multiBranch) { // Eq. 9.4: the heads' outputs concatenated
        o.out = av.permute({1, 0, 2}).reshape({R, n * dk});
        return o;
    }
    const Tensor b = torch::bmm(av, w.wb) + xp.unsqueeze(0);                          // B_i W_i^b + X
    o.branch = torch::layer_norm(b, {d}, w.lnW, w.lnB, eps) * w.kappa.view({n, 1, 1});
    const Tensor h = torch::relu(torch::baddbmm(w.c1b.unsqueeze(1), o.branch, w.c1));
    Tensor p = torch::baddbmm(w.c2b.unsqueeze(1), h, w.c2); // [n, R, d]
    if (w.training && w.dropout > 0)
        p = torch::dropout(p, w.dropout, true);
    o.out = (p * w.alpha.view({n, 1, 1})).sum(0);
    return o;
}

/// Eq. 8.8 (`tanhFirst`: Σ_rows tanh(z)) or Eq. 9.9 (tanh(Σ_rows z)), z = (X̃ + X) Woᵀ + bo,
/// summed over each node's real rows (packed; `group` = the node of each row).
Tensor parent(const Tensor &xt, const Tensor &x, const Packing &pk, const Tensor &wo, const Tensor &bo, bool tanhFirst)
{
    const Tensor z = torch::linear(xt + x, wo, bo);
    const Tensor zero = torch::zeros({pk.G, z.size(1)}, z.options());
    return tanhFirst ? zero.index_add(0, pk.group, torch::tanh(z)) : torch::tanh(zero.index_add(0, pk.group, z));
}

/// The sinusoidal positional encoding of Vaswani et al. (the thesis's Eq. 5.x): rows 0..K-1, [K, d].
Tensor sinusoid(std::int64_t K, std::int64_t d, const torch::TensorOptions &options)
{
    const Tensor pos = torch::arange(K, torch::kFloat64).unsqueeze(1);
    const Tensor i = torch::arange(d, torch::kFloat64).unsqueeze(0);
    const Tensor angle = pos / torch::pow(10000.0, (i - i.remainder(2)) / static_cast<double>(d));
    return torch::where(i.remainder(2).eq(0), torch::sin(angle), torch::cos(angle)).to(options.dtype()).to(options.device());
}

/// The packing of `rows` (per node, its member count) for a padded width K.
Packing packing(const std::vector<std::int64_t> &counts, std::int64_t K, const torch::Device &device)
{
    Packing pk;
    pk.G = static_cast<std::int64_t>(counts.size());
    pk.K = K;
    std::vector<std::int64_t> pos, group;
    std::vector<std::uint8_t> mask(static_cast<std::size_t>(pk.G * K), 0);
    for (std::int64_t g = 0; g < pk.G; ++g)
        for (std::int64_t j = 0; j < counts[static_cast<std::size_t>(g)]; ++j) {
            pos.push_back(g * K + j);
            group.push_back(g);
            mask[static_cast<std::size_t>(g * K + j)] = 1;
        }
    pk.pos = torch::tensor(pos, torch::kInt64).to(device);
    pk.group = torch::tensor(group, torch::kInt64).to(device);
    pk.mask = torch::tensor(mask, torch::kUInt8).view({pk.G, K}).to(torch::kBool).to(device);
    return pk;
}

/// Writes `rows` into `buffer` at `slots`: in place when no gradient is recorded (inference),
/// out of place when training (so autograd sees every level's buffer).
void writeRows(Tensor &buffer, const Tensor &slots, const Tensor &rows)
{
    if (torch::GradMode::is_enabled())
        buffer = buffer.index_copy(0, slots, rows);
    else
        buffer.index_copy_(0, slots, rows);
}

Tensor int64On(const std::vector<std::int64_t> &v, const torch::Device &device, std::vector<std::int64_t> shape)
{
    return torch::tensor(v, torch::kInt64).view(shape).to(device);
}

/// The word vectors of `ids` (B sentences of `lengths` words, each padded to T; T = 0: packed
/// one after another), [B, T, d] or packed [Σ lengths, d]. Inside an AttributionScope the
/// batch is the scope's copies of one sentence, looked up row by row through inputEmbedding
/// (core/encoders/common/attribution.h) so that each copy gets its interpolation.
Tensor wordVectors(const Tensor &weight, const std::vector<std::int64_t> &ids, const std::vector<std::int64_t> &lengths,
                   std::int64_t T, const torch::Device &device)
{
    const auto B = static_cast<std::int64_t>(lengths.size());
    const bool copies = AttributionScope::current() && B > 0 &&
                        std::all_of(lengths.begin(), lengths.end(), [&](std::int64_t n) { return n == lengths.front(); }) &&
                        (T == 0 || T == lengths.front());
    if (!copies)
        return torch::embedding(weight, int64On(ids, device, T == 0 ? std::vector<std::int64_t>{static_cast<std::int64_t>(ids.size())}
                                                                    : std::vector<std::int64_t>{B, T}));
    const std::int64_t n = lengths.front();
    const Tensor rows = inputEmbedding(weight, int64On(ids, device, {B, n})); // [B, n, d]
    return T == 0 ? rows.reshape({B * n, weight.size(1)}) : rows;
}

} // namespace

const Tensor &Net::p(const std::string &name) const
{
    return m_p.at(name);
}

Shapes Net::shapes(const RecConfig &c)
{
    const std::int64_t d = c.dModel, n = c.branches, dk = c.dK, ff = c.dFF, m = c.memDim, H = c.headHidden,
                       D = c.rootDim(), C = static_cast<std::int64_t>(c.classes.size());
    const std::string pre = c.prefix();
    Shapes s{{"embed.word.weight", {c.vocab, d}}};
    if (!c.treeLstm()) {
        for (const char *w : {"wq", "wk", "wv"})
            s[pre + "mb." + w] = {n, d, dk};
        if (c.multiBranch()) {
            s[pre + "mb.wb"] = {n, dk, d};
            s[pre + "mb.ln.weight"] = {d};
            s[pre + "mb.ln.bias"] = {d};
            s[pre + "mb.kappa"] = {n};
            s[pre + "mb.alpha"] = {n};
            for (std::int64_t i = 0; i < n; ++i) {
                const std::string b = pre + "mb.pcnn." + std::to_string(i) + ".";
                s[b + "conv1.weight"] = {ff, d};
                s[b + "conv1.bias"] = {ff};
                s[b + "conv2.weight"] = {d, ff};
                s[b + "conv2.bias"] = {d};
            }
        }
        s[pre + "out.weight"] = {d, d};
        s[pre + "out.bias"] = {d};
        if (c.model == RecModel::Dtte) {
            s[pre + "edge_embed.weight"] = {static_cast<std::int64_t>(c.relations.size()), d};
            s[pre + "edge_fwd.weight"] = {d, 3 * d};
            s[pre + "edge_bwd.weight"] = {d, 3 * d};
        }
    } else {
        const std::int64_t in = c.model == RecModel::TreeLstmBinary ? 2 * m : m;
        s[pre + "lstm.w_ih"] = {4 * m, d};
        s[pre + "lstm.w_hh"] = {4 * m, m};
        s[pre + "lstm.bias"] = {4 * m};
        s[pre + "cell.W.weight"] = {4 * m, d};
        s[pre + "cell.U_iou.weight"] = {3 * m, in};
        s[pre + "cell.U_f.weight"] = {in, in};
        s[pre + "cell.bias"] = {4 * m};
        s[pre + "attn.Wk"] = {m, m};
        s[pre + "attn.Wq"] = {m, m};
        s[pre + "attn.W.weight"] = {m, m};
        s[pre + "attn.W.bias"] = {m};
    }
    s[pre + "head.wh.weight"] = {H, c.pair() ? 2 * D : D};
    s[pre + "head.wh.bias"] = {H};
    s[pre + "head.wp.weight"] = {C, H};
    s[pre + "head.wp.bias"] = {C};
    return s;
}

TensorMap Net::randomTensors(const RecConfig &c, unsigned seed)
{
    const std::string pre = c.prefix();
    auto ends = [](const std::string &s, const std::string &tail) {
        return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
    };
    return randomTensorsFor(shapes(c), seed, [&](const std::string &name, const std::vector<std::int64_t> &shape) {
        if (name == "embed.word.weight") {
            Tensor t = torch::randn(shape) * 0.1;
            t[0].zero_(); // <pad>
            return t;
        }
        if (ends(name, "ln.weight"))
            return torch::ones(shape);
        if (ends(name, "kappa") || ends(name, "alpha"))
            return torch::full(shape, 1.0 / static_cast<double>(shape[0])); // κ, α positive, summing to 1
        if (name == pre + "edge_embed.weight")
            return torch::randn(shape) * 0.2; // Eq. 9.1's frozen N(0, σ), the thesis's best σ (Table 9.2)
        if (shape.size() == 1)
            return torch::zeros(shape);
        // MB's per-branch [n, in, out]: Xavier on each branch
        return shape.size() == 3 ? xavierUniform(shape, shape[1] + shape[2]) : xavierUniform(shape, shape[0] + shape[1]);
    });
}

Result<Net> Net::fromTensors(const RecConfig &config, const TensorMap &tensors, const torch::Device &device,
                             const std::string &where)
{
    auto p = configuredParameters(config, shapes(config), tensors, device, where,
                                   std::string("a recursive model '") + recModelName(config.model) + "'", true);
    if (!p)
        return p.error();
    return Net(config, device, std::move(*p));
}

Tensor Net::sentenceVectors(const std::vector<const Sentence *> &batch) const
{
    const std::string pre = m_config.prefix();
    const std::int64_t B = static_cast<std::int64_t>(batch.size()), m = m_config.memDim;
    std::int64_t T = 0;
    for (const auto *s : batch)
        T = std::max<std::int64_t>(T, static_cast<std::int64_t>(s->ids.size()));
    std::vector<std::int64_t> ids(static_cast<std::size_t>(B * T), 0), len;
    for (std::int64_t b = 0; b < B; ++b) {
        const auto &v = batch[static_cast<std::size_t>(b)]->ids;
        std::copy(v.begin(), v.end(), ids.begin() + b * T);
        len.push_back(static_cast<std::int64_t>(v.size()));
    }
    const Tensor x = wordVectors(p("embed.word.weight"), ids, len, T, m_device);
    const Tensor zx = torch::linear(x, p(pre + "lstm.w_ih"), p(pre + "lstm.bias")); // [B, T, 4m]
    const Tensor lens = int64On(len, m_device, {B, 1});
    Tensor h = torch::zeros({B, m}, x.options()), c = torch::zeros({B, m}, x.options());
    for (std::int64_t t = 0; t < T; ++t) {
        const auto g = (zx.select(1, t) + torch::linear(h, p(pre + "lstm.w_hh"))).chunk(4, -1); // (i, f, g, o)
        const Tensor c2 = torch::sigmoid(g[1]) * c + torch::sigmoid(g[0]) * torch::tanh(g[2]);
        const Tensor h2 = torch::sigmoid(g[3]) * torch::tanh(c2);
        const Tensor live = lens.gt(t); // a sentence's state stays after its last word
        c = torch::where(live, c2, c);
        h = torch::where(live, h2, h);
    }
    return h;
}

namespace {

/// Where each sentence's rows are in the composition buffers: every sentence's
/// words, then every sentence's internal nodes.
struct SlotLayout {
    std::vector<std::int64_t> wordBase, nodeBase, ids, lengths;
    std::int64_t words = 0, nodes = 0;
};

SlotLayout slotLayout(const std::vector<const Sentence *> &batch)
{
    const auto B = batch.size();
    SlotLayout l;
    l.wordBase.resize(B);
    l.nodeBase.resize(B);
    for (std::size_t b = 0; b < B; ++b) {
        l.wordBase[b] = l.words;
        l.words += static_cast<std::int64_t>(batch[b]->ids.size());
        l.lengths.push_back(static_cast<std::int64_t>(batch[b]->ids.size()));
        l.ids.insert(l.ids.end(), batch[b]->ids.begin(), batch[b]->ids.end());
    }
    for (std::size_t b = 0; b < B; ++b) {
        l.nodeBase[b] = l.words + l.nodes;
        l.nodes += static_cast<std::int64_t>(batch[b]->tree.nodes.size());
    }
    return l;
}

/// Nodes evaluated together, as (sentence, node).
using NodeGroup = std::vector<std::pair<std::size_t, int>>;

/// The groups evaluated together: heights across the batch, or one node at a time.
std::vector<NodeGroup> nodeGroups(const std::vector<const Sentence *> &batch, Order order)
{
    std::vector<NodeGroup> groups;
    if (order == Order::LevelBatched) {
        int top = 0;
        for (const auto *s : batch)
            top = std::max(top, s->tree.height());
        groups.resize(static_cast<std::size_t>(top));
        for (std::size_t b = 0; b < batch.size(); ++b)
            for (std::size_t v = 0; v < batch[b]->tree.nodes.size(); ++v)
                groups[static_cast<std::size_t>(batch[b]->tree.nodes[v].height - 1)].push_back({b, static_cast<int>(v)});
    } else {
        for (std::size_t b = 0; b < batch.size(); ++b)
            for (std::size_t v = 0; v < batch[b]->tree.nodes.size(); ++v)
                groups.push_back({{b, static_cast<int>(v)}});
    }
    return groups;
}

/// What every node of a group shares: G nodes, at most kc children, K members
/// (DTT: the head word too), the slots their states go to, their head words and sentences.
struct GroupFrame {
    std::int64_t G = 0, kc = 0, K = 0;
    Tensor slots;
    std::vector<std::int64_t> headWords, sent;
};

/// A Tree Transformer group's members packed node after node: (head word,) children.
struct GroupMembers {
    std::vector<std::int64_t> members, counts, childSlots, childCounts, heads, rels;
};

/// DTT + edges: the edge composition of a group (forward edges of every node, then backward).
struct EdgeComposition {
    MbOut eb;
    Tensor vIn, eState;
    std::int64_t Rc = 0; ///< child rows (of each direction)
};

/// A Tree-LSTM group's children padded to K: their h (M) and c, and which are real.
struct PaddedChildren {
    Tensor hm, cm, mask;
};

/// A Tree-LSTM group's attention over its children (α) and its ĥ.
struct ChildAttention {
    Tensor alpha, hatt;
};

/// A Tree-LSTM cell's gates for a group.
struct CellGates {
    Tensor i, o, u, c, f;
};

/// Composes a batch's trees bottom-up, group by group (Net::encode): the word
/// vectors, the composition buffers (Tree Transformers: states, DTT + edges: edge
/// states too; Tree-LSTMs: h and c) and, when recording, every node's record.
class TreeComposer {
public:
    TreeComposer(const RecConfig &cfg, const TorchParameters &params, const torch::Device &device, bool training,
                 const std::vector<const Sentence *> &batch, bool cross, bool record, const std::vector<HeadAblation> &ablate)
        : m_cfg(cfg), m_params(params), m_pre(cfg.prefix()), m_device(device), m_batch(batch), m_record(record),
          m_tl(cfg.treeLstm()), m_dtte(cfg.model == RecModel::Dtte),
          m_depRow(cfg.model == RecModel::Dtt || cfg.model == RecModel::Dtte), m_cross(cross), m_layout(slotLayout(batch))
    {
        m_E = wordVectors(m_params.at("embed.word.weight"), m_layout.ids, m_layout.lengths, 0, m_device);
        if (!m_tl) {
            m_w = mbWeights(training);
            if (!ablate.empty()) // the one recursive layer (layer 0): its branches are its heads
                m_w.keep = withoutAblatedHeads(torch::ones({1, m_w.n}, m_E.options()), ablate, 0).view({m_w.n});
        }
        initBuffers();
        m_out.sentences.resize(batch.size());
        if (record)
            for (std::size_t b = 0; b < batch.size(); ++b)
                m_out.sentences[b].nodes.resize(batch[b]->tree.nodes.size());
    }

    /// `others` [B, m]: each sentence's partner's sentence vector, for a Tree-LSTM's cross queries.
    void setQueries(const Tensor &others)
    {
        if (m_tl && m_cross)
            m_queries = torch::linear(others, param("attn.Wq")); // W_q s_other (Eq. 4.19)
    }

    void compose(const NodeGroup &group)
    {
        if (group.empty())
            return;
        const GroupFrame f = frame(group);
        if (!m_tl)
            composeTransformer(group, f);
        else
            composeTreeLstm(group, f);
    }

    /// Every sentence's words, internal states and root (the roots stacked [B, rootDim]).
    Encoded finish()
    {
        const auto B = m_batch.size();
        std::vector<Tensor> roots;
        for (std::size_t b = 0; b < B; ++b) {
            const RecTree &t = m_batch[b]->tree;
            const auto N = static_cast<std::int64_t>(t.nodes.size()), n = static_cast<std::int64_t>(m_batch[b]->ids.size());
            const std::int64_t wordBase = m_layout.wordBase[b], nodeBase = m_layout.nodeBase[b];
            SentenceRecord &sr = m_out.sentences[b];
            sr.words = m_E.narrow(0, wordBase, n);
            const std::int64_t rootSlot = N > 0 ? nodeBase + N - 1 : wordBase + std::max(0, t.rootWord);
            if (!m_tl) {
                sr.states = m_buf.narrow(0, nodeBase, N);
                if (m_dtte) {
                    sr.edgeStates = m_ebuf.narrow(0, nodeBase, N);
                    sr.root = torch::cat({m_buf[rootSlot], m_ebuf[rootSlot]}); // R = [r_u(root); r_v(root)]
                } else {
                    sr.root = m_buf[rootSlot];
                }
            } else {
                sr.states = m_hbuf.narrow(0, nodeBase, N);
                sr.leafGates = m_leafGates.narrow(1, wordBase, n);
                sr.root = m_hbuf[rootSlot];
            }
            roots.push_back(sr.root);
        }
        m_out.roots = B > 0 ? torch::stack(roots) : torch::zeros({0, m_cfg.rootDim()}, m_E.options());
        return std::move(m_out);
    }

private:
    /// The model's tensor PREFIX.`name`.
    const Tensor &param(const std::string &name) const { return m_params.at(m_pre + name); }

    /// MB's weights for this call: W^Q, W^K, W^V side by side; multi-branch: the PCNNs stacked.
    MbWeights mbWeights(bool training) const
    {
        const std::int64_t d = m_cfg.dModel;
        MbWeights w;
        w.n = m_cfg.branches;
        w.dk = m_cfg.dK;
        std::vector<Tensor> qkv;
        for (const char *name : {"mb.wq", "mb.wk", "mb.wv"})
            qkv.push_back(param(name).permute({1, 0, 2}).reshape({d, w.n * w.dk}));
        w.wqkv = torch::cat(qkv, 1);
        w.multiBranch = m_cfg.multiBranch();
        w.dropout = m_cfg.dropout;
        w.training = training;
        if (!m_cfg.multiBranch())
            return w;
        w.wb = param("mb.wb");
        w.lnW = param("mb.ln.weight");
        w.lnB = param("mb.ln.bias");
        w.kappa = param("mb.kappa");
        w.alpha = param("mb.alpha");
        std::vector<Tensor> c1, c1b, c2, c2b;
        for (int i = 0; i < m_cfg.branches; ++i) {
            const std::string bp = "mb.pcnn." + std::to_string(i) + ".";
            c1.push_back(param(bp + "conv1.weight").t());
            c1b.push_back(param(bp + "conv1.bias"));
            c2.push_back(param(bp + "conv2.weight").t());
            c2b.push_back(param(bp + "conv2.bias"));
        }
        w.c1 = torch::stack(c1);
        w.c1b = torch::stack(c1b);
        w.c2 = torch::stack(c2);
        w.c2b = torch::stack(c2b);
        return w;
    }

    /// The buffers with the words' rows filled in: their vectors (Tree Transformers) or
    /// their leaf cells (Tree-LSTMs), and zero rows for the internal nodes.
    void initBuffers()
    {
        const auto &E = m_E;
        const std::int64_t nodes = m_layout.nodes;
        if (!m_tl) {
            m_buf = torch::cat({E, torch::zeros({nodes, m_cfg.dModel}, E.options())});
            if (m_dtte)
                m_ebuf = m_buf.clone();
            return;
        }
        // Every word as a leaf (§7.4; the Child-Sum leaves are the same cell with h̃ = 0, §12 choice 22).
        const std::int64_t m = m_cfg.memDim;
        const auto z = torch::linear(E, param("cell.W.weight"), param("cell.bias")).chunk(4, -1); // (i, o, u, f)
        const Tensor i = torch::sigmoid(z[0]), o = torch::sigmoid(z[1]), u = torch::tanh(z[2]);
        const Tensor c = i * u, h = o * torch::tanh(c);
        m_leafGates = torch::stack({i, o, u, c, h}); // [5, words, m]
        m_hbuf = torch::cat({h, torch::zeros({nodes, m}, E.options())});
        m_cbuf = torch::cat({c, torch::zeros({nodes, m}, E.options())});
    }

    const RecNode &node(std::size_t b, int v) const { return m_batch[b]->tree.nodes[static_cast<std::size_t>(v)]; }

    /// A child's row: an internal node's or a word's.
    std::int64_t childSlot(std::size_t b, const RecChild &ch) const
    {
        return ch.node ? m_layout.nodeBase[b] + ch.index : m_layout.wordBase[b] + ch.index;
    }

    GroupFrame frame(const NodeGroup &group) const
    {
        GroupFrame f;
        f.G = static_cast<std::int64_t>(group.size());
        for (const auto &[b, v] : group)
            f.kc = std::max<std::int64_t>(f.kc, static_cast<std::int64_t>(node(b, v).children.size()));
        f.K = f.kc + (m_depRow ? 1 : 0);
        std::vector<std::int64_t> outSlots;
        for (const auto &[b, v] : group) {
            outSlots.push_back(m_layout.nodeBase[b] + v);
            f.headWords.push_back(m_layout.wordBase[b] + std::max(0, node(b, v).headWord));
            f.sent.push_back(static_cast<std::int64_t>(b));
        }
        f.slots = int64On(outSlots, m_device, {f.G});
        return f;
    }

    // ---- Tree Transformers (CTT, DTT, DTT + edges)

    GroupMembers members(const NodeGroup &group) const
    {
        GroupMembers gm;
        for (const auto &[b, v] : group) {
            const RecNode &nd = node(b, v);
            const std::int64_t headSlot = m_layout.wordBase[b] + nd.headWord;
            if (m_depRow)
                gm.members.push_back(headSlot);
            for (std::size_t j = 0; j < nd.children.size(); ++j) {
                const std::int64_t slot = childSlot(b, nd.children[j]);
                if (m_dtte)
                    gm.rels.push_back(nd.relations.at(j));
                gm.members.push_back(slot);
                gm.childSlots.push_back(slot);
                gm.heads.push_back(headSlot);
            }
            gm.counts.push_back(static_cast<std::int64_t>(nd.children.size()) + (m_depRow ? 1 : 0));
            gm.childCounts.push_back(static_cast<std::int64_t>(nd.children.size()));
        }
        return gm;
    }

    void composeTransformer(const NodeGroup &group, const GroupFrame &f)
    {
        const std::int64_t d = m_cfg.dModel;
        const GroupMembers gm = members(group);
        const Packing pk = packing(gm.counts, f.K, m_device);
        Tensor x = m_buf.index_select(0, int64On(gm.members, m_device, {static_cast<std::int64_t>(gm.members.size())}));
        if (m_cfg.positional) // Table 8.2: each member's place in its set, the composition's input
            x = x + sinusoid(f.K, d, x.options()).index_select(0, pk.pos.remainder(f.K));
        const MbOut mb = multiBranch(m_w, x, pk, m_cfg.lnEps);
        const Tensor state = parent(mb.out, x, pk, param("out.weight"), param("out.bias"), !m_dtte);
        EdgeComposition ec;
        if (m_dtte)
            ec = composeEdges(gm, f);
        writeRows(m_buf, f.slots, state);
        if (m_record)
            recordTransformer(group, gm, mb, ec);
    }

    /// DTT + edges (§6): the forward and backward edge sets of every node (2G sets of
    /// k rows) through MB; the edge states r_v go to the edge buffer.
    EdgeComposition composeEdges(const GroupMembers &gm, const GroupFrame &f)
    {
        const std::int64_t d = m_cfg.dModel, G = f.G, kc = f.kc;
        EdgeComposition ec;
        ec.Rc = static_cast<std::int64_t>(gm.childSlots.size());
        std::vector<std::int64_t> both = gm.childCounts;
        both.insert(both.end(), gm.childCounts.begin(), gm.childCounts.end());
        const Packing epk = packing(both, kc, m_device);
        const Tensor q = m_E.index_select(0, int64On(gm.heads, m_device, {ec.Rc}));
        const Tensor xs = m_ebuf.index_select(0, int64On(gm.childSlots, m_device, {ec.Rc}));
        const Tensor y = torch::embedding(param("edge_embed.weight"), int64On(gm.rels, m_device, {ec.Rc}));
        auto edges = [&](const std::string &perm, const Tensor &weight) {
            std::vector<Tensor> parts;
            for (char ch : perm)
                parts.push_back(ch == 'q' ? q : ch == 'y' ? y : xs);
            return torch::linear(torch::cat(parts, -1), weight); // Eq. 9.3: no bias
        };
        ec.vIn = torch::cat({edges(m_cfg.edgeForward, param("edge_fwd.weight")), edges(m_cfg.edgeBackward, param("edge_bwd.weight"))});
        if (m_cfg.positional)
            ec.vIn = ec.vIn + sinusoid(kc, d, ec.vIn.options()).index_select(0, epk.pos.remainder(kc));
        ec.eb = multiBranch(m_w, ec.vIn, epk, m_cfg.lnEps);
        ec.eState = parent(ec.eb.out, ec.vIn, epk, param("out.weight"), param("out.bias"), false); // [2G, d]
        writeRows(m_ebuf, f.slots, ec.eState.narrow(0, 0, G) + ec.eState.narrow(0, G, G));
        return ec;
    }

    void recordTransformer(const NodeGroup &group, const GroupMembers &gm, const MbOut &mb, const EdgeComposition &ec)
    {
        const auto G = static_cast<std::int64_t>(group.size());
        std::int64_t off = 0, coff = 0;
        for (std::int64_t g = 0; g < G; ++g) {
            const auto [b, v] = group[static_cast<std::size_t>(g)];
            const std::int64_t k = gm.counts[static_cast<std::size_t>(g)], kk = gm.childCounts[static_cast<std::size_t>(g)];
            NodeRecord &nr = m_out.sentences[b].nodes[static_cast<std::size_t>(v)];
            nr.attn = mb.attn[g].narrow(1, 0, k).narrow(2, 0, k).detach();
            if (mb.branch.defined()) // multi-branch only
                nr.branch = mb.branch.narrow(1, off, k).detach();
            nr.mbOut = mb.out.narrow(0, off, k).detach();
            if (m_dtte) {
                nr.edgeFwdInput = ec.vIn.narrow(0, coff, kk).detach();
                nr.edgeBwdInput = ec.vIn.narrow(0, ec.Rc + coff, kk).detach();
                nr.edgeFwdAttn = ec.eb.attn[g].narrow(1, 0, kk).narrow(2, 0, kk).detach();
                nr.edgeBwdAttn = ec.eb.attn[G + g].narrow(1, 0, kk).narrow(2, 0, kk).detach();
                nr.edgeFwdState = ec.eState[g].detach();
                nr.edgeBwdState = ec.eState[G + g].detach();
            }
            off += k;
            coff += kk;
        }
    }

    // ---- Tree-LSTMs (§7.2-7.4)

    void composeTreeLstm(const NodeGroup &group, const GroupFrame &f)
    {
        const PaddedChildren ch = paddedChildren(group, f);
        const ChildAttention att = childAttention(ch, f);
        const CellGates cg = cellGates(ch, att, f);
        const Tensor h = cg.o * torch::tanh(cg.c);
        writeRows(m_hbuf, f.slots, h);
        writeRows(m_cbuf, f.slots, cg.c);
        if (m_record) {
            const Tensor gates = torch::stack({cg.i, cg.o, cg.u, cg.c, h}, 1); // [G, 5, m]
            for (std::int64_t g = 0; g < f.G; ++g) {
                const auto [b, v] = group[static_cast<std::size_t>(g)];
                const std::int64_t k = static_cast<std::int64_t>(node(b, v).children.size());
                NodeRecord &nr = m_out.sentences[b].nodes[static_cast<std::size_t>(v)];
                nr.attn = (m_cross ? att.alpha[g].narrow(0, 0, k) : att.alpha[g].narrow(0, 0, k).narrow(1, 0, k)).detach();
                nr.hAtt = (m_cross ? att.hatt[g] : att.hatt[g].narrow(0, 0, k)).detach();
                nr.f = cg.f[g].narrow(0, 0, k).detach();
                nr.gates = gates[g].detach();
            }
        }
    }

    /// The children padded to K (a Tree-LSTM has no head-word row): M = their h, and their c.
    PaddedChildren paddedChildren(const NodeGroup &group, const GroupFrame &f) const
    {
        const std::int64_t G = f.G, K = f.K, m = m_cfg.memDim;
        std::vector<std::int64_t> idx(static_cast<std::size_t>(G * K), 0);
        std::vector<std::uint8_t> maskv(static_cast<std::size_t>(G * K), 0);
        for (std::int64_t g = 0; g < G; ++g) {
            const auto [b, v] = group[static_cast<std::size_t>(g)];
            const RecNode &nd = node(b, v);
            for (std::size_t j = 0; j < nd.children.size(); ++j) {
                idx[static_cast<std::size_t>(g * K) + j] = childSlot(b, nd.children[j]);
                maskv[static_cast<std::size_t>(g * K) + j] = 1;
            }
        }
        const Tensor index = int64On(idx, m_device, {G * K});
        PaddedChildren ch;
        ch.mask = torch::tensor(maskv, torch::kUInt8).view({G, K}).to(torch::kBool).to(m_device);
        ch.hm = m_hbuf.index_select(0, index).view({G, K, m});
        ch.cm = m_cbuf.index_select(0, index).view({G, K, m});
        return ch;
    }

    /// Keys M W_kᵀ; the query is the partner's sentence (cross) or each child (self).
    ChildAttention childAttention(const PaddedChildren &ch, const GroupFrame &f) const
    {
        const std::int64_t G = f.G, K = f.K, m = m_cfg.memDim;
        const Tensor key = torch::linear(ch.hm, param("attn.Wk"));
        const double scale = 1.0 / std::sqrt(static_cast<double>(m));
        const float ninf = -std::numeric_limits<float>::infinity();
        ChildAttention a;
        if (m_cross) {
            const Tensor q = m_queries.index_select(0, int64On(f.sent, m_device, {G})); // [G, m]
            const Tensor align = key.matmul(q.unsqueeze(-1)).squeeze(-1) * scale;       // [G, K]
            a.alpha = torch::softmax(align.masked_fill(ch.mask.logical_not(), ninf), -1);
            a.hatt = torch::tanh(torch::linear((a.alpha.unsqueeze(-1) * ch.hm).sum(1), param("attn.W.weight"), param("attn.W.bias")));
        } else {
            const Tensor q = torch::linear(ch.hm, param("attn.Wq"));
            const Tensor align = q.matmul(key.transpose(-1, -2)) * scale; // [G, K, K]
            a.alpha = torch::softmax(align.masked_fill(ch.mask.view({G, 1, K}).logical_not(), ninf), -1);
            a.hatt = torch::tanh(torch::linear(a.alpha.matmul(ch.hm), param("attn.W.weight"), param("attn.W.bias")));
        }
        return a;
    }

    /// The cell: Child-Sum (the head word's input, h̃ summed over the children, a forget
    /// gate per child) or binary (the two children's ĥ side by side).
    CellGates cellGates(const PaddedChildren &ch, const ChildAttention &att, const GroupFrame &f) const
    {
        const std::int64_t G = f.G, m = m_cfg.memDim;
        const Tensor bias = param("cell.bias");
        CellGates cg;
        if (m_cfg.model != RecModel::TreeLstmBinary) {
            const Tensor maskf = ch.mask.unsqueeze(-1).to(ch.hm.scalar_type());
            const Tensor htilde = m_cross ? att.hatt : (att.hatt * maskf).sum(1);
            const auto wx = torch::linear(m_E.index_select(0, int64On(f.headWords, m_device, {G})), param("cell.W.weight"), bias);
            const auto z = (wx.narrow(-1, 0, 3 * m) + torch::linear(htilde, param("cell.U_iou.weight"))).chunk(3, -1);
            cg.i = torch::sigmoid(z[0]);
            cg.o = torch::sigmoid(z[1]);
            cg.u = torch::tanh(z[2]);
            cg.f = torch::sigmoid(wx.narrow(-1, 3 * m, m).unsqueeze(1) + torch::linear(ch.hm, param("cell.U_f.weight"))); // [G, K, m]
            cg.c = cg.i * cg.u + (cg.f * ch.cm * maskf).sum(1);
        } else {
            const Tensor hin = m_cross ? torch::cat({att.hatt, att.hatt}, -1) : att.hatt.reshape({G, 2 * m});
            const auto z = torch::linear(hin, param("cell.U_iou.weight"), bias.narrow(0, 0, 3 * m)).chunk(3, -1);
            cg.i = torch::sigmoid(z[0]);
            cg.o = torch::sigmoid(z[1]);
            cg.u = torch::tanh(z[2]);
            const Tensor bf = bias.narrow(0, 3 * m, m);
            cg.f = torch::sigmoid(torch::linear(hin, param("cell.U_f.weight"), torch::cat({bf, bf}))).view({G, 2, m});
            cg.c = cg.i * cg.u + (cg.f * ch.cm).sum(1);
        }
        return cg;
    }

    const RecConfig &m_cfg;
    const TorchParameters &m_params;
    const std::string m_pre;
    const torch::Device m_device;
    const std::vector<const Sentence *> &m_batch;
    const bool m_record, m_tl, m_dtte, m_depRow, m_cross;
    const SlotLayout m_layout;
    Tensor m_E;                                    ///< the word vectors [words, d]
    MbWeights m_w;                                 ///< Tree Transformers
    Tensor m_buf, m_ebuf;                          ///< Tree Transformers: states (DTT + edges: r_u), edge states r_v
    Tensor m_hbuf, m_cbuf, m_leafGates, m_queries; ///< Tree-LSTMs: h, c, the leaves' gates, the cross queries [B, m]
    Encoded m_out;
};

} // namespace

Encoded Net::encode(const std::vector<const Sentence *> &batch, const Tensor &others, bool record, Order order,
                    const std::string &queryOverride, const std::vector<HeadAblation> &ablate) const
{
    const bool cross = (queryOverride.empty() ? m_config.query : queryOverride) == "cross";
    TreeComposer composer(m_config, m_p, m_device, m_training, batch, cross, record, ablate);
    composer.setQueries(others);
    for (const auto &group : nodeGroups(batch, order))
        composer.compose(group);
    return composer.finish();
}

HeadOutput Net::head(const Tensor &a, const Tensor &b) const
{
    const std::string pre = m_config.prefix();
    HeadOutput h;
    Tensor features = a;
    if (m_config.pair()) {
        h.hMul = a * b;
        h.hAbs = (a - b).abs();
        features = torch::cat({h.hMul, h.hAbs}, -1);
    }
    if (m_training && m_config.dropout > 0)
        features = torch::dropout(features, m_config.dropout, true);
    h.hidden = torch::sigmoid(torch::linear(features, p(pre + "head.wh.weight"), p(pre + "head.wh.bias")));
    h.logits = torch::linear(h.hidden, p(pre + "head.wp.weight"), p(pre + "head.wp.bias"));
    return h;
}

Net::PairOutput Net::forwardPairs(const std::vector<const Sentence *> &left, const std::vector<const Sentence *> &right,
                                  bool record, Order order, const std::string &query, const std::vector<HeadAblation> &ablate) const
{
    const bool cross = m_config.treeLstm() && (query.empty() ? m_config.query : query) == "cross";
    Tensor sa, sb;
    if (cross) {
        std::vector<const Sentence *> both = left;
        both.insert(both.end(), right.begin(), right.end());
        const Tensor s = sentenceVectors(both);
        const auto B = static_cast<std::int64_t>(left.size());
        sa = s.narrow(0, 0, B);
        sb = s.narrow(0, B, B);
    }
    PairOutput out;
    // Each side's query is its partner's sentence vector (L1172).
    out.a = encode(left, sb, record, order, query, ablate);
    out.b = encode(right, sa, record, order, query, ablate);
    out.head = head(out.a.roots, out.b.roots);
    return out;
}

} // namespace treelens::rec
