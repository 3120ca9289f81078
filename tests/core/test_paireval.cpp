// Pair metrics (core/eval/paireval.h), checked against values computed by hand
// (each computation is written next to its numbers), and on real WikiQA.
#include <cmath>
#include <cstdio>

#include <gtest/gtest.h>

#include "core/eval/paireval.h"
#include "core/formats/pairs.h"
#include "core/text/tokenizer.h"
#include "testutil.h"

using namespace treelens;

namespace {

Sentence sentence(const std::string &text)
{
    Sentence s;
    s.text = text;
    s.tokens = Tokenizer().tokenize(text);
    return s;
}

struct PairSpec {
    std::string group, label, question, candidate;
};

PairCorpus corpus(const std::string &task, const std::vector<PairSpec> &specs)
{
    PairCorpus c;
    c.task = task;
    c.labels = task == kRankingTask ? std::vector<std::string>{"0", "1"} : std::vector<std::string>{"NO", "YES"};
    c.source = "test";
    for (const auto &s : specs)
        c.pairs.push_back(SentencePair{sentence(s.question), sentence(s.candidate), s.label, s.group});
    return c;
}

// Groups A, C, D, E and F (F's two pairs are not adjacent), with scores.
//   A labels [0,1,0,1] scores [.9,.8,.7,.6]: correct at ranks 2 and 4
//       AP = (1/2 + 2/4)/2 = 0.5, RR = 1/2, P@1 = 0
//   C labels [0,0]: no correct candidate (dropped by Clean; All: 0, 0, 0)
//   D labels [1,1]: only correct ones (dropped by Clean; All: 1, 1, 1)
//   E labels [1,0,1] scores [.2,.9,.5]: ranked [.9 (0), .5 (1), .2 (1)]
//       AP = (1/2 + 2/3)/2 = 7/12, RR = 1/2, P@1 = 0
//   F labels [0,1] scores [.1,.3]: correct first: AP = RR = P@1 = 1
// Clean: groups A, E, F. MAP = (6/12 + 7/12 + 12/12)/3 = 25/36, MRR = (1/2 + 1/2 + 1)/3 = 2/3,
//        P@1 = 1/3.
// All:   MAP = (1/2 + 0 + 1 + 7/12 + 1)/5 = 37/60, MRR = (1/2 + 0 + 1 + 1/2 + 1)/5 = 3/5, P@1 = 2/5.
PairCorpus rankingCorpus(std::vector<double> &scores)
{
    const std::vector<std::tuple<std::string, std::string, double>> rows = {
        {"A", "0", .9}, {"A", "1", .8}, {"A", "0", .7}, {"A", "1", .6}, {"F", "0", .1}, {"C", "0", .5}, {"C", "0", .4},
        {"D", "1", .3}, {"D", "1", .2}, {"E", "1", .2}, {"E", "0", .9}, {"E", "1", .5}, {"F", "1", .3}};
    std::vector<PairSpec> specs;
    scores.clear();
    for (const auto &[g, l, s] : rows) {
        specs.push_back({g, l, "question " + g, "candidate"});
        scores.push_back(s);
    }
    return corpus(kRankingTask, specs);
}

} // namespace

TEST(PairEval, RankGroupByHand)
{
    const GroupRanking g = rankGroup({false, true, false, true}, {.9, .8, .7, .6});
    EXPECT_EQ(g.candidates, 4);
    EXPECT_EQ(g.correct, 2);
    EXPECT_EQ(g.firstCorrectRank, 2);
    EXPECT_DOUBLE_EQ(g.averagePrecision, 0.5); // (1/2 + 2/4) / 2
    EXPECT_DOUBLE_EQ(g.reciprocalRank, 0.5);
    EXPECT_DOUBLE_EQ(g.precisionAt1, 0.0);
    EXPECT_EQ(g.ranked, (std::vector<int>{0, 1, 2, 3}));

    // Scores reorder: [.2 correct, .9, .5 correct] ranks as [1, 2, 0].
    const GroupRanking e = rankGroup({true, false, true}, {.2, .9, .5});
    EXPECT_EQ(e.ranked, (std::vector<int>{1, 2, 0}));
    EXPECT_DOUBLE_EQ(e.averagePrecision, 7.0 / 12.0); // (1/2 + 2/3) / 2
    EXPECT_EQ(e.firstCorrectRank, 2);

    const GroupRanking none = rankGroup({false, false}, {1, 2});
    EXPECT_EQ(none.firstCorrectRank, 0);
    EXPECT_EQ(none.averagePrecision, 0.0);
    EXPECT_EQ(none.reciprocalRank, 0.0);
}

