// The conformance matrix, command-line doors: every model of conformance.h
// through every treelens-cli command that opens a model (docs/conformance.md).
#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <tuple>

#include <gtest/gtest.h>

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

/// What a cell expects: a result whose standard output holds `needle`, or a refusal
/// (exit 1, one line on stderr) that holds it. "{TEXT}" stands for the model's text line.
struct Expect {
    bool result;
    const char *needle;
};

Expect result(const char *needle) { return {true, needle}; }
Expect refusal(const char *needle) { return {false, needle}; }

struct CliDoor {
    const char *name;
    /// treelens-cli's arguments: {M} the model, {GOLD} the gold corpus, {PAIRS} the pairs; a chain of
    /// commands (&&) names the binary {CLI} and writes its files under {TMP}, the cell's folder.
    const char *args;
    Expect sentenceModel;
    Expect pairModel;
};

// One line per command that opens a model.
const std::vector<CliDoor> &cliDoors()
{
    static const std::vector<CliDoor> doors = {
        {"analyze_text", "analyze --model {M} \"The old man saw a red kite .\"", result("{TEXT}"), refusal("--pairs")},
        {"analyze_json", "analyze --json --no-attention --model {M} \"The old man saw a red kite .\"", result("\"tokens\""),
         refusal("--pairs")},
        // A treebank that carries both trees: no parser is opened (tested without one in test_cli.cpp).
        {"analyze_corpus", "analyze --input {GOLD} --model {M}", result("sentence c-2:"), refusal("--pairs")},
        {"analyze_pairs_text", "analyze --pairs {PAIRS} --model {M}", result("second:"), result("pair 4 (group q2, label 0)")},
        {"analyze_pairs_json", "analyze --json --no-attention --pairs {PAIRS} --model {M}", result("\"pair\""),
         result("\"prediction\"")},
        {"score_pairs", "score-pairs --model {M} --input {PAIRS}", refusal("reads single sentences, not pairs"),
         result("qid\tindex\tlabel\tscore")},
        {"eval_pairs", "eval-pairs --model {M} --input {PAIRS}", refusal("reads single sentences, not pairs"), result("MAP")},
        // What if the tree were different (issue 33): a dependency edit and a constituency edit of
        // the gold corpus's first sentence, and a pair's second sentence edited (parsed first).
        {"whatif_dependency", "whatif --input {GOLD} --model {M} --edit 'head 7=3' --edit 'label 7=nmod'",
         result("edits: head 7=3; label 7=nmod"), refusal("--pairs")},
        {"whatif_constituency", "whatif --input {GOLD} --model {M} --edit 'unbracket 5-7'",
         result("constituency tree: edited (from the "), refusal("--pairs")},
        {"whatif_pairs", "whatif --pairs {PAIRS} --side second --model {M} --edit 'label 2=dep'",
         result("pair 1, second sentence:"), result("pair 1, second sentence:")},
        // Attributions (issue 34): Integrated Gradients (few steps: the cell checks the door, the
        // tests check the numbers) on a sentence and on pairs, and attention rollout.
        {"explain_text", "explain --steps 4 --model {M} \"The old man saw a red kite .\"", result("sentence 1: ig"),
         refusal("--pairs")},
        {"explain_pairs", "explain --steps 4 --json --pairs {PAIRS} --model {M}", result("\"completeness_gap\""),
         result("\"completeness_gap\"")},
        {"explain_rollout", "explain --method rollout --model {M} \"The old man saw a red kite .\"", result("sentence 1: rollout"),
         refusal("--pairs")},
        // Sharded runs (issue 35): two shards and their merge, on standard output ({CLI} the binary,
        // {TMP} the cell's own folder).
        {"analyze_sharded",
         "analyze --json --no-attention --input {GOLD} --model {M} --shard 1/2 -o {TMP}/1 && {CLI} analyze --json "
         "--no-attention --input {GOLD} --model {M} --shard 2/2 -o {TMP}/2 && {CLI} merge {TMP}/2 {TMP}/1",
         result("\"tokens\""), refusal("--pairs")},
        // A corpus parsed in two shards, merged, then read by the model (the way to give a
        // tree-reading model parsed trees at scale).
        {"parse_sharded",
         "parse --format conllu --input {GOLD} --shard 1/2 -o {TMP}/1 && {CLI} parse --format conllu --input {GOLD} --shard 2/2 "
         "-o {TMP}/2 && {CLI} merge {TMP}/2 {TMP}/1 -o {TMP}/parsed.conllu && {CLI} analyze --json --no-attention --input "
         "{TMP}/parsed.conllu --model {M}",
         result("\"tokens\""), refusal("--pairs")},
        {"score_pairs_sharded",
         "score-pairs --model {M} --input {PAIRS} --shard 1/2 -o {TMP}/1 && {CLI} score-pairs --model {M} --input {PAIRS} "
         "--shard 2/2 -o {TMP}/2 && {CLI} merge {TMP}/1 {TMP}/2",
         refusal("reads single sentences, not pairs"), result("qid\tindex\tlabel\tscore")},
        {"eval_pairs_sharded",
         "eval-pairs --model {M} --input {PAIRS} --shard 1/2 -o {TMP}/1 && {CLI} eval-pairs --model {M} --input {PAIRS} "
         "--shard 2/2 -o {TMP}/2 && {CLI} merge {TMP}/2 {TMP}/1",
         refusal("reads single sentences, not pairs"), result("MAP")},
        // Unsupervised parsing against gold PTB trees, whole and in two shards merged (a model
        // without link probabilities refuses: see the cell).
        {"eval_induction", "eval-induction --gold {GOLDPTB} --model {M}", result("right-branching"), result("right-branching")},
        {"eval_induction_sharded",
         "eval-induction --gold {GOLDPTB} --model {M} --shard 1/2 -o {TMP}/1 && {CLI} eval-induction --gold {GOLDPTB} "
         "--model {M} --shard 2/2 -o {TMP}/2 && {CLI} merge {TMP}/2 {TMP}/1",
         result("right-branching"), result("right-branching")},
        // Probing reads each sentence as the model's encoder reads one (a pair model: one side).
        {"probe", "probe --task sentlen,structural-depth --epochs 1 --json --train {GOLD} --test {GOLD} --model {M}",
         result("\"tasks\""), result("\"tasks\"")},
        // The Python module (docs/python.md): a sentence model analyses the gold corpus, a pair
        // model the pairs; with the GUI the default view is rendered (python/tests/conformance_door.py).
        {"python", "{PYTHON_DOOR} {M} {GOLD} {PAIRS}", result("python: "), result("python: ")},
        // ... and in two shards of features, merged, the probes trained on them.
        {"probe_sharded",
         "probe --task sentlen,structural-depth --train {GOLD} --test {GOLD} --model {M} --shard 1/2 -o {TMP}/1 && {CLI} probe "
         "--task sentlen,structural-depth --train {GOLD} --test {GOLD} --model {M} --shard 2/2 -o {TMP}/2 && {CLI} merge "
         "{TMP}/2 {TMP}/1 -o {TMP}/features && {CLI} probe --task sentlen,structural-depth --epochs 1 --json --train {GOLD} "
         "--test {GOLD} --model {M} --features {TMP}/features",
         result("\"tasks\""), result("\"tasks\"")},
    };
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
