#pragma once
/// \file probes.h
/// Trainable probes over an encoder's frozen hidden states (TreeLens issue 6).
/// Torch-free API; the training runs on LibTorch inside probes.cpp.
///
///  - extractFeatures(): per sentence and per layer (0 = embeddings .. L) the
///    [CLS] state (models with a [CLS]-style token) and the mean of the word
///    tokens' states, and on request every word's state (structural probes).
///  - trainProbe(): the probing classifier of §4.7 of the tree-aggregation paper
///    ("a simple MLP with a layer of the same size as the input embeddings, a
///    ReLU activation, and a prediction layer") on frozen sentence vectors, or a
///    linear probe (no hidden layer). Classification: cross-entropy, accuracy and
///    macro-F1; SentLen regression: MSE and R².
///  - trainStructuralProbe(): the distance and depth probes of Hewitt & Manning
///    2019 ("A Structural Probe for Finding Syntax in Word Representations"),
///    trained and evaluated as their released code does (structural-probes:
///    probe.py, loss.py, regimen.py, reporter.py):
///      distance: d̂(i,j) = ||B(h_i − h_j)||², loss per sentence
///                (1/n²) Σ_{i,j} |d(i,j) − d̂(i,j)|, averaged over the sentences of a batch;
///      depth:    d̂(i) = ||B h_i||², loss (1/n) Σ_i |depth(i) − d̂(i)|, depth = arcs
///                from the root word (the root word has depth 0);
///      B ∈ R^{k×d} initialised U(−0.05, 0.05); Adam lr 0.001, batches of 20
///      sentences, learning rate ×0.1 whenever the dev loss does not improve
///      (ReduceLROnPlateau, patience 0, relative threshold 1e-4), the parameters of
///      the best dev loss kept (an improvement must exceed 1e-4), stop after 5
///      epochs without one, at most 40 epochs.
///    Evaluation (their reporter.py): UUAS = gold∩predicted edges / gold edges over
///    the corpus, where both edge sets are the minimum spanning tree (Kruskal on
///    pairs sorted by distance, ties in row-major order) of the gold / predicted
///    distances over the non-punctuation words; DSpr = for every word, the
///    Spearman correlation between its row of predicted and gold distances (all
///    words, punctuation included, the word itself included), averaged over all
///    rows of all sentences of the same length, then over lengths 5..50; root
///    accuracy = share of sentences whose gold root word (depth 0) is the
///    non-punctuation word of smallest predicted depth; NSpr = per sentence the
///    Spearman between predicted and gold depths of all words, averaged per
///    length then over lengths 5..50. Punctuation = UPOS "PUNCT" (their code uses
///    the PTB tags '' , . : `` -LRB- -RRB-, which is the fallback when a token
///    has no UPOS). Spearman uses average ranks for ties (scipy); correlations
///    that are undefined (a constant row) are left out of the averages (scipy
///    gives NaN, which would make their per-length mean NaN).
///
/// Determinism: the parameters are initialised from std::mt19937(seed) (not from
/// LibTorch's global generator, which is left alone), the examples are shuffled
/// every epoch with a Fisher–Yates shuffle on the same generator, and training
/// runs on one LibTorch thread (the previous count is restored afterwards; the
/// count is process-wide, so do not run a probe while another thread runs
/// inference with more threads): two runs with the same inputs and seed give
/// bit-identical results on one machine.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/base/result.h"
#include "core/base/runcontrol.h"
#include "core/data/analysis.h"
#include "core/data/sentence.h"
#include "core/probing/probetasks.h"

namespace treelens {

class Encoder;

// ---------------------------------------------------------------------------
// Feature extraction
// ---------------------------------------------------------------------------

struct FeatureOptions {
    bool sentenceVectors = true; ///< [CLS] and mean-pooled vectors per layer
    bool wordVectors = false;    ///< every word's state per layer (structural probes)
    /// Layers to keep (0 = embeddings .. L); empty = all. The others are left as
    /// empty matrices, which keeps word states of a large corpus affordable.
    std::vector<int> layers;
    int batchSize = 32; ///< sentences per layerStates() call
};

/// Frozen features of a list of sentences. Layer-indexed vectors have
/// layers + 1 entries; an entry is an empty Matrix when that layer was not kept.
struct ProbeFeatures {
    int layers = 0;      ///< encoder layers L (entries 0..L)
    int dim = 0;         ///< d_model
    bool hasCls = false; ///< cls is filled
    std::size_t sentences = 0;
    std::vector<int> keptLayers;  ///< increasing
    std::vector<Matrix> cls;      ///< [layer]: sentences×dim, the [CLS] token's state (empty without [CLS])
    std::vector<Matrix> mean;     ///< [layer]: sentences×dim, the mean over the word tokens
    /// Word vectors: the words of sentence s are rows wordOffset[s] .. wordOffset[s+1]-1
    /// of words[layer] (sentences + 1 entries; empty unless wordVectors).
    std::vector<int> wordOffset;
    std::vector<Matrix> words;    ///< [layer]: totalWords×dim
    /// Sentences without words: never sent to the encoder, their vectors are zeros.
    std::vector<int> emptySentences;

