#pragma once
/// \file queryattentionpanel.h
/// The Query attention dock (issue 48; docs/query.md, "In the app"): the attention from the
/// word bound to one node of the Corpus dock's pattern to the word bound to another, over
/// the pattern's occurrences. run() analyses every matched sentence with the window's model
/// off the GUI thread (the background lane; SentencePipeline::runForModel, as the window
/// analyses a sentence, with every head on) and feeds core's AttentionStatAccumulator one
/// occurrence at a time; the result is a layers × heads heatmap of the mean with the value
/// on each cell and its 95 % interval on hover (QueryAttentionView, built through the view
/// registry), a box that swaps in the best fixed-offset baseline, and a list: a click on a
/// cell lists the occurrences behind it by their value there, largest first, and activating
/// one emits occurrenceActivated (the window opens that sentence at that layer and head).

#include <memory>
#include <utility>
#include <vector>

#include <QPointer>
#include <QString>
#include <QWidget>

#include "core/parsing/parser.h"
#include "ui/corpusquery.h"
#include "ui/session/jobrunner.h"

class QCheckBox;
class QLabel;
class QListWidget;
class QPushButton;

namespace treelens {

class JobRunner;
class QueryAttentionView;

class QueryAttentionPanel : public QWidget {
    Q_OBJECT
public:
    explicit QueryAttentionPanel(JobRunner *jobs, QWidget *parent = nullptr);
    ~QueryAttentionPanel() override;

    /// Starts the statistic from node `from` to node `to` of `query`'s pattern with the model
    /// at `modelPath` (`parser`: for a tree the model reads and a sentence lacks); a run
    /// still going is superseded.
    void run(std::shared_ptr<const CorpusQueryResult> query, int from, int to, const QString &modelPath,
             const ParserConfig &parser);
    /// Stops the run (its status says so).
    void cancel();
    bool isRunning() const { return m_running; }
    /// The last finished run (null: none, or it failed).
    std::shared_ptr<const QueryAttentionRun> result() const { return m_result; }
    std::shared_ptr<const CorpusQueryResult> query() const { return m_query; }
    /// What the panel says of the run: its progress, its numbers, or why it failed.
    QString statusText() const;

    /// Lists the occurrences behind cell (layer, head), 0-based, by their value there.
    void selectCell(int layer, int head);
    /// Opens the occurrence in row `row` of the list.
    void activateOccurrence(int row);

    QueryAttentionView *view() const { return m_view; }
    QListWidget *occurrenceList() const { return m_list; }
    QCheckBox *baselineBox() const { return m_baseline; }

Q_SIGNALS:
    /// A run ended: with a result, or failed (statusText() says why).
    void finished(bool ok);
    /// An occurrence of the list was activated: its corpus row, and the cell it was listed for.
    void occurrenceActivated(int row, int layer, int head);

private:
    void showResult(std::shared_ptr<const QueryAttentionRun> run);
    void setStatus(const QString &text);
    /// The occurrence's line in the list: its value, sentence and bindings.
    QString occurrenceText(int row, int occurrence, float value) const;
    void exportFigure();

    QPointer<JobRunner> m_jobs; ///< the window's: it may go before this panel does
    std::shared_ptr<const CorpusQueryResult> m_query;
    std::shared_ptr<const QueryAttentionRun> m_result;
    bool m_running = false;
    int m_cellLayer = -1, m_cellHead = -1;

    QLabel *m_status = nullptr, *m_cellLabel = nullptr;
    QCheckBox *m_baseline = nullptr;
    QPushButton *m_stop = nullptr, *m_export = nullptr;
    QueryAttentionView *m_view = nullptr;
    QListWidget *m_list = nullptr;
};

} // namespace treelens
