// treelens: the desktop application.
//
//   treelens [FILE] [--model M] [--sentence TEXT]
//   treelens [--sentence TEXT | FILE] --export-view VIEW --out FILE.png|svg|pdf|tex [--layer L] [--head H]
//
// With --export-view there is no window (ui/offscreenexport.h): the sentence (or
// every sentence of FILE, then --out names a directory) is analysed, the views
// rendered offscreen and written, and the program exits (0 ok, 1 error, 2 usage).
#include <algorithm>
#include <cstdio>
#include <exception>

#include <QApplication>
#include <QCommandLineParser>
#include <QFileInfo>
#include <QMessageBox>
#include <QTabWidget>
#include <QTimer>

#include "core/base/inputlimits.h"
#include "core/base/lsansuppressions.h"
#include "core/encoders/encoder.h"
#include "ui/corpuspanel.h"
#include "ui/mainwindow.h"
#include "ui/pairworkbench.h"
#include "ui/session/corpusmodel.h"
#include "ui/offscreenexport.h"
#include "ui/session/settings.h"
#include "ui/viewhost.h"
#include "viz/tatnodeview.h"
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

} // namespace

int main(int argc, char **argv)
{
    // Offscreen export needs no display: choose the platform before QApplication exists.
    for (int i = 1; i < argc; ++i)
        if (qstrcmp(argv[i], "--export-view") == 0 && qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
            qputenv("QT_QPA_PLATFORM", "offscreen");

    GuardedApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("TreeLens"));
    QApplication::setApplicationName(QStringLiteral("TreeLens"));
    QApplication::setApplicationVersion(QStringLiteral(TREELENS_VERSION));

    QCommandLineParser cli;
    cli.setApplicationDescription(QStringLiteral("TreeLens: see what tree-structured attention encoders do."));
    const QCommandLineOption helpOpt = cli.addHelpOption();
    const QCommandLineOption versionOpt = cli.addVersionOption();
    cli.addPositionalArgument(QStringLiteral("file"), QStringLiteral("A corpus file to open (CoNLL-U, PTB, JSON, text)."),
                              QStringLiteral("[FILE]"));
    const QCommandLineOption sentenceOpt(QStringLiteral("sentence"), QStringLiteral("Analyse this sentence at start-up."),
                                         QStringLiteral("TEXT"));
    const QCommandLineOption modelOpt(QStringLiteral("model"), QStringLiteral("Encoder model file (.safetensors)."),
                                      QStringLiteral("M"));
    const QCommandLineOption precisionOpt(
        QStringLiteral("precision"),
        QStringLiteral("Inference precision for this run: fp32 (reference numerics), int8, bf16 or auto (the fastest "
                       "measured here); the default is the one chosen in File > Inference precision."),
        QStringLiteral("P"));
    const QCommandLineOption exportOpt(
        QStringLiteral("export-view"),
        QStringLiteral("Render a view offscreen and exit: %1, or all (comma-separated lists work too).")
            .arg(treelens::ViewHost::exportableViewNames().join(QStringLiteral(", "))),
        QStringLiteral("VIEW"));
    const QCommandLineOption outOpt(QStringLiteral("out"),
                                    QStringLiteral("Output file (.png, .svg, .pdf, .tex) for --export-view; with FILE, "
                                                   "a directory that receives NNNN-VIEW.FORMAT per sentence."),
                                    QStringLiteral("OUT"));
    const QCommandLineOption formatOpt(QStringLiteral("format"),
                                       QStringLiteral("Batch export format: png, svg, pdf or tex (default svg)."),
                                       QStringLiteral("FMT"), QStringLiteral("svg"));
    const QCommandLineOption dpiOpt(QStringLiteral("dpi"), QStringLiteral("PNG resolution for --export-view (default 300)."),
                                    QStringLiteral("DPI"), QStringLiteral("300"));
    const QCommandLineOption layerOpt(QStringLiteral("layer"), QStringLiteral("Layer to show (1-based)."), QStringLiteral("L"));
    const QCommandLineOption headOpt(QStringLiteral("head"), QStringLiteral("Head to show (1-based)."), QStringLiteral("H"));
    const QCommandLineOption attentionOpt(
        QStringLiteral("attention"),
        QStringLiteral("Attention to show: model (default: after xC, or the Dependency-Transformer's gated combination), "
                       "plain (the softmax before xC / of the plain score) or relation (the Dependency-Transformer's "
                       "relation attention)."),
        QStringLiteral("KIND"), QStringLiteral("model"));
    // For tests and scripted runs: quit with status 0 once the first analysis is shown (1 on error).
    const QCommandLineOption quitOpt(QStringLiteral("quit-after-analysis"), QStringLiteral("Quit once the first analysis is shown."));
    const QCommandLineOption pairsOpt(QStringLiteral("pairs"),
                                      QStringLiteral("Open a sentence-pair corpus in the pair workbench (WikiQA folder, TSV, RTE XML, pairs JSON)."),
                                      QStringLiteral("PAIRS"));
    const QCommandLineOption systemsOpt(QStringLiteral("pair-systems"),
                                        QStringLiteral("The workbench's systems A[,B]: model files, or idf for the word-overlap baseline."),
                                        QStringLiteral("A,B"));
    const QCommandLineOption grabOpt(QStringLiteral("grab-pairs"),
                                     QStringLiteral("Save a screenshot of the workbench once its first pair is shown, then quit."),
                                     QStringLiteral("PNG"));
    const QCommandLineOption treesOpt(QStringLiteral("pair-trees"),
                                      QStringLiteral("The pair view's trees: dependency (default) or constituency."),
                                      QStringLiteral("KIND"));
    const QCommandLineOption tabOpt(QStringLiteral("pairs-tab"), QStringLiteral("The workbench tab to show: 1 metrics, 2 slices, 3 compare."),
                                    QStringLiteral("N"));
    const QCommandLineOption stepOpt(QStringLiteral("tat-step"),
                                     QStringLiteral("Tree Aggregation Transformer: show the aggregation up to this step (1 = deepest level)."),
                                     QStringLiteral("K"));
    const QCommandLineOption compositionStepOpt(QStringLiteral("step"),
                                                QStringLiteral("--export-view composition: show the composition up to this height (0 = all)."),
                                                QStringLiteral("K"));
    const QCommandLineOption nodeOpt(QStringLiteral("tat-node"),
                                     QStringLiteral("Tree Aggregation Transformer: the phrase view shows this phrase (q:ID or a:ID, "
                                                    "post-order node id) instead of the question's root."),
                                     QStringLiteral("SIDE:ID"));
    const QCommandLineOption detailOpt(QStringLiteral("pair-detail"),
                                       QStringLiteral("Below the pair's trees: bridge (default) or phrase (the TAT's phrase view)."),
                                       QStringLiteral("KIND"));
    cli.addOptions({sentenceOpt, modelOpt, exportOpt, outOpt, formatOpt, dpiOpt, layerOpt, headOpt, attentionOpt, quitOpt, pairsOpt,
                    systemsOpt, grabOpt, tabOpt, treesOpt, stepOpt, nodeOpt, detailOpt, compositionStepOpt, precisionOpt});
    // An unknown or malformed option is a usage error (exit 2, as treelens-cli), not QCommandLineParser's exit 1.
    if (!cli.parse(QCoreApplication::arguments()))
        return usage(QStringLiteral("%1 (treelens --help lists the options)").arg(cli.errorText()));
    if (cli.isSet(helpOpt))
        cli.showHelp(0);
    if (cli.isSet(versionOpt))
        cli.showVersion();
    if (cli.isSet(precisionOpt) &&
        !QStringList{QStringLiteral("fp32"), QStringLiteral("int8"), QStringLiteral("bf16"), QStringLiteral("auto")}.contains(
            cli.value(precisionOpt)))
        return usage(QStringLiteral("--precision must be fp32, int8, bf16 or auto, not '%1'").arg(cli.value(precisionOpt)));

    const bool exporting = cli.isSet(exportOpt);
    QStringList views;
    int layer = -1, head = -1, dpi = 300;
    if (exporting) {
        for (const QString &v : cli.value(exportOpt).split(QLatin1Char(','), Qt::SkipEmptyParts))
            views << (v == QLatin1String("all") ? treelens::ViewHost::exportableViewNames() : QStringList{v.trimmed()});
        for (const QString &v : views)
            if (!treelens::ViewHost::exportableViewNames().contains(v))
                return usage(QStringLiteral("unknown view '%1' (expected %2 or all)")
                                 .arg(v, treelens::ViewHost::exportableViewNames().join(QStringLiteral(", "))));
        if (!cli.isSet(outOpt))
            return usage(QStringLiteral("--export-view needs --out"));
        if (cli.positionalArguments().isEmpty() && views.size() > 1)
            return usage(QStringLiteral("one view per output file; give FILE and an output directory to export several"));
        bool ok = true;
        if (cli.isSet(layerOpt) && ((layer = cli.value(layerOpt).toInt(&ok) - 1) < 0 || !ok))
            return usage(QStringLiteral("--layer must be a positive integer"));
        if (cli.isSet(headOpt) && ((head = cli.value(headOpt).toInt(&ok) - 1) < 0 || !ok))
            return usage(QStringLiteral("--head must be a positive integer"));
        if (!QStringList{QStringLiteral("model"), QStringLiteral("plain"), QStringLiteral("relation")}.contains(cli.value(attentionOpt)))
            return usage(QStringLiteral("--attention must be model, plain or relation, not '%1'").arg(cli.value(attentionOpt)));
        if ((dpi = cli.value(dpiOpt).toInt(&ok)) < 10 || dpi > 1200 || !ok)
            return usage(QStringLiteral("--dpi must be between 10 and 1200"));
        const QString format = cli.positionalArguments().isEmpty()
                                   ? QFileInfo(cli.value(outOpt)).suffix().toLower()
                                   : cli.value(formatOpt).toLower();
        if (!cli.positionalArguments().isEmpty() &&
            !QStringList{QStringLiteral("png"), QStringLiteral("svg"), QStringLiteral("pdf"), QStringLiteral("tex")}.contains(format))
            return usage(QStringLiteral("--format must be png, svg, pdf or tex, not '%1'").arg(cli.value(formatOpt)));
        if (format == QLatin1String("tex")) {
            // LaTeX draws trees only: refuse up front rather than write some files and fail the others.
            QStringList plots;
            for (const QString &v : views)
                if (v != QLatin1String("constituency") && v != QLatin1String("dependency"))
                    plots << v;
            if (!plots.isEmpty())
                return usage(QStringLiteral("LaTeX (.tex) is written for the constituency and dependency views only, not "
                                            "%1: ask for --export-view constituency,dependency, or png, svg or pdf")
                                 .arg(plots.join(QStringLiteral(", "))));
        }
    }

    QString model = cli.value(modelOpt);
    if (model.isEmpty())
        model = QString::fromStdString(treelens::defaultModelPath());
    QString sentence = cli.value(sentenceOpt);
    const QString file = cli.positionalArguments().value(0);

    if (exporting) {
        treelens::OffscreenExportOptions options;
        options.views = views;
        options.out = cli.value(outOpt);
        options.format = cli.value(formatOpt);
        options.layer = layer;
        options.head = head;
        options.step = cli.value(compositionStepOpt).toInt();
        options.attention = cli.value(attentionOpt);
        options.dpi = dpi;
        options.modelPath = model;
        if (cli.isSet(precisionOpt))
            options.precision = cli.value(precisionOpt);
        treelens::OffscreenExport exporter(options);
        QObject::connect(&exporter, &treelens::OffscreenExport::reported, &app,
                         [](const QString &line) { std::fprintf(stderr, "treelens: %s\n", line.toUtf8().constData()); });
        QObject::connect(&exporter, &treelens::OffscreenExport::finished, &app, [](int rc) { QApplication::exit(rc); });
        if (sentence.trimmed().isEmpty())
            sentence = QStringLiteral("The old man saw a red kite.");
        QTimer::singleShot(0, &exporter, [&exporter, file, sentence] {
            if (!file.isEmpty())
                exporter.runCorpus(file);
            else
                exporter.runSentence(sentence);
        });
        return app.exec();
    }

    treelens::MainWindow window;
    if (cli.isSet(precisionOpt))
        window.setPrecision(cli.value(precisionOpt), /*remember=*/false);
    window.setModelPath(model);
    if (cli.isSet(pairsOpt)) {
        treelens::PairWorkbench *pairs = window.pairWorkbench();
        const QStringList systems = cli.value(systemsOpt).split(QLatin1Char(','), Qt::SkipEmptyParts);
        if (!systems.isEmpty())
            pairs->setSystems(systems.value(0), systems.value(1));
        if (cli.isSet(tabOpt))
            pairs->tabs()->setCurrentIndex(std::clamp(cli.value(tabOpt).toInt() - 1, 0, 2));
        if (cli.isSet(treesOpt))
            pairs->showConstituencyTrees(cli.value(treesOpt) == QLatin1String("constituency"));
        if (cli.isSet(detailOpt))
            pairs->showNodeView(cli.value(detailOpt) == QLatin1String("phrase"));
        if (cli.isSet(stepOpt) || cli.isSet(nodeOpt)) {
            // Once the pair is shown (its trees decide the steps and the node ids).
            const int step = cli.value(stepOpt).toInt();
            const QString node = cli.value(nodeOpt);
            QObject::connect(pairs, &treelens::PairWorkbench::pairReady, pairs, [pairs, step, node] {
                if (step > 0)
                    pairs->setAggregationStep(step);
                if (node.contains(QLatin1Char(':')))
                    pairs->selectTatNode(node.startsWith(QLatin1Char('a')) ? 1 : 0, node.section(QLatin1Char(':'), 1).toInt());
            });
        }
        if (cli.isSet(grabOpt)) {
            pairs->resize(1600, 1100);
            const QString out = cli.value(grabOpt);
            // With the phrase view below the trees, the view is also written whole (it scrolls in the window).
            const QString phraseOut = cli.value(detailOpt) == QLatin1String("phrase")
                                          ? QFileInfo(out).path() + QLatin1Char('/') + QFileInfo(out).completeBaseName() +
                                                QStringLiteral("-phrase-view.png")
                                          : QString();
            QObject::connect(pairs, &treelens::PairWorkbench::pairReady, &app, [pairs, out, phraseOut] {
                QTimer::singleShot(800, pairs, [pairs, out, phraseOut] {
                    bool ok = pairs->grab().save(out);
                    std::fprintf(stderr, "treelens: %s %s\n", ok ? "saved" : "could not save", out.toUtf8().constData());
                    if (ok && !phraseOut.isEmpty()) {
                        QString error;
                        ok = treelens::exportView(*pairs->tatNodeView(), phraseOut, &error, 110);
                        std::fprintf(stderr, "treelens: %s %s\n", ok ? "saved" : error.toUtf8().constData(),
                                     phraseOut.toUtf8().constData());
                    }
                    QApplication::exit(ok ? 0 : 1);
                });
            });
            QObject::connect(pairs, &treelens::PairWorkbench::failed, &app, [](const QString &m) {
                std::fprintf(stderr, "treelens: %s\n", m.toUtf8().constData());
                QApplication::exit(1);
            });
        }
        pairs->openCorpus(cli.value(pairsOpt));
        return app.exec();
    }
    if (cli.isSet(quitOpt))
        QObject::connect(&window, &treelens::MainWindow::analysisShown, &app, [](bool ok) { QApplication::exit(ok ? 0 : 1); });
    window.show();
    bool corpusShown = false; // an opened corpus shows its first sentence
    if (!file.isEmpty()) {
        QString error;
        if (!window.openCorpus(file, &error))
            std::fprintf(stderr, "treelens: %s\n", error.toUtf8().constData());
        else
            corpusShown = window.corpusPanel()->model()->rowCount() > 0; // an empty file shows nothing
    }
    if (sentence.isEmpty() && corpusShown)
        return app.exec();
    if (sentence.isEmpty())
        sentence = treelens::Settings::lastSentence();
    if (sentence.isEmpty())
        sentence = QStringLiteral("The old man saw a red kite.");
    QTimer::singleShot(0, &window, [&window, sentence] { window.analyse(sentence); });
    return app.exec();
}
