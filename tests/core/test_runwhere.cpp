// A probing run restricted to a construction (core/probing/runwhere.h, `probe --where`): the
// sentences kept in every split (a seeded split keeps its membership), the matched arcs marked,
// the counts; the matcher is a stand-in (core knows no pattern language). Counts follow from
// the tiny corpus's definition (tests/core/probingtestdata.h).
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/probing/runwhere.h"
#include "probingtestdata.h"

using namespace treelens;

namespace {

/// A matcher that finds one occurrence, binding `words`, in the sentences `keep` accepts.
template <class Keep>
ProbeRestriction restriction(Keep keep, std::vector<int> words, std::size_t nodes)
{
    ProbeRestriction r;
    r.pattern = "pattern { A -> B }";
    r.syntax = "grew";
    r.nodes = nodes;
    r.match = [keep, words](const std::vector<const Sentence *> &sentences) -> Result<ProbeWhereMatches> {
        ProbeWhereMatches m;
        for (const Sentence *s : sentences) {
            m.occurrences.push_back(keep(*s) ? std::vector<std::vector<int>>{words} : std::vector<std::vector<int>>{});
            m.searched.push_back(true);
        }
        m.trees = "gold";
        return m;
    };
    return r;
}

bool even(const Sentence &s) { return s.tokens.size() % 2 == 0; }

} // namespace

TEST(RunWhere, ASeededSplitKeepsItsMembership)
{
    ProbeData data = test::tinyOneCorpus();
    std::map<std::string, std::string> splitOf; // sentence id -> split, before
    for (const auto &[name, part] : {std::pair<const char *, const std::vector<int> *>{"train", &data.split.train},
                                     {"dev", &data.split.dev}, {"test", &data.split.test}})
        for (int i : *part)
            splitOf[data.corpus[static_cast<std::size_t>(i)].id] = name;
    // Lengths 3..8 by i % 6: 4, 6 and 8 words are even, half of the 30 sentences.
    auto where = restrictProbeData(restriction(even, {0, 1}, 2), data);
    ASSERT_TRUE(where.ok()) << where.message();
    EXPECT_EQ(where->sentences, 30u);
    EXPECT_EQ(where->sentencesMatched, 15u);
    EXPECT_EQ(where->occurrences, 15u);
    ASSERT_EQ(data.corpus.size(), 15u);
    EXPECT_EQ(data.split.train.size() + data.split.dev.size() + data.split.test.size(), 15u);
    for (const auto &[name, part] : {std::pair<const char *, const std::vector<int> *>{"train", &data.split.train},
                                     {"dev", &data.split.dev}, {"test", &data.split.test}})
        for (int i : *part) {
            const Sentence &s = data.corpus[static_cast<std::size_t>(i)];
            EXPECT_TRUE(even(s)) << s.id;
            EXPECT_EQ(splitOf[s.id], name) << s.id;
        }
    EXPECT_EQ(where->splits.at("corpus"), 15u);
    EXPECT_EQ(where->splits.at("test"), data.split.test.size());
    // Word 2 depends on word 1 in every tiny sentence (chain or flat): the one arc both bind.
    EXPECT_EQ(where->arcs, "between bound words");
    EXPECT_EQ(where->arcCount, 15);
    for (const Sentence &s : data.corpus)
        EXPECT_EQ(s.metadataValue(kProbeWhereArcs), "2") << s.id;
}

TEST(RunWhere, OneNodeScoresTheArcIntoItsWordAndGivenSplitsAreFilteredApart)
{
    ProbeRunConfig config;
    config.train = {test::tinyPath()};
    config.test = {test::tinyPath()};
    auto data = readProbeData(config, 0);
    ASSERT_TRUE(data.ok()) << data.message();
    // The first word is the root (no arc into it); the third word's head is word 2 (chain) or word 1.
    auto root = restrictProbeData(restriction(even, {0}, 1), *data);
    ASSERT_TRUE(root.ok()) << root.message();
    EXPECT_EQ(root->arcs, "into bound words");
    EXPECT_EQ(root->arcCount, 0);
    EXPECT_EQ(data->train.size(), 15u);
    EXPECT_EQ(data->test.size(), 15u);
    EXPECT_EQ(root->splits.at("train"), 15u);
    auto third = readProbeData(config, 0);
    ASSERT_TRUE(third.ok());
    auto w = restrictProbeData(restriction(even, {2}, 1), *third);
    ASSERT_TRUE(w.ok()) << w.message();
    EXPECT_EQ(w->arcCount, 30);
    EXPECT_EQ(third->train.front().metadataValue(kProbeWhereArcs), "3");
}

TEST(RunWhere, NoSentenceWithAnOccurrenceIsAnError)
{
    ProbeData data = test::tinyOneCorpus();
    auto where = restrictProbeData(restriction([](const Sentence &) { return false; }, {0}, 1), data);
    ASSERT_FALSE(where.ok());
    EXPECT_EQ(where.message(), "where: no sentence of the run's 30 has an occurrence of the Grew request pattern { A -> B }");
    EXPECT_EQ(data.corpus.size(), 30u) << "left as it was";
}
