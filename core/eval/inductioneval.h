#pragma once
/// \file inductioneval.h
/// Unsupervised constituency parsing evaluation (torch-free): an encoder's
/// induced brackets against gold PTB trees, with the protocol of the Tree
/// Transformer paper and the PRPN/ON-LSTM code it follows: traces and function
/// tags stripped, punctuation words removed (tags . , : -LRB- -RRB- '' ``),
/// unlabelled brackets, single words and the whole-sentence span ignored.
/// Reports corpus-level F1 and the mean of sentence-level F1 (the paper's
/// figure), for all lengths and for sentences of at most 10 words, with
/// left-branching, right-branching and random-binary baselines under the same
/// scorer, and the model's F1 for every start layer.

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "core/base/result.h"
#include "core/base/runcontrol.h"
#include "core/data/constituencytree.h"
#include "core/encoders/encoder.h"

namespace treelens {

struct InductionScore {
    std::size_t sentences = 0;
    double corpusF1 = 0.0;     ///< percent: 2PR/(P+R) over all brackets
    double sentenceF1 = 0.0;   ///< percent: mean of per-sentence F1 (a sentence with no gold and no predicted bracket counts 100)
    double precision = 0.0;    ///< percent, corpus-level
    double recall = 0.0;
    std::vector<double> perSentence; ///< percent F1 of every scored sentence, in input order
};

struct InductionSplit {
    InductionScore model, left, right, random;
};

struct InductionReport {
    std::vector<std::string> files;
    InductionSplit all, upTo10;
    struct StartLayer {
        int layer = 0;      ///< 0-based start layer (minimum layer: min(config.minLayer, layer))
        InductionScore all, upTo10;
    };
    std::vector<StartLayer> byStartLayer;
    InductionConfig config;
    int layers = 0;            ///< the encoder's layers (0: baselines only)
    std::size_t skipped = 0;   ///< sentences with fewer than 2 words after punctuation removal, or too long
};

/// Gold word lists and unlabelled brackets from PTB text, punctuation removed.
struct InductionGold {
    std::vector<std::string> words;
    std::vector<std::pair<int, int>> brackets;
};
Result<std::vector<InductionGold>> readInductionGold(const std::string &ptbText, const std::string &source);
/// The same for one tree already read (traces and function tags stripped by the
/// caller); preterminal tags decide what is punctuation.
InductionGold inductionGold(const ConstituencyTree &tree);

/// The PTB tags the protocol removes as punctuation: . , : -LRB- -RRB- '' ``
bool isInductionPunctuationTag(const std::string &tag);

/// The indices (into tree.words()) of the words inductionGold keeps: those whose
/// preterminal tag is not punctuation.
std::vector<int> inductionKeptWords(const ConstituencyTree &tree);

/// Brackets over all the words of `tree` as the protocol sees them: the
/// punctuation taken out (a bracket keeps the words inside it that are not
/// punctuation), then single words and the whole sentence dropped (rerun = false).
PunctuationFreeParse removePunctuation(const ConstituencyTree &tree, const std::vector<std::pair<int, int>> &brackets);

/// One sentence's brackets as evaluateInduction makes them: `encoder` run on the
/// words of `whole` that inductionKeptWords(tree) keeps, with the induction
/// settings and switched-off heads `whole` was made with (`whole` is the encoder's analysis of the whole
/// sentence; tree leaves and its words correspond one to one). Without punctuation
/// to take out, `whole`'s own brackets are the answer and the encoder does not run
/// again; fewer than 2 words left give no brackets. Errors: the encoder's, or a
/// tree that does not fit the words.
Result<PunctuationFreeParse> induceWithoutPunctuation(Encoder &encoder, const ConstituencyTree &tree, const Analysis &whole,
                                                      const RunControl *control = nullptr);

/// One sentence under the protocol: inductionGold(tree) against `parse`, by scoreBrackets.
InductionScore scoreInducedSentence(const ConstituencyTree &tree, const PunctuationFreeParse &parse);

/// The gold sentences of PTB files with 2 to `maxWords` words (0 = any length)
/// after punctuation removal; the others are counted in `skipped`.
Result<std::vector<InductionGold>> readInductionGoldFiles(const std::vector<std::string> &files, int maxWords,
                                                          std::size_t *skipped = nullptr);

/// Scores brackets (any producer) against gold; exposed for tests.
InductionScore scoreBrackets(const std::vector<std::vector<std::pair<int, int>>> &gold,
                             const std::vector<std::vector<std::pair<int, int>>> &predicted,
                             const std::vector<int> &lengths);

Result<InductionReport> evaluateInduction(Encoder &encoder, const std::vector<std::string> &goldFiles,
                                          const InductionConfig &config, const RunControl *control = nullptr);

/// The same over gold sentences already prepared (sentences of fewer than 2 words
/// or longer than the encoder's limit must have been removed); `predicted`, when
/// given, receives the model's brackets per sentence at the configured start layer.
/// A null encoder scores the baselines only (model scores empty, no start layers).
Result<InductionReport> evaluateInductionGold(Encoder *encoder, const std::vector<InductionGold> &gold,
                                              const InductionConfig &config, const RunControl *control = nullptr,
                                              std::vector<std::vector<std::pair<int, int>>> *predicted = nullptr);

/// The same from the link probabilities of every gold sentence ([sentence][layer][gap],
/// as inductionWordLinks gives them) of a model of `layers` layers: what a merge of
/// eval-induction shards computes (docs/cluster.md).
Result<InductionReport> evaluateInductionLinks(const std::vector<std::vector<std::vector<float>>> &wordLinks, int layers,
                                               const std::vector<InductionGold> &gold, const InductionConfig &config,
                                               std::vector<std::vector<std::pair<int, int>>> *predicted = nullptr);

/// The link probabilities of every gold sentence over its words ([sentence][layer][gap]),
/// analysed in blocks of the sentences whose index (+ `firstIndex`, a shard's first
/// sentence in the whole gold) falls in each `block` (so a shard's sentences are batched
/// as the whole run batches them).
Result<std::vector<std::vector<std::vector<float>>>> inductionWordLinks(Encoder &encoder, const std::vector<InductionGold> &gold,
                                                                        const InductionConfig &config,
                                                                        const RunControl *control = nullptr,
                                                                        std::size_t block = 512, std::size_t firstIndex = 0);

/// The unsupervised-parse settings chosen on a development set.
struct InductionTuning {
    InductionConfig best;          ///< highest mean sentence F1 (all lengths); ties keep the earlier setting
    InductionScore bestScore;
    InductionScore startScore;     ///< the settings tuning started from
    struct Tried {
        InductionConfig config;
        double sentenceF1 = 0.0, corpusF1 = 0.0;
    };
    std::vector<Tried> tried;      ///< every setting, in the order tried
    std::size_t sentences = 0;
};

/// Tries every start layer (top first), every minimum layer at or below it,
/// thresholds 0.50–0.95 in steps of 0.05 and a descent rule of the threshold or
/// 0.1 below it, on `gold` (the encoder runs once; induction is re-run per
/// setting) and keeps the best by mean sentence F1 — the settings start with
/// `start` and change only for a strictly better F1.
Result<InductionTuning> tuneInduction(Encoder &encoder, const std::vector<InductionGold> &gold, const InductionConfig &start,
                                      const RunControl *control = nullptr);

/// The report as a person reads it, layers numbered from 1 (core/base/numbering.h):
/// "config" as InductionConfig::toNumberedJson writes it (left out without an
/// encoder), "by_start_layer"[i]["start_layer"] from 1, "layer_numbering": "1-based".
std::string inductionReportJson(const InductionReport &report);
/// The table of eval-induction: baselines, the model's settings, "layer k" rows from 1.
std::string inductionReportText(const InductionReport &report);

} // namespace treelens
