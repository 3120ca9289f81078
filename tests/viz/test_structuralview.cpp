// The structural-probe and unsupervised-parsing views of the probing results
// (issue 6), offscreen, on hand-built results: the worst-first order, the edge
// and bracket colouring decisions and the heatmap cells are checked against
// values worked out by hand for 5-word sentences; the layer combo starts at the
// best layer; a model without a constituent prior shows n/a; exports write
// PNG/SVG/PDF. The last tests grab both views with realistic sentences (PNG
// files in $TREELENS_UI_SHOTS when set, for looking at them).
#include <cmath>
#include <functional>
#include <map>
#include <memory>

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QListWidget>
#include <QPainter>
#include <QTemporaryDir>

#include <gtest/gtest.h>

#include "core/probing/probes.h"
#include "viz/inductionview.h"
#include "viz/structuralview.h"
#include "viz/qcustomplot.h"
#include "viz/viewexport.h"

using namespace treelens;

namespace {

/// The application of this test binary (on the heap: a static QApplication crashes at exit).
QApplication &app()
{
    static int argc = 1;
    static char arg0[] = "treelens_viz_probing_tests";
    static char *argv[] = {arg0, nullptr};
    static QApplication *a = [] {
        if (auto *existing = qobject_cast<QApplication *>(QCoreApplication::instance()))
            return existing;
        return new QApplication(argc, argv);
    }();
    return *a;
}

using Spans = std::vector<std::pair<int, int>>;

Sentence makeSentence(const std::string &id, const std::vector<std::string> &words, const std::vector<std::string> &upos,
                      const std::vector<int> &heads)
{
    Sentence s;
    s.id = id;
    for (std::size_t i = 0; i < words.size(); ++i) {
        Token t;
        t.text = words[i];
        t.upos = upos[i];
        s.tokens.push_back(t);
        s.text += (i ? " " : "") + words[i];
    }
    DependencyTree tree;
    tree.heads = heads;
    tree.deprels.assign(heads.size(), "dep");
    s.dependency = tree;
    return s;
}

// "The cat sat down ." — heads The→cat, cat→sat, sat=root, down→sat, .→sat.
Sentence catSentence()
{
    return makeSentence("cat", {"The", "cat", "sat", "down", "."}, {"DET", "NOUN", "VERB", "ADV", "PUNCT"}, {2, 3, 0, 3, 3});
}
Sentence dogSentence()
{
    return makeSentence("dog", {"A", "dog", "ran", "away", "."}, {"DET", "NOUN", "VERB", "ADV", "PUNCT"}, {2, 3, 0, 3, 3});
}

// Tree distances of both sentences, worked out by hand from the heads above.
const std::vector<int> kGold = {
    0, 1, 2, 3, 3, //
    1, 0, 1, 2, 2, //
    2, 1, 0, 1, 1, //
    3, 2, 1, 0, 2, //
    3, 2, 1, 2, 0,
};
// Hand-made predictions; (0,2) = 0.5 and (2,0) = 0.7 differ on purpose to check
// which way round the heatmap is drawn (row i = first word, column j = second).
const std::vector<float> kPredicted = {
    0.0f, 0.9f, 0.5f, 2.8f, 3.1f, //
    0.9f, 0.0f, 1.4f, 2.2f, 2.0f, //
    0.7f, 1.4f, 0.0f, 1.1f, 0.8f, //
    2.8f, 2.2f, 1.1f, 0.0f, 1.9f, //
    3.1f, 2.0f, 0.8f, 1.9f, 0.0f,
};

StructuralSentenceResult distanceResult(int sentence, const Spans &predictedEdges, int correct, double rho)
{
    StructuralSentenceResult r;
    r.sentence = sentence;
    r.length = 5;
    r.gold = kGold;
    r.predicted = kPredicted;
    r.goldEdges = {{0, 1}, {1, 2}, {2, 3}};
    r.predictedEdges = predictedEdges;
    r.correctEdges = correct;
    r.spearman = rho;
    r.loss = 0.25;
    return r;
}

std::shared_ptr<ProbeRunStructural> smallDistanceRun()
{
    auto run = std::make_shared<ProbeRunStructural>();
    run->kind = StructuralProbeKind::Distance;
    run->bestLayer = 2;
    run->sentences = {dogSentence(), catSentence()};
    const Spans all = {{0, 1}, {1, 2}, {2, 3}};
    const Spans twoOfThree = {{0, 1}, {0, 2}, {2, 3}}; // (0,2) wrong, (1,2) missed
    const Spans oneOfThree = {{0, 2}, {0, 3}, {2, 3}};
    run->byLayer[0] = {distanceResult(0, oneOfThree, 1, 0.3), distanceResult(1, twoOfThree, 2, 0.4)};
    run->byLayer[2] = {distanceResult(0, all, 3, 0.9), distanceResult(1, twoOfThree, 2, 0.5)};
    run->byLayer[4] = {distanceResult(0, all, 3, 0.8), distanceResult(1, all, 3, 0.7)};
    return run;
}

std::shared_ptr<ProbeRunStructural> smallDepthRun()
{
    auto run = std::make_shared<ProbeRunStructural>();
    run->kind = StructuralProbeKind::Depth;
    run->bestLayer = 1;
    run->sentences = {dogSentence(), catSentence()};
    StructuralSentenceResult good;
    good.sentence = 0;
    good.length = 5;
    good.gold = {2, 1, 0, 1, 1};
    good.predicted = {2.1f, 1.2f, 0.2f, 0.9f, 1.1f};
    good.goldRoot = 2;
    good.predictedRoot = 2;
    good.spearman = 0.9;
    StructuralSentenceResult bad = good;
    bad.sentence = 1;
    // "cat" (0.4) is the non-punctuation word of smallest predicted depth: the
    // "." (0.3) is lower but excluded.
    bad.predicted = {1.8f, 0.4f, 0.9f, 1.2f, 0.3f};
    bad.predictedRoot = 1;
    bad.spearman = 0.6;
    run->byLayer[1] = {good, bad};
    run->byLayer[3] = {good, good};
    return run;
}

double barValue(QCPBars *bars, double key)
{
    auto it = bars->data()->findBegin(key, false);
    return it != bars->data()->constEnd() && it->key == key ? it->value : std::nan("");
}

} // namespace

