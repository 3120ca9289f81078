// Unsupervised-parse settings belong to the model: tune-induction chooses them on
// development trees (never the test files), stores them in a copy of the model,
// and eval-induction and analyze then use them by default; flags still override.
#include <fstream>

#include <nlohmann/json.hpp>

#include "clirun.h"
#include "core/encoders/treetransformer/induction.h"
#include "testutil.h"

using namespace treelens;
using test::CliRun;
using nlohmann::json;

namespace {
std::string quote(const std::string &s) { return test::shellQuote(s); }
CliRun cli(const std::string &args) { return test::runCli(args); }
std::string wsj(int k)
{
    char name[32];
    std::snprintf(name, sizeof name, "data/ptb-sample/wsj_%04d.mrg", k);
    return quote(test::sharedPath(name));
}
} // namespace

TEST(CliInduction, TunedSettingsAreStoredAndUsedByDefault)
{
    TREELENS_REQUIRE_SHARED("data/ptb-sample/wsj_0160.mrg");
    const std::string dev = wsj(160) + " " + wsj(161) + " " + wsj(162);
    const std::string tuned = test::cliTempDir() + "/tuned.safetensors";
    const CliRun t = cli("tune-induction --device cpu --json --gold " + dev + " -o " + quote(tuned));
    ASSERT_EQ(t.code, 0) << t.err;
    const json choice = json::parse(t.out);
    const double before = choice["before"]["sentence_f1"], after = choice["chosen"]["sentence_f1"];
    EXPECT_GE(after, before); // the start settings are among those tried
    EXPECT_GT(choice["settings_tried"].get<int>(), 100);
    const json chosen = choice["chosen"]["config"];

    // eval-induction on the same trees with the written model: the chosen settings
    // by default, and the F1 tune-induction reported for them.
    const CliRun e = cli("eval-induction --device cpu --json --model " + quote(tuned) + " --gold " + dev);
    ASSERT_EQ(e.code, 0) << e.err;
    const json report = json::parse(e.out);
    EXPECT_EQ(report["config"], chosen);
    EXPECT_NEAR(report["all"]["model"]["sentence_f1"].get<double>(), after, 0.01);
    // Flags still override, one setting at a time.
    const CliRun o = cli("eval-induction --device cpu --json --model " + quote(tuned) + " --threshold 0.55 --gold " + dev);
    ASSERT_EQ(o.code, 0) << o.err;
    const json overridden = json::parse(o.out)["config"];
    EXPECT_DOUBLE_EQ(overridden["threshold"].get<double>(), 0.55);
    EXPECT_EQ(overridden["start_layer"], chosen["start_layer"]);
    EXPECT_EQ(overridden["min_layer"], chosen["min_layer"]);

    // analyze uses the stored settings too: its brackets are those the chosen
    // settings give on its own link probabilities (word gaps: [CLS]'s gap dropped).
    const CliRun a = cli("analyze --device cpu --json --model " + quote(tuned) +
                         " \"the old man saw a red kite over the hill near the river\"");
    ASSERT_EQ(a.code, 0) << a.err;
    const json analysis = json::parse(a.out);
    std::vector<std::vector<float>> links;
    for (const auto &layer : analysis["link_probs"]) {
        std::vector<float> l = layer.get<std::vector<float>>();
        links.emplace_back(l.begin() + 1, l.end());
    }
    auto config = InductionConfig::fromJson(chosen.dump());
    ASSERT_TRUE(config.ok()) << config.message();
    const auto expected = induceBrackets(links, *config);
    EXPECT_EQ(analysis["induced_brackets"], json(expected));
}

TEST(CliInduction, RefusesToTuneOnTheTestFiles)
{
    TREELENS_REQUIRE_SHARED("data/ptb-sample/wsj_0185.mrg");
    const CliRun t = cli("tune-induction --device cpu --gold " + wsj(185));
    EXPECT_EQ(t.code, 1);
    EXPECT_NE(t.err.find("is a test file"), std::string::npos) << t.err;
}
