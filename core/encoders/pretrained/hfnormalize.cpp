// The normalised string with its alignments, the Unicode character classes and the
// normalizers of a Hugging Face tokenizer (see hftokenizerimpl.h). Unicode data
// comes from ICU; the decomposition and recomposition below follow the order and
// the (character, change) bookkeeping of the Rust crate the library uses
// (unicode-normalization-alignments), so that offsets after NFD/NFC match its own.
#include "core/encoders/pretrained/hftokenizerimpl.h"

#include <algorithm>
#include <tuple>

#include <unicode/normalizer2.h>
#include <unicode/uchar.h>
#include <unicode/unistr.h>
#include <unicode/ustring.h>
#include <unicode/utf16.h>

#include "core/base/utf8.h"

namespace treelens::hf {

// ---------------------------------------------------------------- NormString

NormString NormString::fromOriginal(const std::u32string &text)
{
    NormString s;
    s.chars = text;
    s.align.reserve(text.size());
    for (std::size_t i = 0; i < text.size(); ++i)
        s.align.emplace_back(static_cast<int>(i), static_cast<int>(i + 1));
    return s;
}

void NormString::transform(const std::vector<Change> &dest, std::size_t initialOffset)
{
    std::u32string newChars;
    std::vector<Align> newAlign;
    newChars.reserve(dest.size());
    newAlign.reserve(dest.size());
    const std::size_t n = chars.size();
    std::size_t old = std::min(initialOffset, n);   // characters of the old string consumed so far
    for (const auto &[c, change] : dest) {
        Align a{shift, shift};
        if (change > 0) {
            // An inserted character shares the alignment of the last one consumed.
            if (old >= 1 && n > 0)
                a = align[std::min(old, n) - 1];
        } else if (old < n) {
            a = align[old];
        } else if (n > 0) {
            a = align[n - 1];
        }
        if (change <= 0)
            old = std::min(n, old + 1 + static_cast<std::size_t>(change < 0 ? -static_cast<long long>(change) : 0));
        newChars.push_back(c);
        newAlign.push_back(a);
    }
    chars = std::move(newChars);
    align = std::move(newAlign);
}

NormString NormString::slice(std::size_t a, std::size_t b) const
{
    NormString s;
    b = std::min(b, chars.size());
    a = std::min(a, b);
    s.chars = chars.substr(a, b - a);
    s.align.assign(align.begin() + static_cast<std::ptrdiff_t>(a), align.begin() + static_cast<std::ptrdiff_t>(b));
    if (a < align.size())
        s.shift = align[a].first;
    else
        s.shift = align.empty() ? shift : align.back().second;
    return s;
}

void NormString::replace(const std::vector<Piece> &pieces, const std::u32string &content)
{
    std::u32string newChars;
    std::vector<Align> newAlign;
    newChars.reserve(chars.size());
    newAlign.reserve(align.size());
    for (const Piece &p : pieces) {
        const std::size_t a = std::min(p.start, chars.size()), b = std::min(p.end, chars.size());
        if (!p.match) {
            newChars.append(chars, a, b - a);
            newAlign.insert(newAlign.end(), align.begin() + static_cast<std::ptrdiff_t>(a),
                            align.begin() + static_cast<std::ptrdiff_t>(b));
            continue;
        }
        // The replacement is inserted after the matched characters are removed: it
        // shares the alignment of the character before it, the match's last one.
        const Align at = b > 0 ? align[b - 1] : Align{shift, shift};
        newChars += content;
        newAlign.insert(newAlign.end(), content.size(), at);
    }
    chars = std::move(newChars);
    align = std::move(newAlign);
}

void NormString::prepend(const std::u32string &text)
{
    if (chars.empty() || text.empty())
        return;
    // The library replaces the first character by the text's first character and
    // inserts the rest and the first character again: all share its alignment.
    chars.insert(0, text);
    align.insert(align.begin(), text.size(), align.front());
}

std::string NormString::utf8() const { return toUtf8(chars); }

// ---------------------------------------------------------------- Unicode

namespace {

bool validScalar(char32_t c) { return c <= 0x10FFFF && !(c >= 0xD800 && c <= 0xDFFF); }

std::uint32_t gcMask(char32_t c) { return validScalar(c) ? U_GET_GC_MASK(static_cast<UChar32>(c)) : U_GC_CN_MASK; }

/// Whether `c` was assigned by Unicode `major`.`minor`. The library's character
/// classes come from crates with older tables: unicode_categories (punctuation,
/// controls, non-spacing marks) has Unicode 8.0, unicode-normalization-alignments
/// (decompositions, combining classes, combining marks) Unicode 9.0. A character
/// assigned later is, to the library, in no category and without a decomposition.
bool assignedBy(char32_t c, int major, int minor)
{
    if (!validScalar(c))
        return false;
    UVersionInfo age;
    u_charAge(static_cast<UChar32>(c), age);
    return age[0] < major || (age[0] == major && age[1] <= minor);
}

/// Cc, Cf, Co as of Unicode 8.0 (unicode_categories' is_other; its table of Cn is empty,
/// so an unassigned code point is kept); \t \n \r count as whitespace instead.
bool isBertControl(char32_t c)
{
    if (c == U'\t' || c == U'\n' || c == U'\r')
        return false;
    const std::uint32_t m = gcMask(c);
    if (m & (U_GC_CC_MASK | U_GC_CO_MASK | U_GC_CS_MASK))
        return true;
    return (m & U_GC_CF_MASK) != 0 && assignedBy(c, 8, 0);
}

/// A non-spacing mark as of Unicode 8.0 (BertNormalizer's accent stripping).
bool isNonSpacingMark(char32_t c) { return (gcMask(c) & U_GC_MN_MASK) != 0 && assignedBy(c, 8, 0); }

/// A combining mark (Mn, Mc, Me) as of Unicode 9.0 (the StripAccents normalizer).
bool isCombiningMark(char32_t c) { return (gcMask(c) & U_GC_M_MASK) != 0 && assignedBy(c, 9, 0); }

bool isChineseChar(char32_t c)
{
    return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF) || (c >= 0x20000 && c <= 0x2A6DF) ||
           (c >= 0x2A700 && c <= 0x2B73F) || (c >= 0x2B740 && c <= 0x2B81F) || (c >= 0x2B920 && c <= 0x2CEAF) ||
           (c >= 0xF900 && c <= 0xFAFF) || (c >= 0x2F800 && c <= 0x2FA1F);
}

std::u32string fromUtf16(const UChar *s, int32_t n)
{
    std::u32string out;
    for (int32_t i = 0; i < n;) {
        UChar32 c;
        U16_NEXT(s, i, n, c);
        out.push_back(static_cast<char32_t>(c));
    }
    return out;
}

/// Full lower-case mapping of one character, without context (Rust's char::to_lowercase:
/// 'İ' -> "i̇", 'Σ' -> "σ").
void appendLower(char32_t c, std::u32string &out)
{
    if (c < 0x80) {
        out.push_back(c >= U'A' && c <= U'Z' ? c + 32 : c);
        return;
    }
    if (!validScalar(c)) {
        out.push_back(c);
        return;
    }
    UChar src[2];
    int32_t n = 0;
    U16_APPEND_UNSAFE(src, n, static_cast<UChar32>(c));
    UChar dst[16];
    UErrorCode status = U_ZERO_ERROR;
    const int32_t len = u_strToLower(dst, 16, src, n, "", &status);
    if (U_FAILURE(status) || len <= 0 || len > 16) {
        out.push_back(c);
        return;
    }
    out += fromUtf16(dst, len);
}

const icu::Normalizer2 *normalizerInstance(bool compat, bool compose)
{
    UErrorCode status = U_ZERO_ERROR;
    const icu::Normalizer2 *n = compat ? (compose ? icu::Normalizer2::getNFKCInstance(status)
                                                  : icu::Normalizer2::getNFKDInstance(status))
                                       : (compose ? icu::Normalizer2::getNFCInstance(status)
                                                  : icu::Normalizer2::getNFDInstance(status));
    return U_SUCCESS(status) ? n : nullptr;
}

std::uint8_t combiningClass(char32_t c) { return assignedBy(c, 9, 0) ? u_getCombiningClass(static_cast<UChar32>(c)) : 0; }

/// Canonical (or compatibility) decomposition with the crate's flags: the first
/// character of each decomposition replaces it (0), the others are inserted (1);
/// then each run of non-starters is stably sorted by combining class, flags and all.
std::vector<Change> decompose(const std::u32string &in, bool compat)
{
    const icu::Normalizer2 *norm = normalizerInstance(compat, false);
    std::vector<std::tuple<std::uint8_t, char32_t, int>> pending;
    std::vector<Change> out;
    out.reserve(in.size());
    auto flush = [&] {
        std::stable_sort(pending.begin(), pending.end(),
                         [](const auto &x, const auto &y) { return std::get<0>(x) < std::get<0>(y); });
        for (const auto &[ccc, ch, flag] : pending)
            out.emplace_back(ch, flag);
        pending.clear();
    };
    auto push = [&](char32_t d, bool first) {
        const std::uint8_t ccc = combiningClass(d);
        if (ccc == 0)
            flush();
        pending.emplace_back(ccc, d, first ? 0 : 1);
    };
    for (char32_t c : in) {
        icu::UnicodeString d;
        if (norm && assignedBy(c, 9, 0) && norm->getDecomposition(static_cast<UChar32>(c), d)) {
            const std::u32string parts = fromUtf16(d.getBuffer(), d.length());
            for (std::size_t i = 0; i < parts.size(); ++i)
                push(parts[i], i == 0);
        } else {
            push(c, true);
        }
    }
    flush();
    return out;
}

/// The crate's canonical recomposition over `decomposed`, with its change counts.
std::vector<Change> recompose(const std::vector<Change> &decomposed, bool compat)
{
    const icu::Normalizer2 *norm = normalizerInstance(compat, true);
    auto compose = [&](char32_t a, char32_t b) -> std::optional<char32_t> {
        if (!norm || !validScalar(a) || !validScalar(b))
            return std::nullopt;
        const UChar32 r = norm->composePair(static_cast<UChar32>(a), static_cast<UChar32>(b));
        if (r < 0 || !assignedBy(static_cast<char32_t>(r), 9, 0))
            return std::nullopt;
        return static_cast<char32_t>(r);
    };
    std::vector<Change> out, buffer;
    std::optional<Change> composee;
    std::optional<std::uint8_t> lastCcc;
    for (const Change &item : decomposed) {
        const char32_t ch = item.first;
        const std::uint8_t cls = combiningClass(ch);
        if (!composee) {
            if (cls != 0)
                out.push_back(item);
            else
                composee = item;
            continue;
        }
        const Change k = *composee;
        if (!lastCcc) {
            if (auto r = compose(k.first, ch)) {
                composee = Change{*r, k.second + item.second - 1};
                continue;
            }
            if (cls == 0) {
                out.push_back(k);
                composee = item;
                continue;
            }
            buffer.push_back(item);
            lastCcc = cls;
            continue;
        }
        if (*lastCcc >= cls) {
            // Blocked from the composee.
            if (cls == 0) {
                out.push_back(k);
                out.insert(out.end(), buffer.begin(), buffer.end());
                buffer.clear();
                composee = item;
                lastCcc.reset();
                continue;
            }
            buffer.push_back(item);
            lastCcc = cls;
            continue;
        }
        if (auto r = compose(k.first, ch)) {
            composee = Change{*r, k.second + item.second - 1};
            continue;
        }
        buffer.push_back(item);
        lastCcc = cls;
    }
    if (composee)
        out.push_back(*composee);
    out.insert(out.end(), buffer.begin(), buffer.end());
    return out;
}

template <class Keep>
void filter(NormString &s, Keep keep)
{
    std::vector<Change> transforms;
    transforms.reserve(s.chars.size());
    int removed = 0;
    std::size_t removedStart = 0;
    std::optional<char32_t> last;
    for (char32_t c : s.chars) {
        if (keep(c)) {
            if (last)
                transforms.emplace_back(*last, -removed);
            else
                removedStart = static_cast<std::size_t>(removed);
            last = c;
            removed = 0;
        } else {
            ++removed;
        }
    }
    if (last)
        transforms.emplace_back(*last, -removed);
    s.transform(transforms, removedStart);
}

void lowercase(NormString &s)
{
    std::vector<Change> transforms;
    transforms.reserve(s.chars.size());
    std::u32string lower;
    for (char32_t c : s.chars) {
        lower.clear();
        appendLower(c, lower);
        for (std::size_t i = 0; i < lower.size(); ++i)
            transforms.emplace_back(lower[i], i > 0 ? 1 : 0);
    }
    s.transform(transforms, 0);
}

void unicodeNormalize(NormString &s, bool compat, bool compose)
{
    std::vector<Change> d = decompose(s.chars, compat);
    if (compose)
        d = recompose(d, compat);
    s.transform(d, 0);
}

} // namespace

