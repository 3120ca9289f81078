#pragma once
/// \file probetorch.h
/// What the probes' LibTorch code shares (core/probing/probes.cpp: sentence
/// probes, structuralprobe.cpp: structural probes): seeded, platform-independent
/// initialisation and shuffling, tensors from matrices, parameter snapshots and
/// the thread guard. Internal to core: it includes LibTorch, so nothing outside
/// the probes' translation units includes it (the public probes.h is torch-free).

#include <cstddef>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <torch/torch.h>

#include "core/base/result.h"
#include "core/data/analysis.h"
#include "core/data/sentence.h"
#include "core/encoders/encoder.h"
#include "core/runtime/device.h"
#include "core/training/optimizer.h"

namespace treelens::probetorch {

/// Uniform in [lo, hi) from 24 random bits (identical on every platform).
inline float uniform(std::mt19937 &rng, double lo, double hi)
{
    const double u = static_cast<double>(rng() >> 8) * (1.0 / 16777216.0);
    return static_cast<float>(lo + (hi - lo) * u);
}

/// Fisher–Yates as in seededSplit(): platform-independent.
inline void shuffle(std::vector<int> &v, std::mt19937 &rng)
{
    for (std::size_t i = v.size(); i-- > 1;) {
        const auto j = static_cast<std::size_t>((static_cast<std::uint64_t>(rng()) * (i + 1)) >> 32);
        std::swap(v[i], v[j]);
    }
}

/// A parameter of `shape` drawn from U(−bound, bound), on `device`, requiring grad.
inline torch::Tensor uniformTensor(std::vector<std::int64_t> shape, double bound, std::mt19937 &rng,
                                   const torch::Device &device)
{
    std::int64_t count = 1;
    for (auto s : shape)
        count *= s;
    std::vector<float> v(static_cast<std::size_t>(count));
    for (auto &x : v)
        x = uniform(rng, -bound, bound);
    return torch::from_blob(v.data(), shape, torch::kFloat32).clone().to(device).set_requires_grad(true);
}

/// A copy of `m` as a rows × cols float tensor on `device`.
inline torch::Tensor matrixTensor(const Matrix &m, const torch::Device &device)
{
    if (m.rows == 0)
        return torch::zeros({0, m.cols}, torch::kFloat32).to(device);
    return torch::from_blob(const_cast<float *>(m.data.data()), {m.rows, m.cols}, torch::kFloat32).clone().to(device);
}

inline Result<torch::Device> probeDevice(const std::string &name)
{
    DeviceConfig dc;
    dc.device = name;
    return resolveDevice(dc);
}

using Params = torch::OrderedDict<std::string, torch::Tensor>;

inline std::vector<torch::Tensor> snapshot(const Params &params)
{
    std::vector<torch::Tensor> out;
    for (const auto &p : params)
        out.push_back(p.value().detach().clone());
    return out;
}

inline void restore(Params &params, const std::vector<torch::Tensor> &saved)
{
    torch::NoGradGuard ng;
    std::size_t i = 0;
    for (auto &p : params)
        p.value().copy_(saved[i++]);
}

/// The probes' optimiser: Adam (β 0.9/0.999, ε 1e-12, no clipping) from core/training.
inline Result<std::unique_ptr<training::Optimizer>> probeAdam(const Params &params)
{
    OptimizerConfig c;
    c.kind = "adam";
    c.beta1 = 0.9;
    c.beta2 = 0.999;
    c.eps = 1e-12;
    training::NamedParameters named;
    for (const auto &p : params)
        named.emplace_back(p.key(), p.value());
    return training::Optimizer::create(c, std::move(named));
}

inline void zeroGrad(Params &params)
{
    for (auto &p : params)
        if (p.value().grad().defined())
            p.value().mutable_grad().zero_();
}

/// "sentence 3 (id)" for errors.
inline std::string sentenceName(const std::vector<Sentence> &sentences, std::size_t i)
{
    std::string s = "sentence " + std::to_string(i + 1);
    if (!sentences[i].id.empty())
        s += " (" + sentences[i].id + ")";
    return s;
}

} // namespace treelens::probetorch
