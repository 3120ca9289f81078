#include "ui/session/settings.h"

#include <QSettings>

namespace treelens {

namespace {
const char *kLastSentence = "input/lastSentence";
const char *kHistory = "input/history";
const char *kParser = "parser/backend";
constexpr int kMaxHistory = 50;
} // namespace

QString Settings::lastSentence() { return QSettings().value(kLastSentence).toString(); }
void Settings::setLastSentence(const QString &text) { QSettings().setValue(kLastSentence, text); }
QStringList Settings::sentenceHistory() { return QSettings().value(kHistory).toStringList(); }

void Settings::addToHistory(const QString &text)
{
    QStringList h = sentenceHistory();
    h.removeAll(text);
    h.prepend(text);
    while (h.size() > kMaxHistory)
        h.removeLast();
    QSettings().setValue(kHistory, h);
}

QString Settings::parserBackend() { return QSettings().value(kParser, QStringLiteral("link-grammar")).toString(); }
void Settings::setParserBackend(const QString &name) { QSettings().setValue(kParser, name); }

} // namespace treelens
