#pragma once
/// \file common.h
/// Pieces shared by the neural parsers (internal to core: LibTorch types):
/// vocabularies, word normalisation, character clipping, length-bucketed
/// batches and conversion of a module's parameters to and from a TensorMap.

#include <algorithm>
#include <atomic>
#include <cmath>
#include <functional>
#include <mutex>
#include <thread>
#include <map>
#include <numeric>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

#include <torch/torch.h>

#include "core/base/result.h"
#include "core/base/runcontrol.h"
#include "core/base/utf8.h"
#include "core/data/sentence.h"
#include "core/model/tensordata.h"
#include "core/runtime/device.h"

namespace treelens::neural {

/// index 0 = padding, 1 = unknown, 2 = ROOT (words, chars); tags/relations use 0 = padding only.
struct Vocab {
    std::vector<std::string> items;
    std::unordered_map<std::string, int> index;

    int add(const std::string &s)
    {
        auto [it, fresh] = index.emplace(s, static_cast<int>(items.size()));
        if (fresh)
            items.push_back(s);
        return it->second;
    }
    int get(const std::string &s, int unknown) const
    {
        auto it = index.find(s);
        return it == index.end() ? unknown : it->second;
    }
    static Vocab from(const std::vector<std::string> &list)
    {
        Vocab v;
        for (const auto &s : list)
            v.add(s);
        return v;
    }
};

/// Special indices of the word and character vocabularies.
constexpr int kPad = 0, kUnk = 1, kRoot = 2;

inline std::string normalizeWord(const std::string &w)
{
    std::string out;
    out.reserve(w.size());
    for (char c : w) {
        if (c >= '0' && c <= '9')
            out += '0'; // numbers share embeddings
        else
            out += static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    }
    return out;
}

/// The characters of a word; longer words keep their first and last maxChars/2.
inline std::vector<std::string> clippedChars(const std::string &word, int maxChars)
{
    auto cs = utf8Characters(word);
    if (static_cast<int>(cs.size()) > maxChars) {
        std::vector<std::string> c(cs.begin(), cs.begin() + maxChars / 2);
        c.insert(c.end(), cs.end() - maxChars / 2, cs.end());
        cs = std::move(c);
    }
    return cs;
}

/// Groups sentences of similar length into batches of about `batchWords` words.
inline std::vector<std::vector<int>> lengthBatches(const std::vector<Sentence> &sentences, int batchWords, std::mt19937 *shuffle)
{
    std::vector<int> order(sentences.size());
    std::iota(order.begin(), order.end(), 0);
    if (shuffle)
        std::shuffle(order.begin(), order.end(), *shuffle); // random tie-breaking among equal lengths
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
        return sentences[static_cast<std::size_t>(a)].tokens.size() < sentences[static_cast<std::size_t>(b)].tokens.size();
    });
    std::vector<std::vector<int>> batches;
    std::vector<int> cur;
    std::size_t maxLen = 0;
    for (int i : order) {
        const std::size_t n = sentences[static_cast<std::size_t>(i)].tokens.size() + 1;
        if (!cur.empty() && std::max(maxLen, n) * (cur.size() + 1) > static_cast<std::size_t>(batchWords)) {
            batches.push_back(std::move(cur));
            cur.clear();
            maxLen = 0;
        }
        cur.push_back(i);
        maxLen = std::max(maxLen, n);
    }
    if (!cur.empty())
        batches.push_back(std::move(cur));
    if (shuffle)
        std::shuffle(batches.begin(), batches.end(), *shuffle);
    return batches;
}

/// Runs job(k) for every k in [0, count) on up to `workers` threads (the
/// caller's included), each with ONE LibTorch/OpenBLAS thread, and restores the
/// thread count afterwards. The parsers' small LSTM batches scale far better
/// across batches than inside one operation: with 2 threads inside each op,
/// training ran at 0.42x its single-thread speed on the 2-core CI machine
/// (OpenMP spin-waits and OpenBLAS yield loops, seen with perf), and a
/// single sentence's p95 latency doubled. Jobs are taken in order from a shared
/// counter; the first error or a cancellation stops the rest. Each thread holds
/// its own NoGradGuard (it is thread-local).
inline Status runBatchesSingleThreaded(std::size_t count, int workers, const RunControl *control,
                                       const std::function<Status(std::size_t)> &job)
{
    const int previous = cpuThreads();
    setCpuThreads(1);
    std::atomic<std::size_t> next{0};
    std::atomic<bool> stop{false};
    std::mutex errorMutex;
    Status first;
    auto loop = [&]() {
        torch::NoGradGuard ng;
        for (;;) {
            if (stop.load())
                return;
            const std::size_t k = next.fetch_add(1);
            if (k >= count)
                return;
            Status st = control && control->isCancelled() ? Status(Error{"cancelled"}) : job(k);
            if (!st) {
                std::lock_guard<std::mutex> lock(errorMutex);
                if (first)
                    first = st;
                stop = true;
            }
        }
    };
    const std::size_t extra = std::min<std::size_t>(count > 0 ? count - 1 : 0, static_cast<std::size_t>(std::max(1, workers) - 1));
    std::vector<std::thread> threads;
    threads.reserve(extra);
    for (std::size_t i = 0; i < extra; ++i)
        threads.emplace_back(loop);
    loop();
    for (auto &t : threads)
        t.join();
    setCpuThreads(previous);
    return first;
}

