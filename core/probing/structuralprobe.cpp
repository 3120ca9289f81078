// structuralprobe: the structural probes of Hewitt & Manning (2019), their
// evaluation and training; see probes.h.
#include "core/probing/probes.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>

#include <torch/torch.h>

#include "core/probing/attentiontree.h"
#include "core/probing/probetorch.h"

namespace treelens {

namespace {

using namespace probetorch;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

} // namespace

// ---------------------------------------------------------------------------
// Structural probes: evaluation
// ---------------------------------------------------------------------------

bool isPunctuationToken(const Token &token)
{
    if (!token.upos.empty() && token.upos != "_")
        return token.upos == "PUNCT";
    static const char *const ptb[] = {"''", ",", ".", ":", "``", "-LRB-", "-RRB-"};
    for (const char *p : ptb)
        if (token.xpos == p)
            return true;
    return false;
}

double spearman(const std::vector<double> &x, const std::vector<double> &y)
{
    return spearmanCorrelation(x, y); // average ranks for ties; NaN when undefined (core/probing/attentiontree.h)
}

LengthAverage averageByLength(const std::vector<std::pair<int, double>> &lengthValues, int minLength, int maxLength)
{
    std::map<int, std::pair<double, long>> acc;
    for (const auto &[len, v] : lengthValues) {
        if (std::isnan(v))
            continue;
        auto &a = acc[len];
        a.first += v;
        ++a.second;
    }
    LengthAverage out;
    double sum = 0;
    long count = 0;
    for (const auto &[len, a] : acc) {
        const double m = a.first / static_cast<double>(a.second);
        out.byLength[len] = m;
        if (len >= minLength && len <= maxLength) {
            sum += m;
            ++count;
        }
    }
    if (count > 0)
        out.mean = sum / static_cast<double>(count);
    return out;
}

std::vector<std::pair<int, int>> minimumSpanningTree(const std::vector<float> &distances, int n,
                                                     const std::vector<char> &exclude)
{
    struct Pair {
        float d;
        int i, j;
    };
    std::vector<Pair> pairs;
    auto excluded = [&](int i) { return static_cast<std::size_t>(i) < exclude.size() && exclude[static_cast<std::size_t>(i)]; };
    for (int i = 0; i < n; ++i) {
        if (excluded(i))
            continue;
        for (int j = i + 1; j < n; ++j)
            if (!excluded(j))
                pairs.push_back({distances[static_cast<std::size_t>(i) * n + j], i, j});
    }
    std::stable_sort(pairs.begin(), pairs.end(), [](const Pair &a, const Pair &b) { return a.d < b.d; });
    std::vector<int> parent(static_cast<std::size_t>(n));
    std::iota(parent.begin(), parent.end(), 0);
    auto find = [&](int i) {
        while (parent[static_cast<std::size_t>(i)] != i) {
            parent[static_cast<std::size_t>(i)] = parent[static_cast<std::size_t>(parent[static_cast<std::size_t>(i)])];
            i = parent[static_cast<std::size_t>(i)];
        }
        return i;
    };
    std::vector<std::pair<int, int>> edges;
    for (const auto &p : pairs) {
        const int a = find(p.i), b = find(p.j);
        if (a != b) {
            parent[static_cast<std::size_t>(a)] = b;
            edges.emplace_back(p.i, p.j);
        }
    }
    std::sort(edges.begin(), edges.end());
    return edges;
}

StructuralMetrics evaluateStructural(StructuralProbeKind kind, const std::vector<StructuralExample> &examples,
                                     const std::vector<std::vector<float>> &predictions,
                                     std::vector<StructuralSentenceResult> *sentences)
{
    StructuralMetrics m;
    std::vector<std::pair<int, double>> spearmans;
    double lossSum = 0;
    const std::size_t count = std::min(examples.size(), predictions.size());
    if (sentences) {
        sentences->clear();
        sentences->reserve(count);
    }
    for (std::size_t s = 0; s < count; ++s) {
        const StructuralExample &ex = examples[s];
        const int n = static_cast<int>(ex.heads.size());
        const std::size_t expected = kind == StructuralProbeKind::Distance ? static_cast<std::size_t>(n) * n
                                                                          : static_cast<std::size_t>(n);
        // A prediction of the wrong size (a caller error) is padded with zeros / cut.
        std::vector<float> resized;
        if (predictions[s].size() != expected) {
            resized = predictions[s];
            resized.resize(expected, 0.0f);
        }
        const std::vector<float> &pred = predictions[s].size() == expected ? predictions[s] : resized;
        DependencyTree tree;
        tree.heads = ex.heads;
        StructuralSentenceResult r;
        r.sentence = ex.sentence;
        r.length = n;
        if (kind == StructuralProbeKind::Distance) {
            r.gold = tree.distanceMatrix();
            double l1 = 0;
            for (std::size_t k = 0; k < r.gold.size() && k < pred.size(); ++k)
                l1 += std::abs(static_cast<double>(pred[k]) - r.gold[k]);
            r.loss = n > 0 ? l1 / (static_cast<double>(n) * n) : 0.0;
            std::vector<float> goldF(r.gold.begin(), r.gold.end());
            r.goldEdges = minimumSpanningTree(goldF, n, ex.punct);
            r.predictedEdges = minimumSpanningTree(pred, n, ex.punct);
            std::vector<std::pair<int, int>> common;
            std::set_intersection(r.goldEdges.begin(), r.goldEdges.end(), r.predictedEdges.begin(),
                                  r.predictedEdges.end(), std::back_inserter(common));
            r.correctEdges = static_cast<int>(common.size());
            m.edgesCorrect += r.correctEdges;
            m.edgesTotal += static_cast<long>(r.goldEdges.size());
            double rowSum = 0;
            int rows = 0;
            for (int i = 0; i < n; ++i) {
                std::vector<double> pr(static_cast<std::size_t>(n)), gr(static_cast<std::size_t>(n));
                for (int j = 0; j < n; ++j) {
                    pr[static_cast<std::size_t>(j)] = pred[static_cast<std::size_t>(i) * n + j];
                    gr[static_cast<std::size_t>(j)] = r.gold[static_cast<std::size_t>(i) * n + j];
                }
                const double rho = spearman(pr, gr);
                spearmans.emplace_back(n, rho);
                if (!std::isnan(rho)) {
                    rowSum += rho;
                    ++rows;
                }
            }
            r.spearman = rows > 0 ? rowSum / rows : kNaN;
        } else {
            r.gold.resize(static_cast<std::size_t>(n));
            for (int i = 0; i < n; ++i)
                r.gold[static_cast<std::size_t>(i)] = tree.depthOf(i);
            double l1 = 0;
            for (int i = 0; i < n && i < static_cast<int>(pred.size()); ++i)
                l1 += std::abs(static_cast<double>(pred[static_cast<std::size_t>(i)]) - r.gold[static_cast<std::size_t>(i)]);
            r.loss = n > 0 ? l1 / n : 0.0;
            for (int i = 0; i < n; ++i)
                if (r.gold[static_cast<std::size_t>(i)] == 0) {
                    r.goldRoot = i;
                    break;
                }
            int best = -1, any = -1;
            for (int i = 0; i < n && i < static_cast<int>(pred.size()); ++i) {
                const float v = pred[static_cast<std::size_t>(i)];
                if (any < 0 || v < pred[static_cast<std::size_t>(any)])
                    any = i;
                const bool p = static_cast<std::size_t>(i) < ex.punct.size() && ex.punct[static_cast<std::size_t>(i)];
                if (!p && (best < 0 || v < pred[static_cast<std::size_t>(best)]))
                    best = i;
            }
            r.predictedRoot = best >= 0 ? best : any;
            if (r.predictedRoot >= 0 && r.predictedRoot == r.goldRoot)
                ++m.rootsCorrect;
            std::vector<double> pr(pred.begin(), pred.begin() + std::min<std::ptrdiff_t>(n, static_cast<std::ptrdiff_t>(pred.size())));
            std::vector<double> gr(r.gold.begin(), r.gold.end());
            r.spearman = spearman(pr, gr);
            spearmans.emplace_back(n, r.spearman);
        }
        lossSum += r.loss;
        ++m.sentences;
        if (sentences) {
            r.predicted = pred;
            sentences->push_back(std::move(r));
        }
    }
    if (m.sentences > 0)
        m.loss = lossSum / static_cast<double>(m.sentences);
    const LengthAverage avg = averageByLength(spearmans);
    m.spearmanByLength = avg.byLength;
    if (kind == StructuralProbeKind::Distance) {
        m.uuas = m.edgesTotal > 0 ? static_cast<double>(m.edgesCorrect) / static_cast<double>(m.edgesTotal) : kNaN;
        m.dspr = avg.mean;
    } else {
        m.rootAccuracy = m.sentences > 0 ? static_cast<double>(m.rootsCorrect) / static_cast<double>(m.sentences) : kNaN;
        m.nspr = avg.mean;
    }
    return m;
}

// ---------------------------------------------------------------------------
// Structural probes: data and training
// ---------------------------------------------------------------------------

Result<StructuralExamples> structuralExamples(const std::vector<Sentence> &sentences, const ProbeFeatures &features,
                                              int layer)
{
    if (layer < 0 || layer > features.layers || !features.hasLayer(layer) ||
        static_cast<std::size_t>(layer) >= features.words.size() || features.wordOffset.empty())
        return makeError("structural probe", "no word vectors for layer " + std::to_string(layer) +
                                                 " (extract features with word vectors for that layer)");
    if (features.sentences != sentences.size() || features.wordOffset.size() != sentences.size() + 1)
        return makeError("structural probe", "the features are of " + std::to_string(features.sentences) +
                                                 " sentences, not " + std::to_string(sentences.size()));
    const Matrix &w = features.words[static_cast<std::size_t>(layer)];
    StructuralExamples out;
    for (std::size_t s = 0; s < sentences.size(); ++s) {
        const Sentence &sent = sentences[s];
        const int n = static_cast<int>(sent.tokens.size());
        if (features.wordOffset[s + 1] - features.wordOffset[s] != n)
            return makeError(sentenceName(sentences, s), "the features have " +
                                                             std::to_string(features.wordOffset[s + 1] - features.wordOffset[s]) +
                                                             " words, the sentence " + std::to_string(n));
        if (n == 0) {
            ++out.skipped["empty-sentence"];
            continue;
        }
        if (!sent.dependency) {
            ++out.skipped["no-dependency-tree"];
            continue;
        }
        if (static_cast<int>(sent.dependency->size()) != n || !sent.dependency->validate()) {
            ++out.skipped["invalid-dependency-tree"];
            continue;
        }
        StructuralExample ex;
        ex.sentence = static_cast<int>(s);
        ex.heads = sent.dependency->heads;
        for (const auto &t : sent.tokens)
            ex.punct.push_back(isPunctuationToken(t) ? 1 : 0);
        ex.states = Matrix(n, features.dim);
        std::copy_n(w.data.begin() + static_cast<std::ptrdiff_t>(features.wordOffset[s]) * features.dim,
                    static_cast<std::ptrdiff_t>(n) * features.dim, ex.states.data.begin());
        out.examples.push_back(std::move(ex));
    }
    return out;
}

Status StructuralProbeOptions::validate() const
{
    if (rank < 0)
        return makeError("structural probe", "the rank must be 0 (= d) or positive");
    if (!(learningRate > 0))
        return makeError("structural probe", "the learning rate must be positive");
    if (batchSize < 1)
        return makeError("structural probe", "the batch size must be at least 1");
    if (maxEpochs < 1)
        return makeError("structural probe", "at least one epoch is needed");
    if (patience < 0)
        return makeError("structural probe", "the patience must be 0 (off) or positive");
    if (!(lrDecay > 0 && lrDecay <= 1))
        return makeError("structural probe", "the learning-rate decay must be in (0, 1]");
    if (minImprovement < 0)
        return makeError("structural probe", "the minimum improvement must not be negative");
    if (threads < 1)
        return makeError("structural probe", "at least one thread is needed");
    return {};
}

namespace {

/// The examples' words and vectors agree with their trees and the width `d`.
Status checkStructuralExamples(const std::vector<const std::vector<StructuralExample> *> &splits, int d)
{
    for (const auto *split : splits)
        for (const auto &ex : *split) {
            const std::string where = "structural probe: sentence " + std::to_string(ex.sentence + 1);
            if (ex.heads.empty())
                return makeError(where, "no words");
            if (ex.states.cols != d || ex.states.rows != static_cast<int>(ex.heads.size()))
                return makeError(where, "word vectors of " + std::to_string(ex.states.rows) + "x" +
                                            std::to_string(ex.states.cols) + " for " + std::to_string(ex.heads.size()) +
                                            " words of width " + std::to_string(d));
            DependencyTree t;
            t.heads = ex.heads;
            t.deprels.assign(ex.heads.size(), "_");
            if (auto st = t.validate(); !st)
                return makeError(where, st.error());
        }
    return {};
}

/// The probe B (stored transposed, as their probe.py does) and what it computes.
class StructuralNet {
public:
    /// Padded batch of examples.
    struct Batch {
        torch::Tensor x, gold, mask, lengths;
        std::int64_t maxLen = 0;
    };

