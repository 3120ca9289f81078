// The trainers of sentence and pair classifiers share this task (see classifiertask.h).
#include "core/training/classifiertask.h"

#include <algorithm>
#include <cstdio>
#include <optional>

#include <torch/torch.h>

#include "core/model/modelfile.h"
#include "core/training/pairtraining.h"

namespace treelens::training {

using nlohmann::json;

long ClassifierTask::batchesInEpoch(int)
{
    return batchesOver(m_parts[0].size(), m_recipe.batchSize);
}

Result<StepResult> ClassifierTask::trainStep(int epoch, long batch, std::mt19937_64 &)
{
    if (m_orderEpoch != epoch) {
        m_order = epochOrder(m_parts[0].size(), m_recipe.seed, epoch);
        m_orderEpoch = epoch;
    }
    const long begin = batch * m_recipe.batchSize,
               end = std::min<long>(static_cast<long>(m_order.size()), begin + m_recipe.batchSize);
    std::vector<std::size_t> items;
    std::vector<std::int64_t> labels;
    double words = 0;
    for (long i = begin; i < end; ++i) {
        const auto k = static_cast<std::size_t>(m_order[static_cast<std::size_t>(i)]);
        items.push_back(k);
        labels.push_back(m_parts[0][k].label);
        words += unitsOf(k);
    }
    const auto logits = logitsOf(0, items, true);
    auto target = torch::tensor(labels, torch::kLong).to(m_device);
    StepResult r;
    r.loss = torch::nn::functional::cross_entropy(logits, target);
    r.units = words;
    r.correct = (logits.argmax(1) == target).sum().item<double>();
    r.predicted = static_cast<double>(labels.size());
    return r;
}

double ClassifierTask::accuracy(int part)
{
    torch::NoGradGuard ng;
    const auto &examples = m_parts[static_cast<std::size_t>(part)];
    long correct = 0;
    for (std::size_t start = 0; start < examples.size(); start += 128) {
        std::vector<std::size_t> items;
        for (std::size_t i = start; i < std::min(examples.size(), start + 128); ++i)
            items.push_back(i);
        const auto pred = logitsOf(part, items, false).argmax(1).to(torch::kCPU);
        for (std::int64_t i = 0; i < pred.size(0); ++i)
            correct += pred[i].item<std::int64_t>() == examples[start + static_cast<std::size_t>(i)].label;
    }
    return examples.empty() ? 0.0 : static_cast<double>(correct) / static_cast<double>(examples.size());
}

Result<DevResult> ClassifierTask::evaluate()
{
    DevResult d;
    if (m_parts[1].empty())
        return d;
    d.value = accuracy(1);
    d.detailsJson = json{{"accuracy", d.value}, {exampleKind(), m_parts[1].size()}}.dump();
    char buf[96];
    std::snprintf(buf, sizeof buf, "dev accuracy %.4f (%zu %s)", d.value, m_parts[1].size(), exampleKind());
    d.summary = buf;
    return d;
}

DataSummary ClassifierTask::summarizeData(std::size_t vocabulary, int initialised, long unparsed, std::size_t relations,
                                          unsigned splitSeed, const std::vector<std::string> &classes, const json &notes,
                                          const std::string &textTail)
{
    DataSummary s;
    const char *unit = m_pairs ? " test pairs (" : " test sentences (";
    s.text = std::to_string(m_parts[0].size()) + " train / " + std::to_string(m_parts[1].size()) + " dev / " +
             std::to_string(m_parts[2].size()) + unit + std::to_string(unparsed) + " left out: not parsed), vocabulary " +
             std::to_string(vocabulary) + " (" + std::to_string(initialised) + " from the embedding model), " +
             std::to_string(relations) + " relations" + textTail;
    m_summary = {{"train", m_parts[0].size()}, {"dev", m_parts[1].size()}, {"test", m_parts[2].size()},
                 {"unparsed", unparsed}, {"vocabulary", vocabulary}, {"embeddings_initialised", initialised},
                 {"relations", relations}, {"split_seed", splitSeed}, {"classes", classes}};
    m_summary.update(notes);
    s.json = m_summary.dump();
    return s;
}

json ClassifierTask::trainingRecord(const SnapshotInfo &info) const
{
    json record = json::parse(snapshotTrainingJson(info, m_recipe, m_summary.dump()));
    if (!m_testReport.is_null())
        record["test"] = m_testReport;
    return record;
}

Result<std::string> ClassifierTask::finish(const TrainRecipe &recipe, double)
{
    // The kept output is reloaded by runTraining's caller; score the current
    // weights only when the last weights are kept, else the best file.
    auto best = keptBestOutput(recipe);
    if (!best)
        return best.error();
    if (*best)
        if (auto s = loadWeights((*best)->tensors, recipe.output); !s)
            return s.error();
    const double acc = accuracy(2);
    m_testReport = {{"accuracy", acc}, {exampleKind(), m_parts[2].size()}};
    if (*best)
        if (auto st = storeTestReport(recipe, **best, m_testReport.dump()); !st)
            return st.error();
    char buf[96];
    std::snprintf(buf, sizeof buf, "test accuracy %.4f (%zu %s)", acc, m_parts[2].size(), exampleKind());
    return std::string(buf);
}

} // namespace treelens::training
