// The probing panel (issue 6), offscreen, with the shipped small model: a tiny
// run (sentlen + head-accuracy over 30 sentences) goes to completion on the
// worker thread; the curve plot, the results table and the heatmap are checked
// against the report JSON; a cell lists its sentences worst first; cancel stops
// a run; the main window has the hidden "Probing" dock and opens a probed
// sentence at the cell's layer/head. Further down: head accuracy per relation and
// direction, heads × relations, the link-probability chart, plot exports,
// settings persistence, and probed sentences outside the open corpus.
#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <limits>

#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QFile>
#include <QDir>
#include <QFileInfo>
#include <QImage>
#include <QJsonArray>
#include <QLabel>
#include <QJsonDocument>
#include <QJsonObject>
#include <QListWidget>
#include <QMenu>
#include <QMenuBar>
#include <QMouseEvent>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTextStream>

#include "core/encoders/encoder.h"
#include "core/formats/corpus.h"
#include "core/probing/probejson.h"
#include "ui/controlpanel.h"
#include "ui/corpuspanel.h"
#include "ui/mainwindow.h"
#include "viz/inductionview.h"
#include "ui/probingpanel.h"
#include "viz/structuralview.h"
#include "viz/qcustomplot.h"
#include "testutil.h"
#include "uitestapp.h"

using namespace treelens;

namespace {

QApplication &app() { return test::uiApp(); }
using test::waitFor;

std::string smallModel() { return findShippedModel("tree-transformer-en-small.safetensors"); }

/// tests/data/ui/three.conllu ten times over with distinct sentence ids (30 sentences).
QString writeCorpus(const QTemporaryDir &dir)
{
    QFile in((QString::fromUtf8(TREELENS_TEST_DATA_DIR) + QStringLiteral("/ui/three.conllu")));
    if (!in.open(QIODevice::ReadOnly))
        return {};
    const QString text = QString::fromUtf8(in.readAll());
    QString out;
    for (int copy = 1; copy <= 10; ++copy) {
        QString t = text;
        t.replace(QStringLiteral("# sent_id = ui-1"), QStringLiteral("# sent_id = ui-1-%1").arg(copy));
        t.replace(QStringLiteral("# sent_id = ui-2"), QStringLiteral("# sent_id = ui-2-%1").arg(copy));
        t.replace(QStringLiteral("# sent_id = ui-3"), QStringLiteral("# sent_id = ui-3-%1").arg(copy));
        if (!t.endsWith(QStringLiteral("\n\n")))
            t += QStringLiteral("\n");
        out += t;
    }
    const QString path = dir.filePath(QStringLiteral("thirty.conllu"));
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly))
        return {};
    f.write(out.toUtf8());
    return path;
}

struct RunResult {
    bool finished = false;
    bool ok = false;
    QString message;
};

RunResult runAndWait(ProbingPanel &panel, int ms = 240000)
{
    RunResult r;
    auto c = QObject::connect(&panel, &ProbingPanel::finished, [&](bool ok, const QString &m) {
        r.finished = true;
        r.ok = ok;
        r.message = m;
    });
    panel.run();
    waitFor([&] { return r.finished; }, ms);
    QObject::disconnect(c);
    return r;
}

void configureTiny(ProbingPanel &panel, const QString &corpus)
{
    // Every input: the dock restores the previous test's from the settings.
    panel.setModelPath(QString::fromStdString(smallModel()));
    panel.setFiles(corpus, QString(), QString());
    panel.setUseOpenCorpus(false);
    panel.setControl(false);
    panel.setRandomInit(false);
    panel.setTasks({QStringLiteral("sentlen"), QStringLiteral("head-accuracy")});
    panel.setLayers(QStringLiteral("1,2"));
    panel.setPooling(QStringLiteral("mean"));
    panel.setEpochs(3);
    panel.setRank(0);
    panel.setSeed(7);
}

double cellNumber(QTableWidget *t, int row, int col) { return t->item(row, col)->text().toDouble(); }

} // namespace

class ProbingPanelTest : public ::testing::Test {
protected:
    void SetUp() override
    {
        app();
        if (smallModel().empty())
            GTEST_SKIP() << "SKIPPED: the shipped model resources/models/tree-transformer-en-small.safetensors was not found";
        ASSERT_TRUE(dir.isValid());
        corpus = writeCorpus(dir);
        ASSERT_FALSE(corpus.isEmpty());
    }
    QTemporaryDir dir;
    QString corpus;
};

