// The one list of parser backends (parser.h: defaultParserBackend, availableParsers,
// createParser): the neural parsers, Link Grammar (when built with it), an external
// command, trees from a file. Registry code: it names every backend, nothing below names it.
#include "core/parsing/parser.h"

#if defined(TREELENS_WITH_LINK_GRAMMAR) && __has_include("core/parsing/linkgrammarparser.h")
#include "core/parsing/linkgrammarparser.h"
#define TREELENS_HAVE_LG 1
#endif
#if defined(__unix__) || defined(__APPLE__)
#include "core/parsing/externalparser.h"
#define TREELENS_HAVE_EXTERNAL 1
#endif

#include "core/encoders/encoder.h"
#include "core/parsing/chunkingparser.h"
#include "core/parsing/fileparser.h"
#include "core/parsing/neural/neuralparser.h"

namespace treelens {

std::string defaultParserBackend()
{
    static const std::string name = [] {
        if (!findShippedModel(kShippedDependencyParser).empty())
            return std::string("neural");
#ifdef TREELENS_HAVE_LG
        return std::string("link-grammar");
#else
        return std::string("neural");
#endif
    }();
    return name;
}

std::vector<ParserInfo> availableParsers()
{
    std::vector<ParserInfo> out;
    out.push_back(neuralParserInfo());
#ifdef TREELENS_HAVE_LG
    out.push_back(linkGrammarParserInfo());
#endif
#ifdef TREELENS_HAVE_EXTERNAL
    out.push_back(externalParserInfo());
#endif
    out.push_back(fileParserInfo());
    return out;
}

Result<std::unique_ptr<Parser>> createParser(const ParserConfig &config)
{
    const Status st = config.validate();
    if (!st.ok())
        return st.error();
    if (config.backend == "neural")
        return createNeuralParser(config);
#ifdef TREELENS_HAVE_LG
    if (config.backend == "link-grammar") {
        auto p = createLinkGrammarParser(config);
        if (!p || config.chunkLongerThan <= 0)
            return p;
        return makeChunkingParser(std::move(*p), config.chunkLongerThan, config.chunkMaxPiece);
    }
#endif
#ifdef TREELENS_HAVE_EXTERNAL
    if (config.backend == "external")
        return createExternalParser(config);
#endif
    if (config.backend == "file")
        return createFileParser(config);
    std::string known;
    for (const auto &p : availableParsers())
        known += (known.empty() ? "" : ", ") + p.name;
    return Error{"unknown parser '" + config.backend + "' (available: " + (known.empty() ? std::string("none") : known) + ")"};
}

} // namespace treelens
