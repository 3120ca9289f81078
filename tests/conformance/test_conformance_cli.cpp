// The conformance matrix, command-line doors: every model of conformance.h
// through every treelens-cli command that opens a model (docs/conformance.md), the
// doors as the command table lists them (app/cli/commands.cpp).
#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <tuple>

#include <gtest/gtest.h>

#include "app/cli/commands.h"
#include "cli/clirun.h"
#include "conformance.h"

using namespace treelens;
using namespace treelens::conformance;

// The Python module's interpreter and folder ("" without it), generated with the other
// paths (tests/CMakeLists.txt); declared here, the one place that uses them.
namespace treelens::test::paths {
const char *pythonBinary();
const char *pythonPath();
} // namespace treelens::test::paths

namespace {

using cli::CliDoor;
using Expect = cli::DoorExpect;

Expect refusal(const char *needle) { return {false, needle}; }

/// The columns: the doors of every command in treelens-cli's command table (app/cli/commands.cpp,
/// next to the command they run), then the Python module's.
const std::vector<CliDoor> &cliDoors()
{
    static const std::vector<CliDoor> doors = [] {
        std::vector<CliDoor> all;
        for (const cli::CommandEntry &command : cli::commandTable())
            all.insert(all.end(), command.doors.begin(), command.doors.end());
        // The Python module (docs/python.md): a sentence model analyses the gold corpus, a pair
        // model the pairs; with the GUI the default view is rendered (python/tests/conformance_door.py).
        all.push_back({"python", "{PYTHON_DOOR} {M} {GOLD} {PAIRS}", {true, "python: "}, {true, "python: "}});
        return all;
    }();
    return doors;
}

std::string replaceAll(std::string s, const std::string &from, const std::string &to)
{
    for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
        s.replace(at, from.size(), to);
    return s;
}

struct CliResult {
    int code = -1;     ///< exit status; -1: killed by a signal
    std::string out, err;
};

/// Runs treelens-cli with a time limit (a hang is a failed cell, not a stuck suite).
CliResult runBounded(const std::string &args)
{
    const std::string dir = test::cliTempDir();
    const std::string out = dir + "/out", err = dir + "/err";
    // A chain of commands (&&) in a subshell: its standard output and error are the cell's.
    const std::string cmd = "( timeout -k 10 600 " + std::string(TREELENS_CLI) + " " + args + " ) </dev/null >" + out + " 2>" + err;
    const int status = std::system(cmd.c_str());
    CliResult r;
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    std::ifstream o(out), e(err);
    std::stringstream so, se;
    so << o.rdbuf();
    se << e.rdbuf();
    r.out = so.str();
    r.err = se.str();
    return r;
}

class CliMatrix : public ::testing::TestWithParam<std::tuple<std::size_t, std::size_t>> {};

} // namespace

