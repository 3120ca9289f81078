// optimizer: Adam, AdamW, Adagrad and RMSProp with checkpointable state (see optimizer.h).
#include "core/training/optimizer.h"

#include <cmath>

#include <torch/torch.h>

namespace treelens::training {

namespace {

/// LayerNorm gains and biases take no decoupled weight decay (AdamW convention).
bool decays(const std::string &name)
{
    return name.find("norm") == std::string::npos && name.find("bias") == std::string::npos;
}

TensorData toData(const torch::Tensor &x)
{
    const torch::Tensor t = x.detach().to(torch::kCPU, torch::kFloat32).contiguous();
    std::vector<std::int64_t> shape(t.sizes().begin(), t.sizes().end());
    return TensorData::fromFloat(shape, std::vector<float>(t.data_ptr<float>(), t.data_ptr<float>() + t.numel()));
}

} // namespace

Optimizer::Optimizer(OptimizerConfig config, NamedParameters parameters)
    : m_config(std::move(config)), m_params(std::move(parameters))
{
}

std::vector<std::string> Optimizer::slots() const
{
    if (m_config.kind == "adam" || m_config.kind == "adamw")
        return {"m", "v"};
    if (m_config.kind == "adagrad")
        return {"sum"};
    if (m_config.momentum > 0)
        return {"square", "momentum"};
    return {"square"};
}

Result<std::unique_ptr<Optimizer>> Optimizer::create(const OptimizerConfig &config, NamedParameters parameters)
{
    if (auto s = config.validate(); !s)
        return s.error();
    std::unique_ptr<Optimizer> o(new Optimizer(config, std::move(parameters)));
    torch::NoGradGuard ng;
    const auto names = o->slots();
    for (const auto &[name, p] : o->m_params) {
        auto &state = o->m_state[name];
        for (const auto &slot : names)
            state.push_back(slot == "sum" ? torch::full_like(p, config.initialAccumulator) : torch::zeros_like(p));
    }
    return o;
}

void Optimizer::zeroGrad()
{
    for (auto &[name, p] : m_params)
        if (p.grad().defined())
            p.mutable_grad().zero_();
}

void Optimizer::step(double lr)
{
    torch::NoGradGuard ng;
    if (m_config.clipNorm > 0) {
        std::vector<torch::Tensor> ps;
        ps.reserve(m_params.size());
        for (auto &[name, p] : m_params)
            ps.push_back(p);
        torch::nn::utils::clip_grad_norm_(ps, m_config.clipNorm);
    }
    ++m_steps;
    const OptimizerConfig &c = m_config;
    const double t = static_cast<double>(m_steps);
    for (auto &[name, p] : m_params) {
        if (!p.grad().defined())
            continue;
        auto &state = m_state[name];
        torch::Tensor g = p.grad();
        if (c.weightDecay > 0 && c.kind != "adamw")
            g = g.add(p, c.weightDecay); // L2: part of the gradient
        if (c.kind == "adam" || c.kind == "adamw") {
            const double bc1 = 1.0 - std::pow(c.beta1, t), bc2 = 1.0 - std::pow(c.beta2, t);
            state[0].mul_(c.beta1).add_(g, 1.0 - c.beta1);
            state[1].mul_(c.beta2).addcmul_(g, g, 1.0 - c.beta2);
            auto denom = (state[1] / bc2).sqrt_().add_(c.eps);
            if (c.kind == "adamw" && c.weightDecay > 0 && decays(name))
                p.mul_(1.0 - lr * c.weightDecay);
            p.addcdiv_(state[0], denom, -lr / bc1);
        } else if (c.kind == "adagrad") {
            state[0].addcmul_(g, g, 1.0);
            p.addcdiv_(g, state[0].sqrt().add_(c.eps), -lr);
        } else { // rmsprop
            state[0].mul_(c.beta2).addcmul_(g, g, 1.0 - c.beta2);
            auto denom = state[0].sqrt().add_(c.eps);
            if (c.momentum > 0) {
                state[1].mul_(c.momentum).addcdiv_(g, denom, 1.0);
                p.add_(state[1], -lr);
            } else {
                p.addcdiv_(g, denom, -lr);
            }
        }
    }
}

void Optimizer::saveState(TensorMap &out) const
{
    const auto names = slots();
    for (const auto &[name, state] : m_state)
        for (std::size_t k = 0; k < names.size(); ++k)
            out["optim." + names[k] + "." + name] = toData(state[k]);
}

Status Optimizer::loadState(const TensorMap &in, long steps, const std::string &where)
{
    torch::NoGradGuard ng;
    const auto names = slots();
    for (auto &[name, p] : m_params) {
        auto &state = m_state[name];
        for (std::size_t k = 0; k < names.size(); ++k) {
            const std::string key = "optim." + names[k] + "." + name;
            auto it = in.find(key);
            if (it == in.end())
                return makeError(where, "missing optimiser state '" + key + "' (a checkpoint of another optimiser?)");
            std::vector<std::int64_t> shape(p.sizes().begin(), p.sizes().end());
            if (it->second.shape != shape)
                return makeError(where, "optimiser state '" + key + "' has the wrong shape");
            auto values = it->second.toFloat();
            state[k].copy_(torch::from_blob(values.data(), p.sizes(), torch::kFloat32).to(p.device()));
        }
    }
    m_steps = steps;
    return {};
}

} // namespace treelens::training
