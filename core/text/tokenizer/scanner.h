#pragma once
/// \file scanner.h
/// Internal to the tokenizer: the scanner, which cuts text into words (how it
/// works: the comment at the top of scanner.cpp). The chunk loop and the
/// matchers up to numbers are in scanner.cpp, words, quotes and punctuation in
/// scanwords.cpp.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "core/text/tokenizer.h"
#include "core/text/tokenizer/charclasses.h"

namespace treelens::tokenizer {

struct RawToken {
    int begin = 0;
    int end = 0;
    bool joinPrev = false; ///< belongs to the same surface token as the previous word
    bool emoticon = false; ///< for the sentence splitter
};

class Scanner {
public:
    Scanner(std::string_view text, const TokenizerOptions &options) : m_text(text), m_opt(options) {}

    std::vector<RawToken> run();

private:
    void computeTail();

    void emit(int i, int j, bool joinPrev = false)
    {
        if (j <= i)
            return;
        RawToken t;
        t.begin = m_o[static_cast<std::size_t>(i)];
        t.end = m_o[static_cast<std::size_t>(j)];
        t.joinPrev = joinPrev && !m_out.empty() && m_out.back().end == t.begin;
        m_out.push_back(t);
    }

    char32_t at(int i) const { return i >= 0 && i < m_n ? m_c[static_cast<std::size_t>(i)] : 0; }

    // Lower-cased ASCII text of [i, j); "" with ok=false when not all ASCII.
    std::string lowerAscii(int i, int j, bool *ok = nullptr) const
    {
        std::string s;
        bool good = true;
        for (int k = i; k < j; ++k) {
            const char32_t c = at(k);
            if (c >= 0x80) {
                good = false;
                break;
            }
            s.push_back(static_cast<char>(c >= 'A' && c <= 'Z' ? c + 32 : c));
        }
        if (ok)
            *ok = good;
        return good ? s : std::string();
    }

    int scanDigits(int j) const
    {
        while (j < m_n && isDigit(at(j)))
            ++j;
        return j;
    }
    int scanLetters(int j) const
    {
        while (j < m_n && (isLetter(at(j)) || isMark(at(j))))
            ++j;
        return j;
    }
    int scanAlnum(int j) const
    {
        while (j < m_n && isWordChar(at(j)))
            ++j;
        return j;
    }

    bool nextWordStartsSentence(int k) const;

    bool itsIsContraction() const;

    char32_t nextAfterChunk() const;

    void scanChunk();

    // --- URLs, e-mail addresses, emoticons, tags

    bool startsWithLower(int i, const char *p) const;

    static bool isUrlChar(char32_t c);

    int matchUrl(int i) const;

    static bool isEmailLocalChar(char32_t c);

    int matchEmail(int i);

    int matchFileName(int i);

    int matchEmoticon(int i) const;

    int matchTag(int i) const;

    int matchExtension(int i) const;

    // --- numbers

    int scanNumber(int i);

    bool isDate(int a, int b, int c, int d) const;

    // --- words

    int scanWord(int i);

    // A word being scanned: it starts at `start` and reaches `j` so far; its
    // current segment (after a hyphen prefix, an inner period, "&", "_", "*")
    // starts at `segStart`; `simple` while it is one run of letters and digits.
    struct WordScan {
        int start;
        int j;
        int segStart;
        bool simple = true;
    };
    // What a character inside a word did: nothing (NotHere: the next rule
    // looks), extend the word (Continue, from w.j), end it at w.j (End: the
    // abbreviation and fused-word rules still apply), or emit it whole (Emitted:
    // scanning goes on at w.j).
    enum class WordStep { NotHere, Continue, End, Emitted };
    WordStep wordApostrophe(WordScan &w, char32_t x);
    WordStep wordSymbol(WordScan &w, char32_t x);
    WordStep wordPeriod(WordScan &w, char32_t x);
    WordStep wordJoiner(WordScan &w, char32_t x);
    int finishWord(const WordScan &w);

    // A host and its clitic ("do" + "n't"): two words of one surface token, or
    // one word when clitics are not split.
    void emitSplit(int i, int mid, int end)
    {
        if (m_opt.splitClitics) {
            emit(i, mid);
            emit(mid, end, true);
        } else {
            emit(i, end);
        }
    }

    bool isSentenceFinal(int periodIndex) const
    {
        return static_cast<std::size_t>(m_o[static_cast<std::size_t>(periodIndex) + 1]) >= m_tail;
    }

    int matchDottedContinuation(int i, int segStart, int j) const;

    bool isAbbreviation(int i, int j, int segStart) const;

    char32_t nextAfterChunkOrInChunk(int k) const { return k < m_n ? at(k) : nextAfterChunk(); }

    // --- quotes and punctuation

    int scanPunct(int i);

    std::string_view m_text;
    TokenizerOptions m_opt;
    std::vector<RawToken> m_out;
    std::vector<char32_t> m_c; // code points of the current chunk
    std::vector<int> m_o;      // their byte offsets, plus the chunk end
    int m_n = 0;
    std::size_t m_chunkEndByte = 0;
    std::size_t m_tail = 0;
    int m_noEmailBefore = 0;
    int m_noFileBefore = 0;
    int m_openStraight = 0; // open ' quotes (decides "kids'" vs "'kids'")
    int m_openCurly = 0;    // open ‘ quotes
};

// Offsets are ints (Token::charStart): text past 2 GiB is not tokenized.
std::string_view capped(std::string_view text);

/// The words of `text` (capped), as byte ranges grouped into surface tokens.
std::vector<RawToken> scan(std::string_view text, const TokenizerOptions &options);

} // namespace treelens::tokenizer