TEST_F(ProbingPanelTest, RunsATinyProbeAndShowsTheReport)
{
    ProbingPanel panel;
    panel.resize(1200, 620);
    panel.show();
    configureTiny(panel, corpus);
    int curveSignals = 0;
    QObject::connect(&panel, &ProbingPanel::curvePointAdded, [&] { ++curveSignals; });

    // The GUI thread keeps running while the worker trains: the event loop turns.
    QElapsedTimer t;
    t.start();
    const RunResult r = runAndWait(panel);
    ASSERT_TRUE(r.finished) << "timed out; status: " << panel.statusLabel()->text().toStdString();
    ASSERT_TRUE(r.ok) << r.message.toStdString();
    EXPECT_FALSE(panel.isRunning());

    const QJsonObject root = QJsonDocument::fromJson(panel.reportJson().toUtf8()).object();
    const QJsonObject tasks = root.value(QStringLiteral("tasks")).toObject();
    ASSERT_TRUE(tasks.contains(QStringLiteral("sentlen")));
    ASSERT_TRUE(tasks.contains(QStringLiteral("head-accuracy")));
    EXPECT_EQ(tasks.size(), 2);

    // Curves: sentlen trained 2 layers × 1 pooling for at most 3 epochs each, one
    // point per epoch; the plot holds a train-loss graph with points.
    const QJsonObject sentlen = tasks.value(QStringLiteral("sentlen")).toObject();
    const QJsonArray layers = sentlen.value(QStringLiteral("layers")).toArray();
    ASSERT_EQ(layers.size(), 2);
    int epochs = 0;
    for (const auto &l : layers)
        epochs += l.toObject().value(QStringLiteral("mean")).toObject().value(QStringLiteral("epochs")).toInt();
    EXPECT_GE(epochs, 2);
    EXPECT_LE(epochs, 6);
    EXPECT_EQ(panel.curvePointCount(), epochs);
    EXPECT_EQ(curveSignals, epochs);
    ASSERT_GE(panel.curvePlot()->graphCount(), 2);
    int plotted = 0;
    for (int i = 0; i < panel.curvePlot()->graphCount(); ++i)
        if (!panel.curvePlot()->graph(i)->property("dev").toBool())
            plotted += panel.curvePlot()->graph(i)->dataCount();
    EXPECT_EQ(plotted, epochs);

    // Table: one row per sentlen layer (mean pooling) + the head-accuracy row; the
    // numbers are the JSON's.
    QTableWidget *table = panel.resultsTable();
    ASSERT_EQ(table->rowCount(), 3);
    const double baseR2 = sentlen.value(QStringLiteral("baselines"))
                              .toObject()
                              .value(QStringLiteral("mean"))
                              .toObject()
                              .value(QStringLiteral("r2"))
                              .toDouble();
    for (int i = 0; i < 2; ++i) {
        const QJsonObject lj = layers[i].toObject();
        const QJsonObject pj = lj.value(QStringLiteral("mean")).toObject();
        EXPECT_EQ(table->item(i, 0)->text(), QStringLiteral("sentlen"));
        EXPECT_EQ(table->item(i, 1)->text().toInt(), lj.value(QStringLiteral("layer")).toInt());
        EXPECT_EQ(table->item(i, 1)->text().toInt(), i + 1);
        EXPECT_EQ(table->item(i, 2)->text(), QStringLiteral("mean"));
        EXPECT_DOUBLE_EQ(cellNumber(table, i, 4), pj.value(QStringLiteral("dev")).toObject().value(QStringLiteral("r2")).toDouble());
        EXPECT_DOUBLE_EQ(cellNumber(table, i, 5), pj.value(QStringLiteral("test")).toObject().value(QStringLiteral("r2")).toDouble());
        EXPECT_TRUE(table->item(i, 6)->text().isEmpty()); // no control task
        EXPECT_DOUBLE_EQ(cellNumber(table, i, 7), baseR2);
    }
    const QJsonObject ha = tasks.value(QStringLiteral("head-accuracy")).toObject();
    const QJsonObject all = ha.value(QStringLiteral("relations")).toArray().first().toObject();
    ASSERT_EQ(all.value(QStringLiteral("relation")).toString(), QStringLiteral("all"));
    const QJsonObject best = all.value(QStringLiteral("best_dep_to_head")).toObject();
    EXPECT_EQ(table->item(2, 0)->text(), QStringLiteral("head-accuracy"));
    // The JSON and the table number attention layers and heads from 1, as the View dock
    // (the JSON counted from 0 before "layer_numbering": "1-based").
    EXPECT_EQ(table->item(2, 1)->text().toInt(), best.value(QStringLiteral("layer")).toInt());
    EXPECT_EQ(table->item(2, 2)->text(), QStringLiteral("head %1").arg(best.value(QStringLiteral("head")).toInt()));
    EXPECT_DOUBLE_EQ(cellNumber(table, 2, 5), best.value(QStringLiteral("accuracy")).toDouble());

    // Heatmap: layers × heads cells with the JSON's dep→head grid (rounded to 0.01 there).
    const int L = ha.value(QStringLiteral("layers")).toInt(), H = ha.value(QStringLiteral("heads")).toInt();
    ASSERT_GT(L, 0);
    ASSERT_GT(H, 0);
    EXPECT_EQ(panel.heatmapTask(), QStringLiteral("head-accuracy"));
    EXPECT_EQ(panel.heatmap()->data()->keySize(), H);
    EXPECT_EQ(panel.heatmap()->data()->valueSize(), L);
    const QJsonArray grid = all.value(QStringLiteral("dep_to_head")).toArray();
    ASSERT_EQ(grid.size(), L);
    for (int l = 0; l < L; ++l)
        for (int h = 0; h < H; ++h)
            EXPECT_NEAR(panel.heatmap()->data()->cell(h, l), grid[l].toArray()[h].toDouble(), 0.0051) << l << "," << h;

    // A cell lists every sentence with an arc (all 30), worst first: the ratio of
    // right arcs never decreases down the list.
    panel.selectCell(L - 1, H - 1);
    QListWidget *list = panel.sentenceList();
    ASSERT_EQ(list->count(), 30);
    double previous = -1.0;
    for (int i = 0; i < list->count(); ++i) {
        const QString text = list->item(i)->text();
        const QString frac = text.section(QLatin1Char('('), 1).section(QLatin1Char(' '), 0, 0);
        const double ratio = frac.section(QLatin1Char('/'), 0, 0).toDouble() / frac.section(QLatin1Char('/'), 1, 1).toDouble();
        EXPECT_GE(ratio, previous - 1e-12) << text.toStdString();
        previous = ratio;
        EXPECT_TRUE(list->item(i)->data(Qt::UserRole).toString().startsWith(QStringLiteral("ui-")));
    }
    // A mouse click on the cell of layer 2, head 1 (the View dock's and the JSON's
    // numbering; the typed report's index 1, 0) lists that cell's sentences.
    auto *tabs0 = panel.findChild<QTabWidget *>(QStringLiteral("probingTabs"));
    ASSERT_TRUE(tabs0);
    tabs0->setCurrentIndex(2);
    QApplication::processEvents();
    panel.heatmapPlot()->replot();
    {
        const QPointF pos(panel.heatmapPlot()->xAxis->coordToPixel(1.0), panel.heatmapPlot()->yAxis->coordToPixel(2.0));
        QMouseEvent press(QEvent::MouseButtonPress, pos, panel.heatmapPlot()->mapToGlobal(pos), Qt::LeftButton,
                          Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(panel.heatmapPlot(), &press);
        QMouseEvent release(QEvent::MouseButtonRelease, pos, panel.heatmapPlot()->mapToGlobal(pos), Qt::LeftButton,
                            Qt::NoButton, Qt::NoModifier);
        QApplication::sendEvent(panel.heatmapPlot(), &release);
    }
    ASSERT_EQ(list->count(), 30);
    auto *cellLabel = panel.findChild<QLabel *>(QStringLiteral("cellLabel"));
    ASSERT_TRUE(cellLabel);
    EXPECT_TRUE(cellLabel->text().startsWith(QStringLiteral("Layer 2, head 1")))
        << cellLabel->text().toStdString();

    QString openedId;
    int openedLayer = -1, openedHead = -1;
    std::shared_ptr<const Sentence> openedSentence;
    QObject::connect(&panel, &ProbingPanel::openSentence, [&](const QString &id, int l, int h,
                                                              std::shared_ptr<const Sentence> sentence) {
        openedSentence = std::move(sentence);
        openedId = id;
        openedLayer = l;
        openedHead = h;
    });
    list->clear();
    panel.selectCell(L - 1, H - 1);
    panel.activateSentence(0);
    EXPECT_EQ(openedId, list->item(0)->data(Qt::UserRole).toString());
    EXPECT_EQ(openedLayer, L - 1);
    EXPECT_EQ(openedHead, H - 1);
    // The sentence itself comes along, read back from the run's file.
    ASSERT_TRUE(openedSentence);
    EXPECT_EQ(QString::fromStdString(openedSentence->id), openedId);

    // Export: the JSON byte for byte, the table as CSV (header + one line per row).
    const QString jsonPath = dir.filePath(QStringLiteral("probe.json")), csvPath = dir.filePath(QStringLiteral("probe.csv"));
    QString error;
    ASSERT_TRUE(panel.exportJson(jsonPath, &error)) << error.toStdString();
    ASSERT_TRUE(panel.exportCsv(csvPath, &error)) << error.toStdString();
    QFile jf(jsonPath), cf(csvPath);
    ASSERT_TRUE(jf.open(QIODevice::ReadOnly));
    EXPECT_EQ(QString::fromUtf8(jf.readAll()).trimmed(), panel.reportJson());
    ASSERT_TRUE(cf.open(QIODevice::ReadOnly));
    const QStringList lines = QString::fromUtf8(cf.readAll()).trimmed().split(QLatin1Char('\n'));
    ASSERT_EQ(lines.size(), 4);
    EXPECT_EQ(lines[0], QStringLiteral("task,layer,pooling,metric,dev,test,selectivity,baseline"));
    EXPECT_TRUE(lines[1].startsWith(QStringLiteral("sentlen,1,mean,")));

    // Screenshots of each tab, for a look by eye.
    auto *tabs = panel.findChild<QTabWidget *>(QStringLiteral("probingTabs"));
    ASSERT_TRUE(tabs);
    const char *names[] = {"curves", "results", "attention", "links", "structural", "parsing"};
    ASSERT_EQ(tabs->count(), 6);
    for (int i = 0; i < tabs->count(); ++i) {
        tabs->setCurrentIndex(i);
        QApplication::processEvents();
        panel.curvePlot()->replot();
        panel.grab().save(QStringLiteral("/tmp/probing-panel-%1.png").arg(QLatin1String(names[i])));
    }
    panel.grab().save(QStringLiteral("/tmp/probing-panel.png"));
}

TEST_F(ProbingPanelTest, CancelStopsARun)
{
    ProbingPanel panel;
    configureTiny(panel, corpus);
    panel.setTasks({QStringLiteral("sentlen"), QStringLiteral("treedepth"), QStringLiteral("structural-distance"),
                    QStringLiteral("head-accuracy")});
    panel.setLayers(QStringLiteral("all"));
    panel.setPooling(QStringLiteral("both"));
    panel.setEpochs(200);
    RunResult r;
    QObject::connect(&panel, &ProbingPanel::finished, [&](bool ok, const QString &m) {
        r.finished = true;
        r.ok = ok;
        r.message = m;
    });
    panel.run();
    EXPECT_TRUE(panel.isRunning());
    // Cancel once the first probe has started training.
    waitFor([&] { return panel.curvePointCount() > 0 || r.finished; }, 120000);
    panel.cancel();
    ASSERT_TRUE(waitFor([&] { return r.finished; }, 120000)) << "cancel did not stop the run";
    EXPECT_FALSE(r.ok);
    EXPECT_EQ(r.message, QStringLiteral("Cancelled."));
    EXPECT_FALSE(panel.isRunning());
    EXPECT_TRUE(panel.reportJson().isEmpty());
    // A second run after a cancel works.
    configureTiny(panel, corpus);
    panel.setTasks({QStringLiteral("head-accuracy")});
    const RunResult again = runAndWait(panel);
    ASSERT_TRUE(again.finished);
    EXPECT_TRUE(again.ok) << again.message.toStdString();
}

TEST_F(ProbingPanelTest, MainWindowHasAHiddenProbingDockAndOpensProbedSentences)
{
    MainWindow w;
    w.show();
    QApplication::processEvents();
    auto *dock = w.findChild<QDockWidget *>(QStringLiteral("probingDock"));
    ASSERT_TRUE(dock);
    EXPECT_EQ(dock->windowTitle(), QStringLiteral("Probing"));
    EXPECT_FALSE(dock->isVisible());
    EXPECT_EQ(dock->widget(), w.probingPanel());
    bool inMenu = false;
    for (QAction *menu : w.menuBar()->actions())
        if (menu->menu())
            for (QAction *a : menu->menu()->actions())
                inMenu = inMenu || a == dock->toggleViewAction();
    EXPECT_TRUE(inMenu);
    dock->toggleViewAction()->trigger();
    EXPECT_TRUE(dock->isVisible());

    // Not in the open corpus: ignored.
    const ViewState before = w.viewState();
    Q_EMIT w.probingPanel()->openSentence(QStringLiteral("nowhere"), 1, 2);
    EXPECT_EQ(w.viewState(), before);

    QString error;
    ASSERT_TRUE(w.openCorpus(corpus, &error)) << error.toStdString();
    w.setModelPath(QString::fromStdString(smallModel()));
    bool shown = false;
    QObject::connect(&w, &MainWindow::analysisShown, [&](bool) { shown = true; });
    Q_EMIT w.probingPanel()->openSentence(QStringLiteral("ui-2-4"), 1, 2);
    // ui-2-4 is the second sentence of the fourth copy: row 3*3 + 1.
    EXPECT_EQ(w.corpusPanel()->currentRow(), 10);
    ASSERT_TRUE(waitFor([&] { return shown; }, 60000));
    QApplication::processEvents();
    EXPECT_EQ(w.document()->sentence()->id, "ui-2-4");
    EXPECT_EQ(w.viewState().layer, 1);
    EXPECT_EQ(w.viewState().head, 2);
}

// ---------------------------------------------------------------------------
// Head accuracy per relation and direction, heads × relations, the link chart,
// plot exports, settings, and opening probed sentences. The corpus is
// three.conllu ten times over; its relations, counted by hand per copy:
//   "The cat sat ."                   det(The→cat +1) nsubj(cat→sat +1) punct(.→sat −1)
//   "Mr. Vinken is chairman of Elsevier ."
//       compound(Mr.→Vinken +1) nsubj(Vinken→chairman +2) cop(is→chairman +1)
//       case(of→Elsevier +1) nmod(Elsevier→chairman −2) punct(.→chairman −3)
//   "Dogs bark loudly ."              nsubj(Dogs→bark +1) advmod(loudly→bark −1) punct(.→bark −2)
// (arrow: dependent → head, then the offset head − dependent).

namespace {

/// Runs head-accuracy and link-probs (layers "1": no probe is trained).
RunResult runAttention(ProbingPanel &panel, const QString &corpus)
{
    configureTiny(panel, corpus);
    panel.setTasks({QStringLiteral("head-accuracy"), QStringLiteral("link-probs")});
    panel.setLayers(QStringLiteral("1"));
    return runAndWait(panel);
}

QJsonObject relationJson(const QJsonObject &ha, const QString &relation)
{
    for (const auto &r : ha.value(QStringLiteral("relations")).toArray())
        if (r.toObject().value(QStringLiteral("relation")).toString() == relation)
            return r.toObject();
    return {};
}

void grabTab(ProbingPanel &panel, int tab, const QString &path)
{
    panel.tabs()->setCurrentIndex(tab);
    QApplication::processEvents();
    panel.heatmapPlot()->replot();
    panel.linkPlot()->replot();
    panel.grab().save(path);
}

} // namespace

TEST_F(ProbingPanelTest, HeadAccuracyPerRelationAndDirection)
{
    ProbingPanel panel;
    panel.resize(1200, 620);
    panel.show();
    const RunResult r = runAttention(panel, corpus);
    ASSERT_TRUE(r.finished && r.ok) << r.message.toStdString();
    const QJsonObject ha = QJsonDocument::fromJson(panel.reportJson().toUtf8())
                               .object()
                               .value(QStringLiteral("tasks"))
                               .toObject()
                               .value(QStringLiteral("head-accuracy"))
                               .toObject();
    const int L = ha.value(QStringLiteral("layers")).toInt(), H = ha.value(QStringLiteral("heads")).toInt();
    ASSERT_GT(L, 1);
    ASSERT_GT(H, 1);

    // The picker: "all" first, then the relations alphabetically, with their arcs (hand-counted).
    const QStringList expected = {"all (120)", "advmod (10)", "case (10)", "compound (10)", "cop (10)",
                                  "det (10)",  "nmod (10)",   "nsubj (30)", "punct (30)"};
    QStringList items;
    for (int i = 0; i < panel.relationCombo()->count(); ++i)
        items << panel.relationCombo()->itemText(i);
    EXPECT_EQ(items, expected);
    EXPECT_EQ(panel.relation(), QStringLiteral("all"));

    // nsubj, dependent → head: the map is the JSON's nsubj grid; the best offset is
    // +1 (cat→sat, Dogs→bark: 20 of 30 arcs).
    panel.setRelation(QStringLiteral("nsubj"));
    EXPECT_EQ(panel.relation(), QStringLiteral("nsubj"));
    const QJsonObject nsubj = relationJson(ha, QStringLiteral("nsubj"));
    ASSERT_FALSE(nsubj.isEmpty());
    EXPECT_EQ(nsubj.value(QStringLiteral("best_offset")).toObject().value(QStringLiteral("offset")).toInt(), 1);
    EXPECT_TRUE(panel.heatmapTitle().contains(QStringLiteral("best fixed offset for nsubj: head = dependent +1, 66.67 %")))
        << panel.heatmapTitle().toStdString();
    EXPECT_TRUE(panel.heatmapTitle().contains(QStringLiteral("nsubj (30 arcs), dependent → head")));
    ASSERT_EQ(panel.heatmap()->data()->keySize(), H);
    ASSERT_EQ(panel.heatmap()->data()->valueSize(), L);
    const QJsonArray nsubjDep = nsubj.value(QStringLiteral("dep_to_head")).toArray();
    for (int l = 0; l < L; ++l)
        for (int h = 0; h < H; ++h)
            EXPECT_NEAR(panel.heatmap()->data()->cell(h, l), nsubjDep[l].toArray()[h].toDouble(), 0.0051);
    // Issue 47: every cell carries its number (percent, one decimal), row by row, as the JSON has it.
    const QStringList numbers = panel.heatmapCellTexts();
    ASSERT_EQ(numbers.size(), L * H);
    for (int l = 0; l < L; ++l)
        for (int h = 0; h < H; ++h)
            EXPECT_EQ(numbers[l * H + h], QString::number(nsubjDep[l].toArray()[h].toDouble(), 'f', 1)) << l << "," << h;
    if (const QByteArray dir = qgetenv("TREELENS_SCREENSHOTS"); !dir.isEmpty()) {
        if (auto *tabs = panel.findChild<QTabWidget *>(QStringLiteral("probingTabs")))
            tabs->setCurrentIndex(2);
        QApplication::processEvents();
        panel.grab().save(QString::fromUtf8(dir) + QStringLiteral("/probing-heatmap-numbers.png"));
    }
    // Axes numbered from 1, as the View dock: cells centred on 1..H and 1..L.
    EXPECT_DOUBLE_EQ(panel.heatmap()->data()->keyRange().lower, 1.0);
    EXPECT_DOUBLE_EQ(panel.heatmap()->data()->keyRange().upper, H);
    EXPECT_DOUBLE_EQ(panel.heatmap()->data()->valueRange().lower, 1.0);
    EXPECT_DOUBLE_EQ(panel.heatmap()->data()->valueRange().upper, L);

    // A cell of nsubj: all 30 sentences (one nsubj each); the right arcs listed
    // add up to the JSON's percentage of the 30 arcs.
    panel.selectCell(1, 2);
    QListWidget *list = panel.sentenceList();
    ASSERT_EQ(list->count(), 30);
    int right = 0;
    for (int i = 0; i < list->count(); ++i) {
        const QString frac = list->item(i)->text().section(QLatin1Char('('), 1).section(QLatin1Char(' '), 0, 0);
        EXPECT_EQ(frac.section(QLatin1Char('/'), 1, 1), QStringLiteral("1"));
        right += frac.section(QLatin1Char('/'), 0, 0).toInt();
    }
    EXPECT_NEAR(100.0 * right / 30.0, nsubjDep[1].toArray()[2].toDouble(), 0.0051);
    auto *cellLabel = panel.findChild<QLabel *>(QStringLiteral("cellLabel"));
    EXPECT_TRUE(cellLabel->text().startsWith(QStringLiteral("Layer 2, head 3 · nsubj, dependent → head: 30")))
        << cellLabel->text().toStdString();

    // advmod occurs only in "Dogs bark loudly." (ui-3-*): 10 sentences, one arc
    // each; its best offset is −1 (loudly→bark) at 100 %.
    panel.setRelation(QStringLiteral("advmod"));
    EXPECT_TRUE(panel.heatmapTitle().contains(QStringLiteral("head = dependent -1, 100.00 %"))) << panel.heatmapTitle().toStdString();
    panel.selectCell(0, 0);
    ASSERT_EQ(list->count(), 10);
    for (int i = 0; i < list->count(); ++i) {
        EXPECT_TRUE(list->item(i)->data(Qt::UserRole).toString().startsWith(QStringLiteral("ui-3-")));
        EXPECT_TRUE(list->item(i)->text().endsWith(QStringLiteral("/1 arcs)")));
    }
    // det: The→cat, always the next word.
    panel.setRelation(QStringLiteral("det"));
    EXPECT_TRUE(panel.heatmapTitle().contains(QStringLiteral("head = dependent +1, 100.00 %")));

    // head → dependent: the JSON's head_to_dep grid of the relation.
    panel.setRelation(QStringLiteral("punct"));
    panel.setDirection(ArcDirection::HeadToDep);
    EXPECT_TRUE(panel.heatmapTitle().contains(QStringLiteral("punct (30 arcs), head → dependent")));
    // punct: offsets −1, −3, −2 ten times each; the tie goes to the smaller |offset|.
    EXPECT_TRUE(panel.heatmapTitle().contains(QStringLiteral("head = dependent -1, 33.33 %"))) << panel.heatmapTitle().toStdString();
    const QJsonArray punctHead = relationJson(ha, QStringLiteral("punct")).value(QStringLiteral("head_to_dep")).toArray();
    for (int l = 0; l < L; ++l)
        for (int h = 0; h < H; ++h)
            EXPECT_NEAR(panel.heatmap()->data()->cell(h, l), punctHead[l].toArray()[h].toDouble(), 0.0051);
    panel.selectCell(L - 1, 0);
    EXPECT_EQ(list->count(), 30);
    EXPECT_TRUE(cellLabel->text().contains(QStringLiteral("punct, head → dependent"))) << cellLabel->text().toStdString();

    panel.setRelation(QStringLiteral("nsubj"));
    panel.setDirection(ArcDirection::DepToHead);
    panel.selectCell(1, 2);
    grabTab(panel, 2, QStringLiteral("/tmp/probing-panel-relation.png"));
}

TEST_F(ProbingPanelTest, HeadsByRelationsAtALayer)
{
    ProbingPanel panel;
    panel.resize(1200, 620);
    panel.show();
    const RunResult r = runAttention(panel, corpus);
    ASSERT_TRUE(r.finished && r.ok) << r.message.toStdString();
    const QJsonObject ha = QJsonDocument::fromJson(panel.reportJson().toUtf8())
                               .object()
                               .value(QStringLiteral("tasks"))
                               .toObject()
                               .value(QStringLiteral("head-accuracy"))
                               .toObject();
    const int H = ha.value(QStringLiteral("heads")).toInt();
    const QJsonArray rels = ha.value(QStringLiteral("relations")).toArray();
    ASSERT_EQ(rels.size(), 9);

    panel.setHeatmapMode(ProbingPanel::HeatmapMode::HeadsByRelations);
    panel.setRelationLayer(1); // index 1 = layer 2 in the View dock and the JSON
    EXPECT_EQ(panel.relationLayer(), 1);
    auto *spin = panel.findChild<QSpinBox *>(QStringLiteral("relationLayerSpin"));
    ASSERT_TRUE(spin);
    EXPECT_EQ(spin->value(), 2);
    EXPECT_TRUE(spin->isEnabled());
    EXPECT_TRUE(panel.heatmapTitle().startsWith(QStringLiteral("Head accuracy at layer 2, dependent → head")))
        << panel.heatmapTitle().toStdString();
    // Rows = the relations in the report's order, columns = heads; cell = that
    // relation's dep→head accuracy at layer 2 (the grids' row 1).
    ASSERT_EQ(panel.heatmap()->data()->keySize(), H);
    ASSERT_EQ(panel.heatmap()->data()->valueSize(), 9);
    for (int row = 0; row < 9; ++row) {
        const QJsonArray grid = rels[row].toObject().value(QStringLiteral("dep_to_head")).toArray();
        for (int h = 0; h < H; ++h)
            EXPECT_NEAR(panel.heatmap()->data()->cell(h, row), grid[1].toArray()[h].toDouble(), 0.0051) << row << "," << h;
    }
    // Row labels: relation (arcs) · best offset: accuracy.
    auto ticker = panel.heatmapPlot()->yAxis->ticker().dynamicCast<QCPAxisTickerText>();
    ASSERT_TRUE(ticker);
    // all: +1 is right for det, compound, cop, case (10 each) and 20 nsubj = 60 of 120.
    EXPECT_EQ(ticker->ticks().value(0), QStringLiteral("all (120) · +1: 50.0"));
    EXPECT_EQ(ticker->ticks().value(7), QStringLiteral("nsubj (30) · +1: 66.7"));
    EXPECT_EQ(ticker->ticks().value(5), QStringLiteral("det (10) · +1: 100.0"));

    // A click on the advmod row (row 1), head 1 lists advmod's sentences at layer 2.
    panel.tabs()->setCurrentIndex(2);
    QApplication::processEvents();
    panel.heatmapPlot()->replot();
    const QPointF pos(panel.heatmapPlot()->xAxis->coordToPixel(1.0), panel.heatmapPlot()->yAxis->coordToPixel(1.0));
    QMouseEvent press(QEvent::MouseButtonPress, pos, panel.heatmapPlot()->mapToGlobal(pos), Qt::LeftButton, Qt::LeftButton,
                      Qt::NoModifier);
    QApplication::sendEvent(panel.heatmapPlot(), &press);
    QMouseEvent release(QEvent::MouseButtonRelease, pos, panel.heatmapPlot()->mapToGlobal(pos), Qt::LeftButton,
                        Qt::NoButton, Qt::NoModifier);
    QApplication::sendEvent(panel.heatmapPlot(), &release);
    EXPECT_EQ(panel.relation(), QStringLiteral("advmod"));
    EXPECT_EQ(panel.sentenceList()->count(), 10);
    auto *cellLabel = panel.findChild<QLabel *>(QStringLiteral("cellLabel"));
    EXPECT_TRUE(cellLabel->text().startsWith(QStringLiteral("Layer 2, head 1 · advmod, dependent → head: 10")))
        << cellLabel->text().toStdString();
    // The map itself did not change with the relation.
    EXPECT_EQ(panel.heatmap()->data()->valueSize(), 9);
    EXPECT_TRUE(panel.heatmapTitle().contains(QStringLiteral("best fixed offset for advmod: head = dependent -1, 100.00 %")));
    QString openedId;
    int openedLayer = -1, openedHead = -1;
    QObject::connect(&panel, &ProbingPanel::openSentence, [&](const QString &id, int l, int h) {
        openedId = id;
        openedLayer = l;
        openedHead = h;
    });
    panel.activateSentence(0);
    EXPECT_TRUE(openedId.startsWith(QStringLiteral("ui-3-")));
    EXPECT_EQ(openedLayer, 1);
    EXPECT_EQ(openedHead, 0);
    grabTab(panel, 2, QStringLiteral("/tmp/probing-panel-relations.png"));

    // Other analyses hide the head-accuracy controls.
    EXPECT_TRUE(panel.relationCombo()->isVisible());
    panel.setHeatmapMode(ProbingPanel::HeatmapMode::LayersByHeads);
    EXPECT_FALSE(spin->isEnabled());
}

TEST_F(ProbingPanelTest, LinkProbabilityChartByConstituentSize)
{
    ProbingPanel panel;
    panel.resize(1200, 620);
    panel.show();
    const RunResult r = runAttention(panel, corpus);
    ASSERT_TRUE(r.finished && r.ok) << r.message.toStdString();
    const QJsonObject lp = QJsonDocument::fromJson(panel.reportJson().toUtf8())
                               .object()
                               .value(QStringLiteral("tasks"))
                               .toObject()
                               .value(QStringLiteral("link-probs"))
                               .toObject();
    const QJsonArray perLayer = lp.value(QStringLiteral("per_layer")).toArray();
    ASSERT_GT(perLayer.size(), 1);
    // One line per layer.
    QCustomPlot *plot = panel.linkPlot();
    ASSERT_EQ(plot->graphCount(), perLayer.size());
    // Dependency spans of the corpus (subtree projections), by hand per copy:
    // size-2 gaps: The|cat, Mr.|Vinken, of|Elsevier = 3; every other gap (2 + 4 + 3 = 9)
    // is covered only by the whole sentence. Ten copies: 30 and 90, nothing in 3-4, 5-8, 9+.
    auto ticker = plot->xAxis->ticker().dynamicCast<QCPAxisTickerText>();
    ASSERT_TRUE(ticker);
    EXPECT_EQ(ticker->ticks().value(0), QStringLiteral("2\n30 gaps"));
    EXPECT_EQ(ticker->ticks().value(1), QStringLiteral("3-4\n0 gaps"));
    EXPECT_EQ(ticker->ticks().value(3), QStringLiteral("9+\n0 gaps"));
    EXPECT_EQ(ticker->ticks().value(4), QStringLiteral("sentence\n90 gaps"));
    for (int l = 0; l < perLayer.size(); ++l) {
        const QJsonObject lj = perLayer[l].toObject();
        EXPECT_EQ(lj.value(QStringLiteral("gaps")).toInt(), 120);
        const QJsonObject buckets = lj.value(QStringLiteral("by_constituent_size")).toObject();
        EXPECT_EQ(buckets.value(QStringLiteral("2")).toObject().value(QStringLiteral("gaps")).toInt(), 30);
        EXPECT_EQ(buckets.value(QStringLiteral("sentence")).toObject().value(QStringLiteral("gaps")).toInt(), 90);
        QCPGraph *g = plot->graph(l);
        // The empty buckets have no point: x = 0 ("2") and x = 4 ("sentence").
        ASSERT_EQ(g->dataCount(), 2);
        EXPECT_DOUBLE_EQ(g->data()->at(0)->key, 0.0);
        EXPECT_DOUBLE_EQ(g->data()->at(1)->key, 4.0);
        EXPECT_NEAR(g->data()->at(0)->value, buckets.value(QStringLiteral("2")).toObject().value(QStringLiteral("mean")).toDouble(), 0.00006);
        EXPECT_NEAR(g->data()->at(1)->value,
                    buckets.value(QStringLiteral("sentence")).toObject().value(QStringLiteral("mean")).toDouble(), 0.00006);
        // Legend: layer numbered as the View dock and the JSON, with the JSON's mean and Spearman.
        const QString name = g->name();
        EXPECT_TRUE(name.startsWith(QStringLiteral("layer %1: mean ").arg(l + 1))) << name.toStdString();
        EXPECT_EQ(lj.value(QStringLiteral("layer")).toInt(), l + 1);
        const double mean = name.section(QStringLiteral("mean "), 1).section(QLatin1Char(','), 0, 0).toDouble();
        const double rho = name.section(QStringLiteral("ρ = "), 1).toDouble();
        EXPECT_NEAR(mean, lj.value(QStringLiteral("mean")).toDouble(), 0.00051);
        EXPECT_NEAR(rho, lj.value(QStringLiteral("spearman")).toDouble(), 0.00051);
    }
    grabTab(panel, 3, QStringLiteral("/tmp/probing-panel-links.png"));
}

TEST_F(ProbingPanelTest, ExportsEveryPlotAsPngSvgPdf)
{
    ProbingPanel panel;
    panel.resize(1200, 620);
    // Before any run: only nothing to export.
    for (QAction *a : panel.exportMenu()->actions()) {
        if (!a->isSeparator()) {
            EXPECT_FALSE(a->isEnabled()) << a->objectName().toStdString();
        }
    }
    configureTiny(panel, corpus);
    panel.setTasks({QStringLiteral("sentlen"), QStringLiteral("head-accuracy"), QStringLiteral("link-probs")});
    panel.setLayers(QStringLiteral("1"));
    const RunResult r = runAndWait(panel);
    ASSERT_TRUE(r.finished && r.ok) << r.message.toStdString();
    QStringList enabled;
    for (QAction *a : panel.exportMenu()->actions())
        if (!a->isSeparator() && a->isEnabled())
            enabled << a->objectName();
    EXPECT_EQ(enabled, QStringList({"exportReport", "exportCurves", "exportHeatmap", "exportLinks"}));

    // The widget was never shown: each plot exports on a 640×420 point page, or
    // larger where its layout needs more (the link chart's title and legend).
    const std::pair<QCustomPlot *, const char *> plots[] = {
        {panel.curvePlot(), "curves"}, {panel.heatmapPlot(), "heatmap"}, {panel.linkPlot(), "links"}};
    for (const auto &[plot, name] : plots) {
        QString error;
        const QString png = dir.filePath(QStringLiteral("%1.png").arg(QLatin1String(name)));
        const QString svg = dir.filePath(QStringLiteral("%1.svg").arg(QLatin1String(name)));
        const QString pdf = dir.filePath(QStringLiteral("%1.pdf").arg(QLatin1String(name)));
        ASSERT_TRUE(panel.exportPlot(plot, png, &error)) << error.toStdString();
        ASSERT_TRUE(panel.exportPlot(plot, svg, &error)) << error.toStdString();
        ASSERT_TRUE(panel.exportPlot(plot, pdf, &error)) << error.toStdString();
        QFile s(svg), p(pdf);
        ASSERT_TRUE(s.open(QIODevice::ReadOnly));
        const QString svgText = QString::fromUtf8(s.readAll());
        EXPECT_TRUE(svgText.contains(QStringLiteral("<svg"))) << name;
        const QStringList box = svgText.section(QStringLiteral("viewBox=\""), 1).section(QLatin1Char('"'), 0, 0).split(QLatin1Char(' '));
        ASSERT_EQ(box.size(), 4) << name;
        const double width = box[2].toDouble(), height = box[3].toDouble();
        if (plot == panel.linkPlot()) {
            // Title, axes and the two-column legend under them: at least the default page.
            EXPECT_GE(width, 640.0);
            EXPECT_GE(height, 420.0);
        } else {
            EXPECT_EQ(width, 640.0) << name;
            EXPECT_EQ(height, 420.0) << name;
        }
        EXPECT_GE(height, 420.0) << name;
        // Nothing clipped: every text run starts inside the page.
        int texts = 0;
        for (int at = svgText.indexOf(QStringLiteral("<text")); at >= 0; at = svgText.indexOf(QStringLiteral("<text"), at + 1)) {
            // x is in the coordinates of the enclosing group: QCustomPlot's item texts (the
            // heatmap's cell numbers) are drawn centred on a translated origin, so their own x
            // is negative; the group's matrix(a,b,c,d,e,f) maps it onto the page (a x + c y + e).
            double x = svgText.mid(at).section(QStringLiteral(" x=\""), 1).section(QLatin1Char('"'), 0, 0).toDouble();
            const double y = svgText.mid(at).section(QStringLiteral(" y=\""), 1).section(QLatin1Char('"'), 0, 0).toDouble();
            const int group = svgText.lastIndexOf(QStringLiteral("<g "), at);
            const int matrix = group < 0 ? -1 : svgText.indexOf(QStringLiteral("transform=\"matrix("), group);
            if (matrix >= 0 && matrix < svgText.indexOf(QLatin1Char('>'), group)) {
                const QStringList m = svgText.mid(matrix + 18).section(QLatin1Char(')'), 0, 0).split(QLatin1Char(','));
                if (m.size() == 6)
                    x = m[0].toDouble() * x + m[2].toDouble() * y + m[4].toDouble();
            }
            EXPECT_LT(x, width - 10) << name;
            EXPECT_GE(x, 0.0) << name;
            ++texts;
        }
        EXPECT_GT(texts, 5) << name;
        // PNG at 300 dpi: the page × 300/72 pixels (rounded up), and not blank.
        const QImage image(png);
        ASSERT_FALSE(image.isNull()) << name;
        EXPECT_NEAR(image.width(), width * 300.0 / 72.0, 1.01) << name;
        EXPECT_NEAR(image.height(), height * 300.0 / 72.0, 1.01) << name;
        int dark = 0;
        for (int y = 0; y < image.height(); y += 7)
            for (int x = 0; x < image.width(); x += 7)
                dark += qGray(image.pixel(x, y)) < 128;
        EXPECT_GT(dark, 50) << name;
        ASSERT_TRUE(p.open(QIODevice::ReadOnly));
        EXPECT_TRUE(p.read(5) == "%PDF-") << name;
        for (const QString &f : {png, svg, pdf}) { // for a look by eye
            const QString copy = QStringLiteral("/tmp/probing-export-") + QFileInfo(f).fileName();
            QFile::remove(copy);
            QFile::copy(f, copy);
        }
    }
    // The vector files keep their text: the link chart's legend is in its SVG.
    {
        QFile s(dir.filePath(QStringLiteral("links.svg")));
        ASSERT_TRUE(s.open(QIODevice::ReadOnly));
        EXPECT_TRUE(s.readAll().contains("Spearman correlation"));
    }
    // Failures write nothing: an unknown format, a missing directory.
    QString error;
    const QString gif = dir.filePath(QStringLiteral("heat.gif"));
    EXPECT_FALSE(panel.exportPlot(panel.heatmapPlot(), gif, &error));
    EXPECT_TRUE(error.contains(QStringLiteral("unknown export format"))) << error.toStdString();
    EXPECT_FALSE(QFile::exists(gif));
    const QString missing = dir.filePath(QStringLiteral("no/such/dir/heat.png"));
    EXPECT_FALSE(panel.exportPlot(panel.heatmapPlot(), missing, &error));
    EXPECT_FALSE(QFile::exists(missing));
}

/// The dock's inputs persist in a settings file of its own (QSettings::setPath to a
/// temporary directory for the test, then back).
TEST(ProbingPanelSettings, InputsAreRestoredNextTime)
{
    app();
    QTemporaryDir settingsDir;
    ASSERT_TRUE(settingsDir.isValid());
    const QString previous = qEnvironmentVariable("XDG_CONFIG_HOME");
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, settingsDir.path());
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, settingsDir.path());
    struct Restore {
        QString path;
        ~Restore()
        {
            QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, path);
            QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, path);
        }
    } restore{previous};
    EXPECT_FALSE(QSettings().contains(QStringLiteral("probing/tasks")));
    {
        // Nothing stored: the defaults.
        ProbingPanel panel;
        EXPECT_EQ(panel.checkedTasks(), QStringList({"sentlen", "head-accuracy"}));
        const ProbeRunConfig c = panel.config();
        EXPECT_EQ(c.layers, "all");
        EXPECT_EQ(c.pooling, "both");
        EXPECT_EQ(c.seed, 1u);
        EXPECT_EQ(c.epochs, 0);
        EXPECT_FALSE(c.control);
        EXPECT_FALSE(c.randomInit);
        EXPECT_TRUE(c.train.empty());
        EXPECT_TRUE(c.model.empty());
        EXPECT_FALSE(QSettings().value(QStringLiteral("probing/useOpenCorpus")).toBool());

        panel.setFiles(QStringLiteral("/data/train.conllu"), QStringLiteral("/data/dev.conllu"),
                       QStringLiteral("/data/test.conllu"));
        panel.setModelPath(QStringLiteral("/models/m.safetensors"));
        panel.setTasks({QStringLiteral("treedepth"), QStringLiteral("link-probs")});
        panel.setLayers(QStringLiteral("0,2,4"));
        panel.setPooling(QStringLiteral("cls"));
        panel.setControl(true);
        panel.setRandomInit(true);
        panel.setSeed(42);
        panel.setEpochs(17);
        panel.setUseOpenCorpus(true);
    }
    // The file is where the test put it.
    EXPECT_EQ(QSettings().value(QStringLiteral("probing/seed")).toInt(), 42);
    EXPECT_TRUE(QSettings().fileName().startsWith(settingsDir.path())) << QSettings().fileName().toStdString();
    ProbingPanel again;
    EXPECT_EQ(again.checkedTasks(), QStringList({"treedepth", "link-probs"}));
    EXPECT_EQ(again.modelPath(), QStringLiteral("/models/m.safetensors"));
    const ProbeRunConfig c = again.config();
    EXPECT_EQ(c.train, std::vector<std::string>{"/data/train.conllu"});
    EXPECT_EQ(c.dev, std::vector<std::string>{"/data/dev.conllu"});
    EXPECT_EQ(c.test, std::vector<std::string>{"/data/test.conllu"});
    EXPECT_EQ(c.layers, "0,2,4");
    EXPECT_EQ(c.pooling, "cls");
    EXPECT_TRUE(c.control);
    EXPECT_TRUE(c.randomInit);
    EXPECT_EQ(c.seed, 42u);
    EXPECT_EQ(c.epochs, 17);
    EXPECT_TRUE(QSettings().value(QStringLiteral("probing/useOpenCorpus")).toBool());
    // No task checked is remembered too.
    again.setTasks({});
    ProbingPanel third;
    EXPECT_TRUE(third.checkedTasks().isEmpty());
}

