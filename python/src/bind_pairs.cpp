// The Python module's sentence pairs (bindings.h): treelens.PairCorpus, pairs from Python
// arguments, a model's scores and the IDF baseline's (as score-pairs writes them), and the
// pair metrics (as eval-pairs computes them).
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cstddef>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/eval/pairtable.h"
#include "core/eval/paireval.h"
#include "python/src/bindings.h"

namespace treelens::python {

namespace {

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

} // namespace

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

void bindPairs(py::module_ &m)
{
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
}

} // namespace treelens::python