TEST(PairEval, TiesKeepInputOrder)
{
    // Equal scores: the candidate that comes first ranks first (stable sort).
    EXPECT_DOUBLE_EQ(rankGroup({false, true}, {0.5, 0.5}).averagePrecision, 0.5); // correct at rank 2
    EXPECT_DOUBLE_EQ(rankGroup({true, false}, {0.5, 0.5}).averagePrecision, 1.0); // correct at rank 1
    // [.1 correct, .5, .1]: .5 first, then the two .1 in input order -> correct at rank 2.
    const GroupRanking g = rankGroup({true, false, false}, {.1, .5, .1});
    EXPECT_EQ(g.ranked, (std::vector<int>{1, 0, 2}));
    EXPECT_EQ(g.firstCorrectRank, 2);
}

TEST(PairEval, CorpusRankingUnderBothProtocols)
{
    std::vector<double> scores;
    const PairCorpus c = rankingCorpus(scores);
    auto clean = evaluateRanking(c, scores);
    ASSERT_TRUE(clean.ok()) << clean.message();
    EXPECT_EQ(clean->groups.size(), 5u);
    EXPECT_EQ(clean->groups[1].group, "F"); // order of first appearance
    EXPECT_EQ(clean->groups[1].ranked, (std::vector<int>{12, 4})); // corpus indices, best first
    EXPECT_EQ(clean->groupsUsed, 3);
    EXPECT_EQ(clean->droppedNoCorrect, 1);
    EXPECT_EQ(clean->droppedAllCorrect, 1);
    EXPECT_EQ(clean->groupsDropped(), 2);
    EXPECT_FALSE(clean->groups[2].used); // C
    EXPECT_NEAR(clean->map, 25.0 / 36.0, 1e-12);
    EXPECT_NEAR(clean->mrr, 2.0 / 3.0, 1e-12);
    EXPECT_NEAR(clean->precisionAt1, 1.0 / 3.0, 1e-12);

    auto all = evaluateRanking(c, scores, RankingProtocol::All);
    ASSERT_TRUE(all.ok()) << all.message();
    EXPECT_EQ(all->groupsUsed, 5);
    EXPECT_EQ(all->groupsDropped(), 0);
    EXPECT_NEAR(all->map, 37.0 / 60.0, 1e-12);
    EXPECT_NEAR(all->mrr, 3.0 / 5.0, 1e-12);
    EXPECT_NEAR(all->precisionAt1, 2.0 / 5.0, 1e-12);
}

TEST(PairEval, RankingErrors)
{
    std::vector<double> scores;
    const PairCorpus c = rankingCorpus(scores);
    EXPECT_EQ(evaluateRanking(c, {1.0}).message(), "test: 1 scores for 13 pairs");
    scores[3] = std::nan("");
    EXPECT_EQ(evaluateRanking(c, scores).message(), "test: the score of pair 4 is NaN");
    PairCorpus cls = c;
    cls.task = kClassificationTask;
    EXPECT_EQ(evaluateRanking(cls, scores).message(), "test: ranking metrics need a ranking corpus (this one is 'classification')");
    // An empty corpus has no groups and means of 0.
    PairCorpus empty = c;
    empty.pairs.clear();
    auto e = evaluateRanking(empty, {});
    ASSERT_TRUE(e.ok());
    EXPECT_EQ(e->groupsUsed, 0);
    EXPECT_EQ(e->map, 0.0);
}

TEST(PairEval, ClassificationByHand)
{
    // gold [YES,YES,NO,NO,YES], predicted [YES,NO,NO,YES,YES]
    //   confusion [gold][pred] (NO, YES): NO -> [1 (item 3), 1 (item 4)], YES -> [1 (item 2), 2 (items 1, 5)]
    //   accuracy 3/5; NO: P = 1/2, R = 1/2, F1 = 1/2; YES: P = 2/3, R = 2/3, F1 = 2/3
    //   macro F1 = (1/2 + 2/3)/2 = 7/12
    auto e = evaluateClassification({"NO", "YES"}, {"YES", "YES", "NO", "NO", "YES"}, {"YES", "NO", "NO", "YES", "YES"});
    ASSERT_TRUE(e.ok()) << e.message();
    EXPECT_EQ(e->total, 5);
    EXPECT_EQ(e->correct, 3);
    EXPECT_DOUBLE_EQ(e->accuracy, 0.6);
    EXPECT_EQ(e->confusion, (std::vector<std::vector<long>>{{1, 1}, {1, 2}}));
    ASSERT_EQ(e->perLabel.size(), 2u);
    EXPECT_EQ(e->perLabel[0].label, "NO");
    EXPECT_EQ(e->perLabel[0].gold, 2);
    EXPECT_EQ(e->perLabel[0].predicted, 2);
    EXPECT_DOUBLE_EQ(e->perLabel[0].precision, 0.5);
    EXPECT_DOUBLE_EQ(e->perLabel[0].recall, 0.5);
    EXPECT_DOUBLE_EQ(e->perLabel[0].f1, 0.5);
    EXPECT_NEAR(e->perLabel[1].precision, 2.0 / 3.0, 1e-12);
    EXPECT_NEAR(e->perLabel[1].f1, 2.0 / 3.0, 1e-12);
    EXPECT_NEAR(e->macroF1, 7.0 / 12.0, 1e-12);
}

