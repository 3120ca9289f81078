// treelens: the desktop application.
//
//   treelens [FILE] [--model M] [--sentence TEXT]
//   treelens [--sentence TEXT | FILE] --export-view VIEW --out FILE.png|svg|pdf|tex [--layer L] [--head H]
//   treelens --pairs PAIRS [--pair-systems A,B] [--grab-pairs PNG] ...
//
// The views' options (--attention, --step, --pair-trees, --pair-detail, --aggregation-step,
// --phrase-node, ...) are the view registry's (ui/viewregistry.h): declared, checked and
// applied from there, so a view's new option needs no line here.
// With --export-view there is no window (ui/offscreenexport.h): the sentence (or
// every sentence of FILE, then --out names a directory) is analysed, the views
// rendered offscreen and written, and the program exits (0 ok, 1 error, 2 usage).
#include <algorithm>
#include <cstdio>
#include <exception>
#include <memory>
#include <vector>

#include <QApplication>
#include <QCommandLineParser>
#include <QDockWidget>
#include <QFileInfo>
#include <QMessageBox>
#include <QTabWidget>
#include <QVariant>
#include <QTimer>

#include "core/base/inputlimits.h"
#include "core/base/lsansuppressions.h"
#include "core/encoders/encoder.h"
#include "core/eval/minimalpairscoring.h"
#include "ui/corpuspanel.h"
#include "ui/corpusquery.h"
#include "ui/corpusquerybar.h"
#include "ui/mainwindow.h"
#include "ui/minimalpairspanel.h"
#include "ui/pairworkbench.h"
#include "ui/session/corpusmodel.h"
#include "ui/offscreenexport.h"
#include "ui/session/settings.h"
#include "ui/viewhost.h"
#include "ui/viewregistry.h"
#include "viz/sweepheatmap.h"
#include "viz/viewexport.h"

