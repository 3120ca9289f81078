#include "core/probing/attentiontree.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>

#include "core/eval/depeval.h"

namespace treelens {

namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();

std::string sentenceName(const Sentence &s, std::size_t i)
{
    return "sentence " + std::to_string(i + 1) + (s.id.empty() ? std::string() : " ('" + s.id + "')");
}

Status checkCounts(const std::vector<Sentence> &gold, const std::vector<Analysis> &analyses)
{
    if (gold.size() != analyses.size())
        return Error{"gold has " + std::to_string(gold.size()) + " sentences but there are " +
                     std::to_string(analyses.size()) + " analyses"};
    return {};
}

Status checkWords(const Sentence &s, const Analysis &a, std::size_t i)
{
    if (s.tokens.size() != a.wordToken.size())
        return Error{sentenceName(s, i) + ": gold has " + std::to_string(s.tokens.size()) + " words but the analysis has " +
                     std::to_string(a.wordToken.size())};
    return {};
}

Status checkDependency(const Sentence &s, std::size_t i)
{
    if (!s.dependency)
        return Error{sentenceName(s, i) + " lacks a dependency tree"};
    if (s.dependency->size() != s.tokens.size())
        return Error{sentenceName(s, i) + ": the dependency tree has " + std::to_string(s.dependency->size()) +
                     " words but the sentence has " + std::to_string(s.tokens.size())};
    if (auto st = s.dependency->validate(); !st)
        return Error{sentenceName(s, i) + ": " + st.message(), st.code()};
    return {};
}

const std::vector<std::vector<Matrix>> &pickAttention(const Analysis &a, const AttentionTreeOptions &o)
{
    return o.raw && !a.attentionRaw.empty() ? a.attentionRaw : a.attention;
}

/// Checks every analysis's attention (shape consistent over the corpus, word
/// tokens inside every matrix) and returns {layers, heads}.
Result<std::pair<int, int>> attentionShape(const std::vector<Sentence> &gold, const std::vector<Analysis> &analyses,
                                           const AttentionTreeOptions &o)
{
    int layers = -1, heads = -1;
    for (std::size_t i = 0; i < analyses.size(); ++i) {
        const auto &a = analyses[i];
        const auto &att = pickAttention(a, o);
        const std::string name = sentenceName(gold[i], i);
        if (att.empty() || att.front().empty())
            return Error{name + ": the analysis has no attention (run the encoder with attention)"};
        if (layers < 0) {
            layers = static_cast<int>(att.size());
            heads = static_cast<int>(att.front().size());
        }
        if (static_cast<int>(att.size()) != layers)
            return Error{name + ": the analysis has " + std::to_string(att.size()) + " attention layers, earlier ones " +
                         std::to_string(layers)};
        for (std::size_t l = 0; l < att.size(); ++l) {
            if (static_cast<int>(att[l].size()) != heads)
                return Error{name + ": layer " + std::to_string(l) + " has " + std::to_string(att[l].size()) +
                             " attention heads, expected " + std::to_string(heads)};
            for (const auto &m : att[l])
                for (int t : a.wordToken)
                    if (t < 0 || t >= m.rows || t >= m.cols)
                        return Error{name + ": word token " + std::to_string(t) + " is outside the " +
                                     std::to_string(m.rows) + "x" + std::to_string(m.cols) + " attention matrix"};
        }
    }
    return std::make_pair(std::max(layers, 0), std::max(heads, 0));
}

/// n×n word-level attention (row-major) from a token-level matrix.
void wordMatrix(const Matrix &m, const std::vector<int> &wt, std::vector<double> &out)
{
    const std::size_t n = wt.size();
    out.assign(n * n, 0.0);
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < n; ++j)
            out[i * n + j] = m.at(wt[i], wt[j]);
}

/// Index of the largest entry of row i over j ≠ i (ties: lowest j); -1 when n < 2.
int argmaxOther(const std::vector<double> &w, int n, int i)
{
    int best = -1;
    for (int j = 0; j < n; ++j) {
        if (j == i)
            continue;
        if (best < 0 || w[static_cast<std::size_t>(i) * n + j] > w[static_cast<std::size_t>(i) * n + best])
            best = j;
    }
    return best;
}

/// A causal head's choice for word i: the word before i it attends to most (-1 for the first
/// word, which sees no other). Its dep-to-head hits are then the arcs whose head precedes the
/// dependent, its head-to-dep hits the others: the one direction it can see each arc in.
int argmaxEarlier(const std::vector<double> &w, int n, int i)
{
    int best = -1;
    for (int j = 0; j < i; ++j)
        if (best < 0 || w[static_cast<std::size_t>(i) * n + j] > w[static_cast<std::size_t>(i) * n + best])
            best = j;
    return best;
}

