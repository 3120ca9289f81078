#pragma once
/// \file pairworkbench.h
/// The pair workbench: error analysis on sentence pairs (answer selection,
/// entailment). Opens a pair corpus (menu, drag and drop, recent files), parses
/// both sides in the background, scores it with one or two systems (pair models
/// or the IDF word-overlap baseline; progress, cancel), and shows:
///  - the question list with AP/RR and the rank of the first correct answer,
///    worst first (classification corpora: one row per pair, wrong first);
///  - the selected question's candidates ranked by score with gold labels;
///  - corpus metrics (whole corpus, the list's current selection) and a table
///    and bar chart of a metric per slice; the confusion matrix for
///    classification (a click shows that cell's pairs);
///  - two-system comparison: ΔAP per question, the questions where the top
///    answer differs, a score scatter plot (a click opens the pair);
///  - the pair view: both sentences' dependency and constituency trees with the
///    model's attention, and the bridge between them (PairBridgeView), and the "Why
///    this rank" tab (RankExplainPanel: attributions of the shown pair drawn on both
///    trees; the top candidate against the correct one). Each side is
///    an AnalysisDocument (the sentence and its analysis; the first side's carries
///    the pair) whose views a ViewHost creates from the view registry, as in the
///    main window.
/// Tables export as CSV/JSON, views as PNG/SVG/PDF. All work runs on the
/// JobRunner (group "pairs"); the window only shows results.

#include <memory>
#include <string>
#include <vector>

#include <QMainWindow>

#include "core/eval/pairtable.h"
#include "core/formats/pairs.h"
#include "core/data/analysis.h"
#include "ui/pairscoring.h"
#include "ui/viewregistry.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QSplitter;
class QTableWidget;
class QTabWidget;

namespace treelens {

class AnalysisDocument;
class ConstituencyView;
class JobRunner;
class ViewHost;
class ScoreScatterPlot;
class SliceBarChart;
class PhraseView;
class ExportableView;
class RankExplainPanel;

class PairWorkbench : public QMainWindow {
    Q_OBJECT
public:
    explicit PairWorkbench(JobRunner &jobs, QWidget *parent = nullptr);

    /// Reads and parses a pair corpus in the background, then scores it.
    void openCorpus(const QString &path);
    /// Scores the open corpus with the chosen systems (A, and B unless "none").
    void score();
    /// System choices: a model path, "idf" (the baseline) or "" (none, B only).
    void setSystems(const QString &a, const QString &b);
    /// Selects a question (row of the question list) and a candidate (corpus pair index, -1 = the top one).
    void selectQuestion(int row, int pair = -1);
    /// The list's text filter (question or candidate text, case ignored).
    void setFilter(const QString &text);
    /// Shows the pair view for corpus pair `pair`.
    void showPair(int pair);

    // For tests and screenshots.
    bool isBusy() const;
    std::shared_ptr<const PairCorpus> corpus() const { return m_corpus; }
    const std::vector<QuestionRow> &questionRows() const { return m_rows; }
    std::shared_ptr<const Analysis> pairAnalysis() const { return m_pairAnalysis; }
    QTabWidget *tabs() const { return m_tabs; }
    /// Shows both sides' tree view `name` (a registry entry with a pairTreeTab) in the pair view.
    void showTreeView(const QString &name);
    /// Shows both sides' constituency trees (true) or dependency trees (false) in the pair view.
    void showConstituencyTrees(bool constituency)
    {
        showTreeView(constituency ? QStringLiteral("constituency") : QStringLiteral("dependency"));
    }
    QString metricsText() const;
    /// What the slice tab says under its table (why candidate-side slices run high, whose training data this is).
    QString sliceNoteText() const;
    /// The systems' notes on this corpus ("… was trained on this data …"), one per line; "" when none.
    QString dataNoteText() const;
    /// The constituency tree view of side 0 (question / text) or 1 (candidate / hypothesis), up to date.
    ConstituencyView *constituencyView(int side) const;
    /// The document of side 0 (question / text: the pair's analysis) or 1 (candidate / hypothesis).
    const AnalysisDocument &sideDocument(int side) const { return *m_sideDocs[side == 0 ? 0 : 1]; }
    /// The pair view's views of side 0 or 1 (side 0's also has the bridge).
    ViewHost &sideViews(int side) const { return *m_sideViews[side == 0 ? 0 : 1]; }

    // A model that aggregates phrases level by level (or composes the tree bottom-up).
    /// Shows the level-by-level aggregation (or the composition) up to 1-based `step` on both trees (0 = all done).
    void setAggregationStep(int step);
    int aggregationStep() const;
    /// Starts (or stops) stepping through the aggregation, deepest level first.
    void playAggregation(bool on);
    /// Shows phrase `id` (post-order) of side 0 (question) or 1 (candidate) in the phrase view.
    void selectPhrase(int side, int id);
    /// The pair the question's phrases are compared with (another candidate of the same question; -1 = none).
    void setComparePair(int pair);
    int comparePair() const { return m_comparePair; }
    /// The phrase view (the registry's "phrase", below the trees).
    PhraseView *phraseView() const { return m_phraseView; }

