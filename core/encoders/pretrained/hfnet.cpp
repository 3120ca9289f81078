// The pretrained-Transformer family's network (see hfnet.h).
#include "core/encoders/pretrained/hfnet.h"

#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <tuple>
#include <utility>

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "core/encoders/common/attribution.h"
#include "core/encoders/common/familykit.h"

namespace treelens {

using nlohmann::json;

namespace {

/// rotate_half: [-x[r/2:], x[:r/2]] (dimension i paired with i + r/2).
torch::Tensor rotateHalf(const torch::Tensor &x)
{
    const int64_t half = x.size(-1) / 2;
    return torch::cat({-x.narrow(-1, half, half), x.narrow(-1, 0, half)}, -1);
}

/// The rotary embedding on the first cos.size(-1) dims of every head of x [B, H, N, hd].
torch::Tensor applyRotary(const torch::Tensor &x, const torch::Tensor &cos, const torch::Tensor &sin)
{
    const int64_t r = cos.size(-1);
    if (r == x.size(-1))
        return x * cos + rotateHalf(x) * sin;
    const auto rot = x.narrow(-1, 0, r);
    return torch::cat({rot * cos + rotateHalf(rot) * sin, x.narrow(-1, r, x.size(-1) - r)}, -1);
}

/// The library's inverse frequencies 1 / theta^(2i / r) in float32, with its rope scaling.
torch::Tensor inverseFrequencies(const HfConfig &c)
{
    const int64_t r = c.rotaryDims;
    auto exponent = torch::arange(0, r, 2, torch::kLong).to(torch::kFloat32) / static_cast<float>(r);
    auto inv = 1.0 / torch::pow(static_cast<float>(c.ropeTheta), exponent);
    inv = inv.to(torch::kFloat32);
    if (c.ropeType == "linear")
        return inv / static_cast<float>(c.ropeFactor);
    if (c.ropeType == "llama3") {
        const double lowWavelen = c.ropeOriginalMaxPositions / c.ropeLowFreqFactor;
        const double highWavelen = c.ropeOriginalMaxPositions / c.ropeHighFreqFactor;
        const auto wavelen = 2 * M_PI / inv;
        auto scaled = torch::where(wavelen > lowWavelen, inv / c.ropeFactor, inv);
        const auto smooth = (c.ropeOriginalMaxPositions / wavelen - c.ropeLowFreqFactor) / (c.ropeHighFreqFactor - c.ropeLowFreqFactor);
        const auto smoothed = (1 - smooth) * scaled / c.ropeFactor + smooth * scaled;
        const auto medium = (wavelen >= highWavelen).logical_and(wavelen <= lowWavelen);
        return torch::where(medium, smoothed, scaled).to(torch::kFloat32);
    }
    return inv;
}

} // namespace

HfNet::HfNet(HfConfig config, TorchParameters p, torch::Device device, HfClassifier head, bool mlmHead)
    : m_c(std::move(config)), m_p(std::move(p)), m_device(device), m_head(head), m_mlmHead(mlmHead)
{
    if (arch().positions == HfPositions::Rotary)
        m_invFreq = inverseFrequencies(m_c).to(m_device);
}

Result<HfNet> HfNet::fromModelFile(const ModelFile &file, const HfConfig &config, const torch::Device &device)
{
    std::map<std::string, std::vector<std::int64_t>> shapes;
    for (const auto &[name, t] : file.tensors)
        shapes[name] = t.shape; // hfWeightsFrom checked every shape against the config
    // Inference only: F32 weights on the CPU stay in the mapped file (no copy; torchtensors.h, ParameterMemory).
    auto p = parametersFromTensors(shapes, file.tensors, device, modelWhere(file), "a pretrained Transformer", true,
                                   ParameterMemory::SharedWithFile);
    if (!p)
        return p.error();
    // The head was decided once, when the weights were read (treelens.config "head").
    const json j = json::parse(file.configJson, nullptr, false);
    const HfClassifier head = j.is_object() ? hfClassifierNamed(j.value("head", std::string())) : HfClassifier::None;
    const bool mlm = j.is_object() && j.value("mlm_head", false) && config.arch && hfHasRole(*config.arch, HfRole::MlmDense);
    return HfNet(config, std::move(*p), device, head, mlm);
}

const torch::Tensor *HfNet::find(const std::string &name) const
{
    const auto it = m_p.find(name);
    return it == m_p.end() ? nullptr : &it->second;
}

bool HfNet::hasPooler() const
{
    const std::string pooler = hfTensorName(arch(), HfRole::Pooler);
    return !pooler.empty() && m_p.count(pooler + ".weight") > 0;
}

int HfNet::firstPosition() const { return arch().positions == HfPositions::LearnedAfterPadding ? m_c.padTokenId + 1 : 0; }

const torch::Tensor &HfNet::wordEmbeddings() const { return w(hfTensorName(arch(), HfRole::TokenEmbedding) + ".weight"); }

int HfNet::maxPieces() const
{
    int limit = m_c.maxPositions > 0 ? m_c.maxPositions - firstPosition() : 0;
    if (m_c.slidingWindow > 0 && (limit == 0 || m_c.slidingWindow < limit))
        limit = m_c.slidingWindow;
    return limit;
}

long long HfNet::parameterCount() const
{
    long long n = 0;
    for (const auto &[name, t] : m_p)
        n += t.numel();
    return n;
}

const torch::Tensor &HfNet::lmHeadWeight() const
{
    const torch::Tensor *head = find(hfTensorName(arch(), HfRole::LmHead) + ".weight");
    return m_c.tiedHead || !head ? wordEmbeddings() : *head;
}

torch::Tensor HfNet::mlmLogits(const torch::Tensor &last) const
{
    auto h = linear(last, HfRole::MlmDense);
    const std::string &act = arch().mlmActivation;
    h = act == "gelu" ? torch::gelu(h) : activation(h);
    h = norm(h, HfRole::MlmNorm);
    const std::string decoder = hfTensorName(arch(), HfRole::MlmDecoder);
    const torch::Tensor *weight = find(decoder + ".weight");
    const torch::Tensor *bias = find(hfTensorName(arch(), HfRole::MlmBias) + ".bias");
    if (!bias) // stored only as the decoder's (the two are one parameter in the library)
        bias = find(decoder + ".bias");
    return torch::linear(h, weight ? *weight : wordEmbeddings(), *bias);
}

Status HfNet::setPrecision(const std::string &precision)
{
    if (precision != "fp32" && precision != "bf16")
        return makeError("precision", "'" + precision + "' is not fp32 or bf16 for a pretrained Transformer");
    if (precision == m_precision)
        return {};
    if (m_precision != "fp32") // widening bf16 weights back would not give the file's fp32 values
        return makeError("precision", "a pretrained Transformer's precision is set once, from fp32");
    const auto dtype = precision == "bf16" ? torch::kBFloat16 : torch::kFloat32;
    for (int l = 0; l < m_c.layers; ++l)
        for (HfRole role : {HfRole::Query, HfRole::Key, HfRole::Value, HfRole::QueryKeyValue, HfRole::AttentionOutput,
                            HfRole::MlpGate, HfRole::MlpUp, HfRole::MlpDown}) {
            if (!hfHasRole(arch(), role))
                continue;
            const auto it = m_p.find(hfTensorName(arch(), role, l) + ".weight");
            if (it != m_p.end()) // this net's own entry: a copy of the net keeps its weights
                it->second = it->second.to(dtype).contiguous();
        }
    m_precision = precision;
    return {};
}

torch::Tensor HfNet::linear(const torch::Tensor &x, HfRole role, int layer) const
{
    const std::string name = hfTensorName(arch(), role, layer);
    const torch::Tensor *bias = find(name + ".bias");
    const torch::Tensor &weight = w(name + ".weight");
    if (weight.scalar_type() == torch::kBFloat16) { // setPrecision("bf16"): the product in bf16, the bias in fp32
        const auto xb = x.to(torch::kBFloat16);
        torch::Tensor y;
        if (arch().conv1d) {
            auto shape = x.sizes().vec();
            shape.back() = weight.size(1);
            y = torch::mm(xb.reshape({-1, x.size(-1)}), weight).view(shape);
        } else {
            y = torch::linear(xb, weight);
        }
        y = y.to(torch::kFloat32);
        return bias ? y + *bias : y;
    }
    if (arch().conv1d) { // GPT-2's Conv1D: y = x W + b with W [in, out], as the library's addmm computes it
        auto shape = x.sizes().vec();
        shape.back() = weight.size(1);
        const auto flat = x.reshape({-1, x.size(-1)});
        return (bias ? torch::addmm(*bias, flat, weight) : torch::mm(flat, weight)).view(shape);
    }
    return torch::linear(x, weight, bias ? *bias : torch::Tensor());
}

torch::Tensor HfNet::norm(const torch::Tensor &x, HfRole role, int layer) const
{
    const std::string name = hfTensorName(arch(), role, layer);
    const torch::Tensor &weight = w(name + ".weight");
    if (arch().norm == HfNormKind::LayerNorm)
        return torch::layer_norm(x, {x.size(-1)}, weight, w(name + ".bias"), m_c.layerNormEps);
    // RMSNorm in float32, as the library computes it whatever the dtype.
    const auto normed = x * torch::rsqrt(x.pow(2).mean(-1, true) + m_c.layerNormEps);
    return arch().norm == HfNormKind::RmsNormPlusOne ? normed * (1.0 + weight) : weight * normed;
}

torch::Tensor HfNet::activation(const torch::Tensor &x) const
{
    const std::string &a = m_c.hiddenAct;
    if (a == "gelu")
        return torch::gelu(x);
    if (a == "gelu_new" || a == "gelu_pytorch_tanh" || a == "gelu_fast")
        return torch::gelu(x, "tanh");
    if (a == "relu")
        return torch::relu(x);
    return torch::silu(x); // silu, swish (parseHfConfig admits no other)
}

torch::Tensor HfNet::embed(const torch::Tensor &ids, const torch::Tensor &types, const torch::Tensor &mask) const
{
    const auto B = ids.size(0), N = ids.size(1);
    auto x = inputEmbedding(wordEmbeddings(), ids);
    if (arch().embeddingScaled) // sqrt(hidden) rounded to the dtype first, as the library does
        x = x * torch::tensor(static_cast<float>(std::sqrt(static_cast<double>(m_c.hidden))), x.options());
    if (arch().positions != HfPositions::Rotary) {
        auto positions = torch::arange(N, torch::TensorOptions().dtype(torch::kLong).device(m_device)).unsqueeze(0).expand({B, N});
        if (arch().positions == HfPositions::LearnedAfterPadding) // padding_idx + cumsum of the mask (padded pieces at padding_idx)
            positions = torch::cumsum(mask.to(torch::kLong), 1) * mask.to(torch::kLong) + m_c.padTokenId;
        x = x + torch::embedding(w(hfTensorName(arch(), HfRole::PositionEmbedding) + ".weight"), positions);
    }
    if (m_c.typeVocabSize > 0)
        x = x + torch::embedding(w(hfTensorName(arch(), HfRole::TypeEmbedding) + ".weight"), types);
    if (hfHasRole(arch(), HfRole::EmbeddingNorm))
        x = norm(x, HfRole::EmbeddingNorm);
    return x;
}

torch::Tensor HfNet::additiveMask(const torch::Tensor &mask) const
{
    const auto B = mask.size(0), N = mask.size(1);
    if (arch().mask == HfMask::Bidirectional) // masked keys: the dtype's lowest value added, as the library does
        return (1.0 - mask.to(torch::kFloat)).mul(std::numeric_limits<float>::lowest()).view({B, 1, 1, N});
    const auto causal = torch::ones({N, N}, torch::TensorOptions().dtype(torch::kBool).device(m_device)).tril();
    const auto allowed = causal.view({1, 1, N, N}).logical_and(mask.view({B, 1, 1, N}));
    return torch::zeros({B, 1, N, N}, torch::TensorOptions().dtype(torch::kFloat).device(m_device))
        .masked_fill(allowed.logical_not(), std::numeric_limits<float>::lowest());
}

std::pair<torch::Tensor, torch::Tensor> HfNet::rotaryTables(int64_t N) const
{
    // The angle is the float32 product position * inverse frequency, as the library's matmul gives it.
    const auto positions = torch::arange(N, torch::TensorOptions().dtype(torch::kLong).device(m_device)).to(torch::kFloat32);
    const auto angles = positions.unsqueeze(1) * m_invFreq.unsqueeze(0);
    const auto both = torch::cat({angles, angles}, -1);
    return {both.cos(), both.sin()};
}

std::tuple<torch::Tensor, torch::Tensor, torch::Tensor> HfNet::projections(const torch::Tensor &x, int layer) const
{
    const auto B = x.size(0), N = x.size(1);
    const int64_t H = m_c.heads, KV = m_c.kvHeads, dh = m_c.headDim;
    auto heads = [&](const torch::Tensor &t, int64_t count) { return t.view({B, N, count, dh}).transpose(1, 2); };
    if (arch().qkv == HfQkvLayout::Separate)
        return {heads(linear(x, HfRole::Query, layer), H), heads(linear(x, HfRole::Key, layer), KV),
                heads(linear(x, HfRole::Value, layer), KV)};
    const auto qkv = linear(x, HfRole::QueryKeyValue, layer);
    if (arch().qkv == HfQkvLayout::FusedPerHead) { // per head [q_h | k_h | v_h]
        const auto perHead = qkv.view({B, N, H, 3 * dh}).transpose(1, 2);
        return {perHead.narrow(-1, 0, dh), perHead.narrow(-1, dh, dh), perHead.narrow(-1, 2 * dh, dh)};
    }
    const int64_t d = H * dh; // [all q | all k | all v]
    return {heads(qkv.narrow(-1, 0, d), H), heads(qkv.narrow(-1, d, d), H), heads(qkv.narrow(-1, 2 * d, d), H)};
}

torch::Tensor HfNet::attend(const torch::Tensor &x, const torch::Tensor &additive, int layer, const HfRunOptions &options,
                            torch::Tensor &probs) const
{
    const auto B = x.size(0), N = x.size(1);
    const int64_t H = m_c.heads, dh = m_c.headDim;
    auto [q, k, v] = projections(x, layer);
    if (hfHasRole(arch(), HfRole::QueryNorm)) { // a norm over each head, before the rotary embedding
        q = norm(q, HfRole::QueryNorm, layer);
        k = norm(k, HfRole::KeyNorm, layer);
    }
    if (arch().positions == HfPositions::Rotary) {
        const auto [cos, sin] = rotaryTables(N);
        q = applyRotary(q, cos, sin);
        k = applyRotary(k, cos, sin);
    }
    if (m_c.kvHeads < m_c.heads) { // grouped-query attention: query head h reads kv head h / (H / KV)
        k = k.repeat_interleave(m_c.heads / m_c.kvHeads, 1);
        v = v.repeat_interleave(m_c.heads / m_c.kvHeads, 1);
    }
    auto scores = torch::matmul(q, k.transpose(-1, -2));
    scores = arch().scoreDivides ? scores / std::sqrt(static_cast<double>(dh)) : scores * (1.0 / std::sqrt(static_cast<double>(dh)));
    probs = torch::softmax(scores + additive, -1);
    auto ctx = torch::matmul(probs, v);
    // Zero ablation: the head's output replaced by zeros before the output projection.
    std::vector<float> keep(static_cast<std::size_t>(H), 1.0f);
    bool ablated = false;
    for (const HeadAblation &a : options.ablate)
        if (a.layer == layer)
            for (int64_t h = 0; h < H; ++h)
                if (a.head < 0 || a.head == h) {
                    keep[static_cast<std::size_t>(h)] = 0.0f;
                    ablated = true;
                }
    if (ablated)
        ctx = ctx * torch::tensor(keep, ctx.options()).view({1, H, 1, 1});
    return linear(ctx.transpose(1, 2).reshape({B, N, H * dh}), HfRole::AttentionOutput, layer);
}

torch::Tensor HfNet::mlp(const torch::Tensor &x, int layer) const
{
    if (arch().mlp == HfMlp::Gated)
        return linear(activation(linear(x, HfRole::MlpGate, layer)) * linear(x, HfRole::MlpUp, layer), HfRole::MlpDown, layer);
    return linear(activation(linear(x, HfRole::MlpUp, layer)), HfRole::MlpDown, layer);
}

torch::Tensor HfNet::block(const torch::Tensor &x, const torch::Tensor &additive, int layer, const HfRunOptions &options,
                           torch::Tensor &probs) const
{
    switch (m_c.block) {
    case HfBlock::PostNorm: {
        auto y = norm(attend(x, additive, layer, options, probs) + x, HfRole::AttentionNorm, layer);
        return norm(mlp(y, layer) + y, HfRole::MlpNorm, layer);
    }
    case HfBlock::PreNorm: {
        auto y = attend(norm(x, HfRole::AttentionNorm, layer), additive, layer, options, probs) + x;
        return mlp(norm(y, HfRole::MlpNorm, layer), layer) + y;
    }
    case HfBlock::ParallelPreNorm: {
        const auto attended = attend(norm(x, HfRole::AttentionNorm, layer), additive, layer, options, probs);
        return mlp(norm(x, HfRole::MlpNorm, layer), layer) + attended + x;
    }
    }
    return x;
}

void HfNet::classify(const torch::Tensor &last, HfForward &f) const
{
    const auto first = last.select(1, 0);
    if (hasPooler())
        f.pooled = torch::tanh(linear(first, HfRole::Pooler));
    if (m_head == HfClassifier::PooledLinear)
        f.logits = linear(f.pooled, HfRole::Classifier);
    else if (m_head == HfClassifier::DenseTanhOut)
        f.logits = linear(torch::tanh(linear(first, HfRole::ClassifierDense)), HfRole::ClassifierOut);
}

void HfNet::languageModel(const torch::Tensor &last, const torch::Tensor &ids, const torch::Tensor &mask, const HfRunOptions &options,
                          HfForward &f) const
{
    const torch::Tensor &weight = lmHeadWeight();
    if (options.keepLogits)
        f.lmLogits = torch::matmul(last, weight.t());
    if (!options.logprobs)
        return;
    // One sequence at a time: a [pieces, vocabulary] block in float64 is the most this holds.
    const auto lengths = mask.to(torch::kLong).sum(1).to(torch::kCPU);
    for (int64_t b = 0; b < last.size(0); ++b) {
        const int64_t n = lengths[b].item<int64_t>();
        std::vector<double> lp;
        if (n > 1) {
            const auto logits = options.keepLogits ? f.lmLogits[b].narrow(0, 0, n - 1) : torch::matmul(last[b].narrow(0, 0, n - 1), weight.t());
            const auto logp = torch::log_softmax(logits.to(torch::kDouble), -1);
            const auto next = ids[b].narrow(0, 1, n - 1).to(logp.device()).unsqueeze(1);
            const auto picked = logp.gather(1, next).squeeze(1).to(torch::kCPU).contiguous();
            lp.assign(picked.data_ptr<double>(), picked.data_ptr<double>() + picked.numel());
        }
        f.logprobs.push_back(std::move(lp));
    }
}

HfForward HfNet::run(const torch::Tensor &ids, const torch::Tensor &types, const torch::Tensor &mask, bool attention, bool grad) const
{
    HfRunOptions options;
    options.attention = attention;
    options.grad = grad;
    return run(ids, types, mask, options);
}

HfForward HfNet::run(const torch::Tensor &ids, const torch::Tensor &types, const torch::Tensor &mask, const HfRunOptions &options) const
{
    std::optional<torch::NoGradGuard> noGrad;
    if (!options.grad)
        noGrad.emplace();
    HfForward f;
    auto x = embed(ids, types, mask);
    f.hidden.push_back(x);
    const auto additive = additiveMask(mask);
    for (int l = 0; l < m_c.layers; ++l) {
        torch::Tensor probs;
        x = block(x, additive, l, options, probs);
        if (options.attention)
            f.attention.push_back(probs);
        // A pre-norm model's last entry is its final norm applied (the library's hidden_states).
        f.hidden.push_back(l + 1 == m_c.layers && hfHasRole(arch(), HfRole::FinalNorm) ? norm(x, HfRole::FinalNorm) : x);
    }
    if (arch().languageModel)
        languageModel(f.hidden.back(), ids, mask, options, f);
    else
        classify(x, f);
    return f;
}

} // namespace treelens
