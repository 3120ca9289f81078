#pragma once
/// \file hftokenizerimpl.h
/// Internal to hftokenizer*.cpp and hfnormalize.cpp: the pieces of a Hugging Face
/// tokenizer as the `tokenizers` library models them. A NormString is the library's
/// NormalizedString at code-point granularity: the normalised characters, each with
/// the [start, end) code points of the original text it came from. Every operation
/// reproduces the library's alignment rules (a replacing character keeps the
/// alignment of the character it replaces, an inserted one takes that of the last
/// character consumed), so offsets come out as the library reports them.

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/encoders/pretrained/hftokenizer.h"

namespace treelens::hf {

using Align = std::pair<int, int>;

/// One (character, change) of a transformation: change 0 replaces the next
/// character, 1 inserts one, -N replaces the next one and removes N after it.
using Change = std::pair<char32_t, int>;

/// A part of a string: characters [start, end), a match of a pattern or the text between two.
struct Piece {
    std::size_t start, end;
    bool match;
};

struct NormString {
    std::u32string chars;         ///< the normalised text
    std::vector<Align> align;     ///< per character: code points of the original text
    int shift = 0;                ///< where this piece starts in the original text

    static NormString fromOriginal(const std::u32string &text);
    bool empty() const { return chars.empty(); }
    /// The library's NormalizedString::transform over the whole string.
    void transform(const std::vector<Change> &dest, std::size_t initialOffset);
    /// Characters [a, b) as a piece of their own (NormalizedString::slice).
    NormString slice(std::size_t a, std::size_t b) const;
    /// NormalizedString::replace: each match of `pieces` (from Pattern::findMatches)
    /// becomes `content`, every new character aligned with the last character it
    /// replaces (with the one before an empty match).
    void replace(const std::vector<Piece> &pieces, const std::u32string &content);
    /// NormalizedString::prepend: `text` in front, every character of it aligned with
    /// the first character (nothing happens to an empty string).
    void prepend(const std::u32string &text);
    std::string utf8() const;
};

/// The pattern of a Split pre-tokenizer or a Replace normalizer (hfregex.cpp): a
/// literal string, or a regular expression in the library's syntax (Oniguruma's, as
/// its Rust crate compiles it) run by ICU's engine after a translation of the classes
/// whose meaning differs (\s, \w, \h, `.`, (?m), POSIX brackets; see hfregex.cpp).
/// Immutable; findMatches may be called from several threads. A default Pattern
/// matches nothing.
class Pattern {
public:
    Pattern() = default;
    /// `text` matched as it is. Errors (the reason only, no location): an empty text.
    static Result<Pattern> literal(const std::string &text);
    /// A regular expression. Errors (the reason only): a construct the translation does
    /// not take, named, or ICU's reason when ICU cannot compile it.
    static Result<Pattern> regex(const std::string &onig);
    /// The library's Pattern::find_matches: the matches in order (non-overlapping,
    /// leftmost-first; an empty match right after another match is skipped as the
    /// Rust crates do) and the text between them, covering `s`; nothing for "".
    /// A regular expression that runs into ICU's time or memory limit leaves the
    /// rest of `s` unmatched.
    std::vector<Piece> findMatches(const std::u32string &s) const;
    const std::string &source() const { return m_source; }
    bool isRegex() const { return m_regex != nullptr; }

