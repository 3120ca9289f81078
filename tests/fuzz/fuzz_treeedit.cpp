// Fuzzes the tree edits (core/data/treeedit.h): the first line is a PTB tree (its
// words get a chain dependency tree, word k under word k-1), every further line an
// edit in the edit language, applied in order. Checks: an edit that parses prints
// back to itself; an accepted edit leaves valid trees over the same words; a refused
// edit leaves the sentence as it was (trees and metadata).
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>

#include "core/data/treeedit.h"
#include "core/formats/ptb.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    using namespace treelens;
    if (size > 4096)
        return 0;
    std::istringstream in(std::string(reinterpret_cast<const char *>(data), size));
    std::string first;
    std::getline(in, first);
    auto read = readPtbSentences(first, "fuzz");
    if (!read || read->empty())
        return 0;
    Sentence s = read->front();
    const auto words = s.words();
    if (words.empty() || !s.constituency)
        return 0;
    const auto treeWords = s.constituency->words(); // as the tree spells them (-RSB-, not ])
    DependencyTree chain;
    for (std::size_t i = 0; i < words.size(); ++i) {
        chain.heads.push_back(static_cast<int>(i)); // word 1 the root, word k under k-1
        chain.deprels.push_back(i == 0 ? "root" : "dep");
    }
    s.dependency = chain;
    for (std::string line; std::getline(in, line);) {
        auto edit = parseTreeEdit(line);
        if (!edit)
            continue;
        auto again = parseTreeEdit(toString(*edit));
        if (!again || !(*again == *edit))
            std::abort();
        const Sentence before = s;
        const Status st = applyTreeEdit(s, *edit);
        if (!st) {
            if (!(*s.dependency == *before.dependency) || !(*s.constituency == *before.constituency) ||
                s.metadata != before.metadata)
                std::abort();
            continue;
        }
        const char *broken = !s.dependency->validate()           ? "the dependency tree is not valid"
                             : !s.constituency->validate()         ? "the constituency tree is not valid"
                             : s.constituency->words() != treeWords ? "the constituency tree's words changed"
                             : s.words() != words                  ? "the sentence's words changed"
                                                                   : nullptr;
        if (broken) {
            std::fprintf(stderr, "fuzz_treeedit: after '%s': %s: %s\n", line.c_str(), broken,
                         writePtbTree(*s.constituency).c_str());
            std::abort();
        }
    }
    return 0;
}
