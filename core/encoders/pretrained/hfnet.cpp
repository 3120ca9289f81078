// The pretrained-Transformer family's network (see hfnet.h).
#include "core/encoders/pretrained/hfnet.h"

#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <utility>

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "core/encoders/common/attribution.h"
#include "core/encoders/common/familykit.h"

namespace treelens {

using nlohmann::json;

HfNet::HfNet(HfConfig config, TorchParameters p, torch::Device device, HfClassifier head)
    : m_c(std::move(config)), m_p(std::move(p)), m_device(device), m_head(head)
{
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
    return HfNet(config, std::move(*p), device, head);
}

bool HfNet::hasPooler() const
{
    const std::string pooler = hfTensorName(arch(), HfRole::Pooler);
    return !pooler.empty() && m_p.count(pooler + ".weight") > 0;
}

int HfNet::firstPosition() const { return arch().positions == HfPositions::LearnedAfterPadding ? m_c.padTokenId + 1 : 0; }

const torch::Tensor &HfNet::wordEmbeddings() const { return w(hfTensorName(arch(), HfRole::TokenEmbedding) + ".weight"); }

int HfNet::maxPieces() const { return m_c.maxPositions > 0 ? m_c.maxPositions - firstPosition() : 0; }

torch::Tensor HfNet::linear(const torch::Tensor &x, HfRole role, int layer) const
{
    const std::string name = hfTensorName(arch(), role, layer);
    const auto bias = m_p.find(name + ".bias");
    return torch::linear(x, w(name + ".weight"), bias == m_p.end() ? torch::Tensor() : bias->second);
}

torch::Tensor HfNet::norm(const torch::Tensor &x, HfRole role, int layer) const
{
    const std::string name = hfTensorName(arch(), role, layer);
    return torch::layer_norm(x, {m_c.hidden}, w(name + ".weight"), w(name + ".bias"), m_c.layerNormEps);
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
    auto positions = torch::arange(N, torch::TensorOptions().dtype(torch::kLong).device(m_device)).unsqueeze(0).expand({B, N});
    if (arch().positions == HfPositions::LearnedAfterPadding) // padding_idx + cumsum of the mask (padded pieces at padding_idx)
        positions = torch::cumsum(mask.to(torch::kLong), 1) * mask.to(torch::kLong) + m_c.padTokenId;
    auto x = inputEmbedding(wordEmbeddings(), ids);
    if (arch().positions != HfPositions::Rotary)
        x = x + torch::embedding(w(hfTensorName(arch(), HfRole::PositionEmbedding) + ".weight"), positions);
    if (m_c.typeVocabSize > 0)
        x = x + torch::embedding(w(hfTensorName(arch(), HfRole::TypeEmbedding) + ".weight"), types);
    if (hfHasRole(arch(), HfRole::EmbeddingNorm))
        x = norm(x, HfRole::EmbeddingNorm);
    return x;
}

torch::Tensor HfNet::attend(const torch::Tensor &x, const torch::Tensor &additive, int layer, torch::Tensor &probs) const
{
    const auto B = x.size(0), N = x.size(1);
    const int H = m_c.heads;
    const int64_t dh = m_c.headDim;
    auto heads = [&](const torch::Tensor &t) { return t.view({B, N, H, dh}).transpose(1, 2); };
    const auto q = heads(linear(x, HfRole::Query, layer));
    const auto k = heads(linear(x, HfRole::Key, layer));
    const auto v = heads(linear(x, HfRole::Value, layer));
    const double scale = 1.0 / std::sqrt(static_cast<double>(dh));
    auto scores = torch::matmul(q, k.transpose(-1, -2)) * scale + additive;
    probs = torch::softmax(scores, -1);
    auto ctx = torch::matmul(probs, v).transpose(1, 2).reshape({B, N, static_cast<int64_t>(H) * dh});
    return linear(ctx, HfRole::AttentionOutput, layer);
}

torch::Tensor HfNet::mlp(const torch::Tensor &x, int layer) const
{
    auto inner = activation(linear(x, HfRole::MlpUp, layer));
    return linear(inner, HfRole::MlpDown, layer);
}

torch::Tensor HfNet::postNormBlock(const torch::Tensor &x, const torch::Tensor &additive, int layer, torch::Tensor &probs) const
{
    auto y = norm(attend(x, additive, layer, probs) + x, HfRole::AttentionNorm, layer);
    return norm(mlp(y, layer) + y, HfRole::MlpNorm, layer);
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

HfForward HfNet::run(const torch::Tensor &ids, const torch::Tensor &types, const torch::Tensor &mask, bool attention, bool grad) const
{
    std::optional<torch::NoGradGuard> noGrad;
    if (!grad)
        noGrad.emplace();
    const auto B = ids.size(0), N = ids.size(1);
    HfForward f;
    auto x = embed(ids, types, mask);
    f.hidden.push_back(x);
    // Masked keys: the dtype's lowest value added, as the library does.
    const auto additive = (1.0 - mask.to(torch::kFloat)).mul(std::numeric_limits<float>::lowest()).view({B, 1, 1, N});
    for (int l = 0; l < m_c.layers; ++l) {
        torch::Tensor probs;
        x = postNormBlock(x, additive, l, probs);
        if (attention)
            f.attention.push_back(probs);
        f.hidden.push_back(x);
    }
    classify(x, f);
    return f;
}

} // namespace treelens
