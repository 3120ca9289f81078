#include "ui/session/analysisdocument.h"

#include <algorithm>

namespace treelens {

AnalysisDocument::AnalysisDocument(QObject *parent) : QObject(parent) {}

void AnalysisDocument::setSentence(std::shared_ptr<const Sentence> sentence)
{
    m_sentence = std::move(sentence);
    m_analysis.reset(); // it belonged to the previous sentence
    m_modelMessage.clear();
    m_error.clear();
    Q_EMIT changed(contentChanged(Changes(SentenceChanged) | ErrorChanged | AnalysisChanged));
}

void AnalysisDocument::setAnalysis(std::shared_ptr<const Analysis> analysis, const QString &modelMessage)
{
    m_analysis = std::move(analysis);
    m_modelMessage = modelMessage;
    Q_EMIT changed(contentChanged(AnalysisChanged));
}

void AnalysisDocument::setResult(std::shared_ptr<const Sentence> sentence, std::shared_ptr<const Analysis> analysis,
                                 const QString &modelMessage)
{
    m_sentence = std::move(sentence);
    m_analysis = std::move(analysis);
    m_modelMessage = modelMessage;
    m_error.clear();
    Q_EMIT changed(contentChanged(Changes(SentenceChanged) | ErrorChanged | AnalysisChanged));
}

bool AnalysisDocument::analysisFits() const
{
    // An analysis that does not belong to the sentence is not shown (a bug upstream): no shape.
    return m_analysis && (!m_sentence || m_analysis->words.size() == m_sentence->tokens.size());
}

AnalysisDocument::Changes AnalysisDocument::contentChanged(Changes what)
{
    ViewState s = m_selection;
    if (!m_pendingSentence.empty() && m_sentence && m_sentence->id == m_pendingSentence && analysisFits()) {
        s.layer = m_pendingLayer;
        s.head = m_pendingHead;
        m_pendingSentence.clear();
    }
    s = clamped(s, false);
    if (s != m_selection) {
        m_selection = s;
        what |= SelectionChanged;
    }
    return what;
}

ViewState AnalysisDocument::clamped(ViewState s, bool focusFromSelection) const
{
    const bool shaped = analysisFits();
    const int layers = shaped ? m_analysis->layers : 0;
    const int heads = shaped ? m_analysis->heads : 0;
    const int words = m_sentence ? static_cast<int>(m_sentence->tokens.size()) : 0;
    s.layer = std::clamp(s.layer, 0, std::max(1, layers) - 1);
    s.head = std::clamp(s.head, 0, std::max(1, heads) - 1);
    if (focusFromSelection)
        s.focusWord = std::clamp(s.focusWord, -1, words - 1);
    else if (s.focusWord >= words || s.focusWord < -1)
        s.focusWord = -1; // a new sentence: the word is gone
    // The View dock's slider has steps of 0.01.
    s.threshold = std::clamp(static_cast<int>(s.threshold * 100.0 + 0.5), 0, 100) / 100.0;
    return s;
}

void AnalysisDocument::setSelection(const ViewState &selection)
{
    const ViewState s = clamped(selection, true);
    if (s == m_selection)
        return;
    m_selection = s;
    Q_EMIT changed(SelectionChanged);
}

void AnalysisDocument::setPendingSelection(const std::string &sentenceId, int layer, int head)
{
    m_pendingSentence = sentenceId;
    m_pendingLayer = layer;
    m_pendingHead = head;
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