namespace {

/// The View dock's layer and head spin boxes (their tool tips name them).
std::pair<int, int> viewDockLayerHead(MainWindow &w)
{
    int layer = -1, head = -1;
    for (QSpinBox *s : w.controlPanel()->findChildren<QSpinBox *>()) {
        if (s->toolTip().startsWith(QStringLiteral("Encoder layer")))
            layer = s->value();
        if (s->toolTip().startsWith(QStringLiteral("Attention head")))
            head = s->value();
    }
    return {layer, head};
}

} // namespace

TEST_F(ProbingPanelTest, DoubleClickOpensTheSentenceAtTheLayerTheDockShows)
{
    MainWindow w;
    w.show();
    QString error;
    ASSERT_TRUE(w.openCorpus(corpus, &error)) << error.toStdString();
    w.setModelPath(QString::fromStdString(smallModel()));
    ProbingPanel *panel = w.probingPanel();
    configureTiny(*panel, corpus);
    panel->setTasks({QStringLiteral("head-accuracy")});
    const RunResult r = runAndWait(*panel);
    ASSERT_TRUE(r.finished && r.ok) << r.message.toStdString();
    panel->selectCell(2, 3); // index 2, 3: layer 3, head 4
    auto *cellLabel = panel->findChild<QLabel *>(QStringLiteral("cellLabel"));
    ASSERT_TRUE(cellLabel->text().startsWith(QStringLiteral("Layer 3, head 4 "))) << cellLabel->text().toStdString();
    bool shown = false;
    QObject::connect(&w, &MainWindow::analysisShown, [&](bool) { shown = true; });
    const QString id = panel->sentenceList()->item(0)->data(Qt::UserRole).toString();
    panel->activateSentence(0);
    ASSERT_TRUE(waitFor([&] { return shown; }, 60000));
    QApplication::processEvents();
    EXPECT_EQ(QString::fromStdString(w.document()->sentence()->id), id);
    // The View dock shows the numbers the probing dock showed.
    EXPECT_EQ(viewDockLayerHead(w), std::make_pair(3, 4));
    EXPECT_EQ(w.viewState().layer, 2);
    EXPECT_EQ(w.viewState().head, 3);
}

