// The recursive tree models in LibTorch (see recnet.h; § = the fixture README).
#include "core/encoders/recursive/recnet.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <torch/torch.h>

#include "core/encoders/common/attribution.h"

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
    const Tensor av = attn.matmul(v).reshape({n, G * K, dk}).index_select(1, pk.pos); // [n, R, dk]
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

Encoded Net::encode(const std::vector<const Sentence *> &batch, const Tensor &others, bool record, Order order,
                    const std::string &queryOverride) const
{
    const RecConfig &cfg = m_config;
    const std::string pre = cfg.prefix();
    const bool tl = cfg.treeLstm(), dtte = cfg.model == RecModel::Dtte, depRow = cfg.model == RecModel::Dtt || dtte;
    const bool cross = (queryOverride.empty() ? cfg.query : queryOverride) == "cross";
    const auto B = batch.size();
    const std::int64_t d = cfg.dModel, m = cfg.memDim;

    // Slots: every sentence's words, then every sentence's internal nodes.
    std::vector<std::int64_t> wordBase(B), nodeBase(B), ids, lengths;
    std::int64_t words = 0, nodes = 0;
    for (std::size_t b = 0; b < B; ++b) {
        wordBase[b] = words;
        words += static_cast<std::int64_t>(batch[b]->ids.size());
        lengths.push_back(static_cast<std::int64_t>(batch[b]->ids.size()));
        ids.insert(ids.end(), batch[b]->ids.begin(), batch[b]->ids.end());
    }
    for (std::size_t b = 0; b < B; ++b) {
        nodeBase[b] = words + nodes;
        nodes += static_cast<std::int64_t>(batch[b]->tree.nodes.size());
    }
    const Tensor E = wordVectors(p("embed.word.weight"), ids, lengths, 0, m_device);

    MbWeights w;
    Tensor buf, ebuf, hbuf, cbuf, leafGates;
    if (!tl) {
        w.n = cfg.branches;
        w.dk = cfg.dK;
        std::vector<Tensor> qkv;
        for (const char *name : {"mb.wq", "mb.wk", "mb.wv"})
            qkv.push_back(p(pre + name).permute({1, 0, 2}).reshape({d, w.n * w.dk}));
        w.wqkv = torch::cat(qkv, 1);
        w.multiBranch = cfg.multiBranch();
        w.dropout = cfg.dropout;
        w.training = m_training;
    }
    if (!tl && cfg.multiBranch()) {
        w.wb = p(pre + "mb.wb");
        w.lnW = p(pre + "mb.ln.weight");
        w.lnB = p(pre + "mb.ln.bias");
        w.kappa = p(pre + "mb.kappa");
        w.alpha = p(pre + "mb.alpha");
        std::vector<Tensor> c1, c1b, c2, c2b;
        for (int i = 0; i < cfg.branches; ++i) {
            const std::string bp = pre + "mb.pcnn." + std::to_string(i) + ".";
            c1.push_back(p(bp + "conv1.weight").t());
            c1b.push_back(p(bp + "conv1.bias"));
            c2.push_back(p(bp + "conv2.weight").t());
            c2b.push_back(p(bp + "conv2.bias"));
        }
        w.c1 = torch::stack(c1);
        w.c1b = torch::stack(c1b);
        w.c2 = torch::stack(c2);
        w.c2b = torch::stack(c2b);
    }
    if (!tl) {
        buf = torch::cat({E, torch::zeros({nodes, d}, E.options())});
        if (dtte)
            ebuf = buf.clone();
    } else {
        // Every word as a leaf (§7.4; the Child-Sum leaves are the same cell with h̃ = 0, §12 choice 22).
        const auto z = torch::linear(E, p(pre + "cell.W.weight"), p(pre + "cell.bias")).chunk(4, -1); // (i, o, u, f)
        const Tensor i = torch::sigmoid(z[0]), o = torch::sigmoid(z[1]), u = torch::tanh(z[2]);
        const Tensor c = i * u, h = o * torch::tanh(c);
        leafGates = torch::stack({i, o, u, c, h}); // [5, words, m]
        hbuf = torch::cat({h, torch::zeros({nodes, m}, E.options())});
        cbuf = torch::cat({c, torch::zeros({nodes, m}, E.options())});
    }
    Tensor queries; // [B, m]: W_q s_other (Eq. 4.19)
    if (tl && cross)
        queries = torch::linear(others, p(pre + "attn.Wq"));

    // The groups evaluated together: heights across the batch, or one node at a time.
    std::vector<std::vector<std::pair<std::size_t, int>>> groups;
    if (order == Order::LevelBatched) {
        int top = 0;
        for (const auto *s : batch)
            top = std::max(top, s->tree.height());
        groups.resize(static_cast<std::size_t>(top));
        for (std::size_t b = 0; b < B; ++b)
            for (std::size_t v = 0; v < batch[b]->tree.nodes.size(); ++v)
                groups[static_cast<std::size_t>(batch[b]->tree.nodes[v].height - 1)].push_back({b, static_cast<int>(v)});
    } else {
        for (std::size_t b = 0; b < B; ++b)
            for (std::size_t v = 0; v < batch[b]->tree.nodes.size(); ++v)
                groups.push_back({{b, static_cast<int>(v)}});
    }

    Encoded out;
    out.sentences.resize(B);
    if (record)
        for (std::size_t b = 0; b < B; ++b)
            out.sentences[b].nodes.resize(batch[b]->tree.nodes.size());

    for (const auto &group : groups) {
        if (group.empty())
            continue;
        const auto G = static_cast<std::int64_t>(group.size());
        std::int64_t kc = 0; // children
        for (const auto &[b, v] : group)
            kc = std::max<std::int64_t>(kc, static_cast<std::int64_t>(batch[b]->tree.nodes[static_cast<std::size_t>(v)].children.size()));
        const std::int64_t K = kc + (depRow ? 1 : 0);
        std::vector<std::int64_t> outSlots, headWords, sent;
        for (const auto &[b, v] : group) {
            outSlots.push_back(nodeBase[b] + v);
            headWords.push_back(wordBase[b] + std::max(0, batch[b]->tree.nodes[static_cast<std::size_t>(v)].headWord));
            sent.push_back(static_cast<std::int64_t>(b));
        }
        const Tensor slots = int64On(outSlots, m_device, {G});

        if (!tl) {
            // The members packed node after node: (head word,) children.
            std::vector<std::int64_t> members, counts, childSlots, childCounts, heads, rels;
            for (std::int64_t g = 0; g < G; ++g) {
                const auto [b, v] = group[static_cast<std::size_t>(g)];
                const RecNode &node = batch[b]->tree.nodes[static_cast<std::size_t>(v)];
                if (depRow)
                    members.push_back(wordBase[b] + node.headWord);
                for (std::size_t j = 0; j < node.children.size(); ++j) {
                    const RecChild &ch = node.children[j];
                    const std::int64_t slot = ch.node ? nodeBase[b] + ch.index : wordBase[b] + ch.index;
                    if (dtte)
                        rels.push_back(node.relations.at(j));
                    members.push_back(slot);
                    childSlots.push_back(slot);
                    heads.push_back(wordBase[b] + node.headWord);
                }
                counts.push_back(static_cast<std::int64_t>(node.children.size()) + (depRow ? 1 : 0));
                childCounts.push_back(static_cast<std::int64_t>(node.children.size()));
            }
            const Packing pk = packing(counts, K, m_device);
            Tensor x = buf.index_select(0, int64On(members, m_device, {static_cast<std::int64_t>(members.size())}));
            if (cfg.positional) // Table 8.2: each member's place in its set, the composition's input
                x = x + sinusoid(K, d, x.options()).index_select(0, pk.pos.remainder(K));
            const MbOut mb = multiBranch(w, x, pk, cfg.lnEps);
            const Tensor state = parent(mb.out, x, pk, p(pre + "out.weight"), p(pre + "out.bias"), !dtte);
            MbOut eb;
            Tensor vIn, eState;
            const auto Rc = static_cast<std::int64_t>(childSlots.size());
            if (dtte) {
                // The forward edges of every node, then the backward ones: 2G sets of k rows.
                std::vector<std::int64_t> both = childCounts;
                both.insert(both.end(), childCounts.begin(), childCounts.end());
                const Packing epk = packing(both, kc, m_device);
                const Tensor q = E.index_select(0, int64On(heads, m_device, {Rc}));
                const Tensor xs = ebuf.index_select(0, int64On(childSlots, m_device, {Rc}));
                const Tensor y = torch::embedding(p(pre + "edge_embed.weight"), int64On(rels, m_device, {Rc}));
                auto edges = [&](const std::string &perm, const Tensor &weight) {
                    std::vector<Tensor> parts;
                    for (char ch : perm)
                        parts.push_back(ch == 'q' ? q : ch == 'y' ? y : xs);
                    return torch::linear(torch::cat(parts, -1), weight); // Eq. 9.3: no bias
                };
                vIn = torch::cat({edges(cfg.edgeForward, p(pre + "edge_fwd.weight")), edges(cfg.edgeBackward, p(pre + "edge_bwd.weight"))});
                if (cfg.positional)
                    vIn = vIn + sinusoid(kc, d, vIn.options()).index_select(0, epk.pos.remainder(kc));
                eb = multiBranch(w, vIn, epk, cfg.lnEps);
                eState = parent(eb.out, vIn, epk, p(pre + "out.weight"), p(pre + "out.bias"), false); // [2G, d]
                writeRows(ebuf, slots, eState.narrow(0, 0, G) + eState.narrow(0, G, G));
            }
            writeRows(buf, slots, state);
            if (record) {
                std::int64_t off = 0, coff = 0;
                for (std::int64_t g = 0; g < G; ++g) {
                    const auto [b, v] = group[static_cast<std::size_t>(g)];
                    const std::int64_t k = counts[static_cast<std::size_t>(g)], kk = childCounts[static_cast<std::size_t>(g)];
                    NodeRecord &nr = out.sentences[b].nodes[static_cast<std::size_t>(v)];
                    nr.attn = mb.attn[g].narrow(1, 0, k).narrow(2, 0, k).detach();
                    if (mb.branch.defined()) // multi-branch only
                        nr.branch = mb.branch.narrow(1, off, k).detach();
                    nr.mbOut = mb.out.narrow(0, off, k).detach();
                    if (dtte) {
                        nr.edgeFwdInput = vIn.narrow(0, coff, kk).detach();
                        nr.edgeBwdInput = vIn.narrow(0, Rc + coff, kk).detach();
                        nr.edgeFwdAttn = eb.attn[g].narrow(1, 0, kk).narrow(2, 0, kk).detach();
                        nr.edgeBwdAttn = eb.attn[G + g].narrow(1, 0, kk).narrow(2, 0, kk).detach();
                        nr.edgeFwdState = eState[g].detach();
                        nr.edgeBwdState = eState[G + g].detach();
                    }
                    off += k;
                    coff += kk;
                }
            }
            continue;
        }

        // Tree-LSTMs (§7.2-7.4): the children padded to K (a Tree-LSTM has no head-word row), M = their h,
        // keys M W_kᵀ.
        std::vector<std::int64_t> idx(static_cast<std::size_t>(G * K), 0);
        std::vector<std::uint8_t> maskv(static_cast<std::size_t>(G * K), 0);
        for (std::int64_t g = 0; g < G; ++g) {
            const auto [b, v] = group[static_cast<std::size_t>(g)];
            const RecNode &node = batch[b]->tree.nodes[static_cast<std::size_t>(v)];
            for (std::size_t j = 0; j < node.children.size(); ++j) {
                const RecChild &ch = node.children[j];
                idx[static_cast<std::size_t>(g * K) + j] = ch.node ? nodeBase[b] + ch.index : wordBase[b] + ch.index;
                maskv[static_cast<std::size_t>(g * K) + j] = 1;
            }
        }
        const Tensor index = int64On(idx, m_device, {G * K});
        const Tensor mask = torch::tensor(maskv, torch::kUInt8).view({G, K}).to(torch::kBool).to(m_device);
        const bool binary = cfg.model == RecModel::TreeLstmBinary;
        const Tensor hm = hbuf.index_select(0, index).view({G, K, m}), cm = cbuf.index_select(0, index).view({G, K, m});
        const Tensor key = torch::linear(hm, p(pre + "attn.Wk"));
        const double scale = 1.0 / std::sqrt(static_cast<double>(m));
        const float ninf = -std::numeric_limits<float>::infinity();
        Tensor alpha, hatt;
        if (cross) {
            const Tensor q = queries.index_select(0, int64On(sent, m_device, {G})); // [G, m]
            const Tensor align = key.matmul(q.unsqueeze(-1)).squeeze(-1) * scale;    // [G, K]
            alpha = torch::softmax(align.masked_fill(mask.logical_not(), ninf), -1);
            hatt = torch::tanh(torch::linear((alpha.unsqueeze(-1) * hm).sum(1), p(pre + "attn.W.weight"), p(pre + "attn.W.bias")));
        } else {
            const Tensor q = torch::linear(hm, p(pre + "attn.Wq"));
            const Tensor align = q.matmul(key.transpose(-1, -2)) * scale; // [G, K, K]
            alpha = torch::softmax(align.masked_fill(mask.view({G, 1, K}).logical_not(), ninf), -1);
            hatt = torch::tanh(torch::linear(alpha.matmul(hm), p(pre + "attn.W.weight"), p(pre + "attn.W.bias")));
        }
        const Tensor bias = p(pre + "cell.bias");
        Tensor i, o, u, c, f;
        if (!binary) {
            const Tensor maskf = mask.unsqueeze(-1).to(hm.scalar_type());
            const Tensor htilde = cross ? hatt : (hatt * maskf).sum(1);
            const auto wx = torch::linear(E.index_select(0, int64On(headWords, m_device, {G})), p(pre + "cell.W.weight"), bias);
            const auto z = (wx.narrow(-1, 0, 3 * m) + torch::linear(htilde, p(pre + "cell.U_iou.weight"))).chunk(3, -1);
            i = torch::sigmoid(z[0]);
            o = torch::sigmoid(z[1]);
            u = torch::tanh(z[2]);
            f = torch::sigmoid(wx.narrow(-1, 3 * m, m).unsqueeze(1) + torch::linear(hm, p(pre + "cell.U_f.weight"))); // [G, K, m]
            c = i * u + (f * cm * maskf).sum(1);
        } else {
            const Tensor hin = cross ? torch::cat({hatt, hatt}, -1) : hatt.reshape({G, 2 * m});
            const auto z = torch::linear(hin, p(pre + "cell.U_iou.weight"), bias.narrow(0, 0, 3 * m)).chunk(3, -1);
            i = torch::sigmoid(z[0]);
            o = torch::sigmoid(z[1]);
            u = torch::tanh(z[2]);
            const Tensor bf = bias.narrow(0, 3 * m, m);
            f = torch::sigmoid(torch::linear(hin, p(pre + "cell.U_f.weight"), torch::cat({bf, bf}))).view({G, 2, m});
            c = i * u + (f * cm).sum(1);
        }
        const Tensor h = o * torch::tanh(c);
        writeRows(hbuf, slots, h);
        writeRows(cbuf, slots, c);
        if (record) {
            const Tensor gates = torch::stack({i, o, u, c, h}, 1); // [G, 5, m]
            for (std::int64_t g = 0; g < G; ++g) {
                const auto [b, v] = group[static_cast<std::size_t>(g)];
                const std::int64_t k = static_cast<std::int64_t>(batch[b]->tree.nodes[static_cast<std::size_t>(v)].children.size());
                NodeRecord &nr = out.sentences[b].nodes[static_cast<std::size_t>(v)];
                nr.attn = (cross ? alpha[g].narrow(0, 0, k) : alpha[g].narrow(0, 0, k).narrow(1, 0, k)).detach();
                nr.hAtt = (cross ? hatt[g] : hatt[g].narrow(0, 0, k)).detach();
                nr.f = f[g].narrow(0, 0, k).detach();
                nr.gates = gates[g].detach();
            }
        }
    }

    std::vector<Tensor> roots;
    for (std::size_t b = 0; b < B; ++b) {
        const RecTree &t = batch[b]->tree;
        const auto N = static_cast<std::int64_t>(t.nodes.size()), n = static_cast<std::int64_t>(batch[b]->ids.size());
        SentenceRecord &sr = out.sentences[b];
        sr.words = E.narrow(0, wordBase[b], n);
        const std::int64_t rootSlot = N > 0 ? nodeBase[b] + N - 1 : wordBase[b] + std::max(0, t.rootWord);
        if (!tl) {
            sr.states = buf.narrow(0, nodeBase[b], N);
            if (dtte) {
                sr.edgeStates = ebuf.narrow(0, nodeBase[b], N);
                sr.root = torch::cat({buf[rootSlot], ebuf[rootSlot]}); // R = [r_u(root); r_v(root)]
            } else {
                sr.root = buf[rootSlot];
            }
        } else {
            sr.states = hbuf.narrow(0, nodeBase[b], N);
            sr.leafGates = leafGates.narrow(1, wordBase[b], n);
            sr.root = hbuf[rootSlot];
        }
        roots.push_back(sr.root);
    }
    out.roots = B > 0 ? torch::stack(roots) : torch::zeros({0, cfg.rootDim()}, E.options());
    return out;
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
                                  bool record, Order order, const std::string &query) const
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
    out.a = encode(left, sb, record, order, query);
    out.b = encode(right, sa, record, order, query);
    out.head = head(out.a.roots, out.b.roots);
    return out;
}

} // namespace treelens::rec
