// Matching a parsed Tregex pattern (tregeximpl.h) against one tree: the tree's index
// (pre-order, positions, leaf ranges, interned labels) is built once per call; the matcher
// walks the pattern's tables in continuation-passing style, so that a match is reported at
// the innermost point of the search with every binding in place, in the order Tregex's
// backtracking matchers (DescriptionPattern, CoordinationPattern) report them.
#include "core/query/tregex.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include <unicode/regex.h>
#include <unicode/unistr.h>
#include <unicode/utypes.h>

#include "core/query/tregeximpl.h"

namespace treelens {

namespace {

using Impl = TregexPattern::Impl;
using tregex::Rel;

/// ICU's limits for one label search (its ticks are ~10,000 steps each): labels are short,
/// only a pathological expression gets near them; it then counts as no match.
constexpr int32_t kRegexTimeLimit = 50;
constexpr int32_t kRegexStackLimit = 1 << 16;

/// What the matcher needs of one tree, computed once per match() call.
struct TreeIndex {
    explicit TreeIndex(const ConstituencyTree &t) : tree(t)
    {
        const std::size_t n = t.nodes().size();
        order.assign(n, -1);
        subtreeEnd.assign(n, 0);
        position.assign(n, 0);
        firstLeaf.assign(n, 0);
        lastLeaf.assign(n, 0);
        labelId.assign(n, 0);
        baseId.assign(n, 0);
        if (t.root() < 0)
            return;
        // Pre-order without recursion (trees may be deep).
        std::vector<int> stack{t.root()};
        while (!stack.empty()) {
            const int i = stack.back();
            stack.pop_back();
            order[static_cast<std::size_t>(i)] = static_cast<int>(pre.size());
            pre.push_back(i);
            const auto &kids = t.node(i).children;
            for (std::size_t k = kids.size(); k-- > 0;) {
                position[static_cast<std::size_t>(kids[k])] = static_cast<int>(k);
                stack.push_back(kids[k]);
            }
        }
        int leaves = 0;
        for (int i : pre)
            if (t.node(i).children.empty())
                firstLeaf[static_cast<std::size_t>(i)] = lastLeaf[static_cast<std::size_t>(i)] = leaves++;
        for (std::size_t k = pre.size(); k-- > 0;) { // children before parents
            const auto i = static_cast<std::size_t>(pre[k]);
            const auto &kids = t.node(pre[k]).children;
            subtreeEnd[i] = k + 1;
            if (!kids.empty()) {
                subtreeEnd[i] = subtreeEnd[static_cast<std::size_t>(kids.back())];
                firstLeaf[i] = firstLeaf[static_cast<std::size_t>(kids.front())];
                lastLeaf[i] = lastLeaf[static_cast<std::size_t>(kids.back())];
            }
        }
        std::unordered_map<std::string, int> labels, bases;
        for (int i : pre) {
            const std::string &l = t.node(i).label;
            labelId[static_cast<std::size_t>(i)] = intern(labels, labelText, l);
            baseId[static_cast<std::size_t>(i)] = intern(bases, baseText, ConstituencyTree::baseLabel(l));
        }
    }

    static int intern(std::unordered_map<std::string, int> &ids, std::vector<std::string> &texts, const std::string &s)
    {
        const auto [it, added] = ids.emplace(s, static_cast<int>(texts.size()));
        if (added)
            texts.push_back(s);
        return it->second;
    }

    int parent(int i) const { return tree.node(i).parent; }
    const std::vector<int> &children(int i) const { return tree.node(i).children; }

