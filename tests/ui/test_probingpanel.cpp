// The probing panel (issue 6), offscreen, with the shipped small model: a tiny
// run (sentlen + head-accuracy over 30 sentences) goes to completion on the
// worker thread; the curve plot, the results table and the heatmap are checked
// against the report JSON; a cell lists its sentences worst first; cancel stops
// a run; the main window has the hidden "Probing" dock and opens a probed
// sentence at the cell's layer/head.
#include <QAction>
#include <QApplication>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QLabel>
#include <QJsonDocument>
#include <QJsonObject>
#include <QListWidget>
#include <QMenuBar>
#include <QMouseEvent>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTextStream>

#include "core/encoders/encoder.h"
#include "ui/corpuspanel.h"
#include "ui/mainwindow.h"
#include "ui/probingpanel.h"
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
    QFile in(QStringLiteral(TREELENS_TEST_DATA_DIR "/ui/three.conllu"));
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
    panel.setModelPath(QString::fromStdString(smallModel()));
    panel.setFiles(corpus, QString(), QString());
    panel.setTasks({QStringLiteral("sentlen"), QStringLiteral("head-accuracy")});
    panel.setLayers(QStringLiteral("1,2"));
    panel.setPooling(QStringLiteral("mean"));
    panel.setEpochs(3);
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
    EXPECT_EQ(table->item(2, 1)->text().toInt(), best.value(QStringLiteral("layer")).toInt());
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
    // A mouse click on the cell (layer 1, head 0) lists that cell's sentences.
    auto *tabs0 = panel.findChild<QTabWidget *>(QStringLiteral("probingTabs"));
    ASSERT_TRUE(tabs0);
    tabs0->setCurrentIndex(2);
    QApplication::processEvents();
    panel.heatmapPlot()->replot();
    {
        const QPointF pos(panel.heatmapPlot()->xAxis->coordToPixel(0.0), panel.heatmapPlot()->yAxis->coordToPixel(1.0));
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
    EXPECT_TRUE(cellLabel->text().startsWith(QStringLiteral("Layer 1, head 0:"))) << cellLabel->text().toStdString();

    QString openedId;
    int openedLayer = -1, openedHead = -1;
    QObject::connect(&panel, &ProbingPanel::openSentence, [&](const QString &id, int l, int h) {
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
    const char *names[] = {"curves", "results", "attention"};
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
