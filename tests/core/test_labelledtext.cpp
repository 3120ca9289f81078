// The TREC question-file reader against hand-written lines and the real files'
// counts (Li & Roth: 5,452 training and 500 test questions, 6 coarse classes).
#include <set>

#include <gtest/gtest.h>

#include "core/base/inputlimits.h"
#include "core/formats/labelledtext.h"
#include "testutil.h"

using namespace treelens;

TEST(LabelledText, ReadsLabelsWordsAndALatin1Line)
{
    const std::string text = "DESC:manner How did serfdom develop ?\n"
                             "\n"
                             "LOC:city Which city has a sister\xa0" "city ?\r\n"
                             "ABBR What is NASA ?\n";
    auto r = readLabelledText(text, "/data/train.txt");
    ASSERT_TRUE(r) << r.message();
    ASSERT_EQ(r->sentences.size(), 3u);
    EXPECT_EQ(r->latin1Lines, 1);
    const auto &a = r->sentences[0];
    EXPECT_EQ(a.label, "DESC:manner");
    EXPECT_EQ(a.coarseLabel, "DESC");
    EXPECT_EQ(a.sentence.id, "train-1");
    ASSERT_EQ(a.sentence.tokens.size(), 5u);
    EXPECT_EQ(a.sentence.tokens[3].text, "develop");
    EXPECT_EQ(a.sentence.text, "How did serfdom develop ?");
    const auto &b = r->sentences[1];
    EXPECT_EQ(b.sentence.id, "train-3");
    ASSERT_EQ(b.sentence.tokens.size(), 6u); // the no-break space stays inside "sister city"
    EXPECT_EQ(b.sentence.tokens[4].text, "sister\xc2\xa0" "city");
    EXPECT_EQ(b.sentence.tokens.back().text, "?");
    EXPECT_EQ(r->sentences[2].coarseLabel, "ABBR");
    EXPECT_EQ(r->sentences[2].label, "ABBR");
}

TEST(LabelledText, ALineWithoutWordsOrClassIsAnErrorNamingIt)
{
    auto noWords = readLabelledText("NUM:date When ?\nHUM:ind\n", "q.txt");
    ASSERT_FALSE(noWords);
    EXPECT_NE(noWords.message().find("q.txt:2"), std::string::npos) << noWords.message();
    auto noClass = readLabelledText(":x What ?\n", "q.txt");
    ASSERT_FALSE(noClass);
    EXPECT_NE(noClass.message().find("q.txt:1"), std::string::npos) << noClass.message();
}

TEST(LabelledText, TheTrecFilesHaveTheirPublishedSizes)
{
    TREELENS_REQUIRE_SHARED("data/trec-qc/train.txt");
    for (const auto &[file, count] : {std::make_pair("train.txt", 5452u), std::make_pair("test.txt", 500u)}) {
        const std::string path = test::sharedPath(std::string("data/trec-qc/") + file);
        auto text = readFileLimited(path, 1 << 24);
        ASSERT_TRUE(text) << text.message();
        auto r = readLabelledText(*text, path);
        ASSERT_TRUE(r) << r.message();
        EXPECT_EQ(r->sentences.size(), count) << file;
        std::set<std::string> coarse;
        for (const auto &s : r->sentences)
            coarse.insert(s.coarseLabel);
        EXPECT_EQ(coarse, (std::set<std::string>{"ABBR", "DESC", "ENTY", "HUM", "LOC", "NUM"})) << file;
    }
}
