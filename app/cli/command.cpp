#include "app/cli/command.h"

#include <iostream>

#include "core/base/fileio.h"
#include "core/formats/plaintext.h"

namespace treelens::cli {

int fail(const std::string &message)
{
    std::string oneLine = message;
    for (auto &c : oneLine)
        if (c == '\n' || c == '\r')
            c = ' ';
    std::cerr << "treelens-cli: error: " << oneLine << '\n';
    return 1;
}

void addInputOptions(CLI::App *cmd, InputSpec &spec, bool withFrom)
{
    cmd->add_option("text", spec.text, "Input text; '-' reads standard input")->type_name("TEXT");
    cmd->add_option("--input,-i", spec.file,
                    "Input file: .conllu/.mrg/.ptb/.json/.jsonl keep their tokenization, anything else is plain text "
                    "(one sentence per line unless --split)")
        ->type_name("FILE");
    cmd->add_flag("--split", spec.split, "Plain text is running text: split it into sentences");
    if (withFrom)
        cmd->add_option("--from", spec.from, "Input format (conllu, ptb, json, text); default: from the extension")
            ->type_name("FMT");
}

namespace {
Result<std::vector<Sentence>> nonEmpty(Result<std::vector<Sentence>> r, const std::string &source)
{
    if (r && r->empty())
        return Error{source + ":1: no sentences in the input"};
    return r;
}
} // namespace

Result<std::vector<Sentence>> readInput(const InputSpec &spec)
{
    return nonEmpty(readInputAllowEmpty(spec), spec.file.empty() ? (spec.text.empty() || spec.text == "-" ? "<stdin>" : "<argument>") : spec.file);
}

Result<std::vector<Sentence>> readCorpusNonEmpty(const std::string &path, CorpusFormat format)
{
    return nonEmpty(readCorpusFile(path, format), path == "-" ? std::string("<stdin>") : path);
}

Result<std::vector<Sentence>> readInputAllowEmpty(const InputSpec &spec)
{
    if (!spec.text.empty() && !spec.file.empty())
        return Error{"give either TEXT or --input, not both"};
    CorpusReadOptions opt;
    opt.split = spec.split;
    opt.maxTokens = spec.maxTokens;
    if (!spec.file.empty()) {
        CorpusFormat fmt = formatFromPath(spec.file);
        if (!spec.from.empty()) {
            auto f = parseCorpusFormat(spec.from);
            if (!f)
                return f.error();
            fmt = *f;
        }
        return readCorpusFile(spec.file, fmt, opt);
    }
    std::string text = spec.text;
    std::string source = "<argument>";
    if (text.empty() || text == "-") {
        auto in = readFile("-");
        if (!in)
            return in.error();
        text = std::move(*in);
        source = "<stdin>";
    }
    if (!spec.from.empty()) {
        auto f = parseCorpusFormat(spec.from);
        if (!f)
            return f.error();
        return readCorpus(text, source, *f, opt);
    }
    return readCorpus(text, source, CorpusFormat::Text, opt);
}

int writeOutput(const std::string &out, const std::string &data)
{
    const Status st = writeFileAtomic(out.empty() ? std::string("-") : out, data);
    return st.ok() ? 0 : fail(st.message());
}

} // namespace treelens::cli