    bool hasLayer(int layer) const;
};

/// Runs the encoder over `sentences` (Sentence::words(), plus the dependency /
/// constituency tree when the encoder's InputKind needs one) in batches through
/// Encoder::layerStates(). Token layout: when EncoderInfo::hasClsToken, token 0
/// is the [CLS] token and word w is token w+1, otherwise word w is token w; a
/// layer matrix whose row count is not words (+1) is an error (word-piece
/// encoders are not supported yet). Progress: control->report(done, total,
/// "extracting features") after every batch; cancellation between batches
/// returns the Error "cancelled". Errors name the sentence (1-based index and id).
Result<ProbeFeatures> extractFeatures(Encoder &encoder, const std::vector<Sentence> &sentences,
                                      const FeatureOptions &options = {}, const RunControl *control = nullptr);

// ---------------------------------------------------------------------------
// Sentence-level probes (MLP / linear)
// ---------------------------------------------------------------------------

enum class SentencePooling { Cls, Mean };

/// One split's design matrix and targets.
struct ProbeSplit {
    Matrix features;             ///< examples×dim
    std::vector<int> labels;     ///< classification: class per example
    std::vector<double> targets; ///< regression: target per example
    std::vector<int> sentences;  ///< the ProbeExample::sentence of each row (for listing sentences)
};

struct ProbeInputs {
    int numClasses = 0; ///< 0 = regression
    std::vector<std::string> labels;
    ProbeSplit train, dev, test;
};

/// Gathers one layer's pooled vectors for a probing dataset: row r of a split is
/// the feature of its r-th ProbeExample (features of the matching split: pass
/// the same ProbeFeatures three times for a oneCorpus dataset). Errors: the layer
/// was not kept, Cls pooling without a [CLS] token, a sentence index out of range.
Result<ProbeInputs> probeInputs(const ProbeDataset &dataset, const ProbeFeatures &train, const ProbeFeatures &dev,
                                const ProbeFeatures &test, int layer, SentencePooling pooling);

enum class ProbeArchitecture {
    Mlp,   ///< input → Linear(d, hidden) → ReLU → Linear(hidden, classes) (the paper)
    Linear ///< input → Linear(d, classes)
};

struct ProbeTrainOptions {
    ProbeArchitecture architecture = ProbeArchitecture::Mlp;
    int hiddenSize = 0;          ///< 0 = the input size (the paper)
    double learningRate = 1e-3;  ///< Adam (β 0.9/0.999)
    int batchSize = 64;
    int maxEpochs = 100;
    /// Stop after this many epochs without a better dev metric; 0 = always run
    /// maxEpochs (the paper trains every probe for the same number of epochs).
    int patience = 10;
    std::uint32_t seed = 1;
    int threads = 1;             ///< LibTorch CPU threads while training
    std::string device = "cpu";  ///< "cpu" (or "cuda" where LibTorch has it)

