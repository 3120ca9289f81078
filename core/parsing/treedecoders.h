#pragma once
/// \file treedecoders.h
/// Exact, torch-free tree decoders for the neural parsers:
/// - dependency: maximum spanning arborescence (Chu-Liu/Edmonds) and projective
///   Eisner, both with exactly one word attached to the root;
/// - constituency: CKY over span label scores (Stern et al. 2017, Kitaev & Klein
///   2018), plus the conversions between span sets and ConstituencyTree.
///
/// Dependency score layout (both decoders): `scores` is (n+1)×(n+1) row-major,
/// scores[dep*(n+1) + head], index 0 = ROOT, words 1..n. Row 0 (ROOT as a
/// dependent) and the diagonal (self-loops) are ignored. The result is heads of
/// words 1..n in CoNLL-U numbering (a vector of size n, 0 = root) with exactly one
/// 0. NaN scores count as the lowest finite float and ±inf as ±FLT_MAX, so the
/// output is a valid tree for any input; scores.size() != (n+1)² or n <= 0 give an
/// empty vector.
///
/// Constituency conventions (the whole pipeline: gold tree -> training spans ->
/// chart -> CKY -> spans -> tree):
/// - spans are half-open word ranges [start, end), 0 <= start < end <= n;
/// - a label index 0 is the empty label Ø ("not a constituent"); its score is
///   fixed at 0 whatever the chart holds (Kitaev & Klein append a zero column);
/// - a unary chain is one span whose label joins the chain top-down with '+'
///   ("S+VP" for (S (VP ...)) over the same words);
/// - preterminals (POS tags) are not spans: they come from the tags argument;
/// - a PTB wrapper root (label "", "ROOT" or "TOP") is not a span; spansToTree
///   always puts a "TOP" root above everything, which ConstituencyTree::contentRoot()
///   and core/eval/bracketeval skip when it has a single phrasal child.

#include <cstddef>
#include <string>
#include <vector>

#include "core/data/constituencytree.h"

namespace treelens {

// ---------------------------------------------------------------------------
// Dependency decoders

/// Maximum spanning arborescence with a single root word (Chu-Liu/Edmonds on
/// lexicographic weights (-number of root arcs, score), which is exactly the
/// best single-rooted tree, with no large constant and no precision loss).
/// Cycles are contracted in place, one at a time: O(n²), about 1 ms for n = 250.
/// Conventions: see the file comment.
std::vector<int> decodeMst(const std::vector<float> &scores, int n);

/// Best projective tree with a single root word (Eisner's O(n³) algorithm over
/// words 1..n, then the best root word r with its left and right halves); about
/// 6 ms for n = 250. Conventions: see the file comment.
std::vector<int> decodeEisner(const std::vector<float> &scores, int n);

// ---------------------------------------------------------------------------
// Constituency: span chart and CKY

/// Label scores s(i, j, l) for 0 <= i < j <= n and 0 <= l < labels, stored densely
/// as (n+1)×(n+1)×labels row-major (the layout of a [n+1, n+1, L] tensor, so it
/// can be filled with one copy); entries with i >= j are never read. Label 0 is Ø.
struct SpanChart {
    int n = 0;
    int labels = 0;
    std::vector<float> scores;

    SpanChart() = default;
    SpanChart(int words, int labelCount)
        : n(words), labels(labelCount),
          scores(static_cast<std::size_t>(words + 1) * static_cast<std::size_t>(words + 1) * static_cast<std::size_t>(labelCount), 0.0f) {}

    std::size_t offset(int i, int j, int l) const
    {
        return (static_cast<std::size_t>(i) * static_cast<std::size_t>(n + 1) + static_cast<std::size_t>(j)) * static_cast<std::size_t>(labels)
            + static_cast<std::size_t>(l);
    }
    float &at(int i, int j, int l) { return scores[offset(i, j, l)]; }
    float at(int i, int j, int l) const { return scores[offset(i, j, l)]; }
};

/// One span of a decoded tree: [start, end) with a label index (0 = Ø).
struct ChartSpan {
    int start = 0;
    int end = 0;
    int label = 0;

