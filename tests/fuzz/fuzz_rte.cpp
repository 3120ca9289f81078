// Fuzzes the PASCAL RTE XML reader (pugixml underneath) and the JSON writer
// (pairfuzz::check). Errors must name the file and a line.
#include <string>

#include "core/formats/pairs.h"
#include "pairfuzz.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const std::string text(reinterpret_cast<const char *>(data), size);
    auto r = treelens::readRteXml(text, "fuzz.xml");
    if (!r) {
        if (r.message().rfind("fuzz.xml:", 0) != 0)
            pairfuzz::fail("an RTE error without FILE:LINE", r.message());
        return 0;
    }
    if (r->task != treelens::kClassificationTask)
        pairfuzz::fail("RTE is a classification corpus");
    pairfuzz::check(*r);
    return 0;
}
