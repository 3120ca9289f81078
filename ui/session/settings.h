#pragma once
/// \file settings.h
/// Typed access to the persistent settings (QSettings, organisation "TreeLens").

#include <QByteArray>
#include <QString>
#include <QStringList>
#include <QVariant>

namespace treelens {

class Settings {
public:
    static QString lastSentence();
    static void setLastSentence(const QString &text);
    static QStringList sentenceHistory();
    /// Adds to the front of the history (deduplicated, at most 50 entries).
    static void addToHistory(const QString &text);
    static QString parserBackend();
    static void setParserBackend(const QString &name);

    /// Recently opened corpus files / model files, most recent first (at most 10).
    static QStringList recentFiles();
    static void addRecentFile(const QString &path);
    static QStringList recentModels();
    static void addRecentModel(const QString &path);
    /// The model chosen last ("" = the shipped default).
    static QString lastModel();
    static void setLastModel(const QString &path);

    /// Main window geometry and dock/toolbar state (QMainWindow::saveState).
    static QByteArray windowGeometry();
    static QByteArray windowState();
    static void setWindowGeometry(const QByteArray &geometry, const QByteArray &state);

    /// Any view option ("view/constituencyMode", ...), with a default.
    static QVariant value(const QString &key, const QVariant &defaultValue = {});
    static void setValue(const QString &key, const QVariant &value);
};

} // namespace treelens
