#pragma once
/// \file paireval.h
/// Metrics for sentence-pair corpora (core/formats/pairs.h): answer-selection
/// ranking (AP/RR/P@1 per question, MAP/MRR/P@1 over a corpus), classification
/// (accuracy, per-label precision/recall/F1, macro F1, confusion matrix), slices of
/// a corpus for error analysis, and an IDF-weighted word-overlap baseline scorer.
/// Pure functions of their arguments: no I/O, thread-safe. docs/formats.md,
/// "Sentence pairs", describes the protocol.
///
/// Ranking. The candidates of one group (SentencePair::group, the question id) are
/// sorted by score, highest first. **Ties are broken by input order**: of two
/// candidates with equal scores, the one that comes first in the corpus ranks
/// higher (a stable sort). The rule is deterministic, but it flatters a system
/// that gives equal scores when a corpus lists its correct answers first; a scorer
/// should break ties itself. A candidate is correct when its label is "1".
///
/// Words. Where words are compared (overlap slices, the IDF baseline) they are
/// Token::text lower-cased (ASCII letters only). A *content word* is such a word
/// that is not punctuation (it has no ASCII letter or digit and no character at or
/// above U+00C0 outside the general-punctuation block U+2000-U+206F) and is not in
/// the stopword list of isStopword() (articles, auxiliaries, pronouns,
/// prepositions, conjunctions and the wh-words).

#include <cstddef>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/base/result.h"
#include "core/data/sentence.h"
#include "core/formats/pairs.h"