    // The views below the trees: the registry's Pair views, then the Why this rank tab.
    /// Shows the Pair view `name` ("bridge", "phrase") below the trees; an unknown name is ignored.
    void showDetail(const QString &name);
    /// The names of the views below the trees, in tab order (the first is shown at start).
    QStringList detailViewNames() const { return m_detailNames; }
    /// The name of the view shown below the trees ("" for the Why this rank tab).
    QString shownDetail() const;
    /// The view `name` below the trees, nullptr when there is none.
    ExportableView *detailView(const QString &name) const;
    /// The command line's pair-view options (ViewOption::Scope::Pairs): applied now, or each
    /// time a pair is shown for those that say so (ViewOption::eachPair).
    void applyViewOptions(const std::vector<ViewOptionValue> &values);
    /// The "Why this rank" tab.
    RankExplainPanel *rankPanel() const { return m_rankPanel; }
    /// Shows the "Why this rank" tab below the trees.
    void showRankPanel();

Q_SIGNALS:
    void corpusReady();
    void scoresReady();
    void pairReady();
    void failed(const QString &message);

protected:
    void dragEnterEvent(QDragEnterEvent *event) override;
    void dropEvent(QDropEvent *event) override;

private:
    // The window's panels, top to bottom (pairworkbench.cpp unless said).
    void buildUi();
    void buildToolbar();
    /// The question list with its filter (pairworkbenchlists.cpp).
    QWidget *buildQuestionList();
    /// The selected question's candidates (pairworkbenchlists.cpp).
    void buildCandidateList();
    /// Metrics, slices and the A/B comparison as tabs, and each page (pairworkbenchmetrics.cpp).
    void buildMetricsTabs();
    QWidget *buildMetricsPage();
    QWidget *buildSlicePage();
    QWidget *buildComparePage();
    /// The pair view: the caption row, both sides' trees, the views below them (pairworkbenchpair.cpp).
    void buildPairView();
    QWidget *buildSideTrees();
    void buildDetailTabs();
    void buildStatusBar();
    void buildMenus();
    void setBusy(bool busy, const QString &what = {});
    void rebuildTables();
    void fillCandidates();
    void updateMetrics();
    void updateSlices();
    void updateComparison();
    void exportTable(bool questions);
    void exportView(ExportableView *view);
    /// Side `side`'s view `name` (view registry name), for the export menu.
    void exportSideView(int side, const QString &name);
    /// The toolbar's layer, head and step into both sides' selection (each side keeps its focus word).
    void updateSelection();
    /// Fills the node view from the pair's (and the comparison pair's) analysis.
    void updateNodeView();
    /// Lists the current question's other candidates as comparison choices (the default:
    /// the best-scored candidate of the other gold label).
    void fillCompareChoices();
    /// Analyses the comparison pair in the background, then says pairReady.
    void analyseComparePair();
    /// Draws the rank panel's attributions of `pair` on both trees when the pair view shows it.
    void applyAttributions(int pair);
    /// The shown question's candidates best first by system A (empty for a classification corpus).
    std::vector<int> shownRanking(int pair) const;
    QString systemPath(const QComboBox *box) const;
    QString systemName(const QString &path) const;
    QString dataNotesHtml() const;
    void fillSystemBox(QComboBox *box, bool allowNone);

    JobRunner &m_jobs;
    std::shared_ptr<const PairCorpus> m_corpus;
    std::shared_ptr<const PairScores> m_scores;
    std::vector<QuestionRow> m_rows;
    std::vector<int> m_selectedPairs;        ///< classification: the pairs the list shows
    int m_currentRow = -1;
    int m_currentPair = -1;
    std::shared_ptr<const Analysis> m_pairAnalysis;
    QString m_path;

    QComboBox *m_systemA, *m_systemB, *m_sliceKind, *m_sliceMetric;
    QLineEdit *m_filter;
    QTableWidget *m_questions, *m_candidates, *m_sliceTable, *m_disagreements, *m_confusion;
    QLabel *m_metrics, *m_status, *m_pairCaption;
    QLabel *m_sliceNote = nullptr, *m_compareNote = nullptr;
    QProgressBar *m_progress;
    QPushButton *m_cancel, *m_scoreButton;
    QTabWidget *m_tabs, *m_viewTabs;
    QTabWidget *m_sideTabs[2] = {nullptr, nullptr}; ///< each side: its dependency and constituency tree
    SliceBarChart *m_sliceChart;
    ScoreScatterPlot *m_scatter;
    AnalysisDocument *m_sideDocs[2] = {nullptr, nullptr}; ///< children of this window
    ViewHost *m_sideViews[2] = {nullptr, nullptr};
    QSpinBox *m_layer, *m_head, *m_step;
    QPushButton *m_play;
    QTimer *m_playTimer;
    QComboBox *m_compare;
    QTabWidget *m_detailTabs;
    QStringList m_detailNames;   ///< the registry's Pair views in m_detailTabs, in tab order
    QStringList m_treeViewNames; ///< the registry's tree views in each side's tabs, in tab order
    QSplitter *m_pairSplit = nullptr; ///< the trees above the views below them
    PhraseView *m_phraseView = nullptr;
    RankExplainPanel *m_rankPanel = nullptr;
    int m_docsPair = -1; ///< the corpus pair the side documents show (-1: none yet)
    int m_nodeSide = 0, m_nodeId = -1;
    int m_comparePair = -1;
    std::shared_ptr<const Analysis> m_compareAnalysis;
};

} // namespace treelens
