#include "core/encoders/common/attribution.h"

#include <algorithm>
#include <cmath>

#include <torch/autograd.h>
#include <torch/torch.h>

#include "core/encoders/common/vocabulary.h"

namespace treelens {

namespace {
thread_local AttributionScope *g_scope = nullptr;
}

AttributionScope::AttributionScope(torch::Tensor alphas, std::vector<torch::Tensor> baselines)
    : m_alphas(std::move(alphas)), m_baselines(std::move(baselines)), m_outer(g_scope)
{
    leaves.resize(m_baselines.size());
    differences.resize(m_baselines.size());
    g_scope = this;
}

AttributionScope::~AttributionScope() { g_scope = m_outer; }

AttributionScope *AttributionScope::current() { return g_scope; }

torch::Tensor AttributionScope::apply(const torch::Tensor &embedded, int side)
{
    if (side < 0)
        side = m_side;
    if (side >= static_cast<int>(m_baselines.size()))
        return embedded;
    // A family that looks the same words up twice (a Tree-LSTM's sentence vector and its
    // leaves) gets the same leaf both times: one input, one attribution.
    auto &leaf = leaves[static_cast<std::size_t>(side)];
    if (leaf.defined() && leaf.sizes() == embedded.sizes())
        return leaf;
    const auto e = embedded.detach();
    auto base = m_baselines[static_cast<std::size_t>(side)].to(e.device(), e.scalar_type());
    if (base.dim() == 1)
        base = base.view({1, 1, -1});
    else
        base = base.unsqueeze(0);
    const auto diff = e - base;                                      // [S, L, d]
    const auto alpha = m_alphas.to(e.device(), e.scalar_type()).view({-1, 1, 1});
    auto x = (base + alpha * diff).detach().requires_grad_(true);
    leaves[static_cast<std::size_t>(side)] = x;
    differences[static_cast<std::size_t>(side)] = diff;
    return x;
}

Result<torch::Tensor> baselineEmbedding(const std::string &baseline, const torch::Tensor &weight, int padId,
                                        const Vocabulary &vocab)
{
    if (baseline.empty() || baseline == "zero")
        return torch::zeros({weight.size(1)}, weight.options());
    int id = baseline == "pad" ? padId : vocab.id(baseline);
    if (id < 0 || id >= weight.size(0))
        return Error{"the baseline token '" + baseline + "' is not in the model's vocabulary (or use zero, pad)"};
    return weight[id].detach().clone();
}

SideAttribution wordSide(std::vector<std::string> words, std::vector<double> perToken)
{
    SideAttribution sa;
    perToken.resize(words.size(), 0.0);
    sa.tokens = words;
    sa.words = std::move(words);
    sa.word = perToken;
    sa.token = std::move(perToken);
    return sa;
}

Result<std::int64_t> targetIndex(const std::vector<std::string> &labels, const std::string &target)
{
    if (target.empty())
        return std::int64_t{-1};
    const auto it = std::find(labels.begin(), labels.end(), target);
    if (it == labels.end()) {
        std::string list;
        for (const auto &l : labels)
            list += (list.empty() ? "" : ", ") + l;
        return Error{"--target '" + target + "' is not a label of the model (" + list + ")"};
    }
    return static_cast<std::int64_t>(it - labels.begin());
}

torch::Tensor inputEmbedding(const torch::Tensor &weight, const torch::Tensor &ids, int side)
{
    auto e = torch::embedding(weight, ids);
    if (AttributionScope *s = AttributionScope::current())
        return s->apply(e, side);
    return e;
}

Result<std::vector<std::vector<double>>> integrateGradients(const std::function<torch::Tensor(std::int64_t)> &forward,
                                                            const std::vector<torch::Tensor> &baselines,
                                                            const ExplainOptions &options, Attribution &out,
                                                            const RunControl *control)
{
    torch::AutoGradMode grad(true);
    // f(input), f(baseline) and f a thousandth of the way from the baseline, one copy each.
    double fNear = 0.0;
    for (double alpha : {1.0, 0.0, 1e-3}) {
        AttributionScope scope(torch::tensor({static_cast<float>(alpha)}), baselines);
        const double f = forward(1).detach().to(torch::kCPU).to(torch::kDouble).item<double>();
        (alpha == 1.0 ? out.fInput : alpha == 0.0 ? out.fBaseline : fNear) = f;
    }
    // A smooth f moves by about a thousandth of its slope there; a model that layer-normalises
    // its word vectors jumps between the zero vector and any multiple of the input.
    const double jump = std::abs(fNear - out.fBaseline);
    if (jump > 1e-3 && jump > 0.25 * std::abs(out.fInput - out.fBaseline))
        out.warning = "f jumps at the baseline (" + std::to_string(out.fBaseline) + " there, " + std::to_string(fNear) +
                      " a thousandth of the way to the input): gradients cannot see a jump, so the attributions sum to about " +
                      std::to_string(out.fInput - fNear) + ", not f(input) - f(baseline); choose another baseline (a token of "
                      "the model's vocabulary)";
    const bool ig = options.method == ExplainOptions::Method::IntegratedGradients;
    const int steps = ig ? std::max(1, options.steps) : 1;
    const int chunk = std::max(1, options.stepBatch);
    std::vector<torch::Tensor> sums(baselines.size()), diffs(baselines.size());
    // Adds the gradients at the points `alphas`, each weighted by `weight`, to `sums`.
    auto evaluate = [&](const std::vector<float> &alphas, float weight) -> Status {
        for (std::size_t start = 0; start < alphas.size(); start += static_cast<std::size_t>(chunk)) {
            if (control && control->isCancelled())
                return cancelledError();
            const std::size_t n = std::min<std::size_t>(static_cast<std::size_t>(chunk), alphas.size() - start);
            AttributionScope scope(torch::tensor(std::vector<float>(alphas.begin() + static_cast<std::ptrdiff_t>(start),
                                                                    alphas.begin() + static_cast<std::ptrdiff_t>(start + n))),
                                   baselines);
            const auto value = forward(static_cast<std::int64_t>(n));
            std::vector<torch::Tensor> inputs;
            std::vector<std::size_t> which;
            for (std::size_t s = 0; s < scope.leaves.size(); ++s)
                if (scope.leaves[s].defined()) {
                    inputs.push_back(scope.leaves[s]);
                    which.push_back(s);
                }
            if (inputs.empty())
                return Error{"the model's forward never looked its input words up (no embeddings to attribute)"};
            const auto grads = torch::autograd::grad({value.sum()}, inputs, {}, false, false, true);
            for (std::size_t k = 0; k < which.size(); ++k) {
                const std::size_t s = which[k];
                if (!grads[k].defined())
                    continue;
                const auto g = grads[k].detach().sum(0).to(torch::kCPU) * weight;
                sums[s] = sums[s].defined() ? sums[s] + g : g;
                diffs[s] = scope.differences[s][0].detach().to(torch::kCPU);
            }
        }
        return {};
    };
    // Gradient x input: the one point at the input. Integrated Gradients: the midpoint rule,
    // exact for a linear integrand; the path's slope changes abruptly where ReLUs,
    // max-pooling or softmax switch, and the completeness gap says how far the sum is from
    // f(input) - f(baseline) then (docs/explanations.md).
    std::vector<float> alphas;
    for (int k = 0; k < steps; ++k)
        alphas.push_back(ig ? (static_cast<float>(k) + 0.5f) / static_cast<float>(steps) : 1.0f);
    if (auto st = evaluate(alphas, 1.0f / static_cast<float>(steps)); !st)
        return st.error();
    std::vector<std::vector<double>> perSide(baselines.size());
    for (std::size_t s = 0; s < baselines.size(); ++s) {
        if (!sums[s].defined())
            continue;
        const auto a = (sums[s] * diffs[s]).sum(-1).to(torch::kDouble).contiguous();
        perSide[s].assign(a.data_ptr<double>(), a.data_ptr<double>() + a.numel());
    }
    out.method = methodName(options.method);
    out.steps = ig ? steps : 0;
    out.baseline = options.baseline.empty() ? "zero" : options.baseline;
    return perSide;
}

} // namespace treelens
