#include "core/probing/probes.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

#include <torch/torch.h>

#include "core/encoders/encoder.h"
#include "core/probing/attentiontree.h"
#include "core/runtime/device.h"
#include "core/training/optimizer.h"

namespace treelens {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

/// Sets LibTorch's CPU threads for the lifetime of the guard.
class ThreadGuard {
public:
    explicit ThreadGuard(int n) : m_previous(cpuThreads()) { setCpuThreads(n); }
    ~ThreadGuard() { setCpuThreads(m_previous); }
    ThreadGuard(const ThreadGuard &) = delete;
    ThreadGuard &operator=(const ThreadGuard &) = delete;

private:
    int m_previous;
};

/// Uniform in [lo, hi) from 24 random bits (identical on every platform).
float uniform(std::mt19937 &rng, double lo, double hi)
{
    const double u = static_cast<double>(rng() >> 8) * (1.0 / 16777216.0);
    return static_cast<float>(lo + (hi - lo) * u);
}

/// Fisher–Yates as in seededSplit(): platform-independent.
void shuffle(std::vector<int> &v, std::mt19937 &rng)
{
    for (std::size_t i = v.size(); i-- > 1;) {
        const auto j = static_cast<std::size_t>((static_cast<std::uint64_t>(rng()) * (i + 1)) >> 32);
        std::swap(v[i], v[j]);
    }
}

torch::Tensor uniformTensor(std::vector<std::int64_t> shape, double bound, std::mt19937 &rng, const torch::Device &device)
{
    std::int64_t count = 1;
    for (auto s : shape)
        count *= s;
    std::vector<float> v(static_cast<std::size_t>(count));
    for (auto &x : v)
        x = uniform(rng, -bound, bound);
    return torch::from_blob(v.data(), shape, torch::kFloat32).clone().to(device).set_requires_grad(true);
}

torch::Tensor matrixTensor(const Matrix &m, const torch::Device &device)
{
    if (m.rows == 0)
        return torch::zeros({0, m.cols}, torch::kFloat32).to(device);
    return torch::from_blob(const_cast<float *>(m.data.data()), {m.rows, m.cols}, torch::kFloat32).clone().to(device);
}

Result<torch::Device> probeDevice(const std::string &name)
{
    DeviceConfig dc;
    dc.device = name;
    return resolveDevice(dc);
}

using Params = torch::OrderedDict<std::string, torch::Tensor>;

std::vector<torch::Tensor> snapshot(const Params &params)
{
    std::vector<torch::Tensor> out;
    for (const auto &p : params)
        out.push_back(p.value().detach().clone());
    return out;
}

void restore(Params &params, const std::vector<torch::Tensor> &saved)
{
    torch::NoGradGuard ng;
    std::size_t i = 0;
    for (auto &p : params)
        p.value().copy_(saved[i++]);
}

/// The probes' optimiser: Adam (β 0.9/0.999, ε 1e-12, no clipping) from core/training.
Result<std::unique_ptr<training::Optimizer>> probeAdam(const Params &params)
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

void zeroGrad(Params &params)
{
    for (auto &p : params)
        if (p.value().grad().defined())
            p.value().mutable_grad().zero_();
}

std::string sentenceName(const std::vector<Sentence> &sentences, std::size_t i)
{
    std::string s = "sentence " + std::to_string(i + 1);
    if (!sentences[i].id.empty())
        s += " (" + sentences[i].id + ")";
    return s;
}

} // namespace

// ---------------------------------------------------------------------------
// Feature extraction
// ---------------------------------------------------------------------------

bool ProbeFeatures::hasLayer(int layer) const
{
    return std::binary_search(keptLayers.begin(), keptLayers.end(), layer);
}

