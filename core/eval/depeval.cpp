#include "core/eval/depeval.h"

#include <set>

namespace treelens {

std::string universalRelation(const std::string &rel)
{
    const auto colon = rel.find(':');
    return colon == std::string::npos ? rel : rel.substr(0, colon);
}

bool isPunctuation(const Token &token)
{
    if (!token.upos.empty() && token.upos != "_")
        return token.upos == "PUNCT";
    static const std::set<std::string> ptb = {",", ".", ":", "``", "''", "-LRB-", "-RRB-", "HYPH", "NFP"};
    return ptb.count(token.xpos) > 0;
}

Result<DependencyEval> evaluateDependencies(const std::vector<Sentence> &gold, const std::vector<Sentence> &pred)
{
    if (gold.size() != pred.size())
        return Error{"gold has " + std::to_string(gold.size()) + " sentences but prediction has " + std::to_string(pred.size())};
    DependencyEval e;
    for (std::size_t i = 0; i < gold.size(); ++i) {
        const auto &g = gold[i];
        const auto &p = pred[i];
        const std::string name = "sentence " + std::to_string(i + 1) + " ('" + g.id + "')";
        if (!g.dependency || !p.dependency)
            return Error{name + " lacks a dependency tree in " + (!g.dependency ? "gold" : "prediction")};
        if (g.tokens.size() != p.tokens.size())
            return Error{name + ": gold has " + std::to_string(g.tokens.size()) + " tokens but prediction has " + std::to_string(p.tokens.size())};
        AttachmentScore s;
        bool exact = true;
        for (std::size_t k = 0; k < g.tokens.size(); ++k) {
            if (g.tokens[k].text != p.tokens[k].text)
                return Error{name + ", token " + std::to_string(k + 1) + ": gold '" + g.tokens[k].text + "' vs predicted '" + p.tokens[k].text + "'"};
            const bool head = g.dependency->heads[k] == p.dependency->heads[k];
            const bool label = head && universalRelation(g.dependency->deprels[k]) == universalRelation(p.dependency->deprels[k]);
            exact = exact && head;
            const auto &gt = g.tokens[k], &pt = p.tokens[k];
            if (!gt.upos.empty() && gt.upos != "_") {
                ++e.uposTokens;
                e.uposCorrect += gt.upos == pt.upos;
            }
            if (!gt.xpos.empty() && gt.xpos != "_") {
                ++e.xposTokens;
                e.xposCorrect += gt.xpos == pt.xpos;
            }
            ++s.tokens;
            s.headCorrect += head;
            s.labelCorrect += label;
            if (!isPunctuation(g.tokens[k])) {
                ++e.noPunct.tokens;
                e.noPunct.headCorrect += head;
                e.noPunct.labelCorrect += label;
            }
        }
        e.all.tokens += s.tokens;
        e.all.headCorrect += s.headCorrect;
        e.all.labelCorrect += s.labelCorrect;
        e.exactUnlabeled += exact;
        e.perSentence.push_back(s);
        ++e.sentences;
    }
    return e;
}

} // namespace treelens
