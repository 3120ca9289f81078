// The Python module's sentences and trees (bindings.h): treelens.Sentence, ConstituencyTree
// and DependencyTree, and reading, parsing and writing sentences (treelens.read_corpus,
// parse, write).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstddef>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "core/formats/conllu.h"
#include "core/formats/corpus.h"
#include "core/formats/ptb.h"
#include "core/parsing/parser.h"
#include "python/src/bindings.h"

namespace treelens::python {

namespace {

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

void bindSentence(py::module_ &m)
{
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
}

void bindTrees(py::module_ &m)
{
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
}

} // namespace

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

py::object constituencyOf(const std::optional<ConstituencyTree> &t)
{
    return t ? py::cast(std::make_shared<ConstituencyTree>(*t)) : py::none();
}

void bindCorpus(py::module_ &m)
{
    bindSentence(m);
    bindTrees(m);
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
}

} // namespace treelens::python
