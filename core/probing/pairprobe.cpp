// The pair-vector probes of the tree-aggregation paper's Table 6 (see pairprobe.h).
#include "core/probing/pairprobe.h"

#include <algorithm>

#include "core/encoders/encoder.h"
#include "core/eval/pairtable.h"

namespace treelens {

Result<Matrix> pairVectors(Encoder &encoder, const PairCorpus &corpus, std::vector<int> &kept, const RunControl *control)
{
    kept.clear();
    std::vector<int> candidates;
    for (std::size_t i = 0; i < corpus.pairs.size(); ++i)
        if (corpus.pairs[i].first.constituency && corpus.pairs[i].second.constituency)
            candidates.push_back(static_cast<int>(i));
    std::vector<std::vector<float>> rows;
    constexpr std::size_t kBatch = 256;
    for (std::size_t start = 0; start < candidates.size(); start += kBatch) {
        if (control && control->isCancelled())
            return cancelledError("probing pairs");
        const std::size_t end = std::min(candidates.size(), start + kBatch);
        std::vector<EncoderInput> batch;
        for (std::size_t k = start; k < end; ++k) {
            const auto &p = corpus.pairs[static_cast<std::size_t>(candidates[k])];
            batch.push_back(pairEncoderInput(p.first, p.second));
        }
        auto v = encoder.embed(batch, {}, control);
        if (v) {
            for (std::size_t k = start; k < end; ++k) {
                kept.push_back(candidates[k]);
                rows.push_back(std::move((*v)[k - start]));
            }
        } else {
            // One pair the model refuses (too long, a tag outside its inventory) must not cost the batch.
            for (std::size_t k = start; k < end; ++k) {
                auto one = encoder.embed({batch[k - start]}, {}, control);
                if (one) {
                    kept.push_back(candidates[k]);
                    rows.push_back(std::move(one->front()));
                }
            }
        }
        if (control && control->progress)
            control->progress(end, candidates.size(), "embedding pairs");
    }
    if (rows.empty())
        return makeError(corpus.source, "no pair has both constituency trees and a vector (parse the corpus first)");
    Matrix m(static_cast<int>(rows.size()), static_cast<int>(rows.front().size()));
    for (std::size_t r = 0; r < rows.size(); ++r) {
        if (rows[r].size() != static_cast<std::size_t>(m.cols))
            return makeError(corpus.source, "the model's pair vectors differ in size");
        std::copy(rows[r].begin(), rows[r].end(), m.data.begin() + static_cast<std::ptrdiff_t>(r * m.cols));
    }
    return m;
}

Result<PairProbeReport> runPairProbes(Encoder &encoder, const PairCorpus &train, const PairCorpus &dev, const PairCorpus &test,
                                      const std::vector<ProbeTask> &tasks, const ProbeTrainOptions &options,
                                      const RunControl *control)
{
    PairProbeReport report;
    report.model = encoder.info().name;
    const PairCorpus *corpora[3] = {&train, &dev, &test};
    ProbeFeatures features[3];
    std::vector<Sentence> candidates[3];
    for (int s = 0; s < 3; ++s) {
        std::vector<int> kept;
        auto m = pairVectors(encoder, *corpora[s], kept, control);
        if (!m)
            return m.error();
        report.pairs[s] = kept.size();
        report.leftOut[s] = corpora[s]->pairs.size() - kept.size();
        report.dim = m->cols;
        for (int i : kept)
            candidates[s].push_back(corpora[s]->pairs[static_cast<std::size_t>(i)].second);
        ProbeFeatures &f = features[s];
        f.layers = 0;
        f.dim = m->cols;
        f.hasCls = true;
        f.sentences = kept.size();
        f.keptLayers = {0};
        f.cls = {*m};
        f.mean = {std::move(*m)};
    }
    for (ProbeTask task : tasks) {
        ProbeTaskOptions to;
        to.depthSource = DepthSource::Constituency;
        auto dataset = buildProbeDataset(task, candidates[0], candidates[1], candidates[2], to);
        if (!dataset)
            return dataset.error();
        auto inputs = probeInputs(*dataset, features[0], features[1], features[2], 0, SentencePooling::Cls);
        if (!inputs)
            return inputs.error();
        auto result = trainProbe(*inputs, options, {}, control);
        if (!result)
            return result.error();
        PairProbeRow row;
        row.task = probeTaskName(task);
        row.regression = dataset->regression();
        row.classes = static_cast<int>(dataset->labels.size());
        row.train = dataset->train.size();
        row.dev = dataset->dev.size();
        row.test = dataset->test.size();
        row.test_ = result->test;
        row.bestEpoch = result->bestEpoch;
        if (row.regression) {
            double mean = 0;
            for (double t : inputs->train.targets)
                mean += t;
            mean /= std::max<std::size_t>(1, inputs->train.targets.size());
            double se = 0;
            for (double t : inputs->test.targets)
                se += (t - mean) * (t - mean);
            row.meanMse = se / std::max<std::size_t>(1, inputs->test.targets.size());
        } else {
            row.majorityMacroF1 = majorityMacroF1(*dataset);
            row.majorityAccuracy = majorityAccuracy(*dataset);
        }
        report.rows.push_back(std::move(row));
    }
    return report;
}

} // namespace treelens
