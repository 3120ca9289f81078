// The configuration of a probing run (core/probing/proberunconfig.h): task and
// layer lists, the checks made before a model is loaded, and errors that name
// the setting, never a command-line flag.
#include <gtest/gtest.h>

#include "core/probing/proberunconfig.h"

using namespace treelens;

TEST(ProbeRunConfig, TasksInCanonicalOrderWithAliases)
{
    auto t = parseProbeRunTasks("link_probs, sentlen ,depth");
    ASSERT_TRUE(t.ok()) << t.message();
    EXPECT_EQ(*t, (std::vector<std::string>{"sentlen", "structural-depth", "link-probs"}));
    t = parseProbeRunTasks("induction,SentLen_Bins,mst-uuas,distance");
    ASSERT_TRUE(t.ok()) << t.message();
    EXPECT_EQ(*t, (std::vector<std::string>{"sentlen-bins", "structural-distance", "attention-mst", "unsupervised-parsing"}));
    t = parseProbeRunTasks("all");
    ASSERT_TRUE(t.ok());
    EXPECT_EQ(t->size(), 4u + 2u + 5u);

    t = parseProbeRunTasks("sentlen,frobnicate");
    ASSERT_FALSE(t.ok());
    EXPECT_EQ(t.message().rfind("tasks: unknown task 'frobnicate' (expected sentlen, ", 0), 0u) << t.message();
    t = parseProbeRunTasks(" , ");
    ASSERT_FALSE(t.ok());
    EXPECT_EQ(t.message().rfind("tasks: no task given", 0), 0u) << t.message();
}

TEST(ProbeRunConfig, Layers)
{
    // Named as a person counts them: embeddings, then the encoder layers from 1;
    // the report keeps 0 for the embeddings, k for the output of encoder layer k.
    auto l = parseProbeRunLayers("all", 4);
    ASSERT_TRUE(l.ok());
    EXPECT_EQ(*l, (std::vector<int>{0, 1, 2, 3, 4}));
    l = parseProbeRunLayers("4, 2,2,Embeddings", 4);
    ASSERT_TRUE(l.ok());
    EXPECT_EQ(*l, (std::vector<int>{0, 2, 4}));
    EXPECT_EQ(probeRunLayersNote("embeddings,2,4"), "");
    // The old spelling: 0 for the embeddings, with a note.
    l = parseProbeRunLayers("4, 2,2,0", 4);
    ASSERT_TRUE(l.ok());
    EXPECT_EQ(*l, (std::vector<int>{0, 2, 4}));
    EXPECT_EQ(probeRunLayersNote("4, 2,2,0"),
              "layers: 0 is the old spelling of embeddings (the encoder layers are numbered from 1)");
    l = parseProbeRunLayers("5", 4);
    ASSERT_FALSE(l.ok());
    EXPECT_EQ(l.message(), "layers: layer 5: the model has 4 layers (embeddings and 1..4)");
    l = parseProbeRunLayers("-1", 4);
    ASSERT_FALSE(l.ok());
    EXPECT_EQ(l.message(), "layers: layer -1: layers are numbered from 1 (embeddings and 1..4)");
    l = parseProbeRunLayers("two", 4);
    ASSERT_FALSE(l.ok());
    EXPECT_EQ(l.message(), "layers: 'two' is not a layer (expected all, or a list such as embeddings,2,4)");
    EXPECT_EQ(parseProbeRunLayers(",", 4).message(), "layers: no layer given");
}

TEST(ProbeRunConfig, ValidateInTheOrderOfARunWithoutFlagNames)
{
    ProbeRunConfig c;
    c.tasks = "sentlen";
    EXPECT_TRUE(c.validate().ok());

    ProbeRunConfig bad = c;
    bad.dev = {"dev.conllu"};
    bad.depthMinCount = 0; // reported after the dev/test pairing
    ASSERT_FALSE(bad.validate().ok());
    EXPECT_EQ(bad.validate().message(),
              "a dev split needs a test split (with a training split alone the corpus is split 0.8/0.1/0.1)");
    bad.test = {"test.conllu"};
    EXPECT_EQ(bad.validate().message(), "depth min count must be at least 1");
    bad = c;
    bad.encoderBatch = 0;
    EXPECT_EQ(bad.validate().message(), "encoder batch must be at least 1");
    bad = c;
    bad.lr = -1; // "0 = default" is the only non-positive value taken
    EXPECT_TRUE(bad.validate().ok());
    bad.epochs = -2; // likewise
    EXPECT_TRUE(bad.validate().ok());
    bad = c;
    bad.batch = 0;
    bad.rank = -3;
    EXPECT_FALSE(bad.validate().ok());
    for (const auto *cfg : {&bad})
        EXPECT_EQ(cfg->validate().message().find("--"), std::string::npos) << cfg->validate().message();
}

TEST(ProbeRunConfig, ProbeOptionsFromTheConfiguration)
{
    ProbeRunConfig c;
    auto s = sentenceProbeOptions(c);
    EXPECT_EQ(s.maxEpochs, ProbeTrainOptions{}.maxEpochs); // 0 = the probe's default
    EXPECT_EQ(s.device, "cpu");                          // "auto" is resolved by the run
    EXPECT_EQ(s.threads, 1);
    c.epochs = 7;
    c.patience = 0;
    c.lr = 0.01;
    c.batch = 5;
    c.probe = "linear";
    c.rank = 16;
    c.seed = 9;
    c.probeDevice = "cuda:1";
    s = sentenceProbeOptions(c);
    EXPECT_EQ(s.maxEpochs, 7);
    EXPECT_EQ(s.patience, 0);
    EXPECT_DOUBLE_EQ(s.learningRate, 0.01);
    EXPECT_EQ(s.batchSize, 5);
    EXPECT_EQ(s.architecture, ProbeArchitecture::Linear);
    EXPECT_EQ(s.seed, 9u);
    EXPECT_EQ(s.device, "cuda:1");
    const auto st = structuralProbeOptions(c);
    EXPECT_EQ(st.rank, 16);
    EXPECT_EQ(st.maxEpochs, 7);
    EXPECT_EQ(st.batchSize, 5);
}
