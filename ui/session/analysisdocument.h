#pragma once
/// \file analysisdocument.h
/// The document behind the main window: the current sentence with its trees and
/// the state of the selection. Lives on the GUI thread; views listen to changed().

#include <memory>

#include <QObject>
#include <QString>

#include "core/data/analysis.h"
#include "core/data/sentence.h"

namespace treelens {

class AnalysisDocument : public QObject {
    Q_OBJECT
public:
    enum Change { SentenceChanged = 0x1, BusyChanged = 0x2, ErrorChanged = 0x4, AnalysisChanged = 0x8 };
    Q_DECLARE_FLAGS(Changes, Change)

    explicit AnalysisDocument(QObject *parent = nullptr);

    /// The parsed sentence; null until the first result arrives.
    std::shared_ptr<const Sentence> sentence() const { return m_sentence; }
    void setSentence(std::shared_ptr<const Sentence> sentence);

    /// The encoder's analysis of sentence(); null without a model (or on a model error).
    std::shared_ptr<const Analysis> analysis() const { return m_analysis; }
    void setAnalysis(std::shared_ptr<const Analysis> analysis, const QString &modelMessage = QString());
    /// Why there is no analysis (model missing or failed), empty otherwise.
    QString modelMessage() const { return m_modelMessage; }

    /// The sentence and its analysis together (one change notification, so views
    /// never see a new sentence with the previous sentence's analysis).
    void setResult(std::shared_ptr<const Sentence> sentence, std::shared_ptr<const Analysis> analysis,
                   const QString &modelMessage = QString());

    bool isBusy() const { return m_busy; }
    void setBusy(bool busy);

    /// The last error message, empty when the last request succeeded.
    QString lastError() const { return m_error; }
    void setError(const QString &message);

Q_SIGNALS:
    void changed(treelens::AnalysisDocument::Changes what);

private:
    std::shared_ptr<const Sentence> m_sentence;
    std::shared_ptr<const Analysis> m_analysis;
    QString m_modelMessage;
    bool m_busy = false;
    QString m_error;
};

} // namespace treelens

Q_DECLARE_OPERATORS_FOR_FLAGS(treelens::AnalysisDocument::Changes)
