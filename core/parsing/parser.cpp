// Parser: the interface's shared code, parsing a corpus, completing trees (see parser.h).
#include "core/parsing/parser.h"

#include <algorithm>
#include <string_view>

#include "core/base/strings.h"

namespace treelens {

Status ParserConfig::validate() const
{
    if (timeoutSeconds < 0)
        return Error{"parser timeout must be >= 0 seconds"};
    if (maxWords <= 0)
        return Error{"parser word limit must be positive"};
    if (language != "en")
        return Error{"only English ('en') is supported, not '" + language + "'"};
    return {};
}

Result<std::vector<Sentence>> Parser::parseAll(const std::vector<Sentence> &inputs, const RunControl &control)
{
    std::vector<Sentence> out;
    out.reserve(inputs.size());
    for (std::size_t i = 0; i < inputs.size(); ++i) {
        if (control.isCancelled())
            return cancelledError();
        auto r = parse(inputs[i]);
        if (!r)
            return r.error();
        out.push_back(std::move(*r));
        control.report(i + 1, inputs.size(), "parsing");
    }
    return out;
}

Status completeTrees(std::vector<Sentence> &sentences, bool dependency, bool constituency, const std::string &source,
                     const std::function<Result<Parser *>()> &open)
{
    std::vector<Sentence> todo;
    std::vector<std::size_t> where;
    for (std::size_t i = 0; i < sentences.size(); ++i)
        if ((dependency && !sentences[i].dependency) || (constituency && !sentences[i].constituency)) {
            todo.push_back(sentences[i]);
            where.push_back(i);
        }
    if (todo.empty())
        return {};
    auto parser = open();
    if (!parser)
        return parser.error();
    auto parsed = parseCorpus(**parser, std::move(todo), source, CorpusParseOptions{});
    if (!parsed)
        return parsed.error();
    for (std::size_t k = 0; k < where.size(); ++k) {
        Sentence &s = sentences[where[k]];
        // A tree the parser made says so (an edit of it is "edited (from the parsed tree)").
        if (!s.dependency && (*parsed)[k].dependency) {
            s.dependency = (*parsed)[k].dependency;
            s.setMetadata("dependency_source", "parsed");
        }
        if (!s.constituency && (*parsed)[k].constituency) {
            s.constituency = (*parsed)[k].constituency;
            s.setMetadata("constituency_source", "parsed");
        }
    }
    return {};
}

Result<std::vector<Sentence>> parseCorpus(Parser &parser, std::vector<Sentence> sentences, const std::string &source,
                                          const CorpusParseOptions &options, std::vector<std::string> *failures)
{
    auto where = [&](const Sentence &s) { return source + ":" + (s.line > 0 ? std::to_string(s.line) : s.id) + ": "; };
    std::vector<char> refused(sentences.size(), 0);
    for (std::size_t i = 0; i < sentences.size(); ++i) {
        Sentence &s = sentences[i];
        s.dependency.reset();
        s.constituency.reset();
        if (static_cast<int>(s.tokens.size()) > options.maxWords) {
            const std::string message = where(s) + "sentence has " + std::to_string(s.tokens.size()) + " words (limit " +
                                        std::to_string(options.maxWords) +
                                        (options.limitHint.empty() ? "" : ", " + options.limitHint) + ")";
            if (!failures)
                return Error{message};
            failures->push_back(message);
            refused[i] = 1;
        }
    }
    if (options.batched) {
        std::vector<Sentence> batch;
        batch.reserve(sentences.size());
        for (std::size_t i = 0; i < sentences.size(); ++i)
            if (!refused[i])
                batch.push_back(sentences[i]);
        auto r = parser.parseAll(batch);
        if (!r)
            return Error{source + ": " + r.message(), r.code()};
        if (r->size() != batch.size())
            return Error{source + ": the parser returned " + std::to_string(r->size()) + " sentences for " +
                         std::to_string(batch.size())};
        std::size_t k = 0;
        for (std::size_t i = 0; i < sentences.size(); ++i)
            if (!refused[i])
                sentences[i] = std::move((*r)[k++]);
        return sentences;
    }
    for (std::size_t i = 0; i < sentences.size(); ++i) {
        if (refused[i])
            continue;
        auto r = parser.parse(sentences[i]);
        if (!r) {
            if (!failures)
                return Error{where(sentences[i]) + r.message(), r.code()};
            failures->push_back(where(sentences[i]) + r.message());
            continue;
        }
        sentences[i] = std::move(*r);
    }
    return sentences;
}

void markColumnProvenance(Sentence &s, const ParserInfo &info, const std::string &treeFile, const std::string &inputFile)
{
    s.comments.erase(std::remove_if(s.comments.begin(), s.comments.end(),
                                    [](const std::string &c) {
                                        const std::string_view t = trimView(c);
                                        return startsWith(t, "treelens.predicted") || startsWith(t, "treelens.from_input")
                                            || startsWith(t, "treelens.trees_from");
                                    }),
                     s.comments.end());
    // The id and text first, as CoNLL-U files put them (the writer would add them after).
    const auto has = [&](std::string_view key) {
        return std::any_of(s.comments.begin(), s.comments.end(), [&](const std::string &c) {
            const std::string_view t = trimView(c);
            return startsWith(t, key) && t.size() > key.size() && (t[key.size()] == ' ' || t[key.size()] == '=');
        });
    };
    if (!has("sent_id") && !s.id.empty())
        s.comments.push_back(" sent_id = " + s.id);
    if (!has("text") && !s.text.empty())
        s.comments.push_back(" text = " + s.text);
    const bool failed = !s.metadataValue("parser.failed").empty();
    const bool fromFile = info.name == "file";
    const bool treesPredicted = !failed && !fromFile && info.dependencies;
    const bool tagsPredicted = !failed && !fromFile && info.tags;
    const bool morphologyPredicted = !failed && !fromFile && info.morphology;
    const bool treesFromInput = fromFile && (treeFile.empty() || treeFile == inputFile);
    auto any = [&](auto field) {
        return std::any_of(s.tokens.begin(), s.tokens.end(), [&](const Token &t) {
            const std::string &v = t.*field;
            return !v.empty() && v != "_";
        });
    };
    std::string predicted, fromInput;
    auto add = [](std::string &list, const char *column) { list += list.empty() ? column : std::string(" ") + column; };
    // Column order, as in from_input.
    if (morphologyPredicted)
        add(predicted, "LEMMA");
    if (tagsPredicted) {
        add(predicted, "UPOS");
        add(predicted, "XPOS");
    }
    if (morphologyPredicted)
        add(predicted, "FEATS");
    if (treesPredicted) {
        add(predicted, "HEAD");
        add(predicted, "DEPREL");
        for (Token &t : s.tokens)
            t.deps.clear();
        s.emptyNodes.clear();
    }
    if (!morphologyPredicted && any(&Token::lemma))
        add(fromInput, "LEMMA");
    if (!tagsPredicted && any(&Token::upos))
        add(fromInput, "UPOS");
    if (!tagsPredicted && any(&Token::xpos))
        add(fromInput, "XPOS");
    if (!morphologyPredicted && any(&Token::feats))
        add(fromInput, "FEATS");
    if (treesFromInput && s.dependency) {
        add(fromInput, "HEAD");
        add(fromInput, "DEPREL");
    }
    if (any(&Token::deps))
        add(fromInput, "DEPS");
    if (any(&Token::misc))
        add(fromInput, "MISC");
    s.comments.push_back(" treelens.predicted = " + (predicted.empty() ? std::string("none") : predicted));
    s.comments.push_back(" treelens.from_input = " + (fromInput.empty() ? std::string("none") : fromInput));
    if (fromFile && !treesFromInput)
        s.comments.push_back(" treelens.trees_from = " + treeFile);
}

std::function<Result<Parser *>()> parserOnDemand(std::unique_ptr<Parser> &holder)
{
    return [&holder]() -> Result<Parser *> {
        if (!holder) {
            auto p = createParser(ParserConfig{});
            if (!p)
                return p.error();
            holder = std::move(*p);
        }
        return holder.get();
    };
}

} // namespace treelens
