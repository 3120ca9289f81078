// treelens._treelens: the Python module's C++ side (issue 36, docs/python.md), pybind11
// over the same core the app and the CLI run. Sentences, trees, models, analyses (their
// matrices as NumPy arrays), pair corpora and scores, pair metrics, probing runs, and the
// views rendered offscreen (render.cpp, when the GUI is built). treelens/__init__.py
// wraps it in the documented API; errors are treelens.Error with the core's one-line
// messages. Long work runs without the GIL; Ctrl+C (SIGINT) cancels it between batches.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/base/runcontrol.h"
#include "core/encoders/encoder.h"
#include "core/eval/pairtable.h"
#include "core/eval/paireval.h"
#include "core/formats/analysisjson.h"
#include "core/formats/conllu.h"
#include "core/formats/corpus.h"
#include "core/formats/pairs.h"
#include "core/formats/ptb.h"
#include "core/parsing/parser.h"
#include "core/probing/probejson.h"
#include "core/probing/proberun.h"
#include "python/src/render.h"

namespace py = pybind11;
using namespace treelens;

namespace {

/// treelens.Error, set up in the module's init (never destroyed: it outlives the interpreter's
/// objects, as pybind11 asks of module-level Python objects held in C++ statics).
py::object &errorType()
{
    static auto *type = new py::object();
    return *type;
}

[[noreturn]] void raise(const std::string &message)
{
    PyErr_SetString(errorType().ptr(), message.c_str());
    throw py::error_already_set();
}

template <class T> T unwrap(Result<T> r)
{
    if (!r)
        raise(r.message());
    return std::move(*r);
}

void check(const Status &s)
{
    if (!s)
        raise(s.message());
}

/// A RunControl whose cancellation is Ctrl+C: it takes the GIL for a moment and lets
/// Python run its signal handlers; a KeyboardInterrupt (or any exception they raise)
/// stays pending and is raised when the work returns.
struct SignalControl {
    bool interrupted = false;
    RunControl control;
    SignalControl()
    {
        control.cancelled = [this] {
            if (interrupted)
                return true;
            py::gil_scoped_acquire gil;
            if (PyErr_CheckSignals() != 0)
                interrupted = true;
            return interrupted;
        };
    }
    /// After the work: the pending Python exception when Ctrl+C stopped it.
    void rethrow() const
    {
        if (interrupted)
            throw py::error_already_set();
    }
};

/// The items the last inBlocks() run finished and had (treelens._treelens._last_work(): the
/// tests' evidence that Ctrl+C stopped a run midway rather than after it).
std::pair<std::size_t, std::size_t> &lastWork()
{
    static std::pair<std::size_t, std::size_t> work;
    return work;
}

/// Runs `work(begin, end)` over [0, n) in blocks of `step` items without the GIL, Ctrl+C
/// checked between blocks; the first error stops it. A KeyboardInterrupt is raised after.
Status inBlocks(std::size_t n, std::size_t step, const std::function<Status(std::size_t, std::size_t)> &work)
{
    SignalControl signals;
    Status status;
    std::size_t done = 0;
    {
        py::gil_scoped_release release;
        for (std::size_t b = 0; status && b < n; b += step) {
            if (signals.control.isCancelled()) {
                status = cancelledError();
                break;
            }
            status = work(b, std::min(n, b + step));
            if (status)
                done = std::min(n, b + step);
        }
    }
    lastWork() = {done, n};
    signals.rethrow();
    return status;
}

// ------------------------------------------------------------------ sentences

using SentencePtr = std::shared_ptr<Sentence>;

std::string sentenceConllu(const Sentence &s)
{
    std::string out;
    appendConllu(out, s);
    return out;
}

std::string sentencePtb(const Sentence &s)
{
    if (!s.constituency)
        raise("sentence " + s.id + " has no constituency tree");
    return writePtbTree(*s.constituency);
}

std::vector<SentencePtr> shared(std::vector<Sentence> sentences)
{
    std::vector<SentencePtr> out;
    out.reserve(sentences.size());
    for (auto &s : sentences)
        out.push_back(std::make_shared<Sentence>(std::move(s)));
    return out;
}

std::vector<SentencePtr> readSentencesFromText(const std::string &text, const std::string &format, bool split)
{
    const CorpusFormat f = unwrap(parseCorpusFormat(format));
    CorpusReadOptions options;
    options.split = split;
    return shared(unwrap(readCorpus(text, "<text>", f, options)));
}

std::vector<SentencePtr> readSentencesFromFile(const std::string &path, const std::string &format)
{
    const CorpusFormat f = format.empty() || format == "auto" ? formatFromPath(path) : unwrap(parseCorpusFormat(format));
    CorpusReadOptions options;
    options.stripTraces = true;
    return shared(unwrap(readCorpusFile(path, f, options)));
}

/// Sentences from a Python argument: a string (running text, tokenised and split into
/// sentences as `--split` does), a Sentence, or a list of strings and Sentences, each
/// string one sentence (tokenised, not split: the results map one to one to the list).
std::vector<SentencePtr> sentencesOf(const py::handle &arg)
{
    if (py::isinstance<py::str>(arg))
        return readSentencesFromText(arg.cast<std::string>(), "text", true);
    if (py::isinstance<Sentence>(arg))
        return {arg.cast<SentencePtr>()};
    if (!py::isinstance<py::iterable>(arg))
        throw py::type_error("sentences: a string, a Sentence or a list of them, not " +
                             std::string(py::str(py::type::handle_of(arg).attr("__name__"))));
    std::vector<SentencePtr> out;
    std::size_t k = 0;
    for (const py::handle &item : arg) {
        ++k;
        if (py::isinstance<Sentence>(item)) {
            out.push_back(item.cast<SentencePtr>());
        } else if (py::isinstance<py::str>(item)) {
            auto one = readSentencesFromText(item.cast<std::string>(), "text", false);
            if (one.size() != 1)
                raise("item " + std::to_string(k) + " of the list: a string in a list is one sentence; this one holds " +
                      std::to_string(one.size()) + " lines (pass running text as one string to split it)");
            out.push_back(std::move(one.front()));
        } else {
            throw py::type_error("item " + std::to_string(k) + " of the list: a string or a Sentence, not " +
                                 std::string(py::str(py::type::handle_of(item).attr("__name__"))));
        }
    }
    return out;
}

/// Parses `sentences` (their trees replaced), with the GIL released.
std::vector<SentencePtr> parseSentences(const std::vector<SentencePtr> &sentences, const std::string &backend,
                                        const std::string &dependencyModel, const std::string &constituencyModel)
{
    ParserConfig config;
    config.backend = backend;
    config.dependencyModel = dependencyModel;
    config.constituencyModel = constituencyModel;
    std::vector<Sentence> in;
    for (const auto &s : sentences)
        in.push_back(*s);
    Result<std::unique_ptr<Parser>> parser = Error{""};
    {
        py::gil_scoped_release release;
        parser = createParser(config);
    }
    if (!parser)
        raise(parser.message());
    // In blocks of 256 sentences: Ctrl+C is seen within a second or so.
    std::vector<Sentence> parsed;
    check(inBlocks(in.size(), 256, [&](std::size_t begin, std::size_t end) -> Status {
        std::vector<Sentence> block(std::make_move_iterator(in.begin() + static_cast<std::ptrdiff_t>(begin)),
                                    std::make_move_iterator(in.begin() + static_cast<std::ptrdiff_t>(end)));
        auto r = parseCorpus(**parser, std::move(block), "<python>", CorpusParseOptions{});
        if (!r)
            return r.error();
        for (auto &x : *r)
            parsed.push_back(std::move(x));
        return {};
    }));
    return shared(std::move(parsed));
}

/// A dependency tree with its sentence's words (it prints as CoNLL-U's first, second,
/// seventh and eighth columns).
struct PyDependencyTree {
    DependencyTree tree;
    std::vector<std::string> words;
};

std::string dependencyConllu(const PyDependencyTree &d)
{
    std::string out;
    for (std::size_t i = 0; i < d.tree.size(); ++i)
        out += std::to_string(i + 1) + "\t" + (i < d.words.size() ? d.words[i] : "_") + "\t_\t_\t_\t_\t" +
               std::to_string(d.tree.heads[i]) + "\t" + (i < d.tree.deprels.size() ? d.tree.deprels[i] : "_") + "\t_\t_\n";
    return out;
}

py::object constituencyOf(const std::optional<ConstituencyTree> &t)
{
    return t ? py::cast(std::make_shared<ConstituencyTree>(*t)) : py::none();
}

// ------------------------------------------------------------------ analyses

/// An analysis and the sentence it is of (the views draw both).
struct PyAnalysis {
    std::shared_ptr<const Analysis> analysis;
    std::shared_ptr<const Sentence> sentence;
    std::shared_ptr<const Sentence> secondSentence; ///< a pair's second sentence
    /// The stacked arrays, made on first access and kept (read-only): "attention", ...
    std::map<std::string, py::object> arrays;
    const Analysis &a() const { return *analysis; }
};
using AnalysisPtr = std::shared_ptr<PyAnalysis>;

void makeReadOnly(const py::object &o)
{
    if (py::isinstance<py::array>(o))
        py::detail::array_proxy(o.ptr())->flags &= ~py::detail::npy_api::NPY_ARRAY_WRITEABLE_;
}

/// The array `name` of an analysis: `make` runs once (one copy), the result is kept and
/// read-only, like the matrix views.
py::object keptArray(PyAnalysis &p, const std::string &name, const std::function<py::object(const Analysis &)> &make)
{
    auto it = p.arrays.find(name);
    if (it != p.arrays.end())
        return it->second;
    py::object value = make(p.a());
    makeReadOnly(value);
    if (py::isinstance<py::dict>(value))
        for (const auto &item : value.cast<py::dict>())
            makeReadOnly(py::reinterpret_borrow<py::object>(item.second));
    p.arrays.emplace(name, value);
    return value;
}

/// One matrix as a read-only NumPy view of the analysis' own memory (no copy), kept
/// alive by `base`.
py::array matrixView(const Matrix &m, const py::object &base)
{
    py::array_t<float> a({static_cast<py::ssize_t>(m.rows), static_cast<py::ssize_t>(m.cols)},
                         {static_cast<py::ssize_t>(m.cols * sizeof(float)), static_cast<py::ssize_t>(sizeof(float))},
                         m.data.data(), base);
    py::detail::array_proxy(a.ptr())->flags &= ~py::detail::npy_api::NPY_ARRAY_WRITEABLE_;
    return std::move(a);
}

/// matrices[l][h] stacked into one [L, H, rows, cols] array (one copy); None when empty.
py::object stack4(const std::vector<std::vector<Matrix>> &m)
{
    if (m.empty() || m.front().empty())
        return py::none();
    const auto L = m.size(), H = m.front().size();
    const auto R = static_cast<std::size_t>(m.front().front().rows), C = static_cast<std::size_t>(m.front().front().cols);
    py::array_t<float> out({L, H, R, C});
    float *dst = out.mutable_data();
    for (const auto &layer : m)
        for (const auto &x : layer) {
            if (x.data.size() != R * C)
                raise("the matrices differ in shape");
            dst = std::copy(x.data.begin(), x.data.end(), dst);
        }
    return std::move(out);
}

/// matrices[l] stacked into [L, rows, cols]; None when empty.
py::object stack3(const std::vector<Matrix> &m)
{
    if (m.empty())
        return py::none();
    const auto R = static_cast<std::size_t>(m.front().rows), C = static_cast<std::size_t>(m.front().cols);
    py::array_t<float> out({m.size(), R, C});
    float *dst = out.mutable_data();
    for (const auto &x : m) {
        if (x.data.size() != R * C)
            raise("the matrices differ in shape");
        dst = std::copy(x.data.begin(), x.data.end(), dst);
    }
    return std::move(out);
}

py::object floats(const std::vector<float> &v, std::vector<py::ssize_t> shape = {})
{
    if (v.empty())
        return py::none();
    if (shape.empty())
        shape = {static_cast<py::ssize_t>(v.size())};
    py::array_t<float> out(shape);
    std::copy(v.begin(), v.end(), out.mutable_data());
    return std::move(out);
}

py::object linkProbs(const std::vector<std::vector<float>> &p)
{
    if (p.empty())
        return py::none();
    py::array_t<float> out({p.size(), p.front().size()});
    float *dst = out.mutable_data();
    for (const auto &row : p) {
        if (row.size() != p.front().size())
            raise("the link probability rows differ in length");
        dst = std::copy(row.begin(), row.end(), dst);
    }
    return std::move(out);
}

py::object predictionDict(const std::optional<Prediction> &p)
{
    if (!p)
        return py::none();
    py::dict d;
    d["label"] = p->label;
    d["score"] = p->score;
    py::dict probs;
    for (std::size_t i = 0; i < p->labels.size() && i < p->probabilities.size(); ++i)
        probs[py::str(p->labels[i])] = p->probabilities[i];
    d["probabilities"] = probs;
    return std::move(d);
}

/// A named array in its shape (flat when the shape does not hold its values).
py::array namedArray(const NamedArray &arr)
{
    std::vector<py::ssize_t> shape(arr.shape.begin(), arr.shape.end());
    std::size_t n = 1;
    for (int s : arr.shape)
        n *= static_cast<std::size_t>(std::max(0, s));
    if (n != arr.data.size())
        shape = {static_cast<py::ssize_t>(arr.data.size())};
    py::array_t<float> out(shape);
    std::copy(arr.data.begin(), arr.data.end(), out.mutable_data());
    return std::move(out);
}

py::dict arraysDict(const std::map<std::string, NamedArray> &arrays)
{
    py::dict d;
    for (const auto &[name, arr] : arrays)
        d[py::str(name)] = namedArray(arr);
    return d;
}

py::list nodeAttentionList(const Analysis &a)
{
    py::list out;
    for (const auto &n : a.nodeAttention) {
        py::dict d;
        d["node"] = n.node;
        d["targets"] = n.targets;
        py::list heads;
        for (const auto &w : n.weights)
            heads.append(floats(w));
        d["weights"] = heads;
        d["start"] = n.start;
        d["end"] = n.end;
        d["head_word"] = n.headWord;
        d["label"] = n.label;
        d["norm"] = n.norm;
        d["arrays"] = arraysDict(n.arrays);
        out.append(d);
    }
    return out;
}

// ------------------------------------------------------------------ models

struct PyModel {
    std::shared_ptr<Encoder> encoder;
    std::string path;
    /// An Encoder is used from one thread at a time (encoder.h): taken, without the GIL,
    /// for each piece of work; `owner` catches a re-entry from the same thread (a signal
    /// handler that uses the model), which would otherwise deadlock.
    std::mutex mutex;
    std::atomic<std::thread::id> owner{};
};

/// Holds a model's lock for a piece of work (call without the GIL: another thread may hold it).
class ModelLock {
public:
    explicit ModelLock(PyModel &m) : m_model(m)
    {
        if (m.owner.load() == std::this_thread::get_id())
            throw std::runtime_error("the model is already at work in this thread (a signal handler that uses it?)");
        m_lock = std::unique_lock<std::mutex>(m.mutex);
        m.owner = std::this_thread::get_id();
    }
    ~ModelLock() { m_model.owner = std::thread::id{}; }
    ModelLock(const ModelLock &) = delete;
    ModelLock &operator=(const ModelLock &) = delete;

private:
    PyModel &m_model;
    std::unique_lock<std::mutex> m_lock;
};
using ModelPtr = std::shared_ptr<PyModel>;

ModelPtr loadModel(const std::string &pathIn, const std::string &device, int threads, int batchSize,
                   const std::string &precision)
{
    std::string path = pathIn.empty() ? defaultModelPath() : pathIn;
    if (path.empty())
        raise("no model given and the shipped default model (tree-transformer-en-small.safetensors) was not found");
    DeviceConfig config;
    config.device = device;
    config.threads = threads;
    config.batchSize = batchSize;
    config.precision = precision;
    Result<std::unique_ptr<Encoder>> r = Error{""};
    {
        py::gil_scoped_release release;
        r = loadEncoder(path, config);
    }
    auto m = std::make_shared<PyModel>();
    m->encoder = unwrap(std::move(r));
    m->path = std::move(path);
    return m;
}

py::dict modelInfo(const PyModel &m)
{
    const EncoderInfo &i = m.encoder->info();
    py::dict d;
    d["path"] = m.path;
    d["family"] = i.family;
    d["name"] = i.name;
    d["layers"] = i.layers;
    d["heads"] = i.heads;
    d["d_model"] = i.dModel;
    d["device"] = i.device;
    d["max_tokens"] = i.maxTokens;
    d["has_cls_token"] = i.hasClsToken;
    d["pair_input"] = i.pairInput;
    d["input"] = i.input == InputKind::Words                  ? "words"
                 : i.input == InputKind::WordsWithDependency ? "dependency"
                                                             : "constituency";
    return d;
}

/// Runs the model over `inputs` in batches of `batchSize`, without the GIL; Ctrl+C between batches.
std::vector<Analysis> runAnalyses(PyModel &model, const std::vector<EncoderInput> &inputs, int batchSize,
                                  const AnalyzeOptions &options)
{
    Encoder &encoder = *model.encoder;
    std::vector<Analysis> out;
    SignalControl signals; // the encoder polls it between its own batches too
    const Status status = inBlocks(inputs.size(), static_cast<std::size_t>(std::max(1, batchSize)),
                   [&](std::size_t begin, std::size_t end) -> Status {
                       std::vector<EncoderInput> batch(inputs.begin() + static_cast<std::ptrdiff_t>(begin),
                                                       inputs.begin() + static_cast<std::ptrdiff_t>(end));
                       ModelLock lock(model);
                       auto r = encoder.analyze(batch, options, &signals.control);
                       if (!r)
                           return r.error();
                       for (auto &a : *r)
                           out.push_back(std::move(a));
                       return {};
                   });
    signals.rethrow(); // Ctrl+C seen by the encoder's own polling: KeyboardInterrupt, not "cancelled"
    check(status);
    return out;
}

/// The trees the model reads: the sentences' own, the missing ones parsed by the
/// default parser (opened only then), as `treelens-cli analyze` does.
void completeModelTrees(const EncoderInfo &info, std::vector<Sentence> &sentences)
{
    const bool dep = readsTree(info.input, TreeKind::Dependency), cons = readsTree(info.input, TreeKind::Constituency);
    if (!dep && !cons)
        return;
    std::unique_ptr<Parser> parser;
    // In blocks of 256 sentences, so that Ctrl+C stops a long parse too.
    check(inBlocks(sentences.size(), 256, [&](std::size_t begin, std::size_t end) -> Status {
        std::vector<Sentence> block(std::make_move_iterator(sentences.begin() + static_cast<std::ptrdiff_t>(begin)),
                                    std::make_move_iterator(sentences.begin() + static_cast<std::ptrdiff_t>(end)));
        Status st = completeTrees(block, dep, cons, "<python>", parserOnDemand(parser));
        std::move(block.begin(), block.end(), sentences.begin() + static_cast<std::ptrdiff_t>(begin));
        return st;
    }));
}

AnalyzeOptions analyzeOptions(bool attention, bool states)
{
    AnalyzeOptions options;
    options.attention = attention;
    options.layerStates = states;
    return options;
}

std::vector<AnalysisPtr> analyze(PyModel &m, const py::handle &input, int batchSize, bool attention, bool states)
{
    const EncoderInfo &info = m.encoder->info();
    if (const std::string why = singleSentenceRefusal(info); !why.empty())
        raise(why + " (in Python: Model.analyze_pairs)");
    const auto given = sentencesOf(input);
    std::vector<Sentence> sentences;
    for (const auto &s : given)
        sentences.push_back(*s);
    completeModelTrees(info, sentences);
    std::vector<EncoderInput> inputs;
    for (const auto &s : sentences)
        inputs.push_back(EncoderInput{s.words(), s.dependency, s.constituency, {}, {}, {}});
    auto out = runAnalyses(m, inputs, batchSize, analyzeOptions(attention, states));
    std::vector<AnalysisPtr> result;
    for (std::size_t k = 0; k < out.size(); ++k) {
        auto p = std::make_shared<PyAnalysis>();
        p->analysis = std::make_shared<Analysis>(std::move(out[k]));
        p->sentence = std::make_shared<Sentence>(std::move(sentences[k]));
        result.push_back(std::move(p));
    }
    return result;
}

/// Pairs as `treelens-cli analyze --pairs` reads them: a pair model reads both sentences
/// together; a single-sentence model each side alone (the second under `second`).
std::vector<AnalysisPtr> analyzePairs(PyModel &m, std::vector<SentencePair> pairs, int batchSize, bool attention, bool states)
{
    const EncoderInfo &info = m.encoder->info();
    const bool pairModel = info.pairInput;
    std::vector<Sentence> sides;
    for (const auto &p : pairs) {
        sides.push_back(p.first);
        sides.push_back(p.second);
    }
    completeModelTrees(info, sides);
    std::vector<EncoderInput> inputs;
    for (std::size_t i = 0; i < pairs.size(); ++i) {
        pairs[i].first = std::move(sides[2 * i]);
        pairs[i].second = std::move(sides[2 * i + 1]);
        const auto &p = pairs[i];
        if (pairModel) {
            inputs.push_back(pairEncoderInput(p.first, p.second));
        } else {
            inputs.push_back(EncoderInput{p.first.words(), p.first.dependency, p.first.constituency, {}, {}, {}});
            inputs.push_back(EncoderInput{p.second.words(), p.second.dependency, p.second.constituency, {}, {}, {}});
        }
    }
    auto out = runAnalyses(m, inputs, pairModel ? batchSize : 2 * batchSize, analyzeOptions(attention, states));
    std::vector<AnalysisPtr> result;
    for (std::size_t i = 0, k = 0; i < pairs.size(); ++i) {
        Analysis a = std::move(out[k++]);
        if (!pairModel)
            a.second.push_back(std::move(out[k++]));
        auto p = std::make_shared<PyAnalysis>();
        p->analysis = std::make_shared<Analysis>(std::move(a));
        p->sentence = std::make_shared<Sentence>(pairs[i].first);
        p->secondSentence = std::make_shared<Sentence>(pairs[i].second);
        result.push_back(std::move(p));
    }
    return result;
}

/// Pairs from a Python argument: a PairCorpus, or a list of (first, second) with each a
/// string or a Sentence (a string is tokenised as one sentence).
std::vector<SentencePair> pairsOf(const py::handle &arg)
{
    if (py::isinstance<PairCorpus>(arg))
        return arg.cast<const PairCorpus &>().pairs;
    std::vector<SentencePair> out;
    for (const py::handle &item : arg) {
        auto t = item.cast<py::sequence>();
        if (t.size() != 2)
            raise("a pair is (first, second)");
        SentencePair p;
        for (int side = 0; side < 2; ++side) {
            auto s = sentencesOf(t[static_cast<std::size_t>(side)]);
            if (s.size() != 1)
                raise("each side of a pair is one sentence (got " + std::to_string(s.size()) + ")");
            (side == 0 ? p.first : p.second) = *s.front();
        }
        out.push_back(std::move(p));
    }
    return out;
}

// ------------------------------------------------------------------ pairs

using PairCorpusPtr = std::shared_ptr<PairCorpus>;

py::tuple pairTuple(const PairCorpus &c, long long i)
{
    const auto n = static_cast<long long>(c.pairs.size());
    if (i < 0)
        i += n;
    if (i < 0 || i >= n)
        throw py::index_error("pair index out of range (" + std::to_string(n) + " pairs)");
    const SentencePair &p = c.pairs[static_cast<std::size_t>(i)];
    return py::make_tuple(std::make_shared<Sentence>(p.first), std::make_shared<Sentence>(p.second), p.label, p.group);
}

PairCorpusPtr readPairs(const std::string &path, const std::string &format)
{
    return std::make_shared<PairCorpus>(unwrap(readPairCorpus(path, format)));
}

/// Scores and predicted labels of every pair, as score-pairs writes them.
py::dict scoresDict(const PairCorpus &corpus, const PairSystem &system)
{
    py::dict d;
    d["system"] = system.name;
    std::vector<std::string> groups, labels;
    for (const auto &p : corpus.pairs) {
        groups.push_back(p.group);
        labels.push_back(p.label);
    }
    d["qid"] = groups;
    d["label"] = labels;
    py::array_t<double> scores(static_cast<py::ssize_t>(system.scores.size()));
    std::copy(system.scores.begin(), system.scores.end(), scores.mutable_data());
    d["score"] = scores;
    d["predicted"] = system.predicted;
    return d;
}

py::dict scorePairs(PyModel &m, const PairCorpus &corpus)
{
    SignalControl signals;
    Result<PairSystem> r = Error{""};
    {
        py::gil_scoped_release release;
        ModelLock lock(m);
        r = scorePairCorpus(*m.encoder, corpus, &signals.control);
    }
    signals.rethrow();
    PairSystem system = unwrap(std::move(r));
    system.name = m.path;
    return scoresDict(corpus, system);
}

py::dict idfScores(const PairCorpus &corpus, const PairCorpus *idfFrom)
{
    return scoresDict(corpus, idfBaselineSystem(corpus, idfFrom ? *idfFrom : corpus));
}

/// MAP/MRR/P@1 (clean protocol) of a ranking corpus, or accuracy, macro-F1, per-label
/// figures and the confusion matrix of a classification corpus.
py::dict evaluatePairs(const PairCorpus &corpus, const py::object &scores, const py::object &predicted)
{
    py::dict d;
    d["task"] = corpus.task;
    d["pairs"] = corpus.pairs.size();
    if (corpus.task == kRankingTask) {
        if (scores.is_none())
            raise("a ranking corpus is evaluated by scores (one per pair)");
        const auto s = scores.cast<std::vector<double>>();
        const RankingEval e = unwrap(evaluateRanking(corpus, s));
        d["map"] = e.map;
        d["mrr"] = e.mrr;
        d["p_at_1"] = e.precisionAt1;
        d["questions_used"] = e.groupsUsed;
        d["questions_without_correct"] = e.droppedNoCorrect;
        d["questions_all_correct"] = e.droppedAllCorrect;
        d["protocol"] = "clean";
        return d;
    }
    if (predicted.is_none())
        raise("a classification corpus is evaluated by predicted labels (one per pair)");
    const ClassificationEval e = unwrap(evaluateClassification(corpus, predicted.cast<std::vector<std::string>>()));
    d["accuracy"] = e.accuracy;
    d["macro_f1"] = e.macroF1;
    d["labels"] = e.labels;
    py::dict per;
    for (const auto &l : e.perLabel)
        per[py::str(l.label)] = py::dict(py::arg("precision") = l.precision, py::arg("recall") = l.recall,
                                         py::arg("f1") = l.f1, py::arg("gold") = l.gold, py::arg("predicted") = l.predicted);
    d["per_label"] = per;
    d["confusion"] = e.confusion;
    return d;
}

// ------------------------------------------------------------------ probing

std::string probeJson(const py::dict &options)
{
    ProbeRunConfig config;
    auto str = [&](const char *key, std::string &field) {
        if (options.contains(key) && !options[key].is_none())
            field = py::str(options[key]).cast<std::string>();
    };
    auto files = [&](const char *key, std::vector<std::string> &field) {
        if (!options.contains(key) || options[key].is_none())
            return;
        py::object v = options[key];
        if (py::isinstance<py::str>(v))
            field = {v.cast<std::string>()};
        else
            for (const py::handle &f : v)
                field.push_back(py::str(f).cast<std::string>());
    };
    auto integer = [&](const char *key, auto &field) {
        if (!options.contains(key) || options[key].is_none())
            return;
        using T = std::decay_t<decltype(field)>;
        try {
            field = options[key].cast<T>();
        } catch (const py::cast_error &) {
            throw py::type_error(std::string("probe(): ") + key + " must be " +
                                 (std::is_same_v<T, bool> ? "True or False" : "a whole number") + ", not " +
                                 std::string(py::str(py::type::handle_of(options[key]).attr("__name__"))));
        }
    };
    str("tasks", config.tasks);
    str("model", config.model);
    files("train", config.train);
    files("dev", config.dev);
    files("test", config.test);
    str("layers", config.layers);
    str("pooling", config.pooling);
    str("probe", config.probe);
    str("tree", config.tree);
    str("tree_source", config.treeSource);
    str("device", config.device);
    str("precision", config.precision);
    str("features", config.featuresFile);
    integer("seed", config.seed);
    integer("split_seed", config.splitSeed);
    integer("epochs", config.epochs);
    integer("threads", config.threads);
    integer("rank", config.rank);
    integer("control", config.control);
    integer("random_init", config.randomInit);
    integer("baselines", config.baselines);
    config.commandLine = "treelens.probe(...)";
    SignalControl signals;
    Result<ProbeRunReport> r = Error{""};
    {
        py::gil_scoped_release release;
        r = runProbes(config, {}, &signals.control);
    }
    signals.rethrow();
    return probeReportJson(unwrap(std::move(r)));
}

} // namespace

