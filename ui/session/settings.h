#pragma once
/// \file settings.h
/// Typed access to the persistent settings (QSettings, organisation "TreeLens").

#include <QString>
#include <QStringList>

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
};

} // namespace treelens