BestCell bestCell(const LayerHeadGrid &g)
{
    BestCell b;
    for (int l = 0; l < g.layers; ++l)
        for (int h = 0; h < g.heads; ++h)
            if (b.layer < 0 || g.at(l, h) > b.accuracy) {
                b.layer = l;
                b.head = h;
                b.accuracy = g.at(l, h);
            }
    return b;
}

double percent(double num, double den) { return den > 0 ? 100.0 * num / den : 0.0; }

/// Smallest span (by size, then lower start) among `spans` containing [a, b]
/// with size in [minSize, maxSize]; {-1, -1} if none.
std::pair<int, int> smallestContaining(const std::vector<std::pair<int, int>> &spans, int a, int b, int minSize, int maxSize)
{
    std::pair<int, int> best{-1, -1};
    for (const auto &s : spans) {
        const int size = s.second - s.first;
        if (s.first > a || s.second <= b || size < minSize || size > maxSize)
            continue;
        const int bestSize = best.second - best.first;
        if (best.first < 0 || size < bestSize || (size == bestSize && s.first < best.first))
            best = s;
    }
    return best;
}

std::vector<double> averageRanks(const std::vector<double> &v)
{
    std::vector<std::size_t> order(v.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return v[a] < v[b]; });
    std::vector<double> rank(v.size());
    for (std::size_t i = 0; i < order.size();) {
        std::size_t j = i;
        while (j + 1 < order.size() && v[order[j + 1]] == v[order[i]])
            ++j;
        const double r = (static_cast<double>(i) + static_cast<double>(j)) / 2.0 + 1.0;
        for (std::size_t k = i; k <= j; ++k)
            rank[order[k]] = r;
        i = j + 1;
    }
    return rank;
}

/// Sorts items by a key ascending (NaN last), ties by a second key descending,
/// then by sentence index; returns the sentence indices.
struct Ranked {
    int sentence;
    double key;
    double tie; ///< larger first
};
std::vector<int> rankWorstFirst(std::vector<Ranked> items)
{
    std::stable_sort(items.begin(), items.end(), [](const Ranked &a, const Ranked &b) {
        const bool an = std::isnan(a.key), bn = std::isnan(b.key);
        if (an != bn)
            return bn;
        if (!an && a.key != b.key)
            return a.key < b.key;
        if (a.tie != b.tie)
            return a.tie > b.tie;
        return a.sentence < b.sentence;
    });
    std::vector<int> out;
    out.reserve(items.size());
    for (const auto &r : items)
        out.push_back(r.sentence);
    return out;
}

} // namespace

// ---------------------------------------------------------------- helpers

double RelationHeadAccuracy::offsetAccuracy(int offset) const
{
    for (const auto &o : offsets)
        if (o.offset == offset)
            return o.accuracy;
    return 0.0;
}

const RelationHeadAccuracy *HeadAccuracyReport::find(const std::string &relation) const
{
    for (const auto &r : relations)
        if (r.relation == relation)
            return &r;
    return nullptr;
}

const char *linkBucketName(int bucket)
{
    static const char *names[] = {"2", "3-4", "5-8", "9+", "sentence"};
    return bucket >= 0 && bucket < LinkBucketCount ? names[bucket] : "";
}

std::vector<std::pair<int, int>> maximumSpanningTree(const std::vector<double> &w, int n)
{
    std::vector<std::pair<int, int>> edges;
    if (n < 2)
        return edges;
    std::vector<char> inTree(static_cast<std::size_t>(n), 0);
    std::vector<double> key(static_cast<std::size_t>(n), -std::numeric_limits<double>::infinity());
    std::vector<int> parent(static_cast<std::size_t>(n), -1);
    auto add = [&](int u) {
        inTree[u] = 1;
        for (int v = 0; v < n; ++v) {
            if (inTree[v])
                continue;
            const double x = w[static_cast<std::size_t>(u) * n + v];
            if (parent[v] < 0 || x > key[v] || (x == key[v] && u < parent[v])) {
                key[v] = x;
                parent[v] = u;
            }
        }
    };
    add(0);
    for (int step = 1; step < n; ++step) {
        int best = -1;
        for (int v = 0; v < n; ++v)
            if (!inTree[v] && (best < 0 || key[v] > key[best]))
                best = v;
        edges.emplace_back(parent[best], best);
        add(best);
    }
    return edges;
}