TEST_F(ProbingPanelTest, OpensAProbedSentenceThatIsNotInTheOpenCorpus)
{
    MainWindow w;
    w.show();
    w.setModelPath(QString::fromStdString(smallModel()));
    ASSERT_FALSE(w.corpusPanel()->model()->corpus()); // no corpus open
    ProbingPanel *panel = w.probingPanel();
    configureTiny(*panel, corpus);
    panel->setTasks({QStringLiteral("head-accuracy")});
    const RunResult r = runAndWait(*panel);
    ASSERT_TRUE(r.finished && r.ok) << r.message.toStdString();
    // advmod: only "Dogs bark loudly ." (ui-3-*).
    panel->setRelation(QStringLiteral("advmod"));
    panel->selectCell(1, 2);
    ASSERT_EQ(panel->sentenceList()->count(), 10);
    const QString id = panel->sentenceList()->item(0)->data(Qt::UserRole).toString();
    ASSERT_TRUE(id.startsWith(QStringLiteral("ui-3-")));

    // The run's own copy of the sentence, read back from its file.
    const auto s = panel->runSentence(id);
    ASSERT_TRUE(s);
    EXPECT_EQ(s->words(), (std::vector<std::string>{"Dogs", "bark", "loudly", "."}));
    ASSERT_TRUE(s->dependency);
    EXPECT_FALSE(panel->runSentence(QStringLiteral("nowhere")));

    bool shown = false;
    QObject::connect(&w, &MainWindow::analysisShown, [&](bool) { shown = true; });
    panel->activateSentence(0);
    ASSERT_TRUE(waitFor([&] { return shown; }, 60000));
    QApplication::processEvents();
    // Shown as the current document, with its gold tree, at the cell's layer/head;
    // the corpus dock is untouched.
    ASSERT_TRUE(w.document()->sentence());
    EXPECT_EQ(QString::fromStdString(w.document()->sentence()->id), id);
    EXPECT_EQ(w.document()->sentence()->words(), (std::vector<std::string>{"Dogs", "bark", "loudly", "."}));
    ASSERT_TRUE(w.document()->sentence()->dependency);
    EXPECT_EQ(w.document()->sentence()->metadataValue("dependency_source"), "gold");
    EXPECT_EQ(viewDockLayerHead(w), std::make_pair(2, 3));
    EXPECT_EQ(w.viewState().layer, 1);
    EXPECT_EQ(w.viewState().head, 2);
    EXPECT_FALSE(w.corpusPanel()->model()->corpus());

    // With the open corpus as the run's input, the sentence comes from it.
    ProbingPanel own;
    own.setCorpusSource([] {
        auto v = std::make_shared<std::vector<Sentence>>();
        auto r = readCorpusFile((QString::fromUtf8(TREELENS_TEST_DATA_DIR) + QStringLiteral("/ui/three.conllu")).toStdString(), CorpusFormat::Conllu);
        if (r)
            for (int i = 0; i < 10; ++i)
                for (auto s : *r) {
                    s.id += "-copy" + std::to_string(i);
                    v->push_back(s);
                }
        return std::shared_ptr<const std::vector<Sentence>>(v);
    });
    configureTiny(own, QString());
    own.setUseOpenCorpus(true);
    own.setTasks({QStringLiteral("head-accuracy")});
    const RunResult r2 = runAndWait(own);
    ASSERT_TRUE(r2.finished && r2.ok) << r2.message.toStdString();
    const auto fromCorpus = own.runSentence(QStringLiteral("ui-2-copy3"));
    ASSERT_TRUE(fromCorpus);
    EXPECT_EQ(fromCorpus->words().size(), 7u);
}

