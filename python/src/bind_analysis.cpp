// The Python module's analyses (bindings.h): treelens.Analysis, what a model computed for
// one sentence or pair, its matrices as NumPy arrays (read-only views of the analysis' own
// memory, or stacked copies made once), and the app's views of it rendered offscreen
// (render.h).
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/formats/analysisjson.h"
#include "python/src/bindings.h"
#include "python/src/render.h"

namespace treelens::python {

namespace {

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

py::object doubles(const std::vector<double> &v)
{
    if (v.empty())
        return py::none();
    py::array_t<double> out(static_cast<py::ssize_t>(v.size()));
    std::copy(v.begin(), v.end(), out.mutable_data());
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

} // namespace

void bindAnalysis(py::module_ &m)
{
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
            "piece_text", [](const PyAnalysis &p) { return p.a().pieceText.empty() ? p.a().pieces : p.a().pieceText; },
            "The pieces as a person reads them (a byte-level 'Ġold' as ' old', byte tokens as their character)")
        .def_property_readonly("causal", [](const PyAnalysis &p) { return p.a().causalAttention; },
                               "A causal model (a language model): attention[l, h, i, j] for j > i is not possible, not zero")
        .def_property_readonly(
            "surprisal", [](PyAnalysis &p) { return keptArray(p, "surprisal", [](const Analysis &a) -> py::object { return doubles(a.surprisal); }); },
            "float64 [words]: a language model's surprisal per word in nats, -log p of its pieces given everything before "
            "them; NaN where nothing predicts the word (the sequence's first piece); None for other models")
        .def_property_readonly(
            "piece_surprisal", [](PyAnalysis &p) { return keptArray(p, "piece_surprisal", [](const Analysis &a) -> py::object { return doubles(a.pieceSurprisal); }); },
            "float64 [pieces]: the same per piece (NaN for the first); None for other models")
        .def_property_readonly("logprob", [](const PyAnalysis &p) -> py::object { return p.a().logprob ? py::cast(*p.a().logprob) : py::none(); },
                               "log p of the sentence (the sum of its next-piece log-probabilities); None for other models")
        .def_property_readonly(
            "unknown_words",
            [](const PyAnalysis &p) -> py::object {
                if (!p.a().unknownWords)
                    return py::none();
                py::list out;
                for (int w : *p.a().unknownWords)
                    out.append(w);
                return out;
            },
            "the words (indices from 0) the model's vocabulary lacks (it saw its unknown token); [] when none, "
            "None for a model without a word vocabulary to check")
        .def_property_readonly(
            "ablated",
            [](const PyAnalysis &p) {
                py::list out;
                for (const auto &[layer, head] : p.a().ablated)
                    out.append(py::make_tuple(layer, head < 0 ? py::object(py::none()) : py::object(py::int_(head))));
                return out;
            },
            "the heads switched off for this analysis: (layer, head) from 0, head None for a whole layer")
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
}

} // namespace treelens::python
