// One F1 for a sentence: the constituency view's header (through the app's
// sentence pipeline), the corpus table and `eval-induction` score a sentence the
// same way: punctuation removed before the model reads the words, unlabelled,
// single words and the whole sentence not compared. Hand-checked brackets, and the
// shipped model scored three ways on the same PTB trees.
#include <cstdio>
#include <fstream>

#include <gtest/gtest.h>

#include "core/encoders/encoder.h"
#include "core/eval/corpusinduction.h"
#include "core/eval/inductioneval.h"
#include "core/formats/ptb.h"

using namespace treelens;

namespace {

using Spans = std::vector<std::pair<int, int>>;

ConstituencyTree treeOf(const std::string &ptb)
{
    auto s = readPtbSentences(ptb, "t");
    EXPECT_TRUE(s.ok());
    return *s->front().constituency;
}

// 13 words with a comma and a full stop; 11 without them.
const char *kTimeFlies =
    "(S (S (NP (NN Time)) (VP (VBZ flies) (PP (IN like) (NP (DT an) (NN arrow))))) (, ,) (CC but) "
    "(S (NP (NN fruit) (NNS flies)) (VP (VBP like) (NP (DT a) (NN banana)))) (. .))";

} // namespace

TEST(InductionProtocol, PunctuationIsTakenOutOfTheModelsBrackets)
{
    const ConstituencyTree tree = treeOf(kTimeFlies);
    EXPECT_EQ(inductionKeptWords(tree), (std::vector<int>{0, 1, 2, 3, 4, 6, 7, 8, 9, 10, 11}));
    // [0,6) "Time ... arrow ," keeps 5 words → [0,5); [5,7) ", but" → one word, dropped;
    // [6,13) "but ... ." → [5,11); [0,13) is the whole sentence, dropped; [3,5) stays [3,5).
    const PunctuationFreeParse p = removePunctuation(tree, {{0, 6}, {5, 7}, {6, 13}, {0, 13}, {3, 5}});
    EXPECT_FALSE(p.rerun);
    EXPECT_EQ(p.words, inductionKeptWords(tree));
    EXPECT_EQ(p.brackets, (Spans{{0, 5}, {3, 5}, {5, 11}}));
    // Scored against the gold brackets of the 11 words (hand-listed):
    // {[0,5) [1,5) [2,5) [3,5) [6,8) [6,11) [8,11) [9,11)}: 2 of 3 right, 2 of 8 found.
    const InductionScore s = scoreInducedSentence(tree, p);
    ASSERT_EQ(s.perSentence.size(), 1u);
    EXPECT_NEAR(s.perSentence[0], 100.0 * 2 * (2.0 / 3) * (2.0 / 8) / ((2.0 / 3) + (2.0 / 8)), 1e-9);
}

TEST(InductionProtocol, ViewCorpusTableAndEvaluatorAgreeOnTheShippedModel)
{
    const std::string model = findShippedModel("tree-transformer-en-small.safetensors");
    if (model.empty())
        GTEST_SKIP() << "SKIPPED: the shipped model tree-transformer-en-small.safetensors was not found";
    const std::string ptb = std::string(kTimeFlies) + "\n" +
                            "(S (NP (DT The) (NN cat)) (, ,) (ADVP (RB however)) (, ,) (VP (VBD sat) (PP (IN on) (NP (DT the) "
                            "(NN mat)))) (. .))\n"
                            "(S (NP (PRP We)) (VP (VBD left) (ADVP (RB early))) (. !))\n"
                            "(S (NP (DT The) (JJ old) (NN man)) (VP (VBD saw) (NP (DT a) (JJ red) (NN kite))))\n";
    const std::string path = ::testing::TempDir() + "/induction-protocol.mrg";
    {
        std::ofstream f(path);
        f << ptb;
    }
    DeviceConfig dc;
    dc.device = "cpu";
    dc.threads = 1;
    auto enc = loadEncoder(model, dc);
    ASSERT_TRUE(enc.ok()) << enc.message();
    Encoder &encoder = **enc;

    // eval-induction with the model's own settings.
    auto direct = evaluateInduction(encoder, {path}, encoder.info().induction);
    ASSERT_TRUE(direct.ok()) << direct.message();
    ASSERT_EQ(direct->all.model.perSentence.size(), 4u);

    auto sentences = readPtbSentences(ptb, "t");
    ASSERT_TRUE(sentences.ok());
    // The corpus table.
    auto table = scoreCorpusInduction(encoder, *sentences);
    ASSERT_TRUE(table.ok()) << table.message();
    ASSERT_EQ(table->rows.size(), 4u);
    for (std::size_t i = 0; i < 4; ++i) {
        SCOPED_TRACE(i);
        const Sentence &s = (*sentences)[i];
        EXPECT_NEAR(table->rows[i].f1, direct->all.model.perSentence[i], 1e-9);
        // The view's header: the whole sentence analysed (as the app does), then the
        // punctuation-free run the pipeline adds, scored by the view's scorer.
        auto whole = encoder.analyze({EncoderInput{s.words(), std::nullopt, std::nullopt, {}, {}, {}}}, AnalyzeOptions{});
        ASSERT_TRUE(whole.ok()) << whole.message();
        auto parse = induceWithoutPunctuation(encoder, *s.constituency, whole->front());
        ASSERT_TRUE(parse.ok()) << parse.message();
        EXPECT_TRUE(parse->rerun);
        EXPECT_NEAR(scoreInducedSentence(*s.constituency, *parse).perSentence.front(), direct->all.model.perSentence[i], 1e-9);
    }
    std::remove(path.c_str());
}