    const ConstituencyTree &tree;
    std::vector<int> pre;                   // nodes reachable from the root, in pre-order
    std::vector<int> order;                 // node -> its index in pre
    std::vector<std::size_t> subtreeEnd;    // node -> one past its last descendant in pre
    std::vector<int> position;              // node -> its index among its parent's children
    std::vector<int> firstLeaf, lastLeaf;   // node -> its leaves' range in leaf order
    std::vector<int> labelId, baseId;       // node -> its label, its basic category, interned
    std::vector<std::string> labelText, baseText;
};

/// A non-owning reference to a callable `bool()` (true: stop the search).
class Continuation {
public:
    template <class F>
    Continuation(const F &f) : m_obj(&f), m_call([](const void *o) { return (*static_cast<const F *>(o))(); })
    {
    }
    bool operator()() const { return m_call(m_obj); }

private:
    const void *m_obj;
    bool (*m_call)(const void *);
};

class Matcher {
public:
    Matcher(const Impl &p, const TreeIndex &t) : m_p(p), m_t(t), m_bound(p.names.size(), -1), m_memo(p.nodes.size()), m_regex(p.nodes.size()) {}

    /// Runs `k` for every way root alternative `r` matches at tree node `i`; true if `k` stopped.
    bool root(int r, int i, const Continuation &k) { return node(r, i, k); }
    const std::vector<int> &bound() const { return m_bound; }

private:
    bool node(int n, int i, const Continuation &k)
    {
        const Impl::Node &d = m_p.nodes[static_cast<std::size_t>(n)];
        if (!describes(n, d, i))
            return false;
        int previous = -1;
        if (d.bind >= 0) {
            previous = m_bound[static_cast<std::size_t>(d.bind)];
            m_bound[static_cast<std::size_t>(d.bind)] = i;
        }
        const bool stop = d.cond >= 0 ? cond(d.cond, i, k) : k();
        if (d.bind >= 0)
            m_bound[static_cast<std::size_t>(d.bind)] = previous;
        return stop;
    }

    // `!`: the condition matches no way at all, then once. `?` on a relation: its first
    // match only, or once unmatched; `?` on a group: every match, or once unmatched
    // (DescriptionMatcher and CoordinationMatcher.matches() in Tregex).
    bool cond(int c, int i, const Continuation &k)
    {
        const Impl::Cond &cd = m_p.conds[static_cast<std::size_t>(c)];
        if (cd.negated) {
            const auto found = [] { return true; };
            return plain(cd, i, Continuation(found)) ? false : k();
        }
        if (!cd.optional)
            return plain(cd, i, k);
        bool any = false, stop = false;
        if (cd.kind == Impl::CondKind::Relation) {
            const auto first = [&] {
                any = true;
                stop = k();
                return true;
            };
            plain(cd, i, Continuation(first));
        } else {
            const auto each = [&] {
                any = true;
                return k();
            };
            stop = plain(cd, i, Continuation(each));
        }
        return any ? stop : k();
    }

    bool plain(const Impl::Cond &cd, int i, const Continuation &k)
    {
        switch (cd.kind) {
        case Impl::CondKind::Relation: {
            const auto each = [&](int candidate) { return node(cd.target, candidate, k); };
            return candidates(cd.rel, cd.arg, i, each);
        }
        case Impl::CondKind::And: return conj(cd, 0, i, k);
        case Impl::CondKind::Or:
            for (int part : cd.parts)
                if (cond(part, i, k))
                    return true;
            return false;
        }
        return false;
    }

    // Nested loops in the order written: every match of the first part, and for each
    // every match of the rest.
    bool conj(const Impl::Cond &cd, std::size_t at, int i, const Continuation &k)
    {
        if (at == cd.parts.size())
            return k();
        const auto rest = [&] { return conj(cd, at + 1, i, k); };
        return cond(cd.parts[at], i, Continuation(rest));
    }

    bool describes(int n, const Impl::Node &d, int i);
    template <class F>
    bool candidates(Rel rel, int arg, int a, const F &f) const;