Result<ProbeFeatures> extractFeatures(Encoder &encoder, const std::vector<Sentence> &sentences,
                                      const FeatureOptions &options, const RunControl *control)
{
    const EncoderInfo &info = encoder.info();
    const int L = info.layers;
    const int d = info.dModel;
    if (!info.outputs.layerStates)
        return makeError("features", "the " + info.family + " encoder does not emit hidden states per layer");
    if (options.batchSize < 1)
        return makeError("features", "the batch size must be at least 1");
    if (!options.sentenceVectors && !options.wordVectors)
        return makeError("features", "neither sentence nor word vectors were asked for");
    std::vector<char> keep(static_cast<std::size_t>(L) + 1, options.layers.empty() ? 1 : 0);
    for (int l : options.layers) {
        if (l < 0 || l > L)
            return makeError("features", "layer " + std::to_string(l) + " is outside 0.." + std::to_string(L));
        keep[static_cast<std::size_t>(l)] = 1;
    }

    ProbeFeatures f;
    f.layers = L;
    f.dim = d;
    f.sentences = sentences.size();
    f.hasCls = info.hasClsToken && options.sentenceVectors;
    for (int l = 0; l <= L; ++l)
        if (keep[static_cast<std::size_t>(l)])
            f.keptLayers.push_back(l);
    const int N = static_cast<int>(sentences.size());
    f.cls.resize(static_cast<std::size_t>(L) + 1);
    f.mean.resize(static_cast<std::size_t>(L) + 1);
    f.words.resize(static_cast<std::size_t>(L) + 1);
    if (options.wordVectors) {
        f.wordOffset.assign(sentences.size() + 1, 0);
        for (std::size_t s = 0; s < sentences.size(); ++s)
            f.wordOffset[s + 1] = f.wordOffset[s] + static_cast<int>(sentences[s].tokens.size());
    }
    for (int l : f.keptLayers) {
        if (options.sentenceVectors) {
            f.mean[static_cast<std::size_t>(l)] = Matrix(N, d);
            if (f.hasCls)
                f.cls[static_cast<std::size_t>(l)] = Matrix(N, d);
        }
        if (options.wordVectors)
            f.words[static_cast<std::size_t>(l)] = Matrix(f.wordOffset.back(), d);
    }

    const int offset = info.hasClsToken ? 1 : 0;
    std::vector<int> todo;
    for (std::size_t s = 0; s < sentences.size(); ++s) {
        const Sentence &sent = sentences[s];
        if (sent.tokens.empty()) {
            f.emptySentences.push_back(static_cast<int>(s));
            continue;
        }
        if (info.maxTokens > 0 && static_cast<int>(sent.tokens.size()) + offset > info.maxTokens)
            return makeError(sentenceName(sentences, s),
                             std::to_string(sent.tokens.size()) + " words; the model takes at most " +
                                 std::to_string(info.maxTokens - offset));
        if (info.input == InputKind::WordsWithDependency && !sent.dependency)
            return makeError(sentenceName(sentences, s), "the encoder needs a dependency tree and the sentence has none");
        if (info.input == InputKind::WordsWithConstituency && !sent.constituency)
            return makeError(sentenceName(sentences, s), "the encoder needs a constituency tree and the sentence has none");
        todo.push_back(static_cast<int>(s));
    }

    RunControl inner;
    if (control)
        inner.cancelled = control->cancelled;
    std::size_t done = f.emptySentences.size();
    for (std::size_t begin = 0; begin < todo.size(); begin += static_cast<std::size_t>(options.batchSize)) {
        if (control && control->isCancelled())
            return Error{"cancelled"};
        const std::size_t end = std::min(todo.size(), begin + static_cast<std::size_t>(options.batchSize));
        std::vector<EncoderInput> batch;
        batch.reserve(end - begin);
        for (std::size_t k = begin; k < end; ++k) {
            const Sentence &sent = sentences[static_cast<std::size_t>(todo[k])];
            EncoderInput in;
            in.words = sent.words();
            if (info.input == InputKind::WordsWithDependency)
                in.dependency = sent.dependency;
            if (info.input == InputKind::WordsWithConstituency)
                in.constituency = sent.constituency;
            batch.push_back(std::move(in));
        }
        auto states = encoder.layerStates(batch, &inner);
        if (!states) {
            if (control && control->isCancelled())
                return Error{"cancelled"};
            return makeError("features (sentences " + std::to_string(todo[begin] + 1) + " to " +
                                 std::to_string(todo[end - 1] + 1) + ")",
                             states.message());
        }
        if (states->size() != batch.size())
            return makeError("features", "the encoder returned " + std::to_string(states->size()) + " results for " +
                                             std::to_string(batch.size()) + " sentences");
        for (std::size_t k = begin; k < end; ++k) {
            const auto s = static_cast<std::size_t>(todo[k]);
            const auto &perLayer = (*states)[k - begin];
            const int n = static_cast<int>(sentences[s].tokens.size());
            if (static_cast<int>(perLayer.size()) != L + 1)
                return makeError(sentenceName(sentences, s), "the encoder returned " + std::to_string(perLayer.size()) +
                                                                 " layer states, expected " + std::to_string(L + 1));
            for (int l : f.keptLayers) {
                const Matrix &m = perLayer[static_cast<std::size_t>(l)];
                if (m.rows != n + offset || m.cols != d)
                    return makeError(sentenceName(sentences, s),
                                     "layer " + std::to_string(l) + " has " + std::to_string(m.rows) + "x" +
                                         std::to_string(m.cols) + " states for " + std::to_string(n) +
                                         " words; expected one token per word" + (offset ? " after [CLS]" : "") +
                                         " and width " + std::to_string(d));
                const auto li = static_cast<std::size_t>(l);
                if (options.sentenceVectors) {
                    std::vector<double> acc(static_cast<std::size_t>(d), 0.0);
                    for (int w = 0; w < n; ++w)
                        for (int c = 0; c < d; ++c)
                            acc[static_cast<std::size_t>(c)] += m.at(w + offset, c);
                    for (int c = 0; c < d; ++c)
                        f.mean[li].at(static_cast<int>(s), c) = static_cast<float>(acc[static_cast<std::size_t>(c)] / n);
                    if (f.hasCls)
                        for (int c = 0; c < d; ++c)
                            f.cls[li].at(static_cast<int>(s), c) = m.at(0, c);
                }
                if (options.wordVectors) {
                    const int row0 = f.wordOffset[s];
                    for (int w = 0; w < n; ++w)
                        std::copy_n(m.data.begin() + static_cast<std::ptrdiff_t>(w + offset) * d, d,
                                    f.words[li].data.begin() + static_cast<std::ptrdiff_t>(row0 + w) * d);
                }
            }
        }
        done += end - begin;
        if (control)
            control->report(done, sentences.size(), "extracting features");
    }
    if (control && todo.empty())
        control->report(done, sentences.size(), "extracting features");
    return f;
}

