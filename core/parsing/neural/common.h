#pragma once
/// \file common.h
/// Pieces shared by the neural parsers (internal to core: LibTorch types):
/// vocabularies, word normalisation, character clipping, length-bucketed
/// batches and conversion of a module's parameters to and from a TensorMap.

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <initializer_list>
#include <map>
#include <mutex>
#include <numeric>
#include <random>
#include <string>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "core/base/result.h"
#include "core/base/runcontrol.h"
#include "core/base/utf8.h"
#include "core/data/sentence.h"
#include "core/model/tensordata.h"
#include "core/model/modelfile.h"
#include "core/runtime/device.h"
#include "core/training/recipe.h"
#include "core/training/trainer.h"
#include "core/training/trainerfamily.h"

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

/// Adds the normalised words seen at least `minCount` times and the characters
/// seen at least twice in `train` to the two vocabularies.
inline void addWordsAndChars(Vocab &words, Vocab &chars, const std::vector<Sentence> &train, int minCount)
{
    std::map<std::string, int> counts, charCounts;
    for (const auto &s : train)
        for (const auto &t : s.tokens) {
            ++counts[normalizeWord(t.text)];
            for (const auto &c : utf8Characters(t.text))
                ++charCounts[c];
        }
    for (const auto &[w, c] : counts)
        if (c >= minCount)
            words.add(w);
    for (const auto &[ch, c] : charCounts)
        if (c >= 2)
            chars.add(ch);
}

/// A word's id (kUnk when unknown or dropped) and its characters' ids at `charRow` (C per row).
inline std::int64_t encodeWord(const std::string &text, const Vocab &words, const Vocab &chars, int maxWordChars,
                               bool drop, std::int64_t *charRow)
{
    const auto cs = clippedChars(text, maxWordChars);
    for (std::size_t k = 0; k < cs.size(); ++k)
        charRow[k] = chars.get(cs[k], kUnk);
    return drop ? kUnk : words.get(normalizeWord(text), kUnk);
}

