// tokenize, parse and convert.
#include <iostream>

#include "app/cli/command.h"
#include "core/base/fileio.h"
#include "core/base/inputlimits.h"
#include "core/base/strings.h"
#include "core/formats/conllu.h"
#include "core/formats/ptb.h"
#include "core/formats/treelensjson.h"
#include "core/parsing/headrules.h"
#include "core/parsing/parser.h"
#include "core/parsing/treedecoders.h"

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
    ParserSpec parser;
    std::string format = "conllu";
    std::string out;
    bool keepGoing = false;
    ShardOptions shard;
};

/// The fallback of --keep-going for a sentence the parser could not parse: a flat
/// tree (every word attached to the first; one constituent "X" over all words),
/// marked with the metadata "parser.failed" = the error.
void flatFallback(Sentence &s, const std::string &error)
{
    DependencyTree d;
    for (std::size_t i = 0; i < s.tokens.size(); ++i) {
        d.heads.push_back(i == 0 ? 0 : 1);
        d.deprels.push_back(i == 0 ? "root" : "dep");
    }
    s.dependency = std::move(d);
    std::vector<std::string> words, tags;
    for (const auto &t : s.tokens) {
        words.push_back(t.text);
        tags.push_back(t.xpos.empty() ? "X" : t.xpos);
    }
    s.constituency = spansToTree(words, tags, std::vector<LabeledSpan>{LabeledSpan{"X", 0, static_cast<int>(words.size()), -1}});
    s.setMetadata("parser.failed", error);
}

} // namespace

void addParseCommand(CLI::App &app, Action &action)
{
    auto *cmd = app.add_subcommand("parse", "Parse sentences into dependency and constituency trees");
    auto spec = std::make_shared<ParseSpec>();
    addInputOptions(cmd, spec->input, true);
    addParserOptions(cmd, spec->parser, " (default: the input file itself, keeping its trees)");
    cmd->add_option("--format,-f", spec->format,
                    "Output: conllu (dependency tree, constituency tree in a '# constituency' comment), "
                    "ptb (bracketed trees, one per line) or json (JSON Lines)")
        ->check(CLI::IsMember({"conllu", "ptb", "json"}))
        ->capture_default_str();
    cmd->add_option("-o,--output", spec->out, "Write to FILE (atomically) instead of standard output")->type_name("FILE");
    cmd->add_flag("--keep-going", spec->keepGoing,
                  "A sentence the parser fails on (timeout, no linkage, too long) gets a flat tree (all words under the "
                  "first; one X constituent) and a note on stderr instead of stopping; for scoring whole test sets");
    addShardOptions(cmd, spec->shard, "blocks of 2,000 sentences");
    cmd->footer("Files in CoNLL-U, PTB or JSON keep their tokenization; their trees are re-predicted (--parser file keeps them).\n"
                "CoNLL-U output names the predicted columns (# treelens.predicted) and those kept from the input\n"
                "(# treelens.from_input); an input's DEPS are dropped with its tree.\n"
                "Example: treelens-cli parse \"The old man saw a red kite.\"");
    cmd->callback([&action, spec]() {
        action = [spec]() {
            // Streaming: blocks of sentences are parsed (batched inside a block), written and
            // dropped, so memory does not grow with the input. The blocks start at multiples of
            // 2,000 in the input, sharded or not: a shard batches its sentences as the whole run does.
            constexpr std::size_t kChunk = 2000;
            auto sharding = sentenceShard(spec->shard, "parse", spec->input, spec->out, kChunk);
            if (!sharding)
                return fail(sharding.message());
            if (sharding->done)
                return 0;
            const ShardRange range = sharding->range;
            ParserConfig config = parserConfig(spec->parser);
            // --parser file without --tree-file keeps the input file's own trees.
            if (spec->parser.treeFile.empty())
                config.treeFile = spec->input.file;
            auto parser = createParser(config);
            if (!parser)
                return fail(parser.message());
            auto input = InputChunks::open(spec->input);
            if (!input)
                return fail(input.message());
            const std::string source = spec->input.file.empty() ? std::string("<input>") : spec->input.file;
            auto writer = AtomicFileWriter::open(spec->out.empty() ? std::string("-") : spec->out);
            if (!writer)
                return fail(writer.message());
            std::size_t notParsed = 0;
            if (auto st = writer->write(sharding->firstLine()); !st)
                return fail(st.message());
            auto total = forEachBlock(*input, kChunk, range.begin, range.end, "parse",
                                      [&](std::vector<Sentence> &chunk, std::size_t) -> Status {
                std::vector<std::string> failures;
                auto parsed = parseSentences(**parser, spec->parser, std::move(chunk), source,
                                             spec->keepGoing ? &failures : nullptr);
                if (!parsed)
                    return parsed.error();
                if (spec->keepGoing) {
                    for (auto &s : *parsed)
                        if (!s.dependency && !s.constituency)
                            flatFallback(s, "not parsed (the reason is on stderr)");
                    for (const auto &f : failures)
                        std::cerr << "treelens-cli: warning: " << printableMessage(f) << " (flat tree written)\n";
                    notParsed += failures.size();
                }
                if (spec->format == "conllu") {
                    // Which columns are predicted, which the input's (docs/formats.md).
                    const ParserInfo info = (*parser)->info();
                    for (auto &s : *parsed)
                        markColumnProvenance(s, info, config.treeFile, spec->input.file);
                    return writer->write(writeConllu(*parsed));
                }
                if (spec->format == "json")
                    return writer->write(writeTreeLensJson(*parsed));
                auto p = writePtb(*parsed, PtbStyle::OneLine);
                if (!p)
                    return p.error();
                return writer->write(*p);
            });
            if (!total)
                return fail(total.message());
            if (notParsed > 0)
                std::cerr << "treelens-cli: " << notParsed << " of " << *total
                          << " sentences not parsed, written with flat trees\n";
            if (auto st = writer->write(sharding->lastLine(*total)); !st)
                return fail(st.message());
            if (auto st = writer->commit(); !st)
                return fail(st.message());
            return 0;
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