// ---------------------------------------------------------------------------
// Pure helpers

TEST(StructuralViewLogic, ClassifiesEdgesIntoCorrectWrongMissed)
{
    // gold 0-1, 1-2, 2-3; predicted 0-1, 0-2 and 3-2 (the same edge as 2-3).
    const EdgeClasses c = classifyEdges({{0, 1}, {1, 2}, {2, 3}}, {{0, 1}, {0, 2}, {3, 2}});
    EXPECT_EQ(c.correct, (Spans{{0, 1}, {2, 3}}));
    EXPECT_EQ(c.wrong, (Spans{{0, 2}}));
    EXPECT_EQ(c.missed, (Spans{{1, 2}}));
    const EdgeClasses none = classifyEdges({}, {});
    EXPECT_TRUE(none.correct.empty() && none.wrong.empty() && none.missed.empty());
}

TEST(StructuralViewLogic, DistanceWorstFirstByEdgeAccuracyThenSpearman)
{
    auto r = [](int correct, int gold, double rho) {
        StructuralSentenceResult x;
        x.correctEdges = correct;
        x.goldEdges.assign(static_cast<std::size_t>(gold), {0, 1});
        x.spearman = rho;
        return x;
    };
    const double nan = std::nan("");
    // accuracies .75 .25 .75 1 1(no edges); by hand: 1 (.25), 2 (.75, ρ .2), 0 (.75, ρ .5),
    // 4 (1, ρ .1), 3 (1, ρ undefined last).
    const std::vector<StructuralSentenceResult> results = {r(3, 4, 0.5), r(1, 4, 0.9), r(3, 4, 0.2), r(4, 4, nan),
                                                           r(0, 0, 0.1)};
    EXPECT_EQ(structuralWorstFirst(StructuralProbeKind::Distance, results), (std::vector<int>{1, 2, 0, 4, 3}));
}

TEST(StructuralViewLogic, DepthWorstFirstByRootThenSpearman)
{
    auto r = [](bool rootOk, double rho) {
        StructuralSentenceResult x;
        x.goldRoot = 2;
        x.predictedRoot = rootOk ? 2 : 1;
        x.spearman = rho;
        return x;
    };
    // wrong roots first (2: ρ .1, 1: ρ .8), then 4 (.2), 0 (.3), 3 (undefined).
    const std::vector<StructuralSentenceResult> results = {r(true, 0.3), r(false, 0.8), r(false, 0.1),
                                                           r(true, std::nan("")), r(true, 0.2)};
    EXPECT_EQ(structuralWorstFirst(StructuralProbeKind::Depth, results), (std::vector<int>{2, 1, 4, 0, 3}));
    EXPECT_EQ(structuralLayerName(0), QStringLiteral("Embeddings"));
    EXPECT_EQ(structuralLayerName(3), QStringLiteral("Layer 3"));
}

TEST(InductionViewLogic, BracketsLevelsAndOrder)
{
    // 5 words: the whole sentence (0,5) and the one-word (1,2) are not scored.
    EXPECT_EQ(scoredBrackets({{2, 4}, {0, 5}, {1, 2}, {0, 2}, {0, 2}}, 5), (Spans{{0, 2}, {2, 4}}));
    const EdgeClasses c = classifyBrackets({{0, 2}, {2, 5}, {3, 5}}, {{0, 2}, {2, 4}, {0, 5}, {1, 2}}, 5);
    EXPECT_EQ(c.correct, (Spans{{0, 2}}));
    EXPECT_EQ(c.wrong, (Spans{{2, 4}}));
    EXPECT_EQ(c.missed, (Spans{{2, 5}, {3, 5}}));
    // (2,5) contains (3,5); (0,5) contains everything.
    EXPECT_EQ(spanLevels({{0, 2}, {2, 5}, {3, 5}, {0, 5}}), (std::vector<int>{0, 1, 0, 2}));
    EXPECT_EQ(inductionWorstFirst({50, 20, 50, 20}), (std::vector<int>{1, 3, 0, 2}));
}