/// Worker threads for batch inference: `requested` when > 0, else the hardware
/// threads (at most 8).
inline int inferenceWorkers(int requested)
{
    if (requested > 0)
        return requested;
    return static_cast<int>(std::clamp<unsigned>(std::thread::hardware_concurrency(), 1u, 8u));
}

template <class M>
inline TensorMap netTensors(M &net)
{
    TensorMap out;
    for (const auto &p : net->named_parameters()) {
        const torch::Tensor t = p.value().detach().to(torch::kFloat32).contiguous();
        std::vector<std::int64_t> shape(t.sizes().begin(), t.sizes().end());
        out[p.key()] = TensorData::fromFloat(shape, std::vector<float>(t.data_ptr<float>(), t.data_ptr<float>() + t.numel()));
    }
    return out;
}

template <class M>
inline Status loadNetTensors(M &net, const TensorMap &tensors, const std::string &where, const std::string &prefix = "")
{
    torch::NoGradGuard ng;
    for (auto &p : net->named_parameters()) {
        const std::string name = prefix + p.key();
        auto it = tensors.find(name);
        if (it == tensors.end())
            return makeError(where, "missing tensor '" + name + "'");
        std::vector<std::int64_t> shape(p.value().sizes().begin(), p.value().sizes().end());
        if (it->second.shape != shape)
            return makeError(where, "tensor '" + name + "' has the wrong shape");
        auto values = it->second.toFloat();
        p.value().copy_(torch::from_blob(values.data(), p.value().sizes(), torch::kFloat32));
    }
    return {};
}

/// Adam with bias correction (the parsers' optimiser), its moments kept by
/// parameter name so they go into and come back from checkpoints.
struct Adam {
    std::map<std::string, torch::Tensor> m1, m2;
    long long step = 0;

    /// Zero moments for every parameter; with `checkpoint`, the saved ones
    /// ("adam.m.NAME", "adam.v.NAME").
    Status init(const torch::OrderedDict<std::string, torch::Tensor> &params, const TensorMap *checkpoint,
                const std::string &where)
    {
        torch::NoGradGuard ng;
        for (const auto &p : params) {
            m1[p.key()] = torch::zeros_like(p.value());
            m2[p.key()] = torch::zeros_like(p.value());
            if (!checkpoint)
                continue;
            for (auto *moments : {&m1, &m2}) {
                const std::string key = (moments == &m1 ? "adam.m." : "adam.v.") + p.key();
                auto it = checkpoint->find(key);
                if (it == checkpoint->end())
                    return makeError(where, "missing '" + key + "'");
                auto values = it->second.toFloat();
                (*moments)[p.key()].copy_(torch::from_blob(values.data(), p.value().sizes(), torch::kFloat32));
            }
        }
        return {};
    }

    /// One update from the gradients, after clipping their norm to `clipNorm` (0 = off).
    void update(const torch::OrderedDict<std::string, torch::Tensor> &params, double lr, double beta1, double beta2,
                double clipNorm)
    {
        torch::NoGradGuard ng;
        if (clipNorm > 0) {
            std::vector<torch::Tensor> ps;
            for (const auto &p : params)
                ps.push_back(p.value());
            torch::nn::utils::clip_grad_norm_(ps, clipNorm);
        }
        ++step;
        const double bc1 = 1.0 - std::pow(beta1, static_cast<double>(step));
        const double bc2 = 1.0 - std::pow(beta2, static_cast<double>(step));
        for (const auto &p : params) {
            if (!p.value().grad().defined())
                continue;
            const auto &g = p.value().grad();
            m1[p.key()].mul_(beta1).add_(g, 1.0 - beta1);
            m2[p.key()].mul_(beta2).addcmul_(g, g, 1.0 - beta2);
            auto denom = (m2[p.key()] / bc2).sqrt_().add_(1e-12);
            p.value().addcdiv_(m1[p.key()], denom, -lr / bc1);
        }
    }

    /// Adds the moments to a checkpoint's tensors.
    void save(TensorMap &out) const
    {
        auto toData = [](const torch::Tensor &x) {
            const torch::Tensor t = x.detach().contiguous();
            std::vector<std::int64_t> shape(t.sizes().begin(), t.sizes().end());
            return TensorData::fromFloat(shape, std::vector<float>(t.data_ptr<float>(), t.data_ptr<float>() + t.numel()));
        };
        for (const auto &[name, t] : m1)
            out["adam.m." + name] = toData(t);
        for (const auto &[name, t] : m2)
            out["adam.v." + name] = toData(t);
    }
};

} // namespace treelens::neural
