// Sharded runs and treelens-cli merge (issue 35, docs/cluster.md): analyze, parse,
// score-pairs, eval-pairs, eval-induction and probe's feature extraction in shards merged
// in any order give the whole run's output byte for byte (eval-pairs, eval-induction: the
// report computed over all the shards' scores or link probabilities; probe: the probes
// trained on the merged features report what the plain run reports)
// (UD EWT dev in 4 shards and WikiQA test in 2 when ../shared is there; the repository's
// small corpora always); merge refuses 3 of 4 shards, a repeated shard and a shard of
// another input; --skip-done leaves a finished shard alone.
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "clirun.h"
#include "core/base/fileio.h"

using namespace treelens;
using treelens::test::runCli;
using treelens::test::shellQuote;

namespace {

std::string temp(const std::string &name) { return treelens::test::cliTempDir() + "/" + name; }

std::string fileText(const std::string &path)
{
    auto t = readFile(path);
    return t ? *t : std::string("<unreadable>");
}

/// Runs `args` (a command reading `input`) whole and in `n` shards, merges the shards given
/// in reverse order and expects the whole run's bytes. Returns the shard files.
std::vector<std::string> shardedEqualsWhole(const std::string &args, int n, const std::string &tag)
{
    const std::string whole = temp(tag + ".whole");
    auto r = runCli(args + " -o " + shellQuote(whole));
    EXPECT_EQ(r.code, 0) << r.err;
    std::vector<std::string> shards;
    for (int i = 1; i <= n; ++i) {
        shards.push_back(temp(tag + ".shard" + std::to_string(i)));
        auto s = runCli(args + " --shard " + std::to_string(i) + "/" + std::to_string(n) + " -o " + shellQuote(shards.back()));
        EXPECT_EQ(s.code, 0) << s.err;
    }
    std::string list;
    for (auto it = shards.rbegin(); it != shards.rend(); ++it)
        list += " " + shellQuote(*it);
    const std::string merged = temp(tag + ".merged");
    auto m = runCli("merge" + list + " -o " + shellQuote(merged));
    EXPECT_EQ(m.code, 0) << m.err;
    EXPECT_TRUE(fileText(whole) == fileText(merged)) << tag << ": the merged shards differ from the whole run";
    EXPECT_FALSE(fileText(whole).empty());
    return shards;
}

/// A probe report's JSON without what differs between two runs of the same probes: the
/// timings and the command line.
nlohmann::json probeReport(const std::string &path)
{
    nlohmann::json j = nlohmann::json::parse(fileText(path), nullptr, false);
    EXPECT_FALSE(j.is_discarded()) << path << ": " << fileText(path).substr(0, 300);
    if (j.is_object()) {
        j.erase("timing");
        j.erase("command");
    }
    return j;
}

/// probe's features extracted whole and in `n` shards (merged back byte for byte), then the
/// probes trained on the merged features: the report of the plain run of `args`.
std::string probeShardsTrainAsTheWholeRun(const std::string &args, int n, const std::string &tag)
{
    const auto shards = shardedEqualsWhole(args + " --extract-features", n, tag);
    const std::string merged = temp(tag + ".merged");
    const std::string plain = temp(tag + ".plain.json"), fromFeatures = temp(tag + ".features.json");
    auto p = runCli(args + " --json -o " + shellQuote(plain));
    EXPECT_EQ(p.code, 0) << p.err;
    auto f = runCli(args + " --json --features " + shellQuote(merged) + " -o " + shellQuote(fromFeatures));
    EXPECT_EQ(f.code, 0) << f.err;
    EXPECT_NE(f.err.find("features from "), std::string::npos) << f.err;
    const auto a = probeReport(plain), b = probeReport(fromFeatures);
    EXPECT_TRUE(a.contains("tasks")) << a.dump().substr(0, 300);
    EXPECT_EQ(a, b) << tag << ": the probes trained on the merged features differ from the plain run's";
    return merged;
}

} // namespace

