// The comparison rules of probing reports (core/probing/probecompare.h), the one
// rule set of the GUI's Compare tab and `treelens-cli probe-tables`.
//
// The Markdown tables are checked against tests/data/probing/tables-*.md, which
// the Python scripts/probing_tables.py of commit 9afa67c printed for the
// fixtures' reports (tests/data/probing/make_fixtures.sh), with the embedding
// layer named "(embeddings)" where that script wrote "(0)" (docs/cli.md,
// "Numbering"). The fixtures' reports are of that commit (layers counted from
// 0): the tables read them as they read today's.
#include <gtest/gtest.h>

#include <limits>

#include "core/base/fileio.h"
#include "core/probing/probejson.h"
#include "core/probing/probecompare.h"
#include "testutil.h"

using namespace treelens;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::vector<ProbeRunReport> read(const std::string &name)
{
    auto text = readFile(test::testData("probing/" + name));
    EXPECT_TRUE(text.ok()) << text.message();
    auto r = readProbeReportsJson(text.ok() ? *text : std::string(), name);
    EXPECT_TRUE(r.ok()) << r.message();
    return r.ok() ? std::move(*r) : std::vector<ProbeRunReport>{};
}

std::string expected(const std::string &name)
{
    auto text = readFile(test::testData("probing/" + name));
    EXPECT_TRUE(text.ok()) << text.message();
    return text.ok() ? *text : std::string();
}

SentenceProbeLayer layer(int number, const char *pooling, double devAccuracy, double devMse = kNaN)
{
    SentenceProbeLayer l{number, {}};
    SentenceProbeCell c;
    c.result.dev.accuracy = devAccuracy;
    c.result.dev.mse = devMse;
    c.result.test.accuracy = 0.01 * number;
    c.result.test.r2 = 0.1 * number;
    l.pooling[pooling] = c;
    return l;
}

StructuralProbeLayer structural(int number, double devLoss)
{
    StructuralProbeLayer l;
    l.layer = number;
    l.result.dev.loss = devLoss;
    return l;
}

} // namespace

TEST(ProbeCompare, PythonFormatting)
{
    EXPECT_EQ(pythonFixed(0.25, 1), "0.2");   // an exact tie goes to even
    EXPECT_EQ(pythonFixed(0.75, 1), "0.8");
    EXPECT_EQ(pythonFixed(12.25, 1), "12.2");
    EXPECT_EQ(pythonFixed(2.675, 2), "2.67"); // 2.675 is 2.67499999... in binary
    EXPECT_EQ(pythonFixed(-0.04, 1), "-0.0"); // the sign kept, as Python
    EXPECT_EQ(pythonFixed(3.0, 3), "3.000");
    EXPECT_EQ(pythonFixed(kNaN, 1), "n/a");
}

TEST(ProbeCompare, BestLayerByDevAsReportedNaNNeverWins)
{
    // Accuracies 50, NaN, 70, 70 (percent, as reported): the first 70 wins.
    const std::vector<SentenceProbeLayer> acc = {layer(0, "mean", 0.5), layer(1, "mean", kNaN), layer(2, "mean", 0.7),
                                                 layer(3, "mean", 0.7)};
    EXPECT_EQ(bestSentenceProbeLayer(acc, "mean", false), 2);
    EXPECT_EQ(bestSentenceProbeLayer(acc, "cls", false), -1); // no layer has [CLS]
    // SentLen: the lowest dev MSE; 1.50004 is reported 1.5, a tie with layer 2's.
    const std::vector<SentenceProbeLayer> mse = {layer(0, "cls", kNaN, kNaN), layer(1, "cls", kNaN, 2.0),
                                                 layer(2, "cls", kNaN, 1.5), layer(3, "cls", kNaN, 1.50004)};
    EXPECT_EQ(bestSentenceProbeLayer(mse, "cls", true), 2);
    // Every dev value NaN: the first layer (Python's max over -inf keys).
    EXPECT_EQ(bestSentenceProbeLayer({layer(4, "mean", kNaN), layer(5, "mean", kNaN)}, "mean", false), 0);

    // Structural: the lowest dev loss as reported (4 decimals): 0.10004 and 0.1
    // are both 0.1, so layer 2 wins although its loss is higher before rounding.
    const std::vector<StructuralProbeLayer> s = {structural(0, 0.2), structural(1, kNaN), structural(2, 0.10004),
                                                 structural(3, 0.1)};
    EXPECT_EQ(bestStructuralProbeLayer(s), 2);
    EXPECT_EQ(bestStructuralProbeLayer({structural(0, kNaN), structural(4, 0.3)}), 1);
    EXPECT_EQ(bestStructuralProbeLayer({}), -1);
}