double spearmanCorrelation(const std::vector<double> &x, const std::vector<double> &y)
{
    if (x.size() != y.size() || x.size() < 2)
        return kNaN;
    const auto rx = averageRanks(x), ry = averageRanks(y);
    const double n = static_cast<double>(x.size());
    const double mx = std::accumulate(rx.begin(), rx.end(), 0.0) / n;
    const double my = std::accumulate(ry.begin(), ry.end(), 0.0) / n;
    double sxy = 0, sxx = 0, syy = 0;
    for (std::size_t i = 0; i < rx.size(); ++i) {
        sxy += (rx[i] - mx) * (ry[i] - my);
        sxx += (rx[i] - mx) * (rx[i] - mx);
        syy += (ry[i] - my) * (ry[i] - my);
    }
    if (sxx <= 0 || syy <= 0)
        return kNaN;
    return sxy / std::sqrt(sxx * syy);
}

Result<std::vector<std::pair<int, int>>> goldConstituentSpans(const Sentence &s, int words, const AttentionTreeOptions &o)
{
    using Spans = AttentionTreeOptions::Spans;
    const bool hasConst = s.constituency && !s.constituency->empty();
    const bool useConst = o.spans == Spans::Constituency || (o.spans == Spans::Auto && hasConst);
    std::vector<std::pair<int, int>> out;
    if (useConst) {
        if (!hasConst)
            return Error{"no constituency tree"};
        const auto &t = *s.constituency;
        if (t.wordCount() != words)
            return Error{"the constituency tree has " + std::to_string(t.wordCount()) + " words, expected " + std::to_string(words)};
        for (const auto &sp : t.spans(true))
            if (sp.end > sp.start)
                out.emplace_back(sp.start, sp.end);
        return out;
    }
    if (!s.dependency)
        return Error{o.spans == Spans::Auto ? "neither a constituency nor a dependency tree" : "no dependency tree"};
    const auto &d = *s.dependency;
    if (static_cast<int>(d.size()) != words)
        return Error{"the dependency tree has " + std::to_string(d.size()) + " words, expected " + std::to_string(words)};
    if (auto st = d.validate(); !st)
        return st.error();
    std::vector<int> lo(static_cast<std::size_t>(words)), hi(static_cast<std::size_t>(words));
    for (int i = 0; i < words; ++i)
        lo[i] = hi[i] = i;
    for (int i = 0; i < words; ++i)
        for (int a = d.heads[i] - 1; a >= 0; a = d.heads[a] - 1) {
            lo[a] = std::min(lo[a], i);
            hi[a] = std::max(hi[a], i);
        }
    for (int i = 0; i < words; ++i)
        out.emplace_back(lo[i], hi[i] + 1);
    return out;
}

// ---------------------------------------------------------------- (a)

namespace {

/// Which of the n words' arcs head accuracy scores: all, or those options.arcsMetadata lists.
std::vector<char> scoredArcs(const Sentence &s, int n, const AttentionTreeOptions &options)
{
    if (options.arcsMetadata.empty())
        return std::vector<char>(static_cast<std::size_t>(n), 1);
    std::vector<char> scored(static_cast<std::size_t>(n), 0);
    const std::string list = s.metadataValue(options.arcsMetadata);
    std::size_t start = 0;
    while (start < list.size()) {
        const std::size_t comma = std::min(list.find(',', start), list.size());
        int d = 0;
        const auto [end, ec] = std::from_chars(list.data() + start, list.data() + comma, d);
        if (ec == std::errc() && end == list.data() + comma && d >= 1 && d <= n)
            scored[static_cast<std::size_t>(d - 1)] = 1;
        start = comma + 1;
    }
    return scored;
}

} // namespace