    Status validate() const;
};

struct ProbeMetrics {
    double loss = std::numeric_limits<double>::quiet_NaN();     ///< cross-entropy, or MSE for regression
    double accuracy = std::numeric_limits<double>::quiet_NaN(); ///< classification
    double macroF1 = std::numeric_limits<double>::quiet_NaN();  ///< classification (scikit-learn "macro")
    double mse = std::numeric_limits<double>::quiet_NaN();      ///< regression, in target units
    double r2 = std::numeric_limits<double>::quiet_NaN();       ///< regression: 1 − MSE / variance of the split's targets
};

struct ProbeEpoch {
    int epoch = 0;          ///< 1-based
    double trainLoss = 0.0; ///< mean over the epoch's examples (regression: MSE in target units)
    double devLoss = std::numeric_limits<double>::quiet_NaN();
    /// Model-selection metric on dev: accuracy (classification), MSE (regression); NaN without dev.
    double devMetric = std::numeric_limits<double>::quiet_NaN();
};

struct ProbeResult {
    bool regression = false;
    long long parameters = 0;
    std::vector<ProbeEpoch> curve;
    int bestEpoch = 0;      ///< whose parameters are kept (the last epoch without dev)
    double bestDevMetric = std::numeric_limits<double>::quiet_NaN();
    bool stoppedEarly = false;
    ProbeMetrics dev, test; ///< with the kept parameters
    std::vector<int> testPredicted;      ///< classification: predicted class per test row
    std::vector<double> testPredictions; ///< regression: predicted value per test row
};

/// Trains a probe on inputs.train, selects the epoch on inputs.dev (higher
/// accuracy / lower MSE; a tie keeps the earlier epoch) and evaluates on
/// inputs.test. Regression targets are standardised with the train mean and
/// standard deviation for training (reported numbers are in target units).
/// onEpoch runs after every epoch on the calling thread. Errors: invalid options,
/// no train examples, mismatched dimensions or counts, a label out of range,
/// "cancelled".
Result<ProbeResult> trainProbe(const ProbeInputs &inputs, const ProbeTrainOptions &options = {},
                               const std::function<void(const ProbeEpoch &)> &onEpoch = {},
                               const RunControl *control = nullptr);

/// Accuracy / macro-F1 of predicted vs gold classes (macro over the classes that
/// occur in gold or predicted, as scikit-learn). NaN when empty.
ProbeMetrics classificationMetrics(const std::vector<int> &gold, const std::vector<int> &predicted);
/// MSE and R² (1 − MSE / population variance of gold; NaN when that is 0).
ProbeMetrics regressionMetrics(const std::vector<double> &gold, const std::vector<double> &predicted);

// ---------------------------------------------------------------------------
// Structural probes (Hewitt & Manning 2019)
// ---------------------------------------------------------------------------

enum class StructuralProbeKind { Distance, Depth };

/// Whether probes can train on `device` ("cpu", "cuda", "cuda:N", "auto"):
/// errors name what is missing (no CUDA build / no such GPU).
Status probeDeviceAvailable(const std::string &device);

/// One sentence for a structural probe.
struct StructuralExample {
    int sentence = -1;        ///< index into the caller's sentence vector
    Matrix states;            ///< words×dim
    std::vector<int> heads;   ///< gold heads, CoNLL-U numbering (0 = root)
    std::vector<char> punct;  ///< 1 = punctuation (left out of UUAS and root accuracy)
};

struct StructuralExamples {
    std::vector<StructuralExample> examples;
    std::map<std::string, long> skipped; ///< reason → sentences: "no-dependency-tree", "invalid-dependency-tree", "empty-sentence"
};

/// True for UPOS "PUNCT", or without a UPOS for the PTB punctuation tags of
/// Hewitt & Manning's code ('' , . : `` -LRB- -RRB-).
bool isPunctuationToken(const Token &token);

/// The examples of one layer: sentences with a valid dependency tree over all
/// their tokens, with their word states from `features` (extracted with
/// wordVectors from the same sentences). Errors: the layer has no word vectors,
/// features of another sentence count or word count.
Result<StructuralExamples> structuralExamples(const std::vector<Sentence> &sentences, const ProbeFeatures &features,
                                              int layer);

struct StructuralProbeOptions {
    int rank = 0;                ///< k, rows of B; 0 = d (their experiments use the full rank)
    double learningRate = 1e-3;
    int batchSize = 20;          ///< sentences
    int maxEpochs = 40;
    int patience = 5;            ///< stop after this many epochs without a dev-loss improvement (0 = never)
    double minImprovement = 1e-4;///< a dev loss must beat the best by more than this
    double lrDecay = 0.1;        ///< on a dev-loss plateau (1 = off)
    std::uint32_t seed = 1;
    int threads = 1;
    std::string device = "cpu";

