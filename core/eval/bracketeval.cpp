#include "core/eval/bracketeval.h"

#include <algorithm>
#include <map>
#include <set>

namespace treelens {

namespace {

// evalb COLLINS.prm: DELETE_LABEL for these preterminals (punctuation).
bool isEvalbPunct(const std::string &tag)
{
    static const std::set<std::string> punct = {",", ":", "``", "''", "."};
    return punct.count(tag) > 0;
}

long multisetIntersection(std::vector<LabeledSpan> a, std::vector<LabeledSpan> b)
{
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    long matched = 0;
    std::size_t i = 0, j = 0;
    while (i < a.size() && j < b.size()) {
        if (a[i] == b[j]) {
            ++matched;
            ++i;
            ++j;
        } else if (a[i] < b[j]) {
            ++i;
        } else {
            ++j;
        }
    }
    return matched;
}

} // namespace

std::vector<LabeledSpan> evalSpans(const ConstituencyTree &tree, bool labeled, const BracketEvalOptions &options)
{
    std::vector<LabeledSpan> out;
    if (tree.empty())
        return out;
    const auto tags = tree.tags();
    const int n = static_cast<int>(tags.size());
    // kept[i]: number of kept words before word i.
    std::vector<int> before(static_cast<std::size_t>(n) + 1, 0);
    for (int i = 0; i < n; ++i)
        before[static_cast<std::size_t>(i) + 1] = before[static_cast<std::size_t>(i)]
            + ((options.ignorePunctuation && isEvalbPunct(tags[static_cast<std::size_t>(i)])) ? 0 : 1);
    const int top = tree.contentRoot();
    for (auto s : tree.spans(true)) {
        if (!options.countRoot && s.node == top)
            continue;
        const int a = before[static_cast<std::size_t>(s.start)];
        const int b = before[static_cast<std::size_t>(s.end)];
        if (a >= b)
            continue;
        s.start = a;
        s.end = b;
        if (labeled) {
            s.label = ConstituencyTree::baseLabel(s.label);
            if (s.label == "PRT")
                s.label = "ADVP"; // EQ_LABEL ADVP PRT
        } else {
            s.label.clear();
        }
        out.push_back(std::move(s));
    }
    return out;
}

BracketCounts compareTrees(const ConstituencyTree &gold, const ConstituencyTree &pred, bool labeled, const BracketEvalOptions &options)
{
    BracketCounts c;
    const auto g = evalSpans(gold, labeled, options);
    // The predicted tree's punctuation is decided by the gold tags (evalb does the same:
    // deletion follows the gold tree), so map by position.
    ConstituencyTree p = pred;
    if (options.ignorePunctuation && gold.wordCount() == pred.wordCount()) {
        const auto gtags = gold.tags();
        const auto nodes = p.wordNodes();
        for (std::size_t i = 0; i < nodes.size(); ++i) {
            const int parent = p.node(nodes[i]).parent;
            if (parent >= 0 && p.isPreterminal(parent))
                p.node(parent).label = gtags[i];
        }
    }
    const auto q = evalSpans(p, labeled, options);
    c.gold = static_cast<long>(g.size());
    c.predicted = static_cast<long>(q.size());
    c.matched = multisetIntersection(g, q);
    return c;
}

Result<BracketEval> evaluateBrackets(const std::vector<Sentence> &gold, const std::vector<Sentence> &pred,
                                     const BracketEvalOptions &options)
{
    if (gold.size() != pred.size())
        return Error{"gold has " + std::to_string(gold.size()) + " sentences but prediction has " + std::to_string(pred.size())};
    BracketEval e;
    double f1Sum = 0;
    for (std::size_t i = 0; i < gold.size(); ++i) {
        const auto &g = gold[i];
        const auto &p = pred[i];
        if (!g.constituency || !p.constituency)
            return Error{"sentence " + std::to_string(i + 1) + " ('" + g.id + "') lacks a constituency tree in "
                         + (!g.constituency ? "gold" : "prediction")};
        if (options.requireSameWords) {
            const auto gw = g.constituency->words(), pw = p.constituency->words();
            if (gw.size() != pw.size())
                return Error{"sentence " + std::to_string(i + 1) + " ('" + g.id + "'): gold has " + std::to_string(gw.size())
                             + " words but prediction has " + std::to_string(pw.size())};
        }
        const BracketCounts l = compareTrees(*g.constituency, *p.constituency, true, options);
        const BracketCounts u = compareTrees(*g.constituency, *p.constituency, false, options);
        e.labeled.gold += l.gold;
        e.labeled.predicted += l.predicted;
        e.labeled.matched += l.matched;
        e.unlabeled.gold += u.gold;
        e.unlabeled.predicted += u.predicted;
        e.unlabeled.matched += u.matched;
        if (l.matched == l.gold && l.matched == l.predicted)
            ++e.exactLabeled;
        e.perSentenceLabeled.push_back(l);
        e.perSentenceUnlabeled.push_back(u);
        // A sentence with no gold and no predicted brackets counts as perfect.
        f1Sum += (u.gold == 0 && u.predicted == 0) ? 100.0 : u.f1();
        ++e.sentences;
    }
    e.sentenceF1Unlabeled = e.sentences ? f1Sum / static_cast<double>(e.sentences) : 0.0;
    return e;
}

} // namespace treelens