Result<HeadAccuracyReport> headAccuracy(const std::vector<Sentence> &gold, const std::vector<Analysis> &analyses,
                                        const AttentionTreeOptions &options)
{
    if (auto st = checkCounts(gold, analyses); !st)
        return st.error();
    for (std::size_t i = 0; i < gold.size(); ++i) {
        if (auto st = checkWords(gold[i], analyses[i], i); !st)
            return st.error();
        if (auto st = checkDependency(gold[i], i); !st)
            return st.error();
    }
    auto shape = attentionShape(gold, analyses, options);
    if (!shape)
        return shape.error();
    const int L = shape->first, H = shape->second, cells = L * H;
    const int maxOff = std::max(2, options.maxBaselineOffset);

    struct Acc {
        RelationHeadAccuracy rel;
        std::vector<long> d2h, h2d;            // per cell
        std::map<int, long> offsetCorrect;     // per offset
    };
    std::map<std::string, Acc> acc;
    auto accFor = [&](const std::string &r) -> Acc & {
        auto it = acc.find(r);
        if (it == acc.end()) {
            Acc a;
            a.rel.relation = r;
            a.d2h.assign(static_cast<std::size_t>(cells), 0);
            a.h2d.assign(static_cast<std::size_t>(cells), 0);
            it = acc.emplace(r, std::move(a)).first;
        }
        return it->second;
    };
    accFor("all");

    std::vector<double> w;
    std::vector<std::vector<int>> argmax(static_cast<std::size_t>(cells)); // [cell][word]
    for (std::size_t si = 0; si < gold.size(); ++si) {
        const auto &s = gold[si];
        const auto &a = analyses[si];
        const auto &dep = *s.dependency;
        const int n = static_cast<int>(a.wordToken.size());
        if (n == 0)
            continue;
        const auto &att = pickAttention(a, options);
        for (int l = 0; l < L; ++l)
            for (int h = 0; h < H; ++h) {
                wordMatrix(att[l][h], a.wordToken, w);
                auto &am = argmax[static_cast<std::size_t>(l * H + h)];
                am.resize(static_cast<std::size_t>(n));
                for (int i = 0; i < n; ++i)
                    am[i] = a.causalAttention ? argmaxEarlier(w, n, i) : argmaxOther(w, n, i);
            }
        std::map<std::string, HeadAccuracySentence> perSentence;
        const std::vector<char> scored = scoredArcs(s, n, options);
        for (int d = 0; d < n; ++d) {
            const int head = dep.heads[d] - 1;
            if (head < 0 || !scored[static_cast<std::size_t>(d)])
                continue;
            const std::string rel = d < static_cast<int>(dep.deprels.size()) ? (options.keepRelationSubtypes ? dep.deprels[d] : universalRelation(dep.deprels[d]))
                                                                               : "_";
            std::vector<std::string> targets{"all"};
            if (rel != "all")
                targets.push_back(rel);
            for (const auto &r : targets) {
                auto &A = accFor(r);
                auto &ps = perSentence[r];
                if (ps.depToHead.empty()) {
                    ps.sentence = static_cast<int>(si);
                    ps.depToHead.assign(static_cast<std::size_t>(cells), 0);
                    ps.headToDep.assign(static_cast<std::size_t>(cells), 0);
                }
                ++ps.total;
                ++A.rel.count;
                for (int c = 0; c < cells; ++c) {
                    const auto &am = argmax[static_cast<std::size_t>(c)];
                    if (am[d] == head) {
                        ++ps.depToHead[c];
                        ++A.d2h[c];
                    }
                    if (am[head] == d) {
                        ++ps.headToDep[c];
                        ++A.h2d[c];
                    }
                }
                for (int off = -maxOff; off <= maxOff; ++off)
                    if (off != 0 && d + off == head)
                        ++A.offsetCorrect[off];
            }
        }
        for (auto &[r, ps] : perSentence)
            acc[r].rel.sentences.push_back(std::move(ps));
    }

    HeadAccuracyReport report;
    report.subtypesKept = options.keepRelationSubtypes;
    report.layers = L;
    report.heads = H;
    report.sentences = gold.size();
    auto finish = [&](Acc &A) {
        auto &R = A.rel;
        R.depToHead = LayerHeadGrid(L, H);
        R.headToDep = LayerHeadGrid(L, H);
        for (int c = 0; c < cells; ++c) {
            R.depToHead.values[c] = percent(static_cast<double>(A.d2h[c]), static_cast<double>(R.count));
            R.headToDep.values[c] = percent(static_cast<double>(A.h2d[c]), static_cast<double>(R.count));
        }
        for (int off = -maxOff; off <= maxOff; ++off) {
            if (off == 0)
                continue;
            OffsetBaseline b;
            b.offset = off;
            b.correct = A.offsetCorrect[off];
            b.accuracy = percent(static_cast<double>(b.correct), static_cast<double>(R.count));
            R.offsets.push_back(b);
        }
        R.bestOffset = R.offsets.front();
        for (const auto &b : R.offsets) {
            const auto &cur = R.bestOffset;
            if (b.accuracy > cur.accuracy ||
                (b.accuracy == cur.accuracy && (std::abs(b.offset) < std::abs(cur.offset) ||
                                                (std::abs(b.offset) == std::abs(cur.offset) && b.offset < cur.offset))))
                R.bestOffset = b;
        }
        R.bestDepToHead = bestCell(R.depToHead);
        R.bestHeadToDep = bestCell(R.headToDep);
        report.relations.push_back(std::move(R));
    };
    finish(acc["all"]);
    for (auto &[r, A] : acc)
        if (r != "all")
            finish(A);
    return report;
}

