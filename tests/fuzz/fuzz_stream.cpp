// Differential fuzzing of CorpusStream (the streaming input of parse/analyze):
// read piece by piece, any input must give what a whole-file read gives: the
// same sentences (through two serialisations, ids and line numbers included),
// or an error naming the file. The first byte picks the format and piece size.
#include <cstdio>
#include <cstdlib>
#include <string>

#include <unistd.h>

#include "core/formats/conllu.h"
#include "core/formats/corpus.h"
#include "core/formats/corpusstream.h"
#include "core/formats/treelensjson.h"

namespace {
std::string describe(const std::vector<treelens::Sentence> &ss)
{
    std::string out;
    for (const auto &s : ss)
        out += treelens::writeConllu({s}) + treelens::sentenceToJsonLine(s) + "@" + std::to_string(s.line) + "\n";
    return out;
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    using namespace treelens;
    const unsigned sel = data[0];
    const CorpusFormat formats[] = {CorpusFormat::Conllu, CorpusFormat::Text, CorpusFormat::Text, CorpusFormat::Json};
    const CorpusFormat format = formats[sel % 4];
    CorpusReadOptions options;
    options.split = sel % 4 == 2;
    const std::size_t count = 1 + (sel / 4) % 4;
    const std::string text(reinterpret_cast<const char *>(data + 1), size - 1);
    static const std::string path = "/tmp/treelens-fuzz-stream-" + std::to_string(::getpid()) + ".in";
    {
        std::FILE *f = std::fopen(path.c_str(), "wb");
        if (!f)
            std::abort();
        std::fwrite(text.data(), 1, text.size(), f);
        std::fclose(f);
    }
    auto whole = readCorpus(text, path, format, options);
    auto stream = CorpusStream::open(path, format, options);
    if (!stream)
        std::abort(); // a regular file of bounded size always opens
    std::vector<Sentence> pieces;
    std::string error;
    for (;;) {
        auto r = stream->next(count);
        if (!r) {
            error = r.message();
            break;
        }
        if (r->empty())
            break;
        for (auto &s : *r)
            pieces.push_back(std::move(s));
    }
    if (whole.ok() != error.empty()) {
        std::fprintf(stderr, "whole: %s\nstream: %s\n", whole ? "ok" : whole.message().c_str(), error.c_str());
        std::abort();
    }
    if (!whole.ok()) {
        // Both refuse; the first error found may differ (a whole read checks every
        // byte before parsing, a stream each piece in turn), and names the file.
        if (error.rfind(path + ":", 0) != 0) {
            std::fprintf(stderr, "whole: %s\nstream: %s\n", whole.message().c_str(), error.c_str());
            std::abort();
        }
        return 0;
    }
    if (describe(*whole) != describe(pieces)) {
        std::fprintf(stderr, "whole:\n%s\nstream:\n%s\n", describe(*whole).c_str(), describe(pieces).c_str());
        std::abort();
    }
    return 0;
}
