// rundata: stage 1 of a probing run, the sentences; see rundata.h.
#include "core/probing/rundata.h"

#include <algorithm>

#include "core/formats/corpus.h"

namespace treelens {

std::vector<const Sentence *> ProbeData::testSentences() const
{
    std::vector<const Sentence *> out;
    if (oneCorpus) {
        for (int i : split.test)
            out.push_back(&corpus[static_cast<std::size_t>(i)]);
    } else {
        for (const auto &s : test)
            out.push_back(&s);
    }
    return out;
}

Result<std::vector<Sentence>> readProbeSplit(const std::vector<std::string> &files,
                                             const std::vector<Sentence> &sentences, const std::string &from)
{
    if (files.empty())
        return sentences;
    std::vector<Sentence> out;
    for (const auto &f : files) {
        CorpusFormat fmt = formatFromPath(f);
        if (!from.empty()) {
            auto p = parseCorpusFormat(from);
            if (!p)
                return p.error();
            fmt = *p;
        }
        CorpusReadOptions opt;
        opt.stripTraces = true; // PTB: -NONE- traces are not words (and would disturb the head rules)
        auto r = readCorpusFile(f, fmt, opt);
        if (!r)
            return r.error();
        if (r->empty())
            return Error{f + ":1: no sentences in the input"};
        for (auto &s : *r)
            out.push_back(std::move(s));
    }
    return out;
}

namespace {

void dropLonger(std::vector<Sentence> &v, const std::string &split, int limit, std::map<std::string, long> &excluded)
{
    const auto before = v.size();
    v.erase(std::remove_if(v.begin(), v.end(),
                           [&](const Sentence &s) { return static_cast<int>(s.tokens.size()) > limit; }),
            v.end());
    if (v.size() != before)
        excluded[split + "/longer-than-model (" + std::to_string(limit) + " words)"] = static_cast<long>(before - v.size());
}

} // namespace

Result<ProbeData> readProbeData(const ProbeRunConfig &config, int maxWords)
{
    ProbeData data;
    auto train = readProbeSplit(config.train, config.trainSentences, config.from);
    if (!train)
        return train.error();
    if (!config.hasTestSplit()) {
        data.oneCorpus = true;
        data.corpus = std::move(*train);
    } else {
        data.train = std::move(*train);
        auto test = readProbeSplit(config.test, config.testSentences, config.from);
        if (!test)
            return test.error();
        data.test = std::move(*test);
        if (config.hasDevSplit()) {
            auto dev = readProbeSplit(config.dev, config.devSentences, config.from);
            if (!dev)
                return dev.error();
            data.dev = std::move(*dev);
        }
    }
    // Sentences longer than the model's position table are left out (and counted).
    if (maxWords > 0) {
        dropLonger(data.corpus, "corpus", maxWords, data.excluded);
        dropLonger(data.train, "train", maxWords, data.excluded);
        dropLonger(data.dev, "dev", maxWords, data.excluded);
        dropLonger(data.test, "test", maxWords, data.excluded);
    }
    if (data.oneCorpus)
        data.split = seededSplit(data.corpus.size(), 0.8, 0.1, config.splitSeed);
    data.splitText = data.oneCorpus ? "seeded 0.8/0.1/0.1 seed=" + std::to_string(config.splitSeed) : std::string("given");
    return data;
}

} // namespace treelens
