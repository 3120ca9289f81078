// runfeatures: stage 3 of a probing run, the encoder's layer states; see runfeatures.h.
#include "core/probing/runfeatures.h"

#include <tuple>

namespace treelens {

Result<ProbeSplitFeatures> extractProbeFeatures(const ProbeRunContext &ctx, Encoder &encoder, const ProbeData &data,
                                                const FeatureOptions &options, const std::string &what)
{
    ProbeSplitFeatures f;
    if (data.oneCorpus) {
        RunControl rc = ctx.progressControl(what);
        auto r = extractFeatures(encoder, data.corpus, options, &rc);
        if (!r)
            return r.error();
        f.train = std::move(*r);
        return f;
    }
    const std::tuple<const std::vector<Sentence> *, ProbeFeatures *, const char *> parts[] = {
        {&data.train, &f.train, "train"}, {&data.dev, &f.dev, "dev"}, {&data.test, &f.test, "test"}};
    for (const auto &[sentences, features, name] : parts) {
        RunControl rc = ctx.progressControl(what + " (" + name + ")");
        auto r = extractFeatures(encoder, *sentences, options, &rc);
        if (!r)
            return Error{std::string(name) + ": " + r.message()};
        *features = std::move(*r);
    }
    return f;
}

Result<StructuralSplits> structuralSplits(const ProbeData &data, const ProbeSplitFeatures &features, int layer)
{
    StructuralSplits out;
    auto addSkipped = [&](const std::map<std::string, long> &m, const std::string &split) {
        for (const auto &[k, n] : m)
            out.skipped[split + "/" + k] += n;
    };
    if (data.oneCorpus) {
        auto ex = structuralExamples(data.corpus, features.train, layer);
        if (!ex)
            return ex.error();
        std::vector<char> where(data.corpus.size(), 0);
        for (int i : data.split.train)
            where[static_cast<std::size_t>(i)] = 1;
        for (int i : data.split.dev)
            where[static_cast<std::size_t>(i)] = 2;
        for (int i : data.split.test)
            where[static_cast<std::size_t>(i)] = 3;
        for (auto &e : ex->examples) {
            const char w = where[static_cast<std::size_t>(e.sentence)];
            (w == 1 ? out.train : w == 2 ? out.dev : out.test).push_back(std::move(e));
        }
        addSkipped(ex->skipped, "corpus");
        return out;
    }
    const std::tuple<const std::vector<Sentence> *, const ProbeFeatures *, std::vector<StructuralExample> *, const char *>
        parts[] = {{&data.train, &features.train, &out.train, "train"},
                   {&data.dev, &features.dev, &out.dev, "dev"},
                   {&data.test, &features.test, &out.test, "test"}};
    for (const auto &[sentences, feats, dest, name] : parts) {
        if (sentences->empty())
            continue;
        auto ex = structuralExamples(*sentences, *feats, layer);
        if (!ex)
            return Error{std::string(name) + ": " + ex.message()};
        *dest = std::move(ex->examples);
        addSkipped(ex->skipped, name);
    }
    return out;
}

bool wordStatesFitAtOnce(const ProbeData &data, std::size_t layers, int dModel)
{
    std::size_t words = 0;
    data.forEach([&](const Sentence &s) { words += s.tokens.size(); });
    const double bytes =
        static_cast<double>(words) * static_cast<double>(layers) * static_cast<double>(dModel) * 4.0;
    return bytes <= 768.0 * 1024 * 1024;
}

} // namespace treelens
