// The Minimal pairs dock and head ablation in the app (issue 46), driven as a user does:
// pairs made from the open treebank and scored off the GUI thread, checked pair by pair
// against the model run directly (each sentence alone, its pseudo-log-likelihood); a
// Ctrl+click in the heads overview switches a head off for every view and for the pairs,
// with its badge, and one undo brings it back; the sweep's cells equal the same head
// switched off alone, and a click on a cell lists exactly the pairs it flips. With
// TREELENS_SCREENSHOTS=DIR set, the dock and the window are saved there (docs/minimal-pairs.md).
#include <algorithm>
#include <cmath>
#include <memory>

#include <QApplication>
#include <QDockWidget>
#include <QFile>
#include <QFileInfo>
#include <QImage>
#include <QLabel>
#include <QMouseEvent>
#include <QProcess>
#include <QTemporaryDir>
#include <QStatusBar>
#include <QTableWidget>
#include <QUndoStack>

#include "core/base/inputlimits.h"
#include "core/encoders/encoder.h"
#include "core/eval/makepairs.h"
#include "core/eval/minimalpairs.h"
#include "core/eval/minimalpairscoring.h"
#include "core/formats/corpus.h"
#include "viz/qcustomplot.h"
#include "ui/ablationcontrol.h"
#include "ui/mainwindow.h"
#include "ui/minimalpairspanel.h"
#include "viz/attentionoverview.h"
#include "viz/minimalpairview.h"
#include "viz/sweepheatmap.h"
#include "viz/viewexport.h"
#include "testutil.h"
#include "uitestapp.h"

using namespace treelens;
using test::waitFor;

namespace {

std::string maskedLm() { return std::string(TREELENS_SOURCE_DIR) + "/resources/models/transformer-en-small.safetensors"; }
QString treebank() { return QString::fromStdString(std::string(TREELENS_SOURCE_DIR) + "/tests/data/ui/agreement.conllu"); }

/// log p of `text`'s words by the model itself, one sentence at a time (the dock batches 32 pairs).
double directLogprob(Encoder &enc, const std::string &text, const std::vector<HeadAblation> &ablate = {})
{
    AnalyzeOptions o;
    o.attention = false;
    o.pseudoLogLikelihood = true;
    o.ablate = ablate;
    auto r = enc.analyze({EncoderInput{pairWords(text), {}, {}, {}, {}, {}}}, o);
    EXPECT_TRUE(r) << r.message();
    return r && r->front().logprob ? *r->front().logprob : std::nan("");
}

bool waitScored(MinimalPairsPanel *panel, const std::vector<std::pair<int, int>> &ablated)
{
    return waitFor([&] { return !panel->isScoring() && panel->scoring() && panel->scoring()->ablated == ablated; }, 120000);
}

void ctrlClick(AttentionOverview *overview, int layer, int head)
{
    const QPoint at = overview->mapRect(layer, head).center();
    QMouseEvent e(QEvent::MouseButtonPress, QPointF(at), QPointF(overview->plot()->mapToGlobal(at)), Qt::LeftButton,
                  Qt::LeftButton, Qt::ControlModifier);
    QApplication::sendEvent(overview->plot(), &e);
}

void saveScreenshot(QWidget *w, const QString &name)
{
    const QByteArray dir = qgetenv("TREELENS_SCREENSHOTS");
    if (!dir.isEmpty())
        w->grab().save(QString::fromLocal8Bit(dir) + QLatin1Char('/') + name);
}

struct DockFixture {
    MainWindow window;
    MinimalPairsPanel *panel = nullptr;

    bool open()
    {
        window.resize(1600, 1000);
        window.setModelPath(QString::fromStdString(maskedLm()));
        QString error;
        if (!window.openCorpus(treebank(), &error)) {
            ADD_FAILURE() << error.toStdString();
            return false;
        }
        panel = window.minimalPairsPanel();
        if (auto *dock = qobject_cast<QDockWidget *>(panel->parentWidget())) {
            dock->show();
            dock->raise();
        }
        window.show();
        if (!panel->makePairsFromCorpus(QStringLiteral("agreement"), &error)) {
            ADD_FAILURE() << error.toStdString();
            return false;
        }
        return waitScored(panel, {});
    }
};

} // namespace

