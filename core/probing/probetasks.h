#pragma once
/// \file probetasks.h
/// Labelled datasets for the sentence-level probing tasks of Conneau et al. 2018
/// ("What you can cram into a single $&!#* vector", the SentEval probing tasks)
/// as used in §4.7 of the tree-aggregation paper (TreeLens issue 6), built from
/// any loaded treebank, plus control tasks (Hewitt & Liang 2019) and majority /
/// mean baselines. Plain C++17: no torch, no Qt.
///
/// Tasks (definitions; the paper's wording first, Conneau's where it is silent):
///  - SentLen: regression on the number of words of the sentence — "its tokens,
///    full words and punctuation symbols" (the paper): Sentence::tokens.size(),
///    or the constituency tree's word count when the sentence has no tokens.
///  - SentLenBins: the same length as a 6-way classification with Conneau's bins
///    5-8, 9-12, 13-16, 17-20, 21-25, 26-28 words. Sentences outside every bin are
///    excluded and counted in ProbeDataset::excluded ("<split>/outside-length-bins").
///    LengthBinning::EqualFrequency instead cuts 6 bins at the train split's
///    length sextiles (see ProbeTaskOptions::binning).
///  - TreeDepth: constituency depth = number of hops from the top constituent to
///    the deepest word (the paper: "hops from the root node ... to the lowest-level
///    leaf nodes"); the top constituent is ConstituencyTree::contentRoot(), i.e. an
///    unlabeled "( (S ..) )" wrapper or a unary ROOT/TOP node is skipped, and both
///    the preterminal (POS) level and the word level count: "(S (NN x))" has depth 2,
///    "(S (NP (DT The) (NN man)) (VP (VBD left)) (. .))" depth 3. Traces (-NONE-)
///    are not words and never count. This is ConstituencyTree::depth().
///    Dependency depth = the longest chain of words from the root word to a word,
///    counted in words (the root word alone has depth 1; = DependencyTree::depth()+1).
///    Classes are the depths seen at least `depthMinCount` times in train, in
///    increasing order; other depths are excluded ("<split>/rare-depth") or, with
///    RareDepth::Other, labelled "other" (last label). Conneau's grouping keeps
///    depths 5..12 on his corpus; the min-count rule is its corpus-independent
///    stand-in.
///  - TopConst: the sequence of base labels (function tags stripped) of the
///    children of the top constituent, punctuation kept as Conneau does ("NP VP .",
///    "ADVP NP VP ."), trace-only children skipped (ConstituencyTree::topConstituents()).
///    20 classes: the 19 most frequent sequences of the train split (ties broken
///    by the sequence string, ascending) then "other" (always present, last).
///
/// Splits: either three caller-given vectors (kept as they are) or one corpus cut
/// by seededSplit(). Sentences that cannot be labelled are left out and counted
/// per reason in ProbeDataset::excluded under "<split>/<reason>", reasons:
/// "empty-sentence", "outside-length-bins", "no-constituency-tree" (TopConst,
/// TreeDepth with DepthSource::Constituency), "no-dependency-tree" (DepthSource::
/// Dependency), "no-tree" (DepthSource::Auto, neither tree), "invalid-dependency-tree"
/// (a head out of range, -1 or a cycle), "rare-depth".

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/base/result.h"
#include "core/data/sentence.h"

namespace treelens {

enum class ProbeTask { SentLen, SentLenBins, TreeDepth, TopConst };

/// "sentlen", "sentlen-bins" (also "sentlenbins", "sentlen_bins"), "treedepth",
/// "topconst" (case-insensitive); the error lists the accepted names.
Result<ProbeTask> parseProbeTask(const std::string &name);
/// The canonical names above ("sentlen", "sentlen-bins", "treedepth", "topconst").
std::string probeTaskName(ProbeTask task);
/// True for the classification tasks (all but SentLen).
bool isClassificationTask(ProbeTask task);

/// Which tree TreeDepth measures.
enum class DepthSource {
    Auto,         ///< the constituency tree when the sentence has one, else its dependency tree
    Constituency, ///< constituency only (sentences without one are excluded)
    Dependency    ///< dependency only (sentences without one are excluded)
};

/// TreeDepth: what happens to depths below the min count.
enum class RareDepth { Exclude, Other };

/// SentLenBins: Conneau's fixed bins or sextiles of the train lengths.
enum class LengthBinning { Conneau, EqualFrequency };

struct ProbeTaskOptions {
    /// TopConst: number of classes, the last being "other" (Conneau: 20).
    int topConstClasses = 20;
    /// TreeDepth.
    DepthSource depthSource = DepthSource::Auto;
    int depthMinCount = 10; ///< a depth becomes a class with at least this many train sentences
    RareDepth rareDepth = RareDepth::Exclude;
    /// SentLenBins.
    LengthBinning binning = LengthBinning::Conneau;
    /// Single-corpus overload of buildProbeDataset: seededSplit() parameters.
    double trainFraction = 0.8;
    double devFraction = 0.1;
    std::uint32_t splitSeed = 1;
};

struct ProbeExample {
    int sentence = -1; ///< index into the split's sentence vector (into the one corpus when oneCorpus)
    int label = -1;    ///< index into ProbeDataset::labels; -1 for SentLen (regression)
    /// SentLen: the length (regression target). Classification: the raw quantity
    /// (word count, depth) for SentLenBins/TreeDepth, the label index for TopConst
    /// and for every control task.
    double target = 0.0;
};

struct ProbeDataset {
    std::string task;        ///< probeTaskName(), "control-" prefixed for control tasks
    std::string depthSource; ///< TreeDepth: "constituency", "dependency" or "mixed (constituency N, dependency M)"; else ""
    std::string split;       ///< "given" or "seeded 0.8/0.1/0.1 seed=S"
    bool oneCorpus = false;  ///< sentence indices of all three splits refer to one vector
    std::vector<std::string> labels; ///< empty for SentLen
    std::vector<ProbeExample> train, dev, test;
    std::map<std::string, long> excluded; ///< "<split>/<reason>" -> sentences left out

