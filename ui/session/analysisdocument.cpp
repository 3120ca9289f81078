#include "ui/session/analysisdocument.h"

namespace treelens {

AnalysisDocument::AnalysisDocument(QObject *parent) : QObject(parent) {}

void AnalysisDocument::setSentence(std::shared_ptr<const Sentence> sentence)
{
    m_sentence = std::move(sentence);
    m_error.clear();
    Q_EMIT changed(Changes(SentenceChanged) | ErrorChanged);
}

void AnalysisDocument::setBusy(bool busy)
{
    if (busy == m_busy)
        return;
    m_busy = busy;
    Q_EMIT changed(BusyChanged);
}

void AnalysisDocument::setError(const QString &message)
{
    m_error = message;
    Q_EMIT changed(ErrorChanged);
}

} // namespace treelens
