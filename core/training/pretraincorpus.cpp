#include "core/training/pretraincorpus.h"

#include <algorithm>
#include <filesystem>
#include <unordered_map>

#include "core/base/fileio.h"

#include "core/formats/conllu.h"
#include "core/eval/inductioneval.h"
#include "core/formats/ptb.h"
#include "core/text/tokenizer.h"

namespace treelens {

Status PretrainSources::validate() const
{
    if (!ptbDir.empty() && (ptbFirst < 1 || ptbLast >= 160 || ptbFirst > ptbLast))
        return makeError("pretraining data", "PTB files must lie in wsj_0001..wsj_0159 (wsj_0160-0199 are held out for "
                                             "parser development and evaluation), not " +
                                                 std::to_string(ptbFirst) + ".." + std::to_string(ptbLast));
    if (ptbRepeat < 1 || ptbRepeat > 100)
        return makeError("pretraining data", "ptb_repeat must be 1..100");
    if (maxWords < 2 || maxWords > 8190)
        return makeError("pretraining data", "max_words must be 2..8190");
    if (udTrain.empty() && wordnetDir.empty() && ptbDir.empty())
        return makeError("pretraining data", "no source given (ud_train, wordnet_dir, ptb_dir)");
    if (!udTrain.empty() && udTrain.find("-test") != std::string::npos)
        return makeError("pretraining data", "refusing to pre-train on a test file: " + udTrain);
    return {};
}

std::size_t PretrainCorpus::words() const
{
    std::size_t n = 0;
    for (const auto &s : sentences)
        n += s.size();
    return n;
}

void wordnetGlossesAndExamples(const std::string &text, std::vector<std::string> &glosses,
                               std::vector<std::string> &examples)
{
    std::size_t pos = 0;
    while (pos < text.size()) {
        std::size_t nl = text.find('\n', pos);
        if (nl == std::string::npos)
            nl = text.size();
        const std::string_view line(text.data() + pos, nl - pos);
        pos = nl + 1;
        if (line.empty() || line[0] == ' ') // the licence header lines start with two spaces
            continue;
        const auto bar = line.find(" | ");
        if (bar == std::string_view::npos)
            continue;
        std::string_view gloss = line.substr(bar + 3);
        while (!gloss.empty() && (gloss.back() == ' ' || gloss.back() == '\r'))
            gloss.remove_suffix(1);
        // Split on "; " outside quotes.
        std::size_t start = 0;
        bool inQuote = false;
        for (std::size_t i = 0; i <= gloss.size(); ++i) {
            if (i < gloss.size() && gloss[i] == '"')
                inQuote = !inQuote;
            if (i == gloss.size() || (!inQuote && gloss[i] == ';')) {
                std::string part(gloss.substr(start, i - start));
                start = i + 1;
                while (!part.empty() && part.front() == ' ')
                    part.erase(part.begin());
                while (!part.empty() && part.back() == ' ')
                    part.pop_back();
                if (part.size() < 3)
                    continue;
                if (part.front() == '"') {
                    const auto close = part.find('"', 1);
                    examples.push_back(part.substr(1, close == std::string::npos ? std::string::npos : close - 1));
                } else {
                    glosses.push_back(part);
                }
            }
        }
    }
}

Result<PretrainCorpus> loadPretrainCorpus(const PretrainSources &src)
{
    if (auto s = src.validate(); !s)
        return s.error();
    PretrainCorpus corpus;
    auto add = [&](std::vector<std::string> words, const char *source) {
        if (words.empty())
            return;
        for (std::size_t b = 0; b < words.size(); b += static_cast<std::size_t>(src.maxWords)) {
            const auto e = std::min(words.size(), b + static_cast<std::size_t>(src.maxWords));
            corpus.sentences.emplace_back(words.begin() + static_cast<long>(b), words.begin() + static_cast<long>(e));
            ++corpus.sentencesBySource[source];
        }
    };
    if (!src.udTrain.empty()) {
        auto text = readFile(src.udTrain);
        if (!text)
            return text.error();
        auto sents = readConllu(*text, src.udTrain);
        if (!sents)
            return sents.error();
        for (const auto &s : *sents) {
            std::vector<std::string> w;
            for (const auto &t : s.tokens)
                if (!src.stripPunctuation || t.upos != "PUNCT")
                    w.push_back(t.text);
            add(std::move(w), "ud");
        }
    }
    if (!src.wordnetDir.empty()) {
        const Tokenizer tokenizer;
        for (const char *pos : {"noun", "verb", "adj", "adv"}) {
            const std::string path = src.wordnetDir + "/data." + pos;
            auto text = readFile(path);
            if (!text)
                return text.error();
            std::vector<std::string> glosses, examples;
            wordnetGlossesAndExamples(*text, glosses, examples);
            auto words = [&](const std::string &t) {
                std::vector<std::string> w;
                for (const auto &tok : tokenizer.tokenize(t))
                    if (!src.stripPunctuation || !isPunctuationToken(tok.text))
                        w.push_back(tok.text);
                return w;
            };
            for (const auto &g : glosses)
                add(words(g), "wordnet-gloss");
            for (const auto &e : examples)
                add(words(e), "wordnet-example");
        }
    }
    if (!src.ptbDir.empty()) {
        PtbReadOptions opt;
        opt.stripTraces = true;
        opt.stripFunctionTags = true;
        for (int f = src.ptbFirst; f <= src.ptbLast; ++f) {
            char name[32];
            std::snprintf(name, sizeof name, "/wsj_%04d.mrg", f);
            const std::string path = src.ptbDir + name;
            if (!std::filesystem::exists(path))
                continue;
            auto text = readFile(path);
            if (!text)
                return text.error();
            auto sents = readPtbSentences(*text, path, opt);
            if (!sents)
                return sents.error();
            for (const auto &s : *sents) {
                std::vector<std::string> w;
                const auto tags = s.constituency->tags();
                const auto words = s.words();
                for (std::size_t i = 0; i < words.size(); ++i)
                    if (!src.stripPunctuation || !isInductionPunctuationTag(tags[i]))
                        w.push_back(ptbUnescape(words[i]));
                for (int r = 0; r < src.ptbRepeat; ++r)
                    add(w, "ptb");
            }
        }
    }
    if (corpus.sentences.empty())
        return makeError("pretraining data", "the sources gave no sentences");
    return corpus;
}

} // namespace treelens
