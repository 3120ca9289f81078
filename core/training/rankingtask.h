#pragma once
/// \file rankingtask.h
/// The TrainTask of the answer-selection trainers (GGSA / iGGSA, the Tree
/// Aggregation Transformer's stage 2): its units are training pairs (the
/// pointwise loss) or (positive, negative) triples of one question (pairwise,
/// both), in a seeded order per epoch; dev MAP on the clean dev corpus at each
/// evaluation. A family writes its trainStep and its dev scores and fills the
/// protected members in prepare(). Internal to core (LibTorch types).

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/formats/pairs.h"
#include "core/training/recipetask.h"

namespace treelens::training {

class RankingTask : public RecipeTask {
public:
    long batchesInEpoch(int epoch) override;
    Result<DevResult> evaluate() override;
    std::string metricName() const override { return "dev_map"; }
    std::string unitName() const override { return "pairs"; }

protected:
    /// The model's score of every dev pair, in corpus order (-1 ranks a pair last).
    virtual std::vector<double> devScores() = 0;
    /// The training units of `epoch` in their seeded order: indices of the training
    /// pairs (pointwise) or of m_triples.
    const std::vector<int> &orderFor(int epoch);
    bool pointwise() const { return m_loss == "pointwise"; }

    std::string m_loss = "pairwise";             ///< the recipe's options.loss
    std::size_t m_trainPairs = 0;                 ///< the training pairs the pointwise loss runs over
    std::vector<std::pair<int, int>> m_triples;   ///< (positive, negative) pair indices of one question
    PairCorpus m_dev;                             ///< the dev corpus (empty: no evaluation)
    nlohmann::json m_summary;                     ///< the data summary, stored in every snapshot

private:
    std::vector<int> m_order;
    int m_orderEpoch = -1;
};

} // namespace treelens::training
