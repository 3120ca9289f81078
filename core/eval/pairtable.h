#pragma once
/// \file pairtable.h
/// The pair workbench's tables, torch- and Qt-free: one row per question with
/// its ranking metrics under one or two systems (worst first), the questions
/// where two systems disagree on the top answer, and the per-question and
/// per-slice tables as CSV or JSON for export.

#include <cstddef>
#include <string>
#include <vector>

#include "core/base/result.h"
#include "core/base/runcontrol.h"
#include "core/data/analysis.h"
#include "core/encoders/encoder.h"
#include "core/eval/paireval.h"
#include "core/formats/pairs.h"

namespace treelens {

/// What one system (a pair model, or the IDF baseline) said about every pair.
struct PairSystem {
    std::string name;
    std::vector<double> scores;          ///< ranking score per pair (corpus order)
    std::vector<std::string> predicted;  ///< classification label per pair ("" = none)
};

/// The corpus label a binary pair model's prediction stands for: the model's
/// second label (relevant / entailment) is the corpus's positive label ("1" or
/// "YES", else its second label), the first the other one. "" when the model
/// or the corpus is not binary.
std::string corpusLabelFor(const Prediction &prediction, const PairCorpus &corpus);

/// One pair as a pair model reads it: both sides' words and trees.
inline EncoderInput pairEncoderInput(const Sentence &first, const Sentence &second)
{
    return EncoderInput{first.words(), first.dependency, first.constituency, second.words(), second.dependency, second.constituency};
}

/// The blocks a pair corpus is scored in: whole question groups (consecutive pairs with
/// one group id; a pair without one is a group of its own), block k holding the groups
/// whose first pair lies in [k·block, (k+1)·block) of the whole corpus, `firstIndex` being
/// the whole corpus' index of pairs[0] (a shard's first pair). Returns each block's first
/// pair (indices into `pairs`). A shard of whole blocks scores every pair in the batch the
/// whole run gives it (core/formats/shard.h).
std::vector<std::size_t> pairBlockStarts(const std::vector<SentencePair> &pairs, std::size_t block, std::size_t firstIndex = 0);

/// Scores every pair of `corpus` with a pair encoder (EncoderInfo::pairInput),
/// in the blocks pairBlockStarts(corpus.pairs, chunk, firstIndex) gives, without
/// attention; `control` is polled and told the progress between batches (stage
/// "scoring pairs"). Errors name the pairs.
Result<PairSystem> scorePairCorpus(Encoder &encoder, const PairCorpus &corpus, const RunControl *control = nullptr,
                                   std::size_t chunk = 256, std::size_t firstIndex = 0);
/// The IDF-weighted word-overlap baseline, IDF over `idfSource`'s candidate sentences.
PairSystem idfBaselineSystem(const PairCorpus &corpus, const PairCorpus &idfSource);
/// The name of the baseline as systems and files call it.
inline constexpr const char *kIdfBaselineName = "idf-overlap";

/// One question (group) of a ranking corpus.
struct QuestionRow {
    std::string group;
    std::string question;        ///< the question's text
    int candidates = 0;
    int correct = 0;
    bool used = false;           ///< counted under the clean protocol
    double ap = 0, rr = 0;       ///< system A
    int firstCorrectRank = 0;    ///< system A, 1-based (0: no correct candidate)
    std::vector<int> ranked;     ///< corpus pair indices, best first by system A
    bool hasB = false;
    double apB = 0, rrB = 0;     ///< system B
    int firstCorrectRankB = 0;
    int topA = -1, topB = -1;    ///< corpus index of each system's top candidate
    double deltaAp() const { return apB - ap; }
    bool topDisagrees() const { return hasB && topA != topB; }
};

/// One row per group in corpus order (ranking corpora only). `b` may be null.
Result<std::vector<QuestionRow>> questionRows(const PairCorpus &corpus, const PairSystem &a, const PairSystem *b = nullptr);
/// Sorts worst first: used questions by AP, then RR, then group; unused ones last.
void sortWorstFirst(std::vector<QuestionRow> &rows);
/// The rows whose top candidate differs between the two systems.
std::vector<QuestionRow> disagreements(const std::vector<QuestionRow> &rows);

/// "group,question,candidates,correct,used,ap,rr,first_correct_rank[,ap_b,rr_b,delta_ap,top_disagrees]" (RFC 4180).
std::string questionRowsCsv(const std::vector<QuestionRow> &rows);
std::string questionRowsJson(const std::vector<QuestionRow> &rows);

/// One slice's metrics for the slice table.
struct SliceRow {
    std::string kind, slice;
    std::size_t pairs = 0;
    int questions = 0;                   ///< ranking: used questions
    double map = 0, mrr = 0, p1 = 0;     ///< ranking
    double accuracy = 0, macroF1 = 0;    ///< classification
};
/// Metrics of `system` per slice of `kind` (text: the filter of SliceKind::Text).
Result<std::vector<SliceRow>> sliceRows(const PairCorpus &corpus, const PairSystem &system, SliceKind kind,
                                        const std::string &text = {});
std::string sliceRowsCsv(const std::vector<SliceRow> &rows, bool ranking);
std::string sliceRowsJson(const std::vector<SliceRow> &rows, bool ranking);

} // namespace treelens
