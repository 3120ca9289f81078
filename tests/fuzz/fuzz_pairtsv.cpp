// Fuzzes the ranking TSV reader and both pair writers (pairfuzz::check).
#include <string>

#include "core/formats/pairs.h"
#include "pairfuzz.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const std::string text(reinterpret_cast<const char *>(data), size);
    auto r = treelens::readPairsTsv(text, "fuzz.tsv");
    if (!r)
        return 0;
    pairfuzz::check(*r);
    return 0;
}
