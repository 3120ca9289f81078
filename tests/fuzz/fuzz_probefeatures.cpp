// Fuzzes the probe features files' reader (core/probing/runfeaturefile.h): the input is a
// file's bytes, read against a corpus of three sentences of 0..4 words (their lengths from
// the file's last byte, so the records and the corpus can agree). Checks: a
// readable layout line prints back to a line that reads the same; whatever loads has the
// shape extractFeatures() gives (rows per sentence and per word); nothing crashes.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <unistd.h>

#include "core/probing/runfeaturefile.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    using namespace treelens;
    if (size > 1 << 16)
        return 0;
    const std::string text(reinterpret_cast<const char *>(data), size);
    const std::string first = text.substr(0, text.find('\n'));
    if (auto l = parseProbeFeatureLayout(first)) {
        const std::string line = l->line();
        auto again = parseProbeFeatureLayout(line.substr(0, line.size() - 1));
        if (!again || again->line() != line)
            std::abort();
    }
    char path[] = "/tmp/fuzz-probefeatures-XXXXXX";
    const int fd = mkstemp(path);
    if (fd < 0)
        return 0;
    close(fd);
    std::ofstream(path, std::ios::binary) << text;
    ProbeData corpus;
    corpus.oneCorpus = true;
    const unsigned char tail = size > 0 ? data[size - 1] : 0;
    for (int s = 0; s < 3; ++s) {
        Sentence sentence;
        for (int w = 0; w < ((tail >> (2 * s)) & 3) + (s == 2 ? 1 : 0); ++w)
            sentence.tokens.push_back(Token{});
        corpus.corpus.push_back(sentence);
    }
    const ProbeRunCallbacks none;
    const ProbeRunContext ctx(none, nullptr);
    if (auto f = ProbeFeatureFile::open(path)) {
        for (int variant = 0; variant < 4; ++variant) {
            FeatureOptions fo;
            fo.sentenceVectors = variant % 2 == 0;
            fo.wordVectors = variant % 2 == 1;
            if (variant >= 2 && !f->layout().layers.empty())
                fo.layers = {f->layout().layers.back()};
            auto r = f->load(ctx, corpus, variant == 3, fo, "fuzz");
            if (!r)
                continue;
            const ProbeFeatures &p = r->train;
            if (p.sentences != 3 || p.dim != f->layout().dim)
                std::abort();
            for (int layer : p.keptLayers) {
                const auto L = static_cast<std::size_t>(layer);
                if (fo.sentenceVectors && f->layout().mean && p.mean.at(L).rows != 3)
                    std::abort();
                if (fo.wordVectors && p.words.at(L).rows != p.wordOffset.back())
                    std::abort();
            }
        }
    }
    std::remove(path);
    return 0;
}