    bool regression() const { return labels.empty(); }
};

/// Builds a task over caller-given splits. Errors: an empty train or test vector,
/// TopConst (or TreeDepth restricted to one tree kind) when no train sentence has
/// the needed tree (the message says to parse with a constituency parser or load
/// a PTB treebank), and no train example left after exclusions. dev may be empty.
Result<ProbeDataset> buildProbeDataset(ProbeTask task, const std::vector<Sentence> &train,
                                       const std::vector<Sentence> &dev, const std::vector<Sentence> &test,
                                       const ProbeTaskOptions &options = {});

/// Builds a task over one corpus cut by seededSplit(n, options.trainFraction,
/// options.devFraction, options.splitSeed); sentence indices refer to `corpus`.
Result<ProbeDataset> buildProbeDataset(ProbeTask task, const std::vector<Sentence> &corpus,
                                       const ProbeTaskOptions &options = {});

struct SplitIndices {
    std::vector<int> train, dev, test; ///< each in increasing order
};

/// Deterministic shuffle split, identical on every platform for a given seed:
/// a Fisher–Yates shuffle of 0..n-1 driven by std::mt19937(seed) where, for
/// i = n-1 down to 1, j = (uint64(rng()) * (i+1)) >> 32 and index i swaps with j
/// (no std::uniform_int_distribution, whose algorithm is implementation-defined).
/// The first llround(n*trainFraction) shuffled indices are train, the next
/// llround(n*devFraction) (clamped to what is left) dev, the rest test; each
/// split is then sorted. Preconditions: fractions in [0,1].
SplitIndices seededSplit(std::size_t n, double trainFraction, double devFraction, std::uint32_t seed);

/// A control task (Hewitt & Liang 2019) adapted to sentence-level tasks: every
/// example's label becomes a random function of one lexical property the probe
/// can only memorise, the lower-cased (ASCII) first word of the sentence ("" for
/// a sentence without words). Each word type gets one label, drawn once from the
/// empirical label distribution of `dataset.train`, so the label set is the same
/// and the per-type label distribution matches train's (the per-sentence one does
/// in expectation). For SentLen the target is drawn from the train targets. The
/// draw for a type depends only on (seed, type, train distribution): u =
/// splitmix64(fnv1a64(type) ^ splitmix64(seed)), r = ((u >> 32) * N) >> 32 with N
/// the number of train examples, and the label is the one whose cumulative train
/// count first exceeds r (SentLen: the target of train example r). The sentences
/// must be the ones the dataset was built from (pass the corpus three times, or
/// use the overload, for a oneCorpus dataset).
ProbeDataset controlTask(const ProbeDataset &dataset, const std::vector<Sentence> &train,
                         const std::vector<Sentence> &dev, const std::vector<Sentence> &test, std::uint64_t seed);
ProbeDataset controlTask(const ProbeDataset &dataset, const std::vector<Sentence> &corpus, std::uint64_t seed);

/// The control-task word type of a sentence: its first word, ASCII lower-cased
/// (UTF-8 bytes above 0x7F are left as they are).
std::string controlWordType(const Sentence &sentence);

/// Count of each label among examples (labels.size() entries).
std::vector<long> labelCounts(const std::vector<ProbeExample> &examples, std::size_t numLabels);

/// Most frequent train label (ties: the lowest index); -1 for regression or no train.
int majorityLabel(const ProbeDataset &dataset);
/// Accuracy on test of always predicting majorityLabel(); NaN for regression or an empty test.
double majorityAccuracy(const ProbeDataset &dataset);
/// Macro-F1 on test of the majority predictor, averaged over the labels that occur
/// in test or are predicted (scikit-learn's "macro"): 2p/(1+p) / K where p is the
/// test share of the majority label and K that number of labels. NaN as above.
double majorityMacroF1(const ProbeDataset &dataset);

struct RegressionBaseline {
    double mean = 0.0; ///< train mean of the targets (the prediction)
    double mse = 0.0;  ///< on test
    double r2 = 0.0;   ///< on test: 1 - MSE / (variance of the test targets); NaN if that variance is 0
};
/// Predicting the train mean for every test example; NaN fields for an empty train or test.
RegressionBaseline meanBaseline(const ProbeDataset &dataset);

/// A few lines for the CLI: task, tree used, split, label counts per split,
/// exclusions and the majority baseline.
std::string describeProbeDataset(const ProbeDataset &dataset);

} // namespace treelens