// ---------------------------------------------------------------------------
// StructuralView

TEST(StructuralView, DistanceProbeListHeatmapsAndArcs)
{
    app();
    StructuralView view;
    view.resize(1200, 800);
    view.setResult(smallDistanceRun());

    ASSERT_EQ(view.layerCombo()->count(), 3);
    EXPECT_EQ(view.layerCombo()->itemText(0), QStringLiteral("Embeddings"));
    EXPECT_EQ(view.layerCombo()->itemText(1), QStringLiteral("Layer 2 (best)"));
    EXPECT_EQ(view.layerCombo()->itemText(2), QStringLiteral("Layer 4"));
    EXPECT_EQ(view.layer(), 2);
    EXPECT_EQ(view.layerCombo()->currentData().toInt(), 2);

    // Layer 2: the cat sentence (2/3) before the dog (3/3).
    EXPECT_EQ(view.rowOrder(), (std::vector<int>{1, 0}));
    ASSERT_EQ(view.sentenceList()->count(), 2);
    EXPECT_EQ(view.sentenceList()->item(0)->text(), QStringLiteral("2/3 edges · ρ 0.50 · The cat sat down ."));
    EXPECT_EQ(view.sentenceList()->item(1)->text(), QStringLiteral("3/3 edges · ρ 0.90 · A dog ran away ."));
    EXPECT_EQ(view.selectedRow(), 0);
    EXPECT_EQ(view.selectedSentence(), 1);
    EXPECT_TRUE(view.summaryLabel()->text().contains(QStringLiteral("5/6")));

    // Arcs: (0,2) wrong, (1,2) missed; "." greyed.
    const EdgeClasses &edges = view.arcView()->edges();
    EXPECT_EQ(edges.correct, (Spans{{0, 1}, {2, 3}}));
    EXPECT_EQ(edges.wrong, (Spans{{0, 2}}));
    EXPECT_EQ(edges.missed, (Spans{{1, 2}}));
    EXPECT_EQ(view.arcView()->punctuation(), (std::vector<char>{0, 0, 0, 0, 1}));
    EXPECT_EQ(view.arcView()->words(), (std::vector<std::string>{"The", "cat", "sat", "down", "."}));

    // Heatmaps: cell(key = column j, value = row i).
    QCPColorMapData *gold = view.goldMap()->data();
    QCPColorMapData *pred = view.predictedMap()->data();
    ASSERT_EQ(gold->keySize(), 5);
    ASSERT_EQ(pred->valueSize(), 5);
    EXPECT_EQ(gold->cell(3, 0), 3.0); // d(The, down)
    EXPECT_EQ(gold->cell(4, 3), 2.0); // d(down, .)
    EXPECT_EQ(gold->cell(2, 2), 0.0);
    EXPECT_NEAR(pred->cell(2, 0), 0.5, 1e-6); // row The, column sat
    EXPECT_NEAR(pred->cell(0, 2), 0.7, 1e-6); // row sat, column The
    EXPECT_NEAR(pred->cell(3, 1), 2.2, 1e-6);
    // One colour scale for both: 0 .. the largest value of either matrix (3.1).
    EXPECT_EQ(view.colorScale()->dataRange().lower, 0.0);
    EXPECT_NEAR(view.colorScale()->dataRange().upper, 3.1, 1e-6);
    EXPECT_EQ(view.goldMap()->colorScale(), view.predictedMap()->colorScale());

    // Changing layer keeps the sentence: layer 0 lists dog (1/3) first, cat second.
    view.setLayer(0);
    EXPECT_EQ(view.layer(), 0);
    EXPECT_EQ(view.layerCombo()->currentText(), QStringLiteral("Embeddings"));
    EXPECT_EQ(view.rowOrder(), (std::vector<int>{0, 1}));
    EXPECT_EQ(view.selectedRow(), 1);
    EXPECT_EQ(view.selectedSentence(), 1);
    view.setLayer(7); // not probed: ignored
    EXPECT_EQ(view.layer(), 0);
    // The combo drives the view.
    view.layerCombo()->setCurrentIndex(2);
    EXPECT_EQ(view.layer(), 4);
    view.selectSentence(1);
    EXPECT_EQ(view.arcView()->edges().wrong.size(), 0u);
    EXPECT_EQ(view.arcView()->edges().missed.size(), 0u);

    int opened = -1;
    QObject::connect(&view, &StructuralView::openSentence, [&](int s) { opened = s; });
    view.setLayer(2);
    view.activateSentence(0);
    EXPECT_EQ(opened, 1);
    view.activateSentence(1);
    EXPECT_EQ(opened, 0);

    view.setResult(nullptr);
    EXPECT_EQ(view.layerCombo()->count(), 0);
    EXPECT_EQ(view.sentenceList()->count(), 0);
    EXPECT_EQ(view.layer(), -1);
    EXPECT_TRUE(view.exportSize().isEmpty());
    QTemporaryDir dir;
    QString error;
    EXPECT_FALSE(view.exportPlots(dir.filePath(QStringLiteral("none.png")), &error));
    EXPECT_FALSE(error.isEmpty());
}