Result<ArcHits> arcHits(const DependencyTree &tree, const Matrix &attention, const std::vector<int> &wordToken,
                        int maxOffset, bool causal)
{
    const int n = static_cast<int>(wordToken.size());
    if (static_cast<int>(tree.heads.size()) != n)
        return Error{"the dependency tree has " + std::to_string(tree.heads.size()) + " words but the analysis has " +
                     std::to_string(n)};
    for (int t : wordToken)
        if (t < 0 || t >= attention.rows || t >= attention.cols)
            return Error{"word token " + std::to_string(t) + " is outside the " + std::to_string(attention.rows) + "x" +
                         std::to_string(attention.cols) + " attention matrix"};
    std::vector<double> w;
    wordMatrix(attention, wordToken, w);
    std::vector<int> argmax(static_cast<std::size_t>(n)), argmaxEarlier(static_cast<std::size_t>(n), -1);
    for (int i = 0; i < n; ++i) {
        argmax[static_cast<std::size_t>(i)] = argmaxOther(w, n, i);
        for (int j = 0; j < i; ++j) // a causal head's choice: among the words before i only
            if (argmaxEarlier[static_cast<std::size_t>(i)] < 0 ||
                w[static_cast<std::size_t>(i) * n + j] > w[static_cast<std::size_t>(i) * n + argmaxEarlier[static_cast<std::size_t>(i)]])
                argmaxEarlier[static_cast<std::size_t>(i)] = j;
    }
    ArcHits hits;
    hits.causal = causal;
    const int maxOff = std::max(2, maxOffset);
    std::map<int, int> offsets;
    for (int d = 0; d < n; ++d) {
        const int head = tree.heads[static_cast<std::size_t>(d)] - 1;
        if (head < 0 || head >= n)
            continue;
        ++hits.arcs;
        hits.depToHead += argmax[static_cast<std::size_t>(d)] == head;
        hits.headToDep += argmax[static_cast<std::size_t>(head)] == d;
        const int later = std::max(head, d), earlier = std::min(head, d);
        hits.laterToEarlier += later != earlier && argmaxEarlier[static_cast<std::size_t>(later)] == earlier;
        if (head != d && std::abs(head - d) <= maxOff)
            ++offsets[causal ? -(later - earlier) : head - d];
    }
    // Offsets in the order of the ties rule: |offset| ascending, negative first (a causal head:
    // leftward offsets only).
    for (int k = 1; k <= maxOff && hits.arcs > 0; ++k)
        for (int off : {-k, k})
            if ((!causal || off < 0) && (hits.bestOffset == 0 || offsets[off] > hits.offsetHits)) {
                hits.offsetHits = offsets[off];
                hits.bestOffset = off;
            }
    return hits;
}

std::vector<std::vector<double>> arcShares(const Sentence &sentence, const Analysis &analysis)
{
    std::vector<std::vector<double>> out;
    if (!sentence.dependency || sentence.dependency->size() != analysis.wordToken.size())
        return out;
    for (const auto &layer : analysis.attention) {
        out.emplace_back();
        for (const Matrix &m : layer) {
            auto hits = arcHits(*sentence.dependency, m, analysis.wordToken, 5, analysis.causalAttention);
            out.back().push_back(hits ? hits->share() : 0.0);
        }
    }
    return out;
}

std::vector<int> sentencesForCell(const HeadAccuracyReport &report, int layer, int head, const std::string &relation,
                                  ArcDirection direction)
{
    const auto *rel = report.find(relation);
    if (!rel || layer < 0 || layer >= report.layers || head < 0 || head >= report.heads)
        return {};
    const int c = layer * report.heads + head;
    std::vector<Ranked> items;
    for (const auto &s : rel->sentences) {
        const int right = direction == ArcDirection::DepToHead ? s.depToHead[c] : s.headToDep[c];
        items.push_back({s.sentence, static_cast<double>(right) / s.total, static_cast<double>(s.total - right)});
    }
    return rankWorstFirst(std::move(items));
}

// ---------------------------------------------------------------- (b)

