// Statistics over pattern occurrences (core/query/querystat.h): the attention mean, its
// confidence interval and the fixed-offset baseline on analyses whose matrices are written
// by hand, and the measures that bin surprisal (distance, count, depth, a feature).
#include "core/query/querystat.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "core/formats/conllu.h"

using namespace treelens;

namespace {

/// n words, 1 layer × 2 heads: head 0 gives attention[i][j] = 10*i + j (as a marker),
/// head 1 always 0.5. A [CLS] in front: word w (1-based) is token w.
Analysis fake(int n)
{
    Analysis a;
    a.layers = 1;
    a.heads = 2;
    for (int i = 0; i < n; ++i)
        a.words.push_back("w" + std::to_string(i + 1)), a.wordToken.push_back(i + 1);
    a.tokens.push_back("[CLS]");
    for (const auto &w : a.words)
        a.tokens.push_back(w);
    Matrix m0(n + 1, n + 1), m1(n + 1, n + 1, 0.5f);
    for (int i = 0; i <= n; ++i)
        for (int j = 0; j <= n; ++j)
            m0.at(i, j) = static_cast<float>(10 * i + j);
    a.attention = {{m0, m1}};
    return a;
}

} // namespace

TEST(QueryStat, AttentionMeanCiAndTheFixedOffsetBaseline)
{
    AttentionStatAccumulator acc("V", "S");
    const Analysis a = fake(6);
    // Occurrences (from word, to word): (3,2) (5,4) (4,1): values 32, 54, 41 in head 1;
    // 0.5 in head 2.
    ASSERT_TRUE(*acc.add(a, 3, 2));
    ASSERT_TRUE(*acc.add(a, 5, 4));
    ASSERT_TRUE(*acc.add(a, 4, 1));
    EXPECT_FALSE(*acc.add(a, 0, 2)); // the anchor: skipped
    const AttentionStat s = acc.result();
    EXPECT_EQ(s.occurrences, 3u);
    EXPECT_EQ(s.skipped, 1u);
    EXPECT_EQ(s.later, 0u);
    ASSERT_EQ(s.cells.size(), 1u);
    ASSERT_EQ(s.cells[0].size(), 2u);
    EXPECT_NEAR(s.cells[0][0].mean, (32.0 + 54.0 + 41.0) / 3.0, 1e-9);
    // sample sd of {32, 54, 41}: mean 42.333, deviations -10.333 11.667 -1.333, variance
    // (106.78 + 136.11 + 1.78) / 2 = 122.333; half width 1.96 * sqrt(122.333 / 3) = 12.516.
    EXPECT_NEAR(s.cells[0][0].ci95[1] - s.cells[0][0].mean, 1.96 * std::sqrt(122.0 + 1.0 / 3.0) / std::sqrt(3.0), 1e-6);
    EXPECT_NEAR(s.cells[0][1].mean, 0.5, 1e-9);
    EXPECT_NEAR(s.cells[0][1].ci95[0], 0.5, 1e-9);
    // The best fixed offset is -1 (two of three occurrences); its values: word 3 -> 2: 32,
    // 5 -> 4: 54, 4 -> 3: 43.
    EXPECT_EQ(s.baseline.offset, -1);
    EXPECT_EQ(s.baseline.hits, 2u);
    EXPECT_EQ(s.baseline.occurrences, 3u);
    EXPECT_NEAR(s.baseline.cells[0][0].mean, (32.0 + 54.0 + 43.0) / 3.0, 1e-9);
    ASSERT_EQ(s.values.size(), 3u);
    EXPECT_FLOAT_EQ(s.values[1][0], 54.0f);
    // Another head count is an error.
    Analysis other = fake(6);
    other.attention[0].pop_back();
    EXPECT_FALSE(acc.add(other, 1, 2).ok());
}

TEST(QueryStat, MeasuresOfAnOccurrence)
{
    auto r = readConllu("1\tThe\tthe\tDET\tDT\t_\t2\tdet\t_\t_\n"
                        "2\tkeys\tkey\tNOUN\tNNS\tNumber=Plur\t7\tnsubj\t_\t_\n"
                        "3\tto\tto\tADP\tIN\t_\t5\tcase\t_\t_\n"
                        "4\tthe\tthe\tDET\tDT\t_\t5\tdet\t_\t_\n"
                        "5\tcabinets\tcabinet\tNOUN\tNNS\tNumber=Plur\t2\tnmod\t_\tLen=8\n"
                        "6\tnot\tnot\tPART\tRB\t_\t7\tadvmod\t_\t_\n"
                        "7\tare\tbe\tAUX\tVBP\tNumber=Plur\t0\troot\t_\t_\n\n",
                        "t");
    ASSERT_TRUE(r.ok()) << r.message();
    const DepGraph g = DepGraph::fromSentence(r->front());
    const std::vector<std::string> names{"V", "S", "N"};
    const DepMatch m{{7, 2, 5}};
    auto value = [&](const std::string &text) {
        auto measure = MatchMeasure::parse(text, names);
        EXPECT_TRUE(measure.ok()) << text << ": " << (measure.ok() ? "" : measure.message());
        return measure.ok() ? measure->value(g, m) : std::nullopt;
    };
    EXPECT_EQ(value("distance(S, V)"), 5.0);
    EXPECT_EQ(value("count(S,V,[upos=NOUN])"), 1.0);        // cabinets
    EXPECT_EQ(value("count(S,V,[upos=NOUN|DET])"), 2.0);    // the, cabinets
    EXPECT_EQ(value("count(V,S,[Number=Sing])"), 0.0);
    EXPECT_EQ(value("depth(N)"), 2.0);                      // are -> keys -> cabinets
    EXPECT_EQ(value("depth(V)"), 0.0);
    EXPECT_EQ(value("N.Len"), 8.0);
    EXPECT_EQ(value("S.Len"), std::nullopt);
    EXPECT_FALSE(MatchMeasure::parse("distance(S,Q)", names).ok());
    EXPECT_FALSE(MatchMeasure::parse("count(S,V)", names).ok());
    EXPECT_FALSE(MatchMeasure::parse("count(S,V,[upos=])", names).ok());
    EXPECT_FALSE(MatchMeasure::parse("length", names).ok());
}

TEST(QueryStat, SurprisalBinned)
{
    Analysis a;
    a.surprisal = {std::numeric_limits<double>::quiet_NaN(), 2.0, 4.0, 6.0};
    SurprisalStatAccumulator acc("V", "distance(S,V)");
    EXPECT_FALSE(acc.add(a, 1, 1.0, true)); // NaN: the first word
    EXPECT_TRUE(acc.add(a, 2, 1.0, true));
    EXPECT_TRUE(acc.add(a, 3, 1.0, true));
    EXPECT_TRUE(acc.add(a, 4, 3.0, true));
    EXPECT_FALSE(acc.add(a, 4, std::nullopt, true));
    const SurprisalStat s = acc.result();
    EXPECT_EQ(s.occurrences, 3u);
    EXPECT_EQ(s.skipped, 2u);
    EXPECT_NEAR(s.overall.mean, 4.0, 1e-12);
    ASSERT_EQ(s.bins.size(), 2u);
    EXPECT_NEAR(s.bins.at(1.0).mean, 3.0, 1e-12);
    EXPECT_EQ(s.bins.at(1.0).n, 2u);
    EXPECT_NEAR(s.bins.at(3.0).mean, 6.0, 1e-12);
}
