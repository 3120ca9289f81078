// The real main window, offscreen, with the shipped default model: a sentence
// is analysed through the JobRunner and the scene contents of every view are
// checked against the document's sentence and analysis (which the encoder tests
// check against the official implementation).
#include <cmath>
#include <functional>
#include <memory>
#include <tuple>

#include <QAction>

#include <QApplication>
#include <QComboBox>
#include <QTabWidget>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QGraphicsItem>
#include <QMimeData>
#include <QProcess>
#include <QSplitter>
#include <QScreen>
#include <QGuiApplication>
#include <QMap>
#include <QDirIterator>
#include <QSettings>
#include <QStandardPaths>
#include <QSvgRenderer>
#include <QTemporaryDir>
#include <QUrl>
#include <QXmlStreamReader>

#include "core/encoders/encoder.h"
#include "ui/controlpanel.h"
#include "ui/corpuspanel.h"
#include "ui/modelpanel.h"
#include "ui/mainwindow.h"
#include "ui/session/latencyprobe.h"
#include "ui/session/settings.h"
#include "ui/viewregistry.h"
#include "viz/attentionheatmap.h"
#include "viz/attentionoverview.h"
#include "viz/compositionview.h"
#include "viz/constituencyview.h"
#include "viz/dependencyview.h"
#include "viz/linkstripview.h"
#include "viz/priorheatmap.h"
#include "viz/treetextview.h"
#include "testutil.h"
#include "uitestapp.h"

using namespace treelens;

namespace {

QApplication &app() { return test::uiApp(); }
using test::waitFor;

std::string modelPath()
{
    return defaultModelPath();
}

/// Analyses `text` in `w` and waits for it to be shown.
bool analyseAndWait(MainWindow &w, const QString &text, bool *ok = nullptr)
{
    bool shown = false, result = false;
    auto c = QObject::connect(&w, &MainWindow::analysisShown, [&](bool r) {
        shown = true;
        result = r;
    });
    w.analyse(text);
    const bool done = waitFor([&] { return shown; });
    QObject::disconnect(c);
    if (ok)
        *ok = result;
    return done;
}

} // namespace

class MainWindowTest : public ::testing::Test {
protected:
    void SetUp() override
    {
        app();
        if (modelPath().empty())
            GTEST_SKIP() << "SKIPPED: the shipped model resources/models/tree-transformer-en-small.safetensors was not found";
    }
};

TEST_F(MainWindowTest, AnalysesASentenceAndEveryViewShowsIt)
{
    MainWindow w;
    w.setModelPath(QString::fromStdString(modelPath()));
    w.show();
    bool ok = false;
    ASSERT_TRUE(analyseAndWait(w, QStringLiteral("The old man saw a red kite near the river ."), &ok));
    ASSERT_TRUE(ok) << w.treeTextView()->toPlainText().toStdString();
    const auto s = w.document()->sentence();
    const auto a = w.document()->analysis();
    ASSERT_TRUE(s);
    ASSERT_TRUE(a) << "no analysis: " << w.document()->modelMessage().toStdString();
    const int n = static_cast<int>(s->tokens.size());
    ASSERT_EQ(n, 11);

    // Text view: the same text the formatter gives.
    EXPECT_EQ(w.treeTextView()->toPlainText(), formatTreesAsText(*s, a.get()));

    // Constituency: one leaf item per word, in sentence order on one baseline.
    w.constituencyView()->setMode(ConstituencyView::Mode::Parser);
    const auto leaves = w.constituencyView()->leafItems();
    ASSERT_EQ(static_cast<int>(leaves.size()), n);
    for (int i = 1; i < n; ++i) {
        EXPECT_LT(leaves[i - 1]->sceneBoundingRect().center().x(), leaves[i]->sceneBoundingRect().center().x());
        EXPECT_NEAR(leaves[i - 1]->sceneBoundingRect().bottom(), leaves[i]->sceneBoundingRect().bottom(), 1.0);
    }
    // Compare mode: the shared + extra brackets are exactly the induced ones.
    w.constituencyView()->setMode(ConstituencyView::Mode::Compare);
    auto induced = w.constituencyView()->sharedSpans();
    const auto extra = w.constituencyView()->extraSpans();
    induced.insert(induced.end(), extra.begin(), extra.end());
    std::sort(induced.begin(), induced.end());
    // Scored as eval-induction scores it: the model's brackets over the words without
    // punctuation (its second run), drawn from their first to their last word.
    ASSERT_TRUE(a->withoutPunctuation.has_value());
    const PunctuationFreeParse &parse = *a->withoutPunctuation;
    EXPECT_TRUE(parse.rerun);
    std::vector<std::pair<int, int>> expected;
    for (const auto &b : parse.brackets)
        expected.emplace_back(parse.words[static_cast<std::size_t>(b.first)], parse.words[static_cast<std::size_t>(b.second) - 1] + 1);
    std::sort(expected.begin(), expected.end());
    EXPECT_EQ(induced, expected);

    // Dependency: one arc per dependency, pairs equal the tree.
    ASSERT_TRUE(s->dependency);
    const auto arcs = w.dependencyView()->treeArcItems();
    ASSERT_EQ(static_cast<int>(arcs.size()), n);
    std::vector<std::pair<int, int>> got, want;
    for (const auto &arc : arcs)
        got.push_back(arc.second);
    for (int i = 0; i < n; ++i)
        want.push_back({i, s->dependency->heads[static_cast<std::size_t>(i)] - 1});
    std::sort(got.begin(), got.end());
    std::sort(want.begin(), want.end());
    EXPECT_EQ(got, want);
    EXPECT_EQ(static_cast<int>(w.dependencyView()->wordItems().size()), n);

    // Prior heatmap: every cell equals the analysis matrix; the boxes are the induced brackets.
    const int tokens = static_cast<int>(a->tokens.size());
    ASSERT_EQ(w.priorView()->rowCount(), tokens);
    for (int layer = 0; layer < a->layers; ++layer) {
        ViewState st = w.viewState();
        st.layer = layer;
        w.setViewState(st);
        ASSERT_EQ(w.viewState().layer, layer);
        const Matrix &c = a->constituentPrior[static_cast<std::size_t>(layer)];
        for (int r = 0; r < tokens; ++r)
            for (int col = 0; col < tokens; ++col)
                ASSERT_NEAR(w.priorView()->cellValue(r, col), c.at(r, col), 1e-6) << "layer " << layer << " cell " << r << "," << col;
    }
    auto boxes = w.priorView()->bracketBoxes();
    std::sort(boxes.begin(), boxes.end());
    auto brackets = a->inducedBrackets;
    std::sort(brackets.begin(), brackets.end());
    EXPECT_EQ(boxes, brackets);

    // Attention heatmap: layer and head switching, before and after ×C.
    for (int layer = 0; layer < a->layers; layer += a->layers - 1) {
        for (int head = 0; head < a->heads; ++head) {
            ViewState st = w.viewState();
            st.layer = layer;
            st.head = head;
            st.weightedAttention = (head % 2 == 0);
            w.setViewState(st);
            const auto &source = st.weightedAttention ? a->attention : a->attentionRaw;
            const Matrix &m = source[static_cast<std::size_t>(layer)][static_cast<std::size_t>(head)];
            for (int r = 0; r < tokens; ++r)
                for (int col = 0; col < tokens; ++col)
                    ASSERT_NEAR(w.attentionView()->cellValue(r, col), m.at(r, col), 1e-6);
            // The overview follows the same before/after ×C choice.
            EXPECT_NEAR(w.overviewView()->cellValue(layer, head, 1, 2), m.at(1, 2), 1e-6);
        }
    }
    // Link strip: word gaps equal the analysis' links between word tokens.
    const int cls = a->wordToken.empty() ? 0 : a->wordToken[0];
    for (int layer = 0; layer < a->layers; ++layer)
        for (int g = 0; g + 1 < n; ++g)
            EXPECT_NEAR(w.linkView()->gapValue(layer, g), a->linkProbs[static_cast<std::size_t>(layer)][static_cast<std::size_t>(g + cls)], 1e-6);
}

