#pragma once
/// \file attentiontree.h
/// Corpus-level agreement between an encoder's attention (or link
/// probabilities) and gold trees, per layer × head (TreeLens issue 6). Plain
/// C++17: no torch, no Qt. Input is a corpus of pairs: gold Sentence i (with the
/// trees a metric needs) and the Analysis of the same sentence by an encoder.
///
/// Word level. Every metric works on words, never on model tokens: the attention
/// from word i to word j is attention[l][h].at(wordToken[i], wordToken[j]).
/// Tokens that are no word ([CLS] and the like) are ignored, and rows are not
/// renormalised after dropping them. When a model splits a word into several
/// tokens, Analysis::wordToken names the word's FIRST token, so the metrics see
/// the first piece's row and column only (pieces are not pooled).
///
/// Attention: Analysis::attention (after any structural weighting, Tree
/// Transformer: softmax ⊙ C) by default; AttentionTreeOptions::raw selects
/// Analysis::attentionRaw, falling back to Analysis::attention for analyses whose
/// attentionRaw is empty ("identical", see analysis.h).
///
/// Layers and heads are 0-based, as in Analysis::attention. Every report keeps
/// per-sentence numbers per cell so a viewer can list the sentences behind a
/// heatmap cell; sentencesForCell() returns them worst first. Sentence indices
/// are positions in the input corpus.
///
/// Metrics:
///  (a) headAccuracy — Clark et al. 2019 ("What does BERT look at?"): for every
///      word d with a non-root gold head h, dep→head is right for (l, k) when the
///      word d attends to most among the OTHER words (itself excluded; ties go to
///      the lower word index) is h; head→dep is right when the word h attends to
///      most among the other words is d (a head with several dependents can be
///      right for at most one of them). Per relation (universal part of DEPREL,
///      "nmod:poss" → "nmod") and "all". Fixed-offset baselines predict head =
///      d + offset (wrong when outside the sentence), for every offset in
///      [−maxBaselineOffset, +maxBaselineOffset] \ {0} (at least ±2), and the best
///      offset per relation, as in the paper's tables. Punctuation is included
///      (it is the relation "punct").
///  (b) constituentMass — for word i and the smallest gold constituent S(i) of at
///      least 2 words that contains i and is not the whole sentence (words with no
///      such constituent are skipped):
///        mass(i)     = Σ_{j∈S(i), j≠i} a_ij / Σ_{j≠i} a_ij
///        baseline(i) = Σ_{j≠i} a_ij · P(j moved to distance |i−j| lands in S(i)) / Σ_{j≠i} a_ij
///      where the weight a_ij moves to i−|i−j| or i+|i−j| with probability ½ each
///      when both are words, otherwise to the one that is (the exact expectation of
///      a distance-matched random reassignment, no sampling). A word whose row
///      has no weight on other words (Σ_{j≠i} a_ij = 0) is skipped for that cell.
///      Values are fractions in [0, 1].
///  (c) attentionMstUuas — S = (A + Aᵀ)/2 over the words (diagonal ignored); the
///      undirected maximum spanning tree by Prim from word 0, taking the outside
///      word with the largest connection, ties to the lower word index, and for
///      each word the tree end with the largest weight, ties to the lower index;
///      UUAS = gold undirected edges (root excluded) in the tree / (n − 1), in
///      percent. One-word sentences are skipped. Also for each layer's mean
///      attention over its heads (the "layer mean" row, head = kLayerMean).
///  (d) linkProbabilityStats — Tree Transformer link probabilities, see below.
///
/// Gold constituents (for (b) and (d)), AttentionTreeOptions::spans:
///  - Constituency: the phrasal spans of Sentence::constituency (word indices,
///    traces not words; its word count must equal the sentence's);
///  - Dependency: for every word, the projection of its subtree: [leftmost,
///    rightmost + 1) of the word and all its descendants (for a non-projective
///    subtree this hull also contains words outside the subtree);
///  - Auto (default): Constituency when the sentence has a constituency tree,
///    otherwise Dependency.
///
/// Link probabilities. Analysis::linkProbs[l][k] is the probability that TOKENS k
/// and k+1 are in one constituent (core/encoders/treetransformer/treetransformer.cpp stores the
/// superdiagonal of the layer's break/"A" matrix over the tokens [CLS] w0 … w_{n−1},
/// so linkProbs[l] has n entries and linkProbs[l][0] links [CLS] to w0). The gap
/// between words k and k+1 reads linkProbs[l][wordToken[k+1] − 1] (the link into
/// the first token of word k+1): for the Tree Transformer linkProbs[l][k+1]; the
/// [CLS] link is ignored.