TEST(ProbeCompare, Cells)
{
    SentenceProbeTask t;
    t.name = "treedepth";
    t.layers = {layer(0, "mean", 0.5), layer(1, "mean", 0.6)};
    t.layers[1].pooling["mean"].selectivity = 12.345;
    t.control = true;
    t.baseline.majorityAccuracy = 0.3333333;
    SentenceProbeCells c = sentenceProbeCells(t);
    EXPECT_EQ(c.mean, "1.0 (1)"); // test accuracy 0.01 · 1 = 1 %
    EXPECT_EQ(c.cls, "—");
    EXPECT_EQ(c.selectivity, "12.3"); // reported with 2 decimals, shown with 1
    EXPECT_EQ(c.randomInit, "—");
    EXPECT_EQ(majorityBaselineCell(t), "33.3");
    t.regression = true;
    t.baseline.meanR2 = -0.18801;
    EXPECT_EQ(majorityBaselineCell(t), "R² -0.188");

    StructuralProbeTask st;
    st.kind = StructuralProbeKind::Depth;
    st.layers = {structural(0, 0.5), structural(2, 0.4)};
    st.layers[1].result.test.rootAccuracy = 2.0 / 3.0;
    st.layers[1].result.test.nspr = 0.55801;
    EXPECT_EQ(structuralProbeCells(st).model, "66.7 / 0.558 (2)");
    EXPECT_EQ(structuralProbeCells(st).randomInit, "—");
    // The embedding layer is named, never "(0)"; encoder layer k is "(k)".
    st.layers[0].result.dev.loss = 0.1;
    EXPECT_EQ(structuralProbeCells(st).model, "n/a / n/a (embeddings)");
    t.regression = false;
    t.layers[0].pooling["mean"].result.dev.accuracy = 0.9;
    EXPECT_EQ(sentenceProbeCells(t).mean, "0.0 (embeddings)");

    HeadAccuracyReport ha;
    RelationHeadAccuracy all;
    all.relation = "all";
    all.bestDepToHead = BestCell{0, 2, 40.74074};
    all.bestOffset.offset = -1;
    all.bestOffset.accuracy = 40.74;
    ha.relations.push_back(all);
    const auto cells = headAccuracyCells(ha);
    ASSERT_TRUE(cells.has_value());
    EXPECT_EQ(cells->first, "40.7 (1/3)");
    EXPECT_EQ(cells->second, "-1: 40.7");
    EXPECT_FALSE(headAccuracyCells(HeadAccuracyReport{}).has_value());

    AttentionTaskSummary mst;
    mst.best = BestCell{2, 2, 43.0};
    EXPECT_EQ(attentionMstCell(mst), "43.0 (3/3)");
    ConstituentMassReport mass;
    mass.mass = LayerHeadGrid(1, 3, 0.8371);
    mass.baseline = LayerHeadGrid(1, 3, 0.59601);
    AttentionTaskSummary ms;
    ms.best = BestCell{0, 2, 0.24};
    EXPECT_EQ(constituentMassCell(mass, ms), "0.837 / 0.596 (1/3)");
    ms.best = BestCell{};
    EXPECT_EQ(constituentMassCell(mass, ms), "n/a / n/a (1/1)"); // no best head, as the dock always showed it

    LinkProbabilityReport links;
    links.perLayer.resize(2);
    links.perLayer[0].mean = 0.5151;
    links.perLayer[0].spearman = 0.0712;
    links.perLayer[1].mean = 1.0;
    links.perLayer[1].spearman = kNaN;
    EXPECT_EQ(linkProbabilityCells(links), (std::vector<std::string>{"0.52 (0.07)", "1.00 (n/a)"}));

    ProbeRunInduction ind;
    ind.report.all.right.sentenceF1 = 75.0;
    ind.report.all.right.corpusF1 = 200.0 / 3.0;
    ind.report.upTo10.right.sentenceF1 = 75.0;
    ind.applicable = false;
    EXPECT_FALSE(inductionCells(ind, "model").has_value());
    EXPECT_EQ(inductionCells(ind, "right_branching")->f1, "75.0 / 66.7");
    EXPECT_TRUE(inductionStartLayerCells(ind).empty());
}

TEST(ProbeCompare, MarkdownTablesAsTheScriptPrintedThem)
{
    std::vector<ProbeRunReport> tree = read("tiny-tree.json"), induction = read("tiny-tree-induction.json"),
                                plain = read("tiny-plain.json");
    ASSERT_EQ(tree.size(), 1u);
    ASSERT_EQ(induction.size(), 1u);
    ASSERT_EQ(plain.size(), 1u);
    // tree=tiny-tree.json+tiny-tree-induction.json: the second run's tasks replace the first's.
    mergeProbeReport(tree[0], induction[0]);
    EXPECT_EQ(tree[0].data.split, "seeded 0.8/0.1/0.1 seed=1"); // the first file's data
    EXPECT_EQ(tree[0].induction->scope, "test split");         // the second file's task
    EXPECT_EQ(probeTablesMarkdown({{"tree", tree[0]}, {"plain", plain[0]}}), expected("tables-named.md"));

    std::vector<NamedProbeReport> models;
    for (auto &r : read("tiny-models.json"))
        models.push_back({r.model.name, std::move(r)});
    ASSERT_EQ(models.size(), 2u);
    EXPECT_EQ(probeTablesMarkdown(models), expected("tables-export.md"));
}

TEST(ProbeCompare, AReportWithoutATaskShowsADash)
{
    std::vector<ProbeRunReport> tree = read("tiny-tree.json"), given = read("tiny-given.json");
    ASSERT_FALSE(tree.empty() || given.empty());
    const std::string md = probeTablesMarkdown({{"tree", tree[0]}, {"given", given[0]}});
    // tiny-given has no sentlen-bins: four dashes in its columns.
    EXPECT_NE(md.find("| SentLen, 6 bins (acc.) | 100.0 (embeddings) | 100.0 (embeddings) | 0.0 | 100.0 (2) | — | — | — | — | "
                      "100.0 |"),
              std::string::npos)
        << md;
    // tiny-given pooled the mean only: no [CLS] column value.
    EXPECT_NE(md.find("| — |"), std::string::npos);
}
