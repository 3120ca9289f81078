#pragma once
// Checks shared by the sentence-pair fuzz targets (fuzz_wikiqa, fuzz_pairtsv,
// fuzz_rte, fuzz_pairjson): whatever a reader accepts must be a consistent corpus,
// must write to JSON that reads back to the same pairs and writes identically, and
// must write to TSV that reads back (ranking corpora) with the same groups and labels.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "core/formats/pairs.h"

namespace pairfuzz {

inline void fail(const char *what, const std::string &detail = {})
{
    std::fprintf(stderr, "pairfuzz: %s\n%s\n", what, detail.c_str());
    std::abort();
}

inline bool sameSentence(const treelens::Sentence &a, const treelens::Sentence &b)
{
    return a.id == b.id && a.text == b.text && a.tokens == b.tokens && a.dependency == b.dependency &&
           a.constituency == b.constituency && a.metadata == b.metadata;
}

inline void expectSame(const treelens::PairCorpus &a, const treelens::PairCorpus &b, const std::string &written)
{
    if (a.task != b.task || a.labels != b.labels || a.pairs.size() != b.pairs.size())
        fail("corpus changed in the JSON round trip", written);
    for (std::size_t i = 0; i < a.pairs.size(); ++i) {
        const auto &p = a.pairs[i], &q = b.pairs[i];
        if (p.group != q.group || p.label != q.label || !sameSentence(p.first, q.first) || !sameSentence(p.second, q.second))
            fail("pair changed in the JSON round trip", written);
    }
}

/// The checks above, for a corpus some reader accepted.
inline void check(const treelens::PairCorpus &c)
{
    for (const auto &p : c.pairs) {
        if (std::find(c.labels.begin(), c.labels.end(), p.label) == c.labels.end())
            fail("a pair's label is not in the label set", p.label);
        if (p.first.tokens.empty() || p.second.tokens.empty())
            fail("a sentence without tokens");
        for (const auto *s : {&p.first, &p.second})
            for (const auto &t : s->tokens)
                if (t.charStart >= 0 && (t.charEnd > static_cast<int>(s->text.size()) || t.charStart >= t.charEnd ||
                                         s->text.compare(static_cast<std::size_t>(t.charStart),
                                                         static_cast<std::size_t>(t.charEnd - t.charStart), t.text) != 0))
                    fail("token offsets do not index the text", s->text);
    }
    const std::string json = treelens::writePairsJson(c);
    auto back = treelens::readPairsJson(json, "back.json");
    if (!back)
        fail("written JSON does not read back", back.message() + "\n" + json);
    expectSame(c, *back, json);
    if (treelens::writePairsJson(*back) != json)
        fail("JSON written twice differs", json);
    if (c.task != treelens::kRankingTask)
        return;
    const std::string tsv = treelens::writePairsTsv(c);
    auto tsvBack = treelens::readPairsTsv(tsv, "back.tsv");
    if (!tsvBack)
        return; // a question of only characters the tokenizer drops (U+200B) has no words in TSV
    if (tsvBack->pairs.size() != c.pairs.size())
        fail("TSV round trip changed the pair count", tsv);
    for (std::size_t i = 0; i < c.pairs.size(); ++i)
        if (tsvBack->pairs[i].label != c.pairs[i].label)
            fail("TSV round trip changed a label", tsv);
}

} // namespace pairfuzz
