#pragma once
/// \file constituency.h
/// Internal to the Link Grammar backend: the PTB-style constituency tree of a
/// linkage, from Link Grammar's SINGLE_LINE constituent string, with our tokens
/// as its leaves.

#include <string>
#include <vector>

#include "core/data/constituencytree.h"
#include "core/data/token.h"
#include "core/parsing/linkgrammar/linkage.h"
#include "core/parsing/linkgrammar/tagger.h"

namespace treelens::linkgrammar {

/// One preterminal per token in a single S: used when Link Grammar's tree is
/// missing or cannot be aligned.
ConstituencyTree flatConstituency(const std::vector<Token> &tokens, const std::vector<TokenFacts> &facts);

/// Converts the constituent string over Link Grammar's words into a tree over
/// our tokens: each token sits where its representative word's leaf was;
/// tokens merged into a neighbour's word sit next to that neighbour; tokens
/// Link Grammar dropped go into the lowest constituent spanning their nearest
/// placed neighbours (the top node at the sentence edges). Empty constituents
/// disappear, and a unary chain of one label is collapsed.
bool convertConstituency(const std::string &lgTree, const std::vector<LgWord> &words, const Alignment &align,
                         const std::vector<Token> &tokens, const std::vector<TokenFacts> &facts, ConstituencyTree &out);

} // namespace treelens::linkgrammar