TEST_P(CliMatrix, Cell)
{
    const ModelLine &m = models()[std::get<0>(GetParam())];
    const CliDoor &d = cliDoors()[std::get<1>(GetParam())];
    const std::string path = modelPath(m);
    if (path.empty())
        GTEST_SKIP() << "SKIPPED: " << m.file << " not found (fixture models need ../shared; tests/conformance/make_models.sh)";
    std::string args = replaceAll(d.args, "{M}", test::shellQuote(path));
    args = replaceAll(args, "{GOLD}", test::shellQuote(goldCorpus()));
    args = replaceAll(args, "{PAIRS}", test::shellQuote(pairCorpus()));
    args = replaceAll(args, "{GOLDPTB}", test::shellQuote(goldPtb()));
    args = replaceAll(args, "{MINPAIRS}", test::shellQuote(minimalPairsFile()));
    const std::string tmp = test::cliTempDir() + "/" + m.name + "__" + d.name;
    std::filesystem::create_directories(tmp);
    args = replaceAll(args, "{TMP}", test::shellQuote(tmp));
    args = replaceAll(args, "{CLI}", "timeout -k 10 600 " + test::shellQuote(TREELENS_CLI));
    const bool python = args.find("{PYTHON_DOOR}") != std::string::npos;
    if (python) {
        if (!*test::paths::pythonBinary())
            GTEST_SKIP() << "SKIPPED: built without the Python module (TREELENS_BUILD_PYTHON=OFF)";
        // treelens-cli --version first (the cell's command starts with the CLI), then the door.
        args = replaceAll(args, "{PYTHON_DOOR}",
                          "--version >/dev/null && env PYTHONPATH=" + test::shellQuote(test::paths::pythonPath()) +
                              " timeout -k 10 600 " + test::shellQuote(test::paths::pythonBinary()) + " " +
                              test::shellQuote(std::string(TREELENS_SOURCE_DIR) + "/python/tests/conformance_door.py"));
    }
    const CliResult r = runBounded(args);
    const std::string cell = std::string(m.name) + " x " + d.name + ": treelens-cli " + args;
    ASSERT_NE(r.code, -1) << cell << ": killed by a signal\n" << r.err;
    ASSERT_NE(r.code, 124) << cell << ": did not finish in 600 s";
    Expect e = m.kind == Kind::Pair ? d.pairModel : d.sentenceModel;
    const std::string door = d.name;
    if (e.result && *m.explainRefuses && (door == "explain_text" || door == "explain_pairs"))
        e = refusal(m.explainRefuses);
    // Unsupervised trees need link probabilities (the models that draw the links view); said
    // before the data is read.
    const auto views = split(m.views);
    if (e.result && door.rfind("eval_induction", 0) == 0 && std::find(views.begin(), views.end(), "links") == views.end())
        e = refusal("has no link probabilities");
    if (e.result && *m.refuses)
        e = refusal(m.refuses);
    // Rollout needs attention matrices (a recursive model composes nodes instead).
    if (e.result && door == "explain_rollout" && std::find(views.begin(), views.end(), "attention") == views.end())
        e = refusal("needs the model's attention matrices");
    // Minimal pairs need a sentence log-probability (the models that draw the surprisal view, and
    // masked language models with their vocabulary head).
    if (e.result && (door.rfind("minimal_pairs", 0) == 0 || door.rfind("ablate_sweep", 0) == 0) &&
        std::find(views.begin(), views.end(), "surprisal") == views.end() && !m.scoresSentences)
        e = refusal("gives no sentence log-probability");
    // query --stat: attention needs attention matrices, surprisal a language model.
    if (e.result && door == "query_stat_attention" && std::find(views.begin(), views.end(), "attention") == views.end())
        e = refusal("needs the model's attention matrices");
    if (e.result && door == "query_stat_surprisal" && std::find(views.begin(), views.end(), "surprisal") == views.end() &&
        !m.scoresSentences)
        e = refusal("gives no surprisal");
    // Head ablation is built for every family with heads; a model without them (a Tree-LSTM) says so.
    if (e.result && door == "analyze_ablate" && !m.ablates)
        e = refusal("has no attention heads to switch off");
    if (e.result && *m.probeRefuses && (door == "probe" || door == "probe_sharded"))
        e = refusal(m.probeRefuses);
    const std::string needle = replaceAll(e.needle, "{TEXT}", m.text);
    if (e.result) {
        ASSERT_EQ(r.code, 0) << cell << "\n" << r.err;
        EXPECT_NE(r.out.find(needle), std::string::npos) << cell << ": the output lacks '" << needle << "':\n"
                                                         << r.out.substr(0, 2000);
    } else {
        ASSERT_EQ(r.code, 1) << cell << ": expected a refusal\n" << r.out.substr(0, 500) << r.err;
        // One line that says why (what went before it, progress and notes, is not the refusal).
        ASSERT_FALSE(r.err.empty()) << cell;
        ASSERT_EQ(r.err.back(), '\n') << cell;
        const std::string last = r.err.substr(r.err.rfind('\n', r.err.size() - 2) + 1);
        EXPECT_EQ(last.rfind(python ? "treelens.Error: " : "treelens-cli: error: ", 0), 0u) << cell << ": " << r.err;
        EXPECT_NE(last.find(needle), std::string::npos) << cell << ": the refusal does not say '" << needle << "': " << last;
        EXPECT_TRUE(r.out.empty()) << cell << ": a refusal wrote output:\n" << r.out.substr(0, 500);
    }
}

INSTANTIATE_TEST_SUITE_P(Conformance, CliMatrix,
                         ::testing::Combine(::testing::Range<std::size_t>(0, models().size()),
                                            ::testing::Range<std::size_t>(0, cliDoors().size())),
                         [](const ::testing::TestParamInfo<CliMatrix::ParamType> &info) {
                             return std::string(models()[std::get<0>(info.param)].name) + "__" +
                                    cliDoors()[std::get<1>(info.param)].name;
                         });
