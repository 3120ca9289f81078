// Stage 5 of a probing run (core/probing/runattention.h): attention–tree
// agreement and unsupervised parsing, on the fake encoder of fakeencoder.h (head
// 0 attends to the previous word in every layer) and the tiny corpus, whose
// heads are known by construction (probingtestdata.h).
#include <gtest/gtest.h>

#include "core/probing/runattention.h"
#include "fakeencoder.h"
#include "probingtestdata.h"

using namespace treelens;

namespace {



/// The hand-scored trees of test_proberun.cpp: right-branching scores 75, 100 and 40.
ProbeData threePtbSentences()
{
    auto r = readCorpus("( (S (NP (DT The) (NN cat)) (VP (VBD sat) (PP (IN on) (NP (DT the) (NN mat)))) (. .)) )\n"
                        "( (S (NP (PRP She)) (VP (VBD left)) (. .)) )\n"
                        "( (S (S (NP (NNS Dogs)) (VP (VBP bark))) (, ,) (CC and) (S (NP (NNS cats)) (VP (VBP meow))) (. .)) )\n"
                        "( (S (VP (VB Go)) (. .)) )\n",
                        "induction.mrg", CorpusFormat::Ptb);
    EXPECT_TRUE(r.ok()) << r.message();
    ProbeData d;
    d.oneCorpus = true;
    d.corpus = r.ok() ? std::move(*r) : std::vector<Sentence>{};
    d.split = seededSplit(d.corpus.size(), 0.8, 0.1, 1);
    return d;
}

} // namespace

TEST(RunAttention, TheCorpusOfTheAttentionTasks)
{
    const ProbeRunCallbacks cb;
    const ProbeRunContext ctx(cb, nullptr);
    test::FakeEncoder encoder(2, 3, 6, true, true);
    ProbeData data = test::tinyOneCorpus();
    data.corpus.push_back(Sentence{}); // no words: skipped and counted
    data.split = seededSplit(data.corpus.size(), 0.8, 0.1, 1);
    ProbeRunConfig config;
    auto c = analyzeAttentionCorpus(ctx, encoder, data, config, false);
    ASSERT_TRUE(c.ok()) << c.message();
    EXPECT_EQ(c->sentences.size(), 30u);
    EXPECT_EQ(c->analyses.size(), 30u);
    EXPECT_EQ(c->emptySkipped, 1);
    EXPECT_EQ(c->scope, "whole corpus (all splits)");
    EXPECT_TRUE(c->analyses[0].linkProbs.empty()); // not kept
    EXPECT_EQ(c->analyses[0].attention.size(), 2u);

    config.attentionOn = "test";
    c = analyzeAttentionCorpus(ctx, encoder, data, config, true);
    ASSERT_TRUE(c.ok()) << c.message();
    EXPECT_EQ(c->scope, "test split");
    EXPECT_EQ(c->sentences.size() + static_cast<std::size_t>(c->emptySkipped), data.split.test.size());
    EXPECT_FALSE(c->analyses[0].linkProbs.empty());
}