TEST_F(MainWindowTest, TheViewDockAndTheViewsFollowTheDocumentsSelection)
{
    MainWindow w;
    w.setModelPath(QString::fromStdString(modelPath()));
    w.show();
    ASSERT_TRUE(analyseAndWait(w, QStringLiteral("The old man saw a red kite .")));
    const auto a = w.document()->analysis();
    ASSERT_TRUE(a);
    ASSERT_GT(a->layers, 2);
    // A word clicked in a view: the document's focus word, shown by the View dock.
    Q_EMIT w.dependencyView()->wordClicked(2);
    EXPECT_EQ(w.document()->selection().focusWord, 2);
    EXPECT_EQ(w.controlPanel()->state().focusWord, 2);
    // The View dock's keys: into the document, and the visible views follow.
    w.controlPanel()->stepLayer(+1);
    EXPECT_EQ(w.document()->selection().layer, 1);
    EXPECT_NEAR(w.priorView()->cellValue(1, 2), a->constituentPrior[1].at(1, 2), 1e-6);
    // The document's selection set elsewhere: the dock shows it.
    ViewState s = w.document()->selection();
    s.layer = 2;
    s.weightedAttention = false;
    w.document()->setSelection(s);
    EXPECT_EQ(w.controlPanel()->state().layer, 2);
    EXPECT_FALSE(w.controlPanel()->state().weightedAttention);
    EXPECT_EQ(w.viewState(), w.document()->selection());
}

TEST_F(MainWindowTest, EventLoopKeepsRunningWhileTheModelWorks)
{
    MainWindow w;
    w.setModelPath(QString::fromStdString(modelPath()));
    w.show();
    ASSERT_TRUE(analyseAndWait(w, QStringLiteral("A warm-up sentence loads the parser and the model.")));
    LatencyProbe probe(5);
    probe.start();
    bool ok = false;
    const QString longSentence = QStringLiteral(
        "The committee , which had met in the old town hall every Thursday for more than twenty years , decided "
        "after a long and sometimes heated debate that the new library would be built next to the river , where "
        "the children of the village could reach it on foot .");
    ASSERT_TRUE(analyseAndWait(w, longSentence, &ok));
    probe.stop();
    EXPECT_TRUE(ok);
    // Behaviour, not timing: parsing and inference ran while the GUI thread kept
    // serving its timer (a job on the GUI thread would leave ~1 sample).
    EXPECT_GT(probe.samples(), 3);
    std::printf("[ info ] GUI-thread worst stall while analysing 50 words: %.1f ms (%d samples)\n", probe.maxStallMs(),
                probe.samples());
}

TEST_F(MainWindowTest, CancelDropsTheRunningAnalysis)
{
    MainWindow w;
    w.setModelPath(QString::fromStdString(modelPath()));
    w.show();
    ASSERT_TRUE(analyseAndWait(w, QStringLiteral("First comes a sentence that is shown.")));
    const auto before = w.document()->sentence();
    int shown = 0;
    QObject::connect(&w, &MainWindow::analysisShown, [&](bool) { ++shown; });
    w.analyse(QStringLiteral("This sentence is cancelled before its analysis arrives."));
    w.cancel();
    ASSERT_TRUE(waitFor([&] { return !w.jobRunner()->isBusy(); }));
    QApplication::processEvents();
    EXPECT_EQ(shown, 0);
    EXPECT_EQ(w.document()->sentence(), before);
    // And the window still works afterwards.
    ASSERT_TRUE(analyseAndWait(w, QStringLiteral("After cancelling, this one is shown.")));
    EXPECT_EQ(w.document()->sentence()->tokens.size(), 8u); // After cancelling , this one is shown .
}

