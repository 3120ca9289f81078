#pragma once
/// \file analysisdocument.h
/// The document behind the main window: the current sentence with its trees, the
/// encoder's analysis of it, and the selection over that analysis (layer, head,
/// ×C, focus word, threshold). Lives on the GUI thread; views listen to changed()
/// and redraw only what changed.

#include <memory>
#include <string>

#include <QObject>
#include <QString>

#include "core/data/analysis.h"
#include "core/data/sentence.h"
#include "core/data/viewstate.h"

namespace treelens {

class AnalysisDocument : public QObject {
    Q_OBJECT
public:
    enum Change {
        SentenceChanged = 0x1,
        BusyChanged = 0x2,
        ErrorChanged = 0x4,
        AnalysisChanged = 0x8,
        /// selection() changed: by setSelection(), or clamped to a new analysis.
        SelectionChanged = 0x10,
    };
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
    /// analysis() is over sentence()'s words (always, short of a bug upstream);
    /// one that is not is neither shown nor bounds the selection.
    bool analysisFits() const;

    /// The sentence and its analysis together (one change notification, so views
    /// never see a new sentence with the previous sentence's analysis).
    void setResult(std::shared_ptr<const Sentence> sentence, std::shared_ptr<const Analysis> analysis,
                   const QString &modelMessage = QString());

    /// What the views show of the analysis. Always within its shape: layer and
    /// head in [0, layers) and [0, heads) (0 without an analysis), focus word -1
    /// or a word of sentence(), threshold in [0, 1] in steps of 0.01. A new
    /// sentence or analysis keeps the layer and head where they fit (else the
    /// last one) and the focus word when the sentence has that many words.
    ViewState selection() const { return m_selection; }
    /// Clamps `selection` as above; emits SelectionChanged when that differs.
    void setSelection(const ViewState &selection);
    /// `layer` and `head` take the place of the selection's when the next result
    /// with an analysis for sentence `sentenceId` arrives (its shape allows
    /// them then), in the same notification. A later call replaces it.
    void setPendingSelection(const std::string &sentenceId, int layer, int head);

    bool isBusy() const { return m_busy; }
    void setBusy(bool busy);

    /// The last error message, empty when the last request succeeded.
    QString lastError() const { return m_error; }
    void setError(const QString &message);

Q_SIGNALS:
    void changed(treelens::AnalysisDocument::Changes what);

private:
    /// Clamps the selection to the new content (and applies a pending one); the
    /// flags to emit with the content change.
    Changes contentChanged(Changes what);
    /// `s` within the current shape; `focusFromSelection`: clamp a chosen focus
    /// word to the last word rather than drop it.
    ViewState clamped(ViewState s, bool focusFromSelection) const;

    std::shared_ptr<const Sentence> m_sentence;
    std::shared_ptr<const Analysis> m_analysis;
    QString m_modelMessage;
    bool m_busy = false;
    QString m_error;
    ViewState m_selection;
    std::string m_pendingSentence; ///< setPendingSelection's sentence, "" when none
    int m_pendingLayer = 0;
    int m_pendingHead = 0;
};

} // namespace treelens

Q_DECLARE_OPERATORS_FOR_FLAGS(treelens::AnalysisDocument::Changes)
