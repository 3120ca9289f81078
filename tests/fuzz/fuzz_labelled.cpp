// Fuzzes the labelled-sentence reader (TREC question files): whatever the bytes,
// every sentence it returns has a class, words without spaces, and valid UTF-8.
#include <cstdlib>
#include <string>

#include "core/base/utf8.h"
#include "core/formats/labelledtext.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const std::string text(reinterpret_cast<const char *>(data), size);
    auto r = treelens::readLabelledText(text, "fuzz.txt");
    if (!r)
        return 0;
    for (const auto &s : r->sentences) {
        if (s.coarseLabel.empty() || s.label.compare(0, s.coarseLabel.size(), s.coarseLabel) != 0 || s.sentence.tokens.empty())
            std::abort();
        if (treelens::findInvalidUtf8(s.label) >= 0 || treelens::findInvalidUtf8(s.sentence.text) >= 0)
            std::abort();
        for (const auto &t : s.sentence.tokens)
            if (t.text.empty() || t.text.find(' ') != std::string::npos || t.text.find('\t') != std::string::npos
                || treelens::findInvalidUtf8(t.text) >= 0)
                std::abort();
    }
    return 0;
}