    StructuralNet(StructuralProbeKind kind, int d, int k, std::mt19937 &rng, const torch::Device &device)
        : m_distance(kind == StructuralProbeKind::Distance), m_d(d), m_device(device)
    {
        params.insert("proj", uniformTensor({d, k}, 0.05, rng, device)); // B^T, as their probe.py stores it
    }

    /// Gold targets per example (float): tree distances n×n or depths n.
    std::vector<std::vector<float>> golds(const std::vector<StructuralExample> &split) const
    {
        std::vector<std::vector<float>> g;
        for (const auto &ex : split) {
            DependencyTree t;
            t.heads = ex.heads;
            if (m_distance) {
                const auto m = t.distanceMatrix();
                g.emplace_back(m.begin(), m.end());
            } else {
                std::vector<float> v;
                for (int i = 0; i < static_cast<int>(ex.heads.size()); ++i)
                    v.push_back(static_cast<float>(t.depthOf(i)));
                g.push_back(std::move(v));
            }
        }
        return g;
    }

    /// The examples idx of `split`, padded; with their gold targets when `gold` is given.
    Batch batch(const std::vector<StructuralExample> &split, const std::vector<std::vector<float>> *gold,
                const std::vector<int> &idx) const
    {
        Batch b;
        const auto B = static_cast<std::int64_t>(idx.size());
        for (int i : idx)
            b.maxLen = std::max<std::int64_t>(b.maxLen, static_cast<std::int64_t>(split[static_cast<std::size_t>(i)].heads.size()));
        const std::int64_t N = b.maxLen, d = m_d;
        std::vector<float> x(static_cast<std::size_t>(B * N * d), 0.0f), mask(static_cast<std::size_t>(B * N), 0.0f),
            lens(static_cast<std::size_t>(B));
        std::vector<float> g(gold ? static_cast<std::size_t>(m_distance ? B * N * N : B * N) : 0, 0.0f);
        for (std::int64_t bi = 0; bi < B; ++bi) {
            const auto &ex = split[static_cast<std::size_t>(idx[static_cast<std::size_t>(bi)])];
            const auto n = static_cast<std::int64_t>(ex.heads.size());
            std::copy(ex.states.data.begin(), ex.states.data.end(), x.begin() + bi * N * d);
            for (std::int64_t i = 0; i < n; ++i)
                mask[static_cast<std::size_t>(bi * N + i)] = 1.0f;
            lens[static_cast<std::size_t>(bi)] = static_cast<float>(n);
            if (gold) {
                const auto &gv = (*gold)[static_cast<std::size_t>(idx[static_cast<std::size_t>(bi)])];
                if (m_distance) {
                    for (std::int64_t i = 0; i < n; ++i)
                        std::copy_n(gv.begin() + i * n, n, g.begin() + bi * N * N + i * N);
                } else {
                    std::copy(gv.begin(), gv.end(), g.begin() + bi * N);
                }
            }
        }
        b.x = torch::from_blob(x.data(), {B, N, d}, torch::kFloat32).clone().to(m_device);
        b.mask = torch::from_blob(mask.data(), {B, N}, torch::kFloat32).clone().to(m_device);
        b.lengths = torch::from_blob(lens.data(), {B}, torch::kFloat32).clone().to(m_device);
        if (gold)
            b.gold = torch::from_blob(g.data(),
                                      m_distance ? std::vector<std::int64_t>{B, N, N} : std::vector<std::int64_t>{B, N},
                                      torch::kFloat32)
                         .clone()
                         .to(m_device);
        return b;
    }