bool isWhitespace(char32_t c) { return validScalar(c) && u_isUWhiteSpace(static_cast<UChar32>(c)); }

bool isWordChar(char32_t c)
{
    if (!validScalar(c))
        return false;
    const auto u = static_cast<UChar32>(c);
    return u_hasBinaryProperty(u, UCHAR_ALPHABETIC) || (gcMask(c) & (U_GC_M_MASK | U_GC_ND_MASK | U_GC_PC_MASK)) != 0 ||
           u_hasBinaryProperty(u, UCHAR_JOIN_CONTROL);
}

bool isBertPunctuation(char32_t c)
{
    if (c < 0x80)
        return (c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) || (c >= 123 && c <= 126);
    return (gcMask(c) & U_GC_P_MASK) != 0 && assignedBy(c, 8, 0);
}

std::u32string toU32(const std::string &utf8)
{
    std::u32string out;
    out.reserve(utf8.size());
    for (std::size_t pos = 0; pos < utf8.size();) {
        int len = 1;
        out.push_back(decodeUtf8(utf8, pos, len));
        pos += static_cast<std::size_t>(std::max(1, len));
    }
    return out;
}

std::string toUtf8(const std::u32string &s)
{
    std::string out;
    out.reserve(s.size());
    for (char32_t c : s)
        appendUtf8(out, validScalar(c) ? c : char32_t{0xFFFD});
    return out;
}

