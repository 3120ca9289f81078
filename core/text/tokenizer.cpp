// English tokenizer and sentence splitter (UD English EWT conventions).
//
// The code point classes, the word lists and the scanner (how it works: the
// comment at the top of scanner.cpp) are internal pieces in core/text/tokenizer/;
// this file holds the sentence splitter and the Tokenizer's entry points.
#include "core/text/tokenizer.h"

#include <string>
#include <utility>
#include <vector>

#include "core/text/tokenizer/charclasses.h"
#include "core/text/tokenizer/scanner.h"
#include "core/text/tokenizer/wordlists.h"

namespace treelens {

using namespace tokenizer;

namespace {

Token makeToken(std::string_view text, const RawToken &r)
{
    Token t;
    t.text = std::string(text.substr(static_cast<std::size_t>(r.begin), static_cast<std::size_t>(r.end - r.begin)));
    t.charStart = r.begin;
    t.charEnd = r.end;
    return t;
}

// ------------------------------------------------------------ sentences

// Kinds of tokens that matter to the sentence splitter.
// AngleClose is ">>", which ends the attachment lines of the Enron e-mails.
enum class TokKind { Word, Number, Period, Terminal, Ellipsis, Closing, Emoticon, AngleClose, Other };

struct SplitToken {
    int begin = 0;
    int end = 0;
    TokKind kind = TokKind::Other;
    char32_t first = 0; ///< first code point
};

TokKind classify(std::string_view tok, char32_t first)
{
    if (isDigit(first))
        return TokKind::Number;
    if (isLetter(first))
        return TokKind::Word;
    if (tok == ">>")
        return TokKind::AngleClose;
    std::size_t p = 0;
    bool allTerminal = true;
    bool hasOther = false;
    while (p < tok.size()) {
        int len = 1;
        const char32_t c = decodeAt(tok, p, len);
        p += static_cast<std::size_t>(len);
        if (c == '!' || c == '?')
            hasOther = true;
        else if (c != '.' && c != 0x2026)
            allTerminal = false;
    }
    if (allTerminal) {
        if (tok == ".")
            return TokKind::Period;
        // "..", "...", "…" (periods only) end a sentence only before a capital.
        return hasOther ? TokKind::Terminal : TokKind::Ellipsis;
    }
    int len = 1;
    decodeAt(tok, 0, len);
    if (tok.size() == static_cast<std::size_t>(len) && isClosingPunct(first))
        return TokKind::Closing;
    return TokKind::Other;
}

bool startsLikeSentence(char32_t c)
{
    return isUpperLetter(c) || isDigit(c) || c == '"' || c == '\'' || c == '(' || c == '[' || c == 0x201C
        || c == 0x2018 || c == '`' || c == '<' || c == '-' || c == '@' || c == '#' || c == '$';
}

// Abbreviations kept whole by the tokenizer that still end a sentence before
// a typical sentence-initial word ("... in the U.S. The next day").
bool abbreviationMayEndSentence(std::string_view tok)
{
    std::string lower;
    for (char c : tok)
        lower.push_back(c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c);
    return sentenceEndingAbbreviations().count(lower) > 0;
}

// Splits one paragraph (no blank lines inside) into sentence ranges. The
// rules come from counting EWT (train): after "." a new sentence starts
// before almost anything (6775 of 6836 times before a capital, 229 of 235
// before a lower-case word, since web text often starts sentences in lower
// case); after "!" and "?" always; after ".." or "..." only before a capital;
// an emoticon or ">>" before a capital ends a sentence too.
void splitParagraph(std::string_view text, int base, const TokenizerOptions &options,
                    std::vector<std::pair<int, int>> &out)
{
    // Works on surface tokens, so "Mr." or "U.S." (one token) are never taken
    // for a sentence end while "end." (two tokens) is. The final-abbreviation
    // rule is off: the paragraph's end is not where its sentences end.
    TokenizerOptions opt = options;
    opt.splitFinalAbbreviationPeriod = false;
    const std::vector<RawToken> raw = scan(text, opt);
    std::vector<SplitToken> toks;
    toks.reserve(raw.size());
    for (const RawToken &r : raw) {
        if (r.joinPrev && !toks.empty()) {
            toks.back().end = r.end;
            continue;
        }
        SplitToken t;
        t.begin = r.begin;
        t.end = r.end;
        int len = 1;
        t.first = decodeAt(text, static_cast<std::size_t>(r.begin), len);
        t.kind = r.emoticon ? TokKind::Emoticon
                            : classify(text.substr(static_cast<std::size_t>(r.begin),
                                                   static_cast<std::size_t>(r.end - r.begin)),
                                       t.first);
        toks.push_back(t);
    }
    if (toks.empty())
        return;
    auto surface = [&](const SplitToken &t) {
        return text.substr(static_cast<std::size_t>(t.begin), static_cast<std::size_t>(t.end - t.begin));
    };
    std::size_t start = 0;
    const std::size_t n = toks.size();
    for (std::size_t k = 0; k + 1 < n; ++k) {
        const SplitToken &t = toks[k];
        const bool abbrev = t.kind == TokKind::Word && t.end - t.begin > 1 && surface(t).back() == '.'
            && abbreviationMayEndSentence(surface(t));
        if (t.kind != TokKind::Period && t.kind != TokKind::Terminal && t.kind != TokKind::Ellipsis
            && t.kind != TokKind::Emoticon && t.kind != TokKind::AngleClose && !abbrev)
            continue;
        // Closing quotes and brackets attached to the terminator stay with it.
        std::size_t last = k;
        if (t.kind != TokKind::Emoticon && t.kind != TokKind::AngleClose)
            while (last + 1 < n && toks[last + 1].kind == TokKind::Closing && toks[last + 1].begin == toks[last].end)
                ++last;
        const bool closed = last > k; // "... ?\" asked Bush" goes on
        if (last + 1 >= n)
            break;
        const SplitToken &next = toks[last + 1];
        if (next.begin == toks[last].end)
            continue; // no space: "end.Next" is a typo, not a boundary we trust
        bool boundary = false;
        switch (t.kind) {
        case TokKind::Period:
            // ". :)" keeps the smiley; ". . ." is a spaced ellipsis; "1." is a
            // list marker, not a sentence.
            boundary = next.kind != TokKind::Emoticon && next.kind != TokKind::Period && next.first != '*'
                && next.first != ',' && next.first != ';' && next.first != ')'
                && (!closed || startsLikeSentence(next.first));
            if (boundary && k == start + 1 && toks[start].kind == TokKind::Number
                && toks[start].end - toks[start].begin <= 2)
                boundary = false;
            break;
        case TokKind::Terminal:
            boundary = next.kind != TokKind::Emoticon && next.kind != TokKind::Terminal
                && next.kind != TokKind::Period && next.first != ',' && next.first != ')'
                && (!closed || startsLikeSentence(next.first));
            break;
        case TokKind::Ellipsis:
            boundary = startsLikeSentence(next.first) && next.first != '-' && next.first != '<';
            break;
        case TokKind::Emoticon:
        case TokKind::AngleClose:
            boundary = isUpperLetter(next.first) || (t.kind == TokKind::AngleClose && next.first == '-');
            break;
        default: // an abbreviation kept whole
            boundary = isCommonSentenceStarter(surface(next));
            break;
        }
        if (!boundary)
            continue;
        out.emplace_back(base + toks[start].begin, base + toks[last].end);
        start = last + 1;
        k = last;
    }
    out.emplace_back(base + toks[start].begin, base + toks[n - 1].end);
}

bool spaceOrEndAt(std::string_view s, std::size_t pos)
{
    if (pos >= s.size())
        return true;
    int len = 1;
    return isSpaceCp(decodeAt(s, pos, len));
}

} // namespace

// ------------------------------------------------------------ Tokenizer

Tokenization Tokenizer::tokenizeDetailed(std::string_view text) const
{
    const std::vector<RawToken> raw = scan(text, m_options);
    Tokenization out;
    out.words.reserve(raw.size());
    for (std::size_t k = 0; k < raw.size(); ++k) {
        out.words.push_back(makeToken(text, raw[k]));
        const int idx = static_cast<int>(k);
        if (raw[k].joinPrev && !out.surface.empty()) {
            out.surface.back().charEnd = raw[k].end;
            out.surface.back().lastWord = idx;
        } else {
            out.surface.push_back(SurfaceToken{raw[k].begin, raw[k].end, idx, idx});
        }
    }
    return out;
}

std::vector<Token> Tokenizer::tokenize(std::string_view text) const
{
    const std::vector<RawToken> raw = scan(text, m_options);
    std::vector<Token> out;
    out.reserve(raw.size());
    for (const RawToken &r : raw)
        out.push_back(makeToken(text, r));
    return out;
}

std::vector<std::pair<int, int>> Tokenizer::splitSentences(std::string_view fullText) const
{
    const std::string_view text = capped(fullText);
    std::vector<std::pair<int, int>> out;
    // Paragraphs end at blank lines: a newline, optional spaces, a newline.
    std::size_t paraStart = 0;
    std::size_t pos = 0;
    std::size_t lastNewline = std::string_view::npos;
    bool onlySpaceSinceNewline = false;
    auto flush = [&](std::size_t end) {
        if (end > paraStart)
            splitParagraph(text.substr(paraStart, end - paraStart), static_cast<int>(paraStart), m_options, out);
    };
    while (pos < text.size()) {
        int len = 1;
        const char32_t c = decodeAt(text, pos, len);
        if (c == '\n') {
            if (lastNewline != std::string_view::npos && onlySpaceSinceNewline) {
                flush(lastNewline);
                paraStart = pos;
            }
            lastNewline = pos;
            onlySpaceSinceNewline = true;
        } else if (!isSpaceCp(c)) {
            onlySpaceSinceNewline = false;
        }
        pos += static_cast<std::size_t>(len);
    }
    flush(text.size());
    return out;
}

std::vector<Sentence> Tokenizer::splitAndTokenize(std::string_view text) const
{
    std::vector<Sentence> out;
    for (const auto &[b, e] : splitSentences(text)) {
        Sentence s;
        s.id = "s" + std::to_string(out.size() + 1);
        s.text = std::string(text.substr(static_cast<std::size_t>(b), static_cast<std::size_t>(e - b)));
        Tokenization t = tokenizeDetailed(s.text);
        for (const SurfaceToken &st : t.surface) {
            const bool spaceAfter = spaceOrEndAt(s.text, static_cast<std::size_t>(st.charEnd));
            const std::string misc = spaceAfter ? std::string() : std::string("SpaceAfter=No");
            if (st.lastWord > st.firstWord) {
                MultiwordToken m;
                m.first = st.firstWord + 1;
                m.last = st.lastWord + 1;
                m.columns = {std::to_string(m.first) + "-" + std::to_string(m.last),
                             s.text.substr(static_cast<std::size_t>(st.charStart),
                                           static_cast<std::size_t>(st.charEnd - st.charStart)),
                             "_", "_", "_", "_", "_", "_", "_", misc.empty() ? "_" : misc};
                s.multiwordTokens.push_back(std::move(m));
            } else {
                t.words[static_cast<std::size_t>(st.firstWord)].misc = misc;
            }
        }
        s.tokens = std::move(t.words);
        out.push_back(std::move(s));
    }
    return out;
}

void markSpaceAfter(std::vector<Token> &words, std::string_view text)
{
    for (Token &w : words) {
        if (w.charStart < 0 || w.charEnd < w.charStart || static_cast<std::size_t>(w.charEnd) > text.size())
            continue;
        if (spaceOrEndAt(text, static_cast<std::size_t>(w.charEnd)))
            continue;
        if (w.misc.find("SpaceAfter=No") != std::string::npos)
            continue;
        w.misc = w.misc.empty() || w.misc == "_" ? std::string("SpaceAfter=No") : "SpaceAfter=No|" + w.misc;
    }
}

} // namespace treelens
