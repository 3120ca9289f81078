// The conformance matrix, the app's doors (docs/conformance.md): every model of
// conformance.h through `treelens --export-view` (every view, PNG and SVG, a corpus
// and one typed sentence) and through the main window's model switch, with a typed
// sentence and with a corpus open.
#include <QApplication>
#include <QDir>
#include <QFile>
#include <QImage>
#include <QLabel>
#include <QProcess>
#include <QStatusBar>
#include <QSvgRenderer>
#include <QTemporaryDir>

#include <gtest/gtest.h>

#include "conformance.h"
#include "core/encoders/encoder.h"
#include "ui/ablationcontrol.h"
#include "ui/corpuspanel.h"
#include "ui/corpusquery.h"
#include "ui/corpusquerybar.h"
#include "ui/mainwindow.h"
#include "ui/minimalpairspanel.h"
#include "ui/queryattentionpanel.h"
#include "ui/session/analysisdocument.h"
#include "ui/viewhost.h"
#include "ui/uitestapp.h"
#include "viz/constituencyview.h"
#include "viz/attentionoverview.h"
#include "viz/dependencyview.h"
#include "viz/queryattentionview.h"

using namespace treelens;
using namespace treelens::conformance;

namespace {

struct GuiRun {
    int code = -1; ///< -1: crashed or did not finish
    QString err;
};

GuiRun runGui(const QStringList &args)
{
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
    env.insert(QStringLiteral("XDG_CONFIG_HOME"), QString::fromStdString(::testing::TempDir()) + QStringLiteral("/conformance-xdg"));
    p.setProcessEnvironment(env);
    p.start(QString::fromUtf8(TREELENS_GUI_BINARY), args);
    GuiRun r;
    if (!p.waitForFinished(600000)) {
        p.kill();
        p.waitForFinished();
        r.err = QStringLiteral("did not finish in 600 s");
        return r;
    }
    r.err = QString::fromUtf8(p.readAllStandardError());
    r.code = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    return r;
}

/// A figure that shows something: enough pixels unlike the background, in more than one colour.
void expectNotBlank(const QString &png, const std::string &cell)
{
    QImage img(png);
    ASSERT_FALSE(img.isNull()) << cell << ": " << png.toStdString() << " is not a PNG";
    const QRgb background = img.pixel(0, 0);
    qint64 ink = 0;
    QSet<QRgb> colours;
    for (int y = 0; y < img.height(); y += 2)
        for (int x = 0; x < img.width(); x += 2) {
            const QRgb c = img.pixel(x, y);
            if (c != background) {
                ++ink;
                if (colours.size() < 64)
                    colours.insert(c);
            }
        }
    const qint64 sampled = static_cast<qint64>(img.width() / 2) * (img.height() / 2);
    EXPECT_GT(ink * 200, sampled) << cell << ": under 0.5% of the figure is drawn";
    EXPECT_GT(colours.size(), 2) << cell << ": the figure has hardly any colour";
}

void expectValidSvg(const QString &svg, const std::string &cell)
{
    QFile f(svg);
    ASSERT_TRUE(f.open(QIODevice::ReadOnly)) << cell << ": " << svg.toStdString();
    const QByteArray bytes = f.readAll();
    EXPECT_TRUE(QSvgRenderer(bytes).isValid()) << cell;
    EXPECT_GT(bytes.size(), 2000) << cell << ": a near-empty SVG";
}

/// The last line of stderr (the refusal), trimmed.
QString lastLine(const QString &err)
{
    const QStringList lines = err.trimmed().split(QLatin1Char('\n'));
    return lines.isEmpty() ? QString() : lines.last();
}

const char *const kFixtureMissing = " not found (fixture models need ../shared)";

/// A cell of the view matrix: the model line and format of its parameter, and the model's
/// file (the test is skipped, saying why, when the file is missing).
class ViewMatrix : public ::testing::TestWithParam<std::tuple<std::size_t, const char *>> {
protected:
    void SetUp() override
    {
        test::uiApp();
        m_path = modelPath(model());
        if (m_path.empty())
            GTEST_SKIP() << "SKIPPED: " << model().file << kFixtureMissing;
    }
    const ModelLine &model() const { return models()[std::get<0>(GetParam())]; }
    QString format() const { return QString::fromLatin1(std::get<1>(GetParam())); }
    const std::string &path() const { return m_path; }

private:
    std::string m_path;
};

} // namespace