// ---------------------------------------------------------------- Normalizers

void normalize(const NormalizerSpec &spec, NormString &s)
{
    using K = NormalizerSpec::Kind;
    switch (spec.kind) {
    case K::Bert: {
        if (spec.cleanText) {
            filter(s, [](char32_t c) { return !(c == 0 || c == 0xFFFD || isBertControl(c)); });
            std::vector<Change> map;
            map.reserve(s.chars.size());
            for (char32_t c : s.chars)
                map.emplace_back(isWhitespace(c) ? U' ' : c, 0);
            s.transform(map, 0);
        }
        if (spec.handleChineseChars) {
            std::vector<Change> t;
            t.reserve(s.chars.size());
            for (char32_t c : s.chars) {
                if (isChineseChar(c)) {
                    t.emplace_back(U' ', 0);
                    t.emplace_back(c, 1);
                    t.emplace_back(U' ', 1);
                } else {
                    t.emplace_back(c, 0);
                }
            }
            s.transform(t, 0);
        }
        if (spec.stripAccents.value_or(spec.lowercase)) {
            unicodeNormalize(s, false, false);
            filter(s, [](char32_t c) { return !isNonSpacingMark(c); });
        }
        if (spec.lowercase)
            lowercase(s);
        break;
    }
    case K::Lowercase:
        lowercase(s);
        break;
    case K::Nfd:
        unicodeNormalize(s, false, false);
        break;
    case K::Nfkd:
        unicodeNormalize(s, true, false);
        break;
    case K::Nfc:
        unicodeNormalize(s, false, true);
        break;
    case K::Nfkc:
        unicodeNormalize(s, true, true);
        break;
    case K::StripAccents:
        filter(s, [](char32_t c) { return !isCombiningMark(c); });
        break;
    case K::Prepend:
        s.prepend(spec.text);
        break;
    case K::Replace:
        s.replace(spec.pattern.findMatches(s.chars), spec.text);
        break;
    case K::Sequence:
        for (const auto &child : spec.children)
            normalize(child, s);
        break;
    }
}

