#pragma once
// What the units of the Python module's C++ side share (python/src/bind_*.cpp, docs/python.md):
// treelens.Error and the helpers that raise it, Ctrl+C between blocks of work without the
// GIL, and the types two units use (a Sentence list from a Python argument, an analysis with
// its sentence, a loaded model and its lock, pairs). Each unit binds one part of the core
// with one bind*() function; module.cpp's PYBIND11_MODULE calls them in the order that
// names the types in the signatures of the functions bound after them.
#include <pybind11/pybind11.h>

#include <atomic>
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "core/base/result.h"
#include "core/base/runcontrol.h"
#include "core/data/analysis.h"
#include "core/data/constituencytree.h"
#include "core/data/sentence.h"
#include "core/encoders/encoder.h"
#include "core/formats/pairs.h"

namespace treelens::python {

namespace py = pybind11;

// ------------------------------------------------------------------ errors and Ctrl+C (module.cpp)

/// treelens.Error, set up in the module's init (never destroyed: it outlives the interpreter's
/// objects, as pybind11 asks of module-level Python objects held in C++ statics).
py::object &errorType();

/// Raises treelens.Error with `message`.
[[noreturn]] void raise(const std::string &message);

/// The value, or treelens.Error with the error's message.
template <class T> T unwrap(Result<T> r)
{
    if (!r)
        raise(r.message());
    return std::move(*r);
}

/// Nothing, or treelens.Error with the error's message.
void check(const Status &s);

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
std::pair<std::size_t, std::size_t> &lastWork();

/// Runs `work(begin, end)` over [0, n) in blocks of `step` items without the GIL, Ctrl+C
/// checked between blocks; the first error stops it. A KeyboardInterrupt is raised after.
Status inBlocks(std::size_t n, std::size_t step, const std::function<Status(std::size_t, std::size_t)> &work);

// ------------------------------------------------------------------ sentences (bind_corpus.cpp)

using SentencePtr = std::shared_ptr<Sentence>;

/// Sentences from a Python argument: a string (running text, tokenised and split into
/// sentences as `--split` does), a Sentence, or a list of strings and Sentences, each
/// string one sentence (tokenised, not split: the results map one to one to the list).
std::vector<SentencePtr> sentencesOf(const py::handle &arg);

/// A tree as treelens.ConstituencyTree (a copy), or None.
py::object constituencyOf(const std::optional<ConstituencyTree> &t);

// ------------------------------------------------------------------ analyses (bind_analysis.cpp)

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

// ------------------------------------------------------------------ models (bind_model.cpp)

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

// ------------------------------------------------------------------ pairs (bind_pairs.cpp)

using PairCorpusPtr = std::shared_ptr<PairCorpus>;

/// Pairs from a Python argument: a PairCorpus, or a list of (first, second) with each a
/// string or a Sentence (a string is tokenised as one sentence).
std::vector<SentencePair> pairsOf(const py::handle &arg);

/// The model's scores and predicted labels of every pair, as score-pairs writes them (without
/// the GIL; Ctrl+C cancels).
py::dict scorePairs(PyModel &m, const PairCorpus &corpus);

// ------------------------------------------------------------------ the units

/// Sentence, ConstituencyTree, DependencyTree; reading, parsing and writing sentences.
void bindCorpus(py::module_ &m);
/// Analysis (its arrays as NumPy) and the views rendered.
void bindAnalysis(py::module_ &m);
/// _CoreModel (treelens.Model's core): loading, analysing sentences and pairs, scoring pairs.
void bindModel(py::module_ &m);
/// PairCorpus, the IDF baseline's scores, pair metrics.
void bindPairs(py::module_ &m);
/// A probing run (its report as JSON).
void bindProbing(py::module_ &m);
void bindQuery(py::module_ &m);

} // namespace treelens::python