/// Groups sentences of similar length into batches of about `batchWords` words
/// (`lengths[i]` = the words of sentence i).
inline std::vector<std::vector<int>> lengthBatches(const std::vector<std::size_t> &lengths, int batchWords, std::mt19937 *shuffle)
{
    std::vector<int> order(lengths.size());
    std::iota(order.begin(), order.end(), 0);
    if (shuffle)
        std::shuffle(order.begin(), order.end(), *shuffle); // random tie-breaking among equal lengths
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
        return lengths[static_cast<std::size_t>(a)] < lengths[static_cast<std::size_t>(b)];
    });
    std::vector<std::vector<int>> batches;
    std::vector<int> cur;
    std::size_t maxLen = 0;
    for (int i : order) {
        const std::size_t n = lengths[static_cast<std::size_t>(i)] + 1;
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

inline std::vector<std::vector<int>> lengthBatches(const std::vector<Sentence> &sentences, int batchWords, std::mt19937 *shuffle)
{
    std::vector<std::size_t> lengths;
    lengths.reserve(sentences.size());
    for (const auto &s : sentences)
        lengths.push_back(s.tokens.size());
    return lengthBatches(lengths, batchWords, shuffle);
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
    const ThreadScope one(1);
    std::atomic<std::size_t> next{0};
    std::atomic<bool> stop{false};
    std::mutex errorMutex;
    Status first;
    auto loop = [&]() {
        const ThreadScope single(1); // each worker thread's own count (a scope changes only its thread's)
        torch::NoGradGuard ng;
        for (;;) {
            if (stop.load())
                return;
            const std::size_t k = next.fetch_add(1);
            if (k >= count)
                return;
            Status st = control && control->isCancelled() ? Status(cancelledError()) : job(k);
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
    return first;
}

/// Runs `one` over batches 0..count-1: on `workers` threads (runBatchesSingleThreaded)
/// when workers >= 1, else in this thread with cancellation between batches.
inline Status runBatches(std::size_t count, int workers, const RunControl *control,
                         const std::function<Status(std::size_t)> &one)
{
    if (workers >= 1)
        return runBatchesSingleThreaded(count, workers, control, one);
    for (std::size_t k = 0; k < count; ++k) {
        if (control && control->isCancelled())
            return cancelledError();
        if (auto st = one(k); !st)
            return st;
    }
    return {};
}

/// A parser's model file, its config checked for `family` and parsed: the
/// model's hyper-parameters and the vocabularies. Errors name the file.
template <class Config, class Vocabs>
struct ParserFile {
    ModelFile file;
    nlohmann::json config;
    Config model;
    Vocabs vocabs;

    static Result<ParserFile> read(const std::string &path, const std::string &family)
    {
        ParserFile out;
        auto file = loadModelFile(path);
        if (!file)
            return file.error();
        out.file = std::move(*file);
        try {
            out.config = nlohmann::json::parse(out.file.configJson);
        } catch (const std::exception &e) {
            return makeError(path, std::string("treelens.config: ") + e.what());
        }
        const std::string found = out.config.value("family", std::string());
        if (found != family)
            return makeError(path, "not a " + family + " model (family '" + found + "')");
        auto cfg = Config::fromJson(out.config.value("model", nlohmann::json::object()).dump());
        if (!cfg)
            return makeError(path, cfg.error());
        out.model = *cfg;
        auto vocabs = Vocabs::fromJson(out.config.value("vocabularies", nlohmann::json::object()));
        if (!vocabs)
            return makeError(path, vocabs.error());
        out.vocabs = std::move(*vocabs);
        return out;
    }
};

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


/// What the two parsers' trainers share (core/training/trainer.h): the network's
/// parameters by name and length-bucketed batches of `m_trainSentences`, shuffled
/// per epoch from (seed, epoch) so that a resumed run sees the same batches.
template <class NetT>
class ParserTask : public training::TrainTask {
public:
    training::NamedParameters parameters() override
    {
        training::NamedParameters out;
        for (auto &p : m_net->named_parameters())
            out.emplace_back(p.key(), p.value());
        return out;
    }

    long batchesInEpoch(int epoch) override
    {
        if (epoch != m_cachedEpoch) {
            std::mt19937 shuffle(m_recipe.seed * 7919u + static_cast<unsigned>(epoch));
            m_batches = lengthBatches(m_trainSentences, m_recipe.batchWords, &shuffle);
            m_cachedEpoch = epoch;
        }
        return static_cast<long>(m_batches.size());
    }

protected:
    /// The vocabularies a checkpoint carries (resuming must not rebuild them).
    template <class V>
    static Result<V> vocabsOf(const ModelFile &resume)
    {
        auto v = V::fromJson(nlohmann::json::parse(resume.configJson).value("vocabularies", nlohmann::json::object()));
        if (!v)
            return makeError(resume.sourcePath, v.error());
        return v;
    }

    /// Moves the network to `device` and, resuming, loads the checkpoint's weights.
    Status placeNet(const torch::Device &device, const ModelFile *resume)
    {
        m_net->to(device);
        return resume ? loadNetTensors(m_net, resume->tensors, resume->sourcePath) : Status();
    }

    /// What prepare() read: "N training <unit> (W words), M dev <unit>, <more>".
    training::DataSummary dataSummary(const std::string &unit, std::size_t dev, const std::string &more,
                                      nlohmann::json details) const
    {
        std::size_t words = 0;
        for (const auto &x : m_trainSentences)
            words += x.tokens.size();
        training::DataSummary d;
        d.text = std::to_string(m_trainSentences.size()) + " training " + unit + " (" + std::to_string(words) + " words), " +
                 std::to_string(dev) + " dev " + unit + ", " + more;
        details["train_sentences"] = m_trainSentences.size();
        details["train_words"] = words;
        details["dev_sentences"] = dev;
        d.json = details.dump();
        return d;
    }

    /// The model file of the current weights: `config` (family, name, task, model,
    /// vocabularies) plus the training record, and for the output file `extra`.
    ModelFile parserSnapshot(nlohmann::json config, const training::SnapshotInfo &info, const nlohmann::json &extra,
                             const std::vector<std::string> &words)
    {
        config["training"] = {{"recipe", nlohmann::json::parse(m_recipe.toJson())}, {"train_sentences", m_trainSentences.size()}};
        if (info.kind != training::SnapshotInfo::Kind::Checkpoint)
            for (auto it = extra.begin(); it != extra.end(); ++it)
                config[it.key()] = it.value();
        ModelFile out;
        out.configJson = config.dump();
        out.vocab = words;
        out.tensors = netTensors(m_net);
        return out;
    }

    /// The sentence indices of batch `batch` of `epoch`.
    const std::vector<int> &batchAt(int epoch, long batch)
    {
        batchesInEpoch(epoch);
        return m_batches[static_cast<std::size_t>(batch)];
    }

    TrainRecipe m_recipe;
    NetT m_net{nullptr};
    std::vector<Sentence> m_trainSentences;

private:
    int m_cachedEpoch = -1;
    std::vector<std::vector<int>> m_batches;
};

/// The recipe defaults both parsers share (Adam 2e-3 with β 0.9/0.9 and ε 1e-12,
/// clipping at 5, a step schedule × 0.75, patience 10, one CPU device, f16 output).
inline TrainRecipe parserRecipeDefaults(const std::string &family, const std::string &name, std::string modelJson)
{
    TrainRecipe d;
    d.family = family;
    d.name = name;
    d.modelJson = std::move(modelJson);
    d.optionsJson = R"({"word_min_count": 2})";
    d.optimizer.kind = "adam";
    d.optimizer.lr = 2e-3;
    d.optimizer.beta1 = 0.9;
    d.optimizer.beta2 = 0.9;
    d.optimizer.eps = 1e-12;
    d.optimizer.clipNorm = 5.0;
    d.schedule.kind = "step";
    d.schedule.decay = 0.75;
    d.patience = 10;
    d.logEvery = 10;
    d.storage = "f16";
    d.device = "cpu";
    return d;
}

/// The checks both parsers make: epochs and batch words in range, the only
/// option "word_min_count" >= 1, and no "data" key but `extraKeys`.
inline Status validateParserRecipe(const TrainRecipe &r, const std::string &what, const std::vector<std::string> &extraKeys)
{
    auto bad = [&](const std::string &m) { return Status(makeError(what, m)); };
    if (r.epochs < 1 || r.epochs > 1000 || r.batchWords < 50)
        return bad("epochs must be 1..1000 and batch_words >= 50");
    try {
        const auto o = nlohmann::json::parse(r.optionsJson);
        for (auto it = o.begin(); it != o.end(); ++it)
            if (it.key() != "word_min_count")
                return bad("unknown option \"" + it.key() + "\"");
        if (o.value("word_min_count", 2) < 1)
            return bad("word_min_count must be >= 1");
        const auto extra = nlohmann::json::parse(r.data.extraJson);
        for (auto it = extra.begin(); it != extra.end(); ++it)
            if (std::find(extraKeys.begin(), extraKeys.end(), it.key()) == extraKeys.end())
                return bad("unknown data key \"" + it.key() + "\"");
    } catch (const std::exception &e) {
        return bad(e.what());
    }
    return {};
}

/// Stores a parser's final report in its model file (the model card reads it).
inline Status storeFinalMetrics(const TrainRecipe &recipe, const nlohmann::json &results, double elapsedSeconds)
{
    auto file = loadModelFile(recipe.output);
    if (!file)
        return file.error();
    auto c = nlohmann::json::parse(file->configJson);
    c["metrics"] = results;
    c["training"]["elapsed_seconds"] = elapsedSeconds;
    file->configJson = c.dump();
    return saveModelFile(recipe.output, *file, training::storageType(recipe.storage));
}

} // namespace treelens::neural
