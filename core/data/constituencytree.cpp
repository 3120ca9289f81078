#include "core/data/constituencytree.h"

#include <algorithm>
#include <functional>

namespace treelens {

int ConstituencyTree::addNode(std::string label, int parent, bool terminal)
{
    ConstituencyNode n;
    n.label = std::move(label);
    n.parent = parent;
    n.terminal = terminal;
    const int idx = static_cast<int>(m_nodes.size());
    m_nodes.push_back(std::move(n));
    if (parent < 0)
        m_root = idx;
    else
        m_nodes[static_cast<std::size_t>(parent)].children.push_back(idx);
    return idx;
}

bool ConstituencyTree::isPreterminal(int i) const
{
    const auto &n = node(i);
    return !n.terminal && n.children.size() == 1 && node(n.children[0]).terminal;
}

bool ConstituencyTree::isTrace(int terminalNode) const
{
    const auto &n = node(terminalNode);
    return n.terminal && n.parent >= 0 && node(n.parent).label == "-NONE-";
}

void ConstituencyTree::renumberWords()
{
    int next = 0;
    std::function<void(int)> visit = [&](int i) {
        auto &n = node(i);
        if (n.terminal) {
            n.wordIndex = isTrace(i) ? -1 : next++;
            return;
        }
        for (int c : n.children)
            visit(c);
    };
    if (m_root >= 0)
        visit(m_root);
}

int ConstituencyTree::contentRoot() const
{
    int r = m_root;
    while (r >= 0) {
        const auto &n = node(r);
        const bool wrapper = n.label.empty() || n.label == "ROOT" || n.label == "TOP";
        if (wrapper && n.children.size() == 1 && !node(n.children[0]).terminal && !isPreterminal(n.children[0]))
            r = n.children[0];
        else
            break;
    }
    return r;
}

std::vector<int> ConstituencyTree::wordNodes() const
{
    std::vector<int> out;
    std::function<void(int)> visit = [&](int i) {
        const auto &n = node(i);
        if (n.terminal) {
            if (!isTrace(i))
                out.push_back(i);
            return;
        }
        for (int c : n.children)
            visit(c);
    };
    if (m_root >= 0)
        visit(m_root);
    return out;
}

std::vector<std::string> ConstituencyTree::words() const
{
    std::vector<std::string> out;
    for (int i : wordNodes())
        out.push_back(node(i).label);
    return out;
}

std::vector<std::string> ConstituencyTree::tags() const
{
    std::vector<std::string> out;
    for (int i : wordNodes()) {
        const int p = node(i).parent;
        out.push_back(p >= 0 ? node(p).label : std::string());
    }
    return out;
}

int ConstituencyTree::wordCount() const { return static_cast<int>(wordNodes().size()); }

std::pair<int, int> ConstituencyTree::span(int nodeIndex) const
{
    int lo = -1, hi = -1;
    std::function<void(int)> visit = [&](int i) {
        const auto &n = node(i);
        if (n.terminal) {
            if (n.wordIndex >= 0) {
                if (lo < 0 || n.wordIndex < lo) lo = n.wordIndex;
                hi = std::max(hi, n.wordIndex + 1);
            }
            return;
        }
        for (int c : n.children)
            visit(c);
    };
    visit(nodeIndex);
    if (lo < 0)
        return {0, 0};
    return {lo, hi};
}

std::vector<LabeledSpan> ConstituencyTree::spans(bool includeRoot) const
{
    std::vector<LabeledSpan> out;
    const int top = contentRoot();
    if (top < 0)
        return out;
    // One pass computing spans bottom-up.
    std::function<std::pair<int, int>(int)> visit = [&](int i) -> std::pair<int, int> {
        const auto &n = node(i);
        if (n.terminal)
            return n.wordIndex >= 0 ? std::make_pair(n.wordIndex, n.wordIndex + 1) : std::make_pair(-1, -1);
        const std::size_t slot = out.size();
        const bool phrasal = !isPreterminal(i);
        if (phrasal)
            out.push_back({n.label, 0, 0, i});
        int lo = -1, hi = -1;
        for (int c : n.children) {
            const auto [a, b] = visit(c);
            if (a < 0)
                continue;
            if (lo < 0 || a < lo) lo = a;
            hi = std::max(hi, b);
        }
        if (phrasal) {
            out[slot].start = lo;
            out[slot].end = hi;
        }
        return {lo, hi};
    };
    visit(top);
    std::vector<LabeledSpan> kept;
    kept.reserve(out.size());
    for (auto &s : out) {
        if (s.start < 0)
            continue; // covers only traces
        if (!includeRoot && s.node == top)
            continue;
        kept.push_back(std::move(s));
    }
    return kept;
}

int ConstituencyTree::depth() const
{
    const int top = contentRoot();
    if (top < 0)
        return 0;
    int best = 0;
    std::function<void(int, int)> visit = [&](int i, int d) {
        const auto &n = node(i);
        if (n.terminal) {
            if (n.wordIndex >= 0)
                best = std::max(best, d);
            return;
        }
        for (int c : n.children)
            visit(c, d + 1);
    };
    visit(top, 0);
    return best;
}

std::vector<std::string> ConstituencyTree::topConstituents() const
{
    std::vector<std::string> out;
    const int top = contentRoot();
    if (top < 0)
        return out;
    for (int c : node(top).children) {
        if (node(c).terminal)
            continue;
        const auto [a, b] = span(c);
        if (a == b)
            continue; // trace-only constituent
        out.push_back(baseLabel(node(c).label));
    }
    return out;
}

std::string ConstituencyTree::baseLabel(const std::string &label)
{
    if (label.empty() || label[0] == '-')
        return label; // -NONE-, -LRB-, -RRB-
    std::size_t cut = label.size();
    for (std::size_t i = 1; i < label.size(); ++i)
        if (label[i] == '-' || label[i] == '=') {
            cut = i;
            break;
        }
    return label.substr(0, cut);
}

int ConstituencyTree::stripTraces()
{
    if (m_root < 0)
        return 0;
    std::vector<char> removed(m_nodes.size(), 0);
    int count = 0;
    // Post-order: a node is removed if it is -NONE- or all its children are removed.
    std::function<bool(int)> visit = [&](int i) -> bool {
        auto &n = node(i);
        if (n.terminal)
            return false;
        if (n.label == "-NONE-") {
            removed[static_cast<std::size_t>(i)] = 1;
            for (int c : n.children) {
                removed[static_cast<std::size_t>(c)] = 1;
                ++count;
            }
            ++count;
            return true;
        }
        bool allGone = true;
        for (int c : n.children)
            allGone = !visit(c) ? false : allGone;
        if (allGone && i != m_root) {
            removed[static_cast<std::size_t>(i)] = 1;
            ++count;
            return true;
        }
        return false;
    };
    visit(m_root);
    for (auto &n : m_nodes) {
        n.children.erase(std::remove_if(n.children.begin(), n.children.end(),
                                        [&](int c) { return removed[static_cast<std::size_t>(c)] != 0; }),
                         n.children.end());
    }
    for (std::size_t i = 0; i < m_nodes.size(); ++i)
        if (removed[i])
            m_nodes[i].parent = -2; // marked for compact()
    compact();
    return count;
}

void ConstituencyTree::stripFunctionTags()
{
    for (auto &n : m_nodes)
        if (!n.terminal)
            n.label = baseLabel(n.label);
}

void ConstituencyTree::compact()
{
    if (m_root < 0) {
        m_nodes.clear();
        return;
    }
    std::vector<ConstituencyNode> fresh;
    fresh.reserve(m_nodes.size());
    std::function<int(int, int)> copy = [&](int i, int parent) -> int {
        const int idx = static_cast<int>(fresh.size());
        ConstituencyNode n = m_nodes[static_cast<std::size_t>(i)];
        const auto kids = n.children;
        n.parent = parent;
        n.children.clear();
        fresh.push_back(std::move(n));
        for (int c : kids) {
            const int ci = copy(c, idx);
            fresh[static_cast<std::size_t>(idx)].children.push_back(ci);
        }
        return idx;
    };
    copy(m_root, -1);
    m_nodes = std::move(fresh);
    m_root = 0;
    renumberWords();
}

Status ConstituencyTree::validate() const
{
    if (m_root < 0)
        return Error{"empty constituency tree"};
    for (std::size_t i = 0; i < m_nodes.size(); ++i) {
        const auto &n = m_nodes[i];
        if (n.terminal && !n.children.empty())
            return Error{"terminal '" + n.label + "' has children"};
        if (!n.terminal && n.children.empty())
            return Error{"constituent '" + n.label + "' has no children"};
        for (int c : n.children) {
            if (c < 0 || static_cast<std::size_t>(c) >= m_nodes.size() || m_nodes[static_cast<std::size_t>(c)].parent != static_cast<int>(i))
                return Error{"broken parent link below '" + n.label + "'"};
        }
    }
    return {};
}

bool ConstituencyTree::operator==(const ConstituencyTree &o) const
{
    if (empty() || o.empty())
        return empty() == o.empty();
    std::function<bool(int, int)> eq = [&](int a, int b) {
        const auto &x = node(a);
        const auto &y = o.node(b);
        if (x.label != y.label || x.terminal != y.terminal || x.children.size() != y.children.size())
            return false;
        for (std::size_t k = 0; k < x.children.size(); ++k)
            if (!eq(x.children[k], y.children[k]))
                return false;
        return true;
    };
    return eq(m_root, o.m_root);
}

} // namespace treelens
