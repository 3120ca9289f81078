// The pre-tokenizers of a Hugging Face tokenizer (see hftokenizerimpl.h): BERT's
// whitespace and punctuation split, Whitespace (\w+|[^\w\s]+), WhitespaceSplit, and
// GPT-2's ByteLevel (its regex, then every byte as a printable character), Split on a
// pattern (hfregex.cpp) and Metaspace (spaces as "▁").
#include "core/encoders/pretrained/hftokenizerimpl.h"

#include <algorithm>
#include <array>

namespace treelens::hf {

namespace {

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

/// The pieces of a split (NormalizedString::split): what `behavior` makes of the matches
/// and the text between them, empty ones included (splitEach drops them).
std::vector<NormString> splitPieces(const NormString &s, const std::vector<Piece> &pieces, SplitBehavior behavior)
{
    using B = SplitBehavior;
    std::vector<Piece> kept;   // `match` now means "removed"
    kept.reserve(pieces.size());
    bool previousMatch = false;
    switch (behavior) {
    case B::Removed:
        kept = pieces;
        break;
    case B::Isolated:
        for (const Piece &p : pieces)
            kept.push_back({p.start, p.end, false});
        break;
    case B::Contiguous:
    case B::MergedWithPrevious:
        for (const Piece &p : pieces) {
            const bool join = behavior == B::Contiguous ? p.match == previousMatch : p.match && !previousMatch;
            if (join && !kept.empty())
                kept.back().end = p.end;
            else
                kept.push_back({p.start, p.end, false});
            previousMatch = p.match;
        }
        break;
    case B::MergedWithNext:
        for (auto it = pieces.rbegin(); it != pieces.rend(); ++it) {
            if (it->match && !previousMatch && !kept.empty())
                kept.back().start = it->start;
            else
                kept.push_back({it->start, it->end, false});
            previousMatch = it->match;
        }
        std::reverse(kept.begin(), kept.end());
        break;
    }
    std::vector<NormString> out;
    for (const Piece &p : kept)
        if (!p.match)
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
        return splitPieces(s, gpt2Pattern().findMatches(s.chars), SplitBehavior::Isolated);
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

/// The library's Split: the pattern's matches (the text between them when inverted),
/// then the behaviour.
void splitOnPattern(const PreTokenizerSpec &spec, std::vector<Split> &splits)
{
    splitEach(splits, [&](NormString &s) {
        std::vector<Piece> pieces = spec.pattern.findMatches(s.chars);
        if (spec.invert)
            for (Piece &p : pieces)
                p.match = !p.match;
        return splitPieces(s, pieces, spec.behavior);
    });
}

/// The library's Metaspace: every space becomes the replacement, one is put in front
/// (always, only in front of the text's first piece, or never; not twice), and with
/// `split` each replacement starts a piece of its own.
void metaspace(const PreTokenizerSpec &spec, std::vector<Split> &splits)
{
    const std::u32string rep(1, spec.replacement);
    splitEach(splits, [&](NormString &s) {
        s.replace(charMatches(s.chars, [](char32_t c) { return c == U' '; }), rep);
        using P = PreTokenizerSpec::Prepend;
        const bool front = spec.prependScheme == P::Always || (spec.prependScheme == P::First && s.shift == 0);
        if (front && !s.chars.empty() && s.chars.front() != spec.replacement)
            s.prepend(rep);
        if (!spec.split)
            return std::vector<NormString>{s};
        const char32_t r = spec.replacement;
        return splitPieces(s, charMatches(s.chars, [r](char32_t c) { return c == r; }), SplitBehavior::MergedWithNext);
    });
}

} // namespace

char32_t byteLevelChar(unsigned char b) { return byteTable()[b]; }

void preTokenize(const PreTokenizerSpec &spec, std::vector<Split> &splits)
{
    using K = PreTokenizerSpec::Kind;
    switch (spec.kind) {
    case K::Bert:
        splitEach(splits, [](NormString &s) {
            return splitPieces(s, charMatches(s.chars, isWhitespace), SplitBehavior::Removed);
        });
        splitEach(splits, [](NormString &s) {
            return splitPieces(s, charMatches(s.chars, isBertPunctuation), SplitBehavior::Isolated);
        });
        break;
    case K::WhitespaceSplit:
        splitEach(splits, [](NormString &s) {
            return splitPieces(s, charMatches(s.chars, isWhitespace), SplitBehavior::Removed);
        });
        break;
    case K::Whitespace:
        splitEach(splits, [](NormString &s) { return splitPieces(s, whitespaceWords(s.chars), SplitBehavior::Removed); });
        break;
    case K::ByteLevel:
        byteLevel(spec, splits);
        break;
    case K::Split:
        splitOnPattern(spec, splits);
        break;
    case K::Metaspace:
        metaspace(spec, splits);
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
    case K::Split:
        return spec.pattern.isRegex() ? "Split on a regex" : "Split on \"" + spec.pattern.source() + "\"";
    case K::Metaspace:
        return "Metaspace";
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