#include <array>
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "core/base/result.h"
#include "core/data/analysis.h"
#include "core/data/sentence.h"

namespace treelens {

struct AttentionTreeOptions {
    /// Use Analysis::attentionRaw (before structural weighting) where present.
    bool raw = false;
    enum class Spans { Auto, Constituency, Dependency };
    /// Where the gold constituents of (b) and (d) come from (see the file comment).
    Spans spans = Spans::Auto;
    /// Offsets searched for the head-accuracy baselines: ±1 .. ±max (at least 2).
    int maxBaselineOffset = 5;
    /// Head accuracy per relation: keep UD subtypes (`nsubj:pass`, `nmod:poss` their
    /// own rows) rather than fold them into the universal relation (`nsubj`, `nmod`).
    bool keepRelationSubtypes = false;
    /// Head accuracy on some arcs only (`probe --where`, core/probing/runwhere.h): when set,
    /// each sentence's metadata under this key lists the dependents (from 1, comma-separated)
    /// of the arcs scored; a sentence without the key scores none. The offset baselines
    /// count the same arcs.
    std::string arcsMetadata;
};

/// head value that selects the layer-mean row of a UUAS report.
constexpr int kLayerMean = -1;

/// A layers × heads grid of scores, row-major.
struct LayerHeadGrid {
    int layers = 0;
    int heads = 0;
    std::vector<double> values;

    LayerHeadGrid() = default;
    LayerHeadGrid(int l, int h, double fill = 0.0) : layers(l), heads(h), values(static_cast<std::size_t>(l) * h, fill) {}
    double at(int layer, int head) const { return values[static_cast<std::size_t>(layer) * heads + head]; }
    double &at(int layer, int head) { return values[static_cast<std::size_t>(layer) * heads + head]; }
};

// ---------------------------------------------------------------- (a) heads

enum class ArcDirection { DepToHead, HeadToDep };

/// One sentence's arcs of one relation: counts per cell (index layer*heads+head).
struct HeadAccuracySentence {
    int sentence = 0;              ///< index in the corpus
    int total = 0;                 ///< arcs of this relation in the sentence
    std::vector<int> depToHead;    ///< right dep→head per cell
    std::vector<int> headToDep;    ///< right head→dep per cell
};

struct OffsetBaseline {
    int offset = 0;
    long correct = 0;
    double accuracy = 0.0; ///< percent
};

struct BestCell {
    int layer = -1;
    int head = -1;
    double accuracy = 0.0; ///< percent; ties go to the lower layer, then head
};

struct RelationHeadAccuracy {
    std::string relation;          ///< universal relation, or "all"
    long count = 0;                ///< arcs in the corpus
    LayerHeadGrid depToHead;       ///< percent
    LayerHeadGrid headToDep;       ///< percent
    std::vector<OffsetBaseline> offsets; ///< −max .. −1, +1 .. +max
    OffsetBaseline bestOffset;     ///< highest accuracy; ties: smaller |offset|, then negative
    BestCell bestDepToHead, bestHeadToDep;
    /// Sentences with at least one arc of this relation, in corpus order.
    std::vector<HeadAccuracySentence> sentences;

    /// Accuracy of a fixed-offset baseline (0 for an offset not computed).
    double offsetAccuracy(int offset) const;
};

struct HeadAccuracyReport {
    int layers = 0;
    int heads = 0;
    std::size_t sentences = 0;
    /// "all" first, then the relations in alphabetical order.
    std::vector<RelationHeadAccuracy> relations;
    /// Whether UD subtypes were kept as relations of their own (else folded).
    bool subtypesKept = false;