    /// Predicted squared distances [B, N, N] (via the Gram matrix) or depths [B, N].
    torch::Tensor forward(const torch::Tensor &x)
    {
        const torch::Tensor t = torch::matmul(x, params["proj"]); // [B, N, k]
        if (!m_distance)
            return (t * t).sum(-1);
        const torch::Tensor gram = torch::bmm(t, t.transpose(1, 2));
        const torch::Tensor sq = gram.diagonal(0, 1, 2);
        return sq.unsqueeze(2) + sq.unsqueeze(1) - 2.0 * gram;
    }

    /// Mean over the batch's sentences of the L1 loss per word (pair).
    torch::Tensor loss(const torch::Tensor &pred, const Batch &b) const
    {
        if (m_distance) {
            const torch::Tensor m2 = b.mask.unsqueeze(2) * b.mask.unsqueeze(1);
            const torch::Tensor perSent = ((pred - b.gold).abs() * m2).sum({1, 2}) / b.lengths.pow(2);
            return perSent.mean();
        }
        const torch::Tensor perSent = ((pred - b.gold).abs() * b.mask).sum(1) / b.lengths;
        return perSent.mean();
    }

    /// Predictions per example: n×n distances (exact 0 diagonal, clamped at 0) or n depths.
    std::vector<std::vector<float>> predict(const std::vector<StructuralExample> &split, int batchSize)
    {
        std::vector<std::vector<float>> out;
        torch::NoGradGuard ng;
        for (std::size_t b = 0; b < split.size(); b += static_cast<std::size_t>(batchSize)) {
            const std::size_t e = std::min(split.size(), b + static_cast<std::size_t>(batchSize));
            std::vector<int> idx(e - b);
            std::iota(idx.begin(), idx.end(), static_cast<int>(b));
            const Batch padded = batch(split, nullptr, idx);
            const torch::Tensor pred = forward(padded.x).to(torch::kCPU).contiguous();
            const float *p = pred.data_ptr<float>();
            const std::int64_t N = padded.maxLen;
            for (std::size_t bi = 0; bi < idx.size(); ++bi) {
                const auto n = static_cast<std::int64_t>(split[static_cast<std::size_t>(idx[bi])].heads.size());
                std::vector<float> v;
                if (m_distance) {
                    v.resize(static_cast<std::size_t>(n * n));
                    for (std::int64_t i = 0; i < n; ++i)
                        for (std::int64_t j = 0; j < n; ++j)
                            v[static_cast<std::size_t>(i * n + j)] =
                                i == j ? 0.0f : std::max(0.0f, p[static_cast<std::int64_t>(bi) * N * N + i * N + j]);
                } else {
                    v.assign(p + static_cast<std::int64_t>(bi) * N, p + static_cast<std::int64_t>(bi) * N + n);
                }
                out.push_back(std::move(v));
            }
        }
        return out;
    }

