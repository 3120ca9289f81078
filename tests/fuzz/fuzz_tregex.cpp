// Fuzzes the Tregex subset (core/query/tregex.h): the first line is a pattern, the rest a
// PTB tree (a fixed one when it is missing or does not read). Checks: a pattern that parses
// describes itself as a pattern that parses to the same description; every match names
// nodes of the tree and one entry per name; the matched roots, without duplicates, are
// matchingNodes(). Matching is bounded: at most 4 node descriptions on a tree of at most
// 64 nodes (the number of matches grows as a product), and at most 10,000 matches.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "core/formats/ptb.h"
#include "core/query/tregex.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    using namespace treelens;
    if (size > 4096)
        return 0;
    const std::string text(reinterpret_cast<const char *>(data), size);
    const std::size_t nl = text.find('\n');
    const std::string patternText = text.substr(0, nl);
    auto p = TregexPattern::parse(patternText);
    if (!p)
        return 0;
    const std::string d = p->describe();
    auto again = TregexPattern::parse(d);
    if (!again || again->describe() != d || again->names() != p->names()) {
        std::fprintf(stderr, "fuzz_tregex: '%s' describes itself as '%s', which %s\n", patternText.c_str(), d.c_str(),
                     again ? ("describes itself as '" + again->describe() + "'").c_str() : again.message().c_str());
        std::abort();
    }
    if (p->size() > 4)
        return 0;
    PtbReadOptions opt;
    opt.maxDepth = 200;
    ConstituencyTree tree;
    if (nl != std::string::npos) {
        auto r = readPtb(text.substr(nl + 1), "fuzz", opt);
        if (r && r->size() == 1 && r->front().nodes().size() <= 64)
            tree = r->front();
    }
    if (tree.empty())
        tree = readPtb("( (S (NP-SBJ (DT The) (NN cat)) (VP (VBD sat) (PP (IN on) (NP (DT the) (NN mat))) "
                       "(S (-NONE- *T*-1))) (. .)) )",
                       "fixed")
                   ->front();
    const int n = static_cast<int>(tree.nodes().size());
    const auto matches = p->match(tree, 10000);
    std::vector<int> roots;
    for (const auto &m : matches) {
        if (m.node < 0 || m.node >= n || m.bound.size() != p->names().size())
            std::abort();
        for (int b : m.bound)
            if (b < -1 || b >= n)
                std::abort();
        if (roots.empty() || roots.back() != m.node)
            roots.push_back(m.node);
    }
    if (matches.size() < 10000 && roots != p->matchingNodes(tree))
        std::abort();
    return 0;
}