TEST(PairEval, MacroF1LeavesOutLabelsThatNeverOccur)
{
    // gold [YES, UNKNOWN], predicted [YES, YES]; CONTRADICTION occurs in neither.
    //   YES: P = 1/2, R = 1, F1 = 2/3; UNKNOWN: P = 0 (never predicted), R = 0, F1 = 0
    //   macro F1 = (2/3 + 0)/2 = 1/3
    auto e = evaluateClassification({"YES", "UNKNOWN", "CONTRADICTION"}, {"YES", "UNKNOWN"}, {"YES", "YES"});
    ASSERT_TRUE(e.ok()) << e.message();
    EXPECT_NEAR(e->macroF1, 1.0 / 3.0, 1e-12);
    EXPECT_EQ(e->perLabel[2].f1, 0.0);
    EXPECT_EQ(e->confusion[1][0], 1);
    EXPECT_EQ(evaluateClassification({"NO", "YES"}, {"NO"}, {"MAYBE"}).message(), "item 1: predicted label 'MAYBE' is not in the label set");
    EXPECT_EQ(evaluateClassification({"NO", "YES"}, {"NO"}, {}).message(), "0 predictions for 1 gold labels");
    const PairCorpus c = corpus(kClassificationTask, {{"1", "YES", "a", "b"}, {"2", "MAYBE", "a", "b"}});
    EXPECT_EQ(evaluateClassification(c, {"YES", "NO"}).message(), "test: item 2: gold label 'MAYBE' is not in the label set");
}

TEST(PairEval, QuestionWordsAndContentWords)
{
    EXPECT_EQ(questionWord(sentence("What is the capital of France?")), "what");
    EXPECT_EQ(questionWord(sentence("whose book is this")), "who");
    EXPECT_EQ(questionWord(sentence("In which year did it end?")), "which");
    EXPECT_EQ(questionWord(sentence("How many legs does a spider have?")), "how");
    EXPECT_EQ(questionWord(sentence("how much is it")), "how");
    EXPECT_EQ(questionWord(sentence("Name the largest planet")), "other");
    EXPECT_EQ(questionWord(sentence("Tell me , please , who won")), "other"); // past the first 3 tokens
    EXPECT_EQ(contentWords(sentence("Who wrote Hamlet's play?")), (std::vector<std::string>{"wrote", "hamlet", "play"}));
    EXPECT_TRUE(isPunctuationWord("--"));
    EXPECT_TRUE(isPunctuationWord("\xE2\x80\x94")); // em dash U+2014
    EXPECT_FALSE(isPunctuationWord("caf\xC3\xA9"));
    EXPECT_FALSE(isPunctuationWord("\xC3\xA9t\xC3\xA9"));
    EXPECT_FALSE(isPunctuationWord("1990"));
    // Overlap: {wrote, hamlet}; the candidate has "Hamlet" -> 1/2.
    EXPECT_DOUBLE_EQ(lexicalOverlap(sentence("Who wrote Hamlet?"), sentence("Hamlet was written by Shakespeare.")), 0.5);
    EXPECT_DOUBLE_EQ(lexicalOverlap(sentence("Who is he?"), sentence("He is.")), -1.0);
}

