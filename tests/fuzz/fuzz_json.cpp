// Fuzzes the TreeLens JSON reader.
#include <cstdlib>
#include <string>

#include "core/formats/treelensjson.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const std::string text(reinterpret_cast<const char *>(data), size);
    auto r = treelens::readTreeLensJson(text, "fuzz.jsonl");
    if (!r)
        return 0;
    auto again = treelens::readTreeLensJson(treelens::writeTreeLensJson(*r), "back.jsonl");
    if (!again || again->size() != r->size())
        std::abort();
    return 0;
}