    bool operator==(const ChartSpan &o) const { return start == o.start && end == o.end && label == o.label; }
};

struct CkyOptions {
    /// The whole-sentence span gets the best non-Ø label (benepar's
    /// force_root_constituent), so the decoded tree has a sentence-level
    /// constituent as gold PTB trees do. Ignored when there is only label 0.
    bool forceRootConstituent = true;
    /// Loss-augmented decoding for the margin loss (Stern et al. 2017): when set,
    /// every (span, label) scores +1 unless the label is the span's gold label
    /// (gold spans listed here, every other span's gold label is Ø). Gold spans
    /// must have distinct [start, end); the pointer must outlive the call.
    const std::vector<ChartSpan> *hammingGold = nullptr;
};

struct CkyResult {
    /// The 2n-1 spans of the best binary tree in pre-order (outer first, then left
    /// to right), each with its best label; spans labelled 0 (Ø) are not
    /// constituents. Empty when the chart is malformed (n <= 0, labels <= 0, or
    /// scores of the wrong size).
    std::vector<ChartSpan> spans;
    /// The maximised objective: sum over the spans of their label scores (Ø = 0),
    /// including the Hamming terms when CkyOptions::hammingGold is set.
    double score = 0.0;
};

/// Best binary tree: max over binary bracketings of the sum, over its spans, of
/// max_l s(i, j, l). O(n³ + n²·L). NaN scores count as -FLT_MAX, ±inf as ±FLT_MAX.
CkyResult decodeCky(const SpanChart &chart, const CkyOptions &options = {});

// ---------------------------------------------------------------------------
// Spans <-> trees

/// Builds the tree of a set of labelled spans over `words`:
/// - root "TOP"; below it the spans, nested by containment (sorted by start, then
///   longer first; for identical ranges the earlier one in `spans` is outer);
///   Ø spans (label 0 or an empty name) are dropped and their children lifted, so
///   constituents are n-ary;
/// - a label "S+VP" becomes nested nodes S -> VP over the same words;
/// - every word gets a preterminal labelled tags[i] ("X" when tags is shorter or
///   the tag is empty) with the word as terminal, verbatim (PTB escapes such as
///   "-LRB-" are the caller's business);
/// - spans out of range, empty, or crossing an earlier kept span are ignored.
/// labelNames[label] names a label index; an index outside labelNames is treated as Ø.
ConstituencyTree spansToTree(const std::vector<std::string> &words, const std::vector<std::string> &tags,
                             const std::vector<ChartSpan> &spans, const std::vector<std::string> &labelNames);

/// The same with string labels (e.g. the output of treeToTrainingSpans); a span
/// with an empty label is Ø.
ConstituencyTree spansToTree(const std::vector<std::string> &words, const std::vector<std::string> &tags,
                             const std::vector<LabeledSpan> &spans);

/// Every gold constituent of `tree` as a span, for building training charts:
/// phrasal nodes covering at least one word, preterminals excluded, a wrapper root
/// ("", "ROOT" or "TOP") excluded, unary chains (a node whose only word-covering
/// child is phrasal) collapsed into one span labelled top-down with '+'. Labels are
/// kept verbatim (read with PtbReadOptions::stripFunctionTags for plain categories).
/// Each span's `node` is the top node of its chain. Spans are in pre-order, so
/// distinct spans have distinct ranges. Traces (-NONE-) cover no word and vanish.
/// spansToTree(tree.words(), tree.tags(), treeToTrainingSpans(tree)) rebuilds the
/// tree under "TOP" for trees whose words all sit under preterminals and that have
/// no trace-only constituents.
std::vector<LabeledSpan> treeToTrainingSpans(const ConstituencyTree &tree);

} // namespace treelens
