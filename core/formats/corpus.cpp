#include "core/formats/corpus.h"

#include "core/base/fileio.h"
#include "core/base/strings.h"
#include "core/formats/conllu.h"
#include "core/formats/plaintext.h"
#include "core/formats/ptb.h"
#include "core/formats/treelensjson.h"

namespace treelens {

Result<CorpusFormat> parseCorpusFormat(const std::string &name)
{
    const std::string n = toLowerAscii(name);
    if (n == "conllu" || n == "conll-u" || n == "conll")
        return CorpusFormat::Conllu;
    if (n == "ptb" || n == "mrg" || n == "brackets")
        return CorpusFormat::Ptb;
    if (n == "json" || n == "jsonl")
        return CorpusFormat::Json;
    if (n == "text" || n == "txt" || n == "plain")
        return CorpusFormat::Text;
    return Error{"unknown format '" + name + "' (known: conllu, ptb, json, text)"};
}

std::string corpusFormatName(CorpusFormat f)
{
    switch (f) {
    case CorpusFormat::Conllu: return "conllu";
    case CorpusFormat::Ptb: return "ptb";
    case CorpusFormat::Json: return "json";
    case CorpusFormat::Text: return "text";
    }
    return "text";
}

CorpusFormat formatFromPath(const std::string &path)
{
    const std::string ext = fileExtension(path);
    if (ext == ".conllu" || ext == ".conll")
        return CorpusFormat::Conllu;
    if (ext == ".mrg" || ext == ".ptb")
        return CorpusFormat::Ptb;
    if (ext == ".json" || ext == ".jsonl")
        return CorpusFormat::Json;
    return CorpusFormat::Text;
}

Result<std::vector<Sentence>> readCorpus(const std::string &text, const std::string &source, CorpusFormat format,
                                         const CorpusReadOptions &options)
{
    switch (format) {
    case CorpusFormat::Conllu:
        return readConllu(text, source);
    case CorpusFormat::Ptb: {
        PtbReadOptions o;
        o.stripTraces = options.stripTraces;
        o.stripFunctionTags = options.stripFunctionTags;
        return readPtbSentences(text, source, o);
    }
    case CorpusFormat::Json:
        return readTreeLensJson(text, source);
    case CorpusFormat::Text: {
        PlainTextOptions o;
        o.split = options.split;
        o.maxTokens = options.maxTokens;
        return readPlainText(text, source, o);
    }
    }
    return Error{"unknown format"};
}

Result<std::vector<Sentence>> readCorpusFile(const std::string &path, CorpusFormat format, const CorpusReadOptions &options)
{
    auto text = readFile(path);
    if (!text)
        return text.error();
    return readCorpus(*text, path == "-" ? std::string("<stdin>") : path, format, options);
}

Result<std::string> writeCorpus(const std::vector<Sentence> &sentences, CorpusFormat format)
{
    switch (format) {
    case CorpusFormat::Conllu:
        return writeConllu(sentences);
    case CorpusFormat::Ptb:
        return writePtb(sentences, PtbStyle::OneLine);
    case CorpusFormat::Json:
        return writeTreeLensJson(sentences);
    case CorpusFormat::Text: {
        std::string out;
        for (const auto &s : sentences) {
            out += join(s.words(), " ");
            out += '\n';
        }
        return out;
    }
    }
    return Error{"unknown format"};
}

} // namespace treelens
