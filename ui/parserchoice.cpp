#include "ui/parserchoice.h"

#include <QFileDialog>
#include <QInputDialog>
#include <QLineEdit>
#include <QMessageBox>

#include "ui/session/settings.h"

namespace treelens {

ParserConfig savedParserConfig()
{
    ParserConfig config;
    config.backend = Settings::parserBackend().toStdString();
    config.command = Settings::value(QStringLiteral("parser/command")).toString().toStdString();
    config.treeFile = Settings::value(QStringLiteral("parser/treeFile")).toString().toStdString();
    // Link Grammar's time grows steeply with length: long typed sentences are parsed
    // in clause-sized pieces (core/parsing/chunkingparser.h) so the app stays interactive.
    config.chunkLongerThan = 60;
    config.chunkMaxPiece = 30;
    if (!createParser(config)) { // unknown backend in old settings: fall back to the default
        config.backend = ParserConfig().backend;
    }
    return config;
}

std::optional<ParserConfig> askParserConfig(QWidget *parent, const ParserConfig &current, const QString &name)
{
    ParserConfig config = current;
    if (name == QLatin1String("external")) {
        // The external backend runs the user's own parser: ask for its command line once.
        bool ok = false;
        const QString command = QInputDialog::getText(
            parent, QObject::tr("External parser"),
            QObject::tr("Command that reads one line of space-separated tokens on stdin and writes one CoNLL-U sentence on "
                        "stdout (for example a UDPipe, spaCy or Stanza wrapper script):"),
            QLineEdit::Normal, Settings::value(QStringLiteral("parser/command")).toString(), &ok);
        if (!ok || command.trimmed().isEmpty())
            return std::nullopt;
        Settings::setValue(QStringLiteral("parser/command"), command.trimmed());
        config.command = command.trimmed().toStdString();
    } else if (name == QLatin1String("file")) {
        // Trees parsed elsewhere (or gold): typed sentences are looked up in this file by their words.
        const QString path = QFileDialog::getOpenFileName(
            parent, QObject::tr("Parsed file to take trees from"), Settings::value(QStringLiteral("parser/treeFile")).toString(),
            QObject::tr("Parsed files (*.conllu *.conll *.mrg *.ptb *.json);;All files (*)"));
        ParserConfig probe = config;
        probe.backend = "file";
        probe.treeFile = path.toStdString();
        const auto parser = path.isEmpty() ? Result<std::unique_ptr<Parser>>(Error{"no file"}) : createParser(probe);
        if (!parser) {
            if (!path.isEmpty())
                QMessageBox::warning(parent, QObject::tr("File parser"), QString::fromStdString(parser.message()));
            return std::nullopt;
        }
        Settings::setValue(QStringLiteral("parser/treeFile"), path);
        config.treeFile = probe.treeFile;
    }
    config.backend = name.toStdString();
    return config;
}

} // namespace treelens