TEST(CliShard, ProbeFeaturesOfTheTinyCorpus)
{
    const std::string tiny = shellQuote(TREELENS_TEST_DATA_DIR + std::string("/probing/tiny.conllu"));
    const std::string args = "probe --task sentlen,structural-depth --epochs 2 --train " + tiny;
    const std::string merged = probeShardsTrainAsTheWholeRun(args + " --baselines", 2, "probe-tiny");
    // The run needs what the file holds: other layers, no random-init features, another corpus.
    auto layers = runCli(args + " --baselines --layers 1 --features " + shellQuote(merged) + " --json");
    EXPECT_EQ(layers.code, 0) << layers.err; // a subset of the layers it holds
    const std::string fewer = temp("probe-tiny.fewer");
    ASSERT_EQ(runCli(args + " --layers 1 --extract-features -o " + shellQuote(fewer)).code, 0);
    auto layer2 = runCli(args + " --layers 2 --features " + shellQuote(fewer));
    EXPECT_EQ(layer2.code, 1);
    EXPECT_NE(layer2.err.find("they hold the layers 1, not layer 2 (--layers)"), std::string::npos) << layer2.err;
    auto random = runCli(args + " --layers 1 --random-init --features " + shellQuote(fewer));
    EXPECT_EQ(random.code, 1);
    EXPECT_NE(random.err.find("no random-init encoder's features"), std::string::npos) << random.err;
    const std::string gold = shellQuote(TREELENS_TEST_DATA_DIR + std::string("/conformance/gold.conllu"));
    auto corpus = runCli("probe --task sentlen --layers 1 --train " + gold + " --features " + shellQuote(fewer));
    EXPECT_EQ(corpus.code, 1);
    EXPECT_NE(corpus.err.find("they are of another corpus"), std::string::npos) << corpus.err;
    // A shard is merged first; the features are no text for standard output.
    const std::string shard = temp("probe-tiny.shard1");
    auto one = runCli(args + " --features " + shellQuote(temp("probe-tiny.shard2")));
    EXPECT_EQ(one.code, 1);
    EXPECT_NE(one.err.find("join the shards first"), std::string::npos) << one.err;
    // The attention tasks are left to the run on the features (--task all in a shard); alone they extract nothing.
    auto all = runCli("probe --task all --train " + tiny + " --shard 2/2 -o " + shellQuote(temp("probe-tiny.all")));
    EXPECT_EQ(all.code, 0) << all.err;
    EXPECT_NE(all.err.find("the run on the features runs them"), std::string::npos) << all.err;
    auto attention = runCli("probe --task head-accuracy --train " + tiny + " --shard 1/2 -o " + shellQuote(temp("x")));
    EXPECT_EQ(attention.code, 1);
    EXPECT_NE(attention.err.find("no sentence or structural task"), std::string::npos) << attention.err;
    auto stdoutMerge = runCli("merge " + shellQuote(shard) + " " + shellQuote(temp("probe-tiny.shard2")));
    EXPECT_EQ(stdoutMerge.code, 1);
    EXPECT_NE(stdoutMerge.err.find("give -o FEATURES"), std::string::npos) << stdoutMerge.err;
    auto both = runCli(args + " --extract-features --features " + shellQuote(merged) + " -o " + shellQuote(temp("y")));
    EXPECT_EQ(both.code, 1);
    EXPECT_NE(both.err.find("reads no --features file"), std::string::npos) << both.err;
    // With --features the attention tasks run the encoder as usual.
    auto withAttention = runCli("probe --task sentlen,head-accuracy --epochs 2 --baselines --train " + tiny + " --features " +
                                shellQuote(merged));
    EXPECT_EQ(withAttention.code, 0) << withAttention.err;
    EXPECT_NE(withAttention.out.find("head-accuracy"), std::string::npos) << withAttention.out.substr(0, 500);
}

// The whole UD EWT dev (2,001 sentences, 4 blocks) in 3 shards, with the shipped default model.
TEST(CliShard, ProbeFeaturesOfUdEwtDevInThreeShards)
{
    TREELENS_REQUIRE_SHARED("data/ud-english-ewt/en_ewt-ud-dev.conllu");
    const std::string dev = shellQuote(test::sharedPath("data/ud-english-ewt/en_ewt-ud-dev.conllu"));
    probeShardsTrainAsTheWholeRun("probe --task sentlen,treedepth,structural-distance --tree dependency --epochs 2 "
                                  "--layers embeddings,2 --control --train " + dev,
                                  3, "probe-ewt");
}

