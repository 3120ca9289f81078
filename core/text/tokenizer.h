#pragma once
/// \file tokenizer.h
/// English tokenizer following UD English EWT / PTB conventions, and a
/// rule-based sentence splitter. Conventions (details and measured accuracy in
/// docs/tokenizer.md):
///  - clitics split off their host as separate words of one surface token:
///    "do n't", "ca n't", "wo n't", "John 's", "we 're", "I 'm", "kids '",
///    also with ’ and without apostrophe ("dont" -> "do nt"), and EWT's
///    "gon na", "wan na", "got ta", "can not";
///  - punctuation, quotes (" ' ` `` '' and curly ones) and brackets split off;
///  - hyphenated compounds split ("Al - Zaman", "long - term") except after
///    bound prefixes ("e-mail", "non-violent", "re-read") and inside phone
///    numbers ("713-853-3989");
///  - abbreviations keep their period ("Mr.", "U.S.", "etc.", "a.m."), except
///    at the very end of a sentence, where EWT splits it off ("etc" ".");
///  - numbers ("1,000.50", "10:30", "11/20/2000", "555-1234"), URLs, e-mail
///    addresses, emoticons, @mentions and #hashtags stay whole; currency
///    symbols, "%" and units split off ("$ 5", "5 %", "5 pm").
/// Hand-written scanning, linear in the input; any byte string is accepted.
/// Pure functions of their input: thread-safe.

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/data/sentence.h"
#include "core/data/token.h"

namespace treelens {

/// Switches for the conventions that differ between UD treebanks.
struct TokenizerOptions {
    /// Split clitics into separate words ("don't" -> "do" "n't"). When off,
    /// every surface token is one word.
    bool splitClitics = true;
    /// Split the period off an abbreviation that ends the sentence
    /// ("etc." -> "etc" "."), as UD English EWT does.
    bool splitFinalAbbreviationPeriod = true;
};

/// A token as written: one or more words with nothing between them that UD
/// writes as one multiword token ("don't" covers the words "do" and "n't").
struct SurfaceToken {
    int charStart = 0; ///< byte offset, half-open [charStart, charEnd)
    int charEnd = 0;
    int firstWord = 0; ///< 0-based index of the first word it covers
    int lastWord = 0;  ///< 0-based index of the last word it covers (inclusive)
};

/// Words of one sentence plus the surface tokens that group them.
struct Tokenization {
    std::vector<Token> words;
    std::vector<SurfaceToken> surface; ///< in order, covering every word once
};

class Tokenizer {
public:
    Tokenizer() = default;
    explicit Tokenizer(TokenizerOptions options) : m_options(options) {}

    const TokenizerOptions &options() const { return m_options; }

    /// Tokenizes one sentence. Token::charStart/charEnd are byte offsets into
    /// `text`; Token::text is the surface string of the token. Expects valid
    /// UTF-8 (see utf8.h); invalid bytes are treated as symbols, never crash.
    /// Offsets are ints, so text past 2 GiB is ignored.
    std::vector<Token> tokenize(std::string_view text) const;

    /// tokenize() plus the grouping of words into surface tokens.
    Tokenization tokenizeDetailed(std::string_view text) const;

    /// Splits running text into sentences (byte ranges into `text`, half-open).
    /// Ranges exclude surrounding whitespace; blank lines always end a sentence.
    std::vector<std::pair<int, int>> splitSentences(std::string_view text) const;

    /// splitSentences + tokenize. Each Sentence gets text (trimmed), tokens with
    /// offsets relative to its own text, and id "s1", "s2", ... Words that share
    /// a surface token are also recorded as Sentence::multiwordTokens, and
    /// "SpaceAfter=No" is set in MISC (of the word or of its multiword token) so
    /// the sentence writes as valid CoNLL-U.
    std::vector<Sentence> splitAndTokenize(std::string_view text) const;

private:
    TokenizerOptions m_options;
};

/// Sets "SpaceAfter=No" in the MISC of every word that is not followed by
/// white space (or the end) in `text`, from the words' byte offsets (charStart,
/// charEnd into `text`; words without offsets are left alone). Other MISC
/// attributes are kept. This is UD English EWT's convention for words that
/// share a surface token ("do" SpaceAfter=No "n't"), so "# text" can be rebuilt
/// from the word forms.
void markSpaceAfter(std::vector<Token> &words, std::string_view text);

} // namespace treelens