TEST(MinimalPairsDock, MakesAgreementPairsFromTheOpenTreebankAndScoresEachAsTheModelDoesAlone)
{
    test::uiApp();
    DockFixture f;
    ASSERT_TRUE(f.open());
    MinimalPairsPanel *panel = f.panel;
    // The pairs are the treebank's (make-pairs' rule, hand-checked in test_minimalpairs.cpp): 8 here.
    auto sentences = readCorpusFile(treebank().toStdString(), CorpusFormat::Conllu);
    ASSERT_TRUE(sentences);
    const MadePairs made = makePairs(*sentences, PairPhenomenon::Agreement);
    ASSERT_EQ(panel->pairSet().pairs.size(), made.pairs.size());
    ASSERT_EQ(panel->pairSet().pairs.size(), 8u);
    auto enc = loadEncoder(maskedLm());
    ASSERT_TRUE(enc) << enc.message();
    const PairScoring &s = *panel->scoring();
    EXPECT_EQ(s.score.toStdString(), "pseudo-log-likelihood");
    int correct = 0;
    for (std::size_t i = 0; i < s.rows.size(); ++i) {
        const MinimalPair &p = panel->pairSet().pairs[i];
        EXPECT_NEAR(s.rows[i].goodLogprob, directLogprob(**enc, p.good), 1e-4) << p.good;
        EXPECT_NEAR(s.rows[i].badLogprob, directLogprob(**enc, p.bad), 1e-4) << p.bad;
        correct += s.rows[i].goodLogprob > s.rows[i].badLogprob ? 1 : 0;
    }
    EXPECT_EQ(s.summary.accuracy.hits, correct);
    EXPECT_EQ(s.summary.accuracy.total, 8);
    EXPECT_EQ(panel->pairTable()->rowCount(), 8);
    EXPECT_GE(panel->phenomenonTable()->rowCount(), 2); // (all) and the agreement rows

    // Pair 1 ("The dogs near the house are loud ."): drawn on its treebank tree, word 6 framed.
    panel->pairTable()->setCurrentCell(0, 2);
    const auto &drawn = panel->pairView()->pair();
    ASSERT_TRUE(drawn);
    EXPECT_EQ(drawn->diverge, 5);
    ASSERT_TRUE(drawn->tree);
    EXPECT_EQ(drawn->tree->heads, sentences->front().dependency->heads);
    ASSERT_EQ(drawn->goodSurprisal.size(), 8u);
    ASSERT_EQ(drawn->badSurprisal.size(), 8u);
    EXPECT_TRUE(std::isfinite(drawn->goodSurprisal[5]) && std::isfinite(drawn->badSurprisal[5])); // a masked LM predicts every word
    const QString line = panel->pairView()->divergenceLine();
    EXPECT_TRUE(line.contains(QStringLiteral("“are”")) && line.contains(QStringLiteral("“is”"))) << line.toStdString();
    if (auto *dock = qobject_cast<QDockWidget *>(panel->parentWidget()); dock && !qgetenv("TREELENS_SCREENSHOTS").isEmpty()) {
        dock->setFloating(true);
        dock->resize(1500, 620);
        waitFor([] { return false; }, 300);
    }
    saveScreenshot(panel, QStringLiteral("minimal-pairs-dock.png"));
    QString error;
    const QString png = QString::fromStdString(::testing::TempDir()) + QStringLiteral("/pair.png");
    ASSERT_TRUE(exportView(*panel->pairView(), png, &error, 110)) << error.toStdString();
    if (const QByteArray dir = qgetenv("TREELENS_SCREENSHOTS"); !dir.isEmpty())
        exportView(*panel->pairView(), QString::fromLocal8Bit(dir) + QStringLiteral("/minimal-pair-view.png"), &error, 110);
    EXPECT_FALSE(QImage(png).isNull());
}