TEST(CliShard, SmallCorporaMergeBackExactly)
{
    const std::string tiny = shellQuote(TREELENS_TEST_DATA_DIR + std::string("/probing/tiny.conllu"));
    shardedEqualsWhole("analyze --input " + tiny, 3, "tiny-text");
    const auto shards = shardedEqualsWhole("analyze --json --no-attention --input " + tiny, 2, "tiny-json");
    // Shard 1 of 2 holds no block of 512 sentences of this 30-sentence corpus: its header and end line only.
    const std::string first = fileText(shards[0]);
    EXPECT_EQ(first.rfind("#treelens-shard {", 0), 0u) << first;
    EXPECT_NE(first.find("#treelens-shard-end {\"records\":0}"), std::string::npos) << first;
    EXPECT_NE(fileText(shards[1]).find("#treelens-shard-end {\"records\":30}"), std::string::npos);
    const std::string pairs = shellQuote(TREELENS_TEST_DATA_DIR + std::string("/conformance/pairs.tsv"));
    shardedEqualsWhole("score-pairs -m idf-overlap -i " + pairs, 2, "pairs-idf");
    shardedEqualsWhole("parse --format conllu --input " + tiny, 2, "tiny-parse");
    shardedEqualsWhole("analyze --json --no-attention --pairs " + pairs, 2, "pairs-analyze");
    // eval-pairs: the shards hold scores; merge computes the metrics over all of them (table and JSON).
    shardedEqualsWhole("eval-pairs -m idf-overlap -i " + pairs, 2, "pairs-eval");
    shardedEqualsWhole("eval-pairs -m idf-overlap --json --text wrote -i " + pairs, 3, "pairs-eval-json");

    // --skip-done: a finished shard is left as it is.
    const auto before = std::filesystem::last_write_time(shards[1]);
    auto again = runCli("analyze --json --no-attention --input " + tiny + " --shard 2/2 --skip-done -o " + shellQuote(shards[1]));
    EXPECT_EQ(again.code, 0) << again.err;
    EXPECT_NE(again.err.find("is done"), std::string::npos) << again.err;
    EXPECT_EQ(std::filesystem::last_write_time(shards[1]), before);
    // ... but one of other options is run again.
    auto other = runCli("analyze --json --input " + tiny + " --shard 2/2 --skip-done -o " + shellQuote(temp("other")));
    EXPECT_EQ(other.code, 0) << other.err;
    EXPECT_EQ(other.err.find("is done"), std::string::npos) << other.err;

    // One-line refusals.
    auto noOut = runCli("analyze --input " + tiny + " --shard 1/2");
    EXPECT_EQ(noOut.code, 1);
    EXPECT_NE(noOut.err.find("--shard needs -o OUT"), std::string::npos) << noOut.err;
    auto text = runCli("analyze 'Dogs bark .' --shard 1/2 -o " + shellQuote(temp("t")));
    EXPECT_EQ(text.code, 1);
    EXPECT_NE(text.err.find("needs its input in a file"), std::string::npos) << text.err;
    auto bad = runCli("analyze --input " + tiny + " --shard 3/2 -o " + shellQuote(temp("t")));
    EXPECT_EQ(bad.code, 1);
    EXPECT_NE(bad.err.find("I must be 1 to N"), std::string::npos) << bad.err;
    auto plain = runCli("merge " + tiny);
    EXPECT_EQ(plain.code, 1);
    EXPECT_NE(plain.err.find("not a shard output"), std::string::npos) << plain.err;
}

