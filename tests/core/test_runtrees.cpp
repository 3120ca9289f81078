// Stage 2 of a probing run (core/probing/runtrees.h): which trees the tasks use,
// where they come from, and the errors when they are missing.
#include <gtest/gtest.h>

#include "core/encoders/encoder.h"
#include "core/parsing/neural/neuralparser.h"
#include "core/probing/runtrees.h"
#include "probingtestdata.h"

using namespace treelens;

namespace {

const char *kPtb = "( (S (NP (DT The) (NN cat)) (VP (VBD sat)) (. .)) )\n"
                   "( (S (NP (PRP She)) (VP (VBD left) (ADVP (RB early))) (. .)) )\n"
                   "( (S (NP (NNS Dogs)) (VP (VBP bark))) )\n";

std::vector<Sentence> ptbSentences()
{
    auto r = readCorpus(kPtb, "three.mrg", CorpusFormat::Ptb);
    EXPECT_TRUE(r.ok()) << r.message();
    return r.ok() ? std::move(*r) : std::vector<Sentence>{};
}

ProbeData oneCorpus(std::vector<Sentence> sentences)
{
    ProbeData d;
    d.oneCorpus = true;
    d.corpus = std::move(sentences);
    return d;
}

const ProbeRunCallbacks kNoCallbacks;

} // namespace

TEST(RunTrees, TheTreeOfTheSpanTasksAndWhatIsNeeded)
{
    ProbeRunConfig config;
    ProbeTrees t;
    chooseProbeTrees(config, {"treedepth"}, 0, 30, t);
    EXPECT_EQ(t.tree, "dependency");
    EXPECT_EQ(t.treeWhy, "the input has no constituency trees (--tree constituency predicts them)");
    EXPECT_TRUE(t.needDep);
    EXPECT_FALSE(t.needConst);

    t = {};
    chooseProbeTrees(config, {"treedepth", "structural-depth"}, 5, 30, t);
    EXPECT_EQ(t.tree, "constituency");
    EXPECT_EQ(t.treeWhy, "the input has constituency trees");
    EXPECT_TRUE(t.needConst && t.needDep);

    t = {};
    chooseProbeTrees(config, {"sentlen"}, 0, 0, t);
    EXPECT_EQ(t.tree, "constituency");
    EXPECT_EQ(t.treeWhy, "the input has no trees");
    EXPECT_FALSE(t.needConst || t.needDep); // SentLen needs no tree

    t = {};
    config.treeSource = "parsed";
    chooseProbeTrees(config, {"link-probs"}, 0, 30, t);
    EXPECT_EQ(t.tree, "constituency");
    EXPECT_TRUE(t.needConst);

    t = {};
    config.tree = "dependency"; // an explicit tree wins
    chooseProbeTrees(config, {"constituent-mass", "unsupervised-parsing"}, 30, 30, t);
    EXPECT_EQ(t.tree, "dependency");
    EXPECT_TRUE(t.needDep);
    EXPECT_TRUE(t.needConst); // unsupervised parsing always scores constituency trees
}

TEST(RunTrees, PtbInputGetsHeadRuleDependencies)
{
    ProbeData data = oneCorpus(ptbSentences());
    ASSERT_EQ(data.corpus.size(), 3u);
    const auto [haveConst, haveDep] = addHeadRuleDependencies(data);
    EXPECT_EQ(haveConst, 3);
    EXPECT_EQ(haveDep, 3);
    for (const auto &s : data.corpus) {
        ASSERT_TRUE(s.dependency.has_value()) << s.id;
        EXPECT_EQ(s.dependency->size(), s.tokens.size());
        EXPECT_EQ(s.metadataValue("probe.dependency"), "head-rules");
    }
    // Collins: the verb heads the sentence; "The" depends on "cat".
    EXPECT_EQ(data.corpus[0].dependency->heads, (std::vector<int>{2, 3, 0, 3}));

    ProbeRunConfig config;
    config.tasks = "topconst,structural-depth";
    const ProbeRunContext ctx(kNoCallbacks, nullptr);
    ProbeData again = oneCorpus(ptbSentences());
    auto trees = prepareProbeTrees(ctx, again, config, {"topconst", "structural-depth"});
    ASSERT_TRUE(trees.ok()) << trees.message();
    EXPECT_EQ(trees->constituencyText(), "gold (3 sentences)");
    EXPECT_EQ(trees->dependencyText(),
              "from the gold constituency trees by Collins head rules (3 sentences; relations are only dep/punct/root)");
    EXPECT_EQ(trees->parseSeconds, 0.0); // nothing parsed
}

