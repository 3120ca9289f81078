#pragma once
/// \file mainwindow.h
/// The main window: composes the docks (sentence input and history, corpus,
/// model, view controls, inspector, probing), the tree views (top) and the plots
/// (bottom) of a ViewHost, the actions and the status bar with progress and
/// Cancel. Owns the AnalysisDocument (sentence, analysis and selection) and the
/// JobRunner; holds no analysis, drawing or export logic itself (ViewHost,
/// ExportService).

#include <memory>

#include <QMainWindow>
#include <QPointer>

#include "ui/session/analysisdocument.h"
#include "ui/session/jobrunner.h"
#include "viz/viewcommon.h"

class QLabel;
class QTabWidget;
class QTextBrowser;

namespace treelens {

class AblationControl;
class AttentionHeatmap;
class AttentionOverview;
class ConstituencyView;
class ControlPanel;
class CorpusPanel;
class DependencyView;
class ExplainPanel;
class ExportService;
class LinkStripView;
class MinimalPairsPanel;
class ModelPanel;
class PairWorkbench;
class PriorHeatmap;
class ProbingPanel;
class QueryAttentionPanel;
class SentencePanel;
class StatusLine;
class TreeEditor;
class TreeTextView;
class ViewTabs;
class WhatIfPanel;
class ViewHost;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget *parent = nullptr);
    ~MainWindow() override;

    AnalysisDocument *document() { return &m_document; }
    JobRunner *jobRunner() { return &m_jobs; }
    /// The pair workbench window (created on first use), shown and raised.
    PairWorkbench *pairWorkbench();
    TreeTextView *treeTextView();
    ViewHost *viewHost() { return m_views.get(); }
    ExportService *exportService() { return m_export.get(); }
    // The views (ViewHost). Hidden views are given new data only when they are
    // shown (a 200-word sentence costs ~50 ms in the constituency layout alone);
    // these accessors bring the view up to date first.
    ConstituencyView *constituencyView();
    DependencyView *dependencyView();
    PriorHeatmap *priorView();
    AttentionHeatmap *attentionView();
    AttentionOverview *overviewView();
    LinkStripView *linkView();
    ControlPanel *controlPanel() { return m_controls; }
    CorpusPanel *corpusPanel() { return m_corpus; }
    ModelPanel *modelPanel() { return m_model; }
    /// The tabs of the plots (prior, attention, overview, links, relations, gate, gate overview).
    QTabWidget *plotTabs();
    /// The tabs of the trees (constituency, dependency, text, composition).
    QTabWidget *treeTabs();
    ProbingPanel *probingPanel() { return m_probing; }
    /// Tree editing (issue 33): the editor of the shown sentence's trees and the What-if dock.
    TreeEditor *treeEditor() { return m_editor; }
    WhatIfPanel *whatIfPanel() { return m_whatIf; }
    /// The Explain dock (issue 34): attributions of the shown prediction.
    ExplainPanel *explainPanel() { return m_explain; }
    /// Head ablation (issue 46): the heads every analysis is made without, and the Minimal pairs dock.
    AblationControl *ablation() { return m_ablation; }
    MinimalPairsPanel *minimalPairsPanel() { return m_minimalPairs; }
    /// The Query attention dock (issue 48): the attention between two nodes of the corpus query.
    QueryAttentionPanel *queryAttentionPanel() { return m_queryAttention; }
    /// Shows and raises the dock named `name` ("probing", "what-if", "explain",
    /// "minimal-pairs", "query-attention", "model", "inspector", "corpus", "sentence", "view"; its object name
    /// without "Dock"); false for an unknown name (`treelens --dock NAMES`).
    bool showDock(const QString &name);
    /// The view exported as `name` (constituency, dependency, prior, attention,
    /// overview, links), brought up to date; nullptr for an unknown name.
    ExportableView *exportableView(const QString &name);
    static QStringList exportableViewNames();

    /// The encoder run on every analysed sentence ("" = trees only).
    void setModelPath(const QString &path);
    /// The projections' arithmetic of every model the app loads: fp32 (the
    /// reference numerics), int8, bf16 or auto (DeviceConfig::precision); reloads
    /// the current model. `remember`: kept in the settings for the next start.
    void setPrecision(const QString &precision, bool remember = true);
    QString precision() const;
    /// Puts `text` in the input box and analyses it.
    void analyse(const QString &text);
    /// Analyses a corpus sentence (its tokens and gold trees are kept).
    void analyseSentence(std::shared_ptr<const Sentence> sentence);
    /// Opens a corpus file into the corpus dock. Errors leave the loaded corpus untouched.
    bool openCorpus(const QString &path, QString *error = nullptr);
    void scoreCorpus();
    void cancel();

    /// The document's selection (AnalysisDocument::selection).
    ViewState viewState() const { return m_document.selection(); }
    void setViewState(const ViewState &state);
    /// Milliseconds the GUI thread spent giving the latest result to every view.
    double lastViewUpdateMs() const;
    /// Exports the named view (or, for .tex, the tree) of the current analysis (ExportService::exportView).
    Status exportCurrent(const QString &viewName, const QString &path, int dpi = 300);

