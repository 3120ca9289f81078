// Reading a corpus as the app shows it, and finding a sentence in it again.
#include <cstdio>
#include <fstream>

#include <gtest/gtest.h>

#include "ui/session/corpusmodel.h"
#include "testutil.h"

using namespace treelens;

TEST(CorpusModel, ReadsACorpusAsTheViewsShowIt)
{
    const auto conllu = readCorpusAsShown(QString::fromStdString(test::testData("ui/three.conllu")));
    ASSERT_TRUE(conllu) << conllu.message();
    ASSERT_EQ((*conllu)->size(), 3u);
    EXPECT_EQ((*conllu)->at(1).id, "ui-2");
    EXPECT_TRUE((*conllu)->at(1).dependency);

    // PTB: traces and function tags are not shown.
    const std::string ptb = ::testing::TempDir() + "/treelens-corpusmodel.mrg";
    std::ofstream(ptb) << "( (S (NP-SBJ (-NONE- *)) (VP (VB Go) (ADVP-DIR (RB home))) (. .)) )\n";
    const auto trees = readCorpusAsShown(QString::fromStdString(ptb));
    ASSERT_TRUE(trees) << trees.message();
    ASSERT_EQ((*trees)->size(), 1u);
    EXPECT_EQ((*trees)->at(0).words(), (std::vector<std::string>{"Go", "home", "."}));
    std::remove(ptb.c_str());

    const auto missing = readCorpusAsShown(QStringLiteral("/nonexistent/corpus.conllu"));
    ASSERT_FALSE(missing);
    EXPECT_NE(missing.message().find("/nonexistent/corpus.conllu"), std::string::npos) << missing.message();
}

TEST(CorpusModel, FindsASentenceByIdAndWords)
{
    CorpusModel model;
    EXPECT_EQ(model.findSentence("ui-2"), -1); // no corpus
    auto corpus = readCorpusAsShown(QString::fromStdString(test::testData("ui/three.conllu")));
    ASSERT_TRUE(corpus);
    model.setCorpus(*corpus, QStringLiteral("three.conllu"));
    EXPECT_EQ(model.findSentence("ui-2"), 1);
    EXPECT_EQ(model.findSentence("ui-9"), -1);
    const Sentence same = (*corpus)->at(2);
    EXPECT_EQ(model.findSentence("ui-3", &same), 2);
    Sentence other = same;
    other.tokens.pop_back();
    EXPECT_EQ(model.findSentence("ui-3", &other), -1); // the same id, other words: another sentence
}
