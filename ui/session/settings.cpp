#include "ui/session/settings.h"

#include "core/parsing/parser.h"

#include <QSettings>

namespace treelens {

namespace {
const char *kLastSentence = "input/lastSentence";
const char *kHistory = "input/history";
const char *kParser = "parser/backend";
const char *kRecentFiles = "recent/files";
const char *kRecentModels = "recent/models";
const char *kLastModel = "model/last";
const char *kGeometry = "window/geometry";
const char *kState = "window/state";
constexpr int kMaxHistory = 50;
constexpr int kMaxRecent = 10;

void addToList(const char *key, const QString &item, int max)
{
    QSettings s;
    QStringList list = s.value(key).toStringList();
    list.removeAll(item);
    list.prepend(item);
    while (list.size() > max)
        list.removeLast();
    s.setValue(key, list);
}
} // namespace

QString Settings::lastSentence() { return QSettings().value(kLastSentence).toString(); }
void Settings::setLastSentence(const QString &text) { QSettings().setValue(kLastSentence, text); }
QStringList Settings::sentenceHistory() { return QSettings().value(kHistory).toStringList(); }
void Settings::addToHistory(const QString &text) { addToList(kHistory, text, kMaxHistory); }

QString Settings::parserBackend()
{
    return QSettings().value(kParser, QString::fromStdString(defaultParserBackend())).toString();
}
void Settings::setParserBackend(const QString &name) { QSettings().setValue(kParser, name); }

QStringList Settings::recentFiles() { return QSettings().value(kRecentFiles).toStringList(); }
void Settings::addRecentFile(const QString &path) { addToList(kRecentFiles, path, kMaxRecent); }
QStringList Settings::recentModels() { return QSettings().value(kRecentModels).toStringList(); }
void Settings::addRecentModel(const QString &path) { addToList(kRecentModels, path, kMaxRecent); }
QString Settings::lastModel() { return QSettings().value(kLastModel).toString(); }
void Settings::setLastModel(const QString &path) { QSettings().setValue(kLastModel, path); }

QByteArray Settings::windowGeometry() { return QSettings().value(kGeometry).toByteArray(); }
QByteArray Settings::windowState() { return QSettings().value(kState).toByteArray(); }
void Settings::setWindowGeometry(const QByteArray &geometry, const QByteArray &state)
{
    QSettings s;
    s.setValue(kGeometry, geometry);
    s.setValue(kState, state);
}

QVariant Settings::value(const QString &key, const QVariant &defaultValue) { return QSettings().value(key, defaultValue); }
void Settings::setValue(const QString &key, const QVariant &value) { QSettings().setValue(key, value); }

} // namespace treelens