Result<ConstituentMassReport> constituentMass(const std::vector<Sentence> &gold, const std::vector<Analysis> &analyses,
                                              const AttentionTreeOptions &options)
{
    if (auto st = checkCounts(gold, analyses); !st)
        return st.error();
    std::vector<std::vector<std::pair<int, int>>> spans(gold.size());
    for (std::size_t i = 0; i < gold.size(); ++i) {
        if (auto st = checkWords(gold[i], analyses[i], i); !st)
            return st.error();
        auto sp = goldConstituentSpans(gold[i], static_cast<int>(gold[i].tokens.size()), options);
        if (!sp)
            return Error{sentenceName(gold[i], i) + ": " + sp.message(), sp.code()};
        spans[i] = std::move(*sp);
    }
    auto shape = attentionShape(gold, analyses, options);
    if (!shape)
        return shape.error();
    const int L = shape->first, H = shape->second, cells = L * H;

    ConstituentMassReport report;
    report.layers = L;
    report.heads = H;
    report.words.assign(static_cast<std::size_t>(cells), 0);
    std::vector<double> massSum(static_cast<std::size_t>(cells), 0.0), baseSum(static_cast<std::size_t>(cells), 0.0);
    std::vector<double> w;
    for (std::size_t si = 0; si < gold.size(); ++si) {
        const auto &a = analyses[si];
        const int n = static_cast<int>(a.wordToken.size());
        // S(i) for every word: smallest constituent of 2..n-1 words containing i.
        std::vector<std::pair<int, int>> span(static_cast<std::size_t>(n));
        bool any = false;
        for (int i = 0; i < n; ++i) {
            span[i] = smallestContaining(spans[si], i, i, 2, n - 1);
            if (span[i].first < 0)
                ++report.skippedWords;
            else
                any = true;
        }
        if (!any)
            continue;
        ConstituentMassSentence ps;
        ps.sentence = static_cast<int>(si);
        ps.words.assign(static_cast<std::size_t>(cells), 0);
        ps.massSum.assign(static_cast<std::size_t>(cells), 0.0);
        ps.baselineSum.assign(static_cast<std::size_t>(cells), 0.0);
        const auto &att = pickAttention(a, options);
        for (int l = 0; l < L; ++l)
            for (int h = 0; h < H; ++h) {
                const int c = l * H + h;
                wordMatrix(att[l][h], a.wordToken, w);
                for (int i = 0; i < n; ++i) {
                    const int lo = span[i].first, hi = span[i].second; // not a structured binding: clang's C++17 cannot capture one
                    if (lo < 0)
                        continue;
                    auto inside = [lo, hi](int k) { return k >= lo && k < hi ? 1.0 : 0.0; };
                    double total = 0, in = 0, base = 0;
                    for (int j = 0; j < n; ++j) {
                        if (j == i)
                            continue;
                        const double x = w[static_cast<std::size_t>(i) * n + j];
                        total += x;
                        in += x * inside(j);
                        const int dist = std::abs(i - j);
                        const bool left = i - dist >= 0, right = i + dist < n;
                        const double p = left && right ? (inside(i - dist) + inside(i + dist)) / 2.0 : inside(j);
                        base += x * p;
                    }
                    if (!(total > 0))
                        continue;
                    ++ps.words[c];
                    ps.massSum[c] += in / total;
                    ps.baselineSum[c] += base / total;
                }
                report.words[c] += ps.words[c];
                massSum[c] += ps.massSum[c];
                baseSum[c] += ps.baselineSum[c];
            }
        report.sentences.push_back(std::move(ps));
    }
    report.mass = LayerHeadGrid(L, H);
    report.baseline = LayerHeadGrid(L, H);
    report.difference = LayerHeadGrid(L, H);
    for (int c = 0; c < cells; ++c) {
        const double k = static_cast<double>(report.words[c]);
        report.mass.values[c] = k > 0 ? massSum[c] / k : 0.0;
        report.baseline.values[c] = k > 0 ? baseSum[c] / k : 0.0;
        report.difference.values[c] = report.mass.values[c] - report.baseline.values[c];
    }
    return report;
}

std::vector<int> sentencesForCell(const ConstituentMassReport &report, int layer, int head)
{
    if (layer < 0 || layer >= report.layers || head < 0 || head >= report.heads)
        return {};
    const int c = layer * report.heads + head;
    std::vector<Ranked> items;
    for (const auto &s : report.sentences)
        items.push_back({s.sentence, s.words[c] ? s.mass(c) - s.baseline(c) : kNaN, static_cast<double>(s.words[c])});
    return rankWorstFirst(std::move(items));
}

