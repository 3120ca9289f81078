// treelens: the desktop application.
//
//   treelens [FILE] [--model M] [--sentence TEXT]
//   treelens [--sentence TEXT | FILE] --export-view VIEW --out FILE.png|svg|pdf|tex [--layer L] [--head H]
//
// With --export-view the window is never shown: the sentence (or every sentence
// of FILE, then --out names a directory) is analysed, the view rendered
// offscreen and written, and the program exits (0 ok, 1 error, 2 usage).
#include <cstdio>

#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QFileInfo>
#include <QTimer>

#include "core/encoders/encoder.h"
#include "ui/mainwindow.h"
#include "ui/corpuspanel.h"
#include "ui/session/corpusmodel.h"
#include "ui/session/settings.h"

namespace {

/// Drives offscreen exports: one sentence, or every sentence of a corpus.
class ExportDriver : public QObject {
public:
    ExportDriver(treelens::MainWindow &window, QStringList views, QString out, QString format, int layer, int head, int dpi)
        : m_window(window), m_views(std::move(views)), m_out(std::move(out)), m_format(std::move(format)),
          m_layer(layer), m_head(head), m_dpi(dpi)
    {
        connect(&window, &treelens::MainWindow::analysisShown, this, &ExportDriver::onShown);
    }

    void runSentence(const QString &text) { m_window.analyse(text); }

    bool runCorpus(const QString &path)
    {
        QString error;
        if (!m_window.openCorpus(path, &error)) {
            std::fprintf(stderr, "treelens: %s\n", error.toUtf8().constData());
            return false;
        }
        m_corpus = m_window.corpusPanel()->model()->corpus();
        if (!m_corpus || m_corpus->empty()) {
            std::fprintf(stderr, "treelens: %s: no sentences\n", path.toUtf8().constData());
            return false;
        }
        if (!QDir().mkpath(m_out)) {
            std::fprintf(stderr, "treelens: %s: cannot create the output directory\n", m_out.toUtf8().constData());
            return false;
        }
        next();
        return true;
    }

private:
    void next()
    {
        if (m_index >= static_cast<int>(m_corpus->size())) {
            std::fprintf(stderr, "treelens: exported %d file(s) for %d sentence(s) to %s\n", m_written, m_index,
                         m_out.toUtf8().constData());
            QApplication::exit(m_failed ? 1 : 0);
            return;
        }
        m_window.analyseSentence(m_window.corpusPanel()->model()->sentenceAt(m_index));
    }

    void onShown(bool ok)
    {
        if (!ok) {
            std::fprintf(stderr, "treelens: %s\n", m_window.document()->lastError().toUtf8().constData());
            if (!m_corpus) {
                QApplication::exit(1);
                return;
            }
            m_failed = true;
        } else {
            treelens::ViewState s = m_window.viewState();
            if (m_layer >= 0)
                s.layer = m_layer;
            if (m_head >= 0)
                s.head = m_head;
            m_window.setViewState(s);
            for (const QString &view : m_views) {
                const QString path = m_corpus ? QStringLiteral("%1/%2-%3.%4")
                                                    .arg(m_out)
                                                    .arg(m_index + 1, 4, 10, QLatin1Char('0'))
                                                    .arg(view, m_format)
                                              : m_out;
                const treelens::Status st = m_window.exportCurrent(view, path, m_dpi);
                if (!st) {
                    std::fprintf(stderr, "treelens: %s: %s\n", path.toUtf8().constData(), st.message().c_str());
                    m_failed = true;
                } else {
                    ++m_written;
                }
            }
        }
        if (!m_corpus) {
            QApplication::exit(m_failed ? 1 : 0);
            return;
        }
        ++m_index;
        QTimer::singleShot(0, this, [this] { next(); });
    }

    treelens::MainWindow &m_window;
    QStringList m_views;
    QString m_out;
    QString m_format;
    int m_layer;
    int m_head;
    int m_dpi;
    std::shared_ptr<const std::vector<treelens::Sentence>> m_corpus;
    int m_index = 0;
    int m_written = 0;
    bool m_failed = false;
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

    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("TreeLens"));
    QApplication::setApplicationName(QStringLiteral("TreeLens"));
    QApplication::setApplicationVersion(QStringLiteral(TREELENS_VERSION));

