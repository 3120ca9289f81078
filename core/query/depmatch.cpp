// Grew requests: the sentence graph and the matcher (docs/query.md, "Dependency
// patterns"). deppattern.cpp parses the request and plans each clause here.
#include <algorithm>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <unicode/regex.h>
#include <unicode/unistr.h>
#include <unicode/utypes.h>

#include "core/query/deppattern.h"
#include "core/query/deppatternimpl.h"

namespace treelens {

namespace {

using Impl = DepPattern::Impl;
using Item = Impl::Item;
using ItemKind = Impl::ItemKind;

/// "A=B|C=D" (FEATS or MISC) into (name, value) pairs; entries without '=' are left out.
void splitFeatures(const std::string &column, std::vector<std::pair<std::string, std::string>> &out)
{
    if (column.empty() || column == "_")
        return;
    std::size_t start = 0;
    while (start <= column.size()) {
        std::size_t end = column.find('|', start);
        if (end == std::string::npos)
            end = column.size();
        const std::string entry = column.substr(start, end - start);
        const std::size_t eq = entry.find('=');
        if (eq != std::string::npos && eq > 0)
            out.emplace_back(entry.substr(0, eq), entry.substr(eq + 1));
        start = end + 1;
    }
}

bool present(const std::string &column) { return !column.empty() && column != "_"; }

/// The value of feature `name` of node `n`, if it has one.
std::optional<std::string_view> feature(const DepGraph::Node &n, const std::string &name, bool anchor)
{
    if (name == "form")
        return std::string_view(n.form);
    if (anchor)
        return std::nullopt;
    if (name == "lemma")
        return present(n.lemma) ? std::optional<std::string_view>(n.lemma) : std::nullopt;
    if (name == "upos")
        return present(n.upos) ? std::optional<std::string_view>(n.upos) : std::nullopt;
    if (name == "xpos")
        return present(n.xpos) ? std::optional<std::string_view>(n.xpos) : std::nullopt;
    const auto it = std::lower_bound(n.features.begin(), n.features.end(), name,
                                     [](const std::pair<std::string, std::string> &f, const std::string &k) { return f.first < k; });
    if (it != n.features.end() && it->first == name)
        return std::string_view(it->second);
    return std::nullopt;
}

/// The nodes an item is about (one or two).
std::vector<int> nodesOf(const Item &it)
{
    std::vector<int> out{it.a};
    if (it.b >= 0 && it.b != it.a)
        out.push_back(it.b);
    return out;
}

class Matcher {
public:
    Matcher(const Impl &p, const DepGraph &g) : m_p(p), m_g(g), m_bind(p.allNames.size(), -1), m_used(g.nodes.size(), 0)
    {
        for (const auto &re : p.regexes) {
            UErrorCode status = U_ZERO_ERROR;
            m_matchers.emplace_back(re->matcher(status));
            if (U_FAILURE(status))
                m_matchers.back().reset();
        }
    }

    std::vector<DepMatch> run(std::size_t limit)
    {
        m_limit = limit;
        const Impl::Clause &kernel = m_p.clauses[0];
        if (checkAll(kernel, kernel.checksFirst))
            search(kernel, 0, [&] { return onKernelMatch(); });
        std::sort(m_out.begin(), m_out.end());
        m_out.erase(std::unique(m_out.begin(), m_out.end()), m_out.end());
        return std::move(m_out);
    }

private:
    /// Returns true to stop the search.
    bool onKernelMatch()
    {
        for (std::size_t c = 1; c < m_p.clauses.size(); ++c) {
            const Impl::Clause &ext = m_p.clauses[c];
            bool found = false;
            if (checkAll(ext, ext.checksFirst))
                search(ext, 0, [&] { return found = true; });
            if (found != (ext.kind == Impl::Clause::Kind::With))
                return false;
        }
        DepMatch m;
        for (int n : m_p.clauses[0].newNodes)
            m.nodes.push_back(m_bind[static_cast<std::size_t>(n)]);
        m_out.push_back(std::move(m));
        return m_limit != 0 && m_out.size() >= m_limit;
    }

    template <typename F>
    bool search(const Impl::Clause &c, std::size_t step, const F &onComplete)
    {
        if (step == c.order.size())
            return onComplete();
        const int v = c.order[step];
        const auto tryNode = [&](int cand) {
            if (cand < 0 || cand >= static_cast<int>(m_g.nodes.size()))
                return false;
            const bool inj = m_p.injective[static_cast<std::size_t>(v)];
            if (inj && m_used[static_cast<std::size_t>(cand)])
                return false;
            m_bind[static_cast<std::size_t>(v)] = cand;
            if (inj)
                ++m_used[static_cast<std::size_t>(cand)];
            bool stop = false;
            if (checkAll(c, c.checksAt[step]))
                stop = search(c, step + 1, onComplete);
            if (inj)
                --m_used[static_cast<std::size_t>(cand)];
            m_bind[static_cast<std::size_t>(v)] = -1;
            return stop;
        };
        const int via = c.via[step];
        if (via < 0) {
            for (int cand = 0; cand < static_cast<int>(m_g.nodes.size()); ++cand)
                if (tryNode(cand))
                    return true;
            return false;
        }
        const Item &it = c.items[static_cast<std::size_t>(via)];
        const int other = bound(it.a == v ? it.b : it.a);
        if (it.kind == ItemKind::Edge && it.b == v) { // the bound node's children
            for (int child : m_g.nodes[static_cast<std::size_t>(other)].children)
                if (tryNode(child))
                    return true;
            return false;
        }
        if (it.kind == ItemKind::Edge) // the bound node's head
            return tryNode(m_g.nodes[static_cast<std::size_t>(other)].head);
        return tryNode(it.b == v ? other + 1 : other - 1); // ImmediatePrecedes
    }

