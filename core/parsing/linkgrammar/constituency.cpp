// constituency: Link Grammar's constituent string -> PTB-style constituency
// tree over our tokens; see constituency.h.
#include "core/parsing/linkgrammar/constituency.h"

#include <algorithm>
#include <climits>
#include <cstddef>
#include <functional>
#include <utility>

namespace treelens::linkgrammar {
namespace {

struct LgTreeNode {
    std::string label;
    int parent = -1;
    std::vector<int> kids; ///< >= 0: node index; < 0: leaf -(k + 1)
};

/// Parses "(S (NP the man.n) (VP saw.v-d ...) .)". Link Grammar prints
/// parentheses inside words as braces, so '(' and ')' are always structure.
/// Node 0 is a synthetic top holding whatever the string has at top level.
void parseLgTree(const std::string &s, std::vector<LgTreeNode> &nodes, std::vector<std::string> &leaves,
                 std::vector<int> &leafParent)
{
    nodes.assign(1, LgTreeNode{});
    std::vector<int> stack{0};
    std::size_t i = 0;
    while (i < s.size()) {
        const char c = s[i];
        if (c == ' ' || c == '\n' || c == '\t') {
            ++i;
        } else if (c == '(') {
            std::size_t j = ++i;
            while (j < s.size() && s[j] != ' ' && s[j] != '(' && s[j] != ')')
                ++j;
            LgTreeNode n;
            n.label = s.substr(i, j - i);
            n.parent = stack.back();
            const int idx = static_cast<int>(nodes.size());
            nodes.push_back(std::move(n));
            nodes[static_cast<std::size_t>(stack.back())].kids.push_back(idx);
            stack.push_back(idx);
            i = j;
        } else if (c == ')') {
            if (stack.size() > 1)
                stack.pop_back();
            ++i;
        } else {
            std::size_t j = i;
            while (j < s.size() && s[j] != ' ' && s[j] != ')' && s[j] != '(' && s[j] != '\n')
                ++j;
            const int k = static_cast<int>(leaves.size());
            leaves.push_back(s.substr(i, j - i));
            leafParent.push_back(stack.back());
            nodes[static_cast<std::size_t>(stack.back())].kids.push_back(-(k + 1));
            i = j;
        }
    }
}

std::string normalizeForTree(std::string s)
{
    for (char &c : s) {
        if (c == '(' || c == '[')
            c = '{';
        else if (c == ')' || c == ']')
            c = '}';
    }
    return s;
}

} // namespace

ConstituencyTree flatConstituency(const std::vector<Token> &tokens, const std::vector<TokenFacts> &facts)
{
    ConstituencyTree tree;
    const int root = tree.addNode("S", -1);
    for (std::size_t t = 0; t < tokens.size(); ++t) {
        const int p = tree.addNode(facts[t].tag, root);
        tree.addNode(tokens[t].text, p, true);
    }
    tree.renumberWords();
    return tree;
}

bool convertConstituency(const std::string &lgTree, const std::vector<LgWord> &words, const Alignment &align,
                         const std::vector<Token> &tokens, const std::vector<TokenFacts> &facts, ConstituencyTree &out)
{
    std::vector<LgTreeNode> nodes;
    std::vector<std::string> leaves;
    std::vector<int> leafParent;
    parseLgTree(lgTree, nodes, leaves, leafParent);
    if (leaves.empty())
        return false;

    // Leaves are the non-wall words in order; match by text when counts differ.
    std::vector<int> expected;
    for (int w = 0; w < static_cast<int>(words.size()); ++w)
        if (!words[static_cast<std::size_t>(w)].wall)
            expected.push_back(w);
    std::vector<int> leafOfWord(words.size(), -1);
    if (expected.size() == leaves.size()) {
        for (std::size_t k = 0; k < leaves.size(); ++k)
            leafOfWord[static_cast<std::size_t>(expected[k])] = static_cast<int>(k);
    } else {
        std::size_t j = 0;
        for (std::size_t k = 0; k < leaves.size(); ++k) {
            const std::string leaf = normalizeForTree(leaves[k]);
            for (std::size_t x = j; x < expected.size() && x < j + 8; ++x) {
                if (normalizeForTree(words[static_cast<std::size_t>(expected[x])].raw) == leaf) {
                    leafOfWord[static_cast<std::size_t>(expected[x])] = static_cast<int>(k);
                    j = x + 1;
                    break;
                }
            }
        }
    }

    const int n = static_cast<int>(tokens.size());
    std::vector<int> attach(static_cast<std::size_t>(n), -1);
    for (int t = 0; t < n; ++t) {
        std::vector<int> candidates;
        if (const int rep = align.rep[static_cast<std::size_t>(t)]; rep >= 0)
            candidates.push_back(rep);
        for (int w : align.wordsOf[static_cast<std::size_t>(t)])
            candidates.push_back(w);
        for (int w : candidates)
            if (const int leaf = leafOfWord[static_cast<std::size_t>(w)]; leaf >= 0) {
                attach[static_cast<std::size_t>(t)] = leafParent[static_cast<std::size_t>(leaf)];
                break;
            }
    }
    for (int t = 0; t < n; ++t)
        if (const int p = align.mergedInto[static_cast<std::size_t>(t)]; attach[static_cast<std::size_t>(t)] < 0 && p >= 0)
            attach[static_cast<std::size_t>(t)] = attach[static_cast<std::size_t>(p)];

    const int top = (nodes[0].kids.size() == 1 && nodes[0].kids[0] >= 0) ? nodes[0].kids[0] : 0;
    std::vector<int> depth(nodes.size(), 0);
    for (std::size_t i = 1; i < nodes.size(); ++i)
        depth[i] = depth[static_cast<std::size_t>(nodes[i].parent)] + 1; // parents precede children
    const auto lca = [&](int a, int b) {
        while (a != b) {
            if (depth[static_cast<std::size_t>(a)] >= depth[static_cast<std::size_t>(b)])
                a = nodes[static_cast<std::size_t>(a)].parent;
            else
                b = nodes[static_cast<std::size_t>(b)].parent;
            if (a < 0 || b < 0)
                return 0;
        }
        return a;
    };
    const std::vector<int> placed = attach;
    for (int t = 0; t < n; ++t) {
        if (placed[static_cast<std::size_t>(t)] >= 0)
            continue;
        int prev = -1, next = -1;
        for (int x = t - 1; x >= 0; --x)
            if (placed[static_cast<std::size_t>(x)] >= 0) {
                prev = placed[static_cast<std::size_t>(x)];
                break;
            }
        for (int x = t + 1; x < n; ++x)
            if (placed[static_cast<std::size_t>(x)] >= 0) {
                next = placed[static_cast<std::size_t>(x)];
                break;
            }
        attach[static_cast<std::size_t>(t)] = (prev >= 0 && next >= 0) ? lca(prev, next) : top;
    }
    for (int &a : attach)
        if (a == 0 && top != 0)
            a = top; // node 0 is only a wrapper when the string holds one tree

    std::vector<std::vector<int>> direct(nodes.size());
    for (int t = 0; t < n; ++t)
        direct[static_cast<std::size_t>(attach[static_cast<std::size_t>(t)])].push_back(t);
    std::vector<int> first(nodes.size(), INT_MAX);
    for (int i = static_cast<int>(nodes.size()) - 1; i >= 0; --i) { // children have larger indices
        auto &f = first[static_cast<std::size_t>(i)];
        for (int t : direct[static_cast<std::size_t>(i)])
            f = std::min(f, t);
        for (int k : nodes[static_cast<std::size_t>(i)].kids)
            if (k >= 0)
                f = std::min(f, first[static_cast<std::size_t>(k)]);
    }

    ConstituencyTree tree;
    std::function<void(int, int)> build = [&](int node, int parent) {
        std::vector<std::pair<int, int>> items; // (first token, node index or -(token + 1))
        for (int k : nodes[static_cast<std::size_t>(node)].kids)
            if (k >= 0 && first[static_cast<std::size_t>(k)] != INT_MAX)
                items.emplace_back(first[static_cast<std::size_t>(k)], k);
        for (int t : direct[static_cast<std::size_t>(node)])
            items.emplace_back(t, -(t + 1));
        std::sort(items.begin(), items.end());
        std::string label = nodes[static_cast<std::size_t>(node)].label;
        if (label.empty())
            label = "S";
        if (items.size() == 1 && items[0].second >= 0 && nodes[static_cast<std::size_t>(items[0].second)].label == label) {
            build(items[0].second, parent);
            return;
        }
        const int me = tree.addNode(label, parent);
        for (const auto &[key, item] : items) {
            if (item >= 0) {
                build(item, me);
            } else {
                const int t = -item - 1;
                const int pre = tree.addNode(facts[static_cast<std::size_t>(t)].tag, me);
                tree.addNode(tokens[static_cast<std::size_t>(t)].text, pre, true);
            }
        }
    };
    build(top, -1);
    tree.renumberWords();
    std::vector<std::string> expectedWords;
    for (const auto &tok : tokens)
        expectedWords.push_back(tok.text);
    if (tree.words() != expectedWords || !tree.validate().ok())
        return false;
    out = std::move(tree);
    return true;
}

} // namespace treelens::linkgrammar
