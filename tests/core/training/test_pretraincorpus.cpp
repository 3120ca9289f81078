// Masked-LM pre-training text: which sources give which sentences, and
// strip_punctuation leaving out exactly what unsupervised-parsing evaluation
// removes (hand-written files, hand-listed sentences).
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "core/training/pretraincorpus.h"

using namespace treelens;

namespace {

using Sentences = std::vector<std::vector<std::string>>;

std::string writeFile(const std::filesystem::path &path, const std::string &text)
{
    std::filesystem::create_directories(path.parent_path());
    std::ofstream(path) << text;
    return path.string();
}

} // namespace

TEST(PretrainCorpus, PunctuationTokensAreThoseOfPunctuationCharactersOnly)
{
    for (const char *t : {".", ",", "--", "(", ")", "'", "\"", "...", ";", "?!"})
        EXPECT_TRUE(isPunctuationToken(t)) << t;
    for (const char *t : {"", "a", "U.S.", "-LRB-", "3", "'s", "n't", "\xc2\xbb", "e.g.", "$", "%", "#", "&"})
        EXPECT_FALSE(isPunctuationToken(t)) << t;
}

TEST(PretrainCorpus, StripPunctuationLeavesOutWhatEvaluationRemoves)
{
    const auto dir = std::filesystem::path(::testing::TempDir()) / "pretrain-corpus";
    PretrainSources src;
    src.udTrain = writeFile(dir / "ud.conllu",
                            "1\tHi\thi\tINTJ\tUH\t_\t0\troot\t_\t_\n"
                            "2\t,\t,\tPUNCT\t,\t_\t1\tpunct\t_\t_\n"
                            "3\tyou\tyou\tPRON\tPRP\t_\t1\tvocative\t_\t_\n"
                            "4\t!\t!\tPUNCT\t.\t_\t1\tpunct\t_\t_\n\n");
    writeFile(dir / "ptb" / "wsj_0001.mrg",
              "( (S (NP-SBJ (NNP Pierre) (NNP Vinken) (, ,)) (VP (MD will) (VP (VB join) (NP (DT the) (NN board)))) "
              "(`` ``) (NP (-NONE- *T*-1)) (: --) (NP (CD 29) (NNS years)) (. .)) )\n");
    src.ptbDir = (dir / "ptb").string();
    src.ptbFirst = 1;
    src.ptbLast = 1;
    auto kept = loadPretrainCorpus(src);
    ASSERT_TRUE(kept.ok()) << kept.message();
    EXPECT_EQ(kept->sentences, (Sentences{{"Hi", ",", "you", "!"},
                                          {"Pierre", "Vinken", ",", "will", "join", "the", "board", "``", "--", "29", "years", "."}}));
    src.stripPunctuation = true;
    auto stripped = loadPretrainCorpus(src);
    ASSERT_TRUE(stripped.ok()) << stripped.message();
    EXPECT_EQ(stripped->sentences,
              (Sentences{{"Hi", "you"}, {"Pierre", "Vinken", "will", "join", "the", "board", "29", "years"}}));
    EXPECT_EQ(stripped->sentencesBySource.at("ud"), 1u);
    EXPECT_EQ(stripped->sentencesBySource.at("ptb"), 1u);
}
