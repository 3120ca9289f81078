// The pre-tokenizers of a Hugging Face tokenizer (see hftokenizerimpl.h): BERT's
// whitespace and punctuation split, Whitespace (\w+|[^\w\s]+), WhitespaceSplit, and
// GPT-2's ByteLevel (the regex through ICU, then every byte as a printable character).
#include "core/encoders/pretrained/hftokenizerimpl.h"

#include <array>
#include <memory>

#include <unicode/regex.h>
#include <unicode/unistr.h>

namespace treelens::hf {

namespace {

/// A piece of a string: characters [start, end), matched by the pattern or not.
struct Piece {
    std::size_t start, end;
    bool match;
};

/// Every character for which `pred` holds is a match of its own (the library's
/// Pattern for a char predicate).
template <class Pred>
std::vector<Piece> charMatches(const std::u32string &s, Pred pred)
{
    std::vector<Piece> out;
    std::size_t last = 0;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (!pred(s[i]))
            continue;
        if (last < i)
            out.push_back({last, i, false});
        out.push_back({i, i + 1, true});
        last = i + 1;
    }
    if (last < s.size())
        out.push_back({last, s.size(), false});
    return out;
}

enum class Behavior { Removed, Isolated };

std::vector<NormString> splitPieces(const NormString &s, const std::vector<Piece> &pieces, Behavior behavior)
{
    std::vector<NormString> out;
    for (const Piece &p : pieces)
        if (!(p.match && behavior == Behavior::Removed))
            out.push_back(s.slice(p.start, p.end));
    return out;
}

/// Replaces every split without tokens by what `fn` makes of it (empty pieces dropped).
template <class Fn>
void splitEach(std::vector<Split> &splits, Fn fn)
{
    forEachUntokenized(splits, [&](Split &split, std::vector<Split> &out) {
        for (NormString &piece : fn(split.text))
            if (!piece.empty())
                out.push_back(Split{std::move(piece), false, {}});
    });
}

/// \w+|[^\w\s]+ (Rust's regex classes): the matches are kept, the rest removed.
std::vector<Piece> whitespaceWords(const std::u32string &s)
{
    std::vector<Piece> out;
    std::size_t last = 0;
    for (std::size_t i = 0; i < s.size();) {
        const bool word = isWordChar(s[i]);
        if (!word && isWhitespace(s[i])) {
            ++i;
            continue;
        }
        std::size_t j = i + 1;
        while (j < s.size() && (word ? isWordChar(s[j]) : (!isWordChar(s[j]) && !isWhitespace(s[j]))))
            ++j;
        if (last < i)
            out.push_back({last, i, true});   // inverted: the gap is what is removed
        out.push_back({i, j, false});
        last = j;
        i = j;
    }
    if (last < s.size())
        out.push_back({last, s.size(), true});
    return out;
}

/// GPT-2's pattern, with Oniguruma's \s spelled as White_Space.
const icu::RegexPattern *gpt2Pattern()
{
    static const std::unique_ptr<icu::RegexPattern> pattern = [] {
        UErrorCode status = U_ZERO_ERROR;
        UParseError pe;
        const icu::UnicodeString re = icu::UnicodeString::fromUTF8(
            "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\p{White_Space}\\p{L}\\p{N}]+"
            "|\\p{White_Space}+(?![^\\p{White_Space}])|\\p{White_Space}+");
        std::unique_ptr<icu::RegexPattern> p(icu::RegexPattern::compile(re, 0, pe, status));
        if (U_FAILURE(status))
            p.reset();
        return p;
    }();
    return pattern.get();
}

std::vector<Piece> gpt2Matches(const std::u32string &s)
{
    std::vector<Piece> out;
    const icu::RegexPattern *pattern = gpt2Pattern();
    if (s.empty())
        return out;
    if (!pattern) {
        out.push_back({0, s.size(), false});
        return out;
    }
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
    std::unique_ptr<icu::RegexMatcher> m(pattern->matcher(text, status));
    if (U_FAILURE(status) || !m) {
        out.push_back({0, s.size(), false});
        return out;
    }
    m->setStackLimit(0, status);   // backtracking over a long run of spaces must not fail
    status = U_ZERO_ERROR;
    std::size_t last = 0;
    while (m->find(status) && U_SUCCESS(status)) {
        const int32_t b = m->start(status), e = m->end(status);
        if (U_FAILURE(status) || b < 0 || e < b || e > text.length())
            break;
        const std::size_t cb = charAt[static_cast<std::size_t>(b)], ce = charAt[static_cast<std::size_t>(e)];
        if (ce <= cb || cb < last)
            continue;
        if (last < cb)
            out.push_back({last, cb, false});
        out.push_back({cb, ce, true});
        last = ce;
    }
    if (last < s.size())
        out.push_back({last, s.size(), false});
    return out;
}

const std::array<char32_t, 256> &byteTable()
{
    static const std::array<char32_t, 256> table = [] {
        std::array<char32_t, 256> t{};
        char32_t n = 0;
        for (int b = 0; b < 256; ++b) {
            const bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
            t[static_cast<std::size_t>(b)] = printable ? static_cast<char32_t>(b) : 256 + n++;
        }
        return t;
    }();
    return table;
}

void byteLevel(const PreTokenizerSpec &spec, std::vector<Split> &splits)
{
    splitEach(splits, [&](NormString &s) {
        if (spec.addPrefixSpace && !s.chars.empty() && s.chars.front() != U' ') {
            std::vector<Change> t;
            t.reserve(s.chars.size() + 1);
            t.emplace_back(U' ', 0);
            t.emplace_back(s.chars.front(), 1);
            for (std::size_t i = 1; i < s.chars.size(); ++i)
                t.emplace_back(s.chars[i], 0);
            s.transform(t, 0);
        }
        if (!spec.useRegex)
            return std::vector<NormString>{s};
        return splitPieces(s, gpt2Matches(s.chars), Behavior::Isolated);
    });
    for (Split &split : splits) {
        if (split.hasTokens)
            continue;
        std::vector<Change> t;
        t.reserve(split.text.chars.size() * 2);
        const std::string bytes = split.text.utf8();
        std::size_t i = 0;
        for (char32_t c : split.text.chars) {
            (void)c;
            const std::size_t start = i;
            // One character of the normalised text: its UTF-8 bytes.
            do {
                t.emplace_back(byteLevelChar(static_cast<unsigned char>(bytes[i])), i > start ? 1 : 0);
                ++i;
            } while (i < bytes.size() && (static_cast<unsigned char>(bytes[i]) & 0xC0) == 0x80);
        }
        split.text.transform(t, 0);
    }
}

} // namespace

