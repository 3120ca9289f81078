// Fuzzes the CoNLL-U reader: no crash, and whatever it accepts must write back
// to text that reads again to the same words and trees, and writes identically.
#include <cstdlib>
#include <string>

#include "core/formats/conllu.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const std::string text(reinterpret_cast<const char *>(data), size);
    auto r = treelens::readConllu(text, "fuzz.conllu");
    if (!r)
        return 0;
    const std::string back = treelens::writeConllu(*r);
    auto again = treelens::readConllu(back, "fuzz-back.conllu");
    if (!again || again->size() != r->size())
        std::abort();
    for (std::size_t i = 0; i < r->size(); ++i) {
        const auto &a = (*r)[i];
        const auto &b = (*again)[i];
        if (a.words() != b.words() || a.dependency.has_value() != b.dependency.has_value())
            std::abort();
        if (a.dependency && !(*a.dependency == *b.dependency))
            std::abort();
    }
    if (treelens::writeConllu(*again) != back)
        std::abort();
    return 0;
}