TEST(MinimalPairsDock, ACtrlClickInTheHeadsOverviewSwitchesTheHeadOffEverywhereAndOneUndoBringsItBack)
{
    test::uiApp();
    DockFixture f;
    ASSERT_TRUE(f.open());
    MainWindow &w = f.window;
    bool shown = false;
    QObject::connect(&w, &MainWindow::analysisShown, [&](bool) { shown = true; });
    w.analyse(QStringLiteral("The keys to the old cabinet are on the table ."));
    ASSERT_TRUE(waitFor([&] { return shown; }));
    const auto before = w.document()->analysis();
    ASSERT_TRUE(before && before->ablated.empty());
    AttentionOverview *overview = w.overviewView();
    ASSERT_TRUE(overview);
    ASSERT_GE(overview->gridLayers(), 2);

    shown = false;
    ctrlClick(overview, 0, 1); // L1 H2
    ASSERT_TRUE(waitFor([&] { return shown && w.document()->analysis() && !w.document()->analysis()->ablated.empty(); }));
    const auto after = w.document()->analysis();
    EXPECT_EQ(after->ablated, (std::vector<std::pair<int, int>>{{0, 1}}));
    EXPECT_EQ(w.ablation()->undoStack()->count(), 1);
    // The badge: in the status bar, on the overview (its title and the crossed-out map), on the trees.
    auto labels = w.statusBar()->findChildren<QLabel *>();
    EXPECT_TRUE(std::any_of(labels.begin(), labels.end(), [](QLabel *l) {
        return l->isVisible() && l->text() == QStringLiteral("L1 H2 ablated");
    }));
    EXPECT_TRUE(w.overviewView()->titleLines().join(' ').contains(QStringLiteral("L1 H2 ablated")));
    EXPECT_TRUE(w.overviewView()->isAblated(0, 1));
    EXPECT_FALSE(w.overviewView()->isAblated(0, 0));
    // Switching a first-layer head off changes what the later layers attend to.
    const int last = static_cast<int>(after->attention.size()) - 1;
    const Matrix &a = after->attention[static_cast<std::size_t>(last)][0], &b = before->attention[static_cast<std::size_t>(last)][0];
    ASSERT_EQ(a.data.size(), b.data.size());
    double moved = 0.0;
    for (std::size_t k = 0; k < a.data.size(); ++k)
        moved = std::max(moved, static_cast<double>(std::abs(a.data[k] - b.data[k])));
    EXPECT_GT(moved, 1e-6);
    // The pairs are scored again without the head, as the model does it alone with --ablate 1.2.
    ASSERT_TRUE(waitScored(f.panel, {{0, 1}}));
    auto enc = loadEncoder(maskedLm());
    ASSERT_TRUE(enc);
    const MinimalPair &p = f.panel->pairSet().pairs[1];
    EXPECT_NEAR(f.panel->scoring()->rows[1].goodLogprob, directLogprob(**enc, p.good, {HeadAblation{0, 1}}), 1e-4);
    EXPECT_TRUE(f.panel->summaryText().contains(QStringLiteral("L1 H2 ablated")));
    for (int t = 0; t < w.plotTabs()->count(); ++t)
        if (w.plotTabs()->widget(t)->isAncestorOf(overview) || w.plotTabs()->widget(t) == overview)
            w.plotTabs()->setCurrentIndex(t);
    waitFor([] { return false; }, 300);
    saveScreenshot(&w, QStringLiteral("minimal-pairs-ablated-window.png"));

    // One undo: every view and the pairs are back to the whole model.
    shown = false;
    w.ablation()->undoStack()->undo();
    ASSERT_TRUE(waitFor([&] { return shown && w.document()->analysis() && w.document()->analysis()->ablated.empty(); }));
    EXPECT_FALSE(w.overviewView()->isAblated(0, 1));
    EXPECT_TRUE(std::none_of(labels.begin(), labels.end(), [](QLabel *l) {
        return l->isVisible() && l->text().endsWith(QStringLiteral("ablated"));
    }));
    ASSERT_TRUE(waitScored(f.panel, {}));
    // With the dock's box ticked, a plain click toggles too.
    f.panel->clickAblatesBox()->setChecked(true);
    EXPECT_TRUE(w.overviewView()->clickAblates());
    ViewState selected = w.viewState();
    selected.layer = 0;
    selected.head = 0;
    w.setViewState(selected);
    shown = false;
    {
        const QPoint at = w.overviewView()->mapRect(1, 0).center();
        QMouseEvent e(QEvent::MouseButtonPress, QPointF(at), QPointF(w.overviewView()->plot()->mapToGlobal(at)), Qt::LeftButton,
                      Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(w.overviewView()->plot(), &e);
    }
    ASSERT_TRUE(waitFor([&] { return shown && w.document()->analysis() && !w.document()->analysis()->ablated.empty(); }));
    EXPECT_EQ(w.document()->analysis()->ablated, (std::vector<std::pair<int, int>>{{1, 0}}));
    EXPECT_EQ(w.document()->selection().layer, 0); // the click switched the head off, it did not select it
}

TEST(MinimalPairsDock, EachSweepCellIsThatHeadSwitchedOffAloneAndAClickListsThePairsItFlips)
{
    test::uiApp();
    DockFixture f;
    ASSERT_TRUE(f.open());
    bool finished = false;
    QObject::connect(f.panel, &MinimalPairsPanel::sweepFinished, [&] { finished = true; });
    f.panel->sweep();
    ASSERT_TRUE(waitFor([&] { return finished; }, 600000));
    auto enc = loadEncoder(maskedLm());
    ASSERT_TRUE(enc);
    const EncoderInfo &info = (*enc)->info();
    ASSERT_EQ(f.panel->sweepCells().size(), static_cast<std::size_t>(info.layers * (info.heads + 1)));
    const auto &pairs = f.panel->pairSet().pairs;
    // Two cells checked against the model alone: the last layer's first head, and the first whole layer.
    for (const HeadAblation cellHead : {HeadAblation{info.layers - 1, 0}, HeadAblation{0, -1}}) {
        const auto cell = std::find_if(f.panel->sweepCells().begin(), f.panel->sweepCells().end(),
                                       [&](const SweepCell &c) { return c.layer == cellHead.layer && c.head == cellHead.head; });
        ASSERT_NE(cell, f.panel->sweepCells().end());
        std::vector<std::size_t> toWrong, toRight;
        int hits = 0;
        for (std::size_t i = 0; i < pairs.size(); ++i) {
            const bool was = directLogprob(**enc, pairs[i].good) > directLogprob(**enc, pairs[i].bad);
            const bool now = directLogprob(**enc, pairs[i].good, {cellHead}) > directLogprob(**enc, pairs[i].bad, {cellHead});
            hits += now ? 1 : 0;
            if (was && !now)
                toWrong.push_back(i);
            if (!was && now)
                toRight.push_back(i);
        }
        EXPECT_EQ(cell->flippedToWrong, toWrong);
        EXPECT_EQ(cell->flippedToRight, toRight);
        EXPECT_DOUBLE_EQ(cell->accuracy, hits / 8.0);
        // A click on the cell lists exactly those pairs.
        SweepHeatmap *heat = f.panel->sweepView();
        const QPointF at = heat->cellCentre(cellHead.layer, cellHead.head);
        QMouseEvent e(QEvent::MouseButtonPress, at, heat->mapToGlobal(at), Qt::LeftButton, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(heat, &e);
        EXPECT_EQ(f.panel->pairTable()->rowCount(), static_cast<int>(toWrong.size() + toRight.size()));
        EXPECT_TRUE(f.panel->listNote().contains(cellHead.head < 0 ? QStringLiteral("L1 (every head)")
                                                                   : QStringLiteral("L%1 H1").arg(info.layers)))
            << f.panel->listNote().toStdString();
    }
    if (auto *dock = qobject_cast<QDockWidget *>(f.panel->parentWidget()); dock && !qgetenv("TREELENS_SCREENSHOTS").isEmpty()) {
        dock->setFloating(true);
        dock->resize(1500, 620);
        waitFor([] { return false; }, 300);
    }
    saveScreenshot(f.panel, QStringLiteral("minimal-pairs-sweep-dock.png"));
    // The heatmap exports as PNG, SVG and PDF.
    for (const char *ext : {"png", "svg", "pdf"}) {
        const QString path = QString::fromStdString(::testing::TempDir()) + QStringLiteral("/sweep.") + QLatin1String(ext);
        QString error;
        ASSERT_TRUE(exportView(*f.panel->sweepView(), path, &error, 110)) << error.toStdString();
        EXPECT_GT(QFileInfo(path).size(), 500) << ext;
        if (const QByteArray dir = qgetenv("TREELENS_SCREENSHOTS"); !dir.isEmpty() && QLatin1String(ext) == QLatin1String("png"))
            exportView(*f.panel->sweepView(), QString::fromLocal8Bit(dir) + QStringLiteral("/minimal-pairs-sweep.png"), &error, 110);
    }
    f.panel->showFlipped(-1, -1);
    EXPECT_EQ(f.panel->pairTable()->rowCount(), 8);

    // The CLI's ablate-sweep on the same pairs gives the same cells, and the app draws its JSON
    // (`treelens --sweep-figure`) as PNG, SVG and PDF: the figure formats the CLI alone does not write.
    QTemporaryDir dir;
    auto sentences = readCorpusFile(treebank().toStdString(), CorpusFormat::Conllu);
    ASSERT_TRUE(sentences);
    const MadePairs made = makePairs(*sentences, PairPhenomenon::Agreement);
    {
        QFile out(dir.filePath(QStringLiteral("pairs.jsonl")));
        ASSERT_TRUE(out.open(QIODevice::WriteOnly));
        for (std::size_t i = 0; i < made.pairs.size(); ++i)
            out.write((madePairJson(made.pairs[i], PairPhenomenon::Agreement, static_cast<int>(i) + 1) + "\n").c_str());
    }
    QProcess cli;
    cli.start(QString::fromUtf8(TREELENS_CLI), {QStringLiteral("ablate-sweep"), QStringLiteral("--model"), QString::fromStdString(maskedLm()),
                                                QStringLiteral("--input"), dir.filePath(QStringLiteral("pairs.jsonl")), QStringLiteral("--json"),
                                                QStringLiteral("-o"), dir.filePath(QStringLiteral("sweep.json"))});
    ASSERT_TRUE(cli.waitForFinished(300000));
    ASSERT_EQ(cli.exitCode(), 0) << cli.readAllStandardError().toStdString();
    auto text = readFileLimited(dir.filePath(QStringLiteral("sweep.json")).toStdString(), 1 << 20);
    ASSERT_TRUE(text);
    auto table = readSweepJson(*text, "sweep.json");
    ASSERT_TRUE(table) << table.message();
    ASSERT_EQ(table->cells.size(), f.panel->sweepCells().size());
    for (std::size_t k = 0; k < table->cells.size(); ++k) {
        const SweepCell &a = table->cells[k], &b = f.panel->sweepCells()[k];
        EXPECT_EQ(a.layer, b.layer);
        EXPECT_EQ(a.head, b.head);
        EXPECT_NEAR(a.accuracy, b.accuracy, 1e-12);
        EXPECT_EQ(a.flippedToWrong.size(), b.flippedToWrong.size());
        EXPECT_EQ(a.flippedToRight.size(), b.flippedToRight.size());
    }
    for (const char *ext : {"png", "svg", "pdf"}) {
        const QString out = dir.filePath(QStringLiteral("figure.") + QLatin1String(ext));
        QProcess gui;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
        gui.setProcessEnvironment(env);
        gui.start(QString::fromUtf8(TREELENS_GUI_BINARY), {QStringLiteral("--sweep-figure"), dir.filePath(QStringLiteral("sweep.json")),
                                                           QStringLiteral("--out"), out, QStringLiteral("--dpi"), QStringLiteral("72")});
        ASSERT_TRUE(gui.waitForFinished(60000));
        EXPECT_EQ(gui.exitCode(), 0) << gui.readAllStandardError().toStdString();
        EXPECT_GT(QFileInfo(out).size(), 500) << ext;
    }
    QFile svg(dir.filePath(QStringLiteral("figure.svg")));
    ASSERT_TRUE(svg.open(QIODevice::ReadOnly));
    EXPECT_TRUE(svg.readAll().contains(QByteArray("change of minimal-pair accuracy")));
    EXPECT_FALSE(QImage(dir.filePath(QStringLiteral("figure.png"))).isNull());
    QFile pdf(dir.filePath(QStringLiteral("figure.pdf")));
    ASSERT_TRUE(pdf.open(QIODevice::ReadOnly));
    EXPECT_TRUE(pdf.read(4) == QByteArray("%PDF"));
}
