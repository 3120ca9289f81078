// runwhere: a probing run restricted to a construction (probe --where); see runwhere.h.
#include "core/probing/runwhere.h"

#include <algorithm>
#include <cstddef>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace treelens {

namespace {

/// The dependents (0-based) of the arcs of `s`'s dependency tree that `occurrences` bind:
/// both words of the arc in one occurrence, or (`dependentOnly`) its dependent.
std::set<int> matchedArcs(const Sentence &s, const std::vector<std::vector<int>> &occurrences, bool dependentOnly)
{
    std::set<int> out;
    if (!s.dependency)
        return out;
    const DependencyTree &tree = *s.dependency;
    const int n = static_cast<int>(tree.heads.size());
    for (const auto &words : occurrences) {
        const std::set<int> bound(words.begin(), words.end());
        for (int d : bound) {
            if (d < 0 || d >= n)
                continue;
            const int head = tree.heads[static_cast<std::size_t>(d)] - 1;
            if (head >= 0 && (dependentOnly || bound.count(head)))
                out.insert(d);
        }
    }
    return out;
}

/// Keeps the sentences of `v` whose flag is set (`keep` from `at` on); returns the old index
/// of each kept sentence.
std::vector<int> keepFlagged(std::vector<Sentence> &v, const std::vector<char> &keep, std::size_t &at)
{
    std::vector<Sentence> kept;
    std::vector<int> oldIndex;
    for (std::size_t i = 0; i < v.size(); ++i, ++at)
        if (keep[at]) {
            oldIndex.push_back(static_cast<int>(i));
            kept.push_back(std::move(v[i]));
        }
    v = std::move(kept);
    return oldIndex;
}

/// A seeded split's indices into the corpus after it kept the sentences `oldIndex` names.
void remapSplit(SplitIndices &split, const std::vector<int> &oldIndex)
{
    std::vector<int> newIndex(oldIndex.empty() ? 0 : static_cast<std::size_t>(oldIndex.back()) + 1, -1);
    for (std::size_t k = 0; k < oldIndex.size(); ++k)
        newIndex[static_cast<std::size_t>(oldIndex[k])] = static_cast<int>(k);
    for (auto *part : {&split.train, &split.dev, &split.test}) {
        std::vector<int> mapped;
        for (int i : *part)
            if (i >= 0 && static_cast<std::size_t>(i) < newIndex.size() && newIndex[static_cast<std::size_t>(i)] >= 0)
                mapped.push_back(newIndex[static_cast<std::size_t>(i)]);
        *part = std::move(mapped);
    }
}

} // namespace

Result<ProbeRunWhere> restrictProbeData(const ProbeRestriction &where, ProbeData &data)
{
    std::vector<const Sentence *> sentences;
    data.forEach([&](const Sentence &s) { sentences.push_back(&s); });
    if (!where.match)
        return Error{"where: no matcher for the pattern " + where.pattern, ErrorCode::Internal};
    auto matches = where.match(sentences);
    if (!matches)
        return matches.error();
    if (matches->occurrences.size() != sentences.size())
        return Error{"where: the matcher answered for " + std::to_string(matches->occurrences.size()) + " of " +
                         std::to_string(sentences.size()) + " sentences",
                     ErrorCode::Internal};
    ProbeRunWhere out;
    out.pattern = where.pattern;
    out.syntax = where.syntax;
    out.sentences = sentences.size();
    out.trees = matches->trees;
    out.parser = matches->parser;
    const bool dependentOnly = where.nodes <= 1;
    out.arcs = dependentOnly ? "into bound words" : "between bound words";
    std::vector<char> keep(sentences.size(), 0);
    std::size_t i = 0;
    data.forEach([&](Sentence &s) {
        const auto &occurrences = matches->occurrences[i];
        if (i < matches->searched.size() && !matches->searched[i])
            ++out.unsearched;
        if (!occurrences.empty()) {
            keep[i] = 1;
            ++out.sentencesMatched;
            out.occurrences += occurrences.size();
            std::string arcs;
            for (int d : matchedArcs(s, occurrences, dependentOnly))
                arcs += (arcs.empty() ? "" : ",") + std::to_string(d + 1);
            out.arcCount += arcs.empty() ? 0 : static_cast<long>(std::count(arcs.begin(), arcs.end(), ',') + 1);
            s.setMetadata(kProbeWhereArcs, arcs);
        }
        ++i;
    });
    if (out.sentencesMatched == 0)
        return Error{"where: no sentence of the run's " + std::to_string(out.sentences) + " has an occurrence of the " +
                     (where.syntax == "grew" ? "Grew request " : "Tregex pattern ") + where.pattern};
    std::size_t at = 0;
    const std::vector<int> corpusKept = keepFlagged(data.corpus, keep, at);
    if (data.oneCorpus)
        remapSplit(data.split, corpusKept);
    keepFlagged(data.train, keep, at);
    keepFlagged(data.dev, keep, at);
    keepFlagged(data.test, keep, at);
    if (data.oneCorpus)
        out.splits = {{"corpus", data.corpus.size()}, {"train", data.split.train.size()}, {"dev", data.split.dev.size()},
                      {"test", data.split.test.size()}};
    else
        out.splits = {{"train", data.train.size()}, {"dev", data.dev.size()}, {"test", data.test.size()}};
    return out;
}

} // namespace treelens
