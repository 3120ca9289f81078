#include "core/parsing/headrules.h"

#include <map>
#include <set>

namespace treelens {

namespace {

struct Rule {
    bool fromLeft; ///< search direction over the children
    std::vector<std::string> priority;
};

// Collins (1999), Appendix A, Table A.1 (non-NP categories).
const std::map<std::string, Rule> &collinsTable()
{
    static const std::map<std::string, Rule> table = {
        {"ADJP", {true, {"NNS", "QP", "NN", "$", "ADVP", "JJ", "VBN", "VBG", "ADJP", "JJR", "NP", "JJS", "DT", "FW", "RBR", "RBS", "SBAR", "RB"}}},
        {"ADVP", {false, {"RB", "RBR", "RBS", "FW", "ADVP", "TO", "CD", "JJR", "JJ", "IN", "NP", "JJS", "NN"}}},
        {"CONJP", {false, {"CC", "RB", "IN"}}},
        {"FRAG", {false, {}}},
        {"INTJ", {true, {}}},
        {"LST", {false, {"LS", ":"}}},
        {"NAC", {true, {"NN", "NNS", "NNP", "NNPS", "NP", "NAC", "EX", "$", "CD", "QP", "PRP", "VBG", "JJ", "JJS", "JJR", "ADJP", "FW"}}},
        {"PP", {false, {"IN", "TO", "VBG", "VBN", "RP", "FW"}}},
        {"PRN", {true, {}}},
        {"PRT", {false, {"RP"}}},
        {"QP", {true, {"$", "IN", "NNS", "NN", "JJ", "RB", "DT", "CD", "NCD", "QP", "JJR", "JJS"}}},
        {"RRC", {false, {"VP", "NP", "ADVP", "ADJP", "PP"}}},
        {"S", {true, {"TO", "IN", "VP", "S", "SBAR", "ADJP", "UCP", "NP"}}},
        {"SBAR", {true, {"WHNP", "WHPP", "WHADVP", "WHADJP", "IN", "DT", "S", "SQ", "SINV", "SBAR", "FRAG"}}},
        {"SBARQ", {true, {"SQ", "S", "SINV", "SBARQ", "FRAG"}}},
        {"SINV", {true, {"VBZ", "VBD", "VBP", "VB", "MD", "VP", "S", "SINV", "ADJP", "NP"}}},
        {"SQ", {true, {"VBZ", "VBD", "VBP", "VB", "MD", "VP", "SQ"}}},
        {"UCP", {false, {}}},
        {"VP", {true, {"TO", "VBD", "VBN", "MD", "VBZ", "VB", "VBG", "VBP", "VP", "ADJP", "NN", "NNS", "NP"}}},
        {"WHADJP", {true, {"CC", "WRB", "JJ", "ADJP"}}},
        {"WHADVP", {false, {"CC", "WRB"}}},
        {"WHNP", {true, {"WDT", "WP", "WP$", "WHADJP", "WHPP", "WHNP"}}},
        {"WHPP", {false, {"IN", "TO", "FW"}}},
        {"X", {false, {}}},
    };
    return table;
}

bool isPunctTag(const std::string &tag)
{
    static const std::set<std::string> punct = {",", ".", ":", "``", "''", "-LRB-", "-RRB-"};
    return punct.count(tag) > 0;
}

} // namespace

Result<HeadRules> parseHeadRules(const std::string &name)
{
    if (name == "collins")
        return HeadRules::Collins;
    return Error{"unknown head rules '" + name + "' (known: collins)"};
}

int findHeadChild(const ConstituencyTree &tree, int nodeIndex, HeadRules)
{
    const auto &node = tree.node(nodeIndex);
    // Candidate children: skip trace-only constituents.
    std::vector<int> kids;       // positions into node.children
    std::vector<std::string> labels;
    for (std::size_t k = 0; k < node.children.size(); ++k) {
        const int c = node.children[k];
        const auto &cn = tree.node(c);
        if (cn.terminal) {
            if (cn.wordIndex < 0)
                continue;
        } else {
            const auto [a, b] = tree.span(c);
            if (a == b)
                continue;
        }
        kids.push_back(static_cast<int>(k));
        labels.push_back(cn.terminal ? std::string() : ConstituencyTree::baseLabel(cn.label));
    }
    if (kids.empty())
        return 0;
    const int n = static_cast<int>(kids.size());
    auto firstNonPunct = [&](bool fromLeft) {
        for (int s = 0; s < n; ++s) {
            const int k = fromLeft ? s : n - 1 - s;
            if (!isPunctTag(labels[static_cast<std::size_t>(k)]))
                return k;
        }
        return fromLeft ? 0 : n - 1;
    };
    auto searchRight = [&](const std::set<std::string> &cats) {
        for (int k = n - 1; k >= 0; --k)
            if (cats.count(labels[static_cast<std::size_t>(k)]))
                return k;
        return -1;
    };

    const std::string parent = ConstituencyTree::baseLabel(node.label);
    int h = -1;
    if (parent == "NP" || parent == "NX" || parent == "NML") {
        // Collins' special NP rules.
        const int last = firstNonPunct(false);
        if (labels[static_cast<std::size_t>(last)] == "POS")
            h = last;
        if (h < 0)
            h = searchRight({"NN", "NNP", "NNPS", "NNS", "NX", "NML", "POS", "JJR"});
        if (h < 0)
            for (int k = 0; k < n && h < 0; ++k)
                if (labels[static_cast<std::size_t>(k)] == "NP")
                    h = k;
        if (h < 0)
            h = searchRight({"$", "ADJP", "PRN"});
        if (h < 0)
            h = searchRight({"CD"});
        if (h < 0)
            h = searchRight({"JJ", "JJS", "RB", "QP"});
        if (h < 0)
            h = last;
    } else {
        const auto &table = collinsTable();
        const auto it = table.find(parent);
        const bool fromLeft = it == table.end() ? true : it->second.fromLeft;
        if (it != table.end())
            for (const auto &cat : it->second.priority) {
                for (int s = 0; s < n && h < 0; ++s) {
                    const int k = fromLeft ? s : n - 1 - s;
                    if (labels[static_cast<std::size_t>(k)] == cat)
                        h = k;
                }
                if (h >= 0)
                    break;
            }
        if (h < 0)
            h = firstNonPunct(fromLeft);
    }
    // Coordination (Collins 1999, §A): a head right after a CC moves to the conjunct before it.
    if (h >= 2 && (labels[static_cast<std::size_t>(h - 1)] == "CC" || labels[static_cast<std::size_t>(h - 1)] == "CONJP"))
        h -= 2;
    return kids[static_cast<std::size_t>(h)];
}

Result<DependencyTree> toDependencies(const ConstituencyTree &tree, HeadRules rules)
{
    if (tree.empty())
        return Error{"empty constituency tree"};
    const int words = tree.wordCount();
    if (words == 0)
        return Error{"constituency tree has no words"};
    DependencyTree dep;
    dep.heads.assign(static_cast<std::size_t>(words), -1);
    dep.deprels.assign(static_cast<std::size_t>(words), "dep");
    const auto tags = tree.tags();

    // Head word of every node, bottom-up; attaches non-head children on the way.
    std::vector<int> headWord(tree.nodes().size(), -1);
    std::vector<int> order; // post-order
    {
        std::vector<std::pair<int, bool>> stack{{tree.root(), false}};
        while (!stack.empty()) {
            auto [i, done] = stack.back();
            stack.pop_back();
            if (done) {
                order.push_back(i);
                continue;
            }
            stack.push_back({i, true});
            const auto &ch = tree.node(i).children;
            for (auto it = ch.rbegin(); it != ch.rend(); ++it)
                stack.push_back({*it, false});
        }
    }
    for (int i : order) {
        const auto &n = tree.node(i);
        if (n.terminal) {
            headWord[static_cast<std::size_t>(i)] = n.wordIndex;
            continue;
        }
        const int hk = findHeadChild(tree, i, rules);
        const int h = headWord[static_cast<std::size_t>(n.children[static_cast<std::size_t>(hk)])];
        headWord[static_cast<std::size_t>(i)] = h;
        if (h < 0)
            continue;
        for (std::size_t k = 0; k < n.children.size(); ++k) {
            if (static_cast<int>(k) == hk)
                continue;
            const int d = headWord[static_cast<std::size_t>(n.children[k])];
            if (d >= 0 && d != h)
                dep.heads[static_cast<std::size_t>(d)] = h + 1;
        }
    }
    const int rootWord = headWord[static_cast<std::size_t>(tree.root())];
    if (rootWord < 0)
        return Error{"could not find a head word for the tree"};
    dep.heads[static_cast<std::size_t>(rootWord)] = 0;
    for (int w = 0; w < words; ++w) {
        if (dep.heads[static_cast<std::size_t>(w)] < 0)
            return Error{"word " + std::to_string(w + 1) + " received no head"};
        if (w == rootWord)
            dep.deprels[static_cast<std::size_t>(w)] = "root";
        else if (isPunctTag(tags[static_cast<std::size_t>(w)]))
            dep.deprels[static_cast<std::size_t>(w)] = "punct";
    }
    const Status st = dep.validate();
    if (!st.ok())
        return st.error();
    return dep;
}

} // namespace treelens