namespace {

/// The last line of defence: an exception thrown in an event handler (a
/// dependency's std::bad_alloc or c10::Error) would abort the process with
/// whatever the user had open. The job system already turns the errors of
/// background work into failed jobs; anything that still escapes is reported
/// here and the event is dropped, so the window survives.
class GuardedApplication : public QApplication {
public:
    using QApplication::QApplication;
    bool notify(QObject *receiver, QEvent *event) override
    {
        try {
            return QApplication::notify(receiver, event);
        } catch (const std::exception &e) {
            report(QString::fromUtf8(e.what()));
        } catch (...) {
            report(QStringLiteral("unknown exception"));
        }
        return false;
    }

private:
    void report(const QString &what)
    {
        const QString message = QString::fromStdString(treelens::printableMessage(what.left(500).toStdString()));
        std::fprintf(stderr, "treelens: internal error (the event was dropped): %s\n", message.toUtf8().constData());
        if (!platformName().startsWith(QLatin1String("offscreen")))
            QTimer::singleShot(0, [message] {
                QMessageBox::critical(nullptr, QStringLiteral("TreeLens"),
                                      QStringLiteral("Internal error; the last action was not completed:\n%1").arg(message));
            });
    }
};

int usage(const QString &message)
{
    std::fprintf(stderr, "treelens: %s\n", message.toUtf8().constData());
    return 2;
}

using treelens::ViewOption;
using treelens::ViewOptionValue;

/// A flag for every view option of `scope` that names one (the view registry's; viewregistry.h).
void addViewOptionFlags(QCommandLineParser &cli, ViewOption::Scope scope)
{
    for (const ViewOption *option : treelens::viewOptions(scope))
        if (!option->flags.isEmpty())
            cli.addOption(QCommandLineOption(option->flags, option->helpText(), option->valueName));
}

/// Every flag: the program's own, with the views' options where they belong.
void declareOptions(QCommandLineParser &cli)
{
    cli.setApplicationDescription(QStringLiteral("TreeLens: see what tree-structured attention encoders do."));
    cli.addHelpOption();
    cli.addVersionOption();
    cli.addPositionalArgument(QStringLiteral("file"), QStringLiteral("A corpus file to open (CoNLL-U, PTB, JSON, text)."),
                              QStringLiteral("[FILE]"));
    cli.addOptions({
        {QStringLiteral("sentence"), QStringLiteral("Analyse this sentence at start-up."), QStringLiteral("TEXT")},
        {QStringLiteral("model"), QStringLiteral("Model: a .safetensors file or a model folder (Hugging Face: config.json and its weights)."), QStringLiteral("M")},
        {QStringLiteral("precision"),
         QStringLiteral("Inference precision for this run: fp32 (reference numerics), int8, bf16 or auto (the fastest "
                        "measured here); the default is the one chosen in File > Inference precision."),
         QStringLiteral("P")},
        {QStringLiteral("export-view"),
         QStringLiteral("Render a view offscreen and exit: %1, or all (comma-separated lists work too).")
             .arg(treelens::ViewHost::exportableViewNames().join(QStringLiteral(", "))),
         QStringLiteral("VIEW")},
        {QStringLiteral("out"),
         QStringLiteral("Output file (.png, .svg, .pdf, .tex) for --export-view; with FILE, a directory that receives "
                        "NNNN-ID-VIEW.FORMAT per sentence (its number and id)."),
         QStringLiteral("OUT")},
        {QStringLiteral("format"), QStringLiteral("Batch export format: png, svg, pdf or tex (default svg)."), QStringLiteral("FMT"),
         QStringLiteral("svg")},
        {QStringLiteral("dpi"), QStringLiteral("PNG resolution for --export-view (default 300)."), QStringLiteral("DPI"),
         QStringLiteral("300")},
        {QStringLiteral("layer"), QStringLiteral("Layer to show (1-based)."), QStringLiteral("L")},
        {QStringLiteral("head"), QStringLiteral("Head to show (1-based)."), QStringLiteral("H")},
    });
    addViewOptionFlags(cli, ViewOption::Scope::Export);
    // For tests and scripted runs: quit with status 0 once the first analysis is shown (1 on error).
    cli.addOptions({
        {QStringLiteral("quit-after-analysis"), QStringLiteral("Quit once the first analysis is shown.")},
        {QStringLiteral("pairs"),
         QStringLiteral("Open a sentence-pair corpus in the pair workbench (WikiQA folder, TSV, RTE XML, pairs JSON)."),
         QStringLiteral("PAIRS")},
        {QStringLiteral("pair-systems"),
         QStringLiteral("The workbench's systems A[,B]: model files, or idf for the word-overlap baseline."), QStringLiteral("A,B")},
        {QStringLiteral("dock"),
         QStringLiteral("Show (and raise) these docks at start-up: probing, what-if, explain, minimal-pairs, "
                        "query-attention, model, inspector, corpus (comma-separated)."),
         QStringLiteral("NAMES")},
        {QStringLiteral("grab-pairs"),
         QStringLiteral("Save a screenshot of the workbench once its first pair is shown, then quit."), QStringLiteral("PNG")},
        {QStringLiteral("pairs-tab"), QStringLiteral("The workbench tab to show: 1 metrics, 2 slices, 3 compare."),
         QStringLiteral("N")},
        {QStringLiteral("minimal-pairs"),
         QStringLiteral("Open the Minimal pairs dock on this pair file (BLiMP JSON Lines or a good/bad TSV), or on the "
                        "pairs 'agreement' or 'determiner' made from the corpus FILE, and score them with the model."),
         QStringLiteral("PAIRS")},
        {QStringLiteral("grab-minimal-pairs"),
         QStringLiteral("With --minimal-pairs: once scored, select the first pair the model gets wrong, sweep every head, "
                        "save the dock as PNG and PNG-sweep.png (its Head sweep tab), then quit."),
         QStringLiteral("PNG")},
        {QStringLiteral("query"),
         QStringLiteral("Type this tree pattern (a Grew request or a Tregex pattern) into the Corpus dock once FILE is "
                        "open, and show the first sentence it matches (docs/query.md)."),
         QStringLiteral("PATTERN")},
        {QStringLiteral("query-attention"),
         QStringLiteral("With --query: once it has matched, the attention from pattern node FROM to node TO in the Query "
                        "attention dock."),
         QStringLiteral("FROM,TO")},
        {QStringLiteral("sweep-figure"),
         QStringLiteral("Draw a `treelens-cli ablate-sweep --json` result as the Minimal pairs dock's heatmap into --out "
                        "(.png at --dpi, .svg or .pdf) and exit; no display needed."),
         QStringLiteral("SWEEP.json")},
    });
    addViewOptionFlags(cli, ViewOption::Scope::Pairs);
}

/// The values given to the view options of `scope`; "" when they are valid, else the usage error.
QString readViewOptions(const QCommandLineParser &cli, ViewOption::Scope scope, std::vector<ViewOptionValue> &values)
{
    for (const ViewOption *option : treelens::viewOptions(scope)) {
        if (option->flags.isEmpty() || !cli.isSet(option->flags.front()))
            continue;
        QString error;
        const QVariant value = option->parse(cli.value(option->flags.front()), &error);
        if (!value.isValid())
            return error;
        values.push_back({option, value});
    }
    return QString();
}

/// The views `--export-view` names, checked: "" when they are known, else the usage error.
QString readExportedViews(const QCommandLineParser &cli, QStringList &views)
{
    const QStringList known = treelens::ViewHost::exportableViewNames();
    for (const QString &v : cli.value(QStringLiteral("export-view")).split(QLatin1Char(','), Qt::SkipEmptyParts))
        views << (v == QLatin1String("all") ? known : QStringList{v.trimmed()});
    for (const QString &v : views)
        if (!known.contains(v))
            return QStringLiteral("unknown view '%1' (expected %2 or all)").arg(v, known.join(QStringLiteral(", ")));
    return QString();
}

/// `--export-view` and its flags into `options`; "" when they are valid, else the usage error.
QString readExportRequest(const QCommandLineParser &cli, treelens::OffscreenExportOptions &options)
{
    if (QString error = readExportedViews(cli, options.views); !error.isEmpty())
        return error;
    if (!cli.isSet(QStringLiteral("out")))
        return QStringLiteral("--export-view needs --out");
    const bool corpus = !cli.positionalArguments().isEmpty();
    if (!corpus && options.views.size() > 1)
        return QStringLiteral("one view per output file; give FILE and an output directory to export several");
    bool ok = true;
    if (cli.isSet(QStringLiteral("layer")) && ((options.layer = cli.value(QStringLiteral("layer")).toInt(&ok) - 1) < 0 || !ok))
        return QStringLiteral("--layer must be a positive integer");
    if (cli.isSet(QStringLiteral("head")) && ((options.head = cli.value(QStringLiteral("head")).toInt(&ok) - 1) < 0 || !ok))
        return QStringLiteral("--head must be a positive integer");
    std::vector<ViewOptionValue> given;
    if (QString error = readViewOptions(cli, ViewOption::Scope::Export, given); !error.isEmpty())
        return error;
    for (const ViewOptionValue &v : given)
        options.viewOptions.insert(v.option->key(), v.value);
    if ((options.dpi = cli.value(QStringLiteral("dpi")).toInt(&ok)) < 10 || options.dpi > 1200 || !ok)
        return QStringLiteral("--dpi must be between 10 and 1200");
    options.out = cli.value(QStringLiteral("out"));
    options.format = cli.value(QStringLiteral("format"));
    const QString format = corpus ? options.format.toLower() : QFileInfo(options.out).suffix().toLower();
    if (corpus && !QStringList{QStringLiteral("png"), QStringLiteral("svg"), QStringLiteral("pdf"), QStringLiteral("tex")}.contains(format))
        return QStringLiteral("--format must be png, svg, pdf or tex, not '%1'").arg(options.format);
    if (format == QLatin1String("tex")) {
        // LaTeX draws trees only: refuse up front rather than write some files and fail the others.
        QStringList plots;
        for (const QString &v : options.views)
            if (v != QLatin1String("constituency") && v != QLatin1String("dependency"))
                plots << v;
        if (!plots.isEmpty())
            return QStringLiteral("LaTeX (.tex) is written for the constituency and dependency views only, not "
                                  "%1: ask for --export-view constituency,dependency, or png, svg or pdf")
                .arg(plots.join(QStringLiteral(", ")));
    }
    return QString();
}

/// Writes the views of `sentence` (or of every sentence of `file`) and exits (ui/offscreenexport.h).
int runOffscreenExport(const treelens::OffscreenExportOptions &options, const QString &file, QString sentence)
{
    treelens::OffscreenExport exporter(options);
    QObject::connect(&exporter, &treelens::OffscreenExport::reported, qApp,
                     [](const QString &line) { std::fprintf(stderr, "treelens: %s\n", line.toUtf8().constData()); });
    QObject::connect(&exporter, &treelens::OffscreenExport::finished, qApp, [](int rc) { QApplication::exit(rc); });
    if (sentence.trimmed().isEmpty())
        sentence = QStringLiteral("The old man saw a red kite.");
    QTimer::singleShot(0, &exporter, [&exporter, file, sentence] {
        if (!file.isEmpty())
            exporter.runCorpus(file);
        else
            exporter.runSentence(sentence);
    });
    return QApplication::exec();
}

/// `--sweep-figure SWEEP.json --out FILE`: the CLI's sweep drawn by the app's heatmap view.
int runSweepFigure(const QCommandLineParser &cli)
{
    const QString in = cli.value(QStringLiteral("sweep-figure")), out = cli.value(QStringLiteral("out"));
    if (out.isEmpty())
        return usage(QStringLiteral("--sweep-figure needs --out FILE (.png, .svg or .pdf)"));
    bool ok = true;
    const int dpi = cli.value(QStringLiteral("dpi")).toInt(&ok);
    if (!ok || dpi < 10 || dpi > 1200)
        return usage(QStringLiteral("--dpi must be between 10 and 1200"));
    auto text = treelens::readFileLimited(in.toStdString(), treelens::inputLimits().maxTextFileBytes);
    auto table = text ? treelens::readSweepJson(*text, in.toStdString()) : treelens::Result<treelens::SweepTable>(text.error());
    if (!table) {
        std::fprintf(stderr, "treelens: %s\n", table.message().c_str());
        return 1;
    }
    treelens::SweepFigure figure;
    figure.model = QString::fromStdString(table->model);
    figure.pairs = QString::fromStdString(table->input);
    figure.layers = table->layers;
    figure.heads = table->heads;
    figure.baseline = table->baseline;
    figure.baselinePairs = table->baselinePairs;
    figure.cells = table->cells;
    std::unique_ptr<treelens::SweepHeatmap> view(treelens::buildView<treelens::SweepHeatmap>(QStringLiteral("ablation-sweep")));
    view->setFigure(std::move(figure));
    QString error;
    if (!treelens::exportView(*view, out, &error, dpi)) {
        std::fprintf(stderr, "treelens: %s\n", error.toUtf8().constData());
        return 1;
    }
    return 0;
}

/// `--grab-pairs OUT`: once the first pair is shown, the workbench saved as OUT and the
/// program quits. A view below the trees other than the first (`--pair-detail`) is also
/// written whole as OUT-NAME-view.png (it scrolls in the window).
void grabPairsWhenShown(treelens::PairWorkbench *pairs, const QString &out)
{
    pairs->resize(1600, 1100);
    QObject::connect(pairs, &treelens::PairWorkbench::pairReady, qApp, [pairs, out] {
        QTimer::singleShot(800, pairs, [pairs, out] {
            bool ok = pairs->grab().save(out);
            std::fprintf(stderr, "treelens: %s %s\n", ok ? "saved" : "could not save", out.toUtf8().constData());
            const QString detail = pairs->shownDetail();
            treelens::ExportableView *view = detail != pairs->detailViewNames().value(0) ? pairs->detailView(detail) : nullptr;
            if (ok && view) {
                const QString detailOut = QFileInfo(out).path() + QLatin1Char('/') + QFileInfo(out).completeBaseName() +
                                          QStringLiteral("-%1-view.png").arg(detail);
                QString error;
                ok = treelens::exportView(*view, detailOut, &error, 110);
                std::fprintf(stderr, "treelens: %s %s\n", ok ? "saved" : error.toUtf8().constData(),
                             detailOut.toUtf8().constData());
            }
            QApplication::exit(ok ? 0 : 1);
        });
    });
    QObject::connect(pairs, &treelens::PairWorkbench::failed, qApp, [](const QString &m) {
        std::fprintf(stderr, "treelens: %s\n", m.toUtf8().constData());
        QApplication::exit(1);
    });
}

/// `--minimal-pairs PAIRS [--grab-minimal-pairs PNG]`: the dock opened on the pairs (and saved).
void openMinimalPairs(treelens::MainWindow &window, const QCommandLineParser &cli)
{
    treelens::MinimalPairsPanel *panel = window.minimalPairsPanel();
    auto *dock = qobject_cast<QDockWidget *>(panel->parentWidget());
    if (dock) {
        dock->show();
        dock->raise();
    }
    const QString out = cli.value(QStringLiteral("grab-minimal-pairs"));
    if (!out.isEmpty()) {
        if (dock) {
            dock->setFloating(true);
            dock->resize(1500, 660);
        }
        auto fail = [](const QString &m) {
            std::fprintf(stderr, "treelens: %s\n", m.toUtf8().constData());
            QApplication::exit(1);
        };
        QObject::connect(panel, &treelens::MinimalPairsPanel::scored, qApp, [panel, out] {
            if (panel->sweepCells().empty() && !panel->isSweeping())
                panel->sweep();
        });
        QObject::connect(panel, &treelens::MinimalPairsPanel::sweepFinished, qApp, [panel, out] {
            const auto *s = panel->scoring();
            int wrong = 0;
            for (std::size_t i = 0; s && i < s->rows.size(); ++i)
                if (s->rows[i].skipped.empty() && s->rows[i].goodLogprob <= s->rows[i].badLogprob) {
                    wrong = static_cast<int>(i);
                    break;
                }
            const QString sweepOut = QFileInfo(out).path() + QLatin1Char('/') + QFileInfo(out).completeBaseName() +
                                     QStringLiteral("-sweep.png");
            panel->tabs()->setCurrentIndex(1);
            QTimer::singleShot(500, panel, [panel, out, sweepOut, wrong] {
                bool ok = panel->grab().save(sweepOut);
                panel->selectPair(wrong);
                panel->tabs()->setCurrentIndex(0);
                QTimer::singleShot(500, panel, [panel, out, ok] {
                    const bool saved = ok && panel->grab().save(out);
                    std::fprintf(stderr, "treelens: %s %s\n", saved ? "saved" : "could not save", out.toUtf8().constData());
                    QApplication::exit(saved ? 0 : 1);
                });
            });
        });
        QObject::connect(panel, &treelens::MinimalPairsPanel::scoreFailed, qApp, fail);  // the model refused the pairs
        QObject::connect(panel, &treelens::MinimalPairsPanel::sweepFailed, qApp, fail);  // no heads, or an error
        // A scripted run never waits for ever: 2 hours is far beyond any shipped model on a pair file.
        QTimer::singleShot(2 * 3600 * 1000, qApp, [fail] { fail(QStringLiteral("--grab-minimal-pairs: no result after 2 hours")); });
    }
    QString error;
    const QString pairs = cli.value(QStringLiteral("minimal-pairs"));
    const bool made = pairs == QLatin1String("agreement") || pairs == QLatin1String("determiner");
    if (!(made ? panel->makePairsFromCorpus(pairs, &error) : panel->openPairs(pairs, &error))) {
        std::fprintf(stderr, "treelens: %s\n", error.toUtf8().constData());
        if (!out.isEmpty())
            QApplication::exit(1);
    }
}

/// `--pairs`: the pair workbench with its systems, tab and view options, on the corpus.
int runPairWorkbench(treelens::MainWindow &window, const QCommandLineParser &cli, const std::vector<ViewOptionValue> &options)
{
    treelens::PairWorkbench *pairs = window.pairWorkbench();
    const QStringList systems = cli.value(QStringLiteral("pair-systems")).split(QLatin1Char(','), Qt::SkipEmptyParts);
    if (!systems.isEmpty())
        pairs->setSystems(systems.value(0), systems.value(1));
    if (cli.isSet(QStringLiteral("pairs-tab")))
        pairs->tabs()->setCurrentIndex(std::clamp(cli.value(QStringLiteral("pairs-tab")).toInt() - 1, 0, 2));
    pairs->applyViewOptions(options); // the trees and the view below them now; steps and phrases once a pair is shown
    if (cli.isSet(QStringLiteral("grab-pairs")))
        grabPairsWhenShown(pairs, cli.value(QStringLiteral("grab-pairs")));
    pairs->openCorpus(cli.value(QStringLiteral("pairs")));
    return QApplication::exec();
}

/// `--query PATTERN [--query-attention FROM,TO]`: the pattern typed into the Corpus dock; once it
/// has matched, its first sentence shown (and the attention between the two nodes asked for).
void typeQuery(treelens::MainWindow &window, const QCommandLineParser &cli)
{
    treelens::CorpusPanel *corpus = window.corpusPanel();
    const QStringList nodes = cli.value(QStringLiteral("query-attention")).split(QLatin1Char(','), Qt::SkipEmptyParts);
    auto once = std::make_shared<QMetaObject::Connection>();
    *once = QObject::connect(corpus, &treelens::CorpusPanel::queryChanged, corpus, [corpus, nodes, once] {
        const auto result = corpus->queryResult();
        if (!result)
            return;
        QObject::disconnect(*once);
        if (const auto rows = result->matchedRows(); !rows.empty())
            corpus->activateRow(rows.front());
        std::vector<int> index;
        for (const QString &n : nodes) {
            const auto &names = result->pattern->names();
            const auto it = std::find(names.begin(), names.end(), n.trimmed().toStdString());
            if (it == names.end()) {
                std::fprintf(stderr, "treelens: --query-attention: the pattern has no node '%s'\n", n.toUtf8().constData());
                return;
            }
            index.push_back(static_cast<int>(it - names.begin()));
        }
        if (index.size() == 2) {
            corpus->queryBar()->setNodes(index[0], index[1]);
            corpus->queryBar()->requestAttention();
        }
    });
    corpus->setPattern(cli.value(QStringLiteral("query")), true);
    if (!corpus->queryBar()->errorText().isEmpty())
        std::fprintf(stderr, "treelens: --query: %s\n", corpus->queryBar()->errorText().toUtf8().constData());
}

/// The main window on FILE (its first sentence), or on the sentence given, last analysed or the default one.
int runWindow(treelens::MainWindow &window, const QCommandLineParser &cli, const QString &file, QString sentence)
{
    if (cli.isSet(QStringLiteral("quit-after-analysis")))
        QObject::connect(&window, &treelens::MainWindow::analysisShown, qApp, [](bool ok) { QApplication::exit(ok ? 0 : 1); });
    window.show();
    for (const QString &name : cli.value(QStringLiteral("dock")).split(QLatin1Char(','), Qt::SkipEmptyParts))
        if (!window.showDock(name.trimmed()))
            std::fprintf(stderr, "treelens: --dock: no dock '%s' (probing, what-if, explain, minimal-pairs, "
                                 "query-attention, model, inspector, corpus)\n",
                         name.toUtf8().constData());
    bool corpusShown = false; // an opened corpus shows its first sentence
    if (!file.isEmpty()) {
        QString error;
        if (!window.openCorpus(file, &error))
            std::fprintf(stderr, "treelens: %s\n", error.toUtf8().constData());
        else
            corpusShown = window.corpusPanel()->model()->rowCount() > 0; // an empty file shows nothing
    }
    if (corpusShown && cli.isSet(QStringLiteral("query")))
        typeQuery(window, cli);
    if (sentence.isEmpty() && corpusShown)
        return QApplication::exec();
    if (sentence.isEmpty())
        sentence = treelens::Settings::lastSentence();
    if (sentence.isEmpty())
        sentence = QStringLiteral("The old man saw a red kite.");
    QTimer::singleShot(0, &window, [&window, sentence] { window.analyse(sentence); });
    return QApplication::exec();
}

} // namespace