    Params params;

private:
    bool m_distance;
    int m_d;
    torch::Device m_device;
};

/// The training loop's state: Adam, the learning-rate schedule, the best epoch.
struct StructuralTraining {
    StructuralTraining(StructuralProbeKind k, const StructuralProbeOptions &o, StructuralNet &n)
        : kind(k), options(o), net(n), lr(o.learningRate)
    {
    }

    StructuralProbeKind kind;
    const StructuralProbeOptions &options;
    StructuralNet &net;
    std::unique_ptr<training::Optimizer> adam;
    double lr = 0.0;
    double schedulerBest = std::numeric_limits<double>::infinity();
    double bestLoss = std::numeric_limits<double>::infinity();
    std::vector<torch::Tensor> best;

    /// One epoch over `train` in the order `order`; false when cancelled.
    bool epoch(const std::vector<StructuralExample> &train, const std::vector<std::vector<float>> &gold,
               const std::vector<int> &order, const RunControl *control, double &lossSum)
    {
        const int n = static_cast<int>(train.size());
        for (int b = 0; b < n; b += options.batchSize) {
            if (control && control->isCancelled())
                return false;
            const int e = std::min(n, b + options.batchSize);
            const std::vector<int> idx(order.begin() + b, order.begin() + e);
            const StructuralNet::Batch batch = net.batch(train, &gold, idx);
            const torch::Tensor loss = net.loss(net.forward(batch.x), batch);
            zeroGrad(net.params);
            loss.backward();
            adam->step(lr);
            lossSum += loss.item<double>() * (e - b);
        }
        return true;
    }