TEST(PairEval, SlicesByHand)
{
    PairCorpus c = corpus(kRankingTask, {
        {"1", "1", "What is the capital of France ?", "Paris is the capital of France ."},      // what, 7 words, overlap 2/2
        {"1", "0", "What is the capital of France ?", "It is big ."},                           // what, overlap 0
        {"2", "1", "Who wrote Hamlet ?", "Hamlet was written by Shakespeare ."},                 // who, 4 words, overlap 1/2
        {"3", "0", "Who is he ?", "He is ."},                                                   // no content words
        {"4", "1", "Name four big red planets", "Mars is red ."},                                // other, overlap 1/5
        {"5", "0", "which one of the many many long long words here is the very longest one ?", "a"}, // 16 words, overlap 0
    });
    // Pair 5's question content words: name, four, big, red, planets; "red" found -> 1/5, in (0,0.25].
    // Trees: pair 3's question "Who wrote Hamlet ?" heads [2,0,2,2] has depth 1; pair 1's
    // question gets a chain over its 7 words (each word headed by the next): depth 6.
    c.pairs[2].first.dependency = DependencyTree{{2, 0, 2, 2}, {"nsubj", "root", "obj", "punct"}};
    c.pairs[0].first.dependency = DependencyTree{{2, 3, 4, 5, 6, 7, 0}, std::vector<std::string>(7, "dep")};

    auto names = [](const std::vector<PairSlice> &slices) {
        std::vector<std::string> out;
        for (const auto &s : slices)
            out.push_back(s.name + "=" + std::to_string(s.pairs.size()));
        return out;
    };
    EXPECT_EQ(names(slicePairs(c, SliceKind::QuestionWord)),
              (std::vector<std::string>{"what=2", "who=2", "when=0", "where=0", "why=0", "how=0", "which=1", "other=1"}));
    // 7, 7, 4, 4, 5 and 16 words.
    EXPECT_EQ(names(slicePairs(c, SliceKind::QuestionLength)), (std::vector<std::string>{"<=5=3", "6-10=2", "11-15=0", "16+=1"}));
    EXPECT_EQ(names(slicePairs(c, SliceKind::CandidateLength)), (std::vector<std::string>{"<=10=6", "11-20=0", "21-30=0", "31-40=0", "41+=0"}));
    const auto overlap = slicePairs(c, SliceKind::Overlap);
    EXPECT_EQ(names(overlap), (std::vector<std::string>{"0=2", "(0,0.25]=1", "(0.25,0.5]=1", "(0.5,0.75]=0", "(0.75,1]=1",
                                                        "no content words=1"}));
    EXPECT_EQ(overlap[0].pairs, (std::vector<int>{1, 5}));
    EXPECT_EQ(overlap[1].pairs, (std::vector<int>{4}));
    EXPECT_EQ(names(slicePairs(c, SliceKind::TreeDepth)), (std::vector<std::string>{"0-2=1", "3-4=0", "5-6=1", "7+=0", "unknown=4"}));
    const auto text = slicePairs(c, SliceKind::Text, "HAMLET");
    ASSERT_EQ(text.size(), 1u);
    EXPECT_EQ(text[0].name, "text: 'HAMLET'");
    EXPECT_EQ(text[0].pairs, (std::vector<int>{2}));
    EXPECT_EQ(slicePairs(c, SliceKind::Text, "")[0].pairs.size(), 6u);
    for (SliceKind k : {SliceKind::QuestionWord, SliceKind::QuestionLength, SliceKind::CandidateLength, SliceKind::Overlap,
                        SliceKind::TreeDepth, SliceKind::Text})
        EXPECT_EQ(*parseSliceKind(sliceKindName(k)), k);
    EXPECT_FALSE(parseSliceKind("length").ok());
}

TEST(PairEval, MetricsPerSlice)
{
    std::vector<double> scores;
    const PairCorpus c = rankingCorpus(scores);
    // Group A cut down to its first two candidates: labels [0,1], scores [.9,.8] -> AP = 1/2.
    auto a = evaluateRankingSlice(c, scores, PairSlice{"A12", {0, 1}});
    ASSERT_TRUE(a.ok()) << a.message();
    EXPECT_EQ(a->groupsUsed, 1);
    EXPECT_DOUBLE_EQ(a->map, 0.5);
    // Only its third candidate: no correct one left -> dropped.
    auto a3 = evaluateRankingSlice(c, scores, PairSlice{"A3", {2}});
    ASSERT_TRUE(a3.ok());
    EXPECT_EQ(a3->groupsUsed, 0);
    EXPECT_EQ(a3->droppedNoCorrect, 1);
    EXPECT_FALSE(evaluateRankingSlice(c, scores, PairSlice{"bad", {99}}).ok());

    // Classification on a slice: items 2 and 3 of the hand example above.
    const PairCorpus cls = corpus(kClassificationTask, {{"1", "YES", "a", "b"}, {"2", "YES", "a", "b"}, {"3", "NO", "a", "b"}});
    auto e = evaluateClassificationSlice(cls, {"YES", "NO", "NO"}, PairSlice{"s", {1, 2}});
    ASSERT_TRUE(e.ok()) << e.message();
    EXPECT_EQ(e->total, 2);
    EXPECT_DOUBLE_EQ(e->accuracy, 0.5);
    EXPECT_EQ(slicedCorpus(cls, PairSlice{"s", {2}}).pairs[0].group, "3");
}

