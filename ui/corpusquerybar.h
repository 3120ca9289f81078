#pragma once
/// \file corpusquerybar.h
/// The Corpus dock's pattern field (issue 48; docs/query.md, "In the app"): a Grew request or
/// a Tregex pattern typed beside the text search, matched over the open corpus as the user
/// types (300 ms after the last key, off the GUI thread on the JobRunner: each sentence's
/// DepGraph is built once per corpus and kept), a "?" that opens the syntax's cheat sheet,
/// a parse error shown under the field with its line and column (the previous result stays),
/// and the row that asks for the attention from one pattern node to another. CorpusPanel
/// filters its rows by the result; the Query attention dock draws the statistic.

#include <memory>
#include <vector>

#include <QPointer>
#include <QString>
#include <QWidget>

#include "ui/corpusquery.h"
#include "ui/session/jobrunner.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QTimer;
class QToolButton;

namespace treelens {

class JobRunner;
class QuerySyntaxHelp;

class CorpusQueryBar : public QWidget {
    Q_OBJECT
public:
    explicit CorpusQueryBar(QWidget *parent = nullptr);
    ~CorpusQueryBar() override;

    /// Matching runs on its lane (without one, on the GUI thread).
    void setJobRunner(JobRunner *jobs) { m_jobs = jobs; }
    /// The open corpus: its graphs are built anew on the next match; a pattern in the field is matched again.
    void setCorpus(std::shared_ptr<const std::vector<Sentence>> corpus);
    /// Puts `text` in the field (matched after the pause, as if typed).
    void setPattern(const QString &text);
    QString pattern() const;
    /// Matches the field's pattern now (no pause).
    void matchNow();

    /// The last pattern that matched (null: none, or the field is empty).
    std::shared_ptr<const CorpusQueryResult> result() const { return m_result; }
    /// The parse error shown under the field ("" when none).
    QString errorText() const { return m_errorText; }
    /// A match is under way.
    bool isMatching() const { return m_matching; }
    /// Asks for the attention between the nodes chosen in the two boxes (attentionRequested).
    void requestAttention();
    /// The chosen nodes (indices into the pattern's names; -1 without a result).
    int fromNode() const;
    int toNode() const;
    void setNodes(int from, int to);

    QLineEdit *patternEdit() const { return m_edit; }
    QPushButton *attentionButton() const { return m_attention; }
    /// The cheat sheet (created on first use).
    QuerySyntaxHelp *syntaxHelp();

Q_SIGNALS:
    /// result() changed: a new match, or none (the field was emptied, another corpus).
    void resultChanged();
    /// The attention from node `from` to node `to` of result()'s pattern is asked for.
    void attentionRequested(int from, int to);
    /// A match started (true) or ended (false).
    void matchingChanged(bool matching);

private:
    void showError(const QString &message);
    void setResult(std::shared_ptr<const CorpusQueryResult> result);
    void updateAttentionRow();

    QPointer<JobRunner> m_jobs; ///< the window's: it may go before this bar does
    std::shared_ptr<const CorpusGraphs> m_graphs;
    std::shared_ptr<const CorpusQueryResult> m_result;
    QString m_errorText;
    bool m_matching = false;

    QLineEdit *m_edit = nullptr;
    QToolButton *m_help = nullptr;
    QLabel *m_error = nullptr;
    QWidget *m_attentionRow = nullptr;
    QComboBox *m_from = nullptr, *m_to = nullptr;
    QPushButton *m_attention = nullptr;
    QTimer *m_pause = nullptr;
    QuerySyntaxHelp *m_sheet = nullptr;
};

} // namespace treelens