TEST(RunTrees, MissingTreesAreErrorsNamingTasksAndFilesNotFlags)
{
    const ProbeRunContext ctx(kNoCallbacks, nullptr);
    ProbeRunConfig config;
    config.train = {test::tinyPath()};
    config.treeSource = "gold";
    ProbeData data = oneCorpus(test::tinyCorpus());
    auto trees = prepareProbeTrees(ctx, data, config, {"treedepth"});
    ASSERT_TRUE(trees.ok()) << trees.message(); // treedepth on the dependency trees: no parser needed
    config.tree = "constituency";
    trees = prepareProbeTrees(ctx, data, config, {"treedepth", "topconst"});
    ASSERT_FALSE(trees.ok());
    EXPECT_EQ(trees.message(), "topconst, treedepth (tree constituency) needs constituency trees, and " + test::tinyPath() +
                                   " has none; tree source gold turns off predicting them with the neural parser "
                                   "(choose another tree source, or give a PTB treebank)");
    EXPECT_EQ(trees.message().find("--"), std::string::npos);

    // Plain text has no trees: the dependency tasks are named.
    const std::string text = test::writeTemp("runtrees.txt", "The cat sat .\nDogs bark .\n");
    config = {};
    config.train = {text};
    auto plain = readProbeData(config, 0);
    ASSERT_TRUE(plain.ok()) << plain.message();
    trees = prepareProbeTrees(ctx, *plain, config, {"structural-depth", "head-accuracy"});
    ASSERT_FALSE(trees.ok());
    EXPECT_EQ(trees.message(), "structural-depth, head-accuracy need dependency trees, and " + text +
                                   " has none (give CoNLL-U, or a PTB treebank: its dependency trees come from Collins "
                                   "head rules)");
}

TEST(RunTrees, MissingConstituencyTreesArePredicted)
{
    if (findShippedModel(kShippedConstituencyParser).empty())
        GTEST_SKIP() << "SKIPPED: the shipped constituency parser is not installed";
    std::vector<std::string> lines;
    ProbeRunCallbacks callbacks;
    callbacks.progress = [&](const std::string &line) { lines.push_back(line); };
    const ProbeRunContext ctx(callbacks, nullptr);
    ProbeRunConfig config;
    config.train = {test::tinyPath()};
    ProbeData data = oneCorpus(test::tinyCorpus());
    auto trees = prepareProbeTrees(ctx, data, config, {"topconst"});
    ASSERT_TRUE(trees.ok()) << trees.message();
    EXPECT_EQ(trees->constPredicted, test::kTinySentences);
    EXPECT_EQ(trees->constituencyText(), "predicted by parser-const-en-ptb (30 sentences)");
    EXPECT_EQ(trees->dependencyText(), "gold (30 sentences)");
    for (const auto &s : data.corpus) {
        ASSERT_TRUE(s.constituency.has_value()) << s.id;
        EXPECT_EQ(s.metadataValue("probe.constituency"), "predicted");
        EXPECT_TRUE(s.dependency.has_value()); // the gold dependency trees stay
    }
    ASSERT_FALSE(lines.empty());
    EXPECT_EQ(lines.front(), "predicting constituency trees for 30 sentences with the neural parser");
}
