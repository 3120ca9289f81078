// lemmarules: UDPipe-style lemma rules (see lemmarules.h).
#include "core/parsing/lemmarules.h"

#include <algorithm>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/utf8.h"

namespace treelens {

namespace {

using Chars = std::vector<char32_t>;

/// Latin Extended-A comes in (upper, lower) pairs starting at an even code
/// point, except U+0139..U+0148 and U+0179..U+017E (pairs start at odd ones).
bool evenIsUpper(char32_t c)
{
    return !((c >= 0x139 && c <= 0x148) || (c >= 0x179 && c <= 0x17E));
}

/// The lower-case letter of `c`, or 0 when `c` is not an upper-case letter.
char32_t lowerOf(char32_t c)
{
    if (c >= U'A' && c <= U'Z')
        return c + 32;
    if ((c >= 0xC0 && c <= 0xDE && c != 0xD7) || (c >= 0x391 && c <= 0x3AB && c != 0x3A2) || (c >= 0x410 && c <= 0x42F))
        return c + 32;
    if (c >= 0x400 && c <= 0x40F)
        return c + 80;
    if (c >= 0x100 && c <= 0x17F && c != 0x130 && c != 0x131 && c != 0x138 && c != 0x149 && c != 0x17F) {
        if (c == 0x178)
            return 0xFF; // Ÿ
        return evenIsUpper(c) == (c % 2 == 0) ? c + 1 : 0;
    }
    return 0;
}

/// The upper-case letter of `c`, or 0 when `c` is not a lower-case letter.
char32_t upperOf(char32_t c)
{
    if (c >= U'a' && c <= U'z')
        return c - 32;
    if ((c >= 0xE0 && c <= 0xFE && c != 0xF7) || (c >= 0x3B1 && c <= 0x3CB && c != 0x3C2) || (c >= 0x430 && c <= 0x44F))
        return c - 32;
    if (c >= 0x450 && c <= 0x45F)
        return c - 80;
    if (c == 0xFF)
        return 0x178;
    if (c > 0x100 && c <= 0x17E && c != 0x131 && c != 0x138 && c != 0x149) {
        return evenIsUpper(c) == (c % 2 == 1) ? c - 1 : 0;
    }
    return 0;
}

Chars decode(std::string_view s)
{
    Chars out;
    for (std::size_t i = 0; i < s.size();) {
        int len = 1;
        out.push_back(decodeUtf8(s, i, len));
        i += static_cast<std::size_t>(len > 0 ? len : 1);
    }
    return out;
}

std::string encode(const Chars &cs, std::size_t from = 0, std::size_t to = std::string::npos)
{
    std::string out;
    for (std::size_t i = from; i < cs.size() && i < to; ++i)
        appendUtf8(out, cs[i]);
    return out;
}

Chars lowered(Chars cs)
{
    for (auto &c : cs)
        if (const char32_t l = lowerOf(c))
            c = l;
    return cs;
}

/// The casing part of a rule (see the header).
std::string casingOf(const Chars &lemma)
{
    std::string out;
    char current = 0;
    const long n = static_cast<long>(lemma.size());
    for (long i = 0; i < n; ++i) {
        const char32_t c = lemma[static_cast<std::size_t>(i)];
        const char kind = lowerOf(c) ? 'u' : upperOf(c) ? 'l' : 0;
        if (!kind || kind == current)
            continue;
        if (!out.empty())
            out += ',';
        out += kind;
        out += std::to_string(current == 0 ? 0 : (i <= n / 2 ? i : i - n));
        current = kind;
    }
    return out.empty() ? "l0" : out;
}

bool applyCasing(const std::string &casing, Chars &lemma)
{
    struct Run {
        bool upper;
        long start;
    };
    std::vector<Run> runs;
    const long n = static_cast<long>(lemma.size());
    std::size_t pos = 0;
    while (pos < casing.size()) {
        const char kind = casing[pos];
        if (kind != 'u' && kind != 'l')
            return false;
        const std::size_t end = casing.find(',', pos);
        long at = 0;
        try {
            at = std::stol(casing.substr(pos + 1, end == std::string::npos ? std::string::npos : end - pos - 1));
        } catch (...) {
            return false;
        }
        at = at < 0 ? std::max(0L, n + at) : std::min(at, n);
        runs.push_back({kind == 'u', at});
        pos = end == std::string::npos ? casing.size() : end + 1;
    }
    for (std::size_t r = 0; r < runs.size(); ++r) {
        const long to = r + 1 < runs.size() ? runs[r + 1].start : n;
        for (long i = runs[r].start; i < to; ++i) {
            char32_t &c = lemma[static_cast<std::size_t>(i)];
            if (const char32_t m = runs[r].upper ? upperOf(c) : lowerOf(c))
                c = m;
        }
    }
    return true;
}

bool readNumber(const std::string &s, std::size_t &pos, std::size_t &value)
{
    const std::size_t start = pos;
    value = 0;
    while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9' && pos - start < 6)
        value = value * 10 + static_cast<std::size_t>(s[pos++] - '0');
    return pos > start && pos < s.size() && s[pos++] == ',';
}

} // namespace

std::string lowerCaseWord(const std::string &form)
{
    return encode(lowered(decode(form)));
}

std::string deriveLemmaRule(const std::string &formText, const std::string &lemmaText)
{
    const Chars lemmaCased = decode(lemmaText);
    const Chars form = lowered(decode(formText)), lemma = lowered(lemmaCased);
    std::size_t best = 0, atForm = 0, atLemma = 0;
    for (std::size_t l = 0; l < lemma.size(); ++l)
        for (std::size_t f = 0; f < form.size(); ++f) {
            std::size_t k = 0;
            while (f + k < form.size() && l + k < lemma.size() && form[f + k] == lemma[l + k])
                ++k;
            if (k > best) {
                best = k;
                atForm = f;
                atLemma = l;
            }
        }
    std::string rule = casingOf(lemmaCased) + ";";
    if (best == 0)
        return rule + "w" + encode(lemma);
    const std::string prefix = encode(lemma, 0, atLemma);
    rule += "e" + std::to_string(atForm) + "," + std::to_string(form.size() - atForm - best) + "," +
            std::to_string(prefix.size()) + "," + prefix + encode(lemma, atLemma + best);
    return rule;
}

std::optional<std::string> applyLemmaRule(const std::string &rule, const std::string &formText)
{
    const std::size_t semi = rule.find(';');
    if (semi == std::string::npos || semi + 1 >= rule.size())
        return std::nullopt;
    const std::string casing = rule.substr(0, semi);
    Chars lemma;
    if (rule[semi + 1] == 'w') {
        lemma = decode(std::string_view(rule).substr(semi + 2));
    } else if (rule[semi + 1] == 'e') {
        std::size_t pos = semi + 2, np = 0, ns = 0, k = 0;
        if (!readNumber(rule, pos, np) || !readNumber(rule, pos, ns) || !readNumber(rule, pos, k))
            return std::nullopt;
        if (pos + k > rule.size())
            return std::nullopt;
        const Chars form = lowered(decode(formText));
        if (np + ns >= form.size())
            return std::nullopt; // the edit would remove the whole word
        lemma = decode(std::string_view(rule).substr(pos, k));
        lemma.insert(lemma.end(), form.begin() + static_cast<long>(np), form.end() - static_cast<long>(ns));
        const Chars suffix = decode(std::string_view(rule).substr(pos + k));
        lemma.insert(lemma.end(), suffix.begin(), suffix.end());
    } else {
        return std::nullopt;
    }
    if (lemma.empty() || !applyCasing(casing, lemma))
        return std::nullopt;
    return encode(lemma);
}

} // namespace treelens
