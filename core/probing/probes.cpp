#include "core/probing/probes.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

#include <torch/torch.h>

#include "core/encoders/encoder.h"
#include "core/probing/attentiontree.h"
#include "core/probing/probetorch.h"
#include "core/runtime/device.h"

namespace treelens {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

using namespace probetorch;

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
        return makeError("features", "the " + info.family + " encoder does not emit hidden states per layer" +
                                         (info.pairInput ? std::string(" (it reads the two sentences of a pair together: "
                                                                       "probe its pair vectors with treelens-cli probe-pairs)")
                                                         : std::string()));
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
        if (readsTree(info.input, TreeKind::Dependency) && !sent.dependency)
            return makeError(sentenceName(sentences, s), "the encoder needs a dependency tree and the sentence has none");
        if (readsTree(info.input, TreeKind::Constituency) && !sent.constituency)
            return makeError(sentenceName(sentences, s), "the encoder needs a constituency tree and the sentence has none");
        todo.push_back(static_cast<int>(s));
    }

    RunControl inner;
    if (control)
        inner.cancelled = control->cancelled;
    std::size_t done = f.emptySentences.size();
    for (std::size_t begin = 0; begin < todo.size(); begin += static_cast<std::size_t>(options.batchSize)) {
        if (control && control->isCancelled())
            return cancelledError();
        const std::size_t end = std::min(todo.size(), begin + static_cast<std::size_t>(options.batchSize));
        std::vector<EncoderInput> batch;
        batch.reserve(end - begin);
        for (std::size_t k = begin; k < end; ++k) {
            const Sentence &sent = sentences[static_cast<std::size_t>(todo[k])];
            EncoderInput in;
            in.words = sent.words();
            if (readsTree(info.input, TreeKind::Dependency))
                in.dependency = sent.dependency;
            if (readsTree(info.input, TreeKind::Constituency))
                in.constituency = sent.constituency;
            batch.push_back(std::move(in));
        }
        auto states = encoder.layerStates(batch, &inner);
        if (!states) {
            if (control && control->isCancelled())
                return cancelledError();
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

namespace {

/// The splits' shapes, targets and labels agree with the train split's width `d`.
Status checkProbeInputs(const ProbeInputs &inputs, bool regression, int d)
{
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
    return {};
}

/// The probe network (MLP or linear) and its evaluation in target units.
class SentenceNet {
public:
    struct Evaluated {
        ProbeMetrics metrics;
        std::vector<int> classes;
        std::vector<double> values;
    };

    SentenceNet(const ProbeInputs &inputs, const ProbeTrainOptions &options, std::mt19937 &rng, const torch::Device &device)
        : m_regression(inputs.numClasses == 0), m_mlp(options.architecture == ProbeArchitecture::Mlp), m_device(device)
    {
        const int d = inputs.train.features.cols;
        const int C = m_regression ? 1 : inputs.numClasses;
        const int H = options.hiddenSize > 0 ? options.hiddenSize : d;
        // nn.Linear's default initialisation: U(±1/sqrt(fan_in)) for weights and biases.
        if (m_mlp) {
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
        // Regression targets are standardised for training only.
        if (m_regression) {
            const int n = inputs.train.features.rows;
            for (double t : inputs.train.targets)
                m_mean += t;
            m_mean /= n;
            double var = 0;
            for (double t : inputs.train.targets)
                var += (t - m_mean) * (t - m_mean);
            var /= n;
            m_sd = var > 0 ? std::sqrt(var) : 1.0;
        }
    }

    long long parameterCount() const
    {
        long long n = 0;
        for (const auto &p : params)
            n += p.value().numel();
        return n;
    }

    torch::Tensor forward(const torch::Tensor &x)
    {
        torch::Tensor h = x;
        if (m_mlp)
            h = torch::relu(torch::nn::functional::linear(h, params["hidden.weight"], params["hidden.bias"]));
        return torch::nn::functional::linear(h, params["output.weight"], params["output.bias"]);
    }

    /// The train targets as the loss sees them: standardised values or class indices.
    torch::Tensor targets(const ProbeSplit &train) const
    {
        const auto n = static_cast<std::int64_t>(train.features.rows);
        if (m_regression) {
            std::vector<float> z;
            for (double t : train.targets)
                z.push_back(static_cast<float>((t - m_mean) / m_sd));
            return torch::from_blob(z.data(), {n}, torch::kFloat32).clone().to(m_device);
        }
        std::vector<std::int64_t> y(train.labels.begin(), train.labels.end());
        return torch::from_blob(y.data(), {n}, torch::kInt64).clone().to(m_device);
    }

    Evaluated evaluate(const ProbeSplit &split)
    {
        Evaluated e;
        if (split.features.rows == 0)
            return e;
        torch::NoGradGuard ng;
        const torch::Tensor x = matrixTensor(split.features, m_device);
        const torch::Tensor out = forward(x).to(torch::kCPU).contiguous();
        if (m_regression) {
            const float *p = out.data_ptr<float>();
            for (int r = 0; r < split.features.rows; ++r)
                e.values.push_back(static_cast<double>(p[r]) * m_sd + m_mean);
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
    }

    bool regression() const { return m_regression; }
    double sd() const { return m_sd; }

    Params params;

private:
    bool m_regression, m_mlp;
    torch::Device m_device;
    double m_mean = 0, m_sd = 1;
};

/// One epoch of mini-batches over the train examples in `order`; the summed
/// (standardised) loss.
double trainEpoch(SentenceNet &net, training::Optimizer &adam, const torch::Tensor &xTrain, const torch::Tensor &yTrain,
                  const std::vector<int> &order, const ProbeTrainOptions &options, const torch::Device &device)
{
    const int n = static_cast<int>(order.size());
    double lossSum = 0;
    for (int b = 0; b < n; b += options.batchSize) {
        const int e = std::min(n, b + options.batchSize);
        std::vector<std::int64_t> idx(order.begin() + b, order.begin() + e);
        const torch::Tensor it = torch::from_blob(idx.data(), {e - b}, torch::kInt64).clone().to(device);
        const torch::Tensor out = net.forward(xTrain.index_select(0, it));
        const torch::Tensor yb = yTrain.index_select(0, it);
        const torch::Tensor loss = net.regression() ? torch::mse_loss(out.squeeze(1), yb)
                                                    : torch::nn::functional::cross_entropy(out, yb);
        zeroGrad(net.params);
        loss.backward();
        adam.step(options.learningRate);
        lossSum += loss.item<double>() * (e - b);
    }
    return lossSum;
}

} // namespace

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
    if (auto s = checkProbeInputs(inputs, regression, d); !s)
        return s.error();
    const ThreadScope threads(options.threads);
    auto dev = probeDevice(options.device);
    if (!dev)
        return dev.error();
    const torch::Device device = *dev;
    std::mt19937 rng(options.seed);
    SentenceNet net(inputs, options, rng, device);
    ProbeResult result;
    result.regression = regression;
    result.parameters = net.parameterCount();
    const torch::Tensor xTrain = matrixTensor(inputs.train.features, device);
    const torch::Tensor yTrain = net.targets(inputs.train);

    auto adamR = probeAdam(net.params);
    if (!adamR)
        return adamR.error();
    training::Optimizer &adam = **adamR;
    const bool haveDev = inputs.dev.features.rows > 0;
    std::vector<torch::Tensor> best;
    std::vector<int> order(static_cast<std::size_t>(n));
    std::iota(order.begin(), order.end(), 0);
    for (int epoch = 1; epoch <= options.maxEpochs; ++epoch) {
        if (control && control->isCancelled())
            return cancelledError();
        shuffle(order, rng);
        ProbeEpoch rec;
        rec.epoch = epoch;
        rec.trainLoss = trainEpoch(net, adam, xTrain, yTrain, order, options, device) / n *
                        (regression ? net.sd() * net.sd() : 1.0);
        bool better = !haveDev;
        if (haveDev) {
            const SentenceNet::Evaluated ev = net.evaluate(inputs.dev);
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
                best = snapshot(net.params);
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
        restore(net.params, best);
    if (result.bestEpoch == 0)
        result.bestEpoch = static_cast<int>(result.curve.size());
    result.dev = net.evaluate(inputs.dev).metrics;
    SentenceNet::Evaluated testEval = net.evaluate(inputs.test);
    result.test = testEval.metrics;
    result.testPredicted = std::move(testEval.classes);
    result.testPredictions = std::move(testEval.values);
    return result;
}

} // namespace treelens