TEST_F(ProbingPanelTest, StructuralAndUnsupervisedParsingTabsShowTheRunsResults)
{
    ProbingPanel panel;
    panel.resize(1300, 700);
    configureTiny(panel, corpus);
    panel.setTasks({QStringLiteral("structural-distance"), QStringLiteral("structural-depth"),
                    QStringLiteral("unsupervised-parsing")});
    panel.setLayers(QStringLiteral("0,2"));
    panel.setRank(16); // the structural probes' rank reaches the run
    const RunResult r = runAndWait(panel);
    ASSERT_TRUE(r.finished && r.ok) << r.message.toStdString();
    const QJsonObject root = QJsonDocument::fromJson(panel.reportJson().toUtf8()).object();
    EXPECT_EQ(root.value(QStringLiteral("settings")).toObject().value(QStringLiteral("structural_probe")).toObject().value(
                  QStringLiteral("rank")).toInt(),
              16);
    const QJsonObject tasks = root.value(QStringLiteral("tasks")).toObject();

    // Both probes are offered; the view shows the chosen one's test sentences,
    // as many as the report counts, at the report's layers.
    auto *probe = panel.findChild<QComboBox *>(QStringLiteral("structuralTask"));
    ASSERT_NE(probe, nullptr);
    ASSERT_EQ(probe->count(), 2);
    panel.setStructuralTask(QStringLiteral("structural-distance"));
    StructuralView *sv = panel.structuralView();
    ASSERT_TRUE(sv->result());
    EXPECT_EQ(sv->result()->kind, StructuralProbeKind::Distance);
    const int testCount = tasks.value(QStringLiteral("structural-distance"))
                              .toObject()
                              .value(QStringLiteral("examples"))
                              .toObject()
                              .value(QStringLiteral("test"))
                              .toInt();
    EXPECT_GT(testCount, 0);
    EXPECT_EQ(static_cast<int>(sv->result()->sentences.size()), testCount);
    EXPECT_EQ(sv->result()->byLayer.size(), 2u);
    panel.setStructuralTask(QStringLiteral("structural-depth"));
    ASSERT_TRUE(sv->result());
    EXPECT_EQ(sv->result()->kind, StructuralProbeKind::Depth);

    // Opening a sentence: probe layer 2 (output of encoder layer 2) shows the
    // attention of that layer (0-based 1), with the sentence itself.
    sv->setLayer(2);
    QString openedId;
    int openedLayer = -1;
    std::shared_ptr<const Sentence> opened;
    QObject::connect(&panel, &ProbingPanel::openSentence,
                     [&](const QString &id, int layer, int, std::shared_ptr<const Sentence> s) {
                         openedId = id;
                         openedLayer = layer;
                         opened = std::move(s);
                     });
    sv->activateSentence(0);
    ASSERT_TRUE(opened);
    EXPECT_EQ(openedLayer, 1);
    EXPECT_EQ(openedId, QString::fromStdString(opened->id));
    EXPECT_TRUE(openedId.startsWith(QStringLiteral("ui-")));

    // Unsupervised parsing over the 30 sentences (constituency trees predicted by
    // the shipped parser): the view holds the report's result.
    InductionView *iv = panel.inductionView();
    ASSERT_TRUE(iv->result());
    EXPECT_TRUE(iv->result()->applicable);
    EXPECT_EQ(static_cast<int>(iv->result()->sentenceIds.size()),
              tasks.value(QStringLiteral("unsupervised-parsing")).toObject().value(QStringLiteral("sentences")).toInt());
    EXPECT_EQ(iv->result()->sentenceIds.size(), iv->result()->report.all.model.perSentence.size());

    // Both export from the menu's targets.
    for (const char *ext : {"png", "svg", "pdf"}) {
        const QString a = dir.filePath(QStringLiteral("structural.") + ext), b = dir.filePath(QStringLiteral("induction.") + ext);
        EXPECT_TRUE(sv->exportPlots(a)) << a.toStdString();
        EXPECT_TRUE(iv->exportPlots(b)) << b.toStdString();
        EXPECT_GT(QFileInfo(a).size(), 1000);
        EXPECT_GT(QFileInfo(b).size(), 1000);
    }
    if (qEnvironmentVariableIsSet("TREELENS_UI_SHOTS")) {
        panel.show();
        QApplication::processEvents();
        for (int tab : {4, 5}) {
            panel.findChild<QTabWidget *>(QStringLiteral("probingTabs"))->setCurrentIndex(tab);
            QApplication::processEvents();
            panel.grab().save(QDir(qEnvironmentVariable("TREELENS_UI_SHOTS")).filePath(QStringLiteral("probing-panel-tab%1.png").arg(tab)));
        }
    }
}