    int bound(int patternNode) const { return m_bind[static_cast<std::size_t>(patternNode)]; }

    bool checkAll(const Impl::Clause &c, const std::vector<int> &items)
    {
        return std::all_of(items.begin(), items.end(), [&](int i) { return check(c.items[static_cast<std::size_t>(i)]); });
    }

    bool check(const Item &it);
    bool testValues(const DepValueSet &v, std::string_view s);
    bool testLabel(const DepLabelTest &l, const std::string &label);
    bool testFeature(const DepFeatureTest &f, int node);

    const Impl &m_p;
    const DepGraph &m_g;
    std::vector<int> m_bind;
    std::vector<int> m_used;
    std::vector<std::unique_ptr<icu::RegexMatcher>> m_matchers;
    std::vector<DepMatch> m_out;
    std::size_t m_limit = 0;
};

bool Matcher::testValues(const DepValueSet &v, std::string_view s)
{
    switch (v.kind) {
    case DepValueSet::Kind::Any: return true;
    case DepValueSet::Kind::List: return std::find(v.values.begin(), v.values.end(), s) != v.values.end();
    case DepValueSet::Kind::Regex: {
        auto &m = m_matchers[static_cast<std::size_t>(v.regexIndex)];
        if (!m)
            return false;
        const icu::UnicodeString u = icu::UnicodeString::fromUTF8(icu::StringPiece(s.data(), static_cast<int32_t>(s.size())));
        m->reset(u);
        UErrorCode status = U_ZERO_ERROR;
        const bool ok = m->matches(status);
        return U_SUCCESS(status) && ok;
    }
    }
    return false;
}

bool Matcher::testLabel(const DepLabelTest &l, const std::string &label)
{
    switch (l.kind) {
    case DepLabelTest::Kind::Any: return true;
    case DepLabelTest::Kind::In: return testValues(l.labels, label);
    case DepLabelTest::Kind::NotIn: return !testValues(l.labels, label);
    case DepLabelTest::Kind::Regex: return testValues(l.labels, label);
    case DepLabelTest::Kind::Atoms: break;
    }
    // 1=nsubj, 2=pass, !2, 1<>obl: the parts of the label split at ':'.
    std::vector<std::string_view> parts;
    std::string_view rest(label);
    while (true) {
        const std::size_t colon = rest.find(':');
        parts.push_back(rest.substr(0, colon));
        if (colon == std::string_view::npos)
            break;
        rest.remove_prefix(colon + 1);
    }
    for (const auto &a : l.atoms) {
        const bool has = a.part <= static_cast<int>(parts.size());
        if (a.absent) {
            if (has)
                return false;
            continue;
        }
        if (!has || testValues(a.values, parts[static_cast<std::size_t>(a.part - 1)]) == a.negated)
            return false;
    }
    return true;
}

bool Matcher::testFeature(const DepFeatureTest &f, int node)
{
    const auto value = feature(m_g.nodes[static_cast<std::size_t>(node)], f.name, node == 0);
    switch (f.op) {
    case DepFeatureTest::Op::Present: return value.has_value();
    case DepFeatureTest::Op::Absent: return !value.has_value();
    case DepFeatureTest::Op::In: return value && testValues(f.values, *value);
    case DepFeatureTest::Op::NotIn: return value && !testValues(f.values, *value);
    }
    return false;
}

bool Matcher::check(const Item &it)
{
    const int a = bound(it.a);
    const int b = it.b >= 0 ? bound(it.b) : -1;
    const auto &na = m_g.nodes[static_cast<std::size_t>(a)];
    switch (it.kind) {
    case ItemKind::Filter:
        return std::all_of(it.features.begin(), it.features.end(), [&](const DepFeatureTest &f) { return testFeature(f, a); });
    case ItemKind::Edge: {
        const auto &nb = m_g.nodes[static_cast<std::size_t>(b)];
        return nb.head == a && a != b && testLabel(it.label, nb.deprel);
    }
    case ItemKind::OutEdge:
        return std::any_of(na.children.begin(), na.children.end(),
                           [&](int c) { return testLabel(it.label, m_g.nodes[static_cast<std::size_t>(c)].deprel); });
    case ItemKind::InEdge: return na.head >= 0 && testLabel(it.label, na.deprel);
    case ItemKind::ImmediatePrecedes: return b == a + 1;
    case ItemKind::Precedes: return a < b;
    case ItemKind::Dominates: {
        int up = m_g.nodes[static_cast<std::size_t>(b)].head;
        for (std::size_t guard = 0; up >= 0 && guard < m_g.nodes.size(); ++guard, up = m_g.nodes[static_cast<std::size_t>(up)].head)
            if (up == a)
                return true;
        return false;
    }
    case ItemKind::CompareFeatures: {
        const auto va = feature(na, it.featureA, a == 0);
        const auto vb = feature(m_g.nodes[static_cast<std::size_t>(b)], it.featureB, b == 0);
        return va && vb && ((*va == *vb) == it.equal);
    }
    case ItemKind::CompareValue: {
        const auto va = feature(na, it.featureA, a == 0);
        return va && testValues(it.value, *va) == it.equal;
    }
    }
    return false;
}

} // namespace

void planClause(Impl::Clause &clause, std::vector<bool> bound)
{
    clause.order.clear();
    clause.via.clear();
    clause.checksAt.clear();
    clause.checksFirst.clear();
    std::vector<bool> checked(clause.items.size(), false);
    auto ready = [&](const Item &it) {
        const auto ns = nodesOf(it);
        return std::all_of(ns.begin(), ns.end(), [&](int n) { return bound[static_cast<std::size_t>(n)]; });
    };
    auto collect = [&](std::vector<int> &into) {
        for (std::size_t i = 0; i < clause.items.size(); ++i)
            if (!checked[i] && ready(clause.items[i]))
                checked[i] = true, into.push_back(static_cast<int>(i));
    };
    collect(clause.checksFirst);
    std::vector<int> todo = clause.newNodes;
    while (!todo.empty()) {
        // Prefer a node reached from a bound one by an edge or `<` (few candidates); among
        // the others, the one with the most feature tests.
        int best = -1, bestVia = -1, bestScore = -1;
        for (std::size_t k = 0; k < todo.size(); ++k) {
            const int v = todo[k];
            int score = 0, via = -1;
            for (std::size_t i = 0; i < clause.items.size(); ++i) {
                const Item &it = clause.items[i];
                if (it.kind == ItemKind::Filter && it.a == v)
                    score += static_cast<int>(it.features.size());
                const bool linking = it.kind == ItemKind::Edge || it.kind == ItemKind::ImmediatePrecedes;
                if (linking && it.a != it.b && ((it.a == v && bound[static_cast<std::size_t>(it.b)]) || (it.b == v && bound[static_cast<std::size_t>(it.a)]))) {
                    // A head (one candidate) before children; `<` gives one as well.
                    const int viaScore = (it.kind == ItemKind::Edge && it.b == v) ? 1000 : 2000;
                    if (via < 0 || viaScore > (clause.items[static_cast<std::size_t>(via)].kind == ItemKind::Edge && clause.items[static_cast<std::size_t>(via)].b == v ? 1000 : 2000))
                        via = static_cast<int>(i);
                }
            }
            if (via >= 0)
                score += (clause.items[static_cast<std::size_t>(via)].kind == ItemKind::Edge && clause.items[static_cast<std::size_t>(via)].b == v) ? 1000 : 2000;
            if (score > bestScore)
                best = static_cast<int>(k), bestVia = via, bestScore = score;
        }
        const int v = todo[static_cast<std::size_t>(best)];
        todo.erase(todo.begin() + best);
        bound[static_cast<std::size_t>(v)] = true;
        clause.order.push_back(v);
        clause.via.push_back(bestVia);
        clause.checksAt.emplace_back();
        collect(clause.checksAt.back());
    }
}

DepGraph DepGraph::fromSentence(const Sentence &s)
{
    DepGraph g;
    g.nodes.resize(s.tokens.size() + 1);
    g.nodes[0].form = "__0__";
    for (std::size_t i = 0; i < s.tokens.size(); ++i) {
        const Token &t = s.tokens[i];
        Node &n = g.nodes[i + 1];
        n.form = t.text;
        n.lemma = t.lemma;
        n.upos = t.upos;
        n.xpos = t.xpos;
        splitFeatures(t.feats, n.features);
        splitFeatures(t.misc, n.features);
        std::stable_sort(n.features.begin(), n.features.end(),
                         [](const auto &x, const auto &y) { return x.first < y.first; });
    }
    if (s.dependency && s.dependency->size() == s.tokens.size()) {
        const DependencyTree &tree = *s.dependency;
        for (std::size_t i = 0; i < tree.size(); ++i) {
            const int h = tree.heads[i];
            if (h < 0 || h > static_cast<int>(tree.size()) || h == static_cast<int>(i + 1))
                continue;
            g.nodes[i + 1].head = h;
            g.nodes[i + 1].deprel = i < tree.deprels.size() ? tree.deprels[i] : std::string();
            g.nodes[static_cast<std::size_t>(h)].children.push_back(static_cast<int>(i + 1));
        }
    }
    return g;
}

std::vector<DepMatch> DepPattern::match(const DepGraph &graph, std::size_t limit) const
{
    if (!m_impl || graph.nodes.empty())
        return {};
    Matcher m(*m_impl, graph);
    return m.run(limit);
}

} // namespace treelens
