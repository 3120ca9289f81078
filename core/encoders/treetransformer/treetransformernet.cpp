#include "core/encoders/treetransformer/treetransformernet.h"

#include <cmath>
#include <cstring>

#include <algorithm>
#include <optional>

#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/record_function.h>
#include <torch/torch.h>

#include "core/encoders/common/headmask.h"
#include "core/encoders/common/torchtensors.h"
#include "core/runtime/cpufeatures.h"
#include "core/runtime/device.h"

namespace treelens::tt {

namespace F = torch::nn::functional;

namespace {

std::string layerName(int l, const char *rest)
{
    return "layers." + std::to_string(l) + "." + rest;
}

torch::Tensor toTorch(const TensorData &t, const torch::Device &device)
{
    return floatTensorOf(t, device); // copied (the network trains in place), a mapped file's pages given back
}

} // namespace

torch::Tensor sinusoidalPositions(int maxLen, int d)
{
    auto pe = torch::zeros({maxLen, d}, torch::kFloat32);
    auto position = torch::arange(0, maxLen, torch::kFloat32).unsqueeze(1);
    auto divTerm = torch::exp(torch::arange(0, d, 2, torch::kFloat32) * -(std::log(10000.0) / d));
    pe.index_put_({torch::indexing::Slice(), torch::indexing::Slice(0, torch::indexing::None, 2)},
                  torch::sin(position * divTerm));
    pe.index_put_({torch::indexing::Slice(), torch::indexing::Slice(1, torch::indexing::None, 2)},
                  torch::cos(position * divTerm));
    return pe;
}

torch::Tensor officialLayerNormRows(const torch::Tensor &xIn, const torch::Tensor &aIn, const torch::Tensor &bIn, double eps)
{
    // One pass per row instead of six LibTorch operators (mean, std, sub, add,
    // div, mul/add): at one sentence those operators' fixed costs were ~10% of
    // the forward pass. Mean and the unbiased variance in double, two passes,
    // as exact as the operators' float result.
    const auto x = xIn.contiguous();
    const auto a = aIn.contiguous(), b = bIn.contiguous();
    const int64_t d = x.size(-1), rows = x.numel() / d;
    auto out = torch::empty_like(x);
    const float *px = x.data_ptr<float>();
    const float *pa = a.data_ptr<float>(), *pb = b.data_ptr<float>();
    float *po = out.data_ptr<float>();
    at::parallel_for(0, rows, 16, [&](int64_t begin, int64_t end) {
        for (int64_t r = begin; r < end; ++r) {
            const float *row = px + r * d;
            double sum = 0;
            for (int64_t k = 0; k < d; ++k)
                sum += row[k];
            const double mean = sum / static_cast<double>(d);
            double sq = 0;
            for (int64_t k = 0; k < d; ++k) {
                const double c = row[k] - mean;
                sq += c * c;
            }
            const float stdev = static_cast<float>(std::sqrt(sq / static_cast<double>(d - 1)));
            const float inv = 1.0f / (stdev + static_cast<float>(eps));
            const float m = static_cast<float>(mean);
            float *o = po + r * d;
            for (int64_t k = 0; k < d; ++k)
                o[k] = pa[k] * ((row[k] - m) * inv) + pb[k];
        }
    });
    return out;
}

torch::Tensor officialLayerNorm(const torch::Tensor &x, const torch::Tensor &a, const torch::Tensor &b, double eps)
{
    auto mean = x.mean(-1, true);
    auto std = x.std(-1, /*unbiased=*/true, /*keepdim=*/true);
    return a * (x - mean) / (std + eps) + b;
}

Result<Net> Net::fromTensors(const TreeTransformerConfig &config, const TensorMap &tensors,
                             const torch::Device &device)
{
    Net net;
    net.m_config = config;
    net.m_device = device;
    for (const auto &[name, t] : tensors) {
        if (name == "word_embed.1.pe")
            continue;
        net.m_p[name] = toTorch(t, device);
    }
    const auto pe = tensors.find("word_embed.1.pe");
    if (pe != tensors.end())
        net.m_pe = toTorch(pe->second, device).reshape({config.maxLen, config.dModel});
    else
        net.m_pe = sinusoidalPositions(config.maxLen, config.dModel).to(device);
    if (auto st = net.refreshFused(); !st)
        return st.error();
    return net;
}

TensorMap Net::toTensors() const
{
    TensorMap out;
    auto put = [&](const std::string &name, const torch::Tensor &t) {
        auto c = t.detach().to(torch::kCPU, torch::kFloat32).contiguous();
        std::vector<float> v(c.data_ptr<float>(), c.data_ptr<float>() + c.numel());
        out[name] = TensorData::fromFloat(std::vector<std::int64_t>(c.sizes().begin(), c.sizes().end()), v);
    };
    for (const auto &[name, t] : m_p)
        put(name, t);
    put("word_embed.1.pe", m_pe.unsqueeze(0));
    return out;
}

std::vector<torch::Tensor> Net::parameters() const
{
    return parameterList(m_p);
}

void Net::setTrainable(bool on)
{
    setRequiresGrad(m_p, on);
}

torch::Tensor Net::Linear::apply(const torch::Tensor &x, const std::string &precision) const
{
    if (precision == "int8" && q) {
        // Called on the packed weights directly (no dispatcher): name it for profilers.
        RECORD_FUNCTION("treelens::int8_linear", std::vector<c10::IValue>());
        return q->apply_dynamic(x.contiguous(), reduceRange);
    }
    if (precision == "bf16" && wHalf.defined())
        return torch::addmm(bHalf, x.to(torch::kBFloat16), wHalf.t()).to(torch::kFloat32);
    // oneDNN for skinny products (a sentence or a few), OpenBLAS for big batches.
    if (packed.defined() && x.size(0) <= 256)
        return torch::mkldnn_linear(x.contiguous().to_mkldnn(), packed, b).to_dense();
    return torch::addmm(b, x, w.t());
}

namespace {

/// The quantized engine int8 weights are packed for: onednn (x86, VNNI when the
/// CPU has it), else qnnpack; none when this LibTorch has neither.
std::optional<at::QEngine> int8Engine()
{
    const auto &engines = at::globalContext().supportedQEngines();
    for (auto e : {at::QEngine::ONEDNN, at::QEngine::QNNPACK})
        if (std::find(engines.begin(), engines.end(), e) != engines.end())
            return e;
    return std::nullopt;
}

/// Symmetric int8 weights, one scale per output row (the rows of a fused Q|K|V
/// or key|query differ in range), packed by LibTorch's quantized::linear_prepack.
/// `qmax` 127, or 63 on CPUs without int8 dot products: there oneDNN multiplies
/// u8 activations by s8 weights pairwise into int16 (vpmaddubsw), and two
/// full-range weights next to each other saturate it (255·127·2 > 32767); with
/// |w| ≤ 63 no pair can (255·126 < 32767), so the activations keep all 8 bits.
/// Measured on WSJ sentences this is both more accurate than 7-bit activations
/// (PyTorch's x86 default, reduce_range) and as fast (docs/performance.md).
c10::intrusive_ptr<LinearPackedParamsBase> packInt8(const torch::Tensor &w, const torch::Tensor &b, double qmax)
{
    auto scales = (w.abs().amax(1).clamp_min(1e-12) / qmax).to(torch::kFloat64);
    auto zeros = torch::zeros({w.size(0)}, torch::kInt64);
    auto qw = at::quantize_per_channel(w, scales, zeros, 0, torch::kQInt8);
    static auto prepack = c10::Dispatcher::singleton()
                              .findSchemaOrThrow("quantized::linear_prepack", "")
                              .typed<c10::intrusive_ptr<LinearPackedParamsBase>(at::Tensor, c10::optional<at::Tensor>)>();
    return prepack.call(qw, b);
}

} // namespace

Net::Linear inferenceLinear(const torch::Tensor &w, const torch::Tensor &b, const std::string &precision)
{
    torch::NoGradGuard guard;
    Net::Linear l;
    l.w = w.detach().contiguous();
    l.b = b.detach().contiguous();
    // oneDNN fp32 ("onednn") is opt-in: measured with OpenBLAS pinned to the
    // same thread count it was slower than addmm (docs/performance.md).
    if (precision == "onednn" && l.w.device().is_cpu() && at::hasMKLDNN())
        l.packed = l.w.to_mkldnn();
    if (precision == "bf16") {
        l.wHalf = l.w.to(torch::kBFloat16);
        l.bHalf = l.b.to(torch::kBFloat16);
    }
    if (precision == "int8") {
        at::globalContext().setQEngine(*int8Engine());
        l.q = packInt8(l.w, l.b, cpuFeatures().int8DotProducts() ? 127.0 : 63.0);
        l.reduceRange = false;
    }
    return l;
}

bool int8Available(const torch::Device &device)
{
    return device.is_cpu() && int8Engine().has_value();
}

Status Net::refreshFused(const std::string &precision)
{
    if (precision != "fp32" && precision != "bf16" && precision != "int8" && precision != "onednn")
        return makeError("precision", "'" + precision + "' is not fp32, bf16, int8 or onednn");
    if (precision == "int8" && !int8Available(m_device))
        return makeError("precision int8", m_device.is_cpu() ? "this LibTorch has no quantized engine (onednn or qnnpack)"
                                                             : "int8 runs on the CPU only; on " + m_device.str() +
                                                                   " use fp32 or bf16");
    torch::NoGradGuard guard;
    m_precision = precision;
    m_fused.clear();
    auto make = [&](const torch::Tensor &w, const torch::Tensor &b) { return inferenceLinear(w, b, precision); };
    for (int l = 0; l < m_config.layers; ++l) {
        auto w = [&](const char *rest) { return m_p.at(layerName(l, rest)); };
        Fused f;
        f.qkv = make(torch::cat({w("self_attn.linears.0.weight"), w("self_attn.linears.1.weight"),
                                 w("self_attn.linears.2.weight")}, 0),
                     torch::cat({w("self_attn.linears.0.bias"), w("self_attn.linears.1.bias"),
                                 w("self_attn.linears.2.bias")}, 0));
        f.g = make(torch::cat({w("group_attn.linear_key.weight"), w("group_attn.linear_query.weight")}, 0),
                   torch::cat({w("group_attn.linear_key.bias"), w("group_attn.linear_query.bias")}, 0));
        f.out = make(w("self_attn.linears.3.weight"), w("self_attn.linears.3.bias"));
        f.w1 = make(w("feed_forward.w_1.weight"), w("feed_forward.w_1.bias"));
        f.w2 = make(w("feed_forward.w_2.weight"), w("feed_forward.w_2.bias"));
        m_fused.push_back(std::move(f));
    }
    return {};
}


struct Forward {
    static Outputs run(const Net &net, const torch::Tensor &ids, const torch::Tensor &mask, const ForwardOptions &o)
    {
        const auto &cfg = net.m_config;
        const auto &p = net.m_p;
        const int64_t B = ids.size(0), L = ids.size(1), d = cfg.dModel, H = cfg.heads, dk = d / H;
        const double eps = cfg.layerNormEps;
        const double drop = o.train ? cfg.dropout : 0.0;
        const auto dev = net.m_device;
        auto dropout = [&](const torch::Tensor &t) { return drop > 0 ? F::dropout(t, F::DropoutFuncOptions().p(drop).training(true)) : t; };
        auto linear = [&](const torch::Tensor &x, const torch::Tensor &w, const torch::Tensor &b) {
            return torch::addmm(b, x.reshape({-1, x.size(-1)}), w.t()).view({B, L, w.size(0)});
        };
        auto P = [&](int l, const char *rest) -> const torch::Tensor & { return p.at(layerName(l, rest)); };
        auto fusedLinear = [&](const torch::Tensor &x, const Net::Linear &lin) {
            return lin.apply(x.reshape({-1, x.size(-1)}), net.m_precision).view({B, L, lin.w.size(0)});
        };
        const bool fused = !o.train && !o.officialStyle && !net.m_fused.empty();
        // The GEMMs' library gets the threads: OpenBLAS in fp32, oneDNN (OpenMP) otherwise.
        std::optional<ThreadScope> gemmThreads;
        if (fused && net.m_device.is_cpu())
            gemmThreads.emplace(0, net.m_precision == "fp32" ? ThreadScope::Gemms::OpenBlas : ThreadScope::Gemms::OneDnn);
        // The inference path normalises rows in one loop; training (autograd) and the
        // official-ops reference use the operators.
        const bool rowNorm = fused && dev.is_cpu() && !torch::GradMode::is_enabled() && cfg.dModel > 1;
        auto layerNorm = [&](const torch::Tensor &t, const torch::Tensor &a, const torch::Tensor &b) {
            return rowNorm ? officialLayerNormRows(t, a, b, eps) : officialLayerNorm(t, a, b, eps);
        };
        auto triF = torch::ones({L, L}, torch::TensorOptions().device(dev)).triu(0);

        Outputs out;
        // Embeddings: lut[id]·sqrt(d) + pe.
        auto x = torch::embedding(p.at("word_embed.0.lut.weight"), ids) * std::sqrt(static_cast<double>(d))
                 + net.m_pe.narrow(0, 0, L).unsqueeze(0);
        x = dropout(x);
        out.embed = x;

        // Structural masks, shared by every layer.
        auto opts = torch::TensorOptions().dtype(torch::kBool).device(dev);
        auto eye = torch::eye(L, opts);
        auto superDiag = torch::ones({L, L}, opts).triu(1).logical_and(torch::ones({L, L}, opts).tril(1));
        auto neighbours = superDiag.logical_or(superDiag.t());
        auto keyMask = mask.unsqueeze(1);                                // [B,1,L]
        auto groupAllowed = keyMask.logical_and(neighbours.unsqueeze(0)); // [B,L,L]
        auto attnAllowed = keyMask.logical_or(eye.unsqueeze(0)).unsqueeze(1); // [B,1,L,L]
        const bool anyPad = !mask.all().item<bool>();
        auto strictUpper = torch::ones({L, L}, opts).triu(1);
        const double scale = 1.0 / std::sqrt(static_cast<double>(dk));

        torch::Tensor prior; // undefined = the scalar 0 of layer 0
        for (int l = 0; l < cfg.layers; ++l) {
            torch::Tensor A, C;
            if (!cfg.constituentPrior) {
                // Prior switched off: a plain Transformer layer (C = 1, every link 1).
                A = C = torch::ones({B, L, L}, x.options());
            } else {
            // ---- constituent ("group") attention
            auto u = layerNorm(x, P(l, "group_attn.norm.a_2"), P(l, "group_attn.norm.b_2"));
            torch::Tensor key, query;
            if (fused) {
                auto kq = fusedLinear(u, net.m_fused[l].g);
                key = kq.narrow(2, 0, d);
                query = kq.narrow(2, d, d);
            } else {
                key = linear(u, P(l, "group_attn.linear_key.weight"), P(l, "group_attn.linear_key.bias"));
                query = linear(u, P(l, "group_attn.linear_query.weight"), P(l, "group_attn.linear_query.bias"));
            }
            auto gScores = torch::bmm(query, key.transpose(1, 2)) / cfg.groupDivisor;
            gScores = gScores.masked_fill(groupAllowed.logical_not(), -1e9);
            auto nb = torch::softmax(gScores, -1);
            nb = torch::sqrt(nb * nb.transpose(1, 2) + 1e-9);
            A = prior.defined() ? prior + (1.0 - prior) * nb : nb;
            // C[i,j] = prod_{k=i}^{j-1} A[k,k+1] for i<j, in log space. Prefix sums in
            // double keep long sentences exact (the official code sums with a
            // float triangular matmul; the results agree to ~1e-7).
            torch::Tensor upper;
            if (o.officialStyle) {
                auto t = torch::log(A + 1e-9).masked_fill(superDiag.logical_not(), 0.0).matmul(triF);
                upper = triF.matmul(t).exp().masked_fill(strictUpper.logical_not(), 0.0);
            } else {
                auto links = A.diagonal(1, 1, 2);                                   // [B,L-1]
                auto logs = torch::log(links.to(torch::kFloat64) + 1e-9);
                auto cs = torch::cat({torch::zeros({B, 1}, logs.options()), logs.cumsum(1)}, 1); // [B,L]
                upper = torch::exp(cs.unsqueeze(1) - cs.unsqueeze(2)).to(A.scalar_type()); // [i,j] = cs[j]-cs[i]
                upper = upper.masked_fill(strictUpper.logical_not(), 0.0);
            }
            C = upper + upper.transpose(1, 2) + A.masked_fill(eye.logical_not(), 1e-9);
            }
            if (o.keepPrior) {
                out.breakProb.push_back(A);
                out.groupProb.push_back(C);
            }
            prior = C;

            // ---- self-attention, weighted by C, not renormalised
            auto h = layerNorm(x, P(l, "sublayer.0.norm.a_2"), P(l, "sublayer.0.norm.b_2"));
            torch::Tensor q, k, v;
            if (fused) {
                auto qkv = fusedLinear(h, net.m_fused[l].qkv).view({B, L, 3, H, dk});
                q = qkv.select(2, 0).transpose(1, 2);
                k = qkv.select(2, 1).transpose(1, 2);
                v = qkv.select(2, 2).transpose(1, 2);
            } else {
                q = linear(h, P(l, "self_attn.linears.0.weight"), P(l, "self_attn.linears.0.bias")).view({B, L, H, dk}).transpose(1, 2);
                k = linear(h, P(l, "self_attn.linears.1.weight"), P(l, "self_attn.linears.1.bias")).view({B, L, H, dk}).transpose(1, 2);
                v = linear(h, P(l, "self_attn.linears.2.weight"), P(l, "self_attn.linears.2.bias")).view({B, L, H, dk}).transpose(1, 2);
            }
            auto scores = torch::matmul(q, k.transpose(-2, -1)) * scale; // [B,H,L,L]
            if (anyPad)
                scores = scores.masked_fill(attnAllowed.logical_not(), -1e9);
            auto raw = torch::softmax(scores, -1);
            auto att = raw * C.unsqueeze(1);
            if (o.keepAttention) {
                out.attnRaw.push_back(raw);
                out.attn.push_back(att);
            }
            const auto perHead = withoutAblatedHeads(torch::matmul(dropout(att), v), o.ablate, l); // [B,H,L,dk]
            auto ctx = perHead.transpose(1, 2).reshape({B, L, d});
            x = x + dropout(fused ? fusedLinear(ctx, net.m_fused[l].out)
                                  : linear(ctx, P(l, "self_attn.linears.3.weight"), P(l, "self_attn.linears.3.bias")));

            // ---- feed-forward: w_2(gelu(w_1 LN(x)))
            auto f = layerNorm(x, P(l, "sublayer.1.norm.a_2"), P(l, "sublayer.1.norm.b_2"));
            if (fused) {
                f = torch::gelu(fusedLinear(f, net.m_fused[l].w1));
                x = x + fusedLinear(f, net.m_fused[l].w2);
            } else {
                f = torch::gelu(linear(f, P(l, "feed_forward.w_1.weight"), P(l, "feed_forward.w_1.bias")));
                x = x + dropout(linear(dropout(f), P(l, "feed_forward.w_2.weight"), P(l, "feed_forward.w_2.bias")));
            }
            if (o.keepLayerOut)
                out.layerOut.push_back(x);
        }
        out.finalHidden = layerNorm(x, p.at("norm.a_2"), p.at("norm.b_2"));
        if (o.logits && p.count("proj.weight")) {
            if (o.logitRows.defined()) {
                auto rows = out.finalHidden.reshape({B * L, d}).index_select(0, o.logitRows);
                out.logits = torch::addmm(p.at("proj.bias"), rows, p.at("proj.weight").t());
            } else {
                out.logits = torch::addmm(p.at("proj.bias"), out.finalHidden.reshape({B * L, d}),
                                          p.at("proj.weight").t()).view({B, L, -1});
            }
        }
        return out;
    }
};

Outputs forward(const Net &net, const torch::Tensor &ids, const torch::Tensor &mask, const ForwardOptions &options)
{
    return Forward::run(net, ids, mask, options);
}

} // namespace treelens::tt
