// OffscreenExport (`treelens --export-view`) in process, with the shipped
// default model: one sentence to one file, a corpus to one file per sentence and
// view, and errors; and no main window is ever built.
#include <QApplication>
#include <QDir>
#include <QFile>
#include <QMainWindow>
#include <QSvgRenderer>
#include <QTemporaryDir>

#include "core/encoders/encoder.h"
#include "ui/offscreenexport.h"
#include "ui/session/settings.h"
#include "testutil.h"
#include "uitestapp.h"

using namespace treelens;

namespace {

struct ExportRun {
    int exitCode = -1;
    QStringList reported;
    bool sawMainWindow = false;
};

/// Runs `start` on `exporter` and waits for finished().
template <class Start>
ExportRun runExport(OffscreenExport &exporter, Start start)
{
    ExportRun run;
    QObject::connect(&exporter, &OffscreenExport::reported, [&](const QString &line) { run.reported << line; });
    QObject::connect(&exporter, &OffscreenExport::finished, [&](int rc) { run.exitCode = rc; });
    start();
    test::waitFor([&] {
        for (QWidget *w : QApplication::allWidgets())
            run.sawMainWindow = run.sawMainWindow || qobject_cast<QMainWindow *>(w);
        return run.exitCode >= 0;
    }, 120000);
    return run;
}

class OffscreenExportTest : public ::testing::Test {
protected:
    void SetUp() override
    {
        test::uiApp();
        if (defaultModelPath().empty())
            GTEST_SKIP() << "SKIPPED: the shipped model resources/models/tree-transformer-en-small.safetensors was not found";
    }
};

} // namespace

TEST_F(OffscreenExportTest, WritesOneViewOfOneSentenceWithoutAWindow)
{
    QTemporaryDir dir;
    OffscreenExportOptions options;
    options.views = {QStringLiteral("attention")};
    options.out = dir.filePath(QStringLiteral("attention.svg"));
    options.layer = 1;
    options.head = 3; // the model's last head
    options.modelPath = QString::fromStdString(defaultModelPath());
    OffscreenExport exporter(options);
    const ExportRun run = runExport(exporter, [&] { exporter.runSentence(QStringLiteral("  The old man saw a red kite.  ")); });
    ASSERT_EQ(run.exitCode, 0) << run.reported.join(QLatin1Char('\n')).toStdString();
    EXPECT_FALSE(run.sawMainWindow);
    QFile f(options.out);
    ASSERT_TRUE(f.open(QIODevice::ReadOnly));
    EXPECT_TRUE(QSvgRenderer(f.readAll()).isValid());
    const auto a = exporter.document().analysis();
    ASSERT_TRUE(a);
    EXPECT_EQ(exporter.document().sentence()->tokens.size(), 8u);
    EXPECT_EQ(exporter.document().selection().layer, 1);
    EXPECT_EQ(exporter.document().selection().head, a->heads - 1);
}

TEST_F(OffscreenExportTest, RefusesAHeadTheModelLacksInsteadOfDrawingAnother)
{
    QTemporaryDir dir;
    OffscreenExportOptions options;
    options.views = {QStringLiteral("attention")};
    options.out = dir.filePath(QStringLiteral("attention.svg"));
    options.head = 99; // was clamped to the last head and drawn as if asked for
    options.modelPath = QString::fromStdString(defaultModelPath());
    OffscreenExport exporter(options);
    const ExportRun run = runExport(exporter, [&] { exporter.runSentence(QStringLiteral("The old man saw a red kite.")); });
    EXPECT_EQ(run.exitCode, 2);
    ASSERT_EQ(run.reported.size(), 1);
    EXPECT_EQ(run.reported[0], QStringLiteral("--head 100: the model has 4 heads; choose 1 to 4"));
    EXPECT_FALSE(QFile::exists(options.out));
}

TEST_F(OffscreenExportTest, NeverWritesTheSettings)
{
    EXPECT_FALSE(Settings::readOnly());
    {
        OffscreenExportOptions options;
        options.views = {QStringLiteral("prior")};
        OffscreenExport exporter(options);
        EXPECT_TRUE(Settings::readOnly());
        const QVariant before = Settings::value(QStringLiteral("view/constituencyMode"));
        Settings::setValue(QStringLiteral("view/constituencyMode"), 12345);
        Settings::addToHistory(QStringLiteral("a batch-exported sentence"));
        EXPECT_EQ(Settings::value(QStringLiteral("view/constituencyMode")), before);
        EXPECT_FALSE(Settings::sentenceHistory().contains(QStringLiteral("a batch-exported sentence")));
    }
    EXPECT_FALSE(Settings::readOnly()); // the app's own windows write again
}

TEST_F(OffscreenExportTest, WritesEveryViewOfEveryCorpusSentence)
{
    QTemporaryDir dir;
    OffscreenExportOptions options;
    options.views = {QStringLiteral("dependency"), QStringLiteral("constituency")};
    options.out = dir.filePath(QStringLiteral("out"));
    options.format = QStringLiteral("tex");
    options.modelPath = QString::fromStdString(defaultModelPath());
    OffscreenExport exporter(options);
    const ExportRun run = runExport(exporter, [&] { exporter.runCorpus((QString::fromUtf8(TREELENS_TEST_DATA_DIR) + QStringLiteral("/ui/three.conllu"))); });
    ASSERT_EQ(run.exitCode, 0) << run.reported.join(QLatin1Char('\n')).toStdString();
    EXPECT_FALSE(run.sawMainWindow);
    EXPECT_EQ(QDir(options.out).entryList(QDir::Files, QDir::Name),
              // NNNN-ID-VIEW: the corpus's sent_ids ui-1, ui-2, ui-3 (issue 47).
              QStringList({QStringLiteral("0001-ui-1-constituency.tex"), QStringLiteral("0001-ui-1-dependency.tex"),
                           QStringLiteral("0002-ui-2-constituency.tex"), QStringLiteral("0002-ui-2-dependency.tex"),
                           QStringLiteral("0003-ui-3-constituency.tex"), QStringLiteral("0003-ui-3-dependency.tex")}));
    EXPECT_EQ(run.reported.value(0), QStringLiteral("exported 6 file(s) for 3 sentence(s) to %1").arg(options.out));
    // The gold dependency tree of the corpus was kept (the last sentence is shown).
    EXPECT_EQ(exporter.document().sentence()->metadataValue("dependency_source"), "gold");
}

TEST_F(OffscreenExportTest, ReportsWhatCannotBeWritten)
{
    QTemporaryDir dir;
    OffscreenExportOptions options;
    options.views = {QStringLiteral("prior")};
    options.out = dir.filePath(QStringLiteral("x.bmpx"));
    options.modelPath = QString::fromStdString(defaultModelPath());
    {
        OffscreenExport exporter(options);
        const ExportRun run = runExport(exporter, [&] { exporter.runSentence(QStringLiteral("Dogs bark.")); });
        EXPECT_EQ(run.exitCode, 1);
        ASSERT_EQ(run.reported.size(), 1);
        EXPECT_TRUE(run.reported[0].startsWith(options.out + QStringLiteral(": "))) << run.reported[0].toStdString();
        EXPECT_FALSE(QFile::exists(options.out));
    }
    {
        OffscreenExport exporter(options);
        const QString missing = dir.filePath(QStringLiteral("missing.conllu"));
        const ExportRun run = runExport(exporter, [&] { exporter.runCorpus(missing); });
        EXPECT_EQ(run.exitCode, 1);
        ASSERT_EQ(run.reported.size(), 1);
        EXPECT_TRUE(run.reported[0].contains(missing)) << run.reported[0].toStdString();
    }
}