    struct Compiled;

private:
    std::string m_source;
    std::u32string m_literal;
    std::shared_ptr<const Compiled> m_regex;
};

/// The pattern (\s: Unicode White_Space) of GPT-2's ByteLevel pre-tokenizer, compiled once.
const Pattern &gpt2Pattern();

/// A piece of the text: either still to tokenize or already tokens (an added token).
struct Token {
    std::int64_t id = 0;
    std::string value;
    std::size_t start = 0, end = 0;   ///< bytes of the piece's UTF-8 normalised text
};

struct Split {
    NormString text;
    bool hasTokens = false;
    std::vector<Token> tokens;
};

/// Replaces every split not yet made into tokens by what `fn(split, out)` appends to `out`;
/// a split with tokens (an added token) is kept as it is.
template <class Fn>
void forEachUntokenized(std::vector<Split> &splits, Fn fn)
{
    std::vector<Split> out;
    out.reserve(splits.size());
    for (Split &split : splits) {
        if (split.hasTokens)
            out.push_back(std::move(split));
        else
            fn(split, out);
    }
    splits = std::move(out);
}

// ---- Unicode (hfnormalize.cpp, ICU) ----
bool isWhitespace(char32_t c);         ///< Rust's char::is_whitespace (White_Space)
bool isWordChar(char32_t c);           ///< Rust regex \w (Alphabetic, M, Nd, Pc, Join_Control)
bool isBertPunctuation(char32_t c);    ///< ASCII punctuation or a P* category (as of Unicode 8.0)
std::u32string toU32(const std::string &utf8);   ///< invalid bytes -> U+FFFD, one per byte
std::string toUtf8(const std::u32string &s);

// ---- Normalizers (hfnormalize.cpp) ----
struct NormalizerSpec {
    enum class Kind { Bert, Lowercase, Nfd, Nfkd, Nfc, Nfkc, StripAccents, Prepend, Replace, Sequence };
    Kind kind = Kind::Bert;
    bool cleanText = true, handleChineseChars = true, lowercase = true;
    std::optional<bool> stripAccents;
    std::u32string text;   ///< Prepend: what is put in front; Replace: the replacement
    Pattern pattern;       ///< Replace: what is replaced
    std::vector<NormalizerSpec> children;
};
void normalize(const NormalizerSpec &spec, NormString &s);
std::string describeNormalizer(const NormalizerSpec &spec);

// ---- Pre-tokenizers (hfpretokenize.cpp) ----
/// What Split does with a match (the library's SplitDelimiterBehavior).
enum class SplitBehavior { Removed, Isolated, MergedWithPrevious, MergedWithNext, Contiguous };

struct PreTokenizerSpec {
    enum class Kind { Bert, Whitespace, WhitespaceSplit, ByteLevel, Split, Metaspace, Sequence };
    /// Metaspace: where the replacement goes in front of a piece (the library's PrependScheme).
    enum class Prepend { Always, First, Never };
    Kind kind = Kind::Bert;
    bool addPrefixSpace = true, useRegex = true;
    Pattern pattern;                                     ///< Split
    SplitBehavior behavior = SplitBehavior::Isolated;    ///< Split
    bool invert = false;                                 ///< Split: the text between matches is what splits
    char32_t replacement = U'\u2581';                    ///< Metaspace: what a space becomes
    Prepend prependScheme = Prepend::Always;             ///< Metaspace
    bool split = true;                                   ///< Metaspace: a piece per replacement (merged with what follows)
    std::vector<PreTokenizerSpec> children;
};
void preTokenize(const PreTokenizerSpec &spec, std::vector<Split> &splits);
std::string describePreTokenizer(const PreTokenizerSpec &spec);
/// GPT-2's byte -> character table (ByteLevel).
char32_t byteLevelChar(unsigned char b);

// ---- Models (hfmodels.cpp) ----
using Vocab = std::unordered_map<std::string, std::int64_t>;

struct WordPieceModel {
    Vocab vocab;
    std::string unkToken = "[UNK]";
    std::int64_t unkId = 0;
    std::string prefix = "##";
    std::size_t maxInputCharsPerWord = 100;
    std::size_t longest = 0;   ///< bytes of the longest vocabulary entry (set by Impl::finish)
    std::vector<Token> tokenize(const std::string &word) const;
};

struct BpeModel {
    Vocab vocab;
    std::unordered_map<std::int64_t, std::string> tokenOf;   ///< id -> token
    struct Merge {
        std::uint32_t rank;
        std::int64_t newId;
    };
    std::unordered_map<std::uint64_t, Merge> merges;       ///< (left id, right id) -> rank, merged id
    std::optional<std::string> unkToken;
    std::int64_t unkId = -1;
    std::string prefix, suffix;                            ///< continuing_subword_prefix, end_of_word_suffix
    bool fuseUnk = false, ignoreMerges = false;
    /// byte_fallback: the id of "<0xXX>" for each byte, -1 where the vocabulary lacks it
    /// (empty when byte_fallback is false).
    std::vector<std::int64_t> byteIds;
    static std::uint64_t key(std::int64_t a, std::int64_t b)
    {
        return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(a)) << 32) | static_cast<std::uint32_t>(b);
    }
    std::vector<Token> tokenize(const std::string &word) const;
    /// Whether every byte of `symbol` has its "<0xXX>" token (false without byte_fallback).
    bool byteFallbackFits(const std::string &symbol) const;
};

