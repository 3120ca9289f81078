#pragma once
/// \file tokenizer.h
/// English tokenizer following UD English / PTB conventions (clitics split as
/// "do n't", "John 's", "we 're"; punctuation and quotes split off; hyphenated
/// words kept whole; abbreviations such as "Mr." and "U.S." kept with their
/// period; numbers, URLs, e-mail addresses and emoticons kept whole) and a
/// rule-based sentence splitter. Pure functions of their input: thread-safe.

#include <string>
#include <string_view>
#include <vector>

#include "core/data/sentence.h"
#include "core/data/token.h"

namespace treelens {

class Tokenizer {
public:
    /// Tokenizes one sentence. Token::charStart/charEnd are byte offsets into
    /// `text`; Token::text is the surface string of the token. Expects valid
    /// UTF-8 (see utf8.h); invalid bytes are treated as symbols, never crash.
    std::vector<Token> tokenize(std::string_view text) const;

    /// Splits running text into sentences (byte ranges into `text`, half-open).
    std::vector<std::pair<int, int>> splitSentences(std::string_view text) const;

    /// splitSentences + tokenize. Each Sentence gets text (trimmed), tokens with
    /// offsets relative to its own text, and id "s1", "s2", ...
    std::vector<Sentence> splitAndTokenize(std::string_view text) const;
};

} // namespace treelens