// A corpus of two sentences with gold trees, every view, one format: the model's views are
// written and show something; the others are not written and the summary says why; a pair
// model writes nothing and says it reads pairs.
TEST_P(ViewMatrix, CorpusEveryView)
{
    const ModelLine &m = model();
    const QString format = this->format();
    const std::string &path = this->path();
    QTemporaryDir dir;
    const QString out = dir.filePath(QStringLiteral("figures"));
    const GuiRun r = runGui({QString::fromStdString(goldCorpus()), QStringLiteral("--model"), QString::fromStdString(path),
                             QStringLiteral("--export-view"), QStringLiteral("all"), QStringLiteral("--format"), format,
                             QStringLiteral("--dpi"), QStringLiteral("60"), QStringLiteral("--out"), out});
    const std::string cell = std::string(m.name) + " x export-view all ." + format.toStdString();
    ASSERT_NE(r.code, -1) << cell << ": " << r.err.toStdString();
    if (m.kind == Kind::Pair) {
        EXPECT_EQ(r.code, 1) << cell << ": " << r.err.toStdString();
        EXPECT_TRUE(lastLine(r.err).contains(QLatin1String("--pairs"))) << cell << ": " << r.err.toStdString();
        EXPECT_TRUE(QDir(out).entryList(QDir::Files).isEmpty()) << cell << ": a pair model's figures were written";
        return;
    }
    ASSERT_EQ(r.code, 0) << cell << ": " << r.err.toStdString();
    const auto declared = split(m.views);
    for (const QString &view : ViewHost::exportableViewNames()) {
        const bool drawn = std::find(declared.begin(), declared.end(), view.toStdString()) != declared.end();
        for (int k = 1; k <= 2; ++k) {
            // NNNN-ID-VIEW.FORMAT (issue 47): the sentence's number, then its id.
            const QStringList named = QDir(out).entryList({QStringLiteral("%1-*-%2.%3").arg(k, 4, 10, QLatin1Char('0')).arg(view, format)},
                                                           QDir::Files);
            const QString file = QDir(out).filePath(named.value(0, QStringLiteral("missing")));
            const std::string c = cell + " / " + view.toStdString() + " sentence " + std::to_string(k);
            if (!drawn) {
                EXPECT_FALSE(QFile::exists(file)) << c << ": written, though the model has nothing for it";
                continue;
            }
            ASSERT_TRUE(QFile::exists(file)) << c << ": not written\n" << r.err.toStdString();
            if (format == QLatin1String("png"))
                expectNotBlank(file, c);
            else
                expectValidSvg(file, c);
        }
        if (!drawn) {
            EXPECT_TRUE(r.err.contains(view + QStringLiteral(" not written for 2 sentence(s): the ") + view + QStringLiteral(" view")))
                << cell << ": the summary does not say why " << view.toStdString() << " was left out:\n"
                << r.err.toStdString();
        }
    }
}

