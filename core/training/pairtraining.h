#pragma once
/// \file pairtraining.h
/// What the trainers of the pair families (GGSA/iGGSA, the Tree Aggregation
/// Transformer) and the other batch-shuffling trainers share: reading ranking
/// corpora, the (question, correct, wrong) triples of pairwise losses, the
/// seeded per-epoch order, and the dev report of a ranking evaluation. Torch-free.

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "core/base/result.h"
#include "core/eval/paireval.h"
#include "core/formats/pairs.h"

namespace treelens::training {

/// Reads and joins ranking corpora; each pair's group is prefixed with its file so
/// that groups of different files never merge. `model` names the family in the
/// error for a classification corpus ("GGSA ranks candidate answers").
Result<PairCorpus> readRankingCorpora(const std::vector<std::string> &paths, const std::string &model);

/// Every (correct, wrong) pair of corpus indices within a group, over the pairs
/// `indices` (in their order; groups in order of first appearance).
std::vector<std::pair<int, int>> rankingTriples(const PairCorpus &corpus, const std::vector<int> &indices);

/// 0..n-1 shuffled for 0-based `epoch` from the recipe seed alone (batch k of
/// epoch e depends only on (seed, e, k), as core/training/trainer.h requires).
std::vector<int> epochOrder(std::size_t n, unsigned seed, int epoch);

/// The dev report of scores on a ranking corpus (clean protocol): MAP as the
/// value, JSON details and the progress line.
struct RankingDev {
    double value = 0.0;
    std::string json, summary;
};
Result<RankingDev> rankingDev(const PairCorpus &dev, const std::vector<double> &scores);

} // namespace treelens::training