TEST(PairEval, IdfOverlapByHand)
{
    // Candidates (documents), N = 4:
    //   d1 "Paris is the capital of France ."  d2 "It is big ."
    //   d3 "Hamlet was written by Shakespeare ."  d4 "The capital is Paris ."
    // df: capital 2, france 1, hamlet 1, "." 4 -> idf capital = ln 2, france = hamlet = ln 4, "." = 0.
    const PairCorpus c = corpus(kRankingTask, {
        {"1", "1", "What is the capital of France ?", "Paris is the capital of France ."}, // capital + france = ln 2 + ln 4
        {"1", "0", "What is the capital of France ?", "It is big ."},                     // nothing shared: 0
        {"2", "1", "Who wrote Hamlet ?", "Hamlet was written by Shakespeare ."},           // hamlet = ln 4
        {"2", "0", "capital capital France", "The capital is Paris ."},                    // capital once = ln 2
    });
    const IdfTable idf = candidateIdf(c);
    EXPECT_EQ(idf.documents, 4);
    EXPECT_DOUBLE_EQ(idf.of("capital"), std::log(2.0));
    EXPECT_DOUBLE_EQ(idf.of("the"), std::log(2.0)); // "the" (d1) and "The" (d4) are one word
    EXPECT_DOUBLE_EQ(idf.of("."), 0.0);
    EXPECT_DOUBLE_EQ(idf.of("zebra"), std::log(4.0)); // unseen: as if in one document
    const std::vector<double> s = idfOverlapScores(c, idf);
    ASSERT_EQ(s.size(), 4u);
    EXPECT_NEAR(s[0], std::log(2.0) + std::log(4.0), 1e-12);
    EXPECT_EQ(s[1], 0.0);
    EXPECT_NEAR(s[2], std::log(4.0), 1e-12);
    EXPECT_NEAR(s[3], std::log(2.0), 1e-12);
    // An IDF built elsewhere (a training corpus) scores this one.
    const IdfTable other = buildIdf(std::vector<std::vector<std::string>>{{"France"}, {"x"}});
    EXPECT_NEAR(idfOverlapScores(c, other)[0], std::log(2.0) /* france: ln(2/1) */ + std::log(2.0) /* capital unseen: ln 2 */, 1e-12);
    EXPECT_EQ(IdfTable{}.of("a"), 0.0);
}

TEST(SharedPairs, WikiQaIdfBaseline)
{
    TREELENS_REQUIRE_SHARED("data/wikiqa/train/a.toks");
    auto train = readPairCorpus(test::sharedPath("data/wikiqa/train"));
    auto testSplit = readPairCorpus(test::sharedPath("data/wikiqa/test"));
    ASSERT_TRUE(train.ok()) << train.message();
    ASSERT_TRUE(testSplit.ok()) << testSplit.message();
    const std::vector<double> scores = idfOverlapScores(*testSplit, candidateIdf(*train));
    auto e = evaluateRanking(*testSplit, scores);
    ASSERT_TRUE(e.ok()) << e.message();
    // This copy of WikiQA test holds the 243 questions that have a correct answer;
    // the clean protocol also drops the 6 whose candidates are all correct, leaving
    // the usual 237.
    EXPECT_EQ(e->groups.size(), 243u);
    EXPECT_EQ(e->droppedNoCorrect, 0);
    EXPECT_EQ(e->droppedAllCorrect, 6);
    EXPECT_EQ(e->groupsUsed, 237);
    // A word-overlap baseline: well above chance, below trained models (measured: MAP 0.6628).
    EXPECT_NEAR(e->map, 0.6628, 0.0001);
    std::printf("WikiQA test, IDF overlap (train IDF): MAP %.4f MRR %.4f P@1 %.4f over %d questions (%d without a correct answer, %d all correct dropped)\n",
                e->map, e->mrr, e->precisionAt1, e->groupsUsed, e->droppedNoCorrect, e->droppedAllCorrect);
}