// ---------------------------------------------------------------------------
// Sentence-level probes
// ---------------------------------------------------------------------------

Result<ProbeInputs> probeInputs(const ProbeDataset &dataset, const ProbeFeatures &train, const ProbeFeatures &dev,
                                const ProbeFeatures &test, int layer, SentencePooling pooling)
{
    ProbeInputs in;
    in.numClasses = dataset.regression() ? 0 : static_cast<int>(dataset.labels.size());
    in.labels = dataset.labels;
    auto gather = [&](const std::vector<ProbeExample> &examples, const ProbeFeatures &f, const std::string &split,
                      ProbeSplit &out) -> Status {
        if (!f.hasLayer(layer) || (f.mean[static_cast<std::size_t>(layer)].empty() && f.sentences > 0))
            return makeError("probe " + split, "no sentence vectors for layer " + std::to_string(layer));
        if (pooling == SentencePooling::Cls && !f.hasCls)
            return makeError("probe " + split, "the encoder has no [CLS] token; use mean pooling");
        const Matrix &m = pooling == SentencePooling::Cls ? f.cls[static_cast<std::size_t>(layer)]
                                                          : f.mean[static_cast<std::size_t>(layer)];
        out.features = Matrix(static_cast<int>(examples.size()), f.dim);
        for (std::size_t r = 0; r < examples.size(); ++r) {
            const int s = examples[r].sentence;
            if (s < 0 || static_cast<std::size_t>(s) >= f.sentences)
                return makeError("probe " + split, "example " + std::to_string(r + 1) + " refers to sentence " +
                                                       std::to_string(s) + " of " + std::to_string(f.sentences));
            std::copy_n(m.data.begin() + static_cast<std::ptrdiff_t>(s) * f.dim, f.dim,
                        out.features.data.begin() + static_cast<std::ptrdiff_t>(r) * f.dim);
            out.sentences.push_back(s);
            if (dataset.regression())
                out.targets.push_back(examples[r].target);
            else
                out.labels.push_back(examples[r].label);
        }
        return {};
    };
    if (auto s = gather(dataset.train, train, "train", in.train); !s)
        return s.error();
    if (auto s = gather(dataset.dev, dev, "dev", in.dev); !s)
        return s.error();
    if (auto s = gather(dataset.test, test, "test", in.test); !s)
        return s.error();
    return in;
}