TEST_F(MainWindowTest, CorpusSentencesKeepTheirGoldTreesAndDropOpensFiles)
{
    const QString conllu = (QString::fromUtf8(TREELENS_TEST_DATA_DIR) + QStringLiteral("/ui/three.conllu"));
    MainWindow w;
    w.setModelPath(QString::fromStdString(modelPath()));
    w.show();
    // Dropping a file opens it as a corpus.
    QMimeData mime;
    mime.setUrls({QUrl::fromLocalFile(conllu)});
    // As a real drag does it: enter (the window accepts file URLs), then drop.
    QDragEnterEvent enter(QPoint(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(&w, &enter);
    EXPECT_TRUE(enter.isAccepted());
    QDropEvent drop(QPointF(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(&w, &drop);
    ASSERT_EQ(w.corpusPanel()->model()->rowCount(), 3);
    EXPECT_TRUE(QSettings().value(QStringLiteral("recent/files")).toStringList().contains(conllu));

    bool shown = false;
    QObject::connect(&w, &MainWindow::analysisShown, [&](bool) { shown = true; });
    w.corpusPanel()->activateRow(1);
    ASSERT_TRUE(waitFor([&] { return shown; }));
    const auto s = w.document()->sentence();
    ASSERT_TRUE(s);
    const auto gold = w.corpusPanel()->model()->sentenceAt(1);
    EXPECT_EQ(s->tokens.size(), gold->tokens.size());
    ASSERT_TRUE(s->dependency);
    EXPECT_EQ(*s->dependency, *gold->dependency); // gold tree kept, not re-parsed
    EXPECT_EQ(s->metadataValue("dependency_source"), "gold");
    EXPECT_TRUE(s->constituency); // filled in by the parser

    // Next/previous sentence.
    shown = false;
    w.corpusPanel()->step(-1);
    ASSERT_TRUE(waitFor([&] { return shown; }));
    EXPECT_EQ(w.document()->sentence()->tokens.size(), w.corpusPanel()->model()->sentenceAt(0)->tokens.size());

    // Searching filters the list.
    w.corpusPanel()->setSearch(QStringLiteral("Elsevier"));
    EXPECT_EQ(w.corpusPanel()->visibleRows(), 1);
    w.corpusPanel()->setSearch(QString());
    EXPECT_EQ(w.corpusPanel()->visibleRows(), 3);

    // A broken file leaves the loaded corpus untouched.
    QTemporaryDir dir;
    const QString bad = dir.filePath(QStringLiteral("bad.conllu"));
    QFile f(bad);
    ASSERT_TRUE(f.open(QIODevice::WriteOnly));
    f.write("1\tword\t_\t_\t_\t_\tx\troot\t_\t_\n\n");
    f.close();
    QString error;
    EXPECT_FALSE(w.openCorpus(bad, &error));
    EXPECT_TRUE(error.contains(QStringLiteral("bad.conllu"))) << error.toStdString();
    EXPECT_EQ(w.corpusPanel()->model()->rowCount(), 3);
}

TEST_F(MainWindowTest, ScoresAWholeCorpus)
{
    const QString ptb = QString::fromStdString(test::sharedPath("data/ptb-sample/wsj_0180.mrg"));
    if (ptb.isEmpty() || !QFile::exists(ptb))
        GTEST_SKIP() << "SKIPPED: ../shared/data/ptb-sample/wsj_0180.mrg not found";
    MainWindow w;
    w.setModelPath(QString::fromStdString(modelPath()));
    QString error;
    ASSERT_TRUE(w.openCorpus(ptb, &error)) << error.toStdString();
    bool scored = false;
    QObject::connect(&w, &MainWindow::corpusScored, [&] { scored = true; });
    LatencyProbe probe(5);
    probe.start();
    w.scoreCorpus();
    ASSERT_TRUE(waitFor([&] { return scored; }, 120000));
    probe.stop();
    const auto result = w.corpusPanel()->model()->analysis();
    ASSERT_TRUE(result);
    EXPECT_EQ(result->reference, QStringLiteral("gold constituency"));
    EXPECT_EQ(static_cast<int>(result->rows.size()), w.corpusPanel()->model()->rowCount());
    EXPECT_GT(result->scored, 0);
    for (const auto &row : result->rows)
        if (row.f1 >= 0) {
            EXPECT_LE(row.f1, 100.0);
        }
    std::printf("[ info ] scored %d sentences in %.1f s; worst GUI stall %.1f ms\n", result->scored, result->seconds,
                probe.maxStallMs());
}

TEST_F(MainWindowTest, SettingsPersistAcrossWindows)
{
    {
        MainWindow w;
        w.resize(1111, 777);
        w.show();
        w.close();
    }
    MainWindow again;
    EXPECT_EQ(again.size(), QSize(1111, 777));
}

namespace {

QString guiBinary()
{
    return QString::fromUtf8(TREELENS_GUI_BINARY);
}

int runGui(const QStringList &args, QString *err = nullptr, const QString &configHome = QString())
{
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
    env.insert(QStringLiteral("XDG_CONFIG_HOME"), configHome.isEmpty() ? QString::fromStdString(::testing::TempDir()) +
                                                                             QStringLiteral("/treelens-export")
                                                                       : configHome);
    p.setProcessEnvironment(env);
    p.start(guiBinary(), args);
    if (!p.waitForFinished(120000))
        return -1;
    if (err)
        *err = QString::fromUtf8(p.readAllStandardError());
    return p.exitCode();
}

bool onPath(const char *program) { return !QStandardPaths::findExecutable(QString::fromLatin1(program)).isEmpty(); }

} // namespace

TEST_F(MainWindowTest, ExportViewWritesValidFilesForEveryView)
{
    QTemporaryDir dir;
    const QString sentence = QStringLiteral("The old man saw a red kite near the river.");
    // The default model (a Tree Transformer) draws no word pieces, relation matrix, gate,
    // composition or surprisal (not a language model): those are refused with one line and no
    // file (the conformance matrix checks every model).
    const QStringList notDrawn = {QStringLiteral("pieces"), QStringLiteral("relations"), QStringLiteral("gate"),
                                  QStringLiteral("gates"), QStringLiteral("composition"), QStringLiteral("surprisal")};
    for (const QString &view : notDrawn) {
        const QString out = dir.filePath(view + QStringLiteral(".svg"));
        QString err;
        EXPECT_EQ(runGui({QStringLiteral("--sentence"), sentence, QStringLiteral("--export-view"), view, QStringLiteral("--out"), out}, &err), 1)
            << view.toStdString() << ": " << err.toStdString();
        EXPECT_TRUE(err.contains(QStringLiteral("the ") + view + QStringLiteral(" view draws"))) << err.toStdString();
        EXPECT_FALSE(QFile::exists(out)) << view.toStdString();
    }
    for (const QString &view : MainWindow::exportableViewNames()) {
        if (notDrawn.contains(view))
            continue;
        for (const QString &ext : {QStringLiteral("svg"), QStringLiteral("pdf"), QStringLiteral("png")}) {
            const QString out = dir.filePath(view + QLatin1Char('.') + ext);
            QString err;
            ASSERT_EQ(runGui({QStringLiteral("--sentence"), sentence, QStringLiteral("--export-view"), view,
                              QStringLiteral("--layer"), QStringLiteral("2"), QStringLiteral("--out"), out},
                             &err),
                      0)
                << view.toStdString() << "." << ext.toStdString() << ": " << err.toStdString();
            QFile f(out);
            ASSERT_TRUE(f.open(QIODevice::ReadOnly)) << out.toStdString();
            const QByteArray bytes = f.readAll();
            if (ext == QLatin1String("svg")) {
                QXmlStreamReader xml(bytes);
                while (!xml.atEnd())
                    xml.readNext();
                EXPECT_FALSE(xml.hasError()) << view.toStdString() << ": " << xml.errorString().toStdString();
                EXPECT_TRUE(QSvgRenderer(bytes).isValid()) << view.toStdString();
            } else if (ext == QLatin1String("pdf")) {
                EXPECT_TRUE(bytes.startsWith("%PDF")) << view.toStdString();
                if (onPath("pdftoppm")) {
                    QProcess p;
                    p.start(QStringLiteral("pdftoppm"), {QStringLiteral("-png"), QStringLiteral("-r"), QStringLiteral("30"),
                                                        out, dir.filePath(view + QStringLiteral("-pdf"))});
                    ASSERT_TRUE(p.waitForFinished(60000));
                    EXPECT_EQ(p.exitCode(), 0) << view.toStdString() << ": pdftoppm failed";
                }
            } else {
                QImage img;
                EXPECT_TRUE(img.loadFromData(bytes, "PNG")) << view.toStdString();
                EXPECT_GT(img.width(), 100);
            }
        }
    }
    // Trees also to LaTeX; compiled when a TeX installation is present.
    for (const QString &view : {QStringLiteral("constituency"), QStringLiteral("dependency")}) {
        const QString out = dir.filePath(view + QStringLiteral(".tex"));
        QString err;
        ASSERT_EQ(runGui({QStringLiteral("--sentence"), sentence, QStringLiteral("--export-view"), view, QStringLiteral("--out"), out}, &err), 0)
            << err.toStdString();
        if (!onPath("pdflatex")) {
            std::printf("[ info ] pdflatex not installed; %s.tex not compiled\n", qPrintable(view));
            continue;
        }
        QProcess p;
        p.setWorkingDirectory(dir.path());
        p.start(QStringLiteral("pdflatex"), {QStringLiteral("-interaction=nonstopmode"), QStringLiteral("-halt-on-error"), out});
        ASSERT_TRUE(p.waitForFinished(120000));
        EXPECT_EQ(p.exitCode(), 0) << view.toStdString() << ".tex did not compile:\n" << p.readAllStandardOutput().right(2000).toStdString();
        EXPECT_TRUE(QFile::exists(dir.filePath(view + QStringLiteral(".pdf"))));
    }
    // Errors: unknown view (usage, 2) and unknown format (data error, 1).
    EXPECT_EQ(runGui({QStringLiteral("--export-view"), QStringLiteral("nosuchview"), QStringLiteral("--out"), dir.filePath(QStringLiteral("x.svg"))}), 2);
    EXPECT_EQ(runGui({QStringLiteral("--export-view"), QStringLiteral("prior"), QStringLiteral("--out"), dir.filePath(QStringLiteral("x.bmpx"))}), 1);
}

TEST_F(MainWindowTest, BatchExportWritesOneFilePerSentenceAndView)
{
    QTemporaryDir dir;
    const QString input = dir.filePath(QStringLiteral("sentences.txt"));
    QFile f(input);
    ASSERT_TRUE(f.open(QIODevice::WriteOnly));
    f.write("The cat sat on the mat.\nDogs bark loudly at night.\nShe gave him a book.\n");
    f.close();
    const QString out = dir.filePath(QStringLiteral("out"));
    QString err;
    ASSERT_EQ(runGui({input, QStringLiteral("--export-view"), QStringLiteral("dependency,prior"), QStringLiteral("--format"),
                      QStringLiteral("svg"), QStringLiteral("--out"), out},
                     &err),
              0)
        << err.toStdString();
    const QStringList files = QDir(out).entryList(QDir::Files, QDir::Name);
    // NNNN-ID-VIEW: a text file's sentences are s1, s2, ... (issue 47: joined back by id).
    EXPECT_EQ(files, QStringList({QStringLiteral("0001-s1-dependency.svg"), QStringLiteral("0001-s1-prior.svg"),
                                  QStringLiteral("0002-s2-dependency.svg"), QStringLiteral("0002-s2-prior.svg"),
                                  QStringLiteral("0003-s3-dependency.svg"), QStringLiteral("0003-s3-prior.svg")}));
}

namespace {

/// Every file under `dir` with its bytes (the settings a run may have written).
QMap<QString, QByteArray> filesUnder(const QString &dir)
{
    QMap<QString, QByteArray> out;
    QDirIterator it(dir, QDir::Files | QDir::Hidden, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString path = it.next();
        QFile f(path);
        if (f.open(QIODevice::ReadOnly))
            out.insert(QDir(dir).relativeFilePath(path), f.readAll());
    }
    return out;
}

} // namespace

TEST_F(MainWindowTest, ExportViewRefusesALayerOrHeadTheModelLacks)
{
    QTemporaryDir dir;
    const QString out = dir.filePath(QStringLiteral("prior.svg"));
    QString err;
    // The shipped model has 4 layers and 4 heads: 5 and 9 are refused, nothing drawn in their place.
    EXPECT_EQ(runGui({QStringLiteral("--sentence"), QStringLiteral("Dogs bark."), QStringLiteral("--export-view"),
                      QStringLiteral("prior"), QStringLiteral("--layer"), QStringLiteral("5"), QStringLiteral("--out"), out},
                     &err),
              2);
    EXPECT_TRUE(err.contains(QStringLiteral("--layer 5: the model has 4 layers; choose 1 to 4"))) << err.toStdString();
    EXPECT_FALSE(QFile::exists(out));
    EXPECT_EQ(runGui({QStringLiteral("--sentence"), QStringLiteral("Dogs bark."), QStringLiteral("--export-view"),
                      QStringLiteral("attention"), QStringLiteral("--head"), QStringLiteral("9"), QStringLiteral("--out"), out},
                     &err),
              2);
    EXPECT_TRUE(err.contains(QStringLiteral("--head 9: the model has 4 heads; choose 1 to 4"))) << err.toStdString();
    EXPECT_FALSE(QFile::exists(out));
    // The last layer and head are accepted.
    EXPECT_EQ(runGui({QStringLiteral("--sentence"), QStringLiteral("Dogs bark."), QStringLiteral("--export-view"),
                      QStringLiteral("attention"), QStringLiteral("--layer"), QStringLiteral("4"), QStringLiteral("--head"),
                      QStringLiteral("4"), QStringLiteral("--out"), out},
                     &err),
              0)
        << err.toStdString();
    EXPECT_TRUE(QFile::exists(out));
}

TEST_F(MainWindowTest, ExportViewDrawsTheChosenAttentionAndRefusesARelationAttentionTheModelLacks)
{
    QTemporaryDir dir;
    const QString out = dir.filePath(QStringLiteral("attention.svg"));
    const QString dt = QString::fromUtf8(TREELENS_SOURCE_DIR) + QStringLiteral("/resources/models/dependency-transformer-en-polarity.safetensors");
    QString err;
    // The Tree Transformer has no relation attention: refused, nothing written.
    EXPECT_EQ(runGui({QStringLiteral("--sentence"), QStringLiteral("Dogs bark."), QStringLiteral("--export-view"),
                      QStringLiteral("attention"), QStringLiteral("--attention"), QStringLiteral("relation"),
                      QStringLiteral("--out"), out},
                     &err),
              2);
    EXPECT_TRUE(err.contains(QStringLiteral("--attention relation: this model has no relation attention")))
        << err.toStdString();
    EXPECT_FALSE(QFile::exists(out));
    EXPECT_EQ(runGui({QStringLiteral("--sentence"), QStringLiteral("Dogs bark."), QStringLiteral("--export-view"),
                      QStringLiteral("attention"), QStringLiteral("--attention"), QStringLiteral("sideways"),
                      QStringLiteral("--out"), out},
                     &err),
              2);
    EXPECT_TRUE(err.contains(QStringLiteral("--attention must be model, plain or relation"))) << err.toStdString();
    // The Dependency-Transformer's relation attention: the title names it.
    EXPECT_EQ(runGui({QStringLiteral("--sentence"), QStringLiteral("Dogs bark."), QStringLiteral("--model"), dt,
                      QStringLiteral("--export-view"), QStringLiteral("attention"), QStringLiteral("--attention"),
                      QStringLiteral("relation"), QStringLiteral("--out"), out},
                     &err),
              0)
        << err.toStdString();
    QFile svg(out);
    ASSERT_TRUE(svg.open(QIODevice::ReadOnly));
    EXPECT_TRUE(svg.readAll().contains("relation softmax"));
}

TEST_F(MainWindowTest, BatchLatexExportNamesFilesCleanlyOrRefusesUpFront)
{
    QTemporaryDir dir;
    const QString input = dir.filePath(QStringLiteral("sentences.txt"));
    QFile f(input);
    ASSERT_TRUE(f.open(QIODevice::WriteOnly));
    f.write("The cat sat on the mat.\nDogs bark loudly at night.\n");
    f.close();
    // Plots have no LaTeX form: refused before anything is written.
    const QString refused = dir.filePath(QStringLiteral("refused"));
    QString err;
    EXPECT_EQ(runGui({input, QStringLiteral("--export-view"), QStringLiteral("all"), QStringLiteral("--format"),
                      QStringLiteral("tex"), QStringLiteral("--out"), refused + QLatin1Char('/')},
                     &err),
              2);
    EXPECT_TRUE(err.contains(QStringLiteral("LaTeX (.tex) is written for the constituency and dependency views only")))
        << err.toStdString();
    EXPECT_FALSE(QFileInfo::exists(refused));
    // A layer the model lacks, in a batch: refused before the first file, no directory left behind.
    EXPECT_EQ(runGui({input, QStringLiteral("--export-view"), QStringLiteral("prior"), QStringLiteral("--layer"),
                      QStringLiteral("9"), QStringLiteral("--out"), refused},
                     &err),
              2);
    EXPECT_TRUE(err.contains(QStringLiteral("--layer 9: the model has 4 layers"))) << err.toStdString();
    EXPECT_FALSE(QFileInfo::exists(refused));
    // A trailing slash on the directory does not double in the names reported.
    const QString out = dir.filePath(QStringLiteral("figtex"));
    ASSERT_EQ(runGui({input, QStringLiteral("--export-view"), QStringLiteral("constituency,dependency"), QStringLiteral("--format"),
                      QStringLiteral("tex"), QStringLiteral("--out"), out + QLatin1Char('/')},
                     &err),
              0)
        << err.toStdString();
    EXPECT_FALSE(err.contains(QStringLiteral("//"))) << err.toStdString();
    EXPECT_EQ(QDir(out).entryList(QDir::Files, QDir::Name),
              QStringList({QStringLiteral("0001-s1-constituency.tex"), QStringLiteral("0001-s1-dependency.tex"),
                           QStringLiteral("0002-s2-constituency.tex"), QStringLiteral("0002-s2-dependency.tex")}));
}

TEST_F(MainWindowTest, BatchExportLeavesTheUsersSettingsAlone)
{
    QTemporaryDir dir;
    const QString config = dir.filePath(QStringLiteral("config"));
    // The user's settings as the app leaves them: a history, a recent file, view options.
    ASSERT_TRUE(QDir().mkpath(config + QStringLiteral("/TreeLens")));
    {
        QFile conf(config + QStringLiteral("/TreeLens/TreeLens.conf"));
        ASSERT_TRUE(conf.open(QIODevice::WriteOnly));
        conf.write("[input]\nhistory=A sentence the user typed.\nlastSentence=A sentence the user typed.\n\n"
                   "[recent]\nfiles=/home/user/corpus.conllu\n\n[view]\nconstituencyMode=1\n");
    }
    const QMap<QString, QByteArray> before = filesUnder(config);
    const QString input = dir.filePath(QStringLiteral("sentences.txt"));
    QFile f(input);
    ASSERT_TRUE(f.open(QIODevice::WriteOnly));
    f.write("The cat sat on the mat.\nDogs bark loudly at night.\n");
    f.close();
    QString err;
    ASSERT_EQ(runGui({input, QStringLiteral("--export-view"), QStringLiteral("all"), QStringLiteral("--out"),
                      dir.filePath(QStringLiteral("out"))},
                     &err, config),
              0)
        << err.toStdString();
    ASSERT_EQ(runGui({QStringLiteral("--sentence"), QStringLiteral("An exported sentence."), QStringLiteral("--export-view"),
                      QStringLiteral("constituency"), QStringLiteral("--out"), dir.filePath(QStringLiteral("one.svg"))},
                     &err, config),
              0)
        << err.toStdString();
    EXPECT_EQ(filesUnder(config), before);
}

TEST_F(MainWindowTest, TheFirstWindowUsesTheScreenAndGivesTheTreesMostOfIt)
{
    // On the issue's 1600x1000 screen: this test again in a child process whose offscreen
    // screen is that size (the offscreen platform's config file), with no saved settings.
    if (qEnvironmentVariableIsEmpty("TREELENS_FIRST_RUN_CHILD")) {
        QTemporaryDir dir;
        const QString config = dir.filePath(QStringLiteral("screen.json"));
        QFile f(config);
        ASSERT_TRUE(f.open(QIODevice::WriteOnly));
        f.write(R"({"screens": [{"name": "screen", "x": 0, "y": 0, "width": 1600, "height": 1000,
                   "logicalDpi": 96, "logicalBaseDpi": 96, "dpr": 1}]})");
        f.close();
        QProcess child;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen:configfile=") + config);
        env.insert(QStringLiteral("XDG_CONFIG_HOME"), dir.filePath(QStringLiteral("config")));
        env.insert(QStringLiteral("TREELENS_FIRST_RUN_CHILD"), QStringLiteral("1"));
        // The child runs this one test whichever GoogleTest shard the parent is (TREELENS_TEST_SHARDS).
        env.remove(QStringLiteral("GTEST_TOTAL_SHARDS"));
        env.remove(QStringLiteral("GTEST_SHARD_INDEX"));
        child.setProcessEnvironment(env);
        child.setProcessChannelMode(QProcess::MergedChannels);
        child.start(QCoreApplication::applicationFilePath(),
                    {QStringLiteral("--gtest_filter=MainWindowTest.TheFirstWindowUsesTheScreenAndGivesTheTreesMostOfIt")});
        ASSERT_TRUE(child.waitForFinished(120000));
        const QString out = QString::fromUtf8(child.readAll());
        EXPECT_EQ(child.exitCode(), 0) << out.toStdString();
        EXPECT_TRUE(out.contains(QStringLiteral("[  PASSED  ] 1 test"))) << out.toStdString();
        return;
    }
    ASSERT_EQ(QGuiApplication::primaryScreen()->geometry().size(), QSize(1600, 1000));
    QSettings().remove(QStringLiteral("window/geometry")); // a first run: nothing saved
    QSettings().remove(QStringLiteral("window/state"));
    MainWindow w;
    w.show();
    QApplication::processEvents();
    const QRect available = QGuiApplication::primaryScreen()->availableGeometry();
    EXPECT_GE(w.width(), available.width() * 9 / 10) << w.width() << " of " << available.width();
    EXPECT_GE(w.height(), available.height() * 85 / 100) << w.height() << " of " << available.height();
    EXPECT_LE(w.width(), available.width());
    EXPECT_LE(w.height(), available.height());
    // The tree tabs above get more of the height than the plots below.
    auto *split = qobject_cast<QSplitter *>(w.centralWidget());
    ASSERT_TRUE(split);
    const QList<int> sizes = split->sizes();
    ASSERT_EQ(sizes.size(), 2);
    // 56/44 since issue 47 (at 64/36 a 17-word sentence lost every other row label in the plots).
    EXPECT_GT(sizes[0], sizes[1]) << sizes[0] << " vs " << sizes[1];
    EXPECT_GT(sizes[1] * 10, (sizes[0] + sizes[1]) * 4) << sizes[0] << " vs " << sizes[1]; // the plots 40% or more
    w.close();
}

TEST_F(MainWindowTest, OpeningACorpusShowsItsFirstSentence)
{
    MainWindow w;
    w.setModelPath(QString::fromStdString(modelPath()));
    w.show();
    ASSERT_TRUE(analyseAndWait(w, QStringLiteral("A sentence typed before the corpus was opened.")));
    bool shown = false;
    QObject::connect(&w, &MainWindow::analysisShown, [&](bool) { shown = true; });
    QString error;
    ASSERT_TRUE(w.openCorpus((QString::fromUtf8(TREELENS_TEST_DATA_DIR) + QStringLiteral("/ui/three.conllu")), &error)) << error.toStdString();
    ASSERT_TRUE(waitFor([&] { return shown; }));
    const auto first = w.corpusPanel()->model()->sentenceAt(0);
    ASSERT_TRUE(first && w.document()->sentence());
    EXPECT_EQ(w.document()->sentence()->words(), first->words());
    EXPECT_EQ(w.document()->sentence()->metadataValue("dependency_source"), "gold");

    // A search typed for this corpus that hides every row does not hide the next one's first sentence.
    w.corpusPanel()->setSearch(QStringLiteral("no sentence has this"));
    EXPECT_EQ(w.corpusPanel()->visibleRows(), 0);
    shown = false;
    ASSERT_TRUE(w.openCorpus((QString::fromUtf8(TREELENS_TEST_DATA_DIR) + QStringLiteral("/ui/three.conllu")), &error)) << error.toStdString();
    ASSERT_TRUE(waitFor([&] { return shown; }));
    EXPECT_EQ(w.corpusPanel()->visibleRows(), 3);
    EXPECT_EQ(w.document()->sentence()->words(), first->words());
}

TEST_F(MainWindowTest, AnEmptyCorpusOnTheCommandLineStillShowsASentence)
{
    QTemporaryDir dir;
    const QString empty = dir.filePath(QStringLiteral("empty.txt"));
    QFile f(empty);
    ASSERT_TRUE(f.open(QIODevice::WriteOnly));
    f.close();
    // Nothing to show from the file: the app analyses a sentence (and so quits when asked).
    QString err;
    EXPECT_EQ(runGui({empty, QStringLiteral("--quit-after-analysis")}, &err), 0) << err.toStdString();
}

TEST_F(MainWindowTest, ASentenceOverTheWordLimitIsRefusedWithAMessageAndTheViewsKeepTheirState)
{
    // The hostile-input campaign's files: a CoNLL-U sentence of 10,000 words and a
    // PTB tree of 20,000 leaves (the app used to abort on the first, and grow past
    // 12 GiB on the second). Each follows a short sentence in the same file.
    QTemporaryDir dir;
    std::string conllu = "1\tHi\t_\t_\t_\t_\t0\troot\t_\t_\n\n";
    for (int i = 1; i <= 10000; ++i)
        conllu += std::to_string(i) + "\tw\t_\t_\t_\t_\t" + (i == 1 ? "0\troot" : "1\tdep") + "\t_\t_\n";
    conllu += "\n";
    std::string ptb = "(S (NN Hi))\n(S";
    for (int i = 0; i < 20000; ++i)
        ptb += " (NN w)";
    ptb += ")\n";
    for (const auto &[name, bytes, words] : {std::tuple<QString, std::string, int>{QStringLiteral("long.conllu"), conllu, 10000},
                                             {QStringLiteral("wide.mrg"), ptb, 20000}}) {
        const QString path = dir.filePath(name);
        QFile f(path);
        ASSERT_TRUE(f.open(QIODevice::WriteOnly));
        f.write(bytes.data(), static_cast<qint64>(bytes.size()));
        f.close();
        MainWindow w;
        w.setModelPath(QString::fromStdString(modelPath()));
        w.show();
        bool shown = false, ok = false;
        QObject::connect(&w, &MainWindow::analysisShown, [&](bool r) {
            shown = true;
            ok = r;
        });
        QString error;
        ASSERT_TRUE(w.openCorpus(path, &error)) << error.toStdString();
        ASSERT_TRUE(waitFor([&] { return shown; }));
        ASSERT_TRUE(ok);
        ASSERT_TRUE(w.document()->sentence());
        EXPECT_EQ(w.document()->sentence()->words(), std::vector<std::string>{"Hi"});
        shown = false;
        w.corpusPanel()->activateRow(1);
        ASSERT_TRUE(waitFor([&] { return shown; })) << name.toStdString();
        EXPECT_FALSE(ok) << name.toStdString();
        const std::string message = w.document()->lastError().toStdString();
        EXPECT_NE(message.find("has " + std::to_string(words) + " words (limit 250)"), std::string::npos) << message;
        // The window keeps what it showed.
        ASSERT_TRUE(w.document()->sentence());
        EXPECT_EQ(w.document()->sentence()->words(), std::vector<std::string>{"Hi"});
        EXPECT_TRUE(w.document()->analysis());
    }
}

TEST_F(MainWindowTest, ADependencyTransformerShowsItsRelationViewsAttentionChoicesAndPrediction)
{
    const std::string dt = std::string(TREELENS_SOURCE_DIR) + "/resources/models/dependency-transformer-en-polarity.safetensors";
    MainWindow w;
    w.setModelPath(QString::fromStdString(dt));
    w.show();
    bool ok = false;
    ASSERT_TRUE(analyseAndWait(w, QStringLiteral("The movie was not funny at all ."), &ok));
    ASSERT_TRUE(ok) << w.document()->lastError().toStdString();
    const auto a = w.document()->analysis();
    ASSERT_TRUE(a);
    ASSERT_EQ(a->family, "dependency-transformer");
    ASSERT_TRUE(a->relations);
    auto tabVisible = [&](const QString &label) {
        for (int i = 0; i < w.plotTabs()->count(); ++i)
            if (w.plotTabs()->tabText(i).remove(QLatin1Char('&')) == label)
                return w.plotTabs()->isTabVisible(i);
        return false;
    };
    EXPECT_TRUE(tabVisible(QStringLiteral("Relations")));
    EXPECT_TRUE(tabVisible(QStringLiteral("Gate")));
    EXPECT_TRUE(tabVisible(QStringLiteral("Gate overview")));
    // The model dock: the labels in the card, the prediction for this sentence.
    ASSERT_TRUE(a->prediction);
    const QString prediction = w.modelPanel()->predictionText();
    EXPECT_NE(prediction.indexOf(QString::fromStdString(a->prediction->label)), -1) << prediction.toStdString();
    EXPECT_NE(prediction.indexOf(QString::number(static_cast<double>(a->prediction->score), 'f', 3)), -1) << prediction.toStdString();
    EXPECT_NE(w.modelPanel()->cardHtml().indexOf(QStringLiteral("Labels")), -1);
    // The View dock offers the three attentions; "relation" shows softmax(S^r) in the attention heatmap.
    QComboBox *attention = w.controlPanel()->attentionCombo();
    ASSERT_EQ(attention->count(), 3);
    attention->setCurrentIndex(2);
    EXPECT_TRUE(w.document()->selection().relationAttention);
    const ViewState s = w.document()->selection();
    EXPECT_NEAR(w.attentionView()->cellValue(2, 5), a->attentionRelation[s.layer][s.head].at(2, 5), 1e-6);
    attention->setCurrentIndex(1);
    EXPECT_FALSE(w.document()->selection().relationAttention);
    EXPECT_FALSE(w.document()->selection().weightedAttention);
    EXPECT_NEAR(w.attentionView()->cellValue(2, 5), a->attentionRaw[s.layer][s.head].at(2, 5), 1e-6);

    // Back to the Tree Transformer: its two attentions, no relation tabs, no prediction.
    w.setModelPath(QString::fromStdString(modelPath()));
    ASSERT_TRUE(analyseAndWait(w, QStringLiteral("The movie was not funny at all ."), &ok));
    ASSERT_TRUE(waitFor([&] { return w.document()->analysis() && w.document()->analysis()->family == "tree-transformer"; }));
    EXPECT_FALSE(tabVisible(QStringLiteral("Relations")));
    EXPECT_EQ(attention->count(), 2);
    EXPECT_TRUE(w.modelPanel()->predictionText().isEmpty());
}

// File > Inference precision: the model is reloaded in the chosen precision, the card
// says which, the open sentence is analysed again, and the choice is remembered.
TEST_F(MainWindowTest, InferencePrecisionReloadsTheModelAndTheCardSaysWhich)
{
    MainWindow w;
    w.setModelPath(QString::fromStdString(modelPath()));
    w.show();
    bool ok = false;
    ASSERT_TRUE(analyseAndWait(w, QStringLiteral("The old man saw a red kite ."), &ok));
    ASSERT_TRUE(ok);
    ASSERT_TRUE(waitFor([&] { return w.modelPanel()->cardHtml().contains(QStringLiteral("· fp32")); }))
        << w.modelPanel()->cardHtml().toStdString();
    const auto before = w.document()->analysis();
    QAction *int8 = nullptr;
    for (QAction *a : w.findChildren<QAction *>())
        if (a->data().toString() == QLatin1String("int8"))
            int8 = a;
    ASSERT_TRUE(int8) << "no int8 entry in File > Inference precision";
    int8->trigger();
    EXPECT_EQ(w.precision(), QStringLiteral("int8"));
    EXPECT_EQ(Settings::value(QStringLiteral("model/precision")).toString(), QStringLiteral("int8"));
    ASSERT_TRUE(waitFor([&] { return w.modelPanel()->cardHtml().contains(QStringLiteral("· int8")); }))
        << w.modelPanel()->cardHtml().toStdString();
    // The sentence shown was analysed again, in int8: close to fp32, not identical.
    ASSERT_TRUE(waitFor([&] { return w.document()->analysis() && w.document()->analysis() != before; }));
    const auto after = w.document()->analysis();
    double worst = 0;
    for (std::size_t l = 0; l < after->linkProbs.size(); ++l)
        for (std::size_t k = 0; k < after->linkProbs[l].size(); ++k)
            worst = std::max(worst, std::fabs(static_cast<double>(after->linkProbs[l][k]) - before->linkProbs[l][k]));
    EXPECT_GT(worst, 0.0);
    EXPECT_LT(worst, 0.05);
    // Auto says how it chose.
    w.setPrecision(QStringLiteral("auto"));
    ASSERT_TRUE(waitFor([&] { return w.modelPanel()->cardHtml().contains(QStringLiteral("auto:")); }))
        << w.modelPanel()->cardHtml().toStdString();
    w.setPrecision(QStringLiteral("fp32"));
}

TEST_F(MainWindowTest, UsageErrorsExitTwoAndTheHelpListsEveryView)
{
    // Issue 30: a mistyped option exited 1 (QCommandLineParser's own exit), and --help
    // left out the composition view.
    QString err;
    EXPECT_EQ(runGui({QStringLiteral("--sentense"), QStringLiteral("The cat sat.")}, &err), 2) << err.toStdString();
    EXPECT_TRUE(err.contains(QStringLiteral("sentense"))) << err.toStdString();
    // One line of treelens's own (the platform may add its warnings).
    int own = 0;
    for (const QString &line : err.split(QLatin1Char('\n')))
        own += line.startsWith(QLatin1String("treelens:"));
    EXPECT_EQ(own, 1) << err.toStdString();
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
    p.setProcessEnvironment(env);
    p.start(guiBinary(), {QStringLiteral("--help")});
    ASSERT_TRUE(p.waitForFinished(60000));
    EXPECT_EQ(p.exitCode(), 0);
    const QString help = QString::fromUtf8(p.readAllStandardOutput()).simplified();
    for (const QString &view : MainWindow::exportableViewNames())
        EXPECT_TRUE(help.contains(view)) << view.toStdString() << " missing from --help:\n" << help.toStdString();
    // Issue 47, item 6: --help said --model takes a .safetensors file only; model folders work too.
    EXPECT_TRUE(help.contains(QStringLiteral("a .safetensors file or a model folder"))) << help.toStdString();
    EXPECT_TRUE(help.contains(QStringLiteral("--sweep-figure")));
    // The views' options come from the view registry, their former spellings with them.
    for (const char *flag : {"--attention", "--step", "--pair-trees", "--pair-detail", "--aggregation-step, --tat-step",
                             "--phrase-node, --tat-node", "--tat-step is its former spelling"})
        EXPECT_TRUE(help.contains(QLatin1String(flag))) << flag << " missing from --help:\n" << help.toStdString();
    // A view option's value is checked (exit 2, one line naming the flag), under either spelling.
    for (const QStringList &args : {QStringList{QStringLiteral("--tat-node"), QStringLiteral("b:3")},
                                    QStringList{QStringLiteral("--phrase-node"), QStringLiteral("q")},
                                    QStringList{QStringLiteral("--aggregation-step"), QStringLiteral("two")},
                                    QStringList{QStringLiteral("--pair-detail"), QStringLiteral("sideways")}}) {
        err.clear();
        EXPECT_EQ(runGui(QStringList{QStringLiteral("--pairs"), QStringLiteral("none.tsv")} + args, &err), 2)
            << args.join(QLatin1Char(' ')).toStdString() << ": " << err.toStdString();
        EXPECT_TRUE(err.contains(QStringLiteral(" must be "))) << err.toStdString();
    }
}

TEST_F(MainWindowTest, AFailedModelLoadWritesNoFigureAndExitsOne)
{
    // Issue 30: a text file, a parser model or a pair model given to --export-view printed an
    // error, exited 0 and wrote a figure without the model's data.
    QTemporaryDir dir;
    const QString text = dir.filePath(QStringLiteral("notes.txt"));
    {
        QFile f(text);
        ASSERT_TRUE(f.open(QIODevice::WriteOnly));
        f.write("the old man saw a red kite\n");
    }
    const QString models = (QString::fromUtf8(TREELENS_SOURCE_DIR) + QStringLiteral("/resources/models/"));
    const QStringList bad = {text, models + QStringLiteral("parser-dep-en-ewt.safetensors"),
                             models + QStringLiteral("tat-en-wikiqa.safetensors"),
                             models + QStringLiteral("dependency-transformer-en-rte.safetensors")};
    const QStringList why = {QStringLiteral("not a safetensors file"), QStringLiteral("parser model, not an encoder"),
                             QStringLiteral("sentence-pair model"), QStringLiteral("sentence-pair model")};
    for (int k = 0; k < bad.size(); ++k) {
        const QString out = dir.filePath(QStringLiteral("fig%1.png").arg(k));
        QString err;
        EXPECT_EQ(runGui({QStringLiteral("--model"), bad[k], QStringLiteral("--sentence"), QStringLiteral("The cat sat."),
                          QStringLiteral("--export-view"), QStringLiteral("dependency"), QStringLiteral("--out"), out},
                         &err),
                  1)
            << bad[k].toStdString() << ": " << err.toStdString();
        EXPECT_TRUE(err.contains(why[k])) << bad[k].toStdString() << ": " << err.toStdString();
        EXPECT_FALSE(QFile::exists(out)) << bad[k].toStdString() << ": a figure was written";
    }
}

namespace {

/// Whether `tabs` shows a tab labelled `label` (accelerators ignored); false when there is none.
bool tabShown(QTabWidget *tabs, const QString &label)
{
    for (int i = 0; i < tabs->count(); ++i)
        if (tabs->tabText(i).remove(QLatin1Char('&')) == label)
            return tabs->isTabVisible(i);
    return false;
}

/// `a` under another family name, without the parts `strip` takes out.
std::shared_ptr<const Analysis> renamed(const Analysis &a, const std::function<void(Analysis &)> &strip = {})
{
    auto copy = std::make_shared<Analysis>(a);
    copy->family = "a-family-no-view-knows";
    if (strip)
        strip(*copy);
    return copy;
}

} // namespace

// The view registry: every entry is created and has its tab, in its pane, with its label;
// the export names are its exportable entries, and they are the views the docs list.
TEST_F(MainWindowTest, EveryRegisteredViewHasItsTabAndExportName)
{
    MainWindow w;
    QStringList names, exportable;
    QStringList all;
    for (const ViewSpec &spec : viewRegistry()) {
        const std::string name = spec.name.toStdString();
        EXPECT_FALSE(all.contains(spec.name)) << "two views named " << name;
        all << spec.name;
        // A view the document feeds through a ViewHost has a refusal and `create`; one its window or
        // dock feeds itself is built through the registry (`build`, buildView()).
        ASSERT_TRUE((spec.refusal && spec.create) || (spec.build && !spec.create)) << name;
        if (!inMainWindow(spec)) { // the pair workbench's (test_pairworkbench.cpp) and the docks'
            EXPECT_EQ(w.exportableView(spec.name), nullptr) << name;
            continue;
        }
        names << spec.name;
        if (spec.exportable)
            exportable << spec.name;
        QTabWidget *tabs = spec.pane == ViewSpec::Pane::Trees ? w.treeTabs() : w.plotTabs();
        const QString label = QCoreApplication::translate("ViewRegistry", spec.tabLabel);
        int found = 0;
        for (int i = 0; i < tabs->count(); ++i)
            found += tabs->tabText(i) == label;
        EXPECT_EQ(found, 1) << name << ": tabs labelled " << label.toStdString();
        if (spec.exportable) {
            EXPECT_NE(w.exportableView(spec.name), nullptr) << name;
        }
    }
    EXPECT_EQ(names.size(), w.treeTabs()->count() + w.plotTabs()->count());
    EXPECT_EQ(MainWindow::exportableViewNames(), exportable);
    const QStringList documented = {QStringLiteral("constituency"), QStringLiteral("dependency"), QStringLiteral("prior"),
                                    QStringLiteral("attention"),    QStringLiteral("pieces"),     QStringLiteral("surprisal"),
                                    QStringLiteral("overview"),
                                    QStringLiteral("links"),
                                    QStringLiteral("relations"),    QStringLiteral("gate"),       QStringLiteral("gates"),
                                    QStringLiteral("composition")};
    EXPECT_EQ(exportable, documented);
}

// The optional tabs follow what an analysis carries, not which family made it: a
// Dependency-Transformer's and a recursive model's analyses under a family name no view
// knows still show the relation views and the composition (which draws it), and the
// same analyses without those parts hide them.
TEST_F(MainWindowTest, OptionalTabsFollowTheAnalysisNotTheFamilyName)
{
    const std::string models = std::string(TREELENS_SOURCE_DIR) + "/resources/models/";
    MainWindow w;
    w.show();
    const QString text = QStringLiteral("The movie was not funny at all .");

    w.setModelPath(QString::fromStdString(models + "dependency-transformer-en-polarity.safetensors"));
    bool ok = false;
    ASSERT_TRUE(analyseAndWait(w, text, &ok));
    ASSERT_TRUE(ok) << w.document()->lastError().toStdString();
    const auto s = w.document()->sentence();
    const Analysis dt = *w.document()->analysis();
    ASSERT_TRUE(dt.relations);
    w.document()->setResult(s, renamed(dt, [](Analysis &a) {
                                a.relations.reset();
                                a.relationGate.clear();
                                a.attentionRelation.clear();
                            }));
    for (const char *label : {"Relations", "Gate", "Gate overview"})
        EXPECT_FALSE(tabShown(w.plotTabs(), QString::fromLatin1(label))) << label << " shown without relations";
    w.document()->setResult(s, renamed(dt));
    for (const char *label : {"Relations", "Gate", "Gate overview"})
        EXPECT_TRUE(tabShown(w.plotTabs(), QString::fromLatin1(label))) << label << " hidden for a renamed family";

    w.setModelPath(QString::fromStdString(models + "dtt-edges-en-polarity.safetensors"));
    ASSERT_TRUE(analyseAndWait(w, text, &ok));
    ASSERT_TRUE(ok) << w.document()->lastError().toStdString();
    const auto s2 = w.document()->sentence();
    const Analysis rec = *w.document()->analysis();
    ASSERT_FALSE(rec.nodeAttention.empty());
    w.document()->setResult(s2, renamed(rec, [](Analysis &a) { a.nodeAttention.clear(); }));
    EXPECT_FALSE(tabShown(w.treeTabs(), QStringLiteral("Composition")));
    w.document()->setResult(s2, renamed(rec));
    EXPECT_TRUE(tabShown(w.treeTabs(), QStringLiteral("Composition")));
    auto *composition = dynamic_cast<CompositionView *>(w.exportableView(QStringLiteral("composition")));
    ASSERT_NE(composition, nullptr);
    EXPECT_GT(composition->steps(), 0) << "the composition view drew nothing for the renamed family";
}