// ---------------------------------------------------------------------------
// Several encoders (the seed paper's Table 6: the Tree Transformer against the
// sequential baseline): the checked models run one after another, one report
// each; the Compare tab sets them side by side with the rules of
// scripts/probing_tables.py, written out again below from the reports' JSON.

namespace {

std::string baselineModel() { return findShippedModel("transformer-en-small.safetensors"); }

/// Points the settings at a temporary directory for the scope, then back.
struct ScopedSettings {
    QTemporaryDir dir;
    QString previous = qEnvironmentVariable("XDG_CONFIG_HOME");
    ScopedSettings()
    {
        QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, dir.path());
        QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, dir.path());
    }
    ~ScopedSettings()
    {
        QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, previous);
        QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, previous);
    }
};

/// The Compare table's row of `task` whose metric starts with `metric` (-1: none).
int compareRow(QTableWidget *t, const QString &task, const QString &metric)
{
    for (int r = 0; r < t->rowCount(); ++r)
        if (t->item(r, 0)->text() == task && t->item(r, 1)->text().startsWith(metric))
            return r;
    return -1;
}

/// probing_tables.py's pick, by hand: the layer entry with the lowest dev MSE
/// (SentLen) for `pooling`; the first of equal ones.
QJsonObject lowestDevMse(const QJsonArray &layers, const QString &pooling)
{
    QJsonObject best;
    double lowest = std::numeric_limits<double>::infinity();
    for (const auto &v : layers) {
        const QJsonObject l = v.toObject();
        if (!l.contains(pooling))
            continue;
        const double mse = l.value(pooling).toObject().value(QStringLiteral("dev")).toObject().value(QStringLiteral("mse")).toDouble();
        if (mse < lowest) {
            lowest = mse;
            best = l;
        }
    }
    return best;
}

/// The structural probe's layer entry with the lowest dev loss; the first of equal ones.
QJsonObject lowestDevLoss(const QJsonArray &layers)
{
    QJsonObject best;
    double lowest = std::numeric_limits<double>::infinity();
    for (const auto &v : layers) {
        const QJsonObject l = v.toObject();
        const double loss = l.value(QStringLiteral("dev")).toObject().value(QStringLiteral("loss")).toDouble();
        if (loss < lowest) {
            lowest = loss;
            best = l;
        }
    }
    return best;
}

QJsonObject allRelations(const QJsonObject &tasks)
{
    for (const auto &r : tasks.value(QStringLiteral("head-accuracy")).toObject().value(QStringLiteral("relations")).toArray())
        if (r.toObject().value(QStringLiteral("relation")).toString() == QLatin1String("all"))
            return r.toObject();
    return {};
}

QJsonObject get(const QJsonObject &o, const char *a, const char *b = nullptr, const char *c = nullptr)
{
    QJsonObject x = o.value(QLatin1String(a)).toObject();
    if (b)
        x = x.value(QLatin1String(b)).toObject();
    if (c)
        x = x.value(QLatin1String(c)).toObject();
    return x;
}

double num(const QJsonObject &o, const char *key) { return o.value(QLatin1String(key)).toDouble(); }

/// printf-formatted, as Python's format() writes numbers (exact ties to even: 0.25 →
/// "0.2"); QString::asprintf rounds ties away from zero.
QString pyf(const char *format, ...)
{
    char buf[512];
    va_list args;
    va_start(args, format);
    std::vsnprintf(buf, sizeof buf, format, args);
    va_end(args);
    return QString::fromUtf8(buf);
}

/// The heatmap's cells against a layers × heads grid of the JSON (rounded to 0.01 there).
bool heatmapIs(ProbingPanel &panel, const QJsonArray &grid)
{
    const int L = static_cast<int>(grid.size()), H = static_cast<int>(grid.first().toArray().size());
    if (panel.heatmap()->data()->keySize() != H || panel.heatmap()->data()->valueSize() != L)
        return false;
    for (int l = 0; l < L; ++l)
        for (int h = 0; h < H; ++h)
            if (std::abs(panel.heatmap()->data()->cell(h, l) - grid[l].toArray()[h].toDouble()) > 0.0051)
                return false;
    return true;
}

} // namespace

class ProbingPanelModelsTest : public ProbingPanelTest {
protected:
    void SetUp() override
    {
        ProbingPanelTest::SetUp();
        if (IsSkipped())
            return;
        if (baselineModel().empty())
            GTEST_SKIP() << "SKIPPED: the shipped model resources/models/transformer-en-small.safetensors was not found";
        tree = QString::fromStdString(smallModel());
        base = QString::fromStdString(baselineModel());
    }
    QString tree, base;
};

