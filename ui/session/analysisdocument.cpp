#include "ui/session/analysisdocument.h"

namespace treelens {

AnalysisDocument::AnalysisDocument(QObject *parent) : QObject(parent) {}

void AnalysisDocument::setSentence(std::shared_ptr<const Sentence> sentence)
{
    m_sentence = std::move(sentence);
    m_analysis.reset(); // it belonged to the previous sentence
    m_modelMessage.clear();
    m_error.clear();
    Q_EMIT changed(Changes(SentenceChanged) | ErrorChanged | AnalysisChanged);
}

void AnalysisDocument::setAnalysis(std::shared_ptr<const Analysis> analysis, const QString &modelMessage)
{
    m_analysis = std::move(analysis);
    m_modelMessage = modelMessage;
    Q_EMIT changed(AnalysisChanged);
}

void AnalysisDocument::setResult(std::shared_ptr<const Sentence> sentence, std::shared_ptr<const Analysis> analysis,
                                 const QString &modelMessage)
{
    m_sentence = std::move(sentence);
    m_analysis = std::move(analysis);
    m_modelMessage = modelMessage;
    m_error.clear();
    Q_EMIT changed(Changes(SentenceChanged) | ErrorChanged | AnalysisChanged);
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
