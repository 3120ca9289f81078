// LibTorch Dependency-Transformer (see deptransformernet.h).
#include "core/encoders/deptransformer/deptransformernet.h"

#include <cmath>
#include <limits>

#include <torch/torch.h>

#include "core/encoders/common/attribution.h"
#include "core/encoders/common/headmask.h"
#include "core/encoders/common/torchtensors.h"

namespace treelens::deptrans {

namespace F = torch::nn::functional;

Result<Prepared> prepareSentence(const std::vector<std::int64_t> &wordIds, const DependencyTree &tree,
                                 const DepTransformerConfig &config, const RelationVocabulary &relations)
{
    auto f = depTreeFeatures(tree, relations, config.maxRelDist, config.maxLevel);
    if (!f)
        return f.error();
    if (f->n1 > config.maxLen)
        return makeError("sentence", std::to_string(f->n1 - 1) + " words, the model takes at most " +
                                         std::to_string(config.maxLen - 1));
    Prepared p;
    p.ids.push_back(config.rootId);
    p.ids.insert(p.ids.end(), wordIds.begin(), wordIds.end());
    for (int t = 0; t < f->n1; ++t) {
        p.positions.push_back(t);
        p.levels.push_back(f->levels[static_cast<std::size_t>(t)]);
    }
    p.relations.assign(f->relations.begin(), f->relations.end());
    p.features = std::move(*f);
    return p;
}

std::vector<torch::Tensor> batchTensors(const std::vector<const Prepared *> &items, const DepTransformerConfig &config,
                                        int relationPadId, const torch::Device &device)
{
    std::int64_t L = 1;
    for (const auto *p : items)
        L = std::max<std::int64_t>(L, static_cast<std::int64_t>(p->ids.size()));
    const auto B = static_cast<std::int64_t>(items.size());
    auto ids = torch::full({B, L}, config.padId, torch::kLong), pos = torch::zeros({B, L}, torch::kLong),
         lev = torch::zeros({B, L}, torch::kLong), rel = torch::full({B, L, L}, relationPadId, torch::kLong);
    auto mask = torch::zeros({B, L}, torch::kBool);
    auto ia = ids.accessor<std::int64_t, 2>(), pa = pos.accessor<std::int64_t, 2>(), la = lev.accessor<std::int64_t, 2>();
    auto ra = rel.accessor<std::int64_t, 3>();
    auto ma = mask.accessor<bool, 2>();
    for (std::int64_t b = 0; b < B; ++b) {
        const Prepared &p = *items[static_cast<std::size_t>(b)];
        const auto m = static_cast<std::int64_t>(p.ids.size());
        for (std::int64_t t = 0; t < m; ++t) {
            ia[b][t] = p.ids[static_cast<std::size_t>(t)];
            pa[b][t] = p.positions[static_cast<std::size_t>(t)];
            la[b][t] = p.levels[static_cast<std::size_t>(t)];
            ma[b][t] = true;
            for (std::int64_t u = 0; u < m; ++u)
                ra[b][t][u] = p.relations[static_cast<std::size_t>(t * m + u)];
        }
    }
    return {ids.to(device), pos.to(device), lev.to(device), rel.to(device), mask.to(device)};
}

std::map<std::string, std::vector<std::int64_t>> Net::parameterShapes(const DepTransformerConfig &c)
{
    std::map<std::string, std::vector<std::int64_t>> m;
    const std::int64_t d = c.dModel, H = c.heads, r = c.dRel, f = c.dFF;
    m["emb.word.weight"] = {c.vocabSize, d};
    m["emb.pos.weight"] = {c.maxLen, d};
    m["emb.level.weight"] = {c.maxLevel + 1, d};
    m["emb.rel.weight"] = {c.relations, r};
    for (int l = 0; l < c.layers; ++l) {
        const std::string pre = "layers." + std::to_string(l) + ".";
        for (const char *w : {"q", "k", "v", "o"}) {
            m[pre + "attn." + w + ".weight"] = {d, d};
            m[pre + "attn." + w + ".bias"] = {d};
        }
        m[pre + "attn.rel_v"] = {H, r};
        m[pre + "attn.gate_we"] = {H, d, r};
        m[pre + "attn.gate_wr"] = {H, r, r};
        m[pre + "attn.gate_v"] = {H, r};
        for (const char *ln : {"ln1", "ln2"}) {
            m[pre + ln + ".weight"] = {d};
            m[pre + ln + ".bias"] = {d};
        }
        m[pre + "ffn.w1.weight"] = {f, d};
        m[pre + "ffn.w1.bias"] = {f};
        m[pre + "ffn.w2.weight"] = {d, f};
        m[pre + "ffn.w2.bias"] = {d};
    }
    m["cls.weight"] = {c.classes, d};
    m["cls.bias"] = {c.classes};
    m["pair.w_mul.weight"] = {c.pairHidden, d};
    m["pair.w_abs.weight"] = {c.pairHidden, d};
    m["pair.b_h"] = {c.pairHidden};
    m["pair.out.weight"] = {c.pairClasses, c.pairHidden};
    m["pair.out.bias"] = {c.pairClasses};
    return m;
}

Result<Net> Net::fromTensors(const DepTransformerConfig &config, const TensorMap &tensors, const torch::Device &device,
                             const std::string &where)
{
    auto params = configuredParameters(config, parameterShapes(config), tensors, device, where,
                                       "a " + std::to_string(config.layers) + "-layer dependency-transformer");
    if (!params)
        return params.error();
    return Net(config, device, std::move(*params));
}

TensorMap Net::randomTensors(const DepTransformerConfig &c, unsigned seed)
{
    return randomTensorsFor(parameterShapes(c), seed, [&](const std::string &name, const std::vector<std::int64_t> &shape) {
        if (name.find("ln1.weight") != std::string::npos || name.find("ln2.weight") != std::string::npos)
            return torch::ones(shape);
        if (name.rfind("emb.", 0) == 0)
            return torch::randn(shape) * (name == "emb.rel.weight" ? 1.0 : 1.0 / std::sqrt(static_cast<double>(c.dModel)));
        if (shape.size() >= 2)
            return xavierUniform(shape, shape[shape.size() - 2] + shape.back());
        if (name.find("rel_v") != std::string::npos || name.find("gate_v") != std::string::npos)
            return torch::randn(shape) * 0.3;
        return torch::zeros(shape);
    });
}

Output Net::forward(const torch::Tensor &ids, const torch::Tensor &positions, const torch::Tensor &levels,
                    const torch::Tensor &relations, const torch::Tensor &mask, bool record,
                    const DepTransformerConfig *variant, bool train, const std::vector<HeadAblation> &ablate) const
{
    auto drop = [&](const torch::Tensor &t) {
        return train && m_dropout > 0 ? F::dropout(t, F::DropoutFuncOptions().p(m_dropout).training(true)) : t;
    };
    const DepTransformerConfig &c = variant ? *variant : m_config;
    const auto B = ids.size(0), L = ids.size(1);
    const std::int64_t H = m_config.heads, dk = m_config.dHead();
    const float ninf = -std::numeric_limits<float>::infinity();
    // The word embeddings through inputEmbedding: what attributions differentiate (common/attribution.h).
    auto x = inputEmbedding(p("emb.word.weight"), ids) + torch::embedding(p("emb.pos.weight"), positions);
    if (c.levelEmbedding)
        x = x + torch::embedding(p("emb.level.weight"), levels);
    x = drop(x);
    // A variant without relation attention is a plain Transformer: the relation
    // scores and gates are only computed when used, or recorded for display.
    const bool needRel = c.relationAttention || record;
    const bool needGate = (c.relationAttention && c.gate) || record;
    torch::Tensor r;
    if (needRel)
        r = torch::embedding(p("emb.rel.weight"), relations);                 // [B, L, L, dr]
    auto keyMask = ~mask.view({B, 1, 1, L});
    std::vector<torch::Tensor> hidden{x}, se, sw, sr, rw, gs, ss, at, ln;
    for (int l = 0; l < m_config.layers; ++l) {
        const std::string pre = "layers." + std::to_string(l) + ".";
        auto split = [&](const torch::Tensor &t) { return t.view({B, L, H, dk}).transpose(1, 2); };
        auto q = split(F::linear(x, p(pre + "attn.q.weight"), p(pre + "attn.q.bias")));
        auto k = split(F::linear(x, p(pre + "attn.k.weight"), p(pre + "attn.k.bias")));
        auto v = split(F::linear(x, p(pre + "attn.v.weight"), p(pre + "attn.v.bias")));
        auto sSelf = torch::matmul(q, k.transpose(-1, -2)) / std::sqrt(static_cast<double>(dk)); // [B, H, L, L]
        torch::Tensor sRel, g;
        if (needRel) // eq. (1): S^r_ij = r_ij . rel_v[h]
            sRel = torch::einsum("bijr,hr->bhij", {r, p(pre + "attn.rel_v")});
        if (needGate) {
            // Eq. (3): g_ij = sigmoid((X_i W_ge + r_ij W_gr) . V_g), X_i the query's layer input.
            // The product with V_g is linear, so it is folded into W_ge and W_gr first
            // (no [B, H, L, L, d_r] tensor): X_i (W_ge V_g) + r_ij (W_gr V_g).
            auto wev = torch::einsum("hdr,hr->hd", {p(pre + "attn.gate_we"), p(pre + "attn.gate_v")});  // [H, d]
            auto wrv = torch::einsum("hrs,hs->hr", {p(pre + "attn.gate_wr"), p(pre + "attn.gate_v")});  // [H, dr]
            auto fromQuery = torch::einsum("bid,hd->bhi", {x, wev}).unsqueeze(-1);                      // [B, H, L, 1]
            g = torch::sigmoid(fromQuery + torch::einsum("bijr,hr->bhij", {r, wrv}));
        }
        torch::Tensor s;
        if (!c.relationAttention)
            s = sSelf;
        else if (!c.gate)
            s = sSelf + sRel;
        else
            s = (1 - g) * sSelf + g * sRel;                                                       // eq. (2)
        auto a = torch::softmax(s.masked_fill(keyMask, ninf), -1);
        auto ctx = withoutAblatedHeads(torch::matmul(a, v), ablate, l).transpose(1, 2).reshape({B, L, H * dk});
        auto o = F::linear(ctx, p(pre + "attn.o.weight"), p(pre + "attn.o.bias"));
        auto y = torch::layer_norm(x + drop(o), {m_config.dModel}, p(pre + "ln1.weight"), p(pre + "ln1.bias"), m_config.lnEps);
        auto ff = F::linear(torch::relu(F::linear(y, p(pre + "ffn.w1.weight"), p(pre + "ffn.w1.bias"))),
                            p(pre + "ffn.w2.weight"), p(pre + "ffn.w2.bias"));
        x = torch::layer_norm(y + drop(ff), {m_config.dModel}, p(pre + "ln2.weight"), p(pre + "ln2.bias"), m_config.lnEps);
        if (record) {
            se.push_back(sSelf);
            sw.push_back(torch::softmax(sSelf.masked_fill(keyMask, ninf), -1));
            sr.push_back(sRel);
            rw.push_back(torch::softmax(sRel.masked_fill(keyMask, ninf), -1));
            gs.push_back(g);
            ss.push_back(s);
            at.push_back(a);
            ln.push_back(y);
            hidden.push_back(x);
        }
    }
    Output out;
    out.sentence = x.select(1, 0);
    out.logits = F::linear(out.sentence, p("cls.weight"), p("cls.bias"));
    out.nodeLogits = F::linear(x, p("cls.weight"), p("cls.bias"));
    if (record) {
        out.record.selfScores = torch::stack(se, 1);
        out.record.selfWeights = torch::stack(sw, 1);
        out.record.relScores = torch::stack(sr, 1);
        out.record.relWeights = torch::stack(rw, 1);
        out.record.gates = torch::stack(gs, 1);
        out.record.scores = torch::stack(ss, 1);
        out.record.attn = torch::stack(at, 1);
        out.record.attnLn = torch::stack(ln, 1);
        out.record.hidden = torch::stack(hidden, 1);
    }
    return out;
}

std::vector<torch::Tensor> Net::pairHead(const torch::Tensor &a, const torch::Tensor &b) const
{
    auto mul = a * b;
    auto abs = (a - b).abs();
    auto hs = torch::sigmoid(F::linear(mul, p("pair.w_mul.weight")) + F::linear(abs, p("pair.w_abs.weight")) + p("pair.b_h"));
    auto logits = F::linear(hs, p("pair.out.weight"), p("pair.out.bias"));
    return {mul, abs, hs, logits};
}

} // namespace treelens::deptrans