Status probeDeviceAvailable(const std::string &device)
{
    auto d = probeDevice(device);
    if (!d)
        return d.error();
    return {};
}

Status ProbeTrainOptions::validate() const
{
    if (hiddenSize < 0)
        return makeError("probe", "the hidden size must be 0 (= input size) or positive");
    if (!(learningRate > 0))
        return makeError("probe", "the learning rate must be positive");
    if (batchSize < 1)
        return makeError("probe", "the batch size must be at least 1");
    if (maxEpochs < 1)
        return makeError("probe", "at least one epoch is needed");
    if (patience < 0)
        return makeError("probe", "the patience must be 0 (off) or positive");
    if (threads < 1)
        return makeError("probe", "at least one thread is needed");
    return {};
}

ProbeMetrics classificationMetrics(const std::vector<int> &gold, const std::vector<int> &predicted)
{
    ProbeMetrics m;
    if (gold.empty() || gold.size() != predicted.size())
        return m;
    std::map<int, long> tp, fp, fn;
    long correct = 0;
    for (std::size_t i = 0; i < gold.size(); ++i) {
        if (gold[i] == predicted[i]) {
            ++correct;
            ++tp[gold[i]];
        } else {
            ++fn[gold[i]];
            ++fp[predicted[i]];
        }
        tp.emplace(gold[i], 0);
        tp.emplace(predicted[i], 0);
    }
    m.accuracy = static_cast<double>(correct) / static_cast<double>(gold.size());
    double f1sum = 0;
    for (const auto &[label, t] : tp) {
        const double denom = 2.0 * t + fp[label] + fn[label];
        f1sum += denom > 0 ? 2.0 * t / denom : 0.0;
    }
    m.macroF1 = f1sum / static_cast<double>(tp.size());
    return m;
}

ProbeMetrics regressionMetrics(const std::vector<double> &gold, const std::vector<double> &predicted)
{
    ProbeMetrics m;
    if (gold.empty() || gold.size() != predicted.size())
        return m;
    const double n = static_cast<double>(gold.size());
    double se = 0, sum = 0;
    for (std::size_t i = 0; i < gold.size(); ++i) {
        se += (gold[i] - predicted[i]) * (gold[i] - predicted[i]);
        sum += gold[i];
    }
    m.mse = se / n;
    m.loss = m.mse;
    const double mean = sum / n;
    double var = 0;
    for (double g : gold)
        var += (g - mean) * (g - mean);
    var /= n;
    m.r2 = var > 0 ? 1.0 - m.mse / var : kNaN;
    return m;
}