    QCommandLineParser cli;
    cli.setApplicationDescription(QStringLiteral("TreeLens: see what tree-structured attention encoders do."));
    cli.addHelpOption();
    cli.addVersionOption();
    cli.addPositionalArgument(QStringLiteral("file"), QStringLiteral("A corpus file to open (CoNLL-U, PTB, JSON, text)."),
                              QStringLiteral("[FILE]"));
    const QCommandLineOption sentenceOpt(QStringLiteral("sentence"), QStringLiteral("Analyse this sentence at start-up."),
                                         QStringLiteral("TEXT"));
    const QCommandLineOption modelOpt(QStringLiteral("model"), QStringLiteral("Encoder model file (.safetensors)."),
                                      QStringLiteral("M"));
    const QCommandLineOption exportOpt(
        QStringLiteral("export-view"),
        QStringLiteral("Render a view offscreen and exit: constituency, dependency, prior, attention, overview, links, "
                       "or all (comma-separated lists work too)."),
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
    // For tests and scripted runs: quit with status 0 once the first analysis is shown (1 on error).
    const QCommandLineOption quitOpt(QStringLiteral("quit-after-analysis"), QStringLiteral("Quit once the first analysis is shown."));
    cli.addOptions({sentenceOpt, modelOpt, exportOpt, outOpt, formatOpt, dpiOpt, layerOpt, headOpt, quitOpt});
    cli.process(app);

    const bool exporting = cli.isSet(exportOpt);
    QStringList views;
    int layer = -1, head = -1, dpi = 300;
    if (exporting) {
        for (const QString &v : cli.value(exportOpt).split(QLatin1Char(','), Qt::SkipEmptyParts))
            views << (v == QLatin1String("all") ? treelens::MainWindow::exportableViewNames() : QStringList{v.trimmed()});
        for (const QString &v : views)
            if (!treelens::MainWindow::exportableViewNames().contains(v))
                return usage(QStringLiteral("unknown view '%1' (expected %2 or all)")
                                 .arg(v, treelens::MainWindow::exportableViewNames().join(QStringLiteral(", "))));
        if (!cli.isSet(outOpt))
            return usage(QStringLiteral("--export-view needs --out"));
        if (cli.positionalArguments().isEmpty() && views.size() > 1)
            return usage(QStringLiteral("one view per output file; give FILE and an output directory to export several"));
        bool ok = true;
        if (cli.isSet(layerOpt) && ((layer = cli.value(layerOpt).toInt(&ok) - 1) < 0 || !ok))
            return usage(QStringLiteral("--layer must be a positive integer"));
        if (cli.isSet(headOpt) && ((head = cli.value(headOpt).toInt(&ok) - 1) < 0 || !ok))
            return usage(QStringLiteral("--head must be a positive integer"));
        if ((dpi = cli.value(dpiOpt).toInt(&ok)) < 10 || dpi > 1200 || !ok)
            return usage(QStringLiteral("--dpi must be between 10 and 1200"));
    }

    treelens::MainWindow window;
    QString model = cli.value(modelOpt);
    if (model.isEmpty())
        model = QString::fromStdString(treelens::defaultModelPath());
    window.setModelPath(model);

    QString sentence = cli.value(sentenceOpt);
    const QString file = cli.positionalArguments().value(0);

    if (exporting) {
        auto *driver = new ExportDriver(window, views, cli.value(outOpt), cli.value(formatOpt), layer, head, dpi);
        if (!file.isEmpty()) {
            QTimer::singleShot(0, &window, [driver, file] {
                if (!driver->runCorpus(file))
                    QApplication::exit(1);
            });
        } else {
            if (sentence.isEmpty())
                sentence = QStringLiteral("The old man saw a red kite.");
            QTimer::singleShot(0, &window, [driver, sentence] { driver->runSentence(sentence); });
        }
        const int rc = app.exec();
        delete driver;
        return rc;
    }

    if (cli.isSet(quitOpt))
        QObject::connect(&window, &treelens::MainWindow::analysisShown, &app, [](bool ok) { QApplication::exit(ok ? 0 : 1); });
    window.show();
    if (!file.isEmpty()) {
        QString error;
        if (!window.openCorpus(file, &error))
            std::fprintf(stderr, "treelens: %s\n", error.toUtf8().constData());
    }
    if (sentence.isEmpty())
        sentence = treelens::Settings::lastSentence();
    if (sentence.isEmpty())
        sentence = QStringLiteral("The old man saw a red kite.");
    QTimer::singleShot(0, &window, [&window, sentence] { window.analyse(sentence); });
    return app.exec();
}
