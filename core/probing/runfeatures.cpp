// runfeatures: stage 3 of a probing run, the encoder's layer states; see runfeatures.h.
#include "core/probing/runfeatures.h"

#include <tuple>

#include "core/probing/runfeaturefile.h"

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
            return Error{std::string(name) + ": " + r.message(), r.code()};
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
            return Error{std::string(name) + ": " + ex.message(), ex.code()};
        *dest = std::move(ex->examples);
        addSkipped(ex->skipped, name);
    }
    return out;
}

Result<std::size_t> writeProbeFeatureRecords(const ProbeRunContext &ctx, Encoder &model, Encoder *randomInit,
                                             const ProbeData &data, const ProbeFeatureLayout &layout,
                                             const std::vector<std::size_t> &blockStarts, ShardRange range,
                                             const std::function<Status(std::string_view)> &write)
{
    if (layout.randomInit && !randomInit)
        return Error{"the random-init encoder is missing"};
    const auto sentences = probeSentences(data);
    FeatureOptions fo;
    fo.sentenceVectors = layout.cls || layout.mean;
    fo.wordVectors = layout.words;
    fo.layers = layout.layers;
    fo.batchSize = layout.encoderBatch;
    RunControl rc = ctx.progressControl("features");
    std::size_t written = 0;
    std::string record;
    for (std::size_t b = 0; b < blockStarts.size(); ++b) {
        const std::size_t first = blockStarts[b];
        const std::size_t last = b + 1 < blockStarts.size() ? blockStarts[b + 1] : sentences.size();
        if (first < range.begin || first >= range.end)
            continue;
        if (ctx.cancelled())
            return cancelledError();
        std::vector<Sentence> block;
        for (std::size_t i = first; i < last; ++i)
            block.push_back(*sentences[i]);
        std::vector<ProbeFeatures> feats;
        for (Encoder *encoder : {&model, layout.randomInit ? randomInit : nullptr}) {
            if (!encoder)
                continue;
            auto f = extractFeatures(*encoder, block, fo, nullptr);
            if (!f) // its sentence numbers count from the block's first, sentence first + 1 of the run
                return Error{(encoder == &model ? std::string() : std::string("random-init encoder: ")) + "sentences " +
                             std::to_string(first + 1) + ".." + std::to_string(last) + ": " + f.message()};
            feats.push_back(std::move(*f));
        }
        for (std::size_t k = 0; k < block.size(); ++k) {
            record.clear();
            if (auto st = appendProbeFeatureRecord(record, layout, first + k, feats, k, block[k].tokens.size()); !st)
                return st.error();
            if (auto st = write(record); !st)
                return st.error();
            ++written;
        }
        if (rc.progress)
            rc.progress(std::min(last, range.end) - range.begin, range.size(), "extracted");
    }
    return written;
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