    const Impl &m_p;
    const TreeIndex &m_t;
    std::vector<int> m_bound;
    std::vector<std::vector<signed char>> m_memo;         // per description, per label id: -1 unknown
    std::vector<std::unique_ptr<icu::RegexMatcher>> m_regex; // per description, made on first use
};

bool Matcher::describes(int n, const Impl::Node &d, int i)
{
    switch (d.kind) {
    case Impl::DescKind::Root: return (i == m_t.tree.root()) != d.negated;
    case Impl::DescKind::Backref: return d.ref >= 0 && m_bound[static_cast<std::size_t>(d.ref)] == i;
    case Impl::DescKind::Any: return !d.negated;
    default: break;
    }
    const auto id = static_cast<std::size_t>(d.basic ? m_t.baseId[static_cast<std::size_t>(i)] : m_t.labelId[static_cast<std::size_t>(i)]);
    const std::string &label = d.basic ? m_t.baseText[id] : m_t.labelText[id];
    auto &memo = m_memo[static_cast<std::size_t>(n)];
    if (memo.empty())
        memo.assign(d.basic ? m_t.baseText.size() : m_t.labelText.size(), -1);
    if (memo[id] < 0) {
        bool found = false;
        if (d.kind == Impl::DescKind::Labels) {
            found = std::find(d.labels.begin(), d.labels.end(), label) != d.labels.end();
        } else {
            auto &m = m_regex[static_cast<std::size_t>(n)];
            UErrorCode status = U_ZERO_ERROR;
            if (!m) {
                m.reset(d.regex->matcher(status));
                if (m) {
                    m->setTimeLimit(kRegexTimeLimit, status);
                    m->setStackLimit(kRegexStackLimit, status);
                }
            }
            if (m && U_SUCCESS(status)) {
                const icu::UnicodeString text = icu::UnicodeString::fromUTF8(label);
                m->reset(text);
                found = m->find(status) && U_SUCCESS(status); // Java's Matcher.find(): anywhere in the label
            }
        }
        memo[id] = static_cast<signed char>(found != d.negated);
    }
    return memo[id] != 0;
}

/// Calls f(b) for every node b with "a REL b", in the order Tregex's search iterators
/// visit them (Relation.java), until f returns true; returns whether it did.
template <class F>
bool Matcher::candidates(Rel rel, int arg, int a, const F &f) const
{
    const TreeIndex &t = m_t;
    const auto &kids = t.children(a);
    const int parent = t.parent(a);
    const auto &sisters = parent >= 0 ? t.children(parent) : kids; // used only with a parent
    const auto pos = static_cast<std::size_t>(t.position[static_cast<std::size_t>(a)]);
    const auto ai = static_cast<std::size_t>(a);
    const auto scan = [&](std::size_t from, std::size_t to, auto keep) {
        for (std::size_t k = from; k < to; ++k)
            if (keep(t.pre[k]) && f(t.pre[k]))
                return true;
        return false;
    };
    const auto all = [](int) { return true; };
    switch (rel) {
    case Rel::Child:
        if (arg == 0) {
            for (int c : kids)
                if (f(c))
                    return true;
            return false;
        }
        if (static_cast<std::size_t>(arg > 0 ? arg : -arg) > kids.size())
            return false;
        return f(kids[arg > 0 ? static_cast<std::size_t>(arg - 1) : kids.size() - static_cast<std::size_t>(-arg)]);
    case Rel::Parent:
        if (parent < 0)
            return false;
        if (arg != 0 && pos != (arg > 0 ? static_cast<std::size_t>(arg - 1) : sisters.size() - static_cast<std::size_t>(-arg)))
            return false;
        return f(parent);
    case Rel::Dominates: return scan(static_cast<std::size_t>(t.order[ai]) + 1, t.subtreeEnd[ai], all);
    case Rel::DominatesLeaf:
        return scan(static_cast<std::size_t>(t.order[ai]) + 1, t.subtreeEnd[ai], [&](int b) { return t.children(b).empty(); });
    case Rel::DominatedBy:
        for (int p = parent; p >= 0; p = t.parent(p))
            if (f(p))
                return true;
        return false;
    case Rel::Sister:
        if (parent >= 0)
            for (int s : sisters)
                if (s != a && f(s))
                    return true;
        return false;
    case Rel::ImmLeftSister: return parent >= 0 && pos + 1 < sisters.size() && f(sisters[pos + 1]);
    case Rel::ImmRightSister: return parent >= 0 && pos > 0 && f(sisters[pos - 1]);
    case Rel::LeftSister: // Tregex walks from the last sister towards A
        if (parent >= 0)
            for (std::size_t k = sisters.size(); k-- > pos + 1;)
                if (f(sisters[k]))
                    return true;
        return false;
    case Rel::RightSister: // from the first sister towards A
        if (parent >= 0)
            for (std::size_t k = 0; k < pos; ++k)
                if (f(sisters[k]))
                    return true;
        return false;
    case Rel::OnlyChild: return kids.size() == 1 && f(kids.front());
    case Rel::OnlyChildOf: return parent >= 0 && sisters.size() == 1 && f(parent);
    case Rel::LeftmostDesc:
    case Rel::RightmostDesc:
        for (int c = a; !t.children(c).empty();) {
            c = rel == Rel::LeftmostDesc ? t.children(c).front() : t.children(c).back();
            if (f(c))
                return true;
        }
        return false;
    case Rel::LeftmostDescOf:
    case Rel::RightmostDescOf:
        for (int c = a; t.parent(c) >= 0; c = t.parent(c)) {
            const auto &ks = t.children(t.parent(c));
            if ((rel == Rel::LeftmostDescOf ? ks.front() : ks.back()) != c)
                return false; // A is no longer on the leftmost (rightmost) edge
            if (f(t.parent(c)))
                return true;
        }
        return false;
    case Rel::Precedes: return scan(0, t.pre.size(), [&](int b) { return t.firstLeaf[static_cast<std::size_t>(b)] > t.lastLeaf[ai]; });
    case Rel::ImmPrecedes: return scan(0, t.pre.size(), [&](int b) { return t.firstLeaf[static_cast<std::size_t>(b)] == t.lastLeaf[ai] + 1; });
    case Rel::Follows: return scan(0, t.pre.size(), [&](int b) { return t.lastLeaf[static_cast<std::size_t>(b)] < t.firstLeaf[ai]; });
    case Rel::ImmFollows: return scan(0, t.pre.size(), [&](int b) { return t.lastLeaf[static_cast<std::size_t>(b)] + 1 == t.firstLeaf[ai]; });
    case Rel::Same: return f(a);
    case Rel::SameOrParent:
        if (f(a))
            return true;
        for (int c : kids)
            if (f(c))
                return true;
        return false;
    case Rel::Anywhere: return scan(0, t.pre.size(), all);
    }
    return false;
}


} // namespace

std::vector<TregexMatch> TregexPattern::match(const ConstituencyTree &tree, std::size_t limit) const
{
    std::vector<TregexMatch> out;
    if (!m_impl || tree.empty())
        return out;
    const TreeIndex index(tree);
    Matcher m(*m_impl, index);
    const std::size_t most = limit ? limit : std::numeric_limits<std::size_t>::max();
    for (int i : index.pre)
        for (int r : m_impl->roots) {
            const auto record = [&] {
                out.push_back(TregexMatch{i, m.bound()});
                return out.size() >= most;
            };
            if (m.root(r, i, Continuation(record)))
                return out;
        }
    return out;
}

std::vector<int> TregexPattern::matchingNodes(const ConstituencyTree &tree) const
{
    std::vector<int> out;
    if (!m_impl || tree.empty())
        return out;
    const TreeIndex index(tree);
    Matcher m(*m_impl, index);
    const auto stop = [] { return true; };
    for (int i : index.pre)
        for (int r : m_impl->roots)
            if (m.root(r, i, Continuation(stop))) {
                out.push_back(i);
                break;
            }
    return out;
}


} // namespace treelens
