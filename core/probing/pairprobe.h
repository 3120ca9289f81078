#pragma once
/// \file pairprobe.h
/// The probing experiment of the tree-aggregation paper (§4.7, Table 6) on a
/// pair model: an MLP probe (one hidden layer of the input's size, ReLU, the
/// prediction layer; probes.h) reads the model's frozen **pair vector** — what
/// Encoder::embed() gives for a pair: the TAT's root vectors [w_q; w_s], the
/// sequential model's `<s>` output, GGSA's sentence vectors — and predicts a
/// property of the pair's candidate sentence: its top-constituent sequence
/// (TopConst, 20 classes: the 19 most frequent of train, then "other"), its tree
/// depth (TreeDepth; depths seen at least 5 times in train) or its length in
/// tokens (SentLen, regression). The labels are probetasks.h's on the candidate
/// sentence's constituency tree (the paper speaks of the pair; a WikiQA
/// question's tree barely varies, so the candidate carries the signal).
/// Train on the training corpus's pairs, choose the epoch on dev, report test.
/// Pairs without both trees, or that the model refuses, are left out and counted.
/// Torch-free header.

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "core/base/result.h"
#include "core/base/runcontrol.h"
#include "core/formats/pairs.h"
#include "core/probing/probes.h"
#include "core/probing/probetasks.h"

namespace treelens {

class Encoder;

struct PairProbeRow {
    std::string task;             ///< probeTaskName()
    bool regression = false;
    int classes = 0;
    std::size_t train = 0, dev = 0, test = 0; ///< examples
    ProbeMetrics test_;           ///< the probe on the test split (macro-F1 / accuracy, or MSE / R²)
    double majorityMacroF1 = 0.0; ///< classification: always the train split's majority class
    double majorityAccuracy = 0.0;
    double meanMse = 0.0;         ///< regression: always the train mean
    int bestEpoch = 0;
};

struct PairProbeReport {
    std::string model;
    int dim = 0;                  ///< the pair vector's size
    std::size_t pairs[3] = {0, 0, 0};     ///< pairs embedded per split
    std::size_t leftOut[3] = {0, 0, 0};   ///< pairs without trees or refused by the model
    std::vector<PairProbeRow> rows;
};

/// The pair vectors of every pair of `corpus` whose sides both have a
/// constituency tree (rows in corpus order of the kept pairs; `kept` = their indices).
Result<Matrix> pairVectors(Encoder &encoder, const PairCorpus &corpus, std::vector<int> &kept, const RunControl *control = nullptr);

/// Runs the tasks (TopConst, TreeDepth, SentLen) on parsed corpora.
Result<PairProbeReport> runPairProbes(Encoder &encoder, const PairCorpus &train, const PairCorpus &dev, const PairCorpus &test,
                                      const std::vector<ProbeTask> &tasks, const ProbeTrainOptions &options,
                                      const RunControl *control = nullptr);

} // namespace treelens
