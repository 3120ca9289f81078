// English tokenizer and sentence splitter (UD English EWT conventions).
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
#include "core/text/tokenizer.h"

#include <algorithm>
#include <climits>
#include <unordered_map>
#include <unordered_set>

#include "core/base/utf8.h"

namespace treelens {
namespace {

// ------------------------------------------------------------ characters

bool isSpaceCp(char32_t c)
{
    // U+200B and U+FEFF are not White_Space in Unicode, but they are invisible
    // and occur between words in web text; the CoNLL-U reader skips them too.
    return c == ' ' || (c >= 0x09 && c <= 0x0D) || c == 0x85 || c == 0xA0 || c == 0x1680
        || (c >= 0x2000 && c <= 0x200B) || c == 0x2028 || c == 0x2029 || c == 0x202F
        || c == 0x205F || c == 0x3000 || c == 0xFEFF;
}

bool isDigit(char32_t c) { return c >= '0' && c <= '9'; }
bool isAsciiAlpha(char32_t c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool isAsciiAlnum(char32_t c) { return isAsciiAlpha(c) || isDigit(c); }

bool isMark(char32_t c)
{
    return (c >= 0x0300 && c <= 0x036F) || (c >= 0x1AB0 && c <= 0x1AFF) || (c >= 0x1DC0 && c <= 0x1DFF)
        || (c >= 0x20D0 && c <= 0x20FF) || (c >= 0xFE20 && c <= 0xFE2F) || (c >= 0xFE00 && c <= 0xFE0F)
        || c == 0x00AD || c == 0x200C || c == 0x200D || (c >= 0xE0100 && c <= 0xE01EF);
}

// Non-ASCII code points that are punctuation or symbols rather than letters.
// Everything else above U+007F counts as a letter: the tokenizer only needs
// to know where words end, not which script they are in.
bool isNonAsciiSymbol(char32_t c)
{
    if (c < 0x80)
        return false;
    if (c <= 0xBF)
        return c != 0xAA && c != 0xB5 && c != 0xBA && c != 0xAD && c != 0xB2 && c != 0xB3
            && c != 0xB9; // ª µ º and superscript digits ("m²") belong to words
    // U+02BC (modifier letter apostrophe) is a letter in Unicode but an
    // apostrophe in English text: "donʼt".
    return c == 0xD7 || c == 0xF7 || c == 0x02BC || (c >= 0x2000 && c <= 0x2BFF) || (c >= 0x2E00 && c <= 0x2E7F)
        || (c >= 0x3000 && c <= 0x303F) || (c >= 0xE000 && c <= 0xF8FF) || (c >= 0xFE10 && c <= 0xFE1F)
        || (c >= 0xFE30 && c <= 0xFE6F) || (c >= 0xFF01 && c <= 0xFF0F) || (c >= 0xFF1A && c <= 0xFF20)
        || (c >= 0xFF3B && c <= 0xFF40) || (c >= 0xFF5B && c <= 0xFF65) || (c >= 0xFFF0 && c <= 0xFFFF)
        || (c >= 0x1F000 && c <= 0x1FAFF) || c > 0x10FFFF;
}

bool isLetter(char32_t c)
{
    if (c < 0x80)
        return isAsciiAlpha(c);
    return !isNonAsciiSymbol(c) && !isMark(c) && !isSpaceCp(c);
}

bool isWordChar(char32_t c) { return isLetter(c) || isDigit(c) || isMark(c); }

bool isUpperLetter(char32_t c)
{
    if (c < 0x80)
        return c >= 'A' && c <= 'Z';
    if (c >= 0xC0 && c <= 0xDE)
        return c != 0xD7;
    if (c >= 0x100 && c <= 0x17F) // Latin Extended-A alternates upper/lower
        return c % 2 == 0;
    return (c >= 0x391 && c <= 0x3A9) || (c >= 0x400 && c <= 0x42F);
}

// Characters used as an apostrophe inside a word ("don’t", "mama`s").
bool isApostrophe(char32_t c) { return c == '\'' || c == 0x2019 || c == '`' || c == 0x02BC || c == 0x2018; }

bool isOpeningPunct(char32_t c)
{
    return c == '(' || c == '[' || c == '{' || c == '<' || c == 0xAB || c == 0x201C || c == 0x2018
        || c == 0x201E || c == 0x201A || c == 0x2039 || c == '"' || c == '\'' || c == '`';
}

bool isTerminalPunct(char32_t c) { return c == '.' || c == '!' || c == '?' || c == 0x2026; }

bool isClosingPunct(char32_t c)
{
    return c == ')' || c == ']' || c == '}' || c == '"' || c == '\'' || c == 0x201D || c == 0x2019
        || c == 0xBB || c == 0x203A;
}

// ------------------------------------------------------------ word lists

using WordSet = std::unordered_set<std::string>;

// Abbreviations that keep their period (lower-cased, without the period).
// Single letters and letter-dot patterns ("U.S.", "a.m.") are handled by rule.
// Titles and the like come before a name or number, so their period never
// ends a sentence.
const WordSet &titleAbbreviations()
{
    static const WordSet s = {
        "mr", "mrs", "ms", "dr", "drs", "prof", "st", "sts", "mt", "ft", "gen", "gov", "sen", "rep", "reps",
        "rev", "lt", "col", "capt", "sgt", "cpl", "maj", "adm", "pres", "hon", "messrs", "vs", "cf", "viz",
        "eg", "ie", "approx", "al", "et", "ph", "tel", "attn", "arrv", "lv", "ext", "jan", "feb", "apr",
        "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec", "tue", "tues", "thu", "thur", "thurs",
        "vol", "vols", "pp", "fig", "figs"};
    return s;
}

// The others end a sentence when a capitalised word follows ("... and so on
// etc. The next"); before anything else they keep their period.
const WordSet &otherAbbreviations()
{
    static const WordSet s = {
        "sr", "jr", "inc", "corp", "co", "ltd", "bros", "dept", "univ", "assn", "ave", "blvd", "rd", "hwy",
        "etc", "ect", "est", "eds", "hr", "hrs", "yr", "yrs", "mins", "lb", "lbs", "oz", "mar", "mon",
        "wed", "fri", "sat", "sun", "fax", "spec", "para", "conf", "sec", "esp", "dom", "rec", "ps", "mob",
        "info", "min", "max", "misc", "ref", "govt", "intl", "natl", "assoc", "mfg", "pvt", "sc", "que",
        "ca", "la", "va", "wa", "cal", "calif", "fla", "mass", "penn", "tenn", "tex", "wash", "ariz",
        "colo", "conn", "ill", "kan", "ky", "md", "mich", "minn", "miss", "mo", "neb", "nev", "okla",
        "ore", "pa", "wis", "wyo"};
    return s;
}

// Bound prefixes after which EWT keeps the hyphen inside the word ("e-mail",
// "non-violent"); other hyphenated compounds are split ("long - term").
const WordSet &hyphenPrefixes()
{
    static const WordSet s = {
        "e", "non", "anti", "pre", "re", "mid", "post", "co", "over", "multi", "pro", "ex", "sub",
        "semi", "cross", "neo", "counter", "psycho", "socio", "arch", "intra", "un", "mis", "micro",
        "macro", "bi", "tri", "de", "dis", "extra", "ultra", "hyper", "super", "trans", "quasi",
        "pseudo", "infra", "proto", "mega", "mini", "auto", "meta", "poly", "mono", "uni"};
    return s;
}

// File extensions: "report.doc", "ld2d-#69366-1.DOC" stay whole.
const WordSet &fileExtensions()
{
    static const WordSet s = {
        "doc", "docx", "xls", "xlsx", "ppt", "pptx", "pdf", "txt", "rtf", "htm", "html", "php", "asp",
        "aspx", "jsp", "cgi", "xml", "json", "csv", "zip", "gz", "tar", "exe", "dll", "jpg", "jpeg",
        "gif", "png", "bmp", "tif", "tiff", "mp3", "mp4", "wav", "avi", "mov", "wmv", "mpg", "cpp",
        "h", "py", "js", "css", "java", "log", "dat", "ini", "cfg", "bat", "sh", "msg", "eml", "vcf", "url"};
    return s;
}

// Top-level domains and file extensions: "Amazon.com", "report.doc" stay whole.
bool isDomainSuffix(const std::string &lower)
{
    static const WordSet tlds = {
        "com", "org", "net", "edu", "gov", "mil", "int", "info", "biz", "us", "uk", "ca", "de", "fr",
        "au", "in", "jp", "cn", "ru", "it", "nl", "es", "ch", "se", "no", "be", "at", "ie", "nz", "za",
        "br", "mx", "tv", "io", "co", "me", "ly", "cc", "ws", "eu", "asia", "mobi", "name", "pro"};
    return tlds.count(lower) > 0 || fileExtensions().count(lower) > 0;
}

// Letters after a number that stay attached ("9th", "1990s"); any other
// letters split off as a unit or word ("5 pm", "65 k", "2.7 m").
bool keepsNumberSuffix(const std::string &lower, bool singleUpper)
{
    if (lower == "st" || lower == "nd" || lower == "rd" || lower == "th" || lower == "s")
        return true;
    // Codes such as "18T" or "83N" stay whole; K, M, B, C, F are units.
    return singleUpper && lower != "k" && lower != "m" && lower != "b" && lower != "c" && lower != "f";
}

// Contractions written without an apostrophe, and EWT's other multiword
// tokens, mapped to the lengths of their words ("dont" -> "do" + "nt").
const std::unordered_map<std::string, std::vector<int>> &fusedWords()
{
    static const std::unordered_map<std::string, std::vector<int>> m = {
        {"gonna", {3, 2}}, {"gotta", {3, 2}}, {"wanna", {3, 2}}, {"outta", {3, 2}},
        {"cannot", {3, 3}}, {"dunno", {2, 1, 2}}, {"sorta", {4, 1}}, {"gimme", {3, 2}},
        {"lemme", {3, 2}}, {"dont", {2, 2}}, {"cant", {2, 2}}, {"wont", {2, 2}}, {"didnt", {3, 2}},
        {"doesnt", {4, 2}}, {"couldnt", {5, 2}}, {"wouldnt", {5, 2}}, {"shouldnt", {6, 2}},
        {"isnt", {2, 2}}, {"wasnt", {3, 2}}, {"arent", {3, 2}}, {"werent", {4, 2}},
        {"havent", {4, 2}}, {"hasnt", {3, 2}}, {"hadnt", {3, 2}}, {"aint", {2, 2}}, {"im", {1, 1}},
        {"ive", {1, 2}}, {"thats", {4, 1}}, {"theres", {5, 1}}, {"whats", {4, 1}}, {"youre", {3, 2}},
        {"theyre", {4, 2}}, {"youve", {3, 2}}, {"theyve", {4, 2}}, {"youll", {3, 2}},
        {"theyll", {4, 2}}, {"hes", {2, 1}}, {"shes", {3, 1}}, {"lets", {3, 1}}, {"elses", {4, 1}}};
    return m;
}

const WordSet &clitics()
{
    static const WordSet s = {"s", "re", "ve", "ll", "d", "m"};
    return s;
}

// Common sentence-initial words: "etc. The" ends a sentence, "U.S. Army"
// does not.
bool isCommonSentenceStarter(std::string_view w)
{
    static const WordSet s = {"The", "This", "That", "These", "Those", "It", "I", "We", "You", "He", "She",
                              "They", "There", "But", "And", "So", "If", "In", "On", "At", "As", "For",
                              "My", "Our", "Your", "His", "Her", "Their", "A", "An", "What", "When",
                              "Where", "Why", "How", "Please", "Thanks", "Thank", "Also", "However",
                              "Then", "Now", "Is", "Are", "Do", "Does", "Can", "Will", "Would", "Let"};
    return s.count(std::string(w)) > 0;
}

// ------------------------------------------------------------ scanner

struct RawToken {
    int begin = 0;
    int end = 0;
    bool joinPrev = false; ///< belongs to the same surface token as the previous word
    bool emoticon = false; ///< for the sentence splitter
};

char32_t decodeAt(std::string_view s, std::size_t pos, int &len)
{
    const auto b = static_cast<unsigned char>(s[pos]);
    if (b < 0x80) {
        len = 1;
        return b;
    }
    return decodeUtf8(s, pos, len);
}

class Scanner {
public:
    Scanner(std::string_view text, const TokenizerOptions &options) : m_text(text), m_opt(options) {}

    std::vector<RawToken> run()
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

private:
    // m_tail: the end of the last non-space character. EWT splits the period
    // off an abbreviation only when nothing follows it ("etc ." but "etc. )").
    void computeTail()
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

    // Whether the word after index k (in this chunk or the next) is a typical
    // sentence-initial word ("The", "I", "But").
    bool nextWordStartsSentence(int k) const
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
    bool itsIsContraction() const
    {
        static const WordSet next = {
            "a", "an", "the", "not", "really", "simply", "very", "all", "like", "still", "kind", "sort",
            "in", "now", "definitely", "for", "also", "only", "just", "been", "getting", "going", "gonna",
            "nothing", "your", "my", "called", "probably", "prolly", "always", "never", "too", "pretty",
            "quite", "actually", "ok", "okay", "because", "what", "how", "that", "this", "there", "at",
            "on", "to", "from", "between", "about", "is", "was", "so", "time"};
        std::size_t pos = m_chunkEndByte;
        while (pos < m_text.size() && (m_text[pos] == ' ' || m_text[pos] == '\t'))
            ++pos;
        std::string w;
        while (pos < m_text.size() && w.size() < 12 && isAsciiAlpha(static_cast<unsigned char>(m_text[pos]))) {
            const char ch = m_text[pos++];
            w.push_back(ch >= 'A' && ch <= 'Z' ? static_cast<char>(ch + 32) : ch);
        }
        const bool wordEnds = pos >= m_text.size() || !isAsciiAlpha(static_cast<unsigned char>(m_text[pos]));
        return wordEnds && next.count(w) > 0;
    }

    // First non-space code point after the current chunk, or 0.
    char32_t nextAfterChunk() const
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

    void scanChunk()
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

    bool startsWithLower(int i, const char *p) const
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

    static bool isUrlChar(char32_t c)
    {
        return c > 0x20 && c < 0x7F && c != '"' && c != '<' && c != '>' && c != '`' && c != '{'
            && c != '}' && c != '|' && c != '\\' && c != '^';
    }

    int matchUrl(int i) const
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

    static bool isEmailLocalChar(char32_t c)
    {
        return isAsciiAlnum(c) || c == '.' || c == '_' || c == '%' || c == '+' || c == '-';
    }

    int matchEmail(int i)
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
    int matchFileName(int i)
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

    int matchEmoticon(int i) const
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

    int matchTag(int i) const
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
    int matchExtension(int i) const
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

    int scanNumber(int i)
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

    bool isDate(int a, int b, int c, int d) const
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

    // --- words

    int scanWord(int i)
    {
        int j = i;
        int segStart = i;
        bool simple = true; // one run of letters, no connectors
        for (;;) {
            j = scanAlnum(j);
            if (j >= m_n)
                break;
            const char32_t x = at(j);
            if (isApostrophe(x) && isLetter(at(j + 1))) {
                const int k = scanLetters(j + 1);
                bool ok = false;
                const std::string tail = lowerAscii(j + 1, k, &ok);
                if (ok && !isWordChar(at(k)) && at(k) != '-' && !isApostrophe(at(k))) {
                    if (clitics().count(tail)) {
                        emitSplit(i, j, k);
                        return k;
                    }
                    const bool nt = j - 1 > i && (at(j - 1) == 'n' || at(j - 1) == 'N');
                    if (tail == "t" && nt) {
                        emitSplit(i, j - 1, k);
                        return k;
                    }
                    // "I'ma", "wasn'ta": EWT reads "I'm a", "wasn't a".
                    if (tail == "ma" || (tail == "ta" && nt)) {
                        emitSplit(i, tail == "ma" ? j : j - 1, k - 1);
                        emit(k - 1, k);
                        return k;
                    }
                }
                // An apostrophe inside a name: "O'Brien", "Shi'ite", "al-Qa'ida".
                simple = false;
                j = k;
                continue;
            }
            if (isApostrophe(x) && x != 0x2018 && x != '`' && !isWordChar(at(j + 1))
                && (at(j - 1) == 's' || at(j - 1) == 'S')) {
                // "taxpayers'" is a possessive unless a single quote is open.
                const bool open = x == '\'' ? m_openStraight > 0 : m_openCurly > 0;
                if (!open) {
                    emitSplit(i, j, j + 1);
                    return j + 1;
                }
                break;
            }
            if ((x == '\'' || x == 0x2019) && !isWordChar(at(j + 1)) && j - i >= 3 && at(j - 1) == 'n'
                && at(j - 2) == 'i' && (x == '\'' ? m_openStraight : m_openCurly) == 0) {
                emit(i, j + 1); // "lovin'", "nothin'"
                return j + 1;
            }
            if (x == '$' && isLetter(at(j - 1)) && !isDigit(at(j + 1))) {
                while (at(j) == '$') // "US$", and "me$$age" in spam
                    ++j;
                simple = false;
                continue;
            }
            if ((x == '-' || x == 0x2010 || x == 0x2011) && isWordChar(at(j + 1))) {
                bool ok = false;
                const std::string seg = lowerAscii(segStart, j, &ok);
                if (ok && hyphenPrefixes().count(seg)) {
                    simple = false;
                    segStart = ++j;
                    continue;
                }
                const int k = scanLetters(j + 1);
                const std::string next = lowerAscii(j + 1, k, &ok);
                if (ok && !isWordChar(at(k)) && (next == "wise" || next == "esque")) {
                    emit(i, k); // "career-wise"
                    return k;
                }
                break;
            }
            if (x == '.' && isWordChar(at(j + 1)) && segStart == i) {
                // Degrees: "Ph.D.", "M.Sc."
                const int k = scanLetters(j + 1);
                bool ok = false;
                const std::string dotted = lowerAscii(i, k, &ok);
                static const WordSet degrees = {"ph.d", "m.sc", "b.sc", "ed.d", "psy.d", "d.phil", "m.phil"};
                if (ok && degrees.count(dotted) && !isWordChar(at(k))) {
                    j = at(k) == '.' && !(m_opt.splitFinalAbbreviationPeriod && isSentenceFinal(k)) ? k + 1 : k;
                    emit(i, j);
                    return j;
                }
            }
            if (x == '.' && isWordChar(at(j + 1))) {
                const int k = matchDottedContinuation(i, segStart, j);
                if (k > j) {
                    simple = false;
                    if (at(k - 1) == '.') { // a letter-dot acronym consumed its period
                        j = k;
                        if (m_opt.splitFinalAbbreviationPeriod && isSentenceFinal(k - 1) && k - 1 > i + 1) {
                            emit(i, k - 1);
                            return k - 1;
                        }
                        emit(i, j);
                        return j;
                    }
                    segStart = j + 1;
                    j = k;
                    continue;
                }
                break;
            }
            if (x == '&' && isLetter(at(j + 1)) && isUpperLetter(at(j - 1)) && isUpperLetter(at(j + 1))) {
                simple = false; // "AT&T", "P&L"
                segStart = ++j;
                continue;
            }
            if (x == '&' && (at(j + 1) == 'l' || at(j + 1) == 'L') && j - i == 1) {
                simple = false; // "p&l"
                segStart = ++j;
                continue;
            }
            if (x == '/' && j - segStart == 1 && isLetter(at(j - 1)) && isLetter(at(j + 1))
                && !isWordChar(at(j + 2)) && at(j + 2) != '/') {
                simple = false; // "w/o", "L/C"
                j += 2;
                break;
            }
            if ((x == '_' || x == '*') && isWordChar(at(j + 1))) {
                simple = false; // "ENRON_DEVELOPMENT", "f*ck"
                segStart = ++j;
                continue;
            }
            if (x == '!' && lowerAscii(i, j) == "yahoo") {
                emit(i, j + 1);
                return j + 1;
            }
            break;
        }
        // A period after an abbreviation or an initial stays on the word.
        // "etc.." is "etc." + "."; three or more periods are an ellipsis.
        const bool single = at(j + 1) != '.' || (at(j + 2) != '.' && at(j + 1) == '.');
        if (at(j) == '.' && single && isAbbreviation(i, j, segStart)) {
            if (m_opt.splitFinalAbbreviationPeriod && isSentenceFinal(j)) {
                emit(i, j);
                return j;
            }
            emit(i, j + 1);
            return j + 1;
        }
        if (simple && m_opt.splitClitics && j - i <= 8) {
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

    // At a '.' inside a word (index j): returns the end of what continues the
    // word, or j when the period ends it. Handles "U.S.", "a.m.", "e.g."
    // (consuming the final period), "Amazon.com", "report.xls",
    // "comp.sources.unix" and "v2.0".
    int matchDottedContinuation(int i, int segStart, int j) const
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
        static const WordSet hierarchies = {"alt", "comp", "misc", "rec", "sci", "soc", "talk", "news",
                                            "ba", "humanities", "microsoft", "uk", "aus", "can"};
        if (lowerBefore && lowerNext
            && (followedByDot || segStart > i || hierarchies.count(lowerAscii(segStart, j))))
            return k;
        return j;
    }

    bool isAbbreviation(int i, int j, int segStart) const
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
        static const WordSet ordinaryWords = {"sat", "sun", "wed", "mar", "mon", "min", "max", "ill", "miss",
                                              "mass", "wash", "ore", "sec", "rec", "info", "ref", "la", "pa",
                                              "mo", "est", "dom", "co", "ca", "que", "fax", "spec", "para",
                                              "conf", "mob", "misc", "ps", "hr", "yr", "rd", "ave", "penn"};
        if (isUpperLetter(next) && ordinaryWords.count(w) && !isUpperLetter(at(i)))
            return false;
        return !(isUpperLetter(next) && nextWordStartsSentence(j + 1));
    }

    char32_t nextAfterChunkOrInChunk(int k) const { return k < m_n ? at(k) : nextAfterChunk(); }

    // --- quotes and punctuation

    int scanPunct(int i)
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
std::string_view capped(std::string_view text)
{
    return text.substr(0, std::min<std::size_t>(text.size(), static_cast<std::size_t>(INT_MAX)));
}

std::vector<RawToken> scan(std::string_view text, const TokenizerOptions &options)
{
    return Scanner(capped(text), options).run();
}

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
    static const WordSet s = {"etc.", "a.m.", "p.m.", "u.s.", "inc.", "ltd.", "co.", "corp.", "jr.", "sr.",
                              "u.k.", "d.c.", "u.s.a.", "l.l.c.", "e.t.c."};
    std::string lower;
    for (char c : tok)
        lower.push_back(c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c);
    return s.count(lower) > 0;
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

} // namespace treelens