TEST(StructuralView, BestLayerNotProbedFallsBackToFirst)
{
    app();
    auto run = smallDistanceRun();
    run->bestLayer = 9;
    StructuralView view;
    view.setResult(run);
    EXPECT_EQ(view.layer(), 0);
    for (int i = 0; i < view.layerCombo()->count(); ++i)
        EXPECT_FALSE(view.layerCombo()->itemText(i).contains(QStringLiteral("best")));
}

TEST(StructuralView, DepthProbeMarksTheRoots)
{
    app();
    StructuralView view;
    view.resize(1000, 700);
    view.setResult(smallDepthRun());
    EXPECT_EQ(view.layer(), 1);
    EXPECT_EQ(view.layerCombo()->currentText(), QStringLiteral("Layer 1 (best)"));
    EXPECT_EQ(view.rowOrder(), (std::vector<int>{1, 0}));
    EXPECT_EQ(view.sentenceList()->item(0)->text(), QStringLiteral("root wrong · ρ 0.60 · The cat sat down ."));
    EXPECT_EQ(view.sentenceList()->item(1)->text(), QStringLiteral("root ok · ρ 0.90 · A dog ran away ."));
    EXPECT_EQ(view.currentPlot(), view.depthPlot());

    auto *goldBars = qobject_cast<QCPBars *>(view.depthPlot()->plottable(0));
    auto *predBars = qobject_cast<QCPBars *>(view.depthPlot()->plottable(1));
    ASSERT_TRUE(goldBars && predBars);
    EXPECT_EQ(goldBars->data()->size(), 5);
    EXPECT_EQ(barValue(goldBars, 0), 2.0);
    EXPECT_EQ(barValue(goldBars, 2), 0.0);
    EXPECT_NEAR(barValue(predBars, 1), 0.4, 1e-6);
    EXPECT_NEAR(barValue(predBars, 4), 0.3, 1e-6);
    // Markers: the gold root over "sat" (2), the predicted one over "cat" (1), in red.
    ASSERT_EQ(view.depthPlot()->graph(0)->data()->size(), 1);
    ASSERT_EQ(view.depthPlot()->graph(1)->data()->size(), 1);
    EXPECT_EQ(view.depthPlot()->graph(0)->data()->begin()->key, 2.0);
    EXPECT_EQ(view.depthPlot()->graph(1)->data()->begin()->key, 1.0);
    EXPECT_EQ(view.depthPlot()->graph(1)->scatterStyle().brush().color(), QColor(214, 39, 40));
    const QString subtitle = view.depthSubtitle()->text();
    EXPECT_TRUE(subtitle.contains(QStringLiteral("root wrong"))) << subtitle.toStdString();
    EXPECT_TRUE(subtitle.contains(QStringLiteral("“sat”")) && subtitle.contains(QStringLiteral("“cat”")));

    view.selectSentence(1); // the dog: root correct, marker green
    EXPECT_TRUE(view.depthSubtitle()->text().startsWith(QStringLiteral("root correct")));
    EXPECT_EQ(view.depthPlot()->graph(1)->scatterStyle().brush().color(), QColor(26, 135, 60));
}

// ---------------------------------------------------------------------------
// InductionView

namespace {

InductionScore score(double sentenceF1, double corpusF1, std::size_t n, std::vector<double> per = {})
{
    InductionScore s;
    s.sentenceF1 = sentenceF1;
    s.corpusF1 = corpusF1;
    s.sentences = n;
    s.perSentence = std::move(per);
    return s;
}

std::shared_ptr<ProbeRunInduction> smallInduction(bool applicable)
{
    auto run = std::make_shared<ProbeRunInduction>();
    run->applicable = applicable;
    run->sentenceIds = {"s1", "s2", "s3"};
    run->words = {{"the", "cat", "sat", "down", "here"},
                  {"a", "dog", "ran", "far", "away"},
                  {"w1", "w2", "w3", "w4", "w5", "w6", "w7", "w8", "w9", "w10", "w11", "w12"}};
    run->gold = {{{0, 2}, {2, 5}}, {{0, 2}, {2, 5}, {3, 5}}, {{0, 2}, {2, 12}}};
    InductionSplit &all = run->report.all;
    InductionSplit &upTo10 = run->report.upTo10;
    all.left = score(10, 12, 3);
    all.right = score(40, 38, 3);
    all.random = score(20, 21, 3);
    upTo10.left = score(11, 13, 2);
    upTo10.right = score(45, 44, 2);
    upTo10.random = score(25, 24, 2);
    if (applicable) {
        run->predicted = {{{0, 2}, {3, 5}}, {{0, 2}, {2, 4}, {0, 5}, {1, 2}}, {{0, 2}, {2, 12}}};
        all.model = score(73.3, 70.0, 3, {80.0, 40.0, 100.0});
        upTo10.model = score(60.0, 58.0, 2, {80.0, 40.0});
        run->report.config.startLayer = 3;
        run->report.byStartLayer = {{2, score(50, 48, 3), score(52, 50, 2)},
                                    {3, score(73.3, 70, 3), score(60, 58, 2)},
                                    {4, score(65, 61, 3), score(55, 54, 2)}};
    } else {
        run->reason = "the encoder has no constituent prior";
    }
    return run;
}

double graphValue(QCPGraph *g, double key)
{
    for (auto it = g->data()->constBegin(); it != g->data()->constEnd(); ++it)
        if (it->key == key)
            return it->value;
    return std::nan("");
}

} // namespace