int main(int argc, char **argv)
{
    // Offscreen export needs no display: choose the platform before QApplication exists.
    for (int i = 1; i < argc; ++i)
        if ((qstrcmp(argv[i], "--export-view") == 0 || qstrcmp(argv[i], "--sweep-figure") == 0) &&
            qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
            qputenv("QT_QPA_PLATFORM", "offscreen");

    GuardedApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("TreeLens"));
    QApplication::setApplicationName(QStringLiteral("TreeLens"));
    QApplication::setApplicationVersion(QStringLiteral(TREELENS_VERSION));

    QCommandLineParser cli;
    declareOptions(cli);
    // An unknown or malformed option is a usage error (exit 2, as treelens-cli), not QCommandLineParser's exit 1.
    if (!cli.parse(QCoreApplication::arguments()))
        return usage(QStringLiteral("%1 (treelens --help lists the options)").arg(cli.errorText()));
    if (cli.isSet(QStringLiteral("help")))
        cli.showHelp(0);
    if (cli.isSet(QStringLiteral("version")))
        cli.showVersion();
    const QString precision = cli.value(QStringLiteral("precision"));
    if (cli.isSet(QStringLiteral("precision")) &&
        !QStringList{QStringLiteral("fp32"), QStringLiteral("int8"), QStringLiteral("bf16"), QStringLiteral("auto")}.contains(precision))
        return usage(QStringLiteral("--precision must be fp32, int8, bf16 or auto, not '%1'").arg(precision));

    QString model = cli.value(QStringLiteral("model"));
    if (model.isEmpty())
        model = QString::fromStdString(treelens::defaultModelPath());
    const QString sentence = cli.value(QStringLiteral("sentence"));
    const QString file = cli.positionalArguments().value(0);

    if (cli.isSet(QStringLiteral("sweep-figure")))
        return runSweepFigure(cli);
    if (cli.isSet(QStringLiteral("grab-minimal-pairs")) && !cli.isSet(QStringLiteral("minimal-pairs")))
        return usage(QStringLiteral("--grab-minimal-pairs needs --minimal-pairs PAIRS (a pair file, or agreement or "
                                    "determiner with a corpus FILE)"));
    if (cli.isSet(QStringLiteral("export-view"))) {
        treelens::OffscreenExportOptions options;
        if (const QString error = readExportRequest(cli, options); !error.isEmpty())
            return usage(error);
        options.modelPath = model;
        if (cli.isSet(QStringLiteral("precision")))
            options.precision = precision;
        return runOffscreenExport(options, file, sentence);
    }
    std::vector<ViewOptionValue> pairOptions;
    if (cli.isSet(QStringLiteral("pairs")))
        if (const QString error = readViewOptions(cli, ViewOption::Scope::Pairs, pairOptions); !error.isEmpty())
            return usage(error);

    treelens::MainWindow window;
    if (cli.isSet(QStringLiteral("precision")))
        window.setPrecision(precision, /*remember=*/false);
    window.setModelPath(model);
    if (cli.isSet(QStringLiteral("minimal-pairs")))
        QTimer::singleShot(0, &window, [&window, &cli] { openMinimalPairs(window, cli); });
    if (cli.isSet(QStringLiteral("pairs")))
        return runPairWorkbench(window, cli, pairOptions);
    return runWindow(window, cli, file, sentence);
}