    const RelationHeadAccuracy *find(const std::string &relation) const;
};

// ---------------------------------------------------------------- (b) mass

struct ConstituentMassSentence {
    int sentence = 0;
    std::vector<int> words;            ///< words scored per cell
    std::vector<double> massSum;       ///< Σ mass(i) per cell
    std::vector<double> baselineSum;   ///< Σ baseline(i) per cell
    double mass(int cell) const { return words[cell] ? massSum[cell] / words[cell] : 0.0; }
    double baseline(int cell) const { return words[cell] ? baselineSum[cell] / words[cell] : 0.0; }
};

struct ConstituentMassReport {
    int layers = 0;
    int heads = 0;
    LayerHeadGrid mass;        ///< mean mass(i) over every scored word of the corpus
    LayerHeadGrid baseline;    ///< mean baseline(i) over the same words
    LayerHeadGrid difference;  ///< mass − baseline
    std::vector<long> words;   ///< scored words per cell
    long skippedWords = 0;     ///< words with no constituent other than the whole sentence
    /// Sentences with at least one word that has a constituent, in corpus order.
    std::vector<ConstituentMassSentence> sentences;
};

// ---------------------------------------------------------------- (c) UUAS

struct UuasSentence {
    int sentence = 0;
    int edges = 0;             ///< n − 1
    /// Gold edges recovered: layers*heads cells, then one per layer (layer mean).
    std::vector<int> correct;
};

struct UuasReport {
    int layers = 0;
    int heads = 0;
    LayerHeadGrid uuas;              ///< percent, corpus level (Σ recovered / Σ (n − 1))
    std::vector<double> layerMean;   ///< percent, per layer, for the mean over heads
    long edges = 0;
    std::size_t skipped = 0;         ///< one-word (or empty) sentences
    std::vector<UuasSentence> sentences; ///< scored sentences, in corpus order

