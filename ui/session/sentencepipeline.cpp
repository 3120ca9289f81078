// sentencepipeline: parse + encode one sentence for the app (see sentencepipeline.h).
#include "ui/session/sentencepipeline.h"

#include <algorithm>
#include <chrono>

#include "core/base/inputlimits.h"
#include "core/eval/inductioneval.h"
#include "core/text/tokenizer.h"

namespace treelens {

namespace {

bool sameParser(const ParserConfig &a, const ParserConfig &b)
{
    return a.backend == b.backend && a.timeoutSeconds == b.timeoutSeconds && a.maxWords == b.maxWords &&
           a.command == b.command && a.dependencyModel == b.dependencyModel && a.constituencyModel == b.constituencyModel &&
           a.morphologyModel == b.morphologyModel &&
           a.chunkLongerThan == b.chunkLongerThan && a.chunkMaxPiece == b.chunkMaxPiece && a.treeFile == b.treeFile;
}

/// Sets `key` ("dependency_source", "constituency_source") of `s`: a tree it came with
/// keeps what `original` says of it, "gold" when nothing does (a corpus file's tree);
/// a tree the parser made is "parsed"; no tree, no key.
void markTreeSource(Sentence &s, const char *key, bool cameWithTree, bool hasTree, const Sentence &original)
{
    if (!hasTree)
        return;
    if (!cameWithTree) {
        s.setMetadata(key, "parsed");
        return;
    }
    const std::string known = original.metadataValue(key);
    s.setMetadata(key, known.empty() ? "gold" : known);
}

double msSince(std::chrono::steady_clock::time_point t0)
{
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

} // namespace

Result<Parser *> SentencePipeline::parser(const ParserConfig &config)
{
    if (!m_parser || !sameParser(config, m_config)) {
        m_parser.reset();
        auto p = createParser(config);
        if (!p)
            return p.error();
        m_parser = std::move(*p);
        m_config = config;
    }
    return m_parser.get();
}

SentencePipeline::Output SentencePipeline::runText(const std::string &text, const ParserConfig &parser,
                                                   const std::string &modelPath, const RunControl &control,
                                                   const std::vector<HeadAblation> &ablate)
{
    Sentence s;
    s.id = "input";
    const auto first = text.find_first_not_of(" \t\r\n");
    s.text = first == std::string::npos ? std::string() : text.substr(first, text.find_last_not_of(" \t\r\n") - first + 1);
    s.tokens = Tokenizer().tokenize(s.text);
    if (s.tokens.empty()) {
        Output out;
        out.error = "Type a sentence to analyse.";
        return out;
    }
    return run(std::move(s), parser, modelPath, control, ablate);
}

SentencePipeline::Output SentencePipeline::run(Sentence s, const ParserConfig &config, const std::string &modelPath,
                                               const RunControl &control, const std::vector<HeadAblation> &ablate)
{
    Output out;
    // The input-limits policy (core/base/inputlimits.h), as in the CLI: a
    // sentence over the word limit is neither parsed nor analysed nor drawn
    // (its charts and layouts are quadratic in its length); the window keeps
    // what it shows and says why.
    if (auto st = checkSentenceLength(s.tokens.size(), config.maxWords, "", 0, s.id.empty() ? "" : "'" + s.id + "'");
        !st) {
        out.error = st.message() + "; TreeLens analyses sentences of at most " + std::to_string(config.maxWords) +
                    " words (split it, or use treelens-cli with --max-words)";
        return out;
    }
    double parseMs = 0.0;
    if (!s.dependency || !s.constituency) {
        if (!fillTrees(s, config, control, out, parseMs))
            return out;
    } else {
        markTreeSource(s, "dependency_source", true, true, s);
        markTreeSource(s, "constituency_source", true, true, s);
    }
    return encode(std::move(s), modelPath, control, ablate, parseMs, std::move(out));
}

SentencePipeline::Output SentencePipeline::runForModel(Sentence s, const ParserConfig &config, const std::string &modelPath,
                                                       const RunControl &control)
{
    if (modelPath.empty())
        return encode(std::move(s), modelPath, control, {}, 0.0, Output{});
    auto encoder = m_encoders.get(modelPath);
    bool lacks = false;
    if (encoder) {
        const InputKind input = (*encoder)->info().input;
        lacks = (readsTree(input, TreeKind::Dependency) && !s.dependency) ||
                (readsTree(input, TreeKind::Constituency) && !s.constituency);
    }
    // Without a loaded model encode() says why (modelError); over the word limit run() does.
    if (lacks || s.tokens.size() > static_cast<std::size_t>(std::max(0, config.maxWords)))
        return run(std::move(s), config, modelPath, control);
    return encode(std::move(s), modelPath, control, {}, 0.0, Output{});
}

bool SentencePipeline::fillTrees(Sentence &s, const ParserConfig &config, const RunControl &control, Output &out, double &parseMs)
{
    auto p = parser(config);
    if (!p) {
        out.error = p.message();
        return false;
    }
    control.report(0, 0, "Parsing");
    const auto t0 = std::chrono::steady_clock::now();
    auto r = (*p)->parse(s);
    parseMs = msSince(t0);
    if (!r) {
        // The encoder needs only the words: show its analysis without trees
        // rather than nothing (e.g. Link Grammar on a 200-word sentence).
        s.setMetadata("parse_error", r.message());
    }
    const bool hadDep = s.dependency.has_value(), hadConst = s.constituency.has_value();
    Sentence parsed = r ? std::move(*r) : s;
    // A tree the sentence came with keeps its provenance (gold from a corpus file, or an
    // earlier parse or edit); a tree the parser just made is "parsed".
    if (hadDep)
        parsed.dependency = s.dependency;
    if (hadConst)
        parsed.constituency = s.constituency;
    markTreeSource(parsed, "dependency_source", hadDep, parsed.dependency.has_value(), s);
    markTreeSource(parsed, "constituency_source", hadConst, parsed.constituency.has_value(), s);
    s = std::move(parsed);
    return true;
}

SentencePipeline::Output SentencePipeline::encode(Sentence s, const std::string &modelPath, const RunControl &control,
                                                  const std::vector<HeadAblation> &ablate, double parseMs, Output out)
{
    double encoderMs = 0.0;
    if (!modelPath.empty() && !control.isCancelled()) {
        control.report(0, 0, "Running the encoder");
        auto encoder = m_encoders.get(modelPath);
        // A pair model reads two sentences: one typed sentence is not its input (the pair workbench is).
        const std::string refusal = encoder ? singleSentenceRefusal((*encoder)->info()) : std::string();
        if (!refusal.empty()) {
            out.modelError = refusal;
        } else if (encoder) {
            const auto t0 = std::chrono::steady_clock::now();
            AnalyzeOptions options;
            options.ablate = ablate;
            auto a = (*encoder)->analyze({EncoderInput{s.words(), s.dependency, s.constituency, {}, {}, {}}}, options, &control);
            if (a) {
                Analysis &analysis = a->front();
                keepDeclaredOutputs(analysis, (*encoder)->info().outputs);
                // The constituency view scores the induced tree as eval-induction does: the
                // model reads the words without punctuation (a second, smaller run).
                if (s.constituency && (*encoder)->info().outputs.inducedTree) {
                    auto parse = induceWithoutPunctuation(**encoder, *s.constituency, analysis, &control);
                    if (parse)
                        analysis.withoutPunctuation = std::move(*parse);
                }
                out.analysis = std::make_shared<const Analysis>(std::move(analysis));
            } else {
                out.modelError = a.message();
            }
            encoderMs = msSince(t0);
        } else {
            out.modelError = encoder.message();
        }
    }
    // Stage timings for the status bar and bench_gui (metadata is never written to CoNLL-U).
    s.setMetadata("timing.parse_ms", std::to_string(parseMs));
    s.setMetadata("timing.encoder_ms", std::to_string(encoderMs));
    out.sentence = std::make_shared<const Sentence>(std::move(s));
    return out;
}

} // namespace treelens
