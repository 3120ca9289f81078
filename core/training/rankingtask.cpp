// The answer-selection trainers share this task (see rankingtask.h).
#include "core/training/rankingtask.h"

#include "core/training/pairtraining.h"

namespace treelens::training {

long RankingTask::batchesInEpoch(int)
{
    return batchesOver(pointwise() ? m_trainPairs : m_triples.size(), m_recipe.batchSize);
}

const std::vector<int> &RankingTask::orderFor(int epoch)
{
    if (m_orderEpoch != epoch) {
        m_order = epochOrder(pointwise() ? m_trainPairs : m_triples.size(), m_recipe.seed, epoch);
        m_orderEpoch = epoch;
    }
    return m_order;
}

Result<DevResult> RankingTask::evaluate()
{
    if (m_dev.pairs.empty())
        return DevResult{};
    auto dev = rankingDev(m_dev, devScores());
    if (!dev)
        return dev.error();
    return DevResult{dev->value, dev->json, dev->summary};
}

} // namespace treelens::training