    /// Scores the epoch on dev: the schedule, the best parameters; true when it is time to stop.
    bool afterEpoch(const std::vector<StructuralExample> &dev, StructuralEpoch &rec, StructuralProbeResult &result)
    {
        const StructuralMetrics dm = evaluateStructural(kind, dev, net.predict(dev, options.batchSize));
        rec.devLoss = dm.loss;
        rec.devMetric = kind == StructuralProbeKind::Distance ? dm.uuas : dm.rootAccuracy;
        // ReduceLROnPlateau(mode min, factor lrDecay, patience 0, threshold 1e-4 relative).
        if (rec.devLoss < schedulerBest * (1.0 - 1e-4))
            schedulerBest = rec.devLoss;
        else if (lr - lr * options.lrDecay > 1e-8)
            lr *= options.lrDecay;
        if (rec.devLoss < bestLoss - options.minImprovement) {
            bestLoss = rec.devLoss;
            result.bestEpoch = rec.epoch;
            result.bestDevLoss = rec.devLoss;
            best = snapshot(net.params);
        } else if (options.patience > 0 && rec.epoch - result.bestEpoch >= options.patience) {
            return rec.epoch < options.maxEpochs;
        }
        return false;
    }
};

} // namespace

Result<StructuralProbeResult> trainStructuralProbe(StructuralProbeKind kind, const std::vector<StructuralExample> &train,
                                                   const std::vector<StructuralExample> &dev,
                                                   const std::vector<StructuralExample> &test,
                                                   const StructuralProbeOptions &options,
                                                   const std::function<void(const StructuralEpoch &)> &onEpoch,
                                                   const RunControl *control)
{
    if (auto s = options.validate(); !s)
        return s.error();
    if (train.empty())
        return makeError("structural probe", "no training sentences");
    const int d = train.front().states.cols;
    if (d <= 0)
        return makeError("structural probe", "the word vectors have no columns");
    if (auto s = checkStructuralExamples({&train, &dev, &test}, d); !s)
        return s.error();
    const ThreadScope threads(options.threads);
    auto device = probeDevice(options.device);
    if (!device)
        return device.error();
    const int k = options.rank > 0 ? options.rank : d;
    std::mt19937 rng(options.seed);
    StructuralNet net(kind, d, k, rng, *device);
    StructuralProbeResult result;
    result.kind = kind;
    result.rank = k;
    result.parameters = static_cast<long long>(d) * k;
    const auto trainGold = net.golds(train);

    StructuralTraining training(kind, options, net);
    auto adam = probeAdam(net.params);
    if (!adam)
        return adam.error();
    training.adam = std::move(*adam);
    std::vector<int> order(train.size());
    std::iota(order.begin(), order.end(), 0);
    for (int epoch = 1; epoch <= options.maxEpochs; ++epoch) {
        if (control && control->isCancelled())
            return cancelledError();
        shuffle(order, rng);
        StructuralEpoch rec;
        rec.epoch = epoch;
        rec.learningRate = training.lr;
        double lossSum = 0;
        if (!training.epoch(train, trainGold, order, control, lossSum))
            return cancelledError();
        rec.trainLoss = lossSum / static_cast<int>(train.size());
        bool stop = false;
        if (!dev.empty())
            stop = training.afterEpoch(dev, rec, result);
        else
            result.bestEpoch = epoch;
        result.curve.push_back(rec);
        if (onEpoch)
            onEpoch(rec);
        if (stop) {
            result.stoppedEarly = true;
            break;
        }
    }
    if (!training.best.empty())
        restore(net.params, training.best);
    if (!dev.empty())
        result.dev = evaluateStructural(kind, dev, net.predict(dev, options.batchSize));
    result.test = evaluateStructural(kind, test, net.predict(test, options.batchSize), &result.testSentences);
    return result;
}

} // namespace treelens