TEST(InductionView, NotApplicableShowsReasonAndBaselinesOnly)
{
    app();
    InductionView view;
    view.resize(1000, 700);
    view.setResult(smallInduction(false));
    EXPECT_TRUE(view.statusLabel()->text().contains(QStringLiteral("n/a")));
    EXPECT_TRUE(view.statusLabel()->text().contains(QStringLiteral("no constituent prior")));
    EXPECT_TRUE(view.chartTitle()->text().contains(QStringLiteral("n/a")));
    EXPECT_EQ(view.chart()->graphCount(), 0);
    ASSERT_EQ(view.chart()->plottableCount(), 2); // sentence F1 and corpus F1 bars
    auto *sentenceBars = qobject_cast<QCPBars *>(view.chart()->plottable(0));
    ASSERT_TRUE(sentenceBars);
    EXPECT_EQ(barValue(sentenceBars, 1), 10.0); // left-branching
    EXPECT_EQ(barValue(sentenceBars, 2), 40.0); // right-branching
    EXPECT_EQ(barValue(sentenceBars, 3), 20.0); // random
    // No model scores: input order, gold brackets only.
    EXPECT_EQ(view.rowOrder(), (std::vector<int>{0, 1, 2}));
    EXPECT_TRUE(view.sentenceList()->item(0)->text().startsWith(QStringLiteral("s1 · the cat")));
    EXPECT_EQ(view.bracketView()->gold(), (Spans{{0, 2}, {2, 5}}));
    EXPECT_TRUE(view.bracketView()->brackets().correct.empty());
    EXPECT_TRUE(view.bracketView()->brackets().wrong.empty());
    EXPECT_TRUE(view.bracketView()->brackets().missed.empty());
}

TEST(InductionView, ChartListAndBrackets)
{
    app();
    InductionView view;
    view.resize(1000, 700);
    view.setResult(smallInduction(true));
    EXPECT_EQ(view.configuredStartLayer(), 3);
    // Model sentence F1, model corpus F1 and three baseline lines.
    ASSERT_EQ(view.chart()->graphCount(), 5);
    EXPECT_EQ(view.chart()->graph(0)->data()->size(), 3);
    EXPECT_EQ(graphValue(view.chart()->graph(0), 4), 65.0);
    EXPECT_EQ(graphValue(view.chart()->graph(1), 4), 61.0);
    EXPECT_EQ(view.chart()->graph(3)->data()->begin()->value, 40.0); // right-branching, sentence F1
    EXPECT_TRUE(view.chart()->graph(3)->name().startsWith(QStringLiteral("right-branching")));

    // Worst first: s2 (40), s1 (80), s3 (100).
    EXPECT_EQ(view.rowOrder(), (std::vector<int>{1, 0, 2}));
    EXPECT_TRUE(view.sentenceList()->item(0)->text().startsWith(QStringLiteral("F1 40.0 · a dog ran")));
    EXPECT_EQ(view.selectedSentence(), 1);
    const EdgeClasses &b = view.bracketView()->brackets();
    EXPECT_EQ(b.correct, (Spans{{0, 2}}));
    EXPECT_EQ(b.wrong, (Spans{{2, 4}}));
    EXPECT_EQ(b.missed, (Spans{{2, 5}, {3, 5}}));

    int opened = -1;
    QObject::connect(&view, &InductionView::openSentence, [&](int i) { opened = i; });
    view.activateSentence(2);
    EXPECT_EQ(opened, 2);

    // ≤ 10 words: the chart's upTo10 numbers and the two short sentences.
    view.shortToggle()->setChecked(true);
    EXPECT_TRUE(view.shortSentences());
    EXPECT_TRUE(view.chartTitle()->text().contains(QStringLiteral("≤ 10")));
    EXPECT_EQ(graphValue(view.chart()->graph(0), 4), 55.0);
    EXPECT_EQ(view.chart()->graph(3)->data()->begin()->value, 45.0);
    EXPECT_EQ(view.rowOrder(), (std::vector<int>{1, 0}));
    EXPECT_EQ(view.selectedSentence(), 1); // kept

    view.setResult(nullptr);
    EXPECT_EQ(view.sentenceList()->count(), 0);
    EXPECT_TRUE(view.exportSize().isEmpty());
}

// ---------------------------------------------------------------------------
// Exports

