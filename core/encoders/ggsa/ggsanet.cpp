// LibTorch GGSA / iGGSA (see ggsanet.h; the maths is fixtures/ggsa-reference/README.md, steps 1-7).
#include "core/encoders/ggsa/ggsanet.h"

#include <cmath>
#include <limits>
#include <set>

#include <torch/torch.h>

#include "core/encoders/common/attribution.h"
#include "core/encoders/common/headmask.h"
#include "core/encoders/common/torchtensors.h"

namespace treelens::ggsa {

namespace F = torch::nn::functional;
using torch::indexing::Slice;

namespace {


torch::Tensor affine(const torch::Tensor &x, const torch::Tensor &w, const torch::Tensor &b = {})
{
    return b.defined() ? F::linear(x, w, b) : F::linear(x, w);
}

torch::Tensor layerNorm(const torch::Tensor &x, const torch::Tensor &g, const torch::Tensor &b, double eps)
{
    return torch::layer_norm(x, {x.size(-1)}, g, b, eps);
}

/// Mean over the real rows: x [B, L, D], mask [B, L] → [B, D].
torch::Tensor maskedMean(const torch::Tensor &x, const torch::Tensor &mask)
{
    const auto m = mask.to(x.scalar_type()).unsqueeze(-1);
    return (x * m).sum(1) / m.sum(1).clamp_min(1.0);
}

/// Elementwise max over the real rows: x [B, L, D], mask [B, L] → [B, D].
torch::Tensor maskedMax(const torch::Tensor &x, const torch::Tensor &mask)
{
    return x.masked_fill(~mask.unsqueeze(-1), -std::numeric_limits<float>::infinity()).amax(1);
}

} // namespace

std::map<std::string, std::vector<std::int64_t>> Net::parameterShapes(const GgsaConfig &c)
{
    std::map<std::string, std::vector<std::int64_t>> m;
    const std::int64_t D = c.dModel, f = c.dFF, V = c.vocabSize, M = c.dMlp;
    m["embed.weight"] = {V, D};
    for (const char *side : {"q_enc", "a_enc"})
        for (int k = 0; k < c.layers; ++k) {
            const std::string p = std::string(side) + ".layers." + std::to_string(k) + ".";
            m[p + "gate.weight"] = {D, D};
            m[p + "gate.bias"] = {D};
            for (const char *w : {"w_q", "w_k", "w_v", "w_o"})
                m[p + "attn." + w + ".weight"] = {D, D};
            m[p + "ln.weight"] = {D};
            m[p + "ln.bias"] = {D};
            m[p + "ffn.w1.weight"] = {f, D};
            m[p + "ffn.w1.bias"] = {f};
            m[p + "ffn.w2.weight"] = {D, f};
            m[p + "ffn.w2.bias"] = {D};
            if (c.interaction && std::string(side) == "a_enc") {
                m[p + "inter_ffn.w1.weight"] = {f, D};
                m[p + "inter_ffn.w1.bias"] = {f};
                m[p + "inter_ffn.w2.weight"] = {D, f};
                m[p + "inter_ffn.w2.bias"] = {D};
                m[p + "inter_ln.weight"] = {D};
                m[p + "inter_ln.bias"] = {D};
            }
        }
    if (c.composition == "attention") {
        m["comp.w_am.weight"] = {D, D};
        m["comp.w_qm.weight"] = {D, D};
        m["comp.w_ms.weight"] = {1, D};
    }
    if (c.overlapFeature)
        m["overlap.weight"] = {2, D};
    m["head.mlp1.weight"] = {M, 2 * D};
    m["head.mlp1.bias"] = {M};
    m["head.mlp2.weight"] = {2, M};
    m["head.mlp2.bias"] = {2};
    return m;
}

Result<Net> Net::fromTensors(const GgsaConfig &config, const TensorMap &tensors, const torch::Device &device,
                             const std::string &where)
{
    auto params = configuredParameters(config, parameterShapes(config), tensors, device, where,
                                        "this GGSA configuration (" + std::to_string(config.layers) + " blocks, interaction " +
                                            (config.interaction ? "on" : "off") + ", composition " + config.composition + ")",
                                        true);
    if (!params)
        return params.error();
    Net net(config, device, std::move(*params));
    net.m_pe = positionTable(config, config.maxLen).to(device);
    return net;
}

TensorMap Net::randomTensors(const GgsaConfig &c, unsigned seed)
{
    return randomTensorsFor(parameterShapes(c), seed, [&](const std::string &name, const std::vector<std::int64_t> &shape) {
        if (name.find("ln.weight") != std::string::npos)
            return torch::ones(shape);
        if (name == "embed.weight")
            return torch::randn(shape) * (1.0 / std::sqrt(static_cast<double>(c.dModel)));
        return shape.size() >= 2 ? xavierUniform(shape, shape[0] + shape[1]) : torch::zeros(shape);
    });
}

std::vector<torch::Tensor> Net::parameters() const
{
    return parameterList(m_p);
}

torch::Tensor Net::positionTable(const GgsaConfig &config, int rows)
{
    const int D = config.dModel;
    auto pe = torch::empty({rows, D}, torch::kFloat64);
    auto acc = pe.accessor<double, 2>();
    const bool literal = config.positionalEncoding == "paper_literal";
    for (int i = 0; i < rows; ++i)
        for (int j = 0; j < D; ++j) {
            const double e = literal ? 2.0 * j / D : 2.0 * (j / 2) / D;
            const double angle = i / std::pow(10000.0, e);
            acc[i][j] = j % 2 == 0 ? std::sin(angle) : std::cos(angle);
        }
    return pe.to(torch::kFloat32);
}

torch::Tensor Net::positions(int rows) const
{
    return rows <= m_pe.size(0) ? m_pe.slice(0, 0, rows) : positionTable(m_config, rows).to(m_device);
}

torch::Tensor Net::groupAttention(const torch::Tensor &q, const torch::Tensor &k, const torch::Tensor &v,
                                  const torch::Tensor &mask, AttentionKernel kernel, torch::Tensor *weights,
                                  torch::Tensor *globalWeights) const
{
    const auto B = q.size(0), n = q.size(1), L = q.size(2), d = q.size(3);
    const double scale = 1.0 / std::sqrt(static_cast<double>(d));
    const int l = m_config.globalAttention ? static_cast<int>(std::max<std::int64_t>(L, 1)) : m_config.groupSize;
    auto offsetOf = [&](int h) { return m_config.globalAttention ? 0 : m_config.offsets[static_cast<std::size_t>(h)]; };
    const float ninf = -std::numeric_limits<float>::infinity();
    const auto opts = torch::TensorOptions().device(q.device());

    if (kernel == AttentionKernel::Dense) {
        // allowed[h, i, j]: same group of head h; pads may see themselves (their rows are discarded).
        auto pos = torch::arange(L, opts.dtype(torch::kLong));
        std::vector<torch::Tensor> same;
        for (int h = 0; h < n; ++h) {
            auto gid = torch::div(pos + offsetOf(h), l, "floor");
            same.push_back(gid.unsqueeze(1) == gid.unsqueeze(0));
        }
        auto sameGroup = torch::stack(same).unsqueeze(0);                    // [1, n, L, L]
        auto eye = torch::eye(L, opts.dtype(torch::kBool)).view({1, 1, L, L});
        auto keyOk = mask.view({B, 1, 1, L}) | eye;                          // [B, 1, L, L]
        auto scores = torch::matmul(q, k.transpose(-1, -2)) * scale;         // [B, n, L, L]
        auto a = torch::softmax(scores.masked_fill(~(sameGroup & keyOk), ninf), -1);
        if (weights)
            *weights = a;
        if (globalWeights)
            *globalWeights = torch::softmax(scores.masked_fill(~keyOk, ninf), -1);
        return torch::matmul(a, v);
    }

    // Blocked: heads sharing an offset are placed at slots o..o+L-1 of a zero
    // buffer of m*l slots, cut into [m, l] blocks; empty slots are masked as keys.
    std::vector<torch::Tensor> outHeads(static_cast<std::size_t>(n));
    std::set<int> offsets;
    for (int h = 0; h < n; ++h)
        offsets.insert(offsetOf(h));
    for (int o : offsets) {
        std::vector<std::int64_t> hs;
        for (int h = 0; h < n; ++h)
            if (offsetOf(h) == o)
                hs.push_back(h);
        auto idx = torch::tensor(hs, opts.dtype(torch::kLong));
        const std::int64_t m = (L + o + l - 1) / l, P = m * l, nh = static_cast<std::int64_t>(hs.size());
        auto place = [&](const torch::Tensor &x) {
            auto sel = x.index_select(1, idx);                               // [B, nh, L, d]
            return F::pad(sel, F::PadFuncOptions({0, 0, o, P - L - o})).view({B, nh, m, l, d});
        };
        auto qb = place(q), kb = place(k), vb = place(v);
        auto slotOk = F::pad(mask, F::PadFuncOptions({o, P - L - o})).view({B, 1, m, 1, l});
        auto eye = torch::eye(l, opts.dtype(torch::kBool)).view({1, 1, 1, l, l});
        auto s = torch::matmul(qb, kb.transpose(-1, -2)) * scale;           // [B, nh, m, l, l]
        auto a = torch::softmax(s.masked_fill(~(slotOk | eye), ninf), -1);
        auto out = torch::matmul(a, vb).view({B, nh, P, d}).index({Slice(), Slice(), Slice(o, o + L)});
        for (std::size_t i = 0; i < hs.size(); ++i)
            outHeads[static_cast<std::size_t>(hs[i])] = out.select(1, static_cast<std::int64_t>(i));
    }
    return torch::stack(outHeads, 1);
}

torch::Tensor Net::block(const std::string &pre, const torch::Tensor &x, const torch::Tensor &mask,
                         AttentionKernel kernel, const torch::Tensor &questionContext, Recording *rec,
                         const std::vector<HeadAblation> &ablate, int layer) const
{
    const auto &c = m_config;
    const auto B = x.size(0), L = x.size(1);
    const std::int64_t n = c.heads, d = c.dHead();
    auto xbar = maskedMean(x, mask);                                                    // 3a
    torch::Tensor g = c.gate ? torch::sigmoid(affine(x * xbar.unsqueeze(1), p(pre + "gate.weight"), p(pre + "gate.bias")))
                             : torch::ones_like(x);                                     // 3b
    auto xg = x * g;                                                                    // 3c
    auto split = [&](const torch::Tensor &t) { return t.view({B, L, n, d}).transpose(1, 2); };
    auto q = split(affine(xg, p(pre + "attn.w_q.weight")));                             // 3d
    auto k = split(affine(xg, p(pre + "attn.w_k.weight")));
    auto v = split(affine(xg, p(pre + "attn.w_v.weight")));
    torch::Tensor a, ga;
    auto t = groupAttention(q, k, v, mask, rec ? AttentionKernel::Dense : kernel, rec ? &a : nullptr,
                            rec ? &ga : nullptr);                                       // 3e, 3e'
    t = withoutAblatedHeads(t, ablate, layer);                                          // head ablation
    auto cOut = affine(t.transpose(1, 2).reshape({B, L, n * d}), p(pre + "attn.w_o.weight")); // 3f
    auto y = layerNorm(x + cOut, p(pre + "ln.weight"), p(pre + "ln.bias"), c.lnEps);  // 3g
    auto ffn = [&](const std::string &name, const torch::Tensor &z) {
        return affine(torch::relu(affine(z, p(pre + name + ".w1.weight"), p(pre + name + ".w1.bias"))),
                      p(pre + name + ".w2.weight"), p(pre + name + ".w2.bias"));
    };
    torch::Tensor base = y;
    if (questionContext.defined()) {                                                     // 4b, 4c
        auto rInt = ffn("inter_ffn", y * questionContext.unsqueeze(1));
        base = layerNorm(y + rInt, p(pre + "inter_ln.weight"), p(pre + "inter_ln.bias"), c.lnEps);
        if (rec) {
            (*rec)["cq"].push_back(questionContext);
            (*rec)["Rint"].push_back(rInt);
            (*rec)["Yint"].push_back(base);
        }
    }
    auto h = base + ffn("ffn", base);                                                   // 3h, 3i / 4d, 4e
    if (rec) {
        (*rec)["xbar"].push_back(xbar);
        (*rec)["gate"].push_back(g);
        (*rec)["localAttn"].push_back(a);
        (*rec)["globalAttn"].push_back(ga);
        (*rec)["Y"].push_back(y);
    }
    return h;
}

torch::Tensor Net::overlapIndicator(const torch::Tensor &ids, const torch::Tensor &mask, const torch::Tensor &other,
                                    const torch::Tensor &otherMask) const
{
    auto same = (ids.unsqueeze(2) == other.unsqueeze(1)) & otherMask.unsqueeze(1);
    return (same.any(2) & mask & (ids != m_config.unkId)).to(torch::kLong);
}

torch::Tensor Net::encode(const std::string &side, const torch::Tensor &ids, const torch::Tensor &mask,
                          AttentionKernel kernel, bool train, SideRecord *record, const torch::Tensor &questionH,
                          const torch::Tensor &questionMask, const torch::Tensor &overlap,
                          const std::vector<HeadAblation> &ablate) const
{
    const auto &c = m_config;
    const auto L = ids.size(1);
    // Through inputEmbedding: what attributions differentiate (the question side 0, the answer 1).
    auto x = inputEmbedding(p("embed.weight"), ids, side == "q_enc" ? 0 : 1);
    if (c.embeddingScale != 1.0)
        x = x * c.embeddingScale;
    if (c.overlapFeature && overlap.defined())
        x = x + torch::embedding(p("overlap.weight"), overlap);
    if (train && c.embeddingDropout > 0.0)
        x = F::dropout(x, F::DropoutFuncOptions().p(c.embeddingDropout).training(true));
    x = x + positions(static_cast<int>(L)).unsqueeze(0);
    Recording rec;
    if (record)
        record->x0 = x;
    std::vector<torch::Tensor> hs;
    const bool inter = side == "a_enc" && c.interaction;
    for (int k = 0; k < c.layers; ++k) {
        torch::Tensor context;
        if (inter)
            context = maskedMean(questionH.select(1, k), questionMask);                  // 4a
        x = block(side + ".layers." + std::to_string(k) + ".", x, mask, kernel, context, record ? &rec : nullptr, ablate, k);
        hs.push_back(x);
    }
    auto H = torch::stack(hs, 1);
    if (record) {
        auto stack = [&](const char *name) { return rec.count(name) ? torch::stack(rec[name], 1) : torch::Tensor(); };
        record->xbar = stack("xbar");
        record->gate = stack("gate");
        record->localAttn = stack("localAttn");
        record->globalAttn = stack("globalAttn");
        record->Y = stack("Y");
        record->cq = stack("cq");
        record->Rint = stack("Rint");
        record->Yint = stack("Yint");
        record->H = H;
    }
    return H;
}

PairOutput Net::forward(const torch::Tensor &qIds, const torch::Tensor &qMask, const torch::Tensor &aIds,
                        const torch::Tensor &aMask, AttentionKernel kernel, bool train, bool record,
                        const std::vector<HeadAblation> &ablate) const
{
    const auto &c = m_config;
    PairOutput out;
    torch::Tensor qOverlap, aOverlap;
    if (c.overlapFeature) {
        qOverlap = overlapIndicator(qIds, qMask, aIds, aMask);
        aOverlap = overlapIndicator(aIds, aMask, qIds, qMask);
    }
    auto Hq = encode("q_enc", qIds, qMask, kernel, train, record ? &out.q : nullptr, {}, {}, qOverlap, ablate);
    auto Ha = encode("a_enc", aIds, aMask, kernel, train, record ? &out.a : nullptr, Hq, qMask, aOverlap, ablate);
    auto hq = Hq.select(1, c.layers - 1), ha = Ha.select(1, c.layers - 1);
    out.vq = maskedMax(hq, qMask);                                                       // step 6
    if (c.composition == "attention") {
        auto mt = torch::tanh(affine(ha, p("comp.w_am.weight")) + affine(out.vq, p("comp.w_qm.weight")).unsqueeze(1));
        auto e = affine(mt, p("comp.w_ms.weight")).squeeze(-1);                          // [B, La]
        out.compAttn = torch::softmax(e.masked_fill(~aMask, -std::numeric_limits<float>::infinity()), 1);
        out.va = maskedMax(out.compAttn.unsqueeze(-1) * ha, aMask);
    } else {
        out.va = maskedMax(ha, aMask);
    }
    out.cosine = (out.vq * out.va).sum(1) / (out.vq.norm(2, 1) * out.va.norm(2, 1)).clamp_min(1e-12); // step 7
    auto u = torch::relu(affine(torch::cat({out.vq, out.va}, 1), p("head.mlp1.weight"), p("head.mlp1.bias")));
    out.logits = affine(u, p("head.mlp2.weight"), p("head.mlp2.bias"));
    out.score = c.score == "mlp" ? torch::softmax(out.logits, 1).select(1, 1) : out.cosine;
    return out;
}

} // namespace treelens::ggsa
