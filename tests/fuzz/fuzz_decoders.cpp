// Fuzzes the tree decoders with score matrices built from the input bytes.
// Aborts when MST/Eisner return anything but a valid single-rooted tree, Eisner a
// non-projective one, CKY anything but the 2n-1 well-nested spans of a binary tree,
// or spansToTree/treeToTrainingSpans disagree. For small sentences with exact
// (quantised) scores, both dependency decoders must also hit the brute-force optimum.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "core/data/dependencytree.h"
#include "core/parsing/treedecoders.h"

using namespace treelens;

namespace {

class Bytes {
public:
    Bytes(const uint8_t *d, size_t n) : m_d(d), m_n(n) {}
    uint8_t byte() { return m_i < m_n ? m_d[m_i++] : 0; }
    /// Mode 0: quantised (multiples of 1/8, plus NaN and ±inf); mode 1: raw float bits.
    float score(bool raw, bool specials)
    {
        if (raw) {
            uint32_t bits = 0;
            for (int k = 0; k < 4; ++k)
                bits = (bits << 8) | byte();
            float f;
            std::memcpy(&f, &bits, sizeof f);
            return f;
        }
        const uint8_t b = byte();
        if (specials && b == 255)
            return std::numeric_limits<float>::quiet_NaN();
        if (specials && b == 254)
            return std::numeric_limits<float>::infinity();
        if (specials && b == 253)
            return -std::numeric_limits<float>::infinity();
        return (static_cast<float>(b) - 128.0f) / 8.0f;
    }

private:
    const uint8_t *m_d;
    size_t m_n;
    size_t m_i = 0;
};

double treeScore(const std::vector<float> &s, int n, const std::vector<int> &heads)
{
    double t = 0;
    for (int d = 1; d <= n; ++d)
        t += s[static_cast<size_t>(d * (n + 1) + heads[static_cast<size_t>(d - 1)])];
    return t;
}

double bruteForce(const std::vector<float> &s, int n, bool projective)
{
    std::vector<int> heads(static_cast<size_t>(n), 0);
    double best = -HUGE_VAL;
    std::function<void(int)> rec = [&](int d) {
        if (d > n) {
            DependencyTree t{heads, std::vector<std::string>(static_cast<size_t>(n), "x")};
            if (t.validate().ok() && (!projective || t.isProjective()))
                best = std::max(best, treeScore(s, n, heads));
            return;
        }
        for (int h = 0; h <= n; ++h)
            if (h != d) {
                heads[static_cast<size_t>(d - 1)] = h;
                rec(d + 1);
            }
    };
    rec(1);
    return best;
}

void checkDependency(Bytes &in)
{
    const uint8_t mode = in.byte();
    const int n = 1 + in.byte() % 64;
    const bool raw = mode & 1, specials = mode & 2;
    std::vector<float> s(static_cast<size_t>((n + 1) * (n + 1)));
    for (auto &v : s)
        v = in.score(raw, specials);
    const auto mst = decodeMst(s, n);
    const auto eis = decodeEisner(s, n);
    if (mst.size() != static_cast<size_t>(n) || eis.size() != static_cast<size_t>(n))
        std::abort();
    const DependencyTree a{mst, std::vector<std::string>(static_cast<size_t>(n), "x")};
    const DependencyTree b{eis, std::vector<std::string>(static_cast<size_t>(n), "x")};
    if (!a.validate().ok() || !b.validate().ok() || !b.isProjective())
        std::abort();
    if (!raw && !specials) {
        // Exact arithmetic (multiples of 1/8): the MST is never worse than Eisner,
        // and for small n both are optimal.
        if (treeScore(s, n, mst) < treeScore(s, n, eis))
            std::abort();
        if (n <= 5 && (treeScore(s, n, mst) != bruteForce(s, n, false) || treeScore(s, n, eis) != bruteForce(s, n, true)))
            std::abort();
    }
}

void checkCky(Bytes &in)
{
    const uint8_t mode = in.byte();
    const int n = 1 + in.byte() % 40;
    const int labels = 1 + in.byte() % 6;
    SpanChart c(n, labels);
    for (auto &v : c.scores)
        v = in.score(mode & 1, mode & 2);
    std::vector<ChartSpan> gold;
    CkyOptions opt;
    opt.forceRootConstituent = mode & 4;
    if (mode & 8) {
        // Some (possibly crossing, out-of-range) gold spans for loss augmentation.
        const int g = in.byte() % 8;
        for (int k = 0; k < g; ++k)
            gold.push_back({in.byte() % (n + 2) - 1, in.byte() % (n + 2), in.byte() % labels});
        opt.hammingGold = &gold;
    }
    const CkyResult r = decodeCky(c, opt);
    if (r.spans.size() != static_cast<size_t>(2 * n - 1) || r.spans.front().start != 0 || r.spans.front().end != n)
        std::abort();
    for (size_t i = 0; i < r.spans.size(); ++i) {
        const auto &x = r.spans[i];
        if (x.start < 0 || x.start >= x.end || x.end > n || x.label < 0 || x.label >= labels)
            std::abort();
        if (opt.forceRootConstituent && labels > 1 && i == 0 && x.label == 0)
            std::abort();
        for (size_t j = 0; j < i; ++j) {
            const auto &y = r.spans[j];
            const bool disjoint = x.end <= y.start || y.end <= x.start;
            const bool nested = y.start <= x.start && x.end <= y.end; // pre-order: earlier is outer
            if (!disjoint && !nested)
                std::abort();
            if (x.start == y.start && x.end == y.end)
                std::abort();
        }
    }
    // Spans -> tree -> training spans gives back the non-Ø spans.
    const std::vector<std::string> names{"", "A", "B", "C+D", "E", "F+G+H"};
    std::vector<std::string> words, tags;
    for (int i = 0; i < n; ++i) {
        words.push_back("w" + std::to_string(i));
        tags.push_back("T");
    }
    const ConstituencyTree t = spansToTree(words, tags, r.spans, names);
    if (!t.validate().ok() || t.wordCount() != n || t.words() != words)
        std::abort();
    std::vector<LabeledSpan> expected;
    for (const auto &x : r.spans)
        if (x.label > 0)
            expected.push_back({names[static_cast<size_t>(x.label)], x.start, x.end, -1});
    if (treeToTrainingSpans(t) != expected)
        std::abort();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    Bytes in(data + 1, size - 1);
    if (data[0] & 1)
        checkCky(in);
    else
        checkDependency(in);
    return 0;
}