// One typed sentence: the model's first view is written; a view it has nothing for is
// refused with one line (exit 1); a pair model refuses the sentence.
TEST_P(ViewMatrix, TypedSentence)
{
    const ModelLine &m = model();
    const QString format = this->format();
    const std::string &path = this->path();
    QTemporaryDir dir;
    const auto declared = split(m.views);
    const QString view = declared.empty() ? QStringLiteral("dependency") : QString::fromStdString(declared.back());
    const QString file = dir.filePath(view + QLatin1Char('.') + format);
    const std::string cell = std::string(m.name) + " x --sentence --export-view " + view.toStdString() + "." + format.toStdString();
    GuiRun r = runGui({QStringLiteral("--model"), QString::fromStdString(path), QStringLiteral("--sentence"),
                       QString::fromLatin1(kSentence), QStringLiteral("--export-view"), view, QStringLiteral("--dpi"),
                       QStringLiteral("60"), QStringLiteral("--out"), file});
    ASSERT_NE(r.code, -1) << cell << ": " << r.err.toStdString();
    if (m.kind == Kind::Pair) {
        EXPECT_EQ(r.code, 1) << cell << ": " << r.err.toStdString();
        EXPECT_TRUE(lastLine(r.err).contains(QLatin1String("sentence-pair model"))) << cell << ": " << r.err.toStdString();
        EXPECT_FALSE(QFile::exists(file)) << cell << ": written";
        return;
    }
    ASSERT_EQ(r.code, 0) << cell << ": " << r.err.toStdString();
    if (format == QLatin1String("png"))
        expectNotBlank(file, cell);
    else
        expectValidSvg(file, cell);
    // A view the model has nothing for: one line, exit 1, no file.
    for (const QString &other : ViewHost::exportableViewNames()) {
        if (std::find(declared.begin(), declared.end(), other.toStdString()) != declared.end())
            continue;
        const QString none = dir.filePath(other + QLatin1Char('.') + format);
        r = runGui({QStringLiteral("--model"), QString::fromStdString(path), QStringLiteral("--sentence"),
                    QString::fromLatin1(kSentence), QStringLiteral("--export-view"), other, QStringLiteral("--out"), none});
        EXPECT_EQ(r.code, 1) << m.name << " x " << other.toStdString() << ": " << r.err.toStdString();
        EXPECT_TRUE(lastLine(r.err).startsWith(QStringLiteral("treelens: the ") + other + QStringLiteral(" view draws")))
            << m.name << " x " << other.toStdString() << ": " << r.err.toStdString();
        EXPECT_FALSE(QFile::exists(none)) << m.name << " x " << other.toStdString();
        break; // one refused view per model is enough here; the corpus cell checks them all
    }
}

INSTANTIATE_TEST_SUITE_P(Conformance, ViewMatrix,
                         ::testing::Combine(::testing::Range<std::size_t>(0, models().size()), ::testing::Values("png", "svg")),
                         [](const ::testing::TestParamInfo<ViewMatrix::ParamType> &info) {
                             return std::string(models()[std::get<0>(info.param)].name) + "__" + std::get<1>(info.param);
                         });

namespace {

bool waitShown(MainWindow &w, const std::function<void()> &start)
{
    bool shown = false;
    auto c = QObject::connect(&w, &MainWindow::analysisShown, [&](bool) { shown = true; });
    start();
    const bool done = test::waitFor([&] { return shown; }, 300000);
    QObject::disconnect(c);
    return done;
}

QString statusText(MainWindow &w)
{
    QStringList parts;
    for (QLabel *l : w.statusBar()->findChildren<QLabel *>())
        parts << l->text();
    return parts.join(QLatin1Char(' '));
}

class ModelSwitch : public ::testing::TestWithParam<std::size_t> {
protected:
    void SetUp() override
    {
        test::uiApp();
        if (defaultModelPath().empty())
            GTEST_SKIP() << "SKIPPED: the shipped default model was not found";
    }
};

} // namespace

