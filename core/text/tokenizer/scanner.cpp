// scanner: the scanner's chunk loop, look-ahead and matchers for URLs, e-mail
// addresses, file names, emoticons, tags and numbers; see scanner.h (words,
// quotes and punctuation: scanwords.cpp).
//
// The scanner works on whitespace-separated chunks and walks each chunk left to
// right, choosing at every position the first matcher that applies (URL, e-mail,
// file name, emoticon, @mention/#hashtag, number, word, quote, punctuation).
// Every matcher either consumes what it scanned or fails after a bounded
// look-ahead (the e-mail and file-name matchers, which scan a whole run of
// characters, remember where they failed), so the pass is linear in the input.
// No regular expressions: std::regex backtracks and is slow. The conventions
// were chosen by counting what the EWT training and development data do;
// docs/tokenizer.md lists them.
#include "core/text/tokenizer/scanner.h"

#include <algorithm>
#include <climits>

#include "core/text/tokenizer/wordlists.h"

namespace treelens::tokenizer {

std::vector<RawToken> Scanner::run()
{
    computeTail();
    const std::size_t size = m_text.size();
    std::size_t pos = 0;
    while (pos < size) {
        int len = 1;
        char32_t c = decodeAt(m_text, pos, len);
        if (isSpaceCp(c)) {
            pos += static_cast<std::size_t>(len);
            continue;
        }
        m_c.clear();
        m_o.clear();
        while (pos < size) {
            c = decodeAt(m_text, pos, len);
            if (isSpaceCp(c))
                break;
            m_c.push_back(c);
            m_o.push_back(static_cast<int>(pos));
            pos += static_cast<std::size_t>(len);
        }
        m_o.push_back(static_cast<int>(pos));
        m_n = static_cast<int>(m_c.size());
        m_chunkEndByte = pos;
        m_noEmailBefore = 0;
        m_noFileBefore = 0;
        scanChunk();
    }
    return std::move(m_out);
}

// m_tail: the end of the last non-space character. EWT splits the period
// off an abbreviation only when nothing follows it ("etc ." but "etc. )").
void Scanner::computeTail()
{
    std::size_t pos = 0;
    while (pos < m_text.size()) {
        int len = 1;
        const char32_t c = decodeAt(m_text, pos, len);
        pos += static_cast<std::size_t>(len);
        if (!isSpaceCp(c))
            m_tail = pos;
    }
}

// Whether the word after index k (in this chunk or the next) is a typical
// sentence-initial word ("The", "I", "But").
bool Scanner::nextWordStartsSentence(int k) const
{
    std::string w;
    if (k < m_n) {
        for (int p = k; p < m_n && w.size() < 12 && isAsciiAlpha(at(p)); ++p)
            w.push_back(static_cast<char>(at(p)));
        return isCommonSentenceStarter(w);
    }
    std::size_t pos = m_chunkEndByte;
    while (pos < m_text.size() && (m_text[pos] == ' ' || m_text[pos] == '\t' || m_text[pos] == '\n'))
        ++pos;
    while (pos < m_text.size() && w.size() < 12 && isAsciiAlpha(static_cast<unsigned char>(m_text[pos])))
        w.push_back(m_text[pos++]);
    return isCommonSentenceStarter(w);
}

// "its" is "it s" (a misspelt "it's") when the next word cannot follow the
// possessive: "its a", "its not", "its really".
bool Scanner::itsIsContraction() const
{
    std::size_t pos = m_chunkEndByte;
    while (pos < m_text.size() && (m_text[pos] == ' ' || m_text[pos] == '\t'))
        ++pos;
    std::string w;
    while (pos < m_text.size() && w.size() < 12 && isAsciiAlpha(static_cast<unsigned char>(m_text[pos]))) {
        const char ch = m_text[pos++];
        w.push_back(ch >= 'A' && ch <= 'Z' ? static_cast<char>(ch + 32) : ch);
    }
    const bool wordEnds = pos >= m_text.size() || !isAsciiAlpha(static_cast<unsigned char>(m_text[pos]));
    return wordEnds && wordsAfterContractedIts().count(w) > 0;
}

// First non-space code point after the current chunk, or 0.
char32_t Scanner::nextAfterChunk() const
{
    std::size_t pos = m_chunkEndByte;
    while (pos < m_text.size()) {
        int len = 1;
        const char32_t c = decodeAt(m_text, pos, len);
        if (!isSpaceCp(c))
            return c;
        pos += static_cast<std::size_t>(len);
    }
    return 0;
}

void Scanner::scanChunk()
{
    int i = 0;
    while (i < m_n) {
        int j = 0;
        if ((j = matchUrl(i)) > i || (j = matchEmail(i)) > i || (j = matchFileName(i)) > i) {
            emit(i, j);
            i = j;
            continue;
        }
        if ((j = matchEmoticon(i)) > i) {
            emit(i, j);
            m_out.back().emoticon = true;
            i = j;
            continue;
        }
        if ((j = matchTag(i)) > i || (j = matchExtension(i)) > i) {
            emit(i, j);
            i = j;
            continue;
        }
        const char32_t c = at(i);
        if (isDigit(c) || (c == '+' && i == 0 && isDigit(at(i + 1)))
            || (c == '.' && isDigit(at(i + 1)) && (i == 0 || !isWordChar(at(i - 1))))) {
            i = scanNumber(i);
        } else if (isLetter(c) || isMark(c)) {
            i = scanWord(i);
        } else {
            i = scanPunct(i);
        }
    }
}

// --- URLs, e-mail addresses, emoticons, tags

bool Scanner::startsWithLower(int i, const char *p) const
{
    for (int k = 0; p[k]; ++k) {
        char32_t c = at(i + k);
        if (c >= 'A' && c <= 'Z')
            c += 32;
        if (c != static_cast<unsigned char>(p[k]))
            return false;
    }
    return true;
}

bool Scanner::isUrlChar(char32_t c)
{
    return c > 0x20 && c < 0x7F && c != '"' && c != '<' && c != '>' && c != '`' && c != '{'
        && c != '}' && c != '|' && c != '\\' && c != '^';
}

int Scanner::matchUrl(int i) const
{
    if (!isAsciiAlpha(at(i)))
        return 0;
    int j = 0;
    static const char *const schemes[] = {"http://", "https://", "ftp://", "file://", "mailto:", "news:"};
    for (const char *s : schemes)
        if (startsWithLower(i, s)) {
            j = i + static_cast<int>(std::char_traits<char>::length(s));
            break;
        }
    if (j == 0 && startsWithLower(i, "www.") && isAsciiAlnum(at(i + 4)))
        j = i + 4;
    if (j == 0 || j >= m_n || !isUrlChar(at(j)))
        return 0;
    int parens = 0;
    for (int k = i; k < j; ++k)
        parens += at(k) == '(' ? 1 : 0;
    while (j < m_n && isUrlChar(at(j))) {
        parens += at(j) == '(' ? 1 : at(j) == ')' ? -1 : 0;
        ++j;
    }
    // Trailing punctuation belongs to the sentence, not the URL; a closing
    // bracket stays when the URL opened one ("wiki/Foo_(bar)").
    while (j > i) {
        const char32_t c = at(j - 1);
        if (c == ')' && parens >= 0)
            break;
        if (c == ')') {
            ++parens;
            --j;
            continue;
        }
        if (c == '.' || c == ',' || c == ';' || c == ':' || c == '!' || c == '?' || c == '\''
            || c == ']')
            --j;
        else
            break;
    }
    return j;
}

bool Scanner::isEmailLocalChar(char32_t c)
{
    return isAsciiAlnum(c) || c == '.' || c == '_' || c == '%' || c == '+' || c == '-';
}

int Scanner::matchEmail(int i)
{
    if (i < m_noEmailBefore || !isAsciiAlnum(at(i)))
        return 0;
    int j = i;
    while (j < m_n && isEmailLocalChar(at(j)))
        ++j;
    // Every start inside [i, j) sees the same '@' (or none): remember the
    // failure so scanning "a.b.c.d..." stays linear.
    m_noEmailBefore = j;
    if (at(j) != '@' || !(isAsciiAlnum(at(j + 1)) || at(j + 1) == '_'))
        return 0;
    int k = j + 1;
    int end = k;
    while (k < m_n) {
        const char32_t c = at(k);
        if (isAsciiAlnum(c) || c == '-' || c == '_') {
            ++k;
            end = k;
        } else if (c == '.' && (isAsciiAlnum(at(k + 1)))) {
            ++k;
        } else {
            break;
        }
    }
    return end;
}

// File names with hyphens, underscores, '#' or '~' before a known extension
// stay whole ("ld2d-#69366-1.DOC", "4_28_00.doc", "Get-A-Free-House.com").
int Scanner::matchFileName(int i)
{
    if (i < m_noFileBefore || !isAsciiAlnum(at(i)))
        return 0;
    int j = i;
    bool special = false;
    int lastDot = -1;
    while (j < m_n) {
        const char32_t c = at(j);
        if (c == '.')
            lastDot = j;
        else if (c == '-' || c == '_' || c == '#' || c == '~')
            special = true;
        else if (!isAsciiAlnum(c))
            break;
        ++j;
    }
    m_noFileBefore = j; // same verdict for every start inside the run
    while (j > i && at(j - 1) == '.')
        --j;
    if (!special || lastDot < i || lastDot >= j - 1 || isWordChar(at(j)))
        return 0;
    bool ok = false;
    const std::string ext = lowerAscii(lastDot + 1, j, &ok);
    const bool domain = ext == "com" || ext == "org" || ext == "net" || ext == "edu" || ext == "gov";
    if (!ok || !(fileExtensions().count(ext) || domain))
        return 0;
    return j;
}

int Scanner::matchEmoticon(int i) const
{
    const char32_t c = at(i);
    if (!(c == ':' || c == ';' || c == '=' || c == '(' || c == ')' || c == '<' || c == '^' || c == '-'
          || c == 'X' || c == 'x' || c == '8' || c == 'B' || c == 'o' || c == 'O'))
        return 0;
    // After a word only a closing face ending the chunk counts: "family:)".
    const bool afterWord = i > 0 && isWordChar(at(i - 1));
    static const char *const faces[] = {
        ":-)", ":-(", ":-D", ":-P", ":-p", ":-O", ":-o", ":-/", ":-|", ":-*", ":'(", ":')",
        ";-)", ";-(", ";-D", ";-P", "8-)", "</3", "^_^", "^.^", "^^", "-_-", "o_O", "O_o", "o.O",
        ":)", ":(", ":D", ":P", ":p", ":O", ":o", ":/", ":|", ":*", ":]", ":[", ":3", ":>", ":<",
        ";)", ";(", ";D", ";P", ";p", "=)", "=(", "=D", "=P", "=]", "(:", "(;", "<3", "XD",
        "xD", "8)", "B)"};
    for (const char *f : faces) {
        const int len = static_cast<int>(std::char_traits<char>::length(f));
        bool same = true;
        for (int k = 0; k < len && same; ++k)
            same = at(i + k) == static_cast<unsigned char>(f[k]);
        if (!same)
            continue;
        int j = i + len;
        const char32_t first = at(i);
        const char32_t last = at(j - 1);
        if (isAsciiAlnum(first) || first == '(' || first == ')') {
            // "XD", "8)", "(:" are too ambiguous unless they stand alone.
            if (!(i == 0 && j == m_n))
                continue;
            return j;
        }
        if (last == ')' || last == '(') // ":)))" is one emoticon
            while (at(j) == last)
                ++j;
        if (afterWord && !(j == m_n && (last == ')' || last == '(') && (first == ':' || first == ';')))
            continue;
        if (j < m_n && isAsciiAlnum(at(j)))
            continue;
        if (f[0] == '<' && isDigit(at(j)))
            continue;
        if (last == '/' && at(j) == '/')
            continue;
        return j;
    }
    return 0;
}

int Scanner::matchTag(int i) const
{
    const char32_t c = at(i);
    if (c != '@' && c != '#')
        return 0;
    if (i > 0 && isWordChar(at(i - 1)))
        return 0;
    // "#1" is "# 1" and "@2.975" is "@ 2.975" in EWT: tags start with a letter.
    if (!(isLetter(at(i + 1)) || at(i + 1) == '_'))
        return 0;
    int j = i + 1;
    while (j < m_n && (isWordChar(at(j)) || at(j) == '_'))
        ++j;
    // "@paulhastings.com"
    while (c == '@' && at(j) == '.' && isAsciiAlpha(at(j + 1))) {
        const int k = scanAlnum(j + 1);
        bool ok = false;
        const std::string ext = lowerAscii(j + 1, k, &ok);
        if (!ok || isWordChar(at(k)) || !isDomainSuffix(ext))
            break;
        j = k;
    }
    return j;
}

// ".doc" written on its own or after a bracket.
int Scanner::matchExtension(int i) const
{
    if (at(i) != '.' || (i > 0 && isWordChar(at(i - 1))) || !isAsciiAlpha(at(i + 1)))
        return 0;
    const int j = scanAlnum(i + 1);
    if (j < m_n && isWordChar(at(j)))
        return 0;
    bool ok = false;
    const std::string ext = lowerAscii(i + 1, j, &ok);
    return ok && ext.size() >= 2 && isDomainSuffix(ext) ? j : 0;
}

// --- numbers

int Scanner::scanNumber(int i)
{
    int j = i;
    if (at(j) == '+')
        ++j;
    j = scanDigits(j);
    bool slashDate = false;
    while (j < m_n) {
        const char32_t c = at(j);
        if (!isDigit(at(j + 1)))
            break;
        if (c == ',' || c == '.' || c == ':') {
            // "1,000.50", "7,5" (decimal comma), "10:30", "832.676.1329"
            j = scanDigits(j + 1);
        } else if (c == '/') {
            // "11/20/2000" and dates like "9/11" stay whole; fractions and
            // other pairs ("3/4", "24/7") split, as EWT does.
            int groupStart = j - 1;
            while (groupStart > i && isDigit(at(groupStart - 1)))
                --groupStart;
            const int k = scanDigits(j + 1);
            const bool third = at(k) == '/' && isDigit(at(k + 1));
            const bool phone = at(k) == '-' && isDigit(at(k + 1));
            if (!(slashDate || third || phone || isDate(groupStart, j, j + 1, k)))
                break;
            slashDate = true;
            j = k;
        } else {
            break;
        }
    }
    // Hyphenated digit groups: phone numbers stay whole, ranges split.
    if (at(j) == '-' && isDigit(at(j + 1))) {
        int groupStart = j;
        while (groupStart > i && isDigit(at(groupStart - 1)))
            --groupStart;
        std::vector<int> lens{j - groupStart};
        int k = j;
        while (at(k) == '-' && isDigit(at(k + 1))) {
            const int e = scanDigits(k + 1);
            lens.push_back(e - (k + 1));
            k = e;
        }
        const bool phone = lens.size() >= 3 || (lens.size() == 2 && lens[1] == 4 && lens[0] != 4);
        if (phone && !(at(k) == '.' && isDigit(at(k + 1))))
            j = k;
    }
    // Suffixes: "80's", "9th", "1990s"; units split ("5pm").
    if (isApostrophe(at(j)) && (at(j + 1) == 's' || at(j + 1) == 'S') && !isWordChar(at(j + 2))) {
        j += 2;
    } else if (isLetter(at(j))) {
        const int k = scanLetters(j);
        bool ok = false;
        const std::string suffix = lowerAscii(j, k, &ok);
        const bool singleUpper = k == j + 1 && at(j) >= 'A' && at(j) <= 'Z';
        if (ok && !isDigit(at(k)) && keepsNumberSuffix(suffix, singleUpper))
            j = k;
    } else if (at(j) == '.' && isAsciiAlpha(at(j + 1))) {
        const int k = scanAlnum(j + 1);
        bool ok = false;
        const std::string ext = lowerAscii(j + 1, k, &ok);
        if (ok && !isWordChar(at(k)) && isDomainSuffix(ext) && ext.size() >= 2)
            j = k; // "050901.doc"
    }
    emit(i, j);
    return j;
}

bool Scanner::isDate(int a, int b, int c, int d) const
{
    if (b - a > 2 || d - c > 2 || b <= a || d <= c)
        return false;
    auto value = [this](int x, int y) {
        int v = 0;
        for (int k = x; k < y; ++k)
            v = v * 10 + static_cast<int>(at(k) - '0');
        return v;
    };
    const int m = value(a, b);
    const int day = value(c, d);
    return m >= 1 && m <= 12 && day >= 1 && day <= 31 && (b - a == 2 || d - c == 2);
}

std::string_view capped(std::string_view text)
{
    return text.substr(0, std::min<std::size_t>(text.size(), static_cast<std::size_t>(INT_MAX)));
}

std::vector<RawToken> scan(std::string_view text, const TokenizerOptions &options)
{
    return Scanner(capped(text), options).run();
}

} // namespace treelens::tokenizer