namespace treelens {

// ------------------------------------------------------------------ ranking

/// The metrics of one group: one question and its candidates.
struct GroupRanking {
    std::string group;
    std::vector<int> ranked; ///< the group's pairs (corpus indices), best-ranked first
    int candidates = 0;
    int correct = 0;
    int firstCorrectRank = 0;    ///< 1-based rank of the best-ranked correct candidate; 0 when none is correct
    double averagePrecision = 0; ///< mean over the correct candidates of the precision at their ranks; 0 when none
    double reciprocalRank = 0;   ///< 1 / firstCorrectRank; 0 when none is correct
    double precisionAt1 = 0;     ///< 1 when the top-ranked candidate is correct, else 0
    bool used = false;           ///< counted in the corpus means under the protocol
};

enum class RankingProtocol {
    /// Groups without a correct candidate, or with only correct ones, are dropped
    /// (the usual WikiQA evaluation: such questions cannot tell rankings apart).
    Clean,
    /// Every group counts: without a correct candidate it scores 0, with only
    /// correct ones 1.
    All
};

struct RankingEval {
    RankingProtocol protocol = RankingProtocol::Clean;
    std::vector<GroupRanking> groups; ///< every group, in order of first appearance
    int groupsUsed = 0;
    int droppedNoCorrect = 0;  ///< Clean: groups without a correct candidate
    int droppedAllCorrect = 0; ///< Clean: groups whose candidates are all correct
    int groupsDropped() const { return droppedNoCorrect + droppedAllCorrect; }
    double map = 0;          ///< mean average precision over the used groups (0 when none)
    double mrr = 0;          ///< mean reciprocal rank over the used groups
    double precisionAt1 = 0; ///< mean P@1 over the used groups
};

/// One group's metrics. `correct[i]` and `scores[i]` describe candidate i; the
/// ranking is by score, ties in input order. GroupRanking::ranked holds the
/// positions 0..n-1 in ranked order; `used` is left false. Precondition: equal sizes.
GroupRanking rankGroup(const std::vector<bool> &correct, const std::vector<double> &scores);

/// Ranks every group of a ranking corpus by `scores` (one per pair, in corpus
/// order). Errors: the corpus is not a ranking corpus, the score count differs
/// from the pair count, or a score is NaN (the message names the pair).
Result<RankingEval> evaluateRanking(const PairCorpus &corpus, const std::vector<double> &scores,
                                    RankingProtocol protocol = RankingProtocol::Clean);

// ----------------------------------------------------------- classification

struct LabelMetrics {
    std::string label;
    long gold = 0;      ///< pairs whose gold label it is
    long predicted = 0; ///< pairs predicted with it
    long correct = 0;   ///< both
    double precision = 0; ///< correct / predicted; 0 when nothing was predicted with it
    double recall = 0;    ///< correct / gold; 0 when no pair has it
    double f1 = 0;        ///< harmonic mean of the two; 0 when both are 0
};

struct ClassificationEval {
    std::vector<std::string> labels; ///< the label set, in its fixed order
    long total = 0;
    long correct = 0;
    double accuracy = 0; ///< correct / total; 0 when total is 0
    std::vector<LabelMetrics> perLabel; ///< one per label, in `labels` order
    /// Mean F1 over the labels that occur as gold or predicted labels (a label
    /// that occurs in neither has no F1 and is left out, as scikit-learn does by
    /// default); 0 when there are none.
    double macroF1 = 0;
    /// confusion[g][p]: pairs with gold label labels[g] predicted as labels[p].
    std::vector<std::vector<long>> confusion;
};

/// Compares predictions with gold labels (equal counts, every label in `labels`;
/// otherwise an error naming the item and label).
Result<ClassificationEval> evaluateClassification(const std::vector<std::string> &labels, const std::vector<std::string> &gold,
                                                  const std::vector<std::string> &predicted);
/// The same for a corpus: gold labels from its pairs, label set PairCorpus::labels.
Result<ClassificationEval> evaluateClassification(const PairCorpus &corpus, const std::vector<std::string> &predicted);

// ------------------------------------------------------------------- slices

enum class SliceKind {
    /// The question's wh-word: what, who (also whom, whose), when, where, why,
    /// how ("how many"/"how much" included), which, or other. The first of these
    /// among the first kQuestionWordWindow tokens, lower-cased.
    QuestionWord,
    /// Tokens of the question (first sentence): <=5, 6-10, 11-15, 16+.
    QuestionLength,
    /// Tokens of the candidate (second sentence): <=10, 11-20, 21-30, 31-40, 41+.
    CandidateLength,
    /// lexicalOverlap() of the pair: "0", "(0,0.25]", "(0.25,0.5]", "(0.5,0.75]",
    /// "(0.75,1]", and "no content words" when the question has none.
    Overlap,
    /// Depth (DependencyTree::depth()) of the question's dependency tree: 0-2, 3-4,
    /// 5-6, 7+, and "unknown" for questions without a tree.
    TreeDepth,
    /// Pairs whose question or candidate text contains a string (ASCII case
    /// ignored): one slice.
    Text
};

/// Tokens searched for the question word.
inline constexpr int kQuestionWordWindow = 3;

/// "question-word", "question-length", "candidate-length", "overlap", "tree-depth", "text".
std::string sliceKindName(SliceKind kind);
/// True for the kinds whose bins split a question's candidates (candidate length,
/// overlap, text): a ranking slice then re-ranks each question among its
/// candidates in the slice only, and counts the question only where it has a
/// correct and a wrong candidate there.
bool sliceSplitsQuestions(SliceKind kind);
/// For the user, under a ranking slice table of `kind`: why its figures are not
/// comparable with the whole set's ("" for kinds that keep questions whole).
/// `questionSlices`: the questions the slices counted, summed over them;
/// `questions`: the questions the whole set counted.
std::string sliceProtocolNote(SliceKind kind, int questionSlices, int questions);
Result<SliceKind> parseSliceKind(const std::string &name);

/// A subset of a corpus's pairs.
struct PairSlice {
    std::string name;       ///< the bin ("what", "6-10", "(0,0.25]", "text: 'born'")
    std::vector<int> pairs; ///< corpus indices, increasing
};

/// The slices of `kind` in the fixed order listed at SliceKind, empty ones
/// included (so tables line up across systems). Every pair is in exactly one
/// slice, except for Text, whose one slice holds the pairs containing `text`
/// (all pairs when `text` is empty).
std::vector<PairSlice> slicePairs(const PairCorpus &corpus, SliceKind kind, const std::string &text = {});

/// The corpus restricted to a slice's pairs (task, labels and source kept).
/// Precondition (as for slicedValues): the slice's indices are in range, as those
/// of slicePairs() on the same corpus are; the evaluate*Slice functions check it.
PairCorpus slicedCorpus(const PairCorpus &corpus, const PairSlice &slice);
/// `values` (one per corpus pair) restricted to a slice's pairs, in slice order.
template <class T>
std::vector<T> slicedValues(const std::vector<T> &values, const PairSlice &slice)
{
    std::vector<T> out;
    out.reserve(slice.pairs.size());
    for (const int i : slice.pairs)
        out.push_back(values.at(static_cast<std::size_t>(i)));
    return out;
}

/// Ranking metrics over the pairs of one slice: each group is cut down to its
/// candidates in the slice (question-level slices keep whole groups), then ranked
/// and filtered by the protocol as evaluateRanking() does.
Result<RankingEval> evaluateRankingSlice(const PairCorpus &corpus, const std::vector<double> &scores, const PairSlice &slice,
                                         RankingProtocol protocol = RankingProtocol::Clean);
/// Classification metrics over the pairs of one slice.
Result<ClassificationEval> evaluateClassificationSlice(const PairCorpus &corpus, const std::vector<std::string> &predicted,
                                                       const PairSlice &slice);

// -------------------------------------------------------------------- words

/// The question word of a question (see SliceKind::QuestionWord).
std::string questionWord(const Sentence &question);
/// True for a word of the stopword list (expects it lower-cased).
bool isStopword(std::string_view word);
/// True when a token is punctuation by the rule in the file comment.
bool isPunctuationWord(std::string_view word);
/// The content words of a sentence, lower-cased, in order (repeats kept).
std::vector<std::string> contentWords(const Sentence &sentence);
/// The fraction of the question's distinct content words that occur (lower-cased)
/// among the candidate's words; -1 when the question has no content words.
double lexicalOverlap(const Sentence &question, const Sentence &candidate);

// ------------------------------------------------------------ IDF baseline

/// Inverse document frequencies: idf(w) = ln(N / df(w)) over N documents, df(w)
/// the number of documents holding the (lower-cased) word w at least once.
struct IdfTable {
    std::unordered_map<std::string, double> idf;
    long documents = 0; ///< N
    /// idf of `word` (lower-cased); a word of no document counts as if it were in
    /// one (ln N): rare words are the informative ones. 0 when N is 0.
    double of(const std::string &word) const;
};

/// IDF over documents given as words (lower-cased here).
IdfTable buildIdf(const std::vector<std::vector<std::string>> &documents);
/// IDF over sentences, each one document (its Token::text words).
IdfTable buildIdf(const std::vector<Sentence> &documents);
/// IDF over a corpus's candidate sentences (SentencePair::second), one document
/// per pair: build it from the training corpus and score any corpus with it.
IdfTable candidateIdf(const PairCorpus &corpus);

/// The word-overlap baseline: for each pair, the sum of idf over the question's
/// distinct content words that occur among the candidate's words (lower-cased).
std::vector<double> idfOverlapScores(const PairCorpus &corpus, const IdfTable &idf);

} // namespace treelens
