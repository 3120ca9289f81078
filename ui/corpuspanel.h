#pragma once
/// \file corpuspanel.h
/// The "Corpus" dock: a corpus file (CoNLL-U, PTB, TreeLens JSON or plain text)
/// as a searchable, sortable list of thousands of sentences (model/view: a
/// CorpusModel behind a QSortFilterProxyModel). Activating a row asks for that
/// sentence to be analysed; "Score corpus" runs the encoder over all of it and
/// fills the F1 column so the worst sentences can be sorted to the top.
///
/// The tree-pattern query (issue 48; CorpusQueryBar): a Grew request or a Tregex pattern
/// typed beside the text search keeps only the sentences it matches, with their
/// occurrences in a Matches column, and the summary says "N occurrences in M of K
/// sentences" (and how many sentences lack the tree the pattern reads: the dock does not
/// parse a corpus, so plain text has no trees to match). patternMarks() gives the tree
/// views what a sentence's occurrences bind; matchedSentences() is the slice the Probing
/// and Minimal pairs docks can take.

#include <memory>
#include <vector>

#include <QWidget>

#include "ui/session/corpusmodel.h"
#include "viz/viewcommon.h"

class QLabel;
class QLineEdit;
class QPushButton;
class QTableView;

namespace treelens {

class CorpusFilter;
class CorpusQueryBar;
struct CorpusQueryResult;
class JobRunner;

class CorpusPanel : public QWidget {
    Q_OBJECT
public:
    explicit CorpusPanel(QWidget *parent = nullptr);

    CorpusModel *model() { return m_model; }
    void setCorpus(std::shared_ptr<const std::vector<Sentence>> corpus, const QString &path);
    void setAnalysis(std::shared_ptr<const CorpusAnalysis> analysis);
    /// Moves the selection by `delta` visible rows and activates the sentence there.
    void step(int delta);
    /// Selects and activates corpus row `row` (source row).
    void activateRow(int row);
    int currentRow() const;
    void setSearch(const QString &text);
    int visibleRows() const;

    /// The query matches off the GUI thread on `jobs` (without: on it).
    void setJobRunner(JobRunner *jobs);
    /// Puts `pattern` in the pattern field; it is matched after the typing pause, or at once
    /// with `now` (tests, the command line).
    void setPattern(const QString &pattern, bool now = false);
    CorpusQueryBar *queryBar() const { return m_query; }
    /// The corpus query's result (null: none).
    std::shared_ptr<const CorpusQueryResult> queryResult() const;
    /// What the tree views outline in corpus row `row` (null: no query, or no occurrence there).
    std::shared_ptr<const PatternMarks> patternMarks(int row) const;
    /// The sentences the query matched, in corpus order; null without a query.
    std::shared_ptr<const std::vector<Sentence>> matchedSentences() const;
    /// The summary under the table.
    QString summaryText() const;

Q_SIGNALS:
    void sentenceActivated(std::shared_ptr<const treelens::Sentence> sentence, int row);
    void openRequested();
    void scoreRequested();
    /// The query's result changed (a new match, or none).
    void queryChanged();
    /// The attention from node `from` to node `to` of the query's pattern is asked for.
    void attentionRequested(int from, int to);

private:
    void updateSummary();
    void queryResultChanged();

    CorpusModel *m_model = nullptr;
    CorpusFilter *m_proxy = nullptr;
    CorpusQueryBar *m_query = nullptr;
    mutable std::shared_ptr<const std::vector<Sentence>> m_matched; ///< matchedSentences(), made on first use
    QTableView *m_table = nullptr;
    QLineEdit *m_search = nullptr;
    QLabel *m_summary = nullptr;
    QPushButton *m_score = nullptr;
};

} // namespace treelens
