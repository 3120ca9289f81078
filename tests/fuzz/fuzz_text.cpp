// Fuzzes the plain-text reader (line mode and running text) and the tokenizer:
// token offsets must always index the text exactly.
#include <cstdlib>
#include <string>

#include "core/formats/plaintext.h"
#include "core/text/tokenizer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const std::string text(reinterpret_cast<const char *>(data), size);
    for (bool split : {false, true}) {
        treelens::PlainTextOptions opt;
        opt.split = split;
        auto r = treelens::readPlainText(text, "fuzz.txt", opt);
        if (!r)
            continue;
        for (const auto &s : *r)
            for (const auto &t : s.tokens)
                if (t.charStart < 0 || t.charEnd > static_cast<int>(s.text.size()) || t.charStart >= t.charEnd
                    || s.text.compare(static_cast<std::size_t>(t.charStart), static_cast<std::size_t>(t.charEnd - t.charStart), t.text) != 0)
                    std::abort();
    }
    // The tokenizer must also survive invalid UTF-8 directly.
    int last = 0;
    for (const auto &t : treelens::Tokenizer().tokenize(text)) {
        if (t.charStart < last || t.charEnd <= t.charStart || t.charEnd > static_cast<int>(text.size()))
            std::abort();
        last = t.charEnd;
    }
    return 0;
}