char32_t byteLevelChar(unsigned char b) { return byteTable()[b]; }

void preTokenize(const PreTokenizerSpec &spec, std::vector<Split> &splits)
{
    using K = PreTokenizerSpec::Kind;
    switch (spec.kind) {
    case K::Bert:
        splitEach(splits, [](NormString &s) {
            return splitPieces(s, charMatches(s.chars, isWhitespace), Behavior::Removed);
        });
        splitEach(splits, [](NormString &s) {
            return splitPieces(s, charMatches(s.chars, isBertPunctuation), Behavior::Isolated);
        });
        break;
    case K::WhitespaceSplit:
        splitEach(splits, [](NormString &s) {
            return splitPieces(s, charMatches(s.chars, isWhitespace), Behavior::Removed);
        });
        break;
    case K::Whitespace:
        splitEach(splits, [](NormString &s) { return splitPieces(s, whitespaceWords(s.chars), Behavior::Removed); });
        break;
    case K::ByteLevel:
        byteLevel(spec, splits);
        break;
    case K::Sequence:
        for (const auto &child : spec.children)
            preTokenize(child, splits);
        break;
    }
}

std::string describePreTokenizer(const PreTokenizerSpec &spec)
{
    using K = PreTokenizerSpec::Kind;
    switch (spec.kind) {
    case K::Bert:
        return "BertPreTokenizer";
    case K::Whitespace:
        return "Whitespace";
    case K::WhitespaceSplit:
        return "WhitespaceSplit";
    case K::ByteLevel:
        return spec.addPrefixSpace ? "ByteLevel with prefix space" : "ByteLevel";
    case K::Sequence: {
        std::string d;
        for (const auto &child : spec.children)
            d += (d.empty() ? "" : " + ") + describePreTokenizer(child);
        return d.empty() ? "empty Sequence" : d;
    }
    }
    return {};
}

} // namespace treelens::hf
