#pragma once
/// \file deppattern.h
/// Dependency-tree patterns in Grew-match's request language, with Grew's meaning
/// (docs/query.md has the subset and every rule):
///
///     pattern { V [upos=VERB, Number=Sing]; S [upos=NOUN|PROPN, lemma<>"it"];
///               V -[nsubj]-> S; S << V }
///     without { V -[aux]-> A }
///
/// `pattern` clauses (several are merged into one), `with` clauses (each must be
/// satisfiable by extending an occurrence) and `without` clauses (none may be); node
/// constraints on `form`, `lemma`, `upos`, `xpos`, any FEATS or MISC name (`=`, `<>`,
/// `|`, `re"..."`, `/.../`, `F` present, `!F` absent); edges `X -> Y`, `X -[r]-> Y`,
/// `X -[r1|r2]-> Y`, `X -[^r]-> Y`, `X -[1=nsubj]-> Y` (the relation and its subtypes),
/// `X -[re"..."]-> Y`; word order `<`, `<<`, `>`, `>>`; feature comparisons
/// `X.lemma = Y.lemma`, `X.Number <> Y.Number`, `X.lemma = "be"`.
///
/// As in Grew, a sentence is a graph with the words 1..n and an anchor node 0 (form
/// `__0__`) with a `root` edge to the root word; matching is injective (distinct
/// pattern nodes are distinct words, except names ending in `$`), and every distinct
/// binding of the `pattern` nodes is one occurrence.
///
/// A pattern is immutable once parsed, cheap to copy and may be used by several threads
/// at once. Pure C++17 and ICU's regular expressions.

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/base/result.h"
#include "core/data/sentence.h"

namespace treelens {

/// A sentence as a pattern sees it, built once and matched by any number of patterns:
/// node 0 is the anchor, nodes 1..n the words; features parsed from FEATS and MISC.
struct DepGraph {
    struct Node {
        std::string form, lemma, upos, xpos;
        std::vector<std::pair<std::string, std::string>> features; ///< FEATS then MISC, sorted by name
        int head = -1;          ///< 0..n; -1 for the anchor and when the sentence has no tree
        std::string deprel;     ///< the relation from head to this node ("root" for the root word)
        std::vector<int> children; ///< in word order
    };
    std::vector<Node> nodes; ///< [0] the anchor, [i] word i

    /// The graph of `s` (words without a dependency tree get no edges).
    static DepGraph fromSentence(const Sentence &s);
    std::size_t words() const { return nodes.empty() ? 0 : nodes.size() - 1; }
};

/// One occurrence: the word bound to each node of the `pattern` clauses.
struct DepMatch {
    std::vector<int> nodes; ///< nodes[i]: the node (0 = anchor, 1..n = word i) bound to names()[i]

    bool operator==(const DepMatch &o) const { return nodes == o.nodes; }
    bool operator<(const DepMatch &o) const { return nodes < o.nodes; }
};

class DepPattern {
public:
    /// Parses a request. Errors (ErrorCode::Data) name the 1-based line and column and
    /// what was expected: "line 1, column 24: expected ']' or ',', found ';'".
    static Result<DepPattern> parse(std::string_view text);

    /// The nodes of the `pattern` clauses, in the order they first appear.
    const std::vector<std::string> &names() const;
    /// The request as written.
    const std::string &text() const;

    /// Every occurrence in `graph`, sorted by the bound nodes (names() order), at most
    /// `limit` of them (0: no limit).
    std::vector<DepMatch> match(const DepGraph &graph, std::size_t limit = 0) const;
    std::vector<DepMatch> match(const Sentence &s, std::size_t limit = 0) const
    {
        return match(DepGraph::fromSentence(s), limit);
    }

    struct Impl; ///< internal to deppattern.cpp
private:
    std::shared_ptr<const Impl> m_impl;
};

/// True when `text` reads as a Grew request (its first word, after blanks and `%`
/// comments, is `pattern`, `with` or `without` followed by `{`); otherwise it is taken
/// for a Tregex pattern.
bool looksLikeGrewRequest(std::string_view text);

} // namespace treelens
