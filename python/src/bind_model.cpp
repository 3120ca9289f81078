// The Python module's models (bindings.h): the core of treelens.Model (_CoreModel), loaded
// without the GIL, analysing sentences and pairs in batches that Ctrl+C can stop, the trees a
// model reads completed by the default parser as `treelens-cli analyze` does.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cstddef>
#include <filesystem>
#include <iterator>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/eval/pairtable.h"
#include "core/parsing/parser.h"
#include "python/src/bindings.h"

namespace treelens::python {

namespace {

ModelPtr loadModel(const std::string &pathIn, const std::string &device, int threads, int batchSize,
                   const std::string &precision)
{
    std::string path = pathIn.empty() ? defaultModelPath() : pathIn;
    // A shipped model by its name ("ggsa-en-wikiqa" or "ggsa-en-wikiqa.safetensors") when no
    // such file or folder is at that path: a notebook runs from any folder.
    std::error_code ec;
    if (!path.empty() && path.find('/') == std::string::npos && !std::filesystem::exists(path, ec)) {
        for (const std::string &name : {path, path + ".safetensors"})
            if (const std::string shipped = findShippedModel(name); !shipped.empty()) {
                path = shipped;
                break;
            }
    }
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

/// Which of the `count` sentences of `input` (as sentencesOf reads it) were typed text: all of
/// a str (running text, split), the str items of a list; not a Sentence or a corpus.
std::vector<bool> typedText(const py::handle &input, std::size_t count)
{
    if (py::isinstance<py::str>(input))
        return std::vector<bool>(count, true);
    std::vector<bool> typed;
    if (py::isinstance<py::list>(input) || py::isinstance<py::tuple>(input))
        for (const auto &item : input)
            typed.push_back(py::isinstance<py::str>(item));
    typed.resize(count, false);
    return typed;
}

/// Both trees of the typed sentences, from the default parser (opened only when there are some).
void parseTypedText(std::vector<Sentence> &sentences, const std::vector<bool> &typed)
{
    std::vector<Sentence> todo;
    for (std::size_t k = 0; k < sentences.size(); ++k)
        if (typed[k])
            todo.push_back(sentences[k]);
    if (todo.empty())
        return;
    std::unique_ptr<Parser> parser;
    check(completeTrees(todo, true, true, "<python>", parserOnDemand(parser)));
    for (std::size_t k = 0, j = 0; k < sentences.size(); ++k)
        if (typed[k])
            sentences[k] = std::move(todo[j++]);
}

AnalyzeOptions analyzeOptions(bool attention, bool states, bool prependBos = false,
                              const std::vector<std::pair<int, int>> &ablate = {}, bool pseudoLogLikelihood = false)
{
    AnalyzeOptions options;
    options.pseudoLogLikelihood = pseudoLogLikelihood;
    options.attention = attention;
    options.layerStates = states;
    options.prependBos = prependBos;
    for (const auto &[layer, head] : ablate) // 0-based, head -1: the whole layer (checked in Python)
        options.ablate.push_back(HeadAblation{layer, head});
    return options;
}

std::vector<AnalysisPtr> analyze(PyModel &m, const py::handle &input, int batchSize, bool attention, bool states, bool prependBos,
                                 const std::vector<std::pair<int, int>> &ablate, bool pseudoLogLikelihood)
{
    const EncoderInfo &info = m.encoder->info();
    if (pseudoLogLikelihood && info.sentenceScore != SentenceScore::PseudoLogLikelihood)
        raise((info.name.empty() ? info.family : info.name) + " has no pseudo-log-likelihood" +
              (info.sentenceScore == SentenceScore::NextToken ? std::string(": a causal language model gives log p (Analysis.logprob) anyway")
                                                              : " (" + (info.sentenceScoreNote.empty() ? std::string("no masked-LM head") : info.sentenceScoreNote) + ")"));
    if (const std::string why = singleSentenceRefusal(info); !why.empty())
        raise(why + " (in Python: Model.analyze_pairs)");
    const auto given = sentencesOf(input);
    std::vector<Sentence> sentences;
    for (const auto &s : given)
        sentences.push_back(*s);
    completeModelTrees(info, sentences);
    // Typed text is parsed as `treelens-cli analyze "..."` parses it, so that its analysis
    // has both trees to draw (a Sentence or a corpus keeps what it has).
    parseTypedText(sentences, typedText(input, sentences.size()));
    std::vector<EncoderInput> inputs;
    for (const auto &s : sentences)
        inputs.push_back(EncoderInput{s.words(), s.dependency, s.constituency, {}, {}, {}});
    auto out = runAnalyses(m, inputs, batchSize, analyzeOptions(attention, states, prependBos, ablate, pseudoLogLikelihood));
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

} // namespace

void bindModel(py::module_ &m)
{
    py::class_<PyModel, ModelPtr>(m, "_CoreModel", "A loaded encoder (treelens.Model wraps it)")
        .def_property_readonly("info", &modelInfo)
        .def_property_readonly("path", [](const PyModel &p) { return p.path; })
        .def("_analyze", &analyze)
        .def("_analyze_pairs", [](PyModel &p, const py::handle &pairs, int batch, bool attention, bool states) {
            return analyzePairs(p, pairsOf(pairs), batch, attention, states);
        })
        .def("_score_pairs", [](PyModel &p, const PairCorpusPtr &c) { return scorePairs(p, *c); });
    m.def("_load_model", &loadModel);
}

} // namespace treelens::python
