// treelens._treelens: tree-pattern queries (issue 48; docs/query.md, "Python"): the
// occurrences of a Grew request or a Tregex pattern in a list of sentences, and the
// statistics over them (core/query/querystat.h) as NumPy arrays.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstddef>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "core/query/deppattern.h"
#include "core/query/querystat.h"
#include "core/query/tregex.h"
#include "python/src/bindings.h"

namespace treelens::python {

namespace {

/// The first and last word (1-based) under a constituency node, or nothing (traces only).
std::optional<std::pair<int, int>> wordSpan(const ConstituencyTree &t, int node)
{
    const auto [start, end] = t.span(node);
    if (end <= start)
        return std::nullopt;
    return std::make_pair(start + 1, end);
}

py::list query(const std::vector<SentencePtr> &sentences, const std::string &pattern, const std::string &syntax)
{
    const bool grew = syntax == "grew" || (syntax == "auto" && looksLikeGrewRequest(pattern));
    if (syntax != "grew" && syntax != "tregex" && syntax != "auto")
        raise("syntax: 'grew', 'tregex' or 'auto', not '" + syntax + "'");
    py::list out;
    if (grew) {
        auto p = DepPattern::parse(pattern);
        if (!p)
            raise("Grew request: " + p.message());
        std::vector<std::vector<DepMatch>> found(sentences.size());
        {
            py::gil_scoped_release release;
            for (std::size_t i = 0; i < sentences.size(); ++i)
                if (sentences[i] && sentences[i]->dependency)
                    found[i] = p->match(*sentences[i]);
        }
        for (std::size_t i = 0; i < sentences.size(); ++i)
            for (const DepMatch &m : found[i]) {
                py::dict nodes;
                for (std::size_t k = 0; k < m.nodes.size(); ++k)
                    nodes[py::str(p->names()[k])] = m.nodes[k];
                out.append(py::dict(py::arg("sentence") = i, py::arg("sent_id") = sentences[i]->id, py::arg("nodes") = nodes));
            }
        return out;
    }
    auto p = TregexPattern::parse(pattern);
    if (!p)
        raise("Tregex pattern: " + p.message());
    for (std::size_t i = 0; i < sentences.size(); ++i) {
        if (!sentences[i] || !sentences[i]->constituency)
            continue;
        const ConstituencyTree &t = *sentences[i]->constituency;
        for (const TregexMatch &m : p->match(t)) {
            py::dict nodes;
            auto node = [&](int n) -> py::object {
                if (n < 0)
                    return py::none();
                const auto span = wordSpan(t, n);
                return py::dict(py::arg("label") = t.node(n).label,
                                py::arg("first") = span ? py::object(py::int_(span->first)) : py::none(),
                                py::arg("last") = span ? py::object(py::int_(span->second)) : py::none());
            };
            nodes["_root_"] = node(m.node);
            for (std::size_t k = 0; k < m.bound.size(); ++k)
                nodes[py::str(p->names()[k])] = node(m.bound[k]);
            out.append(py::dict(py::arg("sentence") = i, py::arg("sent_id") = sentences[i]->id, py::arg("nodes") = nodes));
        }
    }
    return out;
}

py::array grid(const std::vector<std::vector<MeanCi>> &cells, int layers, int heads, int which)
{
    // which: 0 mean, 1 low end, 2 high end
    py::array_t<double> a({static_cast<py::ssize_t>(layers), static_cast<py::ssize_t>(heads)});
    auto r = a.mutable_unchecked<2>();
    for (int l = 0; l < layers; ++l)
        for (int h = 0; h < heads; ++h) {
            const bool have = static_cast<std::size_t>(l) < cells.size();
            const MeanCi c = have ? cells[static_cast<std::size_t>(l)][static_cast<std::size_t>(h)] : MeanCi{};
            r(l, h) = which == 0 ? c.mean : c.ci95[static_cast<std::size_t>(which - 1)];
        }
    return std::move(a);
}

py::array ci(const std::vector<std::vector<MeanCi>> &cells, int layers, int heads)
{
    py::array_t<double> a({static_cast<py::ssize_t>(layers), static_cast<py::ssize_t>(heads), static_cast<py::ssize_t>(2)});
    auto r = a.mutable_unchecked<3>();
    for (int l = 0; l < layers; ++l)
        for (int h = 0; h < heads; ++h)
            for (int k = 0; k < 2; ++k)
                r(l, h, k) = static_cast<std::size_t>(l) < cells.size()
                                 ? cells[static_cast<std::size_t>(l)][static_cast<std::size_t>(h)].ci95[static_cast<std::size_t>(k)]
                                 : 0.0;
    return std::move(a);
}

/// The attention statistic from analyses and occurrences (analysis index, from word, to word).
py::dict attentionStat(const std::vector<AnalysisPtr> &analyses, const std::vector<std::tuple<std::size_t, int, int>> &occurrences,
                       const std::string &from, const std::string &to)
{
    AttentionStatAccumulator acc(from, to);
    for (const auto &[i, x, y] : occurrences) {
        if (i >= analyses.size() || !analyses[i])
            raise("occurrence of analysis " + std::to_string(i) + ": there are " + std::to_string(analyses.size()));
        auto added = acc.add(analyses[i]->a(), x, y);
        if (!added)
            raise(added.message());
    }
    const AttentionStat s = acc.result();
    py::dict baseline(py::arg("offset") = s.baseline.offset, py::arg("hits") = s.baseline.hits,
                      py::arg("occurrences") = s.baseline.occurrences, py::arg("mean") = grid(s.baseline.cells, s.layers, s.heads, 0),
                      py::arg("ci95") = ci(s.baseline.cells, s.layers, s.heads));
    py::array_t<float> values({static_cast<py::ssize_t>(s.values.size()), static_cast<py::ssize_t>(s.layers), static_cast<py::ssize_t>(s.heads)});
    auto v = values.mutable_unchecked<3>();
    for (std::size_t k = 0; k < s.values.size(); ++k)
        for (int l = 0; l < s.layers; ++l)
            for (int h = 0; h < s.heads; ++h)
                v(static_cast<py::ssize_t>(k), l, h) = s.values[k][static_cast<std::size_t>(l * s.heads + h)];
    return py::dict(py::arg("stat") = "attention", py::arg("from") = s.from, py::arg("to") = s.to, py::arg("occurrences") = s.occurrences,
                    py::arg("skipped") = s.skipped, py::arg("layers") = s.layers, py::arg("heads") = s.heads, py::arg("causal") = s.causal,
                    py::arg("later") = s.later, py::arg("mean") = grid(s.cells, s.layers, s.heads, 0),
                    py::arg("ci95") = ci(s.cells, s.layers, s.heads), py::arg("baseline") = baseline, py::arg("values") = values);
}

} // namespace

void bindQuery(py::module_ &m)
{
    m.def("_query", &query, py::arg("sentences"), py::arg("pattern"), py::arg("syntax") = "auto");
    m.def("_attention_stat", &attentionStat, py::arg("analyses"), py::arg("occurrences"), py::arg("from_node"), py::arg("to_node"));
    m.def("_looks_like_grew", [](const std::string &t) { return looksLikeGrewRequest(t); });
}

} // namespace treelens::python
