#pragma once
/// \file classifiertask.h
/// The TrainTask of the trainers that learn a label per sentence or per sentence
/// pair on a train / dev / test split (the Dependency-Transformer's, the recursive
/// tree models'): a seeded order per epoch, cross-entropy on the labels, accuracy
/// on dev after each evaluation and on test at the end, where the kept best
/// output is reloaded first and its test figures stored in it. A family's task
/// derives from it and gives its network's logits, a step's units and how its
/// weights reload; it fills the protected members in prepare(). Internal to core
/// (LibTorch types).

#include <cstddef>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <torch/types.h>

#include "core/base/result.h"
#include "core/model/tensordata.h"
#include "core/training/classificationdata.h"
#include "core/training/recipe.h"
#include "core/training/recipetask.h"
#include "core/training/trainer.h"

namespace treelens::training {

class ClassifierTask : public RecipeTask {
public:
    long batchesInEpoch(int epoch) override;
    Result<StepResult> trainStep(int epoch, long batch, std::mt19937_64 &rng) override;
    Result<DevResult> evaluate() override;
    std::string metricName() const override { return "dev_accuracy"; }
    /// Reloads the kept best output (when the recipe keeps the best), scores it on
    /// test, stores the figures in it and says them in one line.
    Result<std::string> finish(const TrainRecipe &recipe, double elapsedSeconds) override;

protected:
    /// Logits [items, classes] of examples `items` of part `part` (0 train, 1 dev,
    /// 2 test); `train` is true for a training step (dropout, graph) and false for
    /// an evaluation (which runs without gradients).
    virtual torch::Tensor logitsOf(int part, const std::vector<std::size_t> &items, bool train) = 0;
    /// The words training example `item` counts for the throughput.
    virtual double unitsOf(std::size_t item) const = 0;
    /// Puts `tensors` (the kept output at `where`) into the network.
    virtual Status loadWeights(const TensorMap &tensors, const std::string &where) = 0;

    /// The data summary of prepare() (and m_summary, which every snapshot stores): the
    /// split's sizes, the examples left out unparsed, the vocabulary and how much of it
    /// came from an embedding model, the relations, the split's seed, the classes and
    /// the data's notes (a JSON object); `textTail` ends the line.
    DataSummary summarizeData(std::size_t vocabulary, int initialised, long unparsed, std::size_t relations,
                              unsigned splitSeed, const std::vector<std::string> &classes, const nlohmann::json &notes,
                              const std::string &textTail = "");
    /// A snapshot's training record: snapshotTrainingJson() with m_summary, and the test
    /// figures once finish() has them.
    nlohmann::json trainingRecord(const SnapshotInfo &info) const;

    /// Accuracy on part `part`, 128 examples at a time.
    double accuracy(int part);
    /// "pairs" or "sentences", for the figures.
    const char *exampleKind() const { return m_pairs ? "pairs" : "sentences"; }

    LabelledSplit m_parts;               ///< train / dev / test
    bool m_pairs = false;                ///< the examples are pairs (RTE)
    int m_initialised = 0;               ///< word rows taken from an embedding model
    long m_unparsed = 0;                 ///< examples left out: the parser gave no tree
    nlohmann::json m_summary;            ///< the data summary (summarizeData)
    nlohmann::json m_testReport;         ///< null until finish() scored the test part

private:
    std::vector<int> m_order;
    int m_orderEpoch = -1;
};

} // namespace treelens::training