TEST(RunAttention, FourGridsOverTheCorpus)
{
    std::vector<std::string> finished;
    ProbeRunCallbacks cb;
    cb.taskFinished = [&](const std::string &t) { finished.push_back(t); };
    const ProbeRunContext ctx(cb, nullptr);
    test::FakeEncoder encoder(2, 3, 6, true, true);
    const ProbeData data = test::tinyOneCorpus();
    ProbeRunConfig config;
    ProbeRunTiming timing;
    const std::vector<std::string> tasks = {"head-accuracy", "constituent-mass", "attention-mst", "link-probs"};
    auto r = runAttentionTasks(ctx, encoder, data, test::tinyTrees(), config, tasks, timing);
    ASSERT_TRUE(r.ok()) << r.message();
    EXPECT_EQ(finished, tasks);
    EXPECT_EQ(timing.attention.size(), 5u); // the analysis and each task
    EXPECT_FALSE(r->induction.has_value());
    const ProbeRunAttention &a = r->attention;

    // Head 0 attends to the previous word: right for every arc of a chain and for
    // the second word of a flat sentence — the offset −1 baseline.
    long arcs = 0, previous = 0;
    for (int i = 0; i < test::kTinySentences; ++i) {
        arcs += test::tinyLength(i) - 1;
        previous += test::tinyChain(i) ? test::tinyLength(i) - 1 : 1;
    }
    ASSERT_TRUE(a.headAccuracy.has_value());
    const RelationHeadAccuracy *all = a.headAccuracy->find("all");
    ASSERT_NE(all, nullptr);
    EXPECT_EQ(all->count, arcs);
    for (int l = 0; l < 2; ++l)
        EXPECT_NEAR(all->depToHead.at(l, 0), 100.0 * previous / arcs, 1e-9) << l;
    EXPECT_EQ(all->bestOffset.offset, -1);
    EXPECT_NEAR(all->bestOffset.accuracy, 100.0 * previous / arcs, 1e-9);

    const AttentionTaskSummary &ha = a.summaries.at("head-accuracy");
    EXPECT_EQ(ha.sentences, 30u);
    EXPECT_EQ(ha.scope, "whole corpus (all splits)");
    EXPECT_EQ(ha.attention, "attention after the constituent prior (softmax x C)");
    EXPECT_EQ(ha.trees, "gold (30 sentences)");
    EXPECT_TRUE(ha.tree.empty());
    ASSERT_TRUE(ha.worstSentences.has_value());
    EXPECT_EQ(ha.worstSentences->size(), 5u);
    ASSERT_EQ(a.sentenceIds.at("head-accuracy").size(), 30u);
    EXPECT_EQ(a.sentenceIds.at("head-accuracy")[7], data.corpus[7].id);

    const AttentionTaskSummary &mst = a.summaries.at("attention-mst");
    ASSERT_TRUE(a.attentionMst.has_value());
    EXPECT_GE(mst.best.layer, 0);
    EXPECT_DOUBLE_EQ(mst.best.accuracy, a.attentionMst->uuas.at(mst.best.layer, mst.best.head));
    for (int l = 0; l < 2; ++l)
        for (int h = 0; h < 3; ++h)
            EXPECT_LE(a.attentionMst->uuas.at(l, h), mst.best.accuracy);

    const AttentionTaskSummary &mass = a.summaries.at("constituent-mass");
    EXPECT_EQ(mass.tree, "dependency");
    EXPECT_EQ(mass.trees, "gold (30 sentences)");
    ASSERT_TRUE(a.constituentMass.has_value());
    EXPECT_DOUBLE_EQ(mass.best.accuracy, a.constituentMass->difference.at(mass.best.layer, mass.best.head));

    ASSERT_TRUE(a.linkProbs.has_value());
    ASSERT_EQ(a.linkProbs->perLayer.size(), 2u);
    EXPECT_DOUBLE_EQ(a.linkProbs->perLayer[1].mean, 0.5);
    EXPECT_EQ(a.summaries.at("link-probs").tree, "dependency");
}

TEST(RunAttention, UnsupervisedParsingBaselinesForAModelThatInducesNothing)
{
    const ProbeRunCallbacks cb;
    const ProbeRunContext ctx(cb, nullptr);
    test::FakeEncoder encoder;
    const ProbeData data = threePtbSentences();
    ProbeTrees trees;
    trees.constGold = 4;
    trees.needConst = true;
    ProbeRunConfig config;
    auto r = runUnsupervisedParsing(ctx, encoder, data, config, trees);
    ASSERT_TRUE(r.ok()) << r.message();
    EXPECT_FALSE(r->applicable);
    EXPECT_EQ(r->reason, "this model (fake) induces no trees, so only the baselines are scored");
    EXPECT_EQ(r->sentences, 3u);
    EXPECT_EQ(r->excluded, (std::map<std::string, long>{{"fewer-than-2-words-without-punctuation", 1}}));
    EXPECT_EQ(r->scope, "whole corpus (all splits)");
    EXPECT_EQ(r->constituencyTrees, "gold (4 sentences)");
    EXPECT_NEAR(r->report.all.right.sentenceF1, (75.0 + 100.0 + 40.0) / 3, 1e-9);
    EXPECT_TRUE(r->worstSentences.empty());
    EXPECT_TRUE(r->predicted.empty());

    // Without constituency trees there is nothing to score.
    const ProbeData tiny = test::tinyOneCorpus();
    r = runUnsupervisedParsing(ctx, encoder, tiny, config, test::tinyTrees());
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.message(), "no sentence with a constituency tree of 2 or more words (punctuation removed)");

    // Dependency tasks on sentences without dependency trees: the task is named.
    ProbeRunTiming timing;
    auto a = runAttentionTasks(ctx, encoder, data, trees, config, {"head-accuracy"}, timing);
    ASSERT_FALSE(a.ok());
    EXPECT_EQ(a.message(), "head-accuracy: no sentence with a valid dependency tree");
}
