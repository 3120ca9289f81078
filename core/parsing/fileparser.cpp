#include "core/parsing/fileparser.h"

#include <unordered_map>

#include "core/formats/corpus.h"

namespace treelens {

namespace {

std::string key(const Sentence &s)
{
    std::string k;
    for (const auto &t : s.tokens) {
        k += t.text;
        k += '\x1f';
    }
    return k;
}

class FileParser : public Parser {
public:
    FileParser(std::string path, std::vector<Sentence> sentences) : m_path(std::move(path)), m_sentences(std::move(sentences))
    {
        for (std::size_t i = 0; i < m_sentences.size(); ++i)
            m_index.emplace(key(m_sentences[i]), i); // emplace keeps the first of duplicates
    }

    ParserInfo info() const override { return fileParserInfo(); }

    Result<Sentence> parse(const Sentence &input) override
    {
        if (input.tokens.empty())
            return makeError(input.id, "nothing to parse (no tokens)");
        const auto it = m_index.find(key(input));
        if (it == m_index.end())
            return Error{"file parser: the sentence '" + input.text.substr(0, 60) + "' (" + std::to_string(input.tokens.size())
                         + " words) is not in " + m_path + " (" + std::to_string(m_sentences.size()) + " sentences)"};
        const Sentence &src = m_sentences[it->second];
        Sentence out = input;
        out.dependency = src.dependency;
        out.constituency = src.constituency;
        for (std::size_t i = 0; i < out.tokens.size(); ++i) {
            auto &t = out.tokens[i];
            const auto &f = src.tokens[i];
            if (t.upos.empty())
                t.upos = f.upos;
            if (t.xpos.empty())
                t.xpos = f.xpos;
            if (t.lemma.empty())
                t.lemma = f.lemma;
        }
        out.setMetadata("parser", "file");
        out.setMetadata("parser.file", m_path);
        return out;
    }

private:
    std::string m_path;
    std::vector<Sentence> m_sentences;
    std::unordered_map<std::string, std::size_t> m_index;
};

} // namespace

ParserInfo fileParserInfo()
{
    ParserInfo i;
    i.name = "file";
    i.dependencies = true;
    i.constituencies = true;
    i.description = "trees read from a parsed file (CoNLL-U, PTB or JSON), matched by the sentence's words";
    return i;
}

Result<std::unique_ptr<Parser>> createFileParser(const ParserConfig &config)
{
    if (config.treeFile.empty())
        return Error{"file parser: no tree file given (--tree-file)"};
    CorpusReadOptions options;
    options.stripTraces = true;
    auto sentences = readCorpusFile(config.treeFile, formatFromPath(config.treeFile), options);
    if (!sentences)
        return Error{"file parser: " + sentences.message(), sentences.code()};
    std::vector<Sentence> withTrees;
    for (auto &s : *sentences)
        if (!s.tokens.empty() && (s.dependency || s.constituency))
            withTrees.push_back(std::move(s));
    if (withTrees.empty())
        return Error{"file parser: " + config.treeFile + " has no sentence with a tree"};
    return std::unique_ptr<Parser>(new FileParser(config.treeFile, std::move(withTrees)));
}

} // namespace treelens
