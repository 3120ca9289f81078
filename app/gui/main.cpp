// treelens: the desktop application.
#include <QApplication>
#include <QCommandLineParser>
#include <QTimer>

#include "core/encoders/encoder.h"
#include "ui/mainwindow.h"
#include "ui/session/settings.h"

int main(int argc, char **argv)
{
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("TreeLens"));
    QApplication::setApplicationName(QStringLiteral("TreeLens"));
    QApplication::setApplicationVersion(QStringLiteral(TREELENS_VERSION));

    QCommandLineParser cli;
    cli.setApplicationDescription(QStringLiteral("TreeLens: see what tree-structured attention encoders do."));
    cli.addHelpOption();
    cli.addVersionOption();
    cli.addPositionalArgument(QStringLiteral("file"), QStringLiteral("A corpus file to open (CoNLL-U, PTB, JSON, text)."), QStringLiteral("[FILE]"));
    const QCommandLineOption sentenceOpt(QStringLiteral("sentence"), QStringLiteral("Analyse this sentence at start-up."), QStringLiteral("TEXT"));
    const QCommandLineOption modelOpt(QStringLiteral("model"), QStringLiteral("Encoder model file (.safetensors)."), QStringLiteral("M"));
    // For tests and scripted runs: quit with status 0 once the first analysis is shown (1 on error).
    const QCommandLineOption quitOpt(QStringLiteral("quit-after-analysis"), QStringLiteral("Quit once the first analysis is shown."));
    cli.addOption(sentenceOpt);
    cli.addOption(modelOpt);
    cli.addOption(quitOpt);
    cli.process(app);

    treelens::MainWindow window;
    QString model = cli.value(modelOpt);
    if (model.isEmpty())
        model = QString::fromStdString(treelens::defaultModelPath());
    window.setModelPath(model);
    if (cli.isSet(quitOpt))
        QObject::connect(&window, &treelens::MainWindow::analysisShown, &app, [](bool ok) { QApplication::exit(ok ? 0 : 1); });
    window.show();

    QString sentence = cli.value(sentenceOpt);
    if (sentence.isEmpty())
        sentence = treelens::Settings::lastSentence();
    if (sentence.isEmpty())
        sentence = QStringLiteral("The old man saw a red kite.");
    QTimer::singleShot(0, &window, [&window, sentence] { window.analyse(sentence); });
    return app.exec();
}