// ---------------------------------------------------------------- (c)

Result<UuasReport> attentionMstUuas(const std::vector<Sentence> &gold, const std::vector<Analysis> &analyses,
                                    const AttentionTreeOptions &options)
{
    if (auto st = checkCounts(gold, analyses); !st)
        return st.error();
    for (std::size_t i = 0; i < gold.size(); ++i) {
        if (auto st = checkWords(gold[i], analyses[i], i); !st)
            return st.error();
        if (auto st = checkDependency(gold[i], i); !st)
            return st.error();
    }
    auto shape = attentionShape(gold, analyses, options);
    if (!shape)
        return shape.error();
    const int L = shape->first, H = shape->second, cells = L * H;

    UuasReport report;
    report.layers = L;
    report.heads = H;
    std::vector<long> correct(static_cast<std::size_t>(cells + L), 0);
    std::vector<double> w, sym, mean;
    for (std::size_t si = 0; si < gold.size(); ++si) {
        const auto &a = analyses[si];
        const auto &dep = *gold[si].dependency;
        const int n = static_cast<int>(a.wordToken.size());
        if (n < 2) {
            ++report.skipped;
            continue;
        }
        const std::size_t nn = static_cast<std::size_t>(n) * n;
        std::vector<char> goldEdge(nn, 0);
        for (int d = 0; d < n; ++d)
            if (const int h = dep.heads[d] - 1; h >= 0) {
                goldEdge[static_cast<std::size_t>(d) * n + h] = 1;
                goldEdge[static_cast<std::size_t>(h) * n + d] = 1;
            }
        auto score = [&](const std::vector<double> &m) {
            sym.assign(nn, 0.0);
            for (int i = 0; i < n; ++i)
                for (int j = 0; j < n; ++j)
                    if (i != j)
                        sym[static_cast<std::size_t>(i) * n + j] =
                            (m[static_cast<std::size_t>(i) * n + j] + m[static_cast<std::size_t>(j) * n + i]) / 2.0;
            int right = 0;
            for (const auto &[u, v] : maximumSpanningTree(sym, n))
                right += goldEdge[static_cast<std::size_t>(u) * n + v];
            return right;
        };
        UuasSentence ps;
        ps.sentence = static_cast<int>(si);
        ps.edges = n - 1;
        ps.correct.assign(static_cast<std::size_t>(cells + L), 0);
        const auto &att = pickAttention(a, options);
        for (int l = 0; l < L; ++l) {
            mean.assign(nn, 0.0);
            for (int h = 0; h < H; ++h) {
                wordMatrix(att[l][h], a.wordToken, w);
                for (std::size_t k = 0; k < nn; ++k)
                    mean[k] += w[k] / H;
                ps.correct[l * H + h] = score(w);
            }
            ps.correct[cells + l] = score(mean);
        }
        for (int c = 0; c < cells + L; ++c)
            correct[c] += ps.correct[c];
        report.edges += ps.edges;
        report.sentences.push_back(std::move(ps));
    }
    report.uuas = LayerHeadGrid(L, H);
    for (int c = 0; c < cells; ++c)
        report.uuas.values[c] = percent(static_cast<double>(correct[c]), static_cast<double>(report.edges));
    for (int l = 0; l < L; ++l)
        report.layerMean.push_back(percent(static_cast<double>(correct[cells + l]), static_cast<double>(report.edges)));
    return report;
}

std::vector<int> sentencesForCell(const UuasReport &report, int layer, int head)
{
    if (layer < 0 || layer >= report.layers || head < kLayerMean || head >= report.heads)
        return {};
    const int c = report.cell(layer, head);
    std::vector<Ranked> items;
    for (const auto &s : report.sentences)
        items.push_back({s.sentence, static_cast<double>(s.correct[c]) / s.edges, static_cast<double>(s.edges - s.correct[c])});
    return rankWorstFirst(std::move(items));
}

// ---------------------------------------------------------------- (d)