// The main window: a typed sentence, then this model (as Ctrl+M loads it); then a corpus
// with gold trees, and this model again. What the captions say of the trees is what they
// are; a sentence model shows its analysis; a pair model says it reads pairs.
TEST_P(ModelSwitch, TypedSentenceThenCorpus)
{
    const ModelLine &m = models()[GetParam()];
    const std::string path = modelPath(m);
    if (path.empty())
        GTEST_SKIP() << "SKIPPED: " << m.file << kFixtureMissing;
    MainWindow w;
    w.setModelPath(QString::fromStdString(defaultModelPath()));
    w.show();
    ASSERT_TRUE(waitShown(w, [&] { w.analyse(QStringLiteral("The old man saw a red kite.")); }));
    ASSERT_TRUE(waitShown(w, [&] {
        w.setModelPath(QString::fromStdString(path));
        w.analyseSentence(w.document()->sentence());
    })) << m.name << ": the switch was never shown";
    auto check = [&](bool gold, const char *when) {
        const std::string cell = std::string(m.name) + " (" + when + ")";
        const auto s = w.document()->sentence();
        ASSERT_TRUE(s) << cell;
        for (const QString &note : w.constituencyView()->notes() + w.dependencyView()->notes()) {
            if (!gold) {
                EXPECT_FALSE(note.contains(QLatin1String("gold"), Qt::CaseInsensitive) && !note.contains(QLatin1String("not gold")))
                    << cell << ": a parsed tree called gold: " << note.toStdString();
            }
        }
        const QStringList notes = w.constituencyView()->notes() + w.dependencyView()->notes();
        if (gold)
            EXPECT_TRUE(notes.join(QLatin1Char('\n')).contains(QLatin1String("gold, from the corpus file")))
                << cell << ": " << notes.join(QLatin1String(" | ")).toStdString();
        else
            EXPECT_TRUE(notes.join(QLatin1Char('\n')).contains(QLatin1String("predicted by the")))
                << cell << ": " << notes.join(QLatin1String(" | ")).toStdString();
        const QString status = statusText(w);
        EXPECT_EQ(status.contains(QLatin1String("gold trees from the corpus")), gold) << cell << ": " << status.toStdString();
        const auto a = w.document()->analysisFits() ? w.document()->analysis() : nullptr;
        if (m.kind == Kind::Pair) {
            EXPECT_FALSE(a) << cell << ": a pair model analysed one sentence";
            EXPECT_TRUE(w.document()->modelMessage().contains(QLatin1String("sentence-pair model")))
                << cell << ": " << w.document()->modelMessage().toStdString();
            EXPECT_TRUE(status.contains(QLatin1String("sentence-pair model"))) << cell << ": " << status.toStdString();
        } else {
            EXPECT_TRUE(a) << cell << ": no analysis: " << w.document()->modelMessage().toStdString();
        }
    };
    check(false, "typed sentence");
    w.setModelPath(QString::fromStdString(defaultModelPath()));
    ASSERT_TRUE(waitShown(w, [&] {
        QString error;
        ASSERT_TRUE(w.openCorpus(QString::fromStdString(goldCorpus()), &error)) << error.toStdString();
    }));
    ASSERT_TRUE(waitShown(w, [&] {
        w.setModelPath(QString::fromStdString(path));
        w.analyseSentence(w.document()->sentence());
    }));
    check(true, "corpus open");
}

INSTANTIATE_TEST_SUITE_P(Conformance, ModelSwitch, ::testing::Range<std::size_t>(0, models().size()),
                         [](const ::testing::TestParamInfo<std::size_t> &info) { return std::string(models()[info.param].name); });

// The Minimal pairs dock and head ablation in the app (issue 46): the conformance pairs opened
// in the dock and scored by this model (a language model: the accuracy; any other: the one-line
// refusal, no scores), and one head switched off from the window (a model with heads: the
// analysis made without it, the badge on the overview; a Tree-LSTM: the refusal in the status).
TEST_P(ModelSwitch, MinimalPairsDockAndHeadAblation)
{
    const ModelLine &m = models()[GetParam()];
    const std::string path = modelPath(m);
    if (path.empty())
        GTEST_SKIP() << "SKIPPED: " << m.file << kFixtureMissing;
    MainWindow w;
    w.setModelPath(QString::fromStdString(path));
    w.show();
    MinimalPairsPanel *panel = w.minimalPairsPanel();
    QString error;
    ASSERT_TRUE(panel->openPairs(QString::fromStdString(minimalPairsFile()), &error)) << error.toStdString();
    QString failure;
    QObject::connect(panel, &MinimalPairsPanel::statusMessage, [&](const QString &t) { failure = t; });
    ASSERT_TRUE(test::waitFor([&] { return !panel->isScoring() && (panel->scoring() || !failure.isEmpty()); }, 600000))
        << m.name << ": the dock never finished";
    if (m.givesSentenceScore()) {
        ASSERT_TRUE(panel->scoring()) << m.name << ": " << failure.toStdString();
        EXPECT_EQ(panel->scoring()->rows.size(), panel->pairSet().pairs.size()) << m.name;
        EXPECT_TRUE(panel->summaryText().contains(QLatin1String("accuracy"))) << m.name;
    } else {
        EXPECT_FALSE(panel->scoring()) << m.name << ": scored pairs without a sentence log-probability";
        EXPECT_TRUE(failure.contains(QLatin1String("gives no sentence log-probability"))) << m.name << ": " << failure.toStdString();
    }
    if (m.kind == Kind::Pair)
        return; // the window analyses no single sentence with it
    ASSERT_TRUE(waitShown(w, [&] { w.analyse(QStringLiteral("The old man saw a red kite.")); }));
    ASSERT_TRUE(waitShown(w, [&] { w.ablation()->toggle(0, 0); })) << m.name << ": the ablated analysis was never shown";
    const auto a = w.document()->analysisFits() ? w.document()->analysis() : nullptr;
    if (m.ablates) {
        ASSERT_TRUE(a) << m.name << ": " << w.document()->modelMessage().toStdString();
        EXPECT_EQ(a->ablated, (std::vector<std::pair<int, int>>{{0, 0}})) << m.name;
        if (!a->attention.empty())
            EXPECT_TRUE(w.overviewView()->titleLines().join(' ').contains(QLatin1String("L1 H1 ablated"))) << m.name;
    } else {
        EXPECT_FALSE(a) << m.name << ": analysed with a head switched off that it does not have";
        EXPECT_TRUE(w.document()->modelMessage().contains(QLatin1String("head"))) << m.name << ": "
                                                                                   << w.document()->modelMessage().toStdString();
    }
}