    /// Index into UuasSentence::correct; head = kLayerMean for the layer-mean row.
    int cell(int layer, int head) const { return head == kLayerMean ? layers * heads + layer : layer * heads + head; }
};

// ---------------------------------------------------------------- (d) links

/// Buckets of gold constituent size for a gap between adjacent words: the size
/// in words of the smallest gold constituent containing both. The whole sentence
/// comes first: a gap only the whole sentence covers is WholeSentence whatever n.
enum LinkBucket { Size2 = 0, Size3to4, Size5to8, Size9Plus, WholeSentence, LinkBucketCount };
const char *linkBucketName(int bucket); ///< "2", "3-4", "5-8", "9+", "sentence"

struct LinkLayerStats {
    long gaps = 0;
    double mean = 0.0;
    double stddev = 0.0;   ///< population standard deviation
    std::array<long, LinkBucketCount> bucketCount{};
    std::array<double, LinkBucketCount> bucketMean{}; ///< 0 for an empty bucket
    /// Spearman rank correlation (average ranks for ties) between link probability
    /// and −size over every gap of the corpus; NaN when undefined.
    double spearman = 0.0;
};

struct LinkSentence {
    int sentence = 0;
    std::vector<int> gapSize;                 ///< per gap (n − 1): smallest gold constituent size
    std::vector<std::vector<float>> links;    ///< [layer][gap]
    std::vector<double> spearman;             ///< per layer, within the sentence; NaN when undefined
};

struct LinkProbabilityReport {
    int layers = 0;
    std::vector<LinkLayerStats> perLayer;
    std::size_t skipped = 0;                 ///< sentences with fewer than 2 words
    std::vector<LinkSentence> sentences;     ///< in corpus order
};

// ---------------------------------------------------------------- functions

/// Errors (naming the sentence) when the counts of sentences and analyses differ,
/// a sentence lacks its dependency tree, its word count differs from the
/// analysis's wordToken, or the attention is missing or misshapen.
Result<HeadAccuracyReport> headAccuracy(const std::vector<Sentence> &gold, const std::vector<Analysis> &analyses,
                                        const AttentionTreeOptions &options = {});
/// As headAccuracy; also errors when a sentence lacks the constituents `options.spans` asks for.
Result<ConstituentMassReport> constituentMass(const std::vector<Sentence> &gold, const std::vector<Analysis> &analyses,
                                              const AttentionTreeOptions &options = {});
Result<UuasReport> attentionMstUuas(const std::vector<Sentence> &gold, const std::vector<Analysis> &analyses,
                                    const AttentionTreeOptions &options = {});
/// Needs Analysis::linkProbs (errors otherwise) and gold constituents.
Result<LinkProbabilityReport> linkProbabilityStats(const std::vector<Sentence> &gold, const std::vector<Analysis> &analyses,
                                                   const AttentionTreeOptions &options = {});

/// Sentence indices behind a cell, worst first; empty for an unknown cell/relation.
/// Head accuracy: lowest accuracy first, then more wrong arcs, then corpus order.
std::vector<int> sentencesForCell(const HeadAccuracyReport &report, int layer, int head,
                                  const std::string &relation = "all", ArcDirection direction = ArcDirection::DepToHead);
/// Constituent mass: lowest mean (mass − baseline) first; sentences with no
/// scored word in the cell last.
std::vector<int> sentencesForCell(const ConstituentMassReport &report, int layer, int head);
/// UUAS (head may be kLayerMean): lowest UUAS first, then more missed edges.
std::vector<int> sentencesForCell(const UuasReport &report, int layer, int head);
/// Link probabilities (one cell per layer): lowest Spearman first, NaN last.
std::vector<int> sentencesForCell(const LinkProbabilityReport &report, int layer);

/// Helpers exposed for tests and viewers.
/// Undirected maximum spanning tree of a symmetric n×n weight matrix (row-major),
/// Prim from vertex 0 with the tie rules above; edges as (parent, child).
std::vector<std::pair<int, int>> maximumSpanningTree(const std::vector<double> &weights, int n);
/// Spearman rank correlation with average ranks; NaN when fewer than 2 values or
/// either side is constant.
double spearmanCorrelation(const std::vector<double> &x, const std::vector<double> &y);
/// Gold constituents of a sentence as half-open word spans (may repeat), by
/// `options.spans`; errors when the needed tree is absent or its word count is not `words`.
Result<std::vector<std::pair<int, int>>> goldConstituentSpans(const Sentence &sentence, int words,
                                                              const AttentionTreeOptions &options = {});

/// One sentence, one matrix: (a)'s two criteria counted over the tree's non-root
/// arcs, as headAccuracy counts them (word d attends most among the other words
/// to its head; the head attends most to d). What the heads overview colours
/// each head by. `offsetHits` is the best fixed-offset baseline on the same arcs
/// (offsets ±1 .. ±maxOffset, the best count; ties to the smaller |offset|, then
/// negative), `bestOffset` its offset (0 when the tree has no arc).
///
/// A causal head (a language model's: a word attends only to itself and earlier words) sees an
/// arc in one direction only, the later word attending to the earlier one: with `causal`, an arc
/// counts in `laterToEarlier` when the later of its two words attends most (among the words
/// before it) to the earlier, share() is that count's share, and the baseline is the best
/// leftward offset (-1 .. -maxOffset: "attend to the word k to the left").
struct ArcHits {
    int arcs = 0;
    int depToHead = 0;
    int headToDep = 0;
    int offsetHits = 0;
    int bestOffset = 0;
    bool causal = false;
    int laterToEarlier = 0;

    /// The better direction's share of the arcs in [0, 1] (a causal head's: the one direction
    /// it can see; 0 without arcs).
    double share() const
    {
        if (arcs == 0)
            return 0.0;
        return static_cast<double>(causal ? laterToEarlier : depToHead > headToDep ? depToHead : headToDep) / arcs;
    }
};
/// `tree` has one head per word of `wordToken` (errors otherwise, or when a word
/// token lies outside `attention`).
Result<ArcHits> arcHits(const DependencyTree &tree, const Matrix &attention, const std::vector<int> &wordToken,
                        int maxOffset = 5, bool causal = false);
/// ArcHits::share() of every head of `analysis`' attention on `sentence`'s dependency
/// tree, [layer][head] (causal when the analysis' attention is); empty when the sentence has
/// no tree of the analysis' words.
std::vector<std::vector<double>> arcShares(const Sentence &sentence, const Analysis &analysis);

} // namespace treelens
