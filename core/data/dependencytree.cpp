#include "core/data/dependencytree.h"

#include <algorithm>
#include <queue>

namespace treelens {

Status DependencyTree::validate() const
{
    const int n = static_cast<int>(heads.size());
    if (deprels.size() != heads.size())
        return Error{"dependency tree has " + std::to_string(n) + " heads but " + std::to_string(deprels.size()) + " relations"};
    if (n == 0)
        return Error{"empty dependency tree"};
    int roots = 0;
    for (int i = 0; i < n; ++i) {
        const int h = heads[static_cast<std::size_t>(i)];
        if (h < 0 || h > n)
            return Error{"token " + std::to_string(i + 1) + ": head " + std::to_string(h) + " out of range 0.." + std::to_string(n)};
        if (h == i + 1)
            return Error{"token " + std::to_string(i + 1) + " is its own head"};
        if (h == 0)
            ++roots;
    }
    if (roots != 1)
        return Error{roots == 0 ? std::string("no token has head 0 (no root)") : "more than one root (" + std::to_string(roots) + " tokens have head 0)"};
    // Cycle check: walk up from each token with a visited stamp.
    std::vector<int> stamp(static_cast<std::size_t>(n), 0);
    for (int i = 0; i < n; ++i) {
        int cur = i;
        int steps = 0;
        while (cur >= 0) {
            const auto c = static_cast<std::size_t>(cur);
            if (stamp[c] == i + 1)
                return Error{"cycle through token " + std::to_string(cur + 1)};
            if (stamp[c] != 0)
                break; // joins an already checked path
            stamp[c] = i + 1;
            cur = heads[c] - 1;
            if (++steps > n)
                return Error{"cycle through token " + std::to_string(i + 1)};
        }
    }
    return {};
}

bool DependencyTree::isProjective() const
{
    // Arcs as (lo, hi) over positions 0..n where 0 is the artificial root.
    const int n = static_cast<int>(heads.size());
    std::vector<std::pair<int, int>> arcs;
    arcs.reserve(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) {
        const int h = heads[static_cast<std::size_t>(i)];
        arcs.emplace_back(std::min(h, i + 1), std::max(h, i + 1));
    }
    for (std::size_t a = 0; a < arcs.size(); ++a)
        for (std::size_t b = a + 1; b < arcs.size(); ++b) {
            const auto [l1, r1] = arcs[a];
            const auto [l2, r2] = arcs[b];
            if ((l1 < l2 && l2 < r1 && r1 < r2) || (l2 < l1 && l1 < r2 && r2 < r1))
                return false;
        }
    return true;
}

std::vector<int> DependencyTree::children(int i) const
{
    std::vector<int> out;
    for (std::size_t k = 0; k < heads.size(); ++k)
        if (heads[k] - 1 == i)
            out.push_back(static_cast<int>(k));
    return out;
}

int DependencyTree::depthOf(int i) const
{
    int d = 0;
    const int n = static_cast<int>(heads.size());
    int cur = i;
    while (cur >= 0 && cur < n && heads[static_cast<std::size_t>(cur)] > 0 && d <= n) {
        cur = heads[static_cast<std::size_t>(cur)] - 1;
        ++d;
    }
    return d;
}

int DependencyTree::depth() const
{
    int best = 0;
    for (int i = 0; i < static_cast<int>(heads.size()); ++i)
        best = std::max(best, depthOf(i));
    return best;
}

std::vector<int> DependencyTree::distanceMatrix() const
{
    const int n = static_cast<int>(heads.size());
    std::vector<std::vector<int>> adj(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) {
        const int h = heads[static_cast<std::size_t>(i)] - 1;
        if (h >= 0 && h < n) {
            adj[static_cast<std::size_t>(i)].push_back(h);
            adj[static_cast<std::size_t>(h)].push_back(i);
        }
    }
    std::vector<int> dist(static_cast<std::size_t>(n) * static_cast<std::size_t>(n), -1);
    for (int s = 0; s < n; ++s) {
        int *row = dist.data() + static_cast<std::size_t>(s) * static_cast<std::size_t>(n);
        std::queue<int> q;
        row[s] = 0;
        q.push(s);
        while (!q.empty()) {
            const int u = q.front();
            q.pop();
            for (int v : adj[static_cast<std::size_t>(u)])
                if (row[v] < 0) {
                    row[v] = row[u] + 1;
                    q.push(v);
                }
        }
    }
    return dist;
}

int DependencyTree::distance(int a, int b) const
{
    // Path through the lowest common ancestor.
    const int n = static_cast<int>(heads.size());
    if (a < 0 || b < 0 || a >= n || b >= n)
        return -1;
    std::vector<int> upA(static_cast<std::size_t>(n), -1);
    int cur = a, d = 0;
    while (cur >= 0 && d <= n) {
        upA[static_cast<std::size_t>(cur)] = d++;
        cur = heads[static_cast<std::size_t>(cur)] - 1;
    }
    cur = b;
    d = 0;
    while (cur >= 0 && d <= n) {
        if (upA[static_cast<std::size_t>(cur)] >= 0)
            return d + upA[static_cast<std::size_t>(cur)];
        cur = heads[static_cast<std::size_t>(cur)] - 1;
        ++d;
    }
    return -1;
}

} // namespace treelens
