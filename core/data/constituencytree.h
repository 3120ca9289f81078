#pragma once
/// \file constituencytree.h
/// A constituency (phrase-structure) tree. Nodes live in one vector and refer to
/// each other by index; node 0 is not necessarily the root (use root()).
/// Terminal nodes hold the word (or a trace such as "*T*-1" under -NONE-);
/// a preterminal is a node whose only child is a terminal (its label is the POS tag).
/// "Words" are the terminals that are not under a -NONE- preterminal: they are the
/// tokens of the sentence, numbered 0..wordCount()-1 in order.

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "core/base/result.h"

namespace treelens {

struct ConstituencyNode {
    std::string label;        ///< phrase label, POS tag, or for terminals the word form
    int parent = -1;          ///< -1 for the root
    std::vector<int> children;
    bool terminal = false;
    int wordIndex = -1;       ///< for terminals that are words: their 0-based position
};

/// A labelled span over word indices, half-open [start, end).
struct LabeledSpan {
    std::string label;
    int start = 0;
    int end = 0;
    int node = -1; ///< the node that spans it

    bool operator==(const LabeledSpan &o) const { return label == o.label && start == o.start && end == o.end; }
    bool operator<(const LabeledSpan &o) const
    {
        if (start != o.start) return start < o.start;
        if (end != o.end) return end > o.end; // outer spans first
        return label < o.label;
    }
};

class ConstituencyTree {
public:
    ConstituencyTree() = default;

    /// Adds a node and returns its index. parent = -1 makes it the root (only once).
    int addNode(std::string label, int parent, bool terminal = false);
    /// Recomputes wordIndex for every terminal; call after building or editing.
    void renumberWords();

    bool empty() const { return m_root < 0; }
    int root() const { return m_root; }
    const ConstituencyNode &node(int i) const { return m_nodes[static_cast<std::size_t>(i)]; }
    ConstituencyNode &node(int i) { return m_nodes[static_cast<std::size_t>(i)]; }
    const std::vector<ConstituencyNode> &nodes() const { return m_nodes; }

    bool isPreterminal(int i) const;
    bool isTrace(int terminalNode) const; ///< terminal under a -NONE- preterminal
    /// The root below an unlabeled PTB wrapper "( (S ...) )" or a ROOT/TOP node
    /// with a single phrasal child; otherwise root().
    int contentRoot() const;

    /// Words (non-trace terminals) in order.
    std::vector<std::string> words() const;
    /// POS tags of the words, in order.
    std::vector<std::string> tags() const;
    int wordCount() const;
    /// Terminal node index of each word.
    std::vector<int> wordNodes() const;

    /// Span of a node over word indices [start, end); empty (start == end) for
    /// a node that only covers traces.
    std::pair<int, int> span(int node) const;
    /// All phrasal spans (preterminals and terminals excluded) below and including
    /// contentRoot(), in pre-order. Nodes covering no word are skipped.
    std::vector<LabeledSpan> spans(bool includeRoot = true) const;

    /// Hops from contentRoot() to the deepest word terminal (a one-word tree
    /// "(S (NN x))" has depth 2). 0 for an empty tree.
    int depth() const;
    /// Labels of the children of the top S: the children of contentRoot().
    /// E.g. "NP VP ." for a simple declarative. Function tags are stripped.
    std::vector<std::string> topConstituents() const;

    /// Removes -NONE- preterminals and every constituent left without words;
    /// collapses nothing else. Returns the number of nodes removed.
    int stripTraces();
    /// "NP-SBJ-1" -> "NP", "NP=2" -> "NP"; labels that start with '-' ("-NONE-",
    /// "-LRB-") are kept. Applies to phrase labels and POS tags, not to words.
    void stripFunctionTags();
    /// Rebuilds node storage in pre-order with removed nodes dropped.
    void compact();

    /// Checks parent/child links and that every phrasal node has children.
    Status validate() const;

    bool operator==(const ConstituencyTree &o) const;

    /// The bare category of a label: function tags and indices removed.
    static std::string baseLabel(const std::string &label);

private:
    std::vector<ConstituencyNode> m_nodes;
    int m_root = -1;
};

} // namespace treelens