std::string describeNormalizer(const NormalizerSpec &spec)
{
    using K = NormalizerSpec::Kind;
    switch (spec.kind) {
    case K::Bert: {
        std::string d = spec.lowercase ? "BertNormalizer lower-case" : "BertNormalizer cased";
        const bool strip = spec.stripAccents.value_or(spec.lowercase);
        if (strip != spec.lowercase)
            d += strip ? ", accents stripped" : ", accents kept";
        return d;
    }
    case K::Lowercase:
        return "Lowercase";
    case K::Nfd:
        return "NFD";
    case K::Nfkd:
        return "NFKD";
    case K::Nfc:
        return "NFC";
    case K::Nfkc:
        return "NFKC";
    case K::StripAccents:
        return "StripAccents";
    case K::Prepend:
        return "Prepend \"" + toUtf8(spec.text) + "\"";
    case K::Replace:
        return "Replace " + (spec.pattern.isRegex() ? std::string("a regex") : "\"" + spec.pattern.source() + "\"") + " by \"" +
               toUtf8(spec.text) + "\"";
    case K::Sequence: {
        std::string d;
        for (const auto &child : spec.children)
            d += (d.empty() ? "" : " + ") + describeNormalizer(child);
        return d.empty() ? "empty Sequence" : d;
    }
    }
    return {};
}

} // namespace treelens::hf
