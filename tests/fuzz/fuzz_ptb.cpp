// Fuzzes the PTB bracket reader, trace stripping and both writers.
#include <cstdlib>
#include <string>

#include "core/formats/ptb.h"
#include "core/parsing/headrules.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const std::string text(reinterpret_cast<const char *>(data), size);
    treelens::PtbReadOptions opt;
    opt.maxDepth = 500; // keep ASan's deeper frames well inside the stack
    auto r = treelens::readPtb(text, "fuzz.mrg", opt);
    if (!r)
        return 0;
    for (auto &t : *r) {
        for (auto style : {treelens::PtbStyle::OneLine, treelens::PtbStyle::Treebank}) {
            auto back = treelens::readPtb(treelens::writePtbTree(t, style), "back", opt);
            if (!back || back->size() != 1 || !(back->front() == t))
                std::abort();
        }
        (void)t.spans();
        (void)t.depth();
        (void)t.topConstituents();
        treelens::ConstituencyTree s = t;
        s.stripTraces();
        s.stripFunctionTags();
        if (s.wordCount() > 0) {
            if (!s.validate().ok())
                std::abort();
            auto d = treelens::toDependencies(s);
            if (d && static_cast<int>(d->size()) != s.wordCount())
                std::abort();
        }
    }
    return 0;
}
