#pragma once
/// \file tregex.h
/// Constituency-tree patterns in a subset of Stanford Tregex's language (docs/tregex.md):
/// node descriptions (`NP`, `NP|NX`, `/^VB/`, `__`, `_ROOT_`, `@NP`, `!NP`), relations
/// (`<` `>` `<<` `>>` `$` `$+` `$-` `$++` `$--` `<:` `>:` `<,` `<-` `<i` `<-i` `>i`
/// `>-i` `<<,` `<<-` `>>,` `>>-` `<<<` `.` `..` `,` `,,` `==` `<=` `:`), `!` and `?`
/// before a relation, conjunction by juxtaposition or `&`, disjunction with `|`, grouping
/// with `(...)` and `[...]`, `=name` to bind a node and `=name` alone to refer back to it.
///
/// Every node of the tree is a node for the pattern, leaves included: a terminal's label is
/// its word (or a trace such as "*T*-1" under -NONE-), and the unlabelled wrapper of a
/// Penn Treebank tree "( (S ...) )" has the label "" (as Tregex's own reader gives it).
/// match() reports what Tregex's TregexMatcher.find() reports: one match per way the
/// pattern matches, that is per distinct assignment of tree nodes to the pattern's node
/// descriptions (named or not, outside `!` and `?`), for every tree node, in pre-order.
///
/// A pattern is immutable once parsed, cheap to copy (it shares its compiled form) and
/// may be used by several threads at once. Pure C++17 and ICU's regular expressions.

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/result.h"
#include "core/data/constituencytree.h"

namespace treelens {

/// One way a pattern matches a tree.
struct TregexMatch {
    int node = -1;          ///< the tree node (index into ConstituencyTree::nodes()) of the pattern's root
    std::vector<int> bound; ///< bound[i]: the node named names()[i], -1 when this match left it unbound
                            ///< (a `?` relation that did not match, the other side of a `|`)

    bool operator==(const TregexMatch &o) const { return node == o.node && bound == o.bound; }
};

class TregexPattern {
public:
    /// Parses a pattern. Errors (ErrorCode::Data) name the 1-based column (in characters):
    /// "column 5: expected a node description, found ')'"; syntax of Tregex that this subset
    /// does not take is refused by name ("relation '<<#' (heads) is not supported").
    /// Patterns of more than 500 node descriptions or 100 levels of nesting are refused.
    static Result<TregexPattern> parse(std::string_view text);

    /// The names bound with `=name`, in the order they first appear in the pattern.
    const std::vector<std::string> &names() const;
    /// The pattern as written.
    const std::string &text() const;
    /// How many node descriptions (backreferences included) the pattern has.
    std::size_t size() const;
    /// The parsed pattern with its grouping made explicit, as a pattern that parses back to
    /// the same thing: "NP [< NN | < NNS] & > S".
    std::string describe() const;

    /// Every match in `tree`, in Tregex's order (tree nodes in pre-order, then the order in
    /// which Tregex's matcher backtracks), at most `limit` of them (0: no limit). The count
    /// of a pattern whose descriptions can each match many nodes grows as their product.
    std::vector<TregexMatch> match(const ConstituencyTree &tree, std::size_t limit = 0) const;
    /// The tree nodes at which the pattern matches at least once, in pre-order (what
    /// Tregex's `-o` option counts).
    std::vector<int> matchingNodes(const ConstituencyTree &tree) const;

    struct Impl; ///< internal to tregex.cpp
private:
    std::shared_ptr<const Impl> m_impl;
};

} // namespace treelens
