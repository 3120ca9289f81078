#pragma once
/// \file settings.h
/// Typed access to the persistent settings (QSettings, organisation "TreeLens").

#include <optional>

#include <QByteArray>
#include <QString>
#include <QStringList>
#include <QVariant>

namespace treelens {

/// The Probing dock's inputs ("probing/..."), as it restores and saves them.
struct ProbingSettings {
    QString train, dev, test;                ///< corpus files ("" = none)
    /// The model list as the user left it, and the checked ones; nullopt when no
    /// list was saved (first use, or a version with one model).
    std::optional<QStringList> models;
    QStringList checkedModels;
    /// The one model of a version with a single model ("probing/model"), read when
    /// there is no list; written as the first checked model for such a version.
    std::optional<QString> model;
    bool useOpenCorpus = false;
    std::optional<QStringList> tasks;        ///< checked tasks; nullopt: never saved (the defaults)
    QString layers = QStringLiteral("all");
    QString pooling;                         ///< "" = the dock's default
    bool control = false;
    bool randomInit = false;
    int seed = 1;
    int epochs = 0;                          ///< 0 = each probe's default
    int rank = 0;                            ///< 0 = d_model
};

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

    /// The Probing dock's inputs.
    static ProbingSettings probing();
    static void setProbing(const ProbingSettings &settings);

    /// Any view option ("view/constituencyMode", ...), with a default.
    static QVariant value(const QString &key, const QVariant &defaultValue = {});
    static void setValue(const QString &key, const QVariant &value);

    /// While read-only every setter above does nothing (reads still work): a
    /// batch export (OffscreenExport) shows sentences and views without touching
    /// the user's history, recent files or view options.
    static void setReadOnly(bool readOnly);
    static bool readOnly();
    /// Read-only for its lifetime, then as before.
    class ReadOnlyScope {
    public:
        ReadOnlyScope() : m_previous(Settings::readOnly()) { Settings::setReadOnly(true); }
        ~ReadOnlyScope() { Settings::setReadOnly(m_previous); }
        ReadOnlyScope(const ReadOnlyScope &) = delete;
        ReadOnlyScope &operator=(const ReadOnlyScope &) = delete;

    private:
        bool m_previous;
    };
};

} // namespace treelens