Result<LinkProbabilityReport> linkProbabilityStats(const std::vector<Sentence> &gold, const std::vector<Analysis> &analyses,
                                                   const AttentionTreeOptions &options)
{
    if (auto st = checkCounts(gold, analyses); !st)
        return st.error();
    int layers = -1;
    std::vector<std::vector<std::pair<int, int>>> spans(gold.size());
    for (std::size_t i = 0; i < gold.size(); ++i) {
        const auto &a = analyses[i];
        const std::string name = sentenceName(gold[i], i);
        if (auto st = checkWords(gold[i], a, i); !st)
            return st.error();
        if (a.linkProbs.empty())
            return Error{name + ": the analysis has no link probabilities (Tree Transformer encoders emit them)"};
        if (layers < 0)
            layers = static_cast<int>(a.linkProbs.size());
        if (static_cast<int>(a.linkProbs.size()) != layers)
            return Error{name + ": the analysis has link probabilities for " + std::to_string(a.linkProbs.size()) +
                         " layers, earlier ones " + std::to_string(layers)};
        for (std::size_t k = 1; k < a.wordToken.size(); ++k) {
            const int g = a.wordToken[k] - 1;
            for (const auto &row : a.linkProbs)
                if (g < 0 || g >= static_cast<int>(row.size()))
                    return Error{name + ": no link probability for the gap before word " + std::to_string(k + 1) +
                                 " (token " + std::to_string(a.wordToken[k]) + ", " + std::to_string(row.size()) + " links)"};
        }
        auto sp = goldConstituentSpans(gold[i], static_cast<int>(gold[i].tokens.size()), options);
        if (!sp)
            return Error{name + ": " + sp.message(), sp.code()};
        spans[i] = std::move(*sp);
    }
    const int L = std::max(layers, 0);
    LinkProbabilityReport report;
    report.layers = L;
    report.perLayer.assign(static_cast<std::size_t>(L), {});
    std::vector<std::vector<double>> allLinks(static_cast<std::size_t>(L));
    std::vector<double> allNegSize;
    std::vector<std::array<double, LinkBucketCount>> bucketSum(static_cast<std::size_t>(L), std::array<double, LinkBucketCount>{});
    for (std::size_t si = 0; si < gold.size(); ++si) {
        const auto &a = analyses[si];
        const int n = static_cast<int>(a.wordToken.size());
        if (n < 2) {
            ++report.skipped;
            continue;
        }
        LinkSentence ps;
        ps.sentence = static_cast<int>(si);
        std::vector<double> negSize;
        for (int k = 0; k + 1 < n; ++k) {
            const auto s = smallestContaining(spans[si], k, k + 1, 2, n);
            const int size = s.first < 0 ? n : s.second - s.first;
            ps.gapSize.push_back(size);
            negSize.push_back(-static_cast<double>(size));
        }
        allNegSize.insert(allNegSize.end(), negSize.begin(), negSize.end());
        for (int l = 0; l < L; ++l) {
            std::vector<float> row;
            std::vector<double> rowD;
            auto &st = report.perLayer[l];
            for (int k = 0; k + 1 < n; ++k) {
                const float p = a.linkProbs[l][static_cast<std::size_t>(a.wordToken[k + 1] - 1)];
                row.push_back(p);
                rowD.push_back(p);
                const int size = ps.gapSize[k];
                const int b = size >= n ? WholeSentence : size <= 2 ? Size2 : size <= 4 ? Size3to4 : size <= 8 ? Size5to8 : Size9Plus;
                ++st.bucketCount[b];
                bucketSum[l][b] += p;
            }
            ps.spearman.push_back(spearmanCorrelation(rowD, negSize));
            allLinks[l].insert(allLinks[l].end(), rowD.begin(), rowD.end());
            ps.links.push_back(std::move(row));
        }
        report.sentences.push_back(std::move(ps));
    }
    for (int l = 0; l < L; ++l) {
        auto &st = report.perLayer[l];
        const auto &v = allLinks[l];
        st.gaps = static_cast<long>(v.size());
        if (!v.empty()) {
            st.mean = std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
            double ss = 0;
            for (double x : v)
                ss += (x - st.mean) * (x - st.mean);
            st.stddev = std::sqrt(ss / static_cast<double>(v.size()));
        }
        for (int b = 0; b < LinkBucketCount; ++b)
            st.bucketMean[b] = st.bucketCount[b] ? bucketSum[l][b] / static_cast<double>(st.bucketCount[b]) : 0.0;
        st.spearman = spearmanCorrelation(v, allNegSize);
    }
    return report;
}

std::vector<int> sentencesForCell(const LinkProbabilityReport &report, int layer)
{
    if (layer < 0 || layer >= report.layers)
        return {};
    std::vector<Ranked> items;
    for (const auto &s : report.sentences)
        items.push_back({s.sentence, s.spearman[layer], static_cast<double>(s.gapSize.size())});
    return rankWorstFirst(std::move(items));
}

} // namespace treelens
