// Fuzzes the WikiQA reader: the input is cut at NUL bytes into a.toks, b.toks,
// id.txt and sim.txt (missing pieces are empty files; NUL is refused inside a
// file anyway). Whatever is accepted must pass pairfuzz::check.
#include <string>
#include <string_view>

#include "core/formats/pairs.h"
#include "pairfuzz.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const std::string_view input(reinterpret_cast<const char *>(data), size);
    std::string_view files[4];
    std::size_t pos = 0;
    for (int k = 0; k < 4 && pos <= input.size(); ++k) {
        const std::size_t end = k == 3 ? input.size() : std::min(input.find('\0', pos), input.size());
        files[k] = input.substr(pos, end - pos);
        pos = end + 1;
    }
    auto r = treelens::readWikiQa({files[0], files[1], files[2], files[3]}, "fuzz");
    if (!r) {
        if (r.message().rfind("fuzz/", 0) != 0)
            pairfuzz::fail("a WikiQA error that names no file", r.message());
        return 0;
    }
    if (r->task != treelens::kRankingTask)
        pairfuzz::fail("WikiQA is a ranking corpus");
    pairfuzz::check(*r);
    return 0;
}