TEST_F(ProbingPanelModelsTest, TwoModelsRunOneAfterAnotherAndCompareSideBySide)
{
    ScopedSettings settings; // the shipped models only in the list
    ProbingPanel panel;
    panel.resize(1500, 720);
    panel.show();
    configureTiny(panel, corpus);
    panel.setModelPaths({tree, base});
    EXPECT_EQ(panel.modelPaths(), QStringList({tree, base}));
    EXPECT_EQ(panel.modelPath(), tree);
    panel.setTasks({QStringLiteral("sentlen"), QStringLiteral("treedepth"), QStringLiteral("structural-distance"),
                    QStringLiteral("structural-depth"), QStringLiteral("head-accuracy"), QStringLiteral("constituent-mass"),
                    QStringLiteral("attention-mst"), QStringLiteral("link-probs"), QStringLiteral("unsupervised-parsing")});
    panel.setPooling(QStringLiteral("both"));
    panel.setControl(true);
    panel.setRandomInit(true);
    QStringList progress;
    QObject::connect(&panel, &ProbingPanel::progressText, [&](const QString &line) { progress << line; });
    const RunResult r = runAndWait(panel, 480000);
    ASSERT_TRUE(r.finished) << "timed out; status: " << panel.statusLabel()->text().toStdString();
    ASSERT_TRUE(r.ok) << r.message.toStdString();

    // One report per model, in the list's order; progress says which model.
    ASSERT_EQ(panel.reportCount(), 2);
    EXPECT_EQ(panel.reportModelName(0), QStringLiteral("tree-transformer-en-small"));
    EXPECT_EQ(panel.reportModelName(1), QStringLiteral("transformer-en-small"));
    int lastFirst = -1, firstSecond = -1;
    for (int i = 0; i < progress.size(); ++i) {
        if (progress[i].startsWith(QStringLiteral("model 1/2: tree-transformer-en-small: ")))
            lastFirst = i;
        if (progress[i].startsWith(QStringLiteral("model 2/2: transformer-en-small: ")) && firstSecond < 0)
            firstSecond = i;
    }
    ASSERT_GE(lastFirst, 0);
    ASSERT_GT(firstSecond, lastFirst) << "model 2 started before model 1 ended";
    // The learning curves of the second model are keyed by its name.
    bool secondCurve = false;
    for (int i = 0; i < panel.curvePlot()->graphCount(); ++i)
        secondCurve = secondCurve ||
                      panel.curvePlot()->graph(i)->property("probeKey").toString().startsWith(QStringLiteral("transformer-en-small · "));
    EXPECT_TRUE(secondCurve);

    // The JSON: {"models": [report, report]}, each as the run printed it.
    const QJsonObject root = QJsonDocument::fromJson(panel.reportJson().toUtf8()).object();
    const QJsonArray models = root.value(QStringLiteral("models")).toArray();
    ASSERT_EQ(models.size(), 2);
    EXPECT_EQ(root.size(), 1);
    std::vector<QJsonObject> tasks;
    for (int i = 0; i < 2; ++i) {
        EXPECT_EQ(models[i].toObject(), QJsonDocument::fromJson(QByteArray::fromStdString(probeReportJson(*panel.report(i)))).object());
        tasks.push_back(models[i].toObject().value(QStringLiteral("tasks")).toObject());
    }
    EXPECT_EQ(get(models[0].toObject(), "model").value(QStringLiteral("name")).toString(), QStringLiteral("tree-transformer-en-small"));
    EXPECT_EQ(get(models[1].toObject(), "model").value(QStringLiteral("name")).toString(), QStringLiteral("transformer-en-small"));

    // The Compare tab: first of the result tabs; a column per model, then the majority baseline.
    EXPECT_EQ(panel.tabs()->indexOf(panel.compareTab()), 1);
    EXPECT_EQ(panel.tabs()->tabText(1), QStringLiteral("Compare"));
    EXPECT_EQ(panel.tabs()->currentWidget(), panel.compareTab());
    QTableWidget *t = panel.compareTable();
    ASSERT_EQ(t->columnCount(), 5);
    // The expected cells are written as probing_tables.py writes them.
    ASSERT_EQ(pyf("%.1f %.1f %.3f %+d", 0.25, 12.25, 0.0625, 0), QStringLiteral("0.2 12.2 0.062 +0"));
    EXPECT_EQ(t->horizontalHeaderItem(2)->text(), QStringLiteral("tree-transformer-en-small"));
    EXPECT_EQ(t->horizontalHeaderItem(3)->text(), QStringLiteral("transformer-en-small"));
    EXPECT_EQ(t->horizontalHeaderItem(4)->text(), QStringLiteral("majority baseline"));
    auto cell = [t](int row, int model) { return t->item(row, 2 + model)->text(); };

    // SentLen, mean and [CLS] pooling: test R² at the layer of the lowest dev MSE.
    const int meanRow = compareRow(t, QStringLiteral("sentlen"), QStringLiteral("test R², mean pooling"));
    const int clsRow = compareRow(t, QStringLiteral("sentlen"), QStringLiteral("test R², [CLS]"));
    ASSERT_GE(meanRow, 0);
    ASSERT_GE(clsRow, 0);
    for (int m = 0; m < 2; ++m) {
        const QJsonArray layers = get(tasks[m], "sentlen").value(QStringLiteral("layers")).toArray();
        ASSERT_EQ(layers.size(), 2);
        const QJsonObject bm = lowestDevMse(layers, QStringLiteral("mean")), bc = lowestDevMse(layers, QStringLiteral("cls"));
        EXPECT_EQ(cell(meanRow, m), pyf("%.3f (%d)", num(get(bm, "mean", "test"), "r2"), bm.value(QStringLiteral("layer")).toInt()));
        EXPECT_EQ(cell(clsRow, m), pyf("%.3f (%d)", num(get(bc, "cls", "test"), "r2"), bc.value(QStringLiteral("layer")).toInt()));
    }
    // The majority column: the mean predictor's R², from the first report.
    EXPECT_EQ(t->item(meanRow, 4)->text(), pyf("R² %.3f", num(get(tasks[0], "sentlen", "baselines", "mean"), "r2")));
    // Selectivity (task − control) at the mean-pooling layer picked; the
    // random-init encoder's mean pooling at its own best layer by dev.
    const int selRow = compareRow(t, QStringLiteral("sentlen"), QStringLiteral("selectivity"));
    const int riRow = compareRow(t, QStringLiteral("sentlen"), QStringLiteral("test R², random-init"));
    ASSERT_GE(selRow, 0);
    ASSERT_GE(riRow, 0);
    for (int m = 0; m < 2; ++m) {
        const QJsonObject bm = lowestDevMse(get(tasks[m], "sentlen").value(QStringLiteral("layers")).toArray(), QStringLiteral("mean"));
        EXPECT_EQ(cell(selRow, m), pyf("%.3f", num(get(bm, "mean"), "selectivity")));
        const QJsonObject rb = lowestDevMse(get(tasks[m], "sentlen", "random_init").value(QStringLiteral("layers")).toArray(),
                                            QStringLiteral("mean"));
        ASSERT_FALSE(rb.isEmpty());
        EXPECT_EQ(cell(riRow, m), pyf("%.3f (%d)", num(get(rb, "mean", "test"), "r2"), rb.value(QStringLiteral("layer")).toInt()));
    }
    // TreeDepth: accuracy, majority class in the last column.
    const int tdRow = compareRow(t, QStringLiteral("treedepth"), QStringLiteral("test accuracy %, mean pooling"));
    ASSERT_GE(tdRow, 0);
    EXPECT_EQ(t->item(tdRow, 4)->text(), pyf("%.1f", num(get(tasks[0], "treedepth", "baselines", "majority"), "accuracy")));

    // Structural distance: UUAS / DSpr at the layer of the lowest dev loss.
    const int sdRow = compareRow(t, QStringLiteral("structural-distance"), QStringLiteral("test UUAS"));
    ASSERT_GE(sdRow, 0);
    for (int m = 0; m < 2; ++m) {
        const QJsonObject b = lowestDevLoss(get(tasks[m], "structural-distance").value(QStringLiteral("layers")).toArray());
        EXPECT_EQ(cell(sdRow, m), pyf("%.1f / %.3f (%d)", num(get(b, "test"), "uuas"), num(get(b, "test"), "dspr"),
                                                     b.value(QStringLiteral("layer")).toInt()));
    }
    // Attention, layer/head from 1: the best dep→head head of all relations (its
    // accuracy the grid's maximum), the best fixed offset, the constituent mass and
    // the MST's UUAS of the best head.
    const int haRow = compareRow(t, QStringLiteral("head-accuracy"), QStringLiteral("best head"));
    const int offRow = compareRow(t, QStringLiteral("head-accuracy"), QStringLiteral("best fixed-offset baseline"));
    const int cmRow = compareRow(t, QStringLiteral("constituent-mass"), QStringLiteral("best head"));
    const int mstRow = compareRow(t, QStringLiteral("attention-mst"), QStringLiteral("best head"));
    ASSERT_GE(haRow, 0);
    ASSERT_GE(offRow, 0);
    ASSERT_GE(cmRow, 0);
    ASSERT_GE(mstRow, 0);
    std::vector<QJsonArray> grids;
    for (int m = 0; m < 2; ++m) {
        const QJsonObject all = allRelations(tasks[m]);
        const QJsonObject bd = get(all, "best_dep_to_head");
        double top = -1.0;
        grids.push_back(all.value(QStringLiteral("dep_to_head")).toArray());
        for (const auto &row : grids.back())
            for (const auto &v : row.toArray())
                top = std::max(top, v.toDouble());
        EXPECT_DOUBLE_EQ(num(bd, "accuracy"), top);
        EXPECT_EQ(cell(haRow, m), pyf("%.1f (%d/%d)", num(bd, "accuracy"), bd.value(QStringLiteral("layer")).toInt(),
                                                    bd.value(QStringLiteral("head")).toInt()));
        const QJsonObject bo = get(all, "best_offset");
        EXPECT_EQ(cell(offRow, m), pyf("%+d: %.1f", bo.value(QStringLiteral("offset")).toInt(), num(bo, "accuracy")));
        const QJsonObject cm = get(tasks[m], "constituent-mass", "best");
        EXPECT_EQ(cell(cmRow, m), pyf("%.3f / %.3f (%d/%d)", num(cm, "mass"), num(cm, "baseline"),
                                                    cm.value(QStringLiteral("layer")).toInt(), cm.value(QStringLiteral("head")).toInt()));
        const QJsonObject mst = get(tasks[m], "attention-mst", "best");
        EXPECT_EQ(cell(mstRow, m), pyf("%.1f (%d/%d)", num(mst, "uuas"), mst.value(QStringLiteral("layer")).toInt(),
                                                     mst.value(QStringLiteral("head")).toInt()));
    }
    // Link probabilities, a row per layer from 1: mean (Spearman), "n/a" without a Spearman.
    // The plain Transformer has no prior and so no link probabilities: its column is empty
    // ("—"; it once showed links of 1.00 computed with C = 1).
    EXPECT_FALSE(tasks[1].contains(QStringLiteral("link-probs")));
    for (int l = 0; l < 4; ++l) {
        const int row = compareRow(t, QStringLiteral("link-probs"), QStringLiteral("layer %1:").arg(l + 1));
        ASSERT_GE(row, 0);
        EXPECT_EQ(cell(row, 1), QStringLiteral("\u2014")) << "layer " << l + 1 << ": " << cell(row, 1).toStdString();
    }
    for (int m = 0; m < 1; ++m) {
        const QJsonArray per = get(tasks[m], "link-probs").value(QStringLiteral("per_layer")).toArray();
        ASSERT_EQ(per.size(), 4);
        for (int l = 0; l < 4; ++l) {
            const int row = compareRow(t, QStringLiteral("link-probs"), QStringLiteral("layer %1:").arg(l + 1));
            ASSERT_GE(row, 0);
            const QJsonObject p = per[l].toObject();
            const QJsonValue rho = p.value(QStringLiteral("spearman"));
            EXPECT_EQ(cell(row, m), pyf("%.2f (", num(p, "mean")) + (rho.isDouble() ? pyf("%.2f", rho.toDouble()) : QStringLiteral("n/a")) +
                                        QLatin1Char(')'));
        }
    }
    // Unsupervised parsing: the Tree Transformer's F1; "n/a" for the baseline
    // encoder (no constituent prior), whose right-branching baseline is scored.
    const int upRow = compareRow(t, QStringLiteral("unsupervised-parsing"), QStringLiteral("model (start at the top layer): F1"));
    const int rbRow = compareRow(t, QStringLiteral("unsupervised-parsing"), QStringLiteral("right-branching: F1"));
    ASSERT_GE(upRow, 0);
    ASSERT_GE(rbRow, 0);
    const QJsonObject up = get(tasks[0], "unsupervised-parsing", "all", "model");
    EXPECT_EQ(cell(upRow, 0), pyf("%.1f / %.1f", num(up, "sentence_f1"), num(up, "corpus_f1")));
    EXPECT_FALSE(get(tasks[1], "unsupervised-parsing").value(QStringLiteral("applicable")).toBool());
    EXPECT_EQ(cell(upRow, 1), QStringLiteral("n/a"));
    const QJsonObject rb = get(tasks[1], "unsupervised-parsing", "all", "right_branching");
    EXPECT_EQ(cell(rbRow, 1), pyf("%.1f / %.1f", num(rb, "sentence_f1"), num(rb, "corpus_f1")));
    // From each start layer: the Tree Transformer's; none for the baseline encoder.
    const QJsonArray starts = get(tasks[0], "unsupervised-parsing").value(QStringLiteral("by_start_layer")).toArray();
    ASSERT_EQ(starts.size(), 4);
    const int s1Row = compareRow(t, QStringLiteral("unsupervised-parsing"), QStringLiteral("model starting at layer 1:"));
    ASSERT_GE(s1Row, 0);
    const QJsonObject s1 = get(starts[0].toObject(), "all");
    EXPECT_EQ(cell(s1Row, 0), pyf("%.1f / %.1f", num(s1, "sentence_f1"), num(s1, "corpus_f1")));
    EXPECT_EQ(cell(s1Row, 1), QStringLiteral("n/a"));
    EXPECT_GE(compareRow(t, QStringLiteral("unsupervised-parsing"), QStringLiteral("model starting at layer 4:")), 0);
    EXPECT_LT(compareRow(t, QStringLiteral("unsupervised-parsing"), QStringLiteral("model starting at layer 5:")), 0);

    // The Model selector routes the result tabs: the Attention heatmap shows the
    // chosen report's grid; the two differ.
    QComboBox *selector = panel.modelSelector();
    ASSERT_TRUE(selector->isVisible());
    ASSERT_EQ(selector->count(), 2);
    EXPECT_NE(grids[0], grids[1]);
    panel.setHeatmapTask(QStringLiteral("head-accuracy"));
    panel.setRelation(QStringLiteral("all"));
    panel.setDirection(ArcDirection::DepToHead);
    panel.setHeatmapMode(ProbingPanel::HeatmapMode::LayersByHeads);
    EXPECT_EQ(panel.currentReport(), 0);
    EXPECT_TRUE(heatmapIs(panel, grids[0]));
    EXPECT_TRUE(panel.heatmapTitle().startsWith(QStringLiteral("tree-transformer-en-small: Head accuracy"))) << panel.heatmapTitle().toStdString();
    selector->setCurrentIndex(1);
    EXPECT_EQ(panel.currentReport(), 1);
    EXPECT_TRUE(panel.heatmapTitle().startsWith(QStringLiteral("transformer-en-small: Head accuracy"))) << panel.heatmapTitle().toStdString();
    EXPECT_TRUE(heatmapIs(panel, grids[1]));
    EXPECT_FALSE(heatmapIs(panel, grids[0]));
    // ... and the Results table: the second model's SentLen rows.
    const QJsonArray baseLayers = get(tasks[1], "sentlen").value(QStringLiteral("layers")).toArray();
    EXPECT_EQ(panel.resultsTable()->item(0, 0)->text(), QStringLiteral("sentlen"));
    EXPECT_DOUBLE_EQ(cellNumber(panel.resultsTable(), 0, 5),
                     num(get(baseLayers[0].toObject(), panel.resultsTable()->item(0, 2)->text().toLatin1().constData(), "test"), "r2"));
    panel.setCurrentReport(0);
    EXPECT_TRUE(heatmapIs(panel, grids[0]));

    // Export: the JSON of both reports, the Compare table as CSV.
    QString error;
    const QString jsonPath = dir.filePath(QStringLiteral("compare.json")), csvPath = dir.filePath(QStringLiteral("compare.csv"));
    ASSERT_TRUE(panel.exportJson(jsonPath, &error)) << error.toStdString();
    ASSERT_TRUE(panel.exportCsv(csvPath, &error)) << error.toStdString();
    QFile jf(jsonPath), cf(csvPath);
    ASSERT_TRUE(jf.open(QIODevice::ReadOnly));
    EXPECT_EQ(QString::fromUtf8(jf.readAll()).trimmed(), panel.reportJson());
    ASSERT_TRUE(cf.open(QIODevice::ReadOnly));
    const QStringList lines = QString::fromUtf8(cf.readAll()).trimmed().split(QLatin1Char('\n'));
    ASSERT_EQ(lines.size(), t->rowCount() + 1);
    EXPECT_EQ(lines[0], QStringLiteral("task,metric,tree-transformer-en-small,transformer-en-small,majority baseline"));
    EXPECT_TRUE(lines[1 + mstRow].startsWith(QStringLiteral("attention-mst,"))) << lines[1 + mstRow].toStdString();
    EXPECT_TRUE(lines[1 + mstRow].contains(cell(mstRow, 1)));
    for (const QString &f : {jsonPath, csvPath}) { // for a look, and for scripts/probing_tables.py
        const QString copy = QStringLiteral("/tmp/probing-") + QFileInfo(f).fileName();
        QFile::remove(copy);
        QFile::copy(f, copy);
    }

    // A look by eye.
    panel.tabs()->setCurrentWidget(panel.compareTab());
    QApplication::processEvents();
    panel.grab().save(QStringLiteral("/tmp/probing-panel-compare.png"));
    if (QFileInfo(QStringLiteral("/tmp/h")).isDir())
        panel.grab().save(QStringLiteral("/tmp/h/panel-compare.png"));
    panel.tabs()->setCurrentIndex(3); // Attention
    QApplication::processEvents();
    panel.heatmapPlot()->replot();
    panel.grab().save(QStringLiteral("/tmp/probing-panel-compare-attention.png"));
    panel.tabs()->setCurrentIndex(0); // Learning curves, keyed by model
    QApplication::processEvents();
    panel.curvePlot()->replot();
    panel.grab().save(QStringLiteral("/tmp/probing-panel-compare-curves.png"));

    // A run of one model again: one report, its JSON as before, no Compare tab.
    panel.setModelPath(base);
    panel.setTasks({QStringLiteral("head-accuracy")});
    panel.setLayers(QStringLiteral("1"));
    const RunResult one = runAndWait(panel);
    ASSERT_TRUE(one.finished && one.ok) << one.message.toStdString();
    EXPECT_EQ(panel.reportCount(), 1);
    EXPECT_LT(panel.tabs()->indexOf(panel.compareTab()), 0);
    EXPECT_EQ(panel.tabs()->count(), 6);
    EXPECT_FALSE(selector->isVisible());
    EXPECT_EQ(panel.reportJson(), QString::fromStdString(probeReportJson(*panel.report(0))));
    EXPECT_EQ(get(QJsonDocument::fromJson(panel.reportJson().toUtf8()).object(), "model").value(QStringLiteral("name")).toString(),
              QStringLiteral("transformer-en-small"));
}

