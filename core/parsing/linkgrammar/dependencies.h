#pragma once
/// \file dependencies.h
/// Internal to the Link Grammar backend: the UD-style dependency tree of a
/// linkage. Candidate arcs from the links (rules.h) are chosen greedily into a
/// spanning tree, then function-word heads are switched to content words,
/// coordinations re-headed and labels fixed.

#include <vector>

#include "core/data/dependencytree.h"
#include "core/parsing/linkgrammar/linkage.h"
#include "core/parsing/linkgrammar/tagger.h"

namespace treelens::linkgrammar {

/// The dependency tree over the tokens (one entry of `facts` per token) that the
/// words and links of one linkage, aligned by `alignment`, give.
DependencyTree buildDependencies(const std::vector<LgWord> &words, const std::vector<LgLink> &links,
                                 const Alignment &alignment, const std::vector<TokenFacts> &facts);

/// Every token hangs from the first non-punctuation token: a last resort that
/// keeps the result a valid tree (only used if the conversion produced none).
DependencyTree flatDependencies(const std::vector<TokenFacts> &facts);

} // namespace treelens::linkgrammar
