// Unsupervised-parse settings belong to the model: tune-induction chooses them on
// development trees (never the test files), stores them in a copy of the model,
// and eval-induction and analyze then use them by default; flags still override.
// Layers are numbered from 1 in the flags and the output (docs/cli.md,
// "Numbering"); the 0-based flags of earlier versions keep working under their
// explicit names.
#include <cstdint>
#include <cstdio>
#include <fstream>

#include <nlohmann/json.hpp>

#include "clirun.h"
#include "core/data/induction.h"
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
    // tune-induction prints layers numbered from 1 (the model file keeps them from 0).
    EXPECT_EQ(choice["layer_numbering"], "1-based");
    auto config = InductionConfig::fromNumberedJson(chosen.dump());
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

namespace {
/// eval-induction --json on one development file with extra flags.
CliRun evalInduction(const std::string &flags)
{
    return cli("eval-induction --device cpu --json --gold " + wsj(160) + " " + flags);
}
json configOf(const CliRun &r)
{
    EXPECT_EQ(r.code, 0) << r.err;
    return r.code == 0 ? json::parse(r.out)["config"] : json();
}
} // namespace

namespace {
/// The shipped model's own settings as its file stores them (treelens.config
/// "induction", layers from 0, -1 = the top), read from the safetensors header
/// directly; absent: the defaults (start at the top, minimum index 2, 0.8, 0.7).
json storedInduction()
{
    std::ifstream f(std::string(TREELENS_SOURCE_DIR) + "/resources/models/tree-transformer-en-small.safetensors",
                    std::ios::binary);
    unsigned char size[8] = {};
    f.read(reinterpret_cast<char *>(size), 8);
    std::uint64_t n = 0;
    for (int i = 7; i >= 0; --i)
        n = (n << 8) | size[i];
    std::string header(static_cast<std::size_t>(n), '\0');
    f.read(header.data(), static_cast<std::streamsize>(n));
    const json config = json::parse(json::parse(header)["__metadata__"]["treelens.config"].get<std::string>());
    return config.value("induction", json::parse(R"({"start_layer":-1,"min_layer":2,"threshold":0.8,"descend":0.7})"));
}
} // namespace

TEST(CliInduction, LayersNumberedFromOne)
{
    TREELENS_REQUIRE_SHARED("data/ptb-sample/wsj_0160.mrg");
    // The shipped model's own settings (4 layers), reported from 1: its file's
    // 0-based indices plus one, -1 (the top) as layer 4; every start layer from 1.
    const json stored = storedInduction();
    const int start = stored["start_layer"].get<int>() < 0 ? 4 : stored["start_layer"].get<int>() + 1;
    const int minimum = stored["min_layer"].get<int>() + 1;
    const json expected = {{"descend", stored["descend"]}, {"min_layer", minimum}, {"start_layer", start},
                           {"threshold", stored["threshold"]}};
    const CliRun d = evalInduction("");
    ASSERT_EQ(d.code, 0) << d.err;
    const json report = json::parse(d.out);
    EXPECT_EQ(report["layer_numbering"], "1-based");
    EXPECT_EQ(report["config"], expected);
    ASSERT_EQ(report["by_start_layer"].size(), 4u);
    for (int k = 0; k < 4; ++k)
        EXPECT_EQ(report["by_start_layer"][k]["start_layer"], k + 1);
    // The model's own start layer's row is the model's score.
    EXPECT_EQ(report["by_start_layer"][start - 1]["all"], report["all"]["model"]);

    const CliRun text = cli("eval-induction --device cpu --gold " + wsj(160));
    ASSERT_EQ(text.code, 0) << text.err;
    char line[160];
    std::snprintf(line, sizeof line, "model: start at layer %d%s, minimum layer %d, threshold %.2f, descent rule %.2f\n", start,
                  start == 4 ? " (the top)" : "", minimum, stored["threshold"].get<double>(), stored["descend"].get<double>());
    EXPECT_NE(text.out.find(line), std::string::npos) << line << text.out;
    EXPECT_NE(text.out.find("start layer (numbered from 1):\n  layer 1 "), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("\n  layer 4 "), std::string::npos) << text.out;
    EXPECT_EQ(text.out.find("layer 0"), std::string::npos) << text.out;

    // Every setting given as a flag, numbered from 1, is the same configuration;
    // --start-layer 4 is the top, as "top" is.
    const std::string all = " --min-layer " + std::to_string(minimum) + " --threshold " + stored["threshold"].dump() +
                            " --descend " + stored["descend"].dump();
    EXPECT_EQ(configOf(evalInduction("--start-layer " + std::to_string(start) + all)), report["config"]);
    json top = expected;
    top["start_layer"] = 4;
    EXPECT_EQ(configOf(evalInduction("--start-layer 4" + all)), top);
    EXPECT_EQ(configOf(evalInduction("--start-layer top" + all)), top);
    const json low = configOf(evalInduction("--start-layer 2 --min-layer 1"));
    EXPECT_EQ(low["start_layer"], 2);
    EXPECT_EQ(low["min_layer"], 1);
    // Starting at layer 2 (the minimum layer lowered to it) scores as the "layer 2" row.
    const CliRun two = evalInduction("--start-layer 2 --min-layer 2");
    ASSERT_EQ(two.code, 0) << two.err;
    EXPECT_EQ(json::parse(two.out)["all"]["model"], report["by_start_layer"][1]["all"]);
}