TEST(StructuralAndInductionViews, ExportPngSvgPdf)
{
    app();
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    StructuralView distance;
    distance.setResult(smallDistanceRun());
    StructuralView depth;
    depth.setResult(smallDepthRun());
    InductionView induction;
    induction.setResult(smallInduction(true));
    InductionView baselines;
    baselines.setResult(smallInduction(false));
    auto check = [&](const QString &name, const std::function<bool(const QString &)> &write) {
        for (const char *ext : {"png", "svg", "pdf"}) {
            const QString path = dir.filePath(name + QLatin1Char('.') + QLatin1String(ext));
            ASSERT_TRUE(write(path)) << path.toStdString();
            QFile f(path);
            ASSERT_TRUE(f.open(QIODevice::ReadOnly)) << path.toStdString();
            const QByteArray bytes = f.readAll();
            EXPECT_GT(bytes.size(), 500) << path.toStdString();
            if (QLatin1String(ext) == QLatin1String("svg")) {
                EXPECT_TRUE(bytes.contains("<svg")) << path.toStdString();
            } else if (QLatin1String(ext) == QLatin1String("pdf")) {
                EXPECT_TRUE(bytes.startsWith("%PDF")) << path.toStdString();
            } else {
                EXPECT_FALSE(QImage(path).isNull()) << path.toStdString();
            }
        }
    };
    QString error;
    check(QStringLiteral("distance"), [&](const QString &p) { return distance.exportPlots(p, &error, 96); });
    check(QStringLiteral("depth"), [&](const QString &p) { return depth.exportPlots(p, &error, 96); });
    check(QStringLiteral("induction"), [&](const QString &p) { return induction.exportPlots(p, &error, 96); });
    check(QStringLiteral("baselines"), [&](const QString &p) { return baselines.exportPlots(p, &error, 96); });
    check(QStringLiteral("arcs"), [&](const QString &p) { return exportView(*distance.arcView(), p, 96).ok(); });
    check(QStringLiteral("brackets"), [&](const QString &p) { return exportView(*induction.bracketView(), p, 96).ok(); });
    EXPECT_FALSE(distance.exportPlots(dir.filePath(QStringLiteral("x.bmp")), &error));
    EXPECT_TRUE(error.contains(QStringLiteral("unknown export format")));

    // The exported distance figure has both heatmaps' colours and the arcs: not blank.
    const QImage image(dir.filePath(QStringLiteral("distance.png")));
    int coloured = 0;
    for (int y = 0; y < image.height(); y += 3)
        for (int x = 0; x < image.width(); x += 3)
            if (QColor(image.pixel(x, y)).saturation() > 80)
                ++coloured;
    EXPECT_GT(coloured, 200);
}

// ---------------------------------------------------------------------------
// Realistic sentences, grabbed for a look

