#pragma once
/// \file dependencytree.h
/// A basic dependency tree over the tokens of a Sentence. The tokens themselves
/// live in Sentence::tokens (shared with the constituency tree and the encoder
/// input); the tree holds one head and one relation per token.

#include <cstddef>
#include <string>
#include <vector>

#include "core/base/result.h"

namespace treelens {

struct DependencyTree {
    /// heads[i] is the head of token i+1 in CoNLL-U numbering: 0 = root,
    /// otherwise 1..size(). -1 marks "no head" (only in partial parses, which
    /// validate() rejects).
    std::vector<int> heads;
    std::vector<std::string> deprels; ///< same length as heads

    std::size_t size() const { return heads.size(); }

    /// Checks that there is exactly one root, every head is in range and the
    /// arcs form a tree (no cycles). The message names the first offending token.
    Status validate() const;

    /// True if no two arcs cross (arcs drawn above the words, root arc included).
    bool isProjective() const;

    /// Number of arcs on the path between tokens a and b (0-based indices).
    int distance(int a, int b) const;
    /// All pairwise tree distances (n×n, row-major).
    std::vector<int> distanceMatrix() const;

    /// Depth of token i (0-based): number of arcs from the root word to it
    /// (the root word has depth 0).
    int depthOf(int i) const;
    /// Tree depth: maximum depthOf over all tokens (0 for a one-word sentence).
    int depth() const;

    /// Children of token i (0-based) in sentence order; i = -1 gives the root word(s).
    std::vector<int> children(int i) const;

    bool operator==(const DependencyTree &o) const { return heads == o.heads && deprels == o.deprels; }
};

} // namespace treelens
