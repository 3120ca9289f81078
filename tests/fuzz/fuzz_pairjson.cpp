// Fuzzes the TreeLens pairs JSON reader: what it accepts must write back to JSON
// that reads to the same pairs (pairfuzz::check).
#include <string>

#include "core/formats/pairs.h"
#include "pairfuzz.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const std::string text(reinterpret_cast<const char *>(data), size);
    auto r = treelens::readPairsJson(text, "fuzz.json");
    if (!r)
        return 0;
    pairfuzz::check(*r);
    return 0;
}