PYBIND11_MODULE(_treelens, m)
{
    m.doc() = "TreeLens core (C++): see the treelens package for the documented API";
    errorType() = py::reinterpret_steal<py::object>(PyErr_NewExceptionWithDoc(
        "treelens.Error", "A failure the TreeLens core reports, with its one-line message", PyExc_RuntimeError, nullptr));
    m.attr("Error") = errorType();
    // A C++ exception from a library underneath (LibTorch's c10::Error, std::bad_alloc, ...) is a
    // treelens.Error too, with its message.
    py::register_exception_translator([](std::exception_ptr p) {
        try {
            if (p)
                std::rethrow_exception(p);
        } catch (const py::builtin_exception &) {
            throw;
        } catch (const py::error_already_set &) {
            throw;
        } catch (const std::exception &e) {
            PyErr_SetString(errorType().ptr(), e.what());
        }
    });
    m.attr("__version__") = TREELENS_VERSION;

    py::class_<Sentence, SentencePtr>(m, "Sentence", "One sentence: its tokens and the trees known for it")
        .def_readonly("id", &Sentence::id, "The sentence id (# sent_id, or generated)")
        .def_readonly("text", &Sentence::text, "The raw text (# text)")
        .def_property_readonly("words", &Sentence::words, "The tokens' forms")
        .def_property_readonly("upos", [](const Sentence &s) {
            std::vector<std::string> v;
            for (const auto &t : s.tokens)
                v.push_back(t.upos);
            return v;
        })
        .def_property_readonly("xpos", [](const Sentence &s) {
            std::vector<std::string> v;
            for (const auto &t : s.tokens)
                v.push_back(t.xpos);
            return v;
        })
        .def_property_readonly("heads", [](const Sentence &s) -> py::object {
            return s.dependency ? py::cast(s.dependency->heads) : py::none();
        })
        .def_property_readonly("deprels", [](const Sentence &s) -> py::object {
            return s.dependency ? py::cast(s.dependency->deprels) : py::none();
        })
        .def_property_readonly("dependency", [](const Sentence &s) -> py::object {
            return s.dependency ? py::cast(PyDependencyTree{*s.dependency, s.words()}) : py::none();
        })
        .def_property_readonly("constituency", [](const Sentence &s) { return constituencyOf(s.constituency); })
        .def_property_readonly("has_dependency", [](const Sentence &s) { return s.dependency.has_value(); })
        .def_property_readonly("has_constituency", [](const Sentence &s) { return s.constituency.has_value(); })
        .def("conllu", &sentenceConllu, "The sentence as CoNLL-U (the constituency tree in a '# constituency =' comment)")
        .def("ptb", &sentencePtb, "The constituency tree as one bracketed line")
        .def("__len__", [](const Sentence &s) { return s.tokens.size(); })
        .def("__str__", &sentenceConllu)
        .def("__repr__", [](const Sentence &s) {
            std::string words;
            for (const auto &t : s.tokens)
                words += (words.empty() ? "" : " ") + t.text;
            return "<treelens.Sentence " + s.id + ": " + words + ">";
        });

    py::class_<ConstituencyTree, std::shared_ptr<ConstituencyTree>>(m, "ConstituencyTree",
                                                                     "A phrase-structure tree; prints as PTB brackets")
        .def_property_readonly("words", &ConstituencyTree::words)
        .def_property_readonly("tags", &ConstituencyTree::tags)
        .def_property_readonly("depth", &ConstituencyTree::depth)
        .def(
            "spans",
            [](const ConstituencyTree &t, bool includeRoot) {
                std::vector<std::tuple<std::string, int, int>> out;
                for (const auto &sp : t.spans(includeRoot))
                    out.emplace_back(sp.label, sp.start, sp.end);
                return out;
            },
            py::arg("include_root") = true, "Labelled spans (label, start, end) over word indices, end exclusive")
        .def("ptb", [](const ConstituencyTree &t) { return writePtbTree(t); })
        .def("__str__", [](const ConstituencyTree &t) { return writePtbTree(t); })
        .def("__eq__", [](const ConstituencyTree &a, const ConstituencyTree &b) { return a == b; }, py::is_operator())
        .def("__hash__", [](const ConstituencyTree &t) { return py::hash(py::str(writePtbTree(t))); })
        .def("__repr__", [](const ConstituencyTree &t) { return "<treelens.ConstituencyTree " + writePtbTree(t) + ">"; });

    py::class_<PyDependencyTree>(m, "DependencyTree", "A dependency tree; prints as CoNLL-U (ID, FORM, HEAD, DEPREL)")
        .def_property_readonly("heads", [](const PyDependencyTree &d) { return d.tree.heads; })
        .def_property_readonly("deprels", [](const PyDependencyTree &d) { return d.tree.deprels; })
        .def_property_readonly("words", [](const PyDependencyTree &d) { return d.words; })
        .def(
            "arcs",
            [](const PyDependencyTree &d) {
                std::vector<std::tuple<int, int, std::string>> out;
                for (std::size_t i = 0; i < d.tree.size(); ++i)
                    out.emplace_back(static_cast<int>(i) + 1, d.tree.heads[i], i < d.tree.deprels.size() ? d.tree.deprels[i] : "");
                return out;
            },
            "(dependent, head, relation) per word, numbered from 1 as in CoNLL-U (head 0: the root)")
        .def("__len__", [](const PyDependencyTree &d) { return d.tree.size(); })
        .def("__str__", &dependencyConllu)
        .def("__repr__", [](const PyDependencyTree &d) { return "<treelens.DependencyTree of " + std::to_string(d.tree.size()) + " words>"; });

    m.def("_read_text", &readSentencesFromText, py::arg("text"), py::arg("format") = "text", py::arg("split") = true);
    m.def("_read_file", &readSentencesFromFile, py::arg("path"), py::arg("format") = "auto");
    m.def("_parse", [](const py::handle &input, const std::string &backend, const std::string &dep, const std::string &cons) {
        return parseSentences(sentencesOf(input), backend, dep, cons);
    });
    m.def("_write", [](const std::vector<SentencePtr> &sentences, const std::string &format) {
        std::vector<Sentence> v;
        for (const auto &s : sentences)
            v.push_back(*s);
        return unwrap(writeCorpus(v, unwrap(parseCorpusFormat(format))));
    });

    py::class_<PyAnalysis, AnalysisPtr>(m, "Analysis", "What a model computed for one sentence")
        .def_property_readonly("family", [](const PyAnalysis &p) { return p.a().family; }, "The encoder family that made it")
        .def_property_readonly("tokens", [](const PyAnalysis &p) { return p.a().tokens; }, "The model's units, as the matrices index them")
        .def_property_readonly("words", [](const PyAnalysis &p) { return p.a().words; }, "The input words")
        .def_property_readonly("word_token", [](const PyAnalysis &p) { return p.a().wordToken; }, "The token index of each word")
        .def_property_readonly("layers", [](const PyAnalysis &p) { return p.a().layers; }, "Encoder layers (0 for a recursive model)")
        .def_property_readonly("heads", [](const PyAnalysis &p) { return p.a().heads; }, "Attention heads per layer")
        .def_property_readonly("sentence", [](const PyAnalysis &p) { return std::const_pointer_cast<Sentence>(p.sentence); })
        .def_property_readonly(
            "attention", [](PyAnalysis &p) { return keptArray(p, "attention", [](const Analysis &a) -> py::object { return stack4(a.attention); }); },
            "float32 [layer, head, i, j] over the tokens: the attention the model used (Tree Transformer: after the constituent prior); None without")
        .def_property_readonly(
            "attention_raw", [](PyAnalysis &p) { return keptArray(p, "attention_raw", [](const Analysis &a) -> py::object { return stack4(a.attentionRaw); }); },
            "The attention before the structural weighting (plain softmax); None when identical")
        .def_property_readonly(
            "attention_relation", [](PyAnalysis &p) { return keptArray(p, "attention_relation", [](const Analysis &a) -> py::object { return stack4(a.attentionRelation); }); },
            "The Dependency-Transformer's relation attention softmax(S^r); None for other families")
        .def_property_readonly(
            "relation_gate", [](PyAnalysis &p) { return keptArray(p, "relation_gate", [](const Analysis &a) -> py::object { return stack4(a.relationGate); }); },
            "The Dependency-Transformer's relation gate per query token (0: plain, 1: relation); None for others")
        .def_property_readonly(
            "piece_attention", [](PyAnalysis &p) { return keptArray(p, "piece_attention", [](const Analysis &a) -> py::object { return stack4(a.pieceAttention); }); },
            "Word-piece models: the attention between the pieces [layer, head, piece, piece]; None for others")
        .def_property_readonly("pieces", [](const PyAnalysis &p) { return p.a().pieces; }, "Word-piece models: the pieces of the sentence")
        .def_property_readonly(
            "prior", [](PyAnalysis &p) { return keptArray(p, "prior", [](const Analysis &a) -> py::object { return stack3(a.constituentPrior); }); },
            "float32 [layer, i, j]: the constituent prior C (Tree Transformer); None without")
        .def_property_readonly(
            "layer_states", [](PyAnalysis &p) { return keptArray(p, "layer_states", [](const Analysis &a) -> py::object { return stack3(a.layerStates); }); },
            "float32 [layer, token, d_model]: hidden states (layer 0 the embeddings), with analyze(states=True)")
        .def_property_readonly(
            "link_probs", [](PyAnalysis &p) { return keptArray(p, "link_probs", [](const Analysis &a) -> py::object { return linkProbs(a.linkProbs); }); },
            "float32 [layer, token - 1]: the probability that tokens k and k+1 are in one constituent")
        .def_property_readonly("cross_attention", [](py::object self) {
            const PyAnalysis &p = self.cast<const PyAnalysis &>();
            py::list out;
            for (const auto &x : p.a().crossAttention)
                out.append(matrixView(x, self));
            return out;
        })
        .def_property_readonly(
            "embedding", [](PyAnalysis &p) { return keptArray(p, "embedding", [](const Analysis &a) -> py::object { return floats(a.embedding); }); },
            "The first token ([CLS]) final state; None without")
        .def_property_readonly(
            "mean_embedding", [](PyAnalysis &p) { return keptArray(p, "mean_embedding", [](const Analysis &a) -> py::object { return floats(a.meanEmbedding); }); },
            "The mean of the word tokens final states; None without")
        .def_property_readonly("prediction", [](const PyAnalysis &p) { return predictionDict(p.a().prediction); }, "A classifier's or pair model's {label, score, probabilities}; None without")
        .def_property_readonly(
            "gates", [](PyAnalysis &p) { return keptArray(p, "gates", [](const Analysis &a) -> py::object { return arraysDict(a.gates); }); },
            "Family gates and other named arrays by name (ggsa.gate_mean, deptrans.gate, ...), each in its shape")
        .def_property_readonly("node_attention", [](const PyAnalysis &p) { return nodeAttentionList(p.a()); }, "Recursive models: how each tree node attends over its children (dicts)")
        .def_property_readonly("induced_brackets", [](const PyAnalysis &p) { return p.a().inducedBrackets; }, "The induced brackets [start, end) over words, the whole span left out")
        .def_property_readonly("induced_tree", [](const PyAnalysis &p) { return constituencyOf(p.a().inducedTree); }, "The unsupervised tree (a ConstituencyTree); None without")
        .def_property_readonly("second", [](const PyAnalysis &p) -> py::object {
            if (p.a().second.empty())
                return py::none();
            auto s = std::make_shared<PyAnalysis>();
            s->analysis = std::shared_ptr<const Analysis>(p.analysis, &p.a().second.front()); // shares the pair's
            s->sentence = p.secondSentence ? p.secondSentence : p.sentence;
            return py::cast(s);
        })
        .def("matrix",
             [](py::object self, const std::string &kind, int layer, int head) {
                 const Analysis &a = self.cast<const PyAnalysis &>().a();
                 const std::vector<std::vector<Matrix>> *m = kind == "attention"            ? &a.attention
                                                             : kind == "attention_raw"      ? &a.attentionRaw
                                                             : kind == "attention_relation" ? &a.attentionRelation
                                                             : kind == "relation_gate"      ? &a.relationGate
                                                             : kind == "piece_attention"    ? &a.pieceAttention
                                                                                            : nullptr;
                 if (kind == "prior" || kind == "layer_states") {
                     const auto &v = kind == "prior" ? a.constituentPrior : a.layerStates;
                     if (layer < 0 || layer >= static_cast<int>(v.size()))
                         raise(kind + ": layer " + std::to_string(layer) + " is not among the " + std::to_string(v.size()));
                     return matrixView(v[static_cast<std::size_t>(layer)], self);
                 }
                 if (!m)
                     raise("unknown matrix '" + kind + "' (attention, attention_raw, attention_relation, relation_gate, "
                           "piece_attention, prior, layer_states)");
                 if (layer < 0 || layer >= static_cast<int>(m->size()))
                     raise(kind + ": layer " + std::to_string(layer) + " is not among the " + std::to_string(m->size()));
                 const auto &l = (*m)[static_cast<std::size_t>(layer)];
                 if (head < 0 || head >= static_cast<int>(l.size()))
                     raise(kind + ": head " + std::to_string(head) + " is not among the " + std::to_string(l.size()));
                 return matrixView(l[static_cast<std::size_t>(head)], self);
             },
             py::arg("kind"), py::arg("layer"), py::arg("head") = 0)
        .def("to_json", [](const PyAnalysis &p, bool attention) { return analysisToJson(p.a(), attention); },
             py::arg("attention") = true)
        .def("_render",
             [](const PyAnalysis &p, const std::string &view, int layer, int head, const std::string &format, int dpi,
                const std::string &attention) {
                 return py::bytes(unwrap(renderAnalysisView(*p.sentence, p.analysis, view, layer, head, format, dpi, attention)));
             })
        .def("_default_view", [](const PyAnalysis &p) { return defaultAnalysisView(*p.sentence, p.analysis.get()); });

    m.def("_views", &renderableViews);
    m.def("_render_sentence", [](const SentencePtr &s, const std::string &view, const std::string &format, int dpi) {
        return py::bytes(unwrap(renderAnalysisView(*s, nullptr, view, -1, -1, format, dpi, "model")));
    });

    py::class_<PyModel, ModelPtr>(m, "_CoreModel", "A loaded encoder (treelens.Model wraps it)")
        .def_property_readonly("info", &modelInfo)
        .def_property_readonly("path", [](const PyModel &p) { return p.path; })
        .def("_analyze", &analyze)
        .def("_analyze_pairs", [](PyModel &p, const py::handle &pairs, int batch, bool attention, bool states) {
            return analyzePairs(p, pairsOf(pairs), batch, attention, states);
        })
        .def("_score_pairs", [](PyModel &p, const PairCorpusPtr &c) { return scorePairs(p, *c); });
    m.def("_load_model", &loadModel);

    py::class_<PairCorpus, PairCorpusPtr>(m, "PairCorpus", "A labelled sentence-pair corpus (WikiQA, TSV, RTE, JSON)")
        .def_readonly("task", &PairCorpus::task)
        .def_readonly("labels", &PairCorpus::labels)
        .def_readonly("source", &PairCorpus::source)
        .def("__len__", [](const PairCorpus &c) { return c.pairs.size(); })
        .def("pair", &pairTuple, py::arg("index"), "(first, second, label, group) of pair `index` (negative from the end)")
        .def("__getitem__", &pairTuple);
    m.def("_read_pairs", &readPairs);
    m.def("_idf_scores", [](const PairCorpusPtr &c, const PairCorpusPtr &from) { return idfScores(*c, from.get()); },
          py::arg("corpus"), py::arg("idf_from") = nullptr);
    m.def("_evaluate_pairs", [](const PairCorpusPtr &c, py::object scores, py::object predicted) {
        return evaluatePairs(*c, scores, predicted);
    });
    m.def("_probe", &probeJson);
    m.def("_last_work", [] { return lastWork(); }, "(items done, items) of the last run in blocks (for the tests)");
}
