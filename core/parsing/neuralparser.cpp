#include "core/parsing/neuralparser.h"

#include "core/encoders/encoder.h"
#include "core/parsing/neural/depparser.h"

namespace treelens {

namespace {

class NeuralParser : public Parser {
public:
    explicit NeuralParser(std::unique_ptr<DependencyParserModel> dep) : m_dep(std::move(dep)) {}

    ParserInfo info() const override { return neuralParserInfo(); }

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
        for (auto &s : out)
            if (s.tokens.empty())
                return makeError(s.id, "nothing to parse (no tokens)");
        if (auto st = m_dep->parse(out, false, &control); !st)
            return st.error();
        for (auto &s : out) {
            s.setMetadata("parser", "neural");
            s.setMetadata("parser.dependency_model", m_dep->name());
        }
        return out;
    }

private:
    std::unique_ptr<DependencyParserModel> m_dep;
};

} // namespace

ParserInfo neuralParserInfo()
{
    ParserInfo i;
    i.name = "neural";
    i.dependencies = true;
    i.constituencies = false;
    i.description = "TreeLens neural parser: biaffine dependency parser + tagger trained on UD English EWT";
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
    return std::unique_ptr<Parser>(new NeuralParser(std::move(*dep)));
}

} // namespace treelens