namespace {

struct RealSentence {
    std::vector<std::string> words, upos;
    std::vector<int> heads;
};

const std::vector<RealSentence> &realSentences()
{
    static const std::vector<RealSentence> s = {
        {{"The", "man", "who", "lived", "by", "the", "sea", "saw", "a", "red", "kite", "over", "the", "harbour", "."},
         {"DET", "NOUN", "PRON", "VERB", "ADP", "DET", "NOUN", "VERB", "DET", "ADJ", "NOUN", "ADP", "DET", "NOUN", "PUNCT"},
         {2, 8, 4, 2, 7, 7, 4, 0, 11, 11, 8, 14, 14, 8, 8}},
        {{"She", "gave", "the", "old", "dog", "a", "bone", "from", "the", "kitchen", "table", "yesterday", "."},
         {"PRON", "VERB", "DET", "ADJ", "NOUN", "DET", "NOUN", "ADP", "DET", "NOUN", "NOUN", "NOUN", "PUNCT"},
         {2, 0, 5, 5, 2, 7, 2, 11, 11, 11, 7, 2, 2}},
        {{"Investors", "sold", "shares", "after", "the", "report", "showed", "weak", "growth", "in", "March", "."},
         {"NOUN", "VERB", "NOUN", "SCONJ", "DET", "NOUN", "VERB", "ADJ", "NOUN", "ADP", "PROPN", "PUNCT"},
         {2, 0, 2, 7, 6, 7, 2, 9, 7, 11, 9, 2}},
        {{"Children", "in", "the", "park", "played", "with", "a", "small", "ball", "until", "dark", "."},
         {"NOUN", "ADP", "DET", "NOUN", "VERB", "ADP", "DET", "ADJ", "NOUN", "ADP", "NOUN", "PUNCT"},
         {5, 4, 4, 1, 0, 9, 9, 9, 5, 11, 5, 5}},
    };
    return s;
}

/// Deterministic noise in [-1, 1] for an unordered pair.
double noise(int i, int j, int seed)
{
    const unsigned a = static_cast<unsigned>(std::min(i, j)), b = static_cast<unsigned>(std::max(i, j));
    unsigned h = a * 73856093u ^ b * 19349663u ^ static_cast<unsigned>(seed) * 83492791u;
    h ^= h >> 13;
    h *= 0x5bd1e995u;
    h ^= h >> 15;
    return (h % 2001u) / 1000.0 - 1.0;
}

std::shared_ptr<ProbeRunStructural> realisticRun(StructuralProbeKind kind)
{
    auto run = std::make_shared<ProbeRunStructural>();
    run->kind = kind;
    run->bestLayer = 4;
    for (std::size_t k = 0; k < realSentences().size(); ++k) {
        const auto &r = realSentences()[k];
        run->sentences.push_back(makeSentence("wsj-" + std::to_string(k + 1), r.words, r.upos, r.heads));
    }
    const std::map<int, double> noiseByLayer = {{0, 1.6}, {2, 1.0}, {4, 0.55}, {6, 0.8}};
    for (const auto &[layer, level] : noiseByLayer) {
        std::vector<StructuralSentenceResult> results;
        for (std::size_t k = 0; k < run->sentences.size(); ++k) {
            const Sentence &s = run->sentences[k];
            const DependencyTree &tree = *s.dependency;
            const int n = static_cast<int>(s.tokens.size());
            std::vector<char> punct;
            for (const auto &t : s.tokens)
                punct.push_back(isPunctuationToken(t) ? 1 : 0);
            StructuralSentenceResult r;
            r.sentence = static_cast<int>(k);
            r.length = n;
            const double sentenceLevel = level * (0.6 + 0.3 * static_cast<double>(k));
            if (kind == StructuralProbeKind::Distance) {
                r.gold = tree.distanceMatrix();
                r.predicted.resize(r.gold.size());
                std::vector<float> goldF(r.gold.begin(), r.gold.end());
                double loss = 0.0;
                for (int i = 0; i < n; ++i)
                    for (int j = 0; j < n; ++j) {
                        const std::size_t c = static_cast<std::size_t>(i * n + j);
                        const double d = i == j ? 0.0 : std::max(0.0, 0.9 * r.gold[c] + sentenceLevel * noise(i, j, layer + 7 * static_cast<int>(k)));
                        r.predicted[c] = static_cast<float>(d);
                        loss += std::abs(d - r.gold[c]);
                    }
                r.loss = loss / (n * n);
                r.goldEdges = minimumSpanningTree(goldF, n, punct);
                r.predictedEdges = minimumSpanningTree(r.predicted, n, punct);
                r.correctEdges = static_cast<int>(classifyEdges(r.goldEdges, r.predictedEdges).correct.size());
                double sum = 0.0;
                int rows = 0;
                for (int i = 0; i < n; ++i) {
                    std::vector<double> g, p;
                    for (int j = 0; j < n; ++j) {
                        g.push_back(r.gold[static_cast<std::size_t>(i * n + j)]);
                        p.push_back(r.predicted[static_cast<std::size_t>(i * n + j)]);
                    }
                    const double rho = spearman(p, g);
                    if (std::isfinite(rho)) {
                        sum += rho;
                        ++rows;
                    }
                }
                r.spearman = rows ? sum / rows : std::nan("");
            } else {
                std::vector<double> g, p;
                double best = 1e9, loss = 0.0;
                for (int i = 0; i < n; ++i) {
                    const int depth = tree.depthOf(i);
                    r.gold.push_back(depth);
                    double d = std::max(0.0, depth + 0.8 * sentenceLevel * noise(i, i, layer + 3 * static_cast<int>(k)));
                    if (k == 2 && depth == 0)
                        d += 1.2; // the probe misses this sentence's root
                    r.predicted.push_back(static_cast<float>(d));
                    g.push_back(depth);
                    p.push_back(d);
                    loss += std::abs(d - depth);
                    if (depth == 0)
                        r.goldRoot = i;
                    if (!punct[static_cast<std::size_t>(i)] && d < best) {
                        best = d;
                        r.predictedRoot = i;
                    }
                }
                r.loss = loss / n;
                r.spearman = spearman(p, g);
            }
            results.push_back(r);
        }
        run->byLayer[layer] = results;
    }
    return run;
}

std::shared_ptr<ProbeRunInduction> realisticInduction()
{
    auto run = std::make_shared<ProbeRunInduction>();
    run->sentenceIds = {"wsj-1", "wsj-2", "wsj-3", "wsj-4"};
    run->words = {{"the", "man", "who", "lived", "by", "the", "sea", "saw", "a", "red", "kite", "over", "the", "harbour"},
                  {"she", "gave", "the", "old", "dog", "a", "bone", "from", "the", "kitchen", "table", "yesterday"},
                  {"investors", "sold", "shares", "after", "the", "report", "showed", "weak", "growth", "in", "march"},
                  {"children", "in", "the", "park", "played", "with", "a", "small", "ball"}};
    run->gold = {{{0, 7}, {0, 2}, {2, 7}, {3, 7}, {4, 7}, {5, 7}, {7, 14}, {8, 11}, {11, 14}, {12, 14}},
                 {{1, 12}, {2, 5}, {5, 11}, {5, 7}, {7, 11}, {8, 11}},
                 {{1, 11}, {3, 11}, {4, 6}, {4, 11}, {6, 11}, {7, 11}, {7, 9}, {9, 11}},
                 {{0, 4}, {1, 4}, {2, 4}, {4, 9}, {5, 9}, {6, 9}}};
    run->predicted = {{{0, 2}, {0, 7}, {2, 7}, {2, 4}, {4, 7}, {5, 7}, {7, 11}, {7, 9}, {9, 11}, {11, 14}, {12, 14}},
                      {{0, 2}, {2, 5}, {2, 12}, {5, 7}, {5, 12}, {7, 12}, {8, 11}, {8, 10}},
                      {{0, 3}, {1, 3}, {3, 11}, {4, 6}, {4, 11}, {6, 11}, {7, 9}, {9, 11}},
                      {{0, 2}, {2, 5}, {0, 5}, {5, 9}, {6, 9}, {7, 9}}};
    std::vector<double> per;
    for (std::size_t i = 0; i < run->words.size(); ++i) {
        const int n = static_cast<int>(run->words[i].size());
        const EdgeClasses c = classifyBrackets(run->gold[i], run->predicted[i], n);
        const double p = static_cast<double>(c.correct.size()) / static_cast<double>(c.correct.size() + c.wrong.size());
        const double r = static_cast<double>(c.correct.size()) / static_cast<double>(c.correct.size() + c.missed.size());
        per.push_back(p + r > 0 ? 200.0 * p * r / (p + r) : 0.0);
    }
    InductionReport &rep = run->report;
    rep.config.startLayer = 7;
    const double sentenceF1[] = {31.2, 36.4, 41.0, 44.8, 47.6, 49.5, 46.1, 42.3};
    const double corpusF1[] = {28.0, 33.1, 37.5, 41.0, 43.9, 45.6, 42.8, 39.0};
    for (int l = 2; l <= 9; ++l)
        rep.byStartLayer.push_back({l, score(sentenceF1[l - 2], corpusF1[l - 2], 2416),
                                    score(sentenceF1[l - 2] + 6.0, corpusF1[l - 2] + 5.0, 389)});
    rep.all.model = score(49.5, 45.6, 2416, per);
    rep.all.left = score(8.7, 7.9, 2416);
    rep.all.right = score(39.8, 35.3, 2416);
    rep.all.random = score(21.6, 19.2, 2416);
    rep.upTo10.model = score(55.5, 50.6, 389, {});
    rep.upTo10.left = score(17.4, 15.9, 389);
    rep.upTo10.right = score(56.7, 53.0, 389);
    rep.upTo10.random = score(32.5, 30.1, 389);
    return run;
}

void saveShot(QWidget &w, const QString &name)
{
    w.show();
    QApplication::processEvents();
    for (auto *plot : w.findChildren<QCustomPlot *>())
        plot->replot();
    QApplication::processEvents();
    const QPixmap shot = w.grab();
    EXPECT_FALSE(shot.isNull());
    const QByteArray dir = qgetenv("TREELENS_UI_SHOTS");
    if (!dir.isEmpty()) {
        EXPECT_TRUE(shot.save(QDir(QString::fromLocal8Bit(dir)).filePath(name)));
    }
}

} // namespace

