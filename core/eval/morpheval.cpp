// morpheval: CoNLL 2018 UFeats and Lemmas (see morpheval.h).
#include "core/eval/morpheval.h"

#include <algorithm>
#include <cstddef>
#include <set>
#include <string>
#include <vector>

namespace treelens {

namespace {

const std::set<std::string> &universalFeatureNames()
{
    static const std::set<std::string> names = {"PronType", "NumType", "Poss",     "Reflex", "Foreign", "Abbr",   "Gender",
                                                "Animacy",  "Number",  "Case",     "Definite", "Degree", "VerbForm", "Mood",
                                                "Tense",    "Aspect",  "Voice",    "Evident", "Polarity", "Person", "Polite"};
    return names;
}

} // namespace

std::string universalFeatures(const std::string &feats)
{
    std::vector<std::string> kept;
    std::size_t pos = 0;
    while (pos <= feats.size()) {
        const std::size_t end = std::min(feats.find('|', pos), feats.size());
        const std::string feat = feats.substr(pos, end - pos);
        if (universalFeatureNames().count(feat.substr(0, feat.find('='))) && feat.find('=') != std::string::npos)
            kept.push_back(feat);
        pos = end + 1;
    }
    std::sort(kept.begin(), kept.end());
    std::string out;
    for (const auto &f : kept)
        out += (out.empty() ? "" : "|") + f;
    return out;
}

bool ufeatsMatch(const std::string &gold, const std::string &predicted)
{
    return universalFeatures(gold) == universalFeatures(predicted);
}

bool lemmaMatches(const std::string &gold, const std::string &predicted)
{
    return gold == "_" || gold == predicted;
}

MorphCounts scoreMorphology(const std::vector<Sentence> &gold, const std::vector<Sentence> &predicted)
{
    MorphCounts c;
    for (std::size_t i = 0; i < gold.size() && i < predicted.size(); ++i) {
        const auto &g = gold[i].tokens, &p = predicted[i].tokens;
        if (g.size() != p.size())
            continue;
        for (std::size_t t = 0; t < g.size(); ++t) {
            ++c.words;
            c.upos += g[t].upos == p[t].upos;
            c.ufeats += ufeatsMatch(g[t].feats, p[t].feats);
            c.lemmas += lemmaMatches(g[t].lemma, p[t].lemma);
        }
    }
    return c;
}

} // namespace treelens
