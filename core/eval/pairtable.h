#pragma once
/// \file pairtable.h
/// The pair workbench's tables, torch- and Qt-free: one row per question with
/// its ranking metrics under one or two systems (worst first), the questions
/// where two systems disagree on the top answer, and the per-question and
/// per-slice tables as CSV or JSON for export.

#include <string>
#include <vector>

#include "core/base/result.h"
#include "core/eval/paireval.h"
#include "core/formats/pairs.h"

namespace treelens {

/// What one system (a pair model, or the IDF baseline) said about every pair.
struct PairSystem {
    std::string name;
    std::vector<double> scores;          ///< ranking score per pair (corpus order)
    std::vector<std::string> predicted;  ///< classification label per pair ("" = none)
};

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