TEST_F(ProbingPanelModelsTest, CancelStopsTheWholeSeries)
{
    ProbingPanel panel;
    configureTiny(panel, corpus);
    panel.setModelPaths({tree, base});
    panel.setTasks({QStringLiteral("sentlen"), QStringLiteral("treedepth"), QStringLiteral("head-accuracy")});
    panel.setLayers(QStringLiteral("all"));
    panel.setPooling(QStringLiteral("both"));
    panel.setEpochs(200);
    QStringList progress;
    QObject::connect(&panel, &ProbingPanel::progressText, [&](const QString &line) { progress << line; });
    RunResult r;
    QObject::connect(&panel, &ProbingPanel::finished, [&](bool ok, const QString &m) {
        r.finished = true;
        r.ok = ok;
        r.message = m;
    });
    panel.run();
    ASSERT_TRUE(panel.isRunning());
    // Cancel while the first model trains its first probe: the second never starts.
    waitFor([&] { return panel.curvePointCount() > 0 || r.finished; }, 120000);
    ASSERT_FALSE(r.finished) << r.message.toStdString();
    panel.cancel();
    ASSERT_TRUE(waitFor([&] { return r.finished; }, 120000)) << "cancel did not stop the series";
    EXPECT_FALSE(r.ok);
    EXPECT_EQ(r.message, QStringLiteral("Cancelled."));
    EXPECT_FALSE(panel.isRunning());
    // Events queued by the worker before it stopped have arrived.
    for (int i = 0; i < 20; ++i)
        QApplication::processEvents(QEventLoop::AllEvents, 10);
    EXPECT_FALSE(progress.filter(QStringLiteral("model 1/2: ")).isEmpty());
    EXPECT_TRUE(progress.filter(QStringLiteral("model 2/2: ")).isEmpty()) << progress.join(QLatin1Char('\n')).toStdString();
    EXPECT_EQ(panel.reportCount(), 0);
    EXPECT_TRUE(panel.reportJson().isEmpty());
    EXPECT_LT(panel.tabs()->indexOf(panel.compareTab()), 0);
}

TEST_F(ProbingPanelModelsTest, ModelListIsPrefilledAndRestored)
{
    ScopedSettings settings;
    ASSERT_TRUE(settings.dir.isValid());
    {
        // Nothing stored: the shipped encoders, none checked (the default model).
        ProbingPanel panel;
        EXPECT_EQ(panel.listedModelPaths(), QStringList({tree, base}));
        EXPECT_TRUE(panel.modelPaths().isEmpty());
        EXPECT_TRUE(panel.modelPath().isEmpty());
        // setModelPath: one checked model, added when absent.
        panel.setModelPath(QStringLiteral("/models/a.safetensors"));
        EXPECT_EQ(panel.listedModelPaths(), QStringList({tree, base, QStringLiteral("/models/a.safetensors")}));
        EXPECT_EQ(panel.modelPaths(), QStringList({QStringLiteral("/models/a.safetensors")}));
        EXPECT_EQ(panel.config().model, "/models/a.safetensors");
        panel.setModelPaths({QStringLiteral("/models/b.safetensors"), tree});
        EXPECT_EQ(panel.modelPaths(), QStringList({tree, QStringLiteral("/models/b.safetensors")})); // the list's order
        EXPECT_EQ(panel.config().model, tree.toStdString());
        // Remove: the selected rows (here the baseline encoder).
        QListWidget *list = panel.modelList();
        list->clearSelection();
        list->item(1)->setSelected(true);
        auto *remove = panel.findChild<QPushButton *>(QStringLiteral("removeModel"));
        ASSERT_TRUE(remove);
        ASSERT_TRUE(remove->isEnabled());
        remove->click();
        EXPECT_EQ(panel.listedModelPaths(),
                  QStringList({tree, QStringLiteral("/models/a.safetensors"), QStringLiteral("/models/b.safetensors")}));
    }
    {
        // Restored as left: a removed shipped encoder stays removed.
        ProbingPanel panel;
        EXPECT_EQ(panel.listedModelPaths(),
                  QStringList({tree, QStringLiteral("/models/a.safetensors"), QStringLiteral("/models/b.safetensors")}));
        EXPECT_EQ(panel.modelPaths(), QStringList({tree, QStringLiteral("/models/b.safetensors")}));
        panel.setModelPaths({});
    }
    {
        ProbingPanel panel;
        EXPECT_EQ(panel.listedModelPaths().size(), 3);
        EXPECT_TRUE(panel.modelPaths().isEmpty());
    }
    // Settings of the version with one model line: that model, checked, after the shipped ones.
    QSettings().remove(QStringLiteral("probing"));
    QSettings().setValue(QStringLiteral("probing/model"), QStringLiteral("/models/old.safetensors"));
    {
        ProbingPanel panel;
        EXPECT_EQ(panel.listedModelPaths(), QStringList({tree, base, QStringLiteral("/models/old.safetensors")}));
        EXPECT_EQ(panel.modelPaths(), QStringList({QStringLiteral("/models/old.safetensors")}));
    }
}

TEST_F(ProbingPanelModelsTest, TheDockFollowsTheWindowsModelUntilItHasModelsOfItsOwn)
{
    ScopedSettings settings;
    MainWindow w;
    ProbingPanel *panel = w.probingPanel();
    EXPECT_EQ(panel->modelPaths().size(), panel->modelPath().isEmpty() ? 0 : 1);
    w.setModelPath(tree);
    EXPECT_EQ(panel->modelPaths(), QStringList({tree}));
    w.setModelPath(base); // still the window's model: follows
    EXPECT_EQ(panel->modelPaths(), QStringList({base}));
    panel->setModelPaths({tree, base}); // the user's own choice
    w.setModelPath(tree);
    EXPECT_EQ(panel->modelPaths(), QStringList({tree, base}));
    panel->setModelPath(QStringLiteral("/models/own.safetensors")); // one model of its own
    w.setModelPath(base);
    EXPECT_EQ(panel->modelPaths(), QStringList({QStringLiteral("/models/own.safetensors")}));
    // A new window: the dock keeps its own model, restored from the settings.
    MainWindow again;
    EXPECT_EQ(again.probingPanel()->modelPaths(), QStringList({QStringLiteral("/models/own.safetensors")}));
}

TEST_F(ProbingPanelTest, AModelFileIsListedOnceHoweverItIsSpelled)
{
    ProbingPanel panel;
    const QString abs = QString::fromStdString(smallModel());
    const QString rel = QDir::current().relativeFilePath(abs);
    ASSERT_NE(rel, abs);
    panel.setModelPaths({abs, rel, QFileInfo(abs).absolutePath() + QStringLiteral("/../models/") + QFileInfo(abs).fileName()});
    EXPECT_EQ(panel.listedModelPaths().count(abs), 1);
    EXPECT_EQ(panel.modelPaths(), QStringList{abs});
}