// ---- Post-processors (hftokenizer.cpp) ----
struct SpecialTokenSpec {
    std::vector<std::int64_t> ids;
    std::vector<std::string> tokens;
};
struct TemplatePiece {
    bool special = false;
    std::string id;   ///< "A"/"B" for a sequence, the special token's name otherwise
    int typeId = 0;
};
struct PostProcessorSpec {
    enum class Kind { Template, Bert, Roberta, ByteLevel, Sequence };
    Kind kind = Kind::Template;
    std::vector<TemplatePiece> single, pair;
    std::map<std::string, SpecialTokenSpec> specialTokens;
    std::pair<std::string, std::int64_t> cls, sep;
    bool trimOffsets = true, addPrefixSpace = true;
    std::vector<PostProcessorSpec> children;
};

struct AddedToken {
    std::string content, pattern;   ///< pattern: what is matched (content, normalised when `normalized`)
    std::int64_t id = 0;
    bool singleWord = false, lstrip = false, rstrip = false, normalized = false, special = false;
};

/// Leftmost-longest matching of the added tokens (a byte trie).
struct AddedMatcher {
    struct Node {
        std::map<unsigned char, int> next;
        int token = -1;
    };
    std::vector<Node> nodes;
    void add(const std::string &pattern, int token);
    bool empty() const { return nodes.size() <= 1; }
};

} // namespace treelens::hf

namespace treelens {

struct HfTokenizer::Impl {
    enum class ModelKind { WordPiece, Bpe };
    std::optional<hf::NormalizerSpec> normalizer;
    std::optional<hf::PreTokenizerSpec> preTokenizer;
    ModelKind modelKind = ModelKind::WordPiece;
    hf::WordPieceModel wordPiece;
    hf::BpeModel bpe;
    std::optional<hf::PostProcessorSpec> postProcessor;
    std::vector<hf::AddedToken> added;
    std::unordered_map<std::string, std::int64_t> addedIds;
    hf::AddedMatcher rawMatcher, normalizedMatcher;
    std::int64_t vocabSize = 0;
    std::string source;   ///< "tokenizer.json" or "vocab.txt"

    const hf::Vocab &vocab() const { return modelKind == ModelKind::WordPiece ? wordPiece.vocab : bpe.vocab; }
    /// Splits, normalises, pre-tokenises and tokenises one text (no special tokens).
    TokenEncoding encodeText(const std::string &text, int sequence) const;
    TokenEncoding postProcess(std::vector<TokenEncoding> encodings) const;
    /// Builds the matchers and the vocabulary size once everything is read.
    void finish();
};

namespace hf {
/// hftokenizerjson.cpp: a tokenizer.json's text, and BERT's vocab.txt with the text of
/// tokenizer_config.json ("" for none).
Result<std::shared_ptr<HfTokenizer::Impl>> readTokenizerJson(const std::string &text, const std::string &where);
Result<std::shared_ptr<HfTokenizer::Impl>> readBertVocab(const std::string &vocabText, const std::string &configJson,
                                                         const std::string &where);
} // namespace hf

} // namespace treelens
