// The app's one-sentence pipeline: what it says of where each tree came from, through
// a re-analysis (a model switch), and what it does with a sentence-pair model.
#include <gtest/gtest.h>

#include "core/encoders/common/encodercache.h"
#include "core/encoders/encoder.h"
#include "core/parsing/parser.h"
#include "ui/session/sentencepipeline.h"
#include "testutil.h"

using namespace treelens;

namespace {

std::string shipped(const std::string &name)
{
    return std::string(TREELENS_SOURCE_DIR) + "/resources/models/" + name + ".safetensors";
}

} // namespace

TEST(SentencePipeline, ATypedSentenceStaysParsedThroughAModelSwitchAndCorpusTreesStayGold)
{
    // Issue 30: after a model switch the app re-analyses the sentence it shows, which has
    // its parsed trees by then; they were then called "gold, from the corpus file".
    if (findShippedModel("parser-dep-en-ewt.safetensors").empty())
        GTEST_SKIP() << "SKIPPED: the shipped parser model was not found";
    EncoderCache encoders;
    SentencePipeline pipeline(encoders);
    RunControl control;
    auto typed = pipeline.runText("The old man saw a red kite .", ParserConfig{}, "", control);
    ASSERT_TRUE(typed.sentence) << typed.error;
    EXPECT_EQ(typed.sentence->metadataValue("dependency_source"), "parsed");
    EXPECT_EQ(typed.sentence->metadataValue("constituency_source"), "parsed");
    auto again = pipeline.run(*typed.sentence, ParserConfig{}, shipped("dependency-transformer-en-polarity"), control);
    ASSERT_TRUE(again.sentence) << again.error;
    EXPECT_EQ(again.sentence->metadataValue("dependency_source"), "parsed");
    EXPECT_EQ(again.sentence->metadataValue("constituency_source"), "parsed");
    EXPECT_TRUE(again.analysis) << again.modelError;
    // A corpus sentence with only its dependency tree: gold, and a parsed constituency tree.
    Sentence corpus = *typed.sentence;
    corpus.metadata.clear();
    corpus.constituency.reset();
    auto fromCorpus = pipeline.run(corpus, ParserConfig{}, "", control);
    ASSERT_TRUE(fromCorpus.sentence);
    EXPECT_EQ(fromCorpus.sentence->metadataValue("dependency_source"), "gold");
    EXPECT_EQ(fromCorpus.sentence->metadataValue("constituency_source"), "parsed");
    auto reanalysed = pipeline.run(*fromCorpus.sentence, ParserConfig{}, "", control);
    EXPECT_EQ(reanalysed.sentence->metadataValue("dependency_source"), "gold");
    EXPECT_EQ(reanalysed.sentence->metadataValue("constituency_source"), "parsed");
}

TEST(SentencePipeline, APairModelIsNotRunOnOneSentence)
{
    if (findShippedModel("parser-dep-en-ewt.safetensors").empty())
        GTEST_SKIP() << "SKIPPED: the shipped parser model was not found";
    EncoderCache encoders;
    SentencePipeline pipeline(encoders);
    RunControl control;
    auto out = pipeline.runText("The old man saw a red kite .", ParserConfig{}, shipped("tree-lstm-attention-en-rte"), control);
    ASSERT_TRUE(out.sentence) << out.error;
    EXPECT_FALSE(out.analysis);
    EXPECT_NE(out.modelError.find("tree-lstm-attention-en-rte is a sentence-pair model"), std::string::npos) << out.modelError;
    EXPECT_TRUE(out.sentence->dependency.has_value()); // the trees are still shown
}
