#pragma once
/// \file headrules.h
/// Constituency -> dependency conversion with head-percolation rules.
/// "collins": the head table of Collins (1999, Appendix A) as commonly used for
/// the Penn Treebank (with the coordination and NP special cases).

#include <string>

#include "core/base/result.h"
#include "core/data/sentence.h"

namespace treelens {

enum class HeadRules { Collins };
Result<HeadRules> parseHeadRules(const std::string &name);

/// Index (into node.children) of the head child of a phrasal node.
int findHeadChild(const ConstituencyTree &tree, int node, HeadRules rules = HeadRules::Collins);

/// Converts the tree (traces are ignored) to a dependency tree over its words.
/// Relation labels: "root", "punct" for punctuation tags, otherwise "dep"
/// (documented in docs/formats.md).
Result<DependencyTree> toDependencies(const ConstituencyTree &tree, HeadRules rules = HeadRules::Collins);

} // namespace treelens
