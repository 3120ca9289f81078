// The patterns of a Hugging Face tokenizer (see hftokenizerimpl.h): a literal string, or
// a regular expression in the syntax the library compiles with Oniguruma (Ruby syntax,
// UTF-8), run by ICU's regex engine. Both engines backtrack and take the first
// alternative that matches (leftmost-first), and both know \p{L}, \p{N}, (?i:...),
// lookahead and {m,n}; where the two spell a class differently the pattern is
// translated first:
//   \s \S   Oniguruma: White_Space (Zs, Zl, Zp, \t-\r, U+0085); ICU: [\t\n\f\r\p{Z}]
//   \w \W   Oniguruma: Alphabetic, M, Nd, Pc (outside a class also ¹²³¼½¾);
//           ICU: Alphabetic, M, Nd, Pc, ZWJ, ZWNJ
//   \h \H   Oniguruma: a hex digit;                ICU: horizontal space
//   .       Ruby: all but \n, all with (?m) (ICU's (?s); ICU's `.` also takes \r\n as
//           one unit): written as a set
//   \p{^X}  Oniguruma's negation, ICU's \P{X}
//   [:punct:] Oniguruma: P and S; ICU: P.  [:xdigit:] Oniguruma: ASCII; ICU: any Nd too.
//   [:word:]  as \w
//   {,n}    Oniguruma's {0,n}
// and ICU runs in MULTILINE mode (Ruby's ^ and $ are per line) with UNIX_LINES (only \n
// ends a line, as in Ruby). \K \g \G \O \y \Y, which ICU would read otherwise, are
// refused by name; anything else ICU cannot compile is refused with ICU's reason.
#include "core/encoders/pretrained/hftokenizerimpl.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <unicode/regex.h>
#include <unicode/unistr.h>
#include <unicode/utypes.h>

