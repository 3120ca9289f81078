#pragma once
/// \file tagger.h
/// Internal to the Link Grammar backend: PTB-style POS tags for our tokens,
/// derived from their Link Grammar words (Link Grammar has no POS tags of its
/// own), and the facts about a token the dependency and constituency
/// conversions read. The mapping is documented in docs/link-grammar.md.

#include <string>

#include "core/parsing/linkgrammar/linkage.h"
#include "core/parsing/linkgrammar/wordclasses.h"

namespace treelens::linkgrammar {

struct TokenFacts {
    std::string lower;
    std::string tag;
    std::string subscript; ///< of the representative Link Grammar word
    bool punct = false;
    bool verb() const { return startsWith(tag, "VB") || tag == "MD"; }
};

/// PTB tag of a punctuation/symbol token, or "" for anything else.
std::string punctuationTag(const std::string &w);

/// Tags whose tokens get the UD relation "punct" (evalb's punctuation set plus brackets).
bool isPunctuationTag(const std::string &tag);

/// The tag of a token whose representative Link Grammar word is w (w may be null).
/// The mapping is documented in docs/link-grammar.md.
std::string tagFor(const std::string &surface, const LgWord *w, bool sentenceInitial);

} // namespace treelens::linkgrammar