Q_SIGNALS:
    /// Emitted after a result (or an error) for the latest request has been shown.
    void analysisShown(bool ok);
    /// Every view has been given the latest document state.
    void viewsUpdated();
    void corpusScored();

protected:
    void closeEvent(QCloseEvent *event) override;
    void dragEnterEvent(QDragEnterEvent *event) override;
    void dropEvent(QDropEvent *event) override;

private:
    // Building the window (mainwindowsetup.cpp).
    void createViews();
    void createDocks();
    /// Without a saved geometry: the available screen, most of it for the trees.
    void placeOnFirstRun();
    void createActions();
    /// The Minimal pairs dock, the ablation set and its badge in the status bar (mainwindowsetup.cpp).
    void createMinimalPairsDock();
    /// The Query attention dock, and the corpus query's slice for the Probing and Minimal pairs docks.
    void createQueryAttentionDock();
    /// The ablation set changed: the badge, and the sentence analysed again without those heads.
    void ablationChanged();

    void onDocumentChanged(AnalysisDocument::Changes what);
    /// The View dock shows the document's selection (and its ranges).
    void showSelection(AnalysisDocument::Changes what);
    void openFileDialog();
    void loadModelDialog();
    void setParser(const QString &name);
    /// From the probing panel: shows a probed sentence at a layer/head (0-based):
    /// the open corpus's row when it has the id, otherwise `sentence` (the run's
    /// own copy) as the current document, as a corpus sentence is analysed.
    void openProbedSentence(const QString &sentenceId, int layer, int head, std::shared_ptr<const Sentence> sentence);

    AnalysisDocument m_document;
    JobRunner m_jobs;
    QPointer<PairWorkbench> m_pairs;
    std::unique_ptr<ViewHost> m_views; ///< before the view widgets go: it listens to them
    std::unique_ptr<ExportService> m_export;
    ViewTabs *m_tabs = nullptr; ///< the tree and plot tabs
    SentencePanel *m_sentence = nullptr;
    ControlPanel *m_controls = nullptr;
    CorpusPanel *m_corpus = nullptr;
    ModelPanel *m_model = nullptr;
    ProbingPanel *m_probing = nullptr;
    TreeEditor *m_editor = nullptr;
    WhatIfPanel *m_whatIf = nullptr;
    ExplainPanel *m_explain = nullptr;
    AblationControl *m_ablation = nullptr;
    MinimalPairsPanel *m_minimalPairs = nullptr;
    QueryAttentionPanel *m_queryAttention = nullptr;
    QLabel *m_ablationBadge = nullptr;
    QTextBrowser *m_inspector = nullptr;
    StatusLine *m_status = nullptr;
    bool m_waitingForAnalysis = false;
    QStringList m_parserNames;
};

} // namespace treelens
