#pragma once
/// \file hftokenizer.h
/// The tokenizer of a Hugging Face model folder, read and run as the `tokenizers`
/// library runs it (docs/pretrained-transformers.md): `tokenizer.json` when the folder
/// has one (normalizer, pre-tokenizer, WordPiece or BPE model, post-processor, added
/// tokens), else BERT's `vocab.txt` (+ `tokenizer_config.json`) with the rules of
/// `BertTokenizer` (lower-casing and accent stripping when `do_lower_case`, CJK and
/// punctuation split, greedy longest-match WordPiece). A component this build does
/// not implement is refused by name when the file is read, never skipped.
///
/// Offsets are code points into the text given to encode(), as the library's
/// Python binding reports them ([0,0] for the post-processor's special tokens).
/// Text that is not valid UTF-8 is read as utf8.h decodes it: each invalid byte is
/// one U+FFFD code point (so offsets still count one position per invalid byte, as
/// codePointByteOffsets() does). Character classes are ICU's, limited to the Unicode
/// versions of the library's own tables (punctuation, controls and non-spacing marks
/// as of Unicode 8.0, decompositions as of 9.0), so that newer characters split and
/// drop as they do there.
///
/// Implemented: normalizers BertNormalizer, Lowercase, NFD, NFC, NFKD, NFKC,
/// StripAccents, Prepend, Replace (String or Regex pattern), Sequence; pre-tokenizers
/// BertPreTokenizer, Whitespace, WhitespaceSplit, ByteLevel, Split (String or Regex
/// pattern, every behavior, invert), Metaspace (prepend_scheme always / first / never,
/// split), Sequence; models WordPiece and BPE (byte_fallback, fuse_unk, ignore_merges,
/// continuing_subword_prefix, end_of_word_suffix; no dropout); post-processors
/// TemplateProcessing, BertProcessing, RobertaProcessing, ByteLevel, Sequence; added
/// tokens with single_word, lstrip, rstrip and normalized. Regular expressions are
/// the library's (Oniguruma) syntax run by ICU's engine (hftokenizerimpl.h, Pattern).
/// Truncation, padding and the decoder are not applied.
/// Torch-free and Qt-free; the implementation (ICU, nlohmann::json) stays in the .cpp
/// files. An HfTokenizer is immutable: encode() may be called from several threads.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/base/result.h"

namespace treelens {

/// One encoded text or pair of texts: one entry per piece in each vector.
struct TokenEncoding {
    std::vector<std::int64_t> ids;
    std::vector<std::string> tokens;            ///< the pieces as the vocabulary spells them ("##ly", "Ġold")
    std::vector<std::pair<int, int>> offsets;   ///< [start, end) in code points of the original text, [0,0] for special tokens
    std::vector<int> typeIds;                   ///< token type (segment) ids as the post-processor sets them
    std::vector<int> sequence;                  ///< -1 special token of the post-processor, 0 first text, 1 second text
};

class HfTokenizer {
public:
    /// tokenizer.json when `dir` has one, else vocab.txt (+ tokenizer_config.json).
    static Result<HfTokenizer> fromFolder(const std::string &dir);
    /// A tokenizer.json's text; errors are "WHERE: field: what".
    static Result<HfTokenizer> fromJson(const std::string &jsonText, const std::string &where);
    /// BERT's vocab.txt (one token a line, the id is the line number) and the text of
    /// tokenizer_config.json ("" for none: do_lower_case true, strip_accents null,
    /// tokenize_chinese_chars true); errors name `where`.
    static Result<HfTokenizer> fromBertVocab(const std::string &vocabText, const std::string &configJson,
                                             const std::string &where);

    /// `text` with the post-processor's single-sequence template ([CLS] A [SEP], <s> A </s>).
    TokenEncoding encode(const std::string &text) const;
    /// `a` and `b` with the pair template ([CLS] A [SEP] B [SEP], <s> A </s></s> B </s>).
    TokenEncoding encodePair(const std::string &a, const std::string &b) const;

    /// The pieces of `enc` (an encoding of this tokenizer) as a person reads them, one
    /// string per piece: a byte-level piece as the bytes it stands for ("Ġold" -> " old",
    /// "Ã©" -> "é"), a space stand-in of Metaspace or of a Replace normalizer as the
    /// space ("▁The" -> " The"), byte-fallback tokens ("<0xE6>" "<0x9D>" "<0xB1>") as the
    /// character they make up together. A character whose bytes are spread over several
    /// pieces is shown on the piece holding its first byte; a piece that only continues
    /// it shows kContinuedPiece. Special and added tokens, and a piece whose bytes do not
    /// form whole characters with its neighbours, are shown as the vocabulary spells them.
    /// TokenEncoding::tokens stays the vocabulary's spelling.
    std::vector<std::string> readablePieces(const TokenEncoding &enc) const;
    /// What readablePieces shows for a piece that only continues the previous piece's
    /// character (U+00B7 MIDDLE DOT).
    static constexpr const char *kContinuedPiece = "\u00b7";

    /// Largest id + 1 (the model's vocabulary and the added tokens).
    std::int64_t vocabSize() const;
    /// The id of `token` (an added token first, then the model's vocabulary).
    std::optional<std::int64_t> tokenId(const std::string &token) const;
    /// The token of `id` as the vocabulary spells it (an added token first); "" for an unknown id.
    std::string tokenText(std::int64_t id) const;
    /// "WordPiece (BertNormalizer lower-case, BertPreTokenizer), 3,042 tokens".
    std::string describe() const;

    struct Impl;

private:
    explicit HfTokenizer(std::shared_ptr<const Impl> impl);
    std::shared_ptr<const Impl> m_impl;
};

/// The byte offset in `text` of each code point, and text.size() last (n + 1 entries
/// for n code points): code point offsets -> byte offsets. An invalid UTF-8 byte is
/// one code point, as in HfTokenizer.
std::vector<std::size_t> codePointByteOffsets(const std::string &text);

} // namespace treelens