Result<ProbeResult> trainProbe(const ProbeInputs &inputs, const ProbeTrainOptions &options,
                               const std::function<void(const ProbeEpoch &)> &onEpoch, const RunControl *control)
{
    if (auto s = options.validate(); !s)
        return s.error();
    const bool regression = inputs.numClasses == 0;
    if (inputs.numClasses < 0)
        return makeError("probe", "the number of classes must not be negative");
    const int n = inputs.train.features.rows;
    const int d = inputs.train.features.cols;
    if (n == 0)
        return makeError("probe", "no training examples");
    if (d <= 0)
        return makeError("probe", "the features have no columns");
    for (const auto *split : {&inputs.train, &inputs.dev, &inputs.test}) {
        const char *name = split == &inputs.train ? "train" : split == &inputs.dev ? "dev" : "test";
        const std::size_t rows = static_cast<std::size_t>(split->features.rows);
        if (rows > 0 && split->features.cols != d)
            return makeError(std::string("probe ") + name, "features of width " + std::to_string(split->features.cols) +
                                                               ", train has " + std::to_string(d));
        if (split->features.data.size() != rows * static_cast<std::size_t>(split->features.cols))
            return makeError(std::string("probe ") + name, "the feature matrix has the wrong number of values");
        if (regression ? split->targets.size() != rows : split->labels.size() != rows)
            return makeError(std::string("probe ") + name, "the number of targets differs from the number of rows");
        if (!regression)
            for (int y : split->labels)
                if (y < 0 || y >= inputs.numClasses)
                    return makeError(std::string("probe ") + name,
                                     "label " + std::to_string(y) + " is outside 0.." + std::to_string(inputs.numClasses - 1));
    }
    ThreadGuard threads(options.threads);
    auto dev = probeDevice(options.device);
    if (!dev)
        return dev.error();
    const torch::Device device = *dev;

    const int C = regression ? 1 : inputs.numClasses;
    const bool mlp = options.architecture == ProbeArchitecture::Mlp;
    const int H = options.hiddenSize > 0 ? options.hiddenSize : d;
    std::mt19937 rng(options.seed);
    Params params;
    // nn.Linear's default initialisation: U(±1/sqrt(fan_in)) for weights and biases.
    if (mlp) {
        const double b1 = 1.0 / std::sqrt(static_cast<double>(d));
        params.insert("hidden.weight", uniformTensor({H, d}, b1, rng, device));
        params.insert("hidden.bias", uniformTensor({H}, b1, rng, device));
        const double b2 = 1.0 / std::sqrt(static_cast<double>(H));
        params.insert("output.weight", uniformTensor({C, H}, b2, rng, device));
        params.insert("output.bias", uniformTensor({C}, b2, rng, device));
    } else {
        const double b = 1.0 / std::sqrt(static_cast<double>(d));
        params.insert("output.weight", uniformTensor({C, d}, b, rng, device));
        params.insert("output.bias", uniformTensor({C}, b, rng, device));
    }
    ProbeResult result;
    result.regression = regression;
    for (const auto &p : params)
        result.parameters += p.value().numel();

    auto forward = [&](const torch::Tensor &x) {
        torch::Tensor h = x;
        if (mlp)
            h = torch::relu(torch::nn::functional::linear(h, params["hidden.weight"], params["hidden.bias"]));
        return torch::nn::functional::linear(h, params["output.weight"], params["output.bias"]);
    };

    // Regression targets are standardised for training only.
    double mean = 0, sd = 1;
    if (regression) {
        for (double t : inputs.train.targets)
            mean += t;
        mean /= n;
        double var = 0;
        for (double t : inputs.train.targets)
            var += (t - mean) * (t - mean);
        var /= n;
        sd = var > 0 ? std::sqrt(var) : 1.0;
    }
    const torch::Tensor xTrain = matrixTensor(inputs.train.features, device);
    torch::Tensor yTrain;
    if (regression) {
        std::vector<float> z;
        for (double t : inputs.train.targets)
            z.push_back(static_cast<float>((t - mean) / sd));
        yTrain = torch::from_blob(z.data(), {n}, torch::kFloat32).clone().to(device);
    } else {
        std::vector<std::int64_t> y(inputs.train.labels.begin(), inputs.train.labels.end());
        yTrain = torch::from_blob(y.data(), {n}, torch::kInt64).clone().to(device);
    }

    struct Evaluated {
        ProbeMetrics metrics;
        std::vector<int> classes;
        std::vector<double> values;
    };
    auto evaluate = [&](const ProbeSplit &split) {
        Evaluated e;
        if (split.features.rows == 0)
            return e;
        torch::NoGradGuard ng;
        const torch::Tensor x = matrixTensor(split.features, device);
        const torch::Tensor out = forward(x).to(torch::kCPU).contiguous();
        if (regression) {
            const float *p = out.data_ptr<float>();
            for (int r = 0; r < split.features.rows; ++r)
                e.values.push_back(static_cast<double>(p[r]) * sd + mean);
            e.metrics = regressionMetrics(split.targets, e.values);
        } else {
            const torch::Tensor arg = out.argmax(1).contiguous();
            const std::int64_t *a = arg.data_ptr<std::int64_t>();
            for (int r = 0; r < split.features.rows; ++r)
                e.classes.push_back(static_cast<int>(a[r]));
            e.metrics = classificationMetrics(split.labels, e.classes);
            std::vector<std::int64_t> y(split.labels.begin(), split.labels.end());
            const torch::Tensor yt = torch::from_blob(y.data(), {static_cast<std::int64_t>(y.size())}, torch::kInt64);
            e.metrics.loss = torch::nn::functional::cross_entropy(out, yt).item<double>();
        }
        return e;
    };

    auto adam = probeAdam(params);
    if (!adam)
        return adam.error();
    const bool haveDev = inputs.dev.features.rows > 0;
    std::vector<torch::Tensor> best;
    std::vector<int> order(static_cast<std::size_t>(n));
    std::iota(order.begin(), order.end(), 0);
    for (int epoch = 1; epoch <= options.maxEpochs; ++epoch) {
        if (control && control->isCancelled())
            return Error{"cancelled"};
        shuffle(order, rng);
        double lossSum = 0;
        for (int b = 0; b < n; b += options.batchSize) {
            const int e = std::min(n, b + options.batchSize);
            std::vector<std::int64_t> idx(order.begin() + b, order.begin() + e);
            const torch::Tensor it = torch::from_blob(idx.data(), {e - b}, torch::kInt64).clone().to(device);
            const torch::Tensor out = forward(xTrain.index_select(0, it));
            const torch::Tensor yb = yTrain.index_select(0, it);
            const torch::Tensor loss = regression ? torch::mse_loss(out.squeeze(1), yb)
                                                  : torch::nn::functional::cross_entropy(out, yb);
            zeroGrad(params);
            loss.backward();
            (*adam)->step(options.learningRate);
            lossSum += loss.item<double>() * (e - b);
        }
        ProbeEpoch rec;
        rec.epoch = epoch;
        rec.trainLoss = lossSum / n * (regression ? sd * sd : 1.0);
        bool better = !haveDev;
        if (haveDev) {
            const Evaluated ev = evaluate(inputs.dev);
            rec.devLoss = ev.metrics.loss;
            rec.devMetric = regression ? ev.metrics.mse : ev.metrics.accuracy;
            better = result.bestEpoch == 0 ? !std::isnan(rec.devMetric)
                     : regression          ? rec.devMetric < result.bestDevMetric
                                           : rec.devMetric > result.bestDevMetric;
            if (better)
                result.bestDevMetric = rec.devMetric;
        }
        if (better) {
            result.bestEpoch = epoch;
            if (haveDev)
                best = snapshot(params);
        }
        result.curve.push_back(rec);
        if (onEpoch)
            onEpoch(rec);
        if (haveDev && options.patience > 0 && result.bestEpoch > 0 && epoch - result.bestEpoch >= options.patience &&
            epoch < options.maxEpochs) {
            result.stoppedEarly = true;
            break;
        }
    }
    if (haveDev && !best.empty())
        restore(params, best);
    if (result.bestEpoch == 0)
        result.bestEpoch = static_cast<int>(result.curve.size());
    const Evaluated devEval = evaluate(inputs.dev);
    result.dev = devEval.metrics;
    Evaluated testEval = evaluate(inputs.test);
    result.test = testEval.metrics;
    result.testPredicted = std::move(testEval.classes);
    result.testPredictions = std::move(testEval.values);
    return result;
}

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
    for (const auto *split : {&train, &dev, &test})
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
                return makeError(where, st.message());
        }
    ThreadGuard threads(options.threads);
    auto devR = probeDevice(options.device);
    if (!devR)
        return devR.error();
    const torch::Device device = *devR;
    const bool distance = kind == StructuralProbeKind::Distance;
    const int k = options.rank > 0 ? options.rank : d;

    std::mt19937 rng(options.seed);
    Params params;
    params.insert("proj", uniformTensor({d, k}, 0.05, rng, device)); // B^T, as their probe.py stores it
    StructuralProbeResult result;
    result.kind = kind;
    result.rank = k;
    result.parameters = static_cast<long long>(d) * k;

    // Gold targets per example (float), computed once.
    auto golds = [&](const std::vector<StructuralExample> &split) {
        std::vector<std::vector<float>> g;
        for (const auto &ex : split) {
            DependencyTree t;
            t.heads = ex.heads;
            if (distance) {
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
    };
    const auto trainGold = golds(train);

    // Padded batch of examples idx[b..e).
    struct Batch {
        torch::Tensor x, gold, mask, lengths;
        std::int64_t maxLen = 0;
    };
    auto makeBatch = [&](const std::vector<StructuralExample> &split, const std::vector<std::vector<float>> *gold,
                         const std::vector<int> &idx) {
        Batch b;
        const auto B = static_cast<std::int64_t>(idx.size());
        for (int i : idx)
            b.maxLen = std::max<std::int64_t>(b.maxLen, static_cast<std::int64_t>(split[static_cast<std::size_t>(i)].heads.size()));
        const std::int64_t N = b.maxLen;
        std::vector<float> x(static_cast<std::size_t>(B * N * d), 0.0f), mask(static_cast<std::size_t>(B * N), 0.0f),
            lens(static_cast<std::size_t>(B));
        std::vector<float> g(gold ? static_cast<std::size_t>(distance ? B * N * N : B * N) : 0, 0.0f);
        for (std::int64_t bi = 0; bi < B; ++bi) {
            const auto &ex = split[static_cast<std::size_t>(idx[static_cast<std::size_t>(bi)])];
            const auto n = static_cast<std::int64_t>(ex.heads.size());
            std::copy(ex.states.data.begin(), ex.states.data.end(), x.begin() + bi * N * d);
            for (std::int64_t i = 0; i < n; ++i)
                mask[static_cast<std::size_t>(bi * N + i)] = 1.0f;
            lens[static_cast<std::size_t>(bi)] = static_cast<float>(n);
            if (gold) {
                const auto &gv = (*gold)[static_cast<std::size_t>(idx[static_cast<std::size_t>(bi)])];
                if (distance) {
                    for (std::int64_t i = 0; i < n; ++i)
                        std::copy_n(gv.begin() + i * n, n, g.begin() + bi * N * N + i * N);
                } else {
                    std::copy(gv.begin(), gv.end(), g.begin() + bi * N);
                }
            }
        }
        b.x = torch::from_blob(x.data(), {B, N, d}, torch::kFloat32).clone().to(device);
        b.mask = torch::from_blob(mask.data(), {B, N}, torch::kFloat32).clone().to(device);
        b.lengths = torch::from_blob(lens.data(), {B}, torch::kFloat32).clone().to(device);
        if (gold)
            b.gold = torch::from_blob(g.data(), distance ? std::vector<std::int64_t>{B, N, N} : std::vector<std::int64_t>{B, N},
                                      torch::kFloat32)
                         .clone()
                         .to(device);
        return b;
    };
    // Predicted squared distances [B, N, N] (via the Gram matrix) or depths [B, N].
    auto forward = [&](const torch::Tensor &x) {
        const torch::Tensor t = torch::matmul(x, params["proj"]); // [B, N, k]
        if (!distance)
            return (t * t).sum(-1);
        const torch::Tensor gram = torch::bmm(t, t.transpose(1, 2));
        const torch::Tensor sq = gram.diagonal(0, 1, 2);
        return sq.unsqueeze(2) + sq.unsqueeze(1) - 2.0 * gram;
    };
    auto batchLoss = [&](const torch::Tensor &pred, const Batch &b) {
        if (distance) {
            const torch::Tensor m2 = b.mask.unsqueeze(2) * b.mask.unsqueeze(1);
            const torch::Tensor perSent = ((pred - b.gold).abs() * m2).sum({1, 2}) / b.lengths.pow(2);
            return perSent.mean();
        }
        const torch::Tensor perSent = ((pred - b.gold).abs() * b.mask).sum(1) / b.lengths;
        return perSent.mean();
    };
    auto predict = [&](const std::vector<StructuralExample> &split) {
        std::vector<std::vector<float>> out;
        torch::NoGradGuard ng;
        for (std::size_t b = 0; b < split.size(); b += static_cast<std::size_t>(options.batchSize)) {
            const std::size_t e = std::min(split.size(), b + static_cast<std::size_t>(options.batchSize));
            std::vector<int> idx(e - b);
            std::iota(idx.begin(), idx.end(), static_cast<int>(b));
            const Batch batch = makeBatch(split, nullptr, idx);
            const torch::Tensor pred = forward(batch.x).to(torch::kCPU).contiguous();
            const float *p = pred.data_ptr<float>();
            const std::int64_t N = batch.maxLen;
            for (std::size_t bi = 0; bi < idx.size(); ++bi) {
                const auto n = static_cast<std::int64_t>(split[static_cast<std::size_t>(idx[bi])].heads.size());
                std::vector<float> v;
                if (distance) {
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
    };

    auto adam = probeAdam(params);
    if (!adam)
        return adam.error();
    double lr = options.learningRate;
    double schedulerBest = std::numeric_limits<double>::infinity();
    double bestLoss = std::numeric_limits<double>::infinity();
    std::vector<torch::Tensor> best;
    std::vector<int> order(train.size());
    std::iota(order.begin(), order.end(), 0);
    const int n = static_cast<int>(train.size());
    for (int epoch = 1; epoch <= options.maxEpochs; ++epoch) {
        if (control && control->isCancelled())
            return Error{"cancelled"};
        shuffle(order, rng);
        double lossSum = 0;
        for (int b = 0; b < n; b += options.batchSize) {
            if (control && control->isCancelled())
                return Error{"cancelled"};
            const int e = std::min(n, b + options.batchSize);
            const std::vector<int> idx(order.begin() + b, order.begin() + e);
            const Batch batch = makeBatch(train, &trainGold, idx);
            const torch::Tensor loss = batchLoss(forward(batch.x), batch);
            zeroGrad(params);
            loss.backward();
            (*adam)->step(lr);
            lossSum += loss.item<double>() * (e - b);
        }
        StructuralEpoch rec;
        rec.epoch = epoch;
        rec.trainLoss = lossSum / n;
        rec.learningRate = lr;
        bool stop = false;
        if (!dev.empty()) {
            const StructuralMetrics dm = evaluateStructural(kind, dev, predict(dev));
            rec.devLoss = dm.loss;
            rec.devMetric = distance ? dm.uuas : dm.rootAccuracy;
            // ReduceLROnPlateau(mode min, factor lrDecay, patience 0, threshold 1e-4 relative).
            if (rec.devLoss < schedulerBest * (1.0 - 1e-4))
                schedulerBest = rec.devLoss;
            else if (lr - lr * options.lrDecay > 1e-8)
                lr *= options.lrDecay;
            if (rec.devLoss < bestLoss - options.minImprovement) {
                bestLoss = rec.devLoss;
                result.bestEpoch = epoch;
                result.bestDevLoss = rec.devLoss;
                best = snapshot(params);
            } else if (options.patience > 0 && epoch - result.bestEpoch >= options.patience) {
                stop = epoch < options.maxEpochs;
            }
        } else {
            result.bestEpoch = epoch;
        }
        result.curve.push_back(rec);
        if (onEpoch)
            onEpoch(rec);
        if (stop) {
            result.stoppedEarly = true;
            break;
        }
    }
    if (!best.empty())
        restore(params, best);
    if (!dev.empty())
        result.dev = evaluateStructural(kind, dev, predict(dev));
    result.test = evaluateStructural(kind, test, predict(test), &result.testSentences);
    return result;
}

} // namespace treelens
