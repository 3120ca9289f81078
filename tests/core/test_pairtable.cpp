// The pair workbench's question and slice tables, against hand-computed values.
#include <gtest/gtest.h>

#include "core/eval/pairtable.h"
#include "core/formats/pairs.h"

using namespace treelens;

namespace {

PairCorpus corpus()
{
    // q1: 3 candidates, the 2nd correct; q2: 2 candidates, the 1st correct; q3: none correct.
    auto c = readPairsTsv("q1\twho wrote hamlet ?\tshakespeare wrote it .\t0\n"
                          "q1\twho wrote hamlet ?\thamlet is a play .\t1\n"
                          "q1\twho wrote hamlet ?\tthe sky is blue .\t0\n"
                          "q2\twhen did it rain ?\tit rained in may .\t1\n"
                          "q2\twhen did it rain ?\train is wet .\t0\n"
                          "q3\twhere is it ?\tnowhere .\t0\n",
                          "t.tsv");
    EXPECT_TRUE(c) << c.message();
    return *c;
}

} // namespace

TEST(PairTable, QuestionRowsTwoSystemsWorstFirst)
{
    const PairCorpus c = corpus();
    PairSystem a{"A", {0.9, 0.5, 0.1, 0.8, 0.2, 0.3}, {}};
    PairSystem b{"B", {0.1, 0.5, 0.2, 0.3, 0.4, 0.3}, {}};
    auto rows = questionRows(c, a, &b);
    ASSERT_TRUE(rows) << rows.message();
    ASSERT_EQ(rows->size(), 3u);
    const QuestionRow &q1 = (*rows)[0];
    EXPECT_EQ(q1.group, "q1");
    // A ranks 0, 1, 2: the correct one (1) is 2nd: AP = RR = 1/2. B ranks 1 first: AP = 1.
    EXPECT_EQ(q1.ranked, (std::vector<int>{0, 1, 2}));
    EXPECT_DOUBLE_EQ(q1.ap, 0.5);
    EXPECT_EQ(q1.firstCorrectRank, 2);
    EXPECT_DOUBLE_EQ(q1.apB, 1.0);
    EXPECT_DOUBLE_EQ(q1.deltaAp(), 0.5);
    EXPECT_TRUE(q1.topDisagrees());
    // q2: A puts 3 first (correct), B puts 4 first: AP_A = 1, AP_B = 1/2.
    EXPECT_DOUBLE_EQ((*rows)[1].ap, 1.0);
    EXPECT_DOUBLE_EQ((*rows)[1].apB, 0.5);
    EXPECT_FALSE((*rows)[2].used); // q3 has no correct candidate
    sortWorstFirst(*rows);
    EXPECT_EQ((*rows)[0].group, "q1");
    EXPECT_EQ((*rows)[1].group, "q2");
    EXPECT_EQ((*rows)[2].group, "q3");
    EXPECT_EQ(disagreements(*rows).size(), 2u);
    const std::string csv = questionRowsCsv(*rows);
    EXPECT_EQ(csv.substr(0, csv.find("\r\n")), "group,question,candidates,correct,used,ap,rr,first_correct_rank,ap_b,rr_b,delta_ap,top_disagrees");
    EXPECT_NE(csv.find("q1,who wrote hamlet ?,3,1,1,0.5,0.5,2,1,1,0.5,1\r\n"), std::string::npos) << csv;
}

TEST(PairTable, SliceRowsByQuestionWord)
{
    const PairCorpus c = corpus();
    PairSystem a{"A", {0.9, 0.5, 0.1, 0.8, 0.2, 0.3}, {}};
    auto rows = sliceRows(c, a, SliceKind::QuestionWord);
    ASSERT_TRUE(rows) << rows.message();
    bool who = false, when = false;
    for (const auto &r : *rows) {
        if (r.slice == "who") {
            who = true;
            EXPECT_EQ(r.pairs, 3u);
            EXPECT_DOUBLE_EQ(r.map, 0.5);
        }
        if (r.slice == "when") {
            when = true;
            EXPECT_DOUBLE_EQ(r.map, 1.0);
            EXPECT_DOUBLE_EQ(r.p1, 1.0);
        }
    }
    EXPECT_TRUE(who && when);
    EXPECT_NE(sliceRowsCsv(*rows, true).find("question-word,who,3,1,0.5,0.5,0\r\n"), std::string::npos);
}
