#pragma once
/// \file vocabulary.h
/// The one word vocabulary of every encoder family: tokens in id order, looked
/// up by one of the families' matching rules (as written, lower-cased, or in the
/// official Tree Transformer's normal form), and the Tree Transformer's text →
/// id rules: lower-case, every run of ASCII digits becomes "N", "[CLS]" first,
/// unknown words become "[UNK]". (The official code maps a word that is not in
/// its dictionary to the first BERT word piece of the word; TreeLens has no BERT
/// tokenizer and uses "[UNK]": see docs/tree-transformer.md.)

#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/base/result.h"

namespace treelens {

class Vocabulary {
public:
    /// How a word finds its token.
    enum class Match {
        Exact,      ///< as written
        Lowercase,  ///< lower-cased (ASCII): the Dependency-Transformer's and GGSA's rule
        Normalized, ///< normalize(): the Tree Transformer's rule
        AnyForm     ///< as written, else lower-cased, else normalised (the TAT's and recursive models' LM rule)
    };

    Vocabulary() = default;
    /// Tokens in id order; must be non-empty and free of duplicates ("<where>: ...").
    static Result<Vocabulary> fromTokens(std::vector<std::string> tokens, const std::string &where = "vocabulary");
    /// fromTokens() with the Tree Transformer's rules besides: no entry empty, and
    /// [PAD] [UNK] [MASK] [CLS] all present.
    static Result<Vocabulary> withSpecials(std::vector<std::string> tokens);
    /// A model file's token list as it stands: a token listed twice keeps its first id.
    static Vocabulary lenient(std::vector<std::string> tokens);
    /// The official dictionary.json: {"word": id, ...} with ids 0..n-1 each used once.
    static Result<Vocabulary> fromDictionaryJson(const std::string &json, const std::string &where);
    /// Newline-separated tokens (treelens.vocab metadata, vocab.txt).
    static Result<Vocabulary> fromLines(const std::string &text, const std::string &where);
    std::string toLines() const;

    int size() const { return static_cast<int>(m_tokens.size()); }
    const std::string &token(int id) const { return m_tokens[static_cast<std::size_t>(id)]; }
    const std::vector<std::string> &tokens() const { return m_tokens; }
    /// -1 when absent.
    int id(const std::string &token) const;
    /// The id of `word` under `match`, -1 when absent.
    int id(const std::string &word, Match match) const;
    /// The ids of `words` under `match`, `unkId` for a word that is absent.
    std::vector<std::int64_t> ids(const std::vector<std::string> &words, Match match, std::int64_t unkId) const;
    bool contains(const std::string &token) const { return id(token) >= 0; }

    /// The Tree Transformer's special tokens (withSpecials()); -1 in a vocabulary without them.
    int padId() const { return m_pad; }
    int unkId() const { return m_unk; }
    int maskId() const { return m_mask; }
    int clsId() const { return m_cls; }

    /// The official normalisation of one word: lower-case (ASCII), digit runs → "N".
    static std::string normalize(const std::string &word);
    /// [CLS] followed by the ids of the normalised words.
    std::vector<int> encode(const std::vector<std::string> &words) const;

private:
    std::vector<std::string> m_tokens;
    std::unordered_map<std::string, int> m_index;
    int m_pad = -1, m_unk = -1, m_mask = -1, m_cls = -1;
};

/// `specials`, then the normalised words (Vocabulary::normalize) of `sentences`
/// occurring at least minCount times, most frequent first (ties alphabetical), at
/// most maxSize entries in all; a word equal to a special or holding a newline is skipped.
std::vector<std::string> frequentWordTokens(const std::vector<const std::vector<std::string> *> &sentences,
                                            std::vector<std::string> specials, int maxSize, int minCount);

} // namespace treelens