// The figures: UD EWT dev in 4 shards, WikiQA test in 2 with the shipped GGSA.
TEST(CliShard, UdEwtDevInFourShardsAndWikiQaTestInTwo)
{
    TREELENS_REQUIRE_SHARED("data/ud-english-ewt/en_ewt-ud-dev.conllu");
    const std::string dev = shellQuote(test::sharedPath("data/ud-english-ewt/en_ewt-ud-dev.conllu"));
    const auto shards = shardedEqualsWhole("analyze --json --no-attention --input " + dev, 4, "ewt");
    // Three of four, a shard twice, a shard of another input: refused by name.
    auto three = runCli("merge " + shellQuote(shards[0]) + " " + shellQuote(shards[1]) + " " + shellQuote(shards[3]));
    EXPECT_EQ(three.code, 1);
    EXPECT_NE(three.err.find("shard 3 of 4 is missing"), std::string::npos) << three.err;
    auto twice = runCli("merge " + shellQuote(shards[0]) + " " + shellQuote(shards[1]) + " " + shellQuote(shards[1]) + " " +
                        shellQuote(shards[2]) + " " + shellQuote(shards[3]));
    EXPECT_EQ(twice.code, 1);
    EXPECT_NE(twice.err.find("is given twice"), std::string::npos) << twice.err;
    const std::string testFile = shellQuote(test::sharedPath("data/ud-english-ewt/en_ewt-ud-test.conllu"));
    const std::string foreign = temp("ewt-test.shard4");
    ASSERT_EQ(runCli("analyze --json --no-attention --input " + testFile + " --shard 4/4 -o " + shellQuote(foreign)).code, 0);
    auto other = runCli("merge " + shellQuote(shards[0]) + " " + shellQuote(shards[1]) + " " + shellQuote(shards[2]) + " " +
                        shellQuote(foreign));
    EXPECT_EQ(other.code, 1);
    EXPECT_NE(other.err.find("is a shard of another input"), std::string::npos) << other.err;
    EXPECT_NE(other.err.find("ewt-test.shard4"), std::string::npos) << other.err;

    // eval-induction over 40 PTB files (1,000 sentences or so) in 3 shards: the link probabilities merged, scored once.
    TREELENS_REQUIRE_SHARED("data/ptb-sample/wsj_0100.mrg");
    std::string gold;
    for (int k = 100; k < 140; ++k)
        gold += " " + shellQuote(test::sharedPath("data/ptb-sample/wsj_0" + std::to_string(k) + ".mrg"));
    shardedEqualsWhole("eval-induction --gold" + gold, 3, "induction");
    shardedEqualsWhole("eval-induction --json --gold" + gold, 2, "induction-json");

    TREELENS_REQUIRE_SHARED("data/wikiqa/test/a.toks");
    const std::string wikiqa = shellQuote(test::sharedPath("data/wikiqa/test"));
    const std::string ggsa = shellQuote(std::string(TREELENS_SOURCE_DIR) + "/resources/models/ggsa-en-wikiqa.safetensors");
    shardedEqualsWhole("eval-pairs -m " + ggsa + " -i " + wikiqa, 2, "wikiqa-eval");
    // analyze --pairs of the first questions (blocks of 64 pairs): 3 shards, none empty.
    const std::string firstQuestions = temp("wikiqa-300.tsv");
    {
        std::ifstream ids(test::sharedPath("data/wikiqa/test/id.txt")), a(test::sharedPath("data/wikiqa/test/a.toks")),
            b(test::sharedPath("data/wikiqa/test/b.toks")), sim(test::sharedPath("data/wikiqa/test/sim.txt"));
        std::ofstream out(firstQuestions);
        std::string id, q, c, l;
        for (int k = 0; k < 300 && std::getline(ids, id) && std::getline(a, q) && std::getline(b, c) && std::getline(sim, l); ++k)
            out << id << '\t' << q << '\t' << c << '\t' << l << '\n';
    }
    const auto pairShards = shardedEqualsWhole("analyze --json --no-attention --model " + ggsa + " --pairs " + shellQuote(firstQuestions), 3,
                                               "wikiqa-analyze");
    for (const auto &f : pairShards)
        EXPECT_EQ(fileText(f).find("#treelens-shard-end {\"records\":0}"), std::string::npos) << f << " is empty";
    const auto halves = shardedEqualsWhole("score-pairs -m " + ggsa + " -i " + wikiqa, 2, "wikiqa");
    // Shard 2 starts at a question's first pair: no question is split.
    auto f = readFile(halves[1]);
    ASSERT_TRUE(f);
    const auto firstRecord = f->find('\n', f->find("qid\tindex")) + 1;
    const std::string qid = f->substr(firstRecord, f->find('\t', firstRecord) - firstRecord);
    const std::string firstHalf = fileText(halves[0]);
    EXPECT_EQ(firstHalf.find("\n" + qid + "\t"), std::string::npos) << qid << " is in both shards";
}
