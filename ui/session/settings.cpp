#include "ui/session/settings.h"

#include "core/parsing/parser.h"

#include <QSettings>

#include <atomic>

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
std::atomic<bool> g_readOnly{false};

void addToList(const char *key, const QString &item, int max)
{
    if (g_readOnly)
        return;
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
void Settings::setLastSentence(const QString &text)
{
    if (!g_readOnly)
        QSettings().setValue(kLastSentence, text);
}
QStringList Settings::sentenceHistory() { return QSettings().value(kHistory).toStringList(); }
void Settings::addToHistory(const QString &text) { addToList(kHistory, text, kMaxHistory); }

QString Settings::parserBackend()
{
    return QSettings().value(kParser, QString::fromStdString(defaultParserBackend())).toString();
}
void Settings::setParserBackend(const QString &name)
{
    if (!g_readOnly)
        QSettings().setValue(kParser, name);
}

QStringList Settings::recentFiles() { return QSettings().value(kRecentFiles).toStringList(); }
void Settings::addRecentFile(const QString &path) { addToList(kRecentFiles, path, kMaxRecent); }
QStringList Settings::recentModels() { return QSettings().value(kRecentModels).toStringList(); }
void Settings::addRecentModel(const QString &path) { addToList(kRecentModels, path, kMaxRecent); }
QString Settings::lastModel() { return QSettings().value(kLastModel).toString(); }
void Settings::setLastModel(const QString &path)
{
    if (!g_readOnly)
        QSettings().setValue(kLastModel, path);
}

QByteArray Settings::windowGeometry() { return QSettings().value(kGeometry).toByteArray(); }
QByteArray Settings::windowState() { return QSettings().value(kState).toByteArray(); }
void Settings::setWindowGeometry(const QByteArray &geometry, const QByteArray &state)
{
    if (g_readOnly)
        return;
    QSettings s;
    s.setValue(kGeometry, geometry);
    s.setValue(kState, state);
}

ProbingSettings Settings::probing()
{
    QSettings s;
    s.beginGroup(QStringLiteral("probing"));
    ProbingSettings p;
    p.train = s.value(QStringLiteral("train")).toString();
    p.dev = s.value(QStringLiteral("dev")).toString();
    p.test = s.value(QStringLiteral("test")).toString();
    if (s.contains(QStringLiteral("models")))
        p.models = s.value(QStringLiteral("models")).toStringList();
    p.checkedModels = s.value(QStringLiteral("checkedModels")).toStringList();
    if (s.contains(QStringLiteral("model")))
        p.model = s.value(QStringLiteral("model")).toString();
    p.useOpenCorpus = s.value(QStringLiteral("useOpenCorpus"), false).toBool();
    if (s.contains(QStringLiteral("tasks"))) // a comma list ("" = none checked)
        p.tasks = s.value(QStringLiteral("tasks")).toString().split(QLatin1Char(','), Qt::SkipEmptyParts);
    p.layers = s.value(QStringLiteral("layers"), QStringLiteral("all")).toString();
    p.pooling = s.value(QStringLiteral("pooling")).toString();
    p.control = s.value(QStringLiteral("control"), false).toBool();
    p.randomInit = s.value(QStringLiteral("randomInit"), false).toBool();
    p.seed = s.value(QStringLiteral("seed"), 1).toInt();
    p.epochs = s.value(QStringLiteral("epochs"), 0).toInt();
    p.rank = s.value(QStringLiteral("rank"), 0).toInt();
    return p;
}

void Settings::setProbing(const ProbingSettings &p)
{
    if (g_readOnly)
        return;
    QSettings s;
    s.beginGroup(QStringLiteral("probing"));
    s.setValue(QStringLiteral("train"), p.train);
    s.setValue(QStringLiteral("dev"), p.dev);
    s.setValue(QStringLiteral("test"), p.test);
    s.setValue(QStringLiteral("model"), p.checkedModels.value(0)); // read by a version with one model
    s.setValue(QStringLiteral("models"), p.models.value_or(QStringList()));
    s.setValue(QStringLiteral("checkedModels"), p.checkedModels);
    s.setValue(QStringLiteral("useOpenCorpus"), p.useOpenCorpus);
    s.setValue(QStringLiteral("tasks"), p.tasks.value_or(QStringList()).join(QLatin1Char(',')));
    s.setValue(QStringLiteral("layers"), p.layers);
    s.setValue(QStringLiteral("pooling"), p.pooling);
    s.setValue(QStringLiteral("control"), p.control);
    s.setValue(QStringLiteral("randomInit"), p.randomInit);
    s.setValue(QStringLiteral("seed"), p.seed);
    s.setValue(QStringLiteral("epochs"), p.epochs);
    s.setValue(QStringLiteral("rank"), p.rank);
}

QVariant Settings::value(const QString &key, const QVariant &defaultValue) { return QSettings().value(key, defaultValue); }
void Settings::setValue(const QString &key, const QVariant &value)
{
    if (!g_readOnly)
        QSettings().setValue(key, value);
}

void Settings::setReadOnly(bool readOnly) { g_readOnly = readOnly; }
bool Settings::readOnly() { return g_readOnly; }

} // namespace treelens