    Status validate() const;
};

/// One evaluated sentence (the GUI's heatmaps and trees).
struct StructuralSentenceResult {
    int sentence = -1;   ///< StructuralExample::sentence
    int length = 0;      ///< words, punctuation included
    std::vector<float> predicted; ///< distance: n×n predicted squared distances (row-major); depth: n predicted depths
    std::vector<int> gold;        ///< distance: n×n tree distances; depth: n depths
    /// Distance: minimum-spanning-tree edges over the non-punctuation words, (i, j)
    /// 0-based with i < j, sorted; an edge of predictedEdges not in goldEdges is wrong.
    std::vector<std::pair<int, int>> goldEdges, predictedEdges;
    int correctEdges = 0;
    int goldRoot = -1;      ///< depth: the word of gold depth 0
    int predictedRoot = -1; ///< depth: non-punctuation word of smallest predicted depth
    double spearman = std::numeric_limits<double>::quiet_NaN(); ///< distance: mean over rows; depth: the sentence's
    double loss = 0.0;      ///< the training loss of this sentence
};

struct StructuralMetrics {
    double loss = std::numeric_limits<double>::quiet_NaN(); ///< mean over sentences of the L1 loss
    // Distance probe.
    double uuas = std::numeric_limits<double>::quiet_NaN();
    double dspr = std::numeric_limits<double>::quiet_NaN();
    long edgesCorrect = 0, edgesTotal = 0;
    // Depth probe.
    double rootAccuracy = std::numeric_limits<double>::quiet_NaN();
    double nspr = std::numeric_limits<double>::quiet_NaN();
    long rootsCorrect = 0;
    long sentences = 0;
    std::map<int, double> spearmanByLength; ///< every length seen (not only 5..50)
};

struct StructuralEpoch {
    int epoch = 0;
    double trainLoss = 0.0;
    double devLoss = std::numeric_limits<double>::quiet_NaN();
    double devMetric = std::numeric_limits<double>::quiet_NaN(); ///< UUAS (distance) or root accuracy (depth)
    double learningRate = 0.0;  ///< used in this epoch
};

struct StructuralProbeResult {
    StructuralProbeKind kind = StructuralProbeKind::Distance;
    int rank = 0;
    long long parameters = 0;
    std::vector<StructuralEpoch> curve;
    int bestEpoch = 0;
    double bestDevLoss = std::numeric_limits<double>::quiet_NaN();
    bool stoppedEarly = false;
    StructuralMetrics dev, test;
    std::vector<StructuralSentenceResult> testSentences; ///< in the order of the test examples
};

/// Trains on `train`, selects on `dev` (dev may be empty: the last epoch is kept,
/// no early stopping, no decay) and evaluates on `test`. Squared distances are
/// computed from the Gram matrix of B h (||a||² + ||b||² − 2a·b, the same function
/// as their pairwise differences with B×N×N instead of B×N×N×k memory); the
/// reported predictions have an exact 0 diagonal and are clamped at 0. All examples must have
/// the same dimension. Errors: invalid options, no train examples, mismatched
/// dimensions or head counts, "cancelled".
Result<StructuralProbeResult> trainStructuralProbe(StructuralProbeKind kind, const std::vector<StructuralExample> &train,
                                                   const std::vector<StructuralExample> &dev,
                                                   const std::vector<StructuralExample> &test,
                                                   const StructuralProbeOptions &options = {},
                                                   const std::function<void(const StructuralEpoch &)> &onEpoch = {},
                                                   const RunControl *control = nullptr);

/// Evaluates given predictions (predictions[s]: n×n for Distance, n for Depth)
/// against the examples' gold trees as described at the top of this file.
/// keepSentences = false leaves `sentences` empty (metrics only).
StructuralMetrics evaluateStructural(StructuralProbeKind kind, const std::vector<StructuralExample> &examples,
                                     const std::vector<std::vector<float>> &predictions,
                                     std::vector<StructuralSentenceResult> *sentences = nullptr);

/// Hewitt & Manning's minimum spanning tree: pairs (i, j), i < j, of words not
/// excluded, stably sorted by distance (row-major order among ties), added when
/// they join two components. Returns the edges (i < j) sorted.
std::vector<std::pair<int, int>> minimumSpanningTree(const std::vector<float> &distances, int n,
                                                     const std::vector<char> &exclude);

/// Spearman's rank correlation with average ranks for ties; NaN when either side
/// is constant or the sizes differ / are below 2.
double spearman(const std::vector<double> &x, const std::vector<double> &y);

struct LengthAverage {
    std::map<int, double> byLength; ///< mean of the values of each length (NaN values skipped)
    double mean = std::numeric_limits<double>::quiet_NaN(); ///< mean of byLength over [minLength, maxLength]
};
/// Hewitt & Manning's averaging: per length, then over the lengths in range that occur.
LengthAverage averageByLength(const std::vector<std::pair<int, double>> &lengthValues, int minLength = 5,
                              int maxLength = 50);

} // namespace treelens
