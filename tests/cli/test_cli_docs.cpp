// The documentation numbers layers as the CLI does (docs/cli.md, "Numbering"):
// the unsupervised-parsing tables of docs/tree-transformer.md, the model card and
// docs/probing.md are checked against `eval-induction` on the PTB test files
// (WSJ 0180-0199), row by row, start layers from 1; and no document (outside
// code spans) calls a layer "layer 0" or writes "(0)" for the embeddings.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <regex>
#include <sstream>

#include "clirun.h"
#include "core/probing/probecompare.h"
#include "testutil.h"

using namespace treelens;
using test::CliRun;

namespace {

std::string source(const std::string &rel) { return std::string(TREELENS_SOURCE_DIR) + "/" + rel; }

std::vector<std::string> lines(const std::string &text)
{
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);)
        out.push_back(line);
    return out;
}

/// The lines of `doc` from the eval-induction table's header to the end of its
/// code block.
std::vector<std::string> evalInductionBlock(const std::string &doc)
{
    const auto all = lines(*readFile(source(doc)));
    std::vector<std::string> block;
    bool in = false;
    for (const auto &l : all) {
        if (!in && l.find("F1 (sent)  F1 (corpus)  F1<=10 sent") != std::string::npos)
            in = true;
        if (in && l.rfind("```", 0) == 0)
            break;
        if (in)
            block.push_back(l);
    }
    return block;
}

/// A row of the eval-induction text: its four numbers.
std::vector<double> numbers(const std::string &row)
{
    std::vector<double> v;
    std::istringstream in(row.substr(18));
    for (double x; in >> x;)
        v.push_back(x);
    return v;
}

const std::string &testSetText()
{
    static const std::string text = [] {
        std::string files;
        for (int k = 180; k <= 199; ++k)
            files += " " + test::shellQuote(test::sharedPath("data/ptb-sample/wsj_0" + std::to_string(k) + ".mrg"));
        const CliRun r = test::runCli("eval-induction --device cpu --gold" + files);
        EXPECT_EQ(r.code, 0) << r.err;
        return r.out;
    }();
    return text;
}

} // namespace

TEST(CliDocs, EvalInductionBlocksAreTheCliOutput)
{
    TREELENS_REQUIRE_SHARED("data/ptb-sample/wsj_0199.mrg");
    const auto cli = lines(testSetText());
    ASSERT_FALSE(cli.empty());
    for (const char *doc : {"docs/tree-transformer.md", "resources/models/tree-transformer-en-small.md"}) {
        const auto block = evalInductionBlock(doc);
        EXPECT_EQ(block, cli) << doc << ": the eval-induction block differs from the command's output";
    }
}

TEST(CliDocs, ProbingTableStartLayersAreEvalInductions)
{
    TREELENS_REQUIRE_SHARED("data/ptb-sample/wsj_0199.mrg");
    // "| model, starting at layer k | S / C | T | ..." of the PTB section (the
    // run's test split is WSJ 0180-0199 with gold trees, as eval-induction's).
    const auto cli = lines(testSetText());
    std::map<int, std::vector<double>> byLayer;
    std::vector<double> model;
    for (const auto &l : cli) {
        int k = 0;
        if (std::sscanf(l.c_str(), "  layer %d", &k) == 1)
            byLayer[k] = numbers(l);
        if (l.rfind("model ", 0) == 0)
            model = numbers(l);
    }
    ASSERT_EQ(byLayer.size(), 4u);
    EXPECT_EQ(byLayer.begin()->first, 1); // numbered from 1
    auto cell = [](const std::vector<double> &v) {
        return pythonFixed(v[0], 1) + " / " + pythonFixed(v[1], 1) + " | " + pythonFixed(v[2], 1);
    };
    const std::string doc = *readFile(source("docs/probing.md"));
    const auto ptb = doc.find("## Results: PTB sample");
    ASSERT_NE(ptb, std::string::npos);
    const std::string section = doc.substr(ptb, doc.find("\n## ", ptb + 1) - ptb);
    for (const auto &[k, v] : byLayer) {
        const std::string row = "| model, starting at layer " + std::to_string(k) + " | " + cell(v) + " |";
        EXPECT_NE(section.find(row), std::string::npos) << "docs/probing.md lacks " << row;
    }
    EXPECT_NE(section.find("| model (its own parse settings) | " + cell(model) + " |"), std::string::npos);
    EXPECT_EQ(section.find("starting at layer 0"), std::string::npos);
}

TEST(CliDocs, NoDocumentCallsALayerZero)
{
    // Outside `code spans` (where the old spellings are listed): no "layer 0",
    // no "(0)" for the embeddings in a table.
    const std::regex layerZero(R"((^|[^\w])[Ll]ayer[- ]0($|[^\w.]))");
    const std::regex cellZero(R"(\(0\) \|)");
    std::vector<std::string> files = {source("README.md")};
    for (const char *dir : {"docs", "resources/models"})
        for (const auto &e : std::filesystem::directory_iterator(source(dir)))
            if (e.path().extension() == ".md")
                files.push_back(e.path().string());
    ASSERT_GT(files.size(), 10u);
    for (const auto &f : files) {
        int n = 0;
        for (std::string l : lines(*readFile(f))) {
            ++n;
            l = std::regex_replace(l, std::regex("`[^`]*`"), "``");
            EXPECT_FALSE(std::regex_search(l, layerZero)) << f << ":" << n << ": " << l;
            EXPECT_FALSE(l.rfind("|", 0) == 0 && std::regex_search(l, cellZero)) << f << ":" << n << ": " << l;
        }
    }
}