// The Corpus dock's tree pattern and the Query attention dock (issue 48): the gold corpus
// filtered by a Grew request, then the attention from each dependent to its head over its
// occurrences with this model: a sentence model with attention heads gives a layers × heads grid
// of its own size; one without word-level attention (a recursive model) says it has none to
// average; a pair model refuses in one line (it reads pairs).
TEST_P(ModelSwitch, CorpusQueryAndItsAttentionStatistic)
{
    const ModelLine &m = models()[GetParam()];
    const std::string path = modelPath(m);
    if (path.empty())
        GTEST_SKIP() << "SKIPPED: " << m.file << kFixtureMissing;
    MainWindow w;
    w.setModelPath(QString::fromStdString(path));
    w.show();
    QString error;
    ASSERT_TRUE(w.openCorpus(QString::fromStdString(goldCorpus()), &error)) << error.toStdString();
    CorpusPanel *corpus = w.corpusPanel();
    corpus->setPattern(QStringLiteral("pattern { H -> D; H << D }"), true);
    ASSERT_TRUE(test::waitFor([&] { return corpus->queryResult() && !corpus->queryBar()->isMatching(); }));
    ASSERT_GT(corpus->queryResult()->total, 0u);
    QueryAttentionPanel *stat = w.queryAttentionPanel();
    bool finished = false, ok = false;
    QObject::connect(stat, &QueryAttentionPanel::finished, [&](bool r) { finished = true, ok = r; });
    corpus->queryBar()->setNodes(1, 0); // D → H
    corpus->queryBar()->requestAttention();
    ASSERT_TRUE(test::waitFor([&] { return finished; }, 600000)) << m.name << ": the statistic never finished";
    const QString status = stat->statusText();
    if (m.kind == Kind::Pair) {
        EXPECT_FALSE(ok) << m.name << ": a pair model analysed one sentence";
        EXPECT_TRUE(status.contains(QLatin1String("sentence-pair model"))) << m.name << ": " << status.toStdString();
        return;
    }
    ASSERT_TRUE(ok) << m.name << ": " << status.toStdString();
    const QueryAttentionFigure &figure = stat->view()->figure();
    const bool attention = (std::string(",") + m.views + ",").find(",attention,") != std::string::npos;
    if (attention) {
        EXPECT_GT(figure.layers, 0) << m.name;
        EXPECT_GT(figure.heads, 0) << m.name;
        EXPECT_GT(figure.occurrences, 0u) << m.name << ": " << status.toStdString();
        EXPECT_EQ(stat->view()->cellTexts().size(), figure.layers * figure.heads) << m.name;
    } else {
        EXPECT_EQ(figure.layers, 0) << m.name;
        EXPECT_TRUE(status.contains(QLatin1String("gives no word-level attention"))) << m.name << ": " << status.toStdString();
    }
}
