// Fuzzes the recursive tree models' tree builders (core/encoders/recursive/recconfig.h):
// first byte even: the rest is PTB text, read and turned into the n-ary and the left-factored
// binary tree; odd: the rest is a dependency tree (one head byte and one relation byte per
// token). Checks the invariants the network relies on: post-order (children before parents,
// the root last), the leaves are the words 0..n-1 in order, heights and spans consistent,
// binary nodes have two children, every token with dependents has exactly one node.
#include <cstdlib>
#include <string>
#include <vector>

#include "core/encoders/recursive/recconfig.h"
#include "core/formats/ptb.h"

namespace {

void check(const treelens::RecTree &t, bool binary)
{
    using treelens::RecChild;
    std::vector<int> covered;
    for (std::size_t v = 0; v < t.nodes.size(); ++v) {
        const auto &n = t.nodes[v];
        if (n.children.empty() || (binary && n.children.size() != 2))
            std::abort();
        int height = 1, start = t.words, end = -1;
        for (const RecChild &c : n.children) {
            if (c.node) {
                if (c.index < 0 || static_cast<std::size_t>(c.index) >= v || t.nodes[static_cast<std::size_t>(c.index)].parent != static_cast<int>(v))
                    std::abort();
                const auto &k = t.nodes[static_cast<std::size_t>(c.index)];
                height = std::max(height, k.height + 1);
                start = std::min(start, k.start);
                end = std::max(end, k.end);
            } else {
                if (c.index < 0 || c.index >= t.words)
                    std::abort();
                start = std::min(start, c.index);
                end = std::max(end, c.index + 1);
            }
        }
        if (t.dependency && n.headWord >= 0) {
            start = std::min(start, n.headWord);
            end = std::max(end, n.headWord + 1);
        }
        if (n.height != height || n.start != start || n.end != end)
            std::abort();
    }
    if (!t.nodes.empty() && t.nodes.back().parent != -1)
        std::abort();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    treelens::RecTreeLimits limits;
    limits.maxHeight = 600;
    if (data[0] % 2 == 0) {
        const std::string text(reinterpret_cast<const char *>(data + 1), size - 1);
        treelens::PtbReadOptions opt;
        opt.maxDepth = 500;
        auto trees = treelens::readPtb(text, "fuzz.mrg", opt);
        if (!trees)
            return 0;
        for (const auto &tree : *trees)
            for (bool binary : {false, true}) {
                auto t = treelens::constituencyRecTree(tree, binary, limits);
                if (!t)
                    continue;
                if (t->words != tree.wordCount())
                    std::abort();
                check(*t, binary);
            }
        return 0;
    }
    const std::size_t n = (size - 1) / 2;
    if (n == 0)
        return 0;
    const std::vector<std::string> rels = {"root", "nsubj", "obj", "det", "amod", "nmod:poss", "weird"};
    treelens::DependencyTree d;
    for (std::size_t i = 0; i < n; ++i) {
        d.heads.push_back(static_cast<int>(data[1 + 2 * i] % (n + 1)));
        d.deprels.push_back(rels[data[2 + 2 * i] % rels.size()]);
    }
    auto t = treelens::dependencyRecTree(d, {"root", "nsubj", "obj", "det", "amod", "nmod"}, limits);
    if (!t)
        return 0;
    check(*t, false);
    int withDependents = 0;
    for (std::size_t i = 0; i < n; ++i)
        if (!d.children(static_cast<int>(i)).empty())
            ++withDependents;
    if (static_cast<int>(t->nodes.size()) != withDependents)
        std::abort();
    for (std::size_t i = 0; i < n; ++i) {
        const int v = t->tokenNode[i];
        if ((v >= 0) != !d.children(static_cast<int>(i)).empty() || (v >= 0 && t->nodes[static_cast<std::size_t>(v)].headWord != static_cast<int>(i)))
            std::abort();
    }
    return 0;
}