TEST(StructuralView, RealisticScreenshots)
{
    app();
    StructuralView distance;
    distance.resize(1400, 860);
    distance.setResult(realisticRun(StructuralProbeKind::Distance));
    EXPECT_EQ(distance.layer(), 4);
    EXPECT_EQ(distance.sentenceList()->count(), 4);
    saveShot(distance, QStringLiteral("structuralview-distance.png"));

    StructuralView depth;
    depth.resize(1300, 700);
    depth.setResult(realisticRun(StructuralProbeKind::Depth));
    saveShot(depth, QStringLiteral("structuralview-depth.png"));

    InductionView induction;
    induction.resize(1300, 820);
    induction.setResult(realisticInduction());
    EXPECT_EQ(induction.sentenceList()->count(), 4);
    saveShot(induction, QStringLiteral("inductionview.png"));

    auto noPrior = std::make_shared<ProbeRunInduction>(*realisticInduction());
    noPrior->applicable = false;
    noPrior->reason = "the model has no constituent prior (plain Transformer)";
    noPrior->predicted.clear();
    noPrior->report.byStartLayer.clear();
    noPrior->report.all.model = InductionScore{};
    InductionView baselines;
    baselines.resize(1300, 820);
    baselines.setResult(noPrior);
    EXPECT_EQ(baselines.chart()->graphCount(), 0);
    saveShot(baselines, QStringLiteral("inductionview-na.png"));

    const QByteArray dir = qgetenv("TREELENS_UI_SHOTS");
    if (!dir.isEmpty()) {
        const QDir out(QString::fromLocal8Bit(dir));
        EXPECT_TRUE(distance.exportPlots(out.filePath(QStringLiteral("structuralview-distance-export.png")), nullptr, 110));
        EXPECT_TRUE(depth.exportPlots(out.filePath(QStringLiteral("structuralview-depth-export.png")), nullptr, 110));
        EXPECT_TRUE(induction.exportPlots(out.filePath(QStringLiteral("inductionview-export.png")), nullptr, 110));
    }
}
