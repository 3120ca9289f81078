#include "core/parsing/treedecoders.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <utility>

namespace treelens {

namespace {

// Scores are sanitised once so that every comparison below is a total order
// (NaN would make max/argmax inconsistent and could yield a non-tree).
double finiteScore(float v)
{
    if (std::isnan(v))
        return -static_cast<double>(FLT_MAX);
    if (std::isinf(v))
        return v > 0 ? static_cast<double>(FLT_MAX) : -static_cast<double>(FLT_MAX);
    return static_cast<double>(v);
}

std::size_t sz(int i) { return static_cast<std::size_t>(i); }

// ---------------------------------------------------------------------------
// Chu-Liu/Edmonds with a single root word.
//
// The single-root optimum is the maximum arborescence under lexicographic arc
// weights (-[arc leaves ROOT], score): that order is compatible with addition, so
// Chu-Liu/Edmonds applies unchanged, and it prefers the fewest root arcs (one is
// always possible), then the highest score - with no big constant subtracted from
// root arcs, hence no precision loss. The first component needs no storage: ROOT is
// never in a cycle and a cycle member's cycle arc never leaves ROOT, so after any
// contraction an arc's first component is still -1 exactly when it leaves ROOT.
// The greedy step therefore picks a non-root head whenever one exists, i.e. until
// everything has been contracted into one node, which then takes the best root arc.
//
// Contraction is done in place, one cycle at a time (the cycle's first node stands
// for it): only the cycle's rows and columns change, and a new cycle can only pass
// through the new node, so the whole decode is O(n²) (plus the expansion).

/// A contracted cycle, kept for the expansion.
struct MstCycle {
    std::vector<std::vector<int>> members;   ///< original words inside each member
    std::vector<std::pair<int, int>> arcs;   ///< each member's cycle arc, original (head, dep)
};

/// Cycles of the graph node -> best[node] over the nodes in `alive` (ROOT ends walks).
std::vector<std::vector<int>> findCycles(const std::vector<int> &best, int N)
{
    std::vector<std::vector<int>> cycles;
    std::vector<int> mark(sz(N), 0); // the walk (its start node) that visited a node
    std::vector<char> done(sz(N), 0);
    done[0] = 1;
    for (int start = 1; start < N; ++start) {
        if (done[sz(start)])
            continue;
        int v = start;
        while (!done[sz(v)] && mark[sz(v)] != start) {
            mark[sz(v)] = start;
            v = best[sz(v)];
        }
        if (!done[sz(v)]) {
            // The walk came back to one of its own nodes: v is on a new cycle.
            std::vector<int> cyc{v};
            for (int u = best[sz(v)]; u != v; u = best[sz(u)])
                cyc.push_back(u);
            cycles.push_back(std::move(cyc));
        }
        for (v = start; !done[sz(v)]; v = best[sz(v)])
            done[sz(v)] = 1;
    }
    return cycles;
}

} // namespace

std::vector<int> decodeMst(const std::vector<float> &scores, int n)
{
    if (n <= 0 || scores.size() != sz(n + 1) * sz(n + 1))
        return {};
    const int N = n + 1;
    auto at = [N](int d, int h) { return sz(d) * sz(N) + sz(h); };
    // w[at(d, h)]: arc h -> d of the current (contracted) graph, dependent-major;
    // oh/od: the original arc (head, dep) it stands for.
    std::vector<double> w(sz(N) * sz(N));
    std::vector<int> oh(sz(N) * sz(N)), od(sz(N) * sz(N));
    for (int d = 0; d < N; ++d)
        for (int h = 0; h < N; ++h) {
            w[at(d, h)] = finiteScore(scores[at(d, h)]);
            oh[at(d, h)] = h;
            od[at(d, h)] = d;
        }
    std::vector<int> alive; // non-root nodes of the current graph
    for (int d = 1; d < N; ++d)
        alive.push_back(d);
    std::vector<std::vector<int>> inside(sz(N)); // original words a node stands for
    for (int d = 1; d < N; ++d)
        inside[sz(d)] = {d};

    std::vector<int> best(sz(N), 0);
    auto greedy = [&](int d) {
        int bh = 0;
        double bw = -HUGE_VAL;
        const double *row = &w[at(d, 0)];
        for (int h : alive)
            if (h != d && (bh == 0 || row[h] > bw)) {
                bh = h;
                bw = row[h];
            }
        return bh; // 0 only when d is the last node left
    };
    for (int d : alive)
        best[sz(d)] = greedy(d);

    std::vector<std::vector<int>> todo = findCycles(best, N);
    std::vector<MstCycle> contracted;
    std::vector<char> inCycle(sz(N), 0);
    std::vector<double> inVal(sz(N)), adj(sz(N));
    std::vector<int> inArg(sz(N)), walkMark(sz(N), 0);
    int walk = 0;
    while (!todo.empty()) {
        const std::vector<int> cyc = std::move(todo.back());
        todo.pop_back();
        const int r = cyc.front();
        MstCycle rec;
        for (int v : cyc) {
            inCycle[sz(v)] = 1;
            adj[sz(v)] = w[at(v, best[sz(v)])]; // entering at v drops v's cycle arc
            rec.members.push_back(inside[sz(v)]);
            rec.arcs.push_back({oh[at(v, best[sz(v)])], od[at(v, best[sz(v)])]});
        }
        // Arcs u -> cycle: the best entry point v, scored relative to v's cycle arc.
        std::fill(inVal.begin(), inVal.end(), -HUGE_VAL);
        std::fill(inArg.begin(), inArg.end(), -1);
        for (int v : cyc) {
            const double *row = &w[at(v, 0)];
            const double a = adj[sz(v)];
            auto consider = [&](int u) {
                const double val = row[u] - a;
                if (inArg[sz(u)] < 0 || val > inVal[sz(u)]) {
                    inVal[sz(u)] = val;
                    inArg[sz(u)] = v;
                }
            };
            consider(0);
            for (int u : alive)
                if (!inCycle[sz(u)])
                    consider(u);
        }
        auto enter = [&](int u) {
            const int v = inArg[sz(u)];
            w[at(r, u)] = inVal[sz(u)];
            oh[at(r, u)] = oh[at(v, u)];
            od[at(r, u)] = od[at(v, u)];
        };
        enter(0);
        for (int u : alive)
            if (!inCycle[sz(u)])
                enter(u);
        // Arcs cycle -> d: the best member as head.
        for (int d : alive) {
            if (inCycle[sz(d)])
                continue;
            const double *row = &w[at(d, 0)];
            int bv = r;
            for (int v : cyc)
                if (row[v] > row[bv])
                    bv = v;
            w[at(d, r)] = row[bv];
            oh[at(d, r)] = oh[at(d, bv)];
            od[at(d, r)] = od[at(d, bv)];
            if (inCycle[sz(best[sz(d)])])
                best[sz(d)] = r; // its best head was in the cycle, so it is now r
        }
        // The cycle becomes r.
        for (std::size_t k = 1; k < cyc.size(); ++k) {
            const int v = cyc[k];
            inside[sz(r)].insert(inside[sz(r)].end(), inside[sz(v)].begin(), inside[sz(v)].end());
            inside[sz(v)].clear();
        }
        for (int v : cyc)
            inCycle[sz(v)] = 0;
        alive.erase(std::remove_if(alive.begin(), alive.end(),
                                   [&](int v) { return v != r && std::find(cyc.begin() + 1, cyc.end(), v) != cyc.end(); }),
                    alive.end());
        contracted.push_back(std::move(rec));
        best[sz(r)] = greedy(r);
        // Only a cycle through r can be new.
        ++walk;
        int v = best[sz(r)];
        while (v != 0 && v != r && walkMark[sz(v)] != walk) {
            walkMark[sz(v)] = walk;
            v = best[sz(v)];
        }
        if (v == r) {
            std::vector<int> c{r};
            for (int u = best[sz(r)]; u != r; u = best[sz(u)])
                c.push_back(u);
            todo.push_back(std::move(c));
        }
    }

    // Expansion: the final graph's arcs, then each cycle in reverse order keeps
    // all its arcs but the one into the member that was entered from outside.
    std::vector<int> heads(sz(N), -1);
    for (int d : alive)
        heads[sz(od[at(d, best[sz(d)])])] = oh[at(d, best[sz(d)])];
    for (auto it = contracted.rbegin(); it != contracted.rend(); ++it) {
        std::size_t entered = 0;
        for (std::size_t i = 0; i < it->members.size(); ++i)
            for (int o : it->members[i])
                if (heads[sz(o)] >= 0)
                    entered = i;
        for (std::size_t i = 0; i < it->members.size(); ++i)
            if (i != entered)
                heads[sz(it->arcs[i].second)] = it->arcs[i].first;
    }
    return std::vector<int>(heads.begin() + 1, heads.end());
}

std::vector<int> decodeEisner(const std::vector<float> &scores, int n)
{
    if (n <= 0 || scores.size() != sz(n + 1) * sz(n + 1))
        return {};
    const int N = n + 1; // positions 1..n are words; 0 is only used as the root head
    auto arc = [&](int h, int d) { return finiteScore(scores[sz(d) * sz(N) + sz(h)]); };
    auto at = [&](int s, int t) { return sz(s) * sz(N) + sz(t); };
    // C0/I0: head at the right end t; C1/I1: head at the left end s. Tables that an
    // inner loop walks down a column of are also kept transposed (..T[t][s]), so
    // every inner loop reads contiguous memory. Only values are stored: the inner
    // loops are plain max reductions, and the backtrack finds the split again by
    // recomputing the same sums (bit-identical, so equality is exact).
    const std::size_t cells = sz(N) * sz(N);
    std::vector<double> C0(cells, 0.0), C0T(cells, 0.0), C1(cells, 0.0), C1T(cells, 0.0), I0T(cells, 0.0), I1(cells, 0.0);
    auto maxSum = [](const double *a, const double *b, int from, int to) {
        // Four independent maxima: the loop is bound by the latency of the max chain.
        double m0 = -HUGE_VAL, m1 = -HUGE_VAL, m2 = -HUGE_VAL, m3 = -HUGE_VAL;
        int r = from;
        for (; r + 4 <= to; r += 4) {
            m0 = std::max(m0, a[r] + b[r]);
            m1 = std::max(m1, a[r + 1] + b[r + 1]);
            m2 = std::max(m2, a[r + 2] + b[r + 2]);
            m3 = std::max(m3, a[r + 3] + b[r + 3]);
        }
        for (; r < to; ++r)
            m0 = std::max(m0, a[r] + b[r]);
        return std::max(std::max(m0, m1), std::max(m2, m3));
    };
    auto argSum = [](const double *a, const double *b, int from, int to, double m) {
        for (int r = from; r < to; ++r)
            if (a[r] + b[r] == m)
                return r;
        return from; // not reached
    };
    // Split points, each over contiguous rows: incomplete [s,t] joins C1[s][r] and
    // C0[r+1][t]; complete-left C0[s][t] joins C0[s][r] and I0[r][t]; complete-right
    // C1[s][t] joins I1[s][r] and C1[r][t].
    auto splitI = [&](int s, int t) { return argSum(&C1[at(s, 0)], &C0T[at(t, 0)] + 1, s, t, maxSum(&C1[at(s, 0)], &C0T[at(t, 0)] + 1, s, t)); };
    auto splitC0 = [&](int s, int t) { return argSum(&C0[at(s, 0)], &I0T[at(t, 0)], s, t, C0[at(s, t)]); };
    auto splitC1 = [&](int s, int t) { return argSum(&I1[at(s, 0)], &C1T[at(t, 0)], s + 1, t + 1, C1[at(s, t)]); };
    for (int k = 1; k < n; ++k) {
        for (int s = 1; s + k <= n; ++s) {
            const int t = s + k;
            const double bi = maxSum(&C1[at(s, 0)], &C0T[at(t, 0)] + 1, s, t);
            I0T[at(t, s)] = bi + arc(t, s);
            I1[at(s, t)] = bi + arc(s, t);
            C0[at(s, t)] = C0T[at(t, s)] = maxSum(&C0[at(s, 0)], &I0T[at(t, 0)], s, t);
            C1[at(s, t)] = C1T[at(t, s)] = maxSum(&I1[at(s, 0)], &C1T[at(t, 0)], s + 1, t + 1);
        }
    }
    // Single root: the root word r heads [1, r] leftwards and [r, n] rightwards.
    int root = 1;
    double bestRoot = -HUGE_VAL;
    for (int r = 1; r <= n; ++r) {
        const double v = C0[at(1, r)] + C1[at(r, n)] + arc(0, r);
        if (v > bestRoot) {
            bestRoot = v;
            root = r;
        }
    }
    std::vector<int> heads(sz(N), -1);
    heads[sz(root)] = 0;
    // Backtrack with an explicit stack (n may be a few hundred).
    struct Item {
        int s, t, dir;
        bool complete;
    };
    std::vector<Item> stack{{1, root, 0, true}, {root, n, 1, true}};
    while (!stack.empty()) {
        const Item it = stack.back();
        stack.pop_back();
        if (it.s == it.t)
            continue;
        if (it.complete) {
            if (it.dir == 0) {
                const int r = splitC0(it.s, it.t);
                stack.push_back({it.s, r, 0, true});
                stack.push_back({r, it.t, 0, false});
            } else {
                const int r = splitC1(it.s, it.t);
                stack.push_back({it.s, r, 1, false});
                stack.push_back({r, it.t, 1, true});
            }
        } else {
            if (it.dir == 0)
                heads[sz(it.s)] = it.t;
            else
                heads[sz(it.t)] = it.s;
            const int r = splitI(it.s, it.t);
            stack.push_back({it.s, r, 1, true});
            stack.push_back({r + 1, it.t, 0, true});
        }
    }
    return std::vector<int>(heads.begin() + 1, heads.end());
}

CkyResult decodeCky(const SpanChart &chart, const CkyOptions &options)
{
    CkyResult out;
    const int n = chart.n, L = chart.labels;
    if (n <= 0 || L <= 0 || chart.scores.size() != sz(n + 1) * sz(n + 1) * sz(L))
        return out;
    const int N = n + 1;
    auto at = [&](int i, int j) { return sz(i) * sz(N) + sz(j); };
    std::vector<int> gold;
    if (options.hammingGold) {
        gold.assign(sz(N) * sz(N), 0);
        for (const auto &g : *options.hammingGold)
            if (g.start >= 0 && g.start < g.end && g.end <= n)
                gold[at(g.start, g.end)] = g.label;
    }
    // Best label of every span; independent of the split, so computed once.
    std::vector<double> labelScore(sz(N) * sz(N), 0.0);
    std::vector<int> label(sz(N) * sz(N), 0);
    for (int i = 0; i < n; ++i)
        for (int j = i + 1; j <= n; ++j) {
            const int g = gold.empty() ? -1 : gold[at(i, j)];
            const bool forced = options.forceRootConstituent && i == 0 && j == n && L > 1;
            int bl = forced ? 1 : 0;
            double bs = -HUGE_VAL;
            if (g < 0) {
                // Plain decoding: a float scan (NaN never wins a comparison, like
                // -FLT_MAX), sanitising only the winner. This loop is O(n²·L).
                const float *p = &chart.scores[chart.offset(i, j, 0)];
                float fm = forced ? (std::isnan(p[1]) ? -FLT_MAX : p[1]) : 0.0f;
                for (int l = bl + 1; l < L; ++l)
                    if (p[l] > fm) {
                        fm = p[l];
                        bl = l;
                    }
                bs = bl == 0 ? 0.0 : finiteScore(p[bl]);
            } else {
                for (int l = bl; l < L; ++l) {
                    double s = l == 0 ? 0.0 : finiteScore(chart.at(i, j, l));
                    if (l != g)
                        s += 1.0;
                    if (s > bs) {
                        bs = s;
                        bl = l;
                    }
                }
            }
            labelScore[at(i, j)] = bs;
            label[at(i, j)] = bl;
        }
    std::vector<double> best(sz(N) * sz(N), 0.0);
    std::vector<int> split(sz(N) * sz(N), -1);
    for (int len = 1; len <= n; ++len)
        for (int i = 0; i + len <= n; ++i) {
            const int j = i + len;
            double b = 0.0;
            if (len > 1) {
                b = -HUGE_VAL;
                for (int k = i + 1; k < j; ++k) {
                    const double v = best[at(i, k)] + best[at(k, j)];
                    if (v > b) {
                        b = v;
                        split[at(i, j)] = k;
                    }
                }
            }
            best[at(i, j)] = b + labelScore[at(i, j)];
        }
    out.score = best[at(0, n)];
    out.spans.reserve(sz(2 * n - 1));
    std::vector<std::pair<int, int>> stack{{0, n}};
    while (!stack.empty()) {
        const auto [i, j] = stack.back();
        stack.pop_back();
        out.spans.push_back({i, j, label[at(i, j)]});
        if (j - i > 1) {
            const int k = split[at(i, j)];
            stack.push_back({k, j}); // right pushed first: left comes out first (pre-order)
            stack.push_back({i, k});
        }
    }
    return out;
}

// ---------------------------------------------------------------------------
// Spans <-> trees

namespace {

struct NamedSpan {
    int start, end;
    std::string label;
    std::size_t order;
};

std::vector<std::string> splitChain(const std::string &label)
{
    std::vector<std::string> parts;
    std::size_t b = 0;
    while (true) {
        const auto p = label.find('+', b);
        std::string part = label.substr(b, p == std::string::npos ? std::string::npos : p - b);
        if (!part.empty())
            parts.push_back(std::move(part));
        if (p == std::string::npos)
            break;
        b = p + 1;
    }
    return parts;
}

ConstituencyTree buildFromSpans(const std::vector<std::string> &words, const std::vector<std::string> &tags,
                                std::vector<NamedSpan> spans)
{
    const int n = static_cast<int>(words.size());
    spans.erase(std::remove_if(spans.begin(), spans.end(),
                               [&](const NamedSpan &s) { return s.start < 0 || s.end > n || s.start >= s.end || splitChain(s.label).empty(); }),
                spans.end());
    std::stable_sort(spans.begin(), spans.end(), [](const NamedSpan &a, const NamedSpan &b) {
        if (a.start != b.start)
            return a.start < b.start;
        return a.end > b.end; // outer first; stable keeps input order for equal ranges
    });
    ConstituencyTree tree;
    const int root = tree.addNode("TOP", -1);
    // Open constituents: (innermost node of the chain, end).
    std::vector<std::pair<int, int>> open{{root, n}};
    std::size_t k = 0;
    for (int i = 0; i < n; ++i) {
        while (open.size() > 1 && open.back().second <= i)
            open.pop_back();
        for (; k < spans.size() && spans[k].start == i; ++k) {
            const auto &s = spans[k];
            while (open.size() > 1 && open.back().second <= i)
                open.pop_back();
            if (s.end > open.back().second)
                continue; // crosses an enclosing constituent: dropped
            int parent = open.back().first;
            for (const auto &part : splitChain(s.label))
                parent = tree.addNode(part, parent);
            open.push_back({parent, s.end});
        }
        const std::string &tag = sz(i) < tags.size() && !tags[sz(i)].empty() ? tags[sz(i)] : std::string("X");
        const int pre = tree.addNode(tag, open.back().first);
        tree.addNode(words[sz(i)], pre, true);
    }
    tree.renumberWords();
    return tree;
}

bool isWrapperLabel(const std::string &l) { return l.empty() || l == "ROOT" || l == "TOP"; }

} // namespace

ConstituencyTree spansToTree(const std::vector<std::string> &words, const std::vector<std::string> &tags,
                             const std::vector<ChartSpan> &spans, const std::vector<std::string> &labelNames)
{
    std::vector<NamedSpan> named;
    named.reserve(spans.size());
    for (std::size_t i = 0; i < spans.size(); ++i) {
        const auto &s = spans[i];
        if (s.label <= 0 || sz(s.label) >= labelNames.size())
            continue; // Ø
        named.push_back({s.start, s.end, labelNames[sz(s.label)], i});
    }
    return buildFromSpans(words, tags, std::move(named));
}

ConstituencyTree spansToTree(const std::vector<std::string> &words, const std::vector<std::string> &tags,
                             const std::vector<LabeledSpan> &spans)
{
    std::vector<NamedSpan> named;
    named.reserve(spans.size());
    for (std::size_t i = 0; i < spans.size(); ++i)
        named.push_back({spans[i].start, spans[i].end, spans[i].label, i});
    return buildFromSpans(words, tags, std::move(named));
}

std::vector<LabeledSpan> treeToTrainingSpans(const ConstituencyTree &tree)
{
    std::vector<LabeledSpan> out;
    if (tree.empty())
        return out;
    const int count = static_cast<int>(tree.nodes().size());
    // Word ranges of all nodes, bottom-up over an explicit pre-order (trees can be deep).
    std::vector<int> order;
    order.reserve(sz(count));
    std::vector<int> todo{tree.root()};
    while (!todo.empty()) {
        const int v = todo.back();
        todo.pop_back();
        order.push_back(v);
        const auto &ch = tree.node(v).children;
        for (auto it = ch.rbegin(); it != ch.rend(); ++it)
            todo.push_back(*it);
    }
    std::vector<int> lo(sz(count), -1), hi(sz(count), -1);
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
        const int v = *it;
        const auto &nd = tree.node(v);
        if (nd.terminal) {
            if (nd.wordIndex >= 0 && !tree.isTrace(v)) {
                lo[sz(v)] = nd.wordIndex;
                hi[sz(v)] = nd.wordIndex + 1;
            }
            continue;
        }
        for (int c : nd.children) {
            if (lo[sz(c)] < 0)
                continue;
            lo[sz(v)] = lo[sz(v)] < 0 ? lo[sz(c)] : std::min(lo[sz(v)], lo[sz(c)]);
            hi[sz(v)] = std::max(hi[sz(v)], hi[sz(c)]);
        }
    }
    auto phrasal = [&](int v) { return !tree.node(v).terminal && !tree.isPreterminal(v); };
    // Pre-order walk emitting one span per chain.
    std::vector<int> stack;
    const int r = tree.root();
    if (isWrapperLabel(tree.node(r).label) && phrasal(r)) {
        const auto &ch = tree.node(r).children;
        for (auto it = ch.rbegin(); it != ch.rend(); ++it)
            stack.push_back(*it);
    } else {
        stack.push_back(r);
    }
    while (!stack.empty()) {
        const int v = stack.back();
        stack.pop_back();
        if (!phrasal(v) || lo[sz(v)] < 0)
            continue;
        std::string label = tree.node(v).label;
        int cur = v;
        while (true) {
            int only = -1, covering = 0;
            for (int c : tree.node(cur).children)
                if (lo[sz(c)] >= 0) {
                    ++covering;
                    only = c;
                }
            if (covering != 1 || !phrasal(only))
                break;
            label += "+" + tree.node(only).label;
            cur = only;
        }
        LabeledSpan s;
        s.label = std::move(label);
        s.start = lo[sz(v)];
        s.end = hi[sz(v)];
        s.node = v;
        out.push_back(std::move(s));
        const auto &ch = tree.node(cur).children;
        for (auto it = ch.rbegin(); it != ch.rend(); ++it)
            stack.push_back(*it);
    }
    return out;
}

} // namespace treelens
