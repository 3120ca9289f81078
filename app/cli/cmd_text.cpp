// tokenize, parse and convert.
#include <iostream>

#include "app/cli/command.h"
#include "core/base/strings.h"
#include "core/formats/conllu.h"
#include "core/formats/ptb.h"
#include "core/formats/treelensjson.h"
#include "core/parsing/headrules.h"
#include "core/parsing/parser.h"

namespace treelens::cli {

void addTokenizeCommand(CLI::App &app, Action &action)
{
    auto *cmd = app.add_subcommand("tokenize", "Print one sentence per line, tokens separated by single spaces");
    auto spec = std::make_shared<InputSpec>();
    auto out = std::make_shared<std::string>();
    addInputOptions(cmd, *spec, true);
    cmd->add_option("-o,--output", *out, "Write to FILE instead of standard output")->type_name("FILE");
    cmd->footer("Without --input, TEXT (or standard input when TEXT is '-' or absent) is read; each line is one "
                "sentence unless --split is given.\nExample: treelens-cli tokenize \"I don't know.\"  ->  I do n't know .");
    cmd->callback([&action, spec, out]() {
        action = [spec, out]() {
            auto sentences = readInput(*spec);
            if (!sentences)
                return fail(sentences.message());
            std::string text;
            for (const auto &s : *sentences) {
                text += join(s.words(), " ");
                text += '\n';
            }
            return writeOutput(*out, text);
        };
    });
}

namespace {

struct ParseSpec {
    InputSpec input;
    std::string parser = defaultParserBackend();
    std::string format = "conllu";
    std::string out;
    double timeout = 2.0;
    int maxWords = 250;
    std::string command;
    std::string model;
    std::string treeFile;
};

} // namespace

void addParseCommand(CLI::App &app, Action &action)
{
    auto *cmd = app.add_subcommand("parse", "Parse sentences into dependency and constituency trees");
    auto spec = std::make_shared<ParseSpec>();
    addInputOptions(cmd, spec->input, true);
    std::string parsers;
    for (const auto &p : availableParsers())
        parsers += (parsers.empty() ? "" : ", ") + p.name;
    cmd->add_option("--parser,-p", spec->parser, "Parser backend (" + parsers + ")")->capture_default_str();
    cmd->add_option("--format,-f", spec->format,
                    "Output: conllu (dependency tree, constituency tree in a '# constituency' comment), "
                    "ptb (bracketed trees, one per line) or json (JSON Lines)")
        ->check(CLI::IsMember({"conllu", "ptb", "json"}))
        ->capture_default_str();
    cmd->add_option("--timeout", spec->timeout, "Per-sentence time limit in seconds (0 = none)")->capture_default_str();
    cmd->add_option("--max-words", spec->maxWords, "Refuse sentences with more words than this")->capture_default_str();
    cmd->add_option("--parser-command", spec->command,
                    "--parser external: shell command that reads one line of space-separated tokens on stdin and "
                    "writes one CoNLL-U sentence on stdout (e.g. a UDPipe, spaCy or Stanza wrapper)")
        ->type_name("CMD");
    cmd->add_option("--parser-model", spec->model, "--parser neural: dependency parser model (default: the shipped one)")
        ->type_name("M");
    cmd->add_option("--tree-file", spec->treeFile,
                    "--parser file: parsed file (CoNLL-U, PTB, JSON) whose trees are used, matched by words "
                    "(default: the input file itself, keeping its trees)")
        ->type_name("F");
    cmd->add_option("-o,--output", spec->out, "Write to FILE (atomically) instead of standard output")->type_name("FILE");
    cmd->footer("Files in CoNLL-U, PTB or JSON keep their tokenization; their trees are re-predicted (--parser file keeps them).\n"
                "Example: treelens-cli parse \"The old man saw a red kite.\"");
    cmd->callback([&action, spec]() {
        action = [spec]() {
            ParserConfig config;
            config.backend = spec->parser;
            config.timeoutSeconds = spec->timeout;
            config.maxWords = spec->maxWords;
            config.command = spec->command;
            config.dependencyModel = spec->model;
            config.treeFile = spec->treeFile.empty() ? spec->input.file : spec->treeFile;
            auto parser = createParser(config);
            if (!parser)
                return fail(parser.message());
            auto sentences = readInput(spec->input);
            if (!sentences)
                return fail(sentences.message());
            std::vector<Sentence> parsed;
            parsed.reserve(sentences->size());
            const std::string source = spec->input.file.empty() ? std::string("<input>") : spec->input.file;
            for (auto &s : *sentences) {
                const std::string where = source + ":" + std::to_string(s.line) + ": ";
                if (static_cast<int>(s.tokens.size()) > spec->maxWords)
                    return fail(where + "sentence has " + std::to_string(s.tokens.size()) + " words (limit "
                                + std::to_string(spec->maxWords) + ", see --max-words)");
                s.dependency.reset();
                s.constituency.reset();
            }
            if (spec->parser == "neural") {
                // Batched by length: this is where the neural parser's speed comes from.
                auto r = (*parser)->parseAll(*sentences);
                if (!r)
                    return fail(source + ": " + r.message());
                parsed = std::move(*r);
            } else {
                for (auto &s : *sentences) {
                    auto r = (*parser)->parse(s);
                    if (!r)
                        return fail(source + ":" + std::to_string(s.line) + ": " + r.message());
                    parsed.push_back(std::move(*r));
                }
            }
            std::string text;
            if (spec->format == "conllu") {
                text = writeConllu(parsed);
            } else if (spec->format == "json") {
                text = writeTreeLensJson(parsed);
            } else {
                auto p = writePtb(parsed, PtbStyle::OneLine);
                if (!p)
                    return fail(p.message());
                text = std::move(*p);
            }
            return writeOutput(spec->out, text);
        };
    });
}

namespace {

struct ConvertSpec {
    std::string input;
    std::string to;
    std::string from;
    std::string headRules;
    bool stripTraces = false;
    bool stripFunctionTags = false;
    bool pretty = false;
    std::string out;
};

} // namespace

void addConvertCommand(CLI::App &app, Action &action)
{
    auto *cmd = app.add_subcommand("convert", "Convert between CoNLL-U, PTB brackets and TreeLens JSON");
    auto spec = std::make_shared<ConvertSpec>();
    cmd->add_option("input", spec->input, "Input file ('-' for standard input, then --from is required)")
        ->required()
        ->type_name("INPUT");
    cmd->add_option("--to,-t", spec->to, "Output format")->required()->check(CLI::IsMember({"conllu", "ptb", "json", "text"}));
    cmd->add_option("--from", spec->from, "Input format (default: from the extension)")
        ->check(CLI::IsMember({"conllu", "ptb", "json", "text"}));
    cmd->add_option("--head-rules", spec->headRules,
                    "Derive dependency trees from constituency trees with these head rules (collins)")
        ->check(CLI::IsMember({"collins"}));
    cmd->add_flag("--strip-traces", spec->stripTraces, "Remove -NONE- traces and constituents left empty");
    cmd->add_flag("--strip-function-tags", spec->stripFunctionTags, "NP-SBJ-1 -> NP, and so on");
    cmd->add_flag("--pretty", spec->pretty, "PTB output in the indented WSJ .mrg layout");
    cmd->add_option("-o,--output", spec->out, "Write to FILE (atomically) instead of standard output")->type_name("FILE");
    cmd->footer("Example: treelens-cli convert wsj_0001.mrg --to conllu --head-rules collins --strip-traces");
    cmd->callback([&action, spec]() {
        action = [spec]() {
            if (spec->input == "-" && spec->from.empty())
                return fail("reading standard input needs --from");
            CorpusFormat from = formatFromPath(spec->input);
            if (!spec->from.empty())
                from = *parseCorpusFormat(spec->from);
            const CorpusFormat to = *parseCorpusFormat(spec->to);
            auto sentences = readCorpusNonEmpty(spec->input, from);
            if (!sentences)
                return fail(sentences.message());
            for (auto &s : *sentences) {
                if (s.constituency) {
                    if (spec->stripTraces) {
                        s.constituency->stripTraces();
                        if (s.constituency->wordCount() == 0)
                            return fail("sentence '" + s.id + "' has no words once traces are removed");
                    }
                    if (spec->stripFunctionTags)
                        s.constituency->stripFunctionTags();
                }
                if (!spec->headRules.empty()) {
                    if (!s.constituency)
                        return fail("sentence '" + s.id + "' has no constituency tree to apply head rules to");
                    auto dep = toDependencies(*s.constituency, *parseHeadRules(spec->headRules));
                    if (!dep)
                        return fail("sentence '" + s.id + "': " + dep.message());
                    s.dependency = std::move(*dep);
                }
            }
            Result<std::string> text = (to == CorpusFormat::Ptb && spec->pretty)
                ? writePtb(*sentences, PtbStyle::Treebank)
                : writeCorpus(*sentences, to);
            if (!text)
                return fail(text.message());
            return writeOutput(spec->out, *text);
        };
    });
}

} // namespace treelens::cli