namespace treelens::hf {

struct Pattern::Compiled {
    std::unique_ptr<icu::RegexPattern> pattern;
};

namespace {

/// ICU's time limit for one search, in its matcher's ticks (10,000 steps each, of the
/// order of a millisecond): only a pathological pattern gets near it.
constexpr int32_t kTimeLimit = 5000;
/// ICU's backtracking stack for one search (its default, 8 MB, ends a run of some
/// 200,000 spaces under GPT-2's \s+(?!\S)); bounded so that a pathological pattern
/// cannot take the machine's memory.
constexpr int32_t kStackLimit = 256 * 1024 * 1024;

bool isFlag(char c) { return c == 'i' || c == 'm' || c == 'x' || c == '-'; }

/// Whether Ruby's `.` matches \n, through the groups of a pattern: (?m) switches it on
/// to the end of the enclosing group, (?m:...) inside its own, (?-m) off.
struct DotAll {
    bool on = false;
    std::vector<bool> outer;   ///< the state to restore at each open group's ')'
};

/// `(?flags)` or `(?flags:` at `i` (pattern[i] == '('): written without Ruby's m, whose
/// effect is carried by `dot` instead; any other group opens as it is.
std::size_t translateGroup(const std::string &p, std::size_t i, DotAll &dot, std::string &out)
{
    std::size_t j = i + 2;
    while (j < p.size() && isFlag(p[j]))
        ++j;
    const bool flags = i + 1 < p.size() && p[i + 1] == '?' && j > i + 2 && j < p.size() && (p[j] == ')' || p[j] == ':');
    if (!flags) {
        dot.outer.push_back(dot.on);
        out += '(';
        return i + 1;
    }
    std::string on, off;
    bool negated = false, dotAll = dot.on;
    for (std::size_t k = i + 2; k < j; ++k) {
        if (p[k] == '-')
            negated = true;
        else if (p[k] == 'm')
            dotAll = !negated;
        else
            (negated ? off : on) += p[k];
    }
    const std::string spelled = on + (off.empty() ? "" : "-" + off);
    if (p[j] == ':') {
        dot.outer.push_back(dot.on);
        out += "(?" + spelled + ":";
    } else if (!spelled.empty()) {
        out += "(?" + spelled + ")";
    }
    dot.on = dotAll;
    return j + 1;
}

/// The escape at `i` (pattern[i] == '\\'), inside a character class or not.
/// An escape this translation does not take is named in `unsupported`.
std::size_t translateEscape(const std::string &p, std::size_t i, bool inClass, std::string &out, std::string &unsupported)
{
    if (i + 1 >= p.size()) {
        out += '\\';
        return i + 1;
    }
    const char d = p[i + 1];
    // Outside a class Oniguruma's \\w also takes the Latin-1 digits ¹ ² ³ and fractions ¼ ½ ¾.
    const char *word = inClass ? "\\p{Alphabetic}\\p{M}\\p{Nd}\\p{Pc}"
                               : "[\\p{Alphabetic}\\p{M}\\p{Nd}\\p{Pc}\\u00b2\\u00b3\\u00b9\\u00bc-\\u00be]";
    const char *hex = inClass ? "0-9a-fA-F" : "[0-9a-fA-F]";
    switch (d) {
    case 's':
        out += "\\p{White_Space}";
        break;
    case 'S':
        out += "\\P{White_Space}";
        break;
    case 'w':
        out += word;
        break;
    case 'W':
        out += inClass ? "[^\\p{Alphabetic}\\p{M}\\p{Nd}\\p{Pc}]" : "[^\\p{Alphabetic}\\p{M}\\p{Nd}\\p{Pc}\\u00b2\\u00b3\\u00b9\\u00bc-\\u00be]";
        break;
    case 'h':
        out += hex;
        break;
    case 'H':
        out += "[^0-9a-fA-F]";
        break;
    case 'p':
    case 'P':
        if (i + 3 < p.size() && p[i + 2] == '{' && p[i + 3] == '^') {
            out += d == 'p' ? "\\P{" : "\\p{";
            return i + 4;
        }
        out += p.substr(i, 2);
        break;
    case 'K':
    case 'g':
    case 'G':
    case 'O':
    case 'y':
    case 'Y':
        // Oniguruma gives these a meaning ICU reads otherwise (or as a plain letter).
        unsupported = p.substr(i, 2);
        break;
    default:
        out += p.substr(i, 2);   // the escaped character stays escaped (\\, \[, \n, \x, ...)
        break;
    }
    return i + 2;
}

/// A POSIX bracket ([:punct:], [:^xdigit:], ...) at `i` whose meaning differs: its
/// length in `p`, 0 for one ICU reads the same.
std::size_t translatePosix(const std::string &p, std::size_t i, std::string &out)
{
    static const std::pair<const char *, const char *> differing[] = {
        {"punct", "\\p{P}\\p{S}"}, {"xdigit", "0-9A-Fa-f"}, {"word", "\\p{Alphabetic}\\p{M}\\p{Nd}\\p{Pc}"}};
    for (const auto &[name, set] : differing) {
        for (const bool negated : {false, true}) {
            const std::string spelled = std::string(negated ? "[:^" : "[:") + name + ":]";
            if (p.compare(i, spelled.size(), spelled) != 0)
                continue;
            out += negated ? "[^" + std::string(set) + "]" : std::string(set);
            return spelled.size();
        }
    }
    return 0;
}

/// Oniguruma's pattern in ICU's spelling (see the top of this file); a construct it does
/// not take is named in `unsupported`.
std::string translate(const std::string &p, std::string &unsupported)
{
    std::string out;
    out.reserve(p.size() + 16);
    int classDepth = 0;
    DotAll dot;
    for (std::size_t i = 0; i < p.size();) {
        const char c = p[i];
        if (c == '\\') {
            i = translateEscape(p, i, classDepth > 0, out, unsupported);
            if (!unsupported.empty())
                return {};
            continue;
        }
        ++i;
        if (classDepth > 0 && c == '[' && p.compare(i, 1, ":") == 0) {
            if (const std::size_t n = translatePosix(p, i - 1, out)) {
                i += n - 1;
                continue;
            }
        }
        if (c == '[') {
            ++classDepth;
            out += c;
            // A ']' right after '[' or '[^' is a literal member.
            if (i < p.size() && p[i] == '^')
                out += p[i++];
            if (i < p.size() && p[i] == ']') {
                out += "\\]";
                ++i;
            }
        } else if (c == ']' && classDepth > 0) {
            --classDepth;
            out += c;
        } else if (classDepth > 0) {
            out += c;
        } else if (c == '(') {
            i = translateGroup(p, i - 1, dot, out);
        } else if (c == ')') {
            if (!dot.outer.empty()) {
                dot.on = dot.outer.back();
                dot.outer.pop_back();
            }
            out += c;
        } else if (c == '{' && i < p.size() && p[i] == ',') {
            out += "{0";   // Oniguruma's {,n} is {0,n}
        } else if (c == '.') {
            // A set, not ICU's `.`, which takes \r\n as one unit.
            out += dot.on ? "[\\x{0}-\\x{10FFFF}]" : "[^\\n]";
        } else {
            out += c;
        }
    }
    return out;
}

std::vector<Piece> withGaps(const std::vector<std::pair<std::size_t, std::size_t>> &matches, std::size_t n)
{
    std::vector<Piece> out;
    std::size_t last = 0;
    for (const auto &[a, b] : matches) {
        if (last < a)
            out.push_back({last, a, false});
        out.push_back({a, b, true});
        last = b;
    }
    if (last < n)
        out.push_back({last, n, false});
    return out;
}

std::vector<std::pair<std::size_t, std::size_t>> literalMatches(const std::u32string &s, const std::u32string &lit)
{
    std::vector<std::pair<std::size_t, std::size_t>> out;
    for (std::size_t at = s.find(lit); at != std::u32string::npos; at = s.find(lit, at + lit.size()))
        out.emplace_back(at, at + lit.size());
    return out;
}

/// The matches of `pattern` in `s` (code points), as the Rust crates' find_iter yields
/// them: each search starts where the last match ended; an empty match right at the end
/// of the previous match is skipped by searching again one character further.
std::vector<std::pair<std::size_t, std::size_t>> regexMatches(const icu::RegexPattern &pattern, const std::u32string &s)
{
    std::vector<std::pair<std::size_t, std::size_t>> out;
    icu::UnicodeString text;
    std::vector<std::size_t> charAt;   // UTF-16 index -> character index
    charAt.reserve(s.size() * 2 + 1);
    for (std::size_t i = 0; i < s.size(); ++i) {
        const char32_t c = s[i];
        const bool valid = c <= 0x10FFFF && !(c >= 0xD800 && c <= 0xDFFF);
        text.append(static_cast<UChar32>(valid ? c : 0xFFFD));
        while (charAt.size() < static_cast<std::size_t>(text.length()))
            charAt.push_back(i);
    }
    charAt.push_back(s.size());
    UErrorCode status = U_ZERO_ERROR;
    std::unique_ptr<icu::RegexMatcher> m(pattern.matcher(text, status));
    if (U_FAILURE(status) || !m)
        return out;
    m->setStackLimit(kStackLimit, status);
    m->setTimeLimit(kTimeLimit, status);
    if (U_FAILURE(status))
        return out;
    const int32_t length = text.length();
    int32_t from = 0, lastMatchEnd = -1;
    while (from <= length) {
        if (!m->find(from, status) || U_FAILURE(status))
            break;
        const int32_t b = m->start(status), e = m->end(status);
        if (U_FAILURE(status) || b < from || e < b || e > length)
            break;
        if (b == e && e == lastMatchEnd) {
            from += from < length ? U16_LENGTH(text.char32At(from)) : 1;
            continue;
        }
        from = e;
        lastMatchEnd = e;
        out.emplace_back(charAt[static_cast<std::size_t>(b)], charAt[static_cast<std::size_t>(e)]);
    }
    return out;
}

} // namespace

Result<Pattern> Pattern::literal(const std::string &text)
{
    if (text.empty())
        return makeError("", "an empty pattern is not supported by this build");
    Pattern p;
    p.m_source = text;
    p.m_literal = toU32(text);
    return p;
}

Result<Pattern> Pattern::regex(const std::string &onig)
{
    if (onig.empty())
        return makeError("", "an empty pattern is not supported by this build");
    UErrorCode status = U_ZERO_ERROR;
    UParseError pe{};
    std::string unsupported;
    const std::string icuPattern = translate(onig, unsupported);
    if (!unsupported.empty())
        return makeError("", unsupported + " is not supported by this build");
    const icu::UnicodeString re = icu::UnicodeString::fromUTF8(icuPattern);
    auto compiled = std::make_shared<Compiled>();
    compiled->pattern.reset(icu::RegexPattern::compile(re, UREGEX_MULTILINE | UREGEX_UNIX_LINES, pe, status));
    if (U_FAILURE(status) || !compiled->pattern)
        return makeError("", "the regular expression is not supported by this build (ICU: " + std::string(u_errorName(status)) + ")");
    Pattern p;
    p.m_source = onig;
    p.m_regex = std::move(compiled);
    return p;
}

std::vector<Piece> Pattern::findMatches(const std::u32string &s) const
{
    if (s.empty())
        return {};
    if (m_regex)
        return withGaps(regexMatches(*m_regex->pattern, s), s.size());
    if (m_literal.empty())
        return {{0, s.size(), false}};
    return withGaps(literalMatches(s, m_literal), s.size());
}

const Pattern &gpt2Pattern()
{
    static const Pattern pattern = [] {
        auto p = Pattern::regex("'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+");
        return p ? std::move(p).value() : Pattern();
    }();
    return pattern;
}

} // namespace treelens::hf
