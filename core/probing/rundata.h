#pragma once
/// \file rundata.h
/// Stage 1 of a probing run (core/probing/proberun.h): the sentences. Reads the
/// configured corpora (files, or the sentences given in memory), leaves out the
/// sentences longer than the model takes, and cuts a training corpus given alone
/// by the seeded 0.8/0.1/0.1 split. Torch-free.

#include <cstddef>
#include <initializer_list>
#include <map>
#include <string>
#include <vector>

#include "core/base/result.h"
#include "core/data/sentence.h"
#include "core/probing/probetasks.h"
#include "core/probing/proberunconfig.h"

namespace treelens {

/// The run's sentences: one corpus cut by a seeded split, or given train/dev/test.
struct ProbeData {
    bool oneCorpus = false;                 ///< only a training corpus given: cut by `split`
    std::vector<Sentence> corpus;           ///< oneCorpus
    std::vector<Sentence> train, dev, test; ///< given splits
    SplitIndices split;                     ///< oneCorpus: indices into `corpus`
    std::string splitText;                  ///< "seeded 0.8/0.1/0.1 seed=S" or "given"
    std::map<std::string, long> excluded;   ///< "<split>/<reason>" -> sentences left out

    /// Every sentence (corpus, train, dev, test in that order).
    template <class F> void forEach(F f)
    {
        for (auto *v : {&corpus, &train, &dev, &test})
            for (auto &s : *v)
                f(s);
    }
    template <class F> void forEach(F f) const
    {
        for (const auto *v : {&corpus, &train, &dev, &test})
            for (const auto &s : *v)
                f(s);
    }
    std::size_t size() const { return corpus.size() + train.size() + dev.size() + test.size(); }
    /// The test sentences, in order (the corpus's test split when oneCorpus).
    std::vector<const Sentence *> testSentences() const;
};

/// The sentences of one split: its files in order (a file's format from `from`,
/// else from its extension; PTB traces stripped), or the in-memory sentences when
/// there are no files. Errors: a file's read error, "FILE:1: no sentences in the input".
Result<std::vector<Sentence>> readProbeSplit(const std::vector<std::string> &files,
                                             const std::vector<Sentence> &sentences, const std::string &from);

/// Reads the configured splits; without a test split the training corpus is cut
/// by seededSplit(n, 0.8, 0.1, config.splitSeed). Sentences of more than
/// `maxWords` words (0 = no limit) are left out and counted under
/// "<split>/longer-than-model (N words)".
Result<ProbeData> readProbeData(const ProbeRunConfig &config, int maxWords);

} // namespace treelens
