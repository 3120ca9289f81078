// scanwords: the scanner's words (clitics, hyphens, abbreviations, dotted
// names) and its quotes and punctuation; see scanner.h.
#include "core/text/tokenizer/scanner.h"

#include "core/text/tokenizer/wordlists.h"

namespace treelens::tokenizer {

// --- words

int Scanner::scanWord(int i)
{
    WordScan w{i, i, i};
    for (;;) {
        w.j = scanAlnum(w.j);
        if (w.j >= m_n)
            break;
        const char32_t x = at(w.j);
        WordStep step = wordApostrophe(w, x);
        if (step == WordStep::NotHere)
            step = wordSymbol(w, x);
        if (step == WordStep::NotHere)
            step = wordPeriod(w, x);
        if (step == WordStep::NotHere)
            step = wordJoiner(w, x);
        if (step == WordStep::Emitted)
            return w.j;
        if (step != WordStep::Continue)
            break; // NotHere or End: the word ends at w.j
    }
    return finishWord(w);
}

// Apostrophes inside or after a word: clitics ("do" + "n't", "I" + "'m"),
// names ("O'Brien"), possessive plurals ("taxpayers'") and dropped g ("lovin'").
Scanner::WordStep Scanner::wordApostrophe(WordScan &w, char32_t x)
{
    const int i = w.start, j = w.j;
    if (isApostrophe(x) && isLetter(at(j + 1))) {
        const int k = scanLetters(j + 1);
        bool ok = false;
        const std::string tail = lowerAscii(j + 1, k, &ok);
        if (ok && !isWordChar(at(k)) && at(k) != '-' && !isApostrophe(at(k))) {
            w.j = k;
            if (clitics().count(tail)) {
                emitSplit(i, j, k);
                return WordStep::Emitted;
            }
            const bool nt = j - 1 > i && (at(j - 1) == 'n' || at(j - 1) == 'N');
            if (tail == "t" && nt) {
                emitSplit(i, j - 1, k);
                return WordStep::Emitted;
            }
            // "I'ma", "wasn'ta": EWT reads "I'm a", "wasn't a".
            if (tail == "ma" || (tail == "ta" && nt)) {
                emitSplit(i, tail == "ma" ? j : j - 1, k - 1);
                emit(k - 1, k);
                return WordStep::Emitted;
            }
        }
        // An apostrophe inside a name: "O'Brien", "Shi'ite", "al-Qa'ida".
        w.simple = false;
        w.j = k;
        return WordStep::Continue;
    }
    if (isApostrophe(x) && x != 0x2018 && x != '`' && !isWordChar(at(j + 1))
        && (at(j - 1) == 's' || at(j - 1) == 'S')) {
        // "taxpayers'" is a possessive unless a single quote is open.
        const bool open = x == '\'' ? m_openStraight > 0 : m_openCurly > 0;
        if (!open) {
            emitSplit(i, j, j + 1);
            w.j = j + 1;
            return WordStep::Emitted;
        }
        return WordStep::End;
    }
    if ((x == '\'' || x == 0x2019) && !isWordChar(at(j + 1)) && j - i >= 3 && at(j - 1) == 'n'
        && at(j - 2) == 'i' && (x == '\'' ? m_openStraight : m_openCurly) == 0) {
        emit(i, j + 1); // "lovin'", "nothin'"
        w.j = j + 1;
        return WordStep::Emitted;
    }
    return WordStep::NotHere;
}

// Dollar signs after letters ("US$") and hyphens: a known prefix ("anti-")
// joins the next segment, "-wise" and "-esque" stay on the word, any other
// hyphen ends it.
Scanner::WordStep Scanner::wordSymbol(WordScan &w, char32_t x)
{
    const int i = w.start;
    int &j = w.j;
    if (x == '$' && isLetter(at(j - 1)) && !isDigit(at(j + 1))) {
        while (at(j) == '$') // "US$", and "me$$age" in spam
            ++j;
        w.simple = false;
        return WordStep::Continue;
    }
    if ((x == '-' || x == 0x2010 || x == 0x2011) && isWordChar(at(j + 1))) {
        bool ok = false;
        const std::string seg = lowerAscii(w.segStart, j, &ok);
        if (ok && hyphenPrefixes().count(seg)) {
            w.simple = false;
            w.segStart = ++j;
            return WordStep::Continue;
        }
        const int k = scanLetters(j + 1);
        const std::string next = lowerAscii(j + 1, k, &ok);
        if (ok && !isWordChar(at(k)) && (next == "wise" || next == "esque")) {
            emit(i, k); // "career-wise"
            j = k;
            return WordStep::Emitted;
        }
        return WordStep::End;
    }
    return WordStep::NotHere;
}

// A period followed by a word character: degrees ("Ph.D."), letter-dot
// acronyms ("U.S."), domains, file names, newsgroups and version numbers.
Scanner::WordStep Scanner::wordPeriod(WordScan &w, char32_t x)
{
    const int i = w.start;
    int &j = w.j;
    if (x != '.' || !isWordChar(at(j + 1)))
        return WordStep::NotHere;
    if (w.segStart == i) {
        // Degrees: "Ph.D.", "M.Sc."
        const int k = scanLetters(j + 1);
        bool ok = false;
        const std::string dotted = lowerAscii(i, k, &ok);
        if (ok && degreeAbbreviations().count(dotted) && !isWordChar(at(k))) {
            j = at(k) == '.' && !(m_opt.splitFinalAbbreviationPeriod && isSentenceFinal(k)) ? k + 1 : k;
            emit(i, j);
            return WordStep::Emitted;
        }
    }
    const int k = matchDottedContinuation(i, w.segStart, j);
    if (k <= j)
        return WordStep::End;
    w.simple = false;
    if (at(k - 1) == '.') { // a letter-dot acronym consumed its period
        j = k;
        if (m_opt.splitFinalAbbreviationPeriod && isSentenceFinal(k - 1) && k - 1 > i + 1) {
            emit(i, k - 1);
            j = k - 1;
            return WordStep::Emitted;
        }
        emit(i, j);
        return WordStep::Emitted;
    }
    w.segStart = j + 1;
    j = k;
    return WordStep::Continue;
}

// Symbols that join two parts into one word: "AT&T", "p&l", "w/o",
// "ENRON_DEVELOPMENT", "f*ck", "Yahoo!".
Scanner::WordStep Scanner::wordJoiner(WordScan &w, char32_t x)
{
    const int i = w.start;
    int &j = w.j;
    if (x == '&' && isLetter(at(j + 1)) && isUpperLetter(at(j - 1)) && isUpperLetter(at(j + 1))) {
        w.simple = false; // "AT&T", "P&L"
        w.segStart = ++j;
        return WordStep::Continue;
    }
    if (x == '&' && (at(j + 1) == 'l' || at(j + 1) == 'L') && j - i == 1) {
        w.simple = false; // "p&l"
        w.segStart = ++j;
        return WordStep::Continue;
    }
    if (x == '/' && j - w.segStart == 1 && isLetter(at(j - 1)) && isLetter(at(j + 1))
        && !isWordChar(at(j + 2)) && at(j + 2) != '/') {
        w.simple = false; // "w/o", "L/C"
        j += 2;
        return WordStep::End;
    }
    if ((x == '_' || x == '*') && isWordChar(at(j + 1))) {
        w.simple = false; // "ENRON_DEVELOPMENT", "f*ck"
        w.segStart = ++j;
        return WordStep::Continue;
    }
    if (x == '!' && lowerAscii(i, j) == "yahoo") {
        emit(i, j + 1);
        j = j + 1;
        return WordStep::Emitted;
    }
    return WordStep::NotHere;
}

// The word [w.start, w.j) is emitted: with a following abbreviation period,
// split into its parts when it is a fused word ("gonna", "cannot"), else whole.
int Scanner::finishWord(const WordScan &w)
{
    const int i = w.start, j = w.j;
    // A period after an abbreviation or an initial stays on the word.
    // "etc.." is "etc." + "."; three or more periods are an ellipsis.
    const bool single = at(j + 1) != '.' || (at(j + 2) != '.' && at(j + 1) == '.');
    if (at(j) == '.' && single && isAbbreviation(i, j, w.segStart)) {
        if (m_opt.splitFinalAbbreviationPeriod && isSentenceFinal(j)) {
            emit(i, j);
            return j;
        }
        emit(i, j + 1);
        return j + 1;
    }
    if (w.simple && m_opt.splitClitics && j - i <= 8) {
        bool ok = false;
        const std::string lower = lowerAscii(i, j, &ok);
        const auto &fused = fusedWords();
        auto it = ok ? fused.find(lower) : fused.end();
        if (ok && lower == "its" && j == m_n && itsIsContraction()) {
            emit(i, i + 2);
            emit(i + 2, j, true);
            return j;
        }
        if (it != fused.end()) {
            int b = i;
            bool first = true;
            for (int len : it->second) {
                emit(b, b + len, !first);
                first = false;
                b += len;
            }
            return j;
        }
    }
    emit(i, j);
    return j;
}

// At a '.' inside a word (index j): returns the end of what continues the
// word, or j when the period ends it. Handles "U.S.", "a.m.", "e.g."
// (consuming the final period), "Amazon.com", "report.xls",
// "comp.sources.unix" and "v2.0".
int Scanner::matchDottedContinuation(int i, int segStart, int j) const
{
    // Letter-dot acronyms: single letters each followed by a period.
    if (j - segStart == 1 && segStart == i && isLetter(at(i)) && isLetter(at(j + 1))
        && (at(j + 2) == '.' || !isWordChar(at(j + 2)))) {
        int k = j;
        while (at(k) == '.' && isLetter(at(k + 1)) && (at(k + 2) == '.' || !isWordChar(at(k + 2))))
            k += 2;
        // Final period: "U.S." keeps it, also in "U.S.."; "U.S..." is
        // "U.S" + "...".
        if (at(k) == '.' && (at(k + 1) != '.' || at(k + 2) != '.'))
            return k + 1;
        return k;
    }
    if (isDigit(at(j - 1)) && isDigit(at(j + 1)))
        return scanDigits(j + 1);
    const int k = scanAlnum(j + 1);
    if (isWordChar(at(k)) || at(k) == '@')
        return j;
    bool ok = false;
    const std::string next = lowerAscii(j + 1, k, &ok);
    if (!ok)
        return j;
    const bool followedByDot = at(k) == '.' && isAsciiAlnum(at(k + 1));
    if (isDomainSuffix(next) && (next.size() >= 2 || followedByDot))
        return k;
    // Newsgroup names: "alt.animals", "comp.sources.unix" (lower case).
    bool lowerBefore = true;
    for (int p = segStart; p < j && lowerBefore; ++p)
        lowerBefore = !isUpperLetter(at(p));
    bool lowerNext = true;
    for (int p = j + 1; p < k && lowerNext; ++p)
        lowerNext = !isUpperLetter(at(p));
    if (lowerBefore && lowerNext
        && (followedByDot || segStart > i || newsgroupHierarchies().count(lowerAscii(segStart, j))))
        return k;
    return j;
}

bool Scanner::isAbbreviation(int i, int j, int segStart) const
{
    if (segStart != i)
        return false;
    // An initial: "J." (also list items "b."), but not the unit in "80k.".
    if (j - i == 1)
        return isLetter(at(i)) && !(i > 0 && isDigit(at(i - 1)));
    bool ok = false;
    const std::string w = lowerAscii(i, j, &ok);
    if (!ok)
        return false;
    const char32_t next = nextAfterChunkOrInChunk(j + 1);
    if (w == "no" || w == "nos" || w == "p" || w == "pg")
        return isDigit(next) || next == '#';
    if (titleAbbreviations().count(w))
        return true;
    if (!otherAbbreviations().count(w))
        return false;
    // "sat", "sun", "ill", "miss", ... are ordinary words too: written in
    // lower case before a capitalised word ("The cat sat. Dogs bark") the
    // period ends the sentence; "Sat." and "Sun." stay abbreviations.
    if (isUpperLetter(next) && abbreviationsThatAreWords().count(w) && !isUpperLetter(at(i)))
        return false;
    return !(isUpperLetter(next) && nextWordStartsSentence(j + 1));
}

// --- quotes and punctuation

int Scanner::scanPunct(int i)
{
    const char32_t c = at(i);
    const char32_t next = at(i + 1);
    const bool atStart = i == 0 || isOpeningPunct(at(i - 1));
    // Doubled single quotes are one double quote: `` '' ‘’ ’’ ‘‘.
    if ((c == '`' && next == '`') || (c == '\'' && next == '\'')
        || ((c == 0x2018 || c == 0x2019) && (next == 0x2018 || next == 0x2019))) {
        emit(i, i + 2);
        return i + 2;
    }
    if (c == '\'' || c == 0x2019 || c == 0x2018) {
        // Stand-alone clitic ("John 's"), year ("'72", "'60s"), or quote.
        if (c != 0x2018 && i == 0 && isLetter(next)) {
            const int k = scanLetters(i + 1);
            bool ok = false;
            const std::string tail = lowerAscii(i + 1, k, &ok);
            if (ok && !isWordChar(at(k)) && (clitics().count(tail) || tail == "em" || tail == "t")) {
                emit(i, k);
                return k;
            }
        }
        if (c != 0x2018 && atStart && isDigit(next) && isDigit(at(i + 2)) && !isDigit(at(i + 3))) {
            int k = i + 3;
            if (at(k) == 's')
                ++k;
            if (!isWordChar(at(k))) {
                emit(i, k);
                return k;
            }
        }
        int &open = c == '\'' ? m_openStraight : m_openCurly;
        if (c == 0x2018 || (c == '\'' && atStart && (isWordChar(next) || isOpeningPunct(next))))
            ++open;
        else if (open > 0)
            --open;
        emit(i, i + 1);
        return i + 1;
    }
    // Runs that form one token: "...", "?!", "!!!", "--", "==", "**", "<<".
    if (isTerminalPunct(c)) {
        int j = i + 1;
        int periods = c == '.' ? 1 : 0;
        while (j < m_n && isTerminalPunct(at(j))) {
            // An ellipsis and the "?" after it are two tokens; ".?" is one.
            if (periods >= 3 && at(j) != '.')
                break;
            periods = at(j) == '.' ? periods + 1 : 0;
            ++j;
        }
        emit(i, j);
        return j;
    }
    if (c == '-' || c == '=') { // "--", "==----"
        int j = i + 1;
        while (j < m_n && (at(j) == '-' || at(j) == '='))
            ++j;
        emit(i, j);
        return j;
    }
    if (c == '_' || c == '*' || c == '~' || c == '<' || c == '>' || c == '#' || c == '+' || c == '^'
        || c == '/' || c == '\\' || c == '|' || c == '$') {
        int j = i + 1;
        while (j < m_n && at(j) == c)
            ++j;
        emit(i, j);
        return j;
    }
    // Anything else is one symbol, with its combining marks and, for
    // emoji, variation selectors, skin tones and zero-width-joined parts.
    int j = i + 1;
    for (;;) {
        const char32_t d = at(j);
        if (j < m_n && (isMark(d) || (d >= 0x1F3FB && d <= 0x1F3FF))) {
            if (d == 0x200D && j + 1 < m_n && !isSpaceCp(at(j + 1)) && !isDigit(at(j + 1))
                && isNonAsciiSymbol(at(j + 1)))
                j += 2;
            else
                ++j;
            continue;
        }
        break;
    }
    emit(i, j);
    return j;
}

} // namespace treelens::tokenizer