TEST(CliInduction, OldZeroBasedSpellingsStillWork)
{
    TREELENS_REQUIRE_SHARED("data/ptb-sample/wsj_0160.mrg");
    const json layer2 = configOf(evalInduction("--start-layer 2 --min-layer 1"));
    // The 0-based numbers of earlier versions under their explicit names.
    EXPECT_EQ(configOf(evalInduction("--start-layer-0based 1 --min-layer-0based 0")), layer2);
    EXPECT_EQ(configOf(evalInduction("--start-layer-0based -1")), configOf(evalInduction("--start-layer top")));
    // --start-layer -1 (the top) had one meaning in every version: kept, with a note.
    const CliRun top = evalInduction("--start-layer -1");
    EXPECT_EQ(configOf(top), configOf(evalInduction("--start-layer 4")));
    EXPECT_NE(top.err.find("note: --start-layer -1 is the old spelling of --start-layer top"), std::string::npos) << top.err;
    // One spelling of a setting at a time.
    const CliRun both = evalInduction("--start-layer 2 --start-layer-0based 1");
    EXPECT_EQ(both.code, 2) << both.err;
}

TEST(CliInduction, RefusesLayersOutsideTheModel)
{
    TREELENS_REQUIRE_SHARED("data/ptb-sample/wsj_0160.mrg");
    // Layer 0 does not exist (a usage error, whatever the model); the message
    // names the old 0-based flag.
    CliRun r = evalInduction("--start-layer 0");
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_NE(r.err.find("--start-layer: layer 0: layers are numbered from 1 (the old 0-based numbers: "
                         "--start-layer-0based)"),
              std::string::npos)
        << r.err;
    r = evalInduction("--min-layer 0");
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_NE(r.err.find("layers are numbered from 1 (the old 0-based numbers: --min-layer-0based)"), std::string::npos)
        << r.err;
    r = evalInduction("--start-layer first");
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_NE(r.err.find("'first' is not a layer number"), std::string::npos) << r.err;
    // Beyond the shipped model's 4 layers: a user error naming the model's range.
    r = evalInduction("--start-layer 5");
    EXPECT_EQ(r.code, 1);
    EXPECT_EQ(r.err, "treelens-cli: error: --start-layer: layer 5: the model has 4 layers (1..4)\n");
    r = evalInduction("--min-layer 9");
    EXPECT_EQ(r.code, 1);
    EXPECT_EQ(r.err, "treelens-cli: error: --min-layer: layer 9: the model has 4 layers (1..4)\n");
    r = evalInduction("--start-layer-0based 4");
    EXPECT_EQ(r.code, 1);
    EXPECT_EQ(r.err, "treelens-cli: error: --start-layer-0based: 4 is outside 0..3 (-1 = top)\n");
    EXPECT_TRUE(r.out.empty());
}
