#include "core/parsing/neural/neuralparser.h"

#include "core/base/inputlimits.h"
#include "core/encoders/encoder.h"
#include "core/parsing/neural/constparser.h"
#include "core/parsing/neural/depparser.h"
#include "core/parsing/neural/morphtagger.h"

namespace treelens {

namespace {

class NeuralParser : public Parser {
public:
    NeuralParser(std::unique_ptr<DependencyParserModel> dep, std::unique_ptr<ConstituencyParserModel> constituency,
                 std::unique_ptr<MorphTaggerModel> morph, int maxWords)
        : m_dep(std::move(dep)), m_const(std::move(constituency)), m_morph(std::move(morph)), m_maxWords(maxWords)
    {
    }

    ParserInfo info() const override
    {
        ParserInfo i = neuralParserInfo();
        i.constituencies = m_const != nullptr;
        i.morphology = m_morph != nullptr;
        return i;
    }

    Result<Sentence> parse(const Sentence &input) override
    {
        std::vector<Sentence> one{input};
        auto r = parseAll(one, RunControl{});
        if (!r)
            return r.error();
        return std::move(r->front());
    }

    Result<std::vector<Sentence>> parseAll(const std::vector<Sentence> &inputs, const RunControl &control) override
    {
        std::vector<Sentence> out = inputs;
        for (auto &s : out) {
            if (s.tokens.empty())
                return makeError(s.id, "nothing to parse (no tokens)");
            // The span chart is quadratic in the length: refused before any tensor exists.
            if (auto st = checkSentenceLength(s.tokens.size(), m_maxWords, "", 0, s.id, "ParserConfig::maxWords"); !st)
                return st.error();
        }
        if (auto st = m_dep->parse(out, false, &control); !st)
            return st.error();
        // The constituency parser reads the XPOS tags the tagger just predicted.
        if (m_const)
            if (auto st = m_const->parse(out, &control); !st)
                return st.error();
        if (m_morph)
            if (auto st = m_morph->tag(out, &control); !st)
                return st.error();
        for (auto &s : out) {
            s.setMetadata("parser", "neural");
            s.setMetadata("parser.dependency_model", m_dep->name());
            if (m_const)
                s.setMetadata("parser.constituency_model", m_const->name());
            if (m_morph)
                s.setMetadata("parser.morphology_model", m_morph->name());
        }
        return out;
    }

private:
    std::unique_ptr<DependencyParserModel> m_dep;
    std::unique_ptr<ConstituencyParserModel> m_const;
    std::unique_ptr<MorphTaggerModel> m_morph;
    int m_maxWords;
};

} // namespace

ParserInfo neuralParserInfo()
{
    ParserInfo i;
    i.name = "neural";
    i.dependencies = true;
    i.constituencies = !findShippedModel(kShippedConstituencyParser).empty();
    i.tags = true; // the dependency model's tagger writes UPOS and XPOS
    i.morphology = !findShippedModel(kShippedMorphTagger).empty();
    i.description = "TreeLens neural parsers: biaffine dependency parser + tagger (UD English EWT), span-based "
                    "constituency parser (PTB sample), LEMMA/FEATS tagger (UD English EWT)";
    return i;
}

Result<std::unique_ptr<Parser>> createNeuralParser(const ParserConfig &config)
{
    std::string path = config.dependencyModel.empty() ? findShippedModel(kShippedDependencyParser) : config.dependencyModel;
    if (path.empty())
        return Error{std::string("neural parser: the model ") + kShippedDependencyParser + " was not found (set --parser-model)"};
    auto dep = DependencyParserModel::load(path, 0);
    if (!dep)
        return dep.error();
    // The constituency model is optional: without it the backend gives dependencies only.
    std::unique_ptr<ConstituencyParserModel> constituency;
    const std::string constPath =
        config.constituencyModel.empty() ? findShippedModel(kShippedConstituencyParser) : config.constituencyModel;
    if (!constPath.empty()) {
        auto c = ConstituencyParserModel::load(constPath, 0);
        if (!c)
            return c.error();
        constituency = std::move(*c);
    }
    // So is the morphological tagger: without it LEMMA and FEATS stay the input's.
    std::unique_ptr<MorphTaggerModel> morph;
    const std::string morphPath = config.morphologyModel.empty() ? findShippedModel(kShippedMorphTagger) : config.morphologyModel;
    if (!morphPath.empty() && morphPath != "none") {
        auto m = MorphTaggerModel::load(morphPath, 0);
        if (!m)
            return m.error();
        morph = std::move(*m);
    }
    return std::unique_ptr<Parser>(
        new NeuralParser(std::move(*dep), std::move(constituency), std::move(morph), config.maxWords));
}

} // namespace treelens
