#pragma once
/// \file mainwindow.h
/// The main window: composes the docks (sentence input and history, corpus,
/// model, view controls, inspector), the tree views (top) and the plots
/// (bottom), the actions and the status bar with progress and Cancel. Owns the
/// AnalysisDocument and the JobRunner; holds no analysis logic itself.

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <QMainWindow>

#include "ui/session/analysisdocument.h"
#include "ui/session/jobrunner.h"
#include "viz/viewcommon.h"

class QComboBox;
class QLabel;
class QListWidget;
class QProgressBar;
class QPushButton;
class QTabWidget;
class QTextBrowser;

namespace treelens {

class AttentionOverview;
class ConstituencyView;
class ControlPanel;
class CorpusPanel;
class DependencyView;
class HeatmapView;
class LinkStripView;
class ModelPanel;
class ProbingPanel;
class TreeTextView;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget *parent = nullptr);
    ~MainWindow() override;

    AnalysisDocument *document() { return &m_document; }
    JobRunner *jobRunner() { return &m_jobs; }
    TreeTextView *treeTextView() { return m_textView; }
    // The views. Hidden views are given new data only when they are shown (a
    // 200-word sentence costs ~50 ms in the constituency layout alone); these
    // accessors bring the view up to date first.
    ConstituencyView *constituencyView();
    DependencyView *dependencyView();
    HeatmapView *priorView();
    HeatmapView *attentionView();
    AttentionOverview *overviewView();
    LinkStripView *linkView();
    ControlPanel *controlPanel() { return m_controls; }
    CorpusPanel *corpusPanel() { return m_corpus; }
    ModelPanel *modelPanel() { return m_model; }
    ProbingPanel *probingPanel() { return m_probing; }
    /// The view exported as `name` (constituency, dependency, prior, attention,
    /// overview, links), nullptr for an unknown name.
    ExportableView *exportableView(const QString &name);
    static QStringList exportableViewNames();

    /// The encoder run on every analysed sentence ("" = trees only).
    void setModelPath(const QString &path);
    /// Puts `text` in the input box and analyses it.
    void analyse(const QString &text);
    /// Analyses a corpus sentence (its tokens and gold trees are kept).
    void analyseSentence(std::shared_ptr<const Sentence> sentence);
    /// Opens a corpus file into the corpus dock. Errors leave the loaded corpus untouched.
    bool openCorpus(const QString &path, QString *error = nullptr);
    void scoreCorpus();
    void cancel();

    ViewState viewState() const { return m_state; }
    void setViewState(const ViewState &state);
    /// Milliseconds the GUI thread spent giving the latest result to every view.
    double lastViewUpdateMs() const { return m_lastViewUpdateMs; }
    /// Exports the named view (or, for .tex, the tree) of the current analysis.
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
    void createViews();
    void createDocks();
    void createActions();
    void onDocumentChanged(AnalysisDocument::Changes what);
    void updateViews();
    void applyState(const ViewState &state);
    /// Gives a view the current data and state if it lacks them.
    void syncView(QWidget *view);
    /// Syncs every view the user can see now.
    void syncVisibleViews();
    void showHover(const QString &text);
    void openFileDialog();
    void loadModelDialog();
    void exportDialog();
    void exportData(bool json);
    void showAbout();
    void setParser(const QString &name);
    /// From the probing panel: shows a probed sentence at a layer/head (0-based):
    /// the open corpus's row when it has the id, otherwise `sentence` (the run's
    /// own copy) as the current document, as a corpus sentence is analysed.
    void openProbedSentence(const QString &sentenceId, int layer, int head, std::shared_ptr<const Sentence> sentence);

    AnalysisDocument m_document;
    JobRunner m_jobs;
    ViewState m_state;
    QComboBox *m_input = nullptr;
    QListWidget *m_history = nullptr;
    QTabWidget *m_treeTabs = nullptr;
    QTabWidget *m_plotTabs = nullptr;
    TreeTextView *m_textView = nullptr;
    ConstituencyView *m_constituency = nullptr;
    DependencyView *m_dependency = nullptr;
    HeatmapView *m_prior = nullptr;
    HeatmapView *m_attention = nullptr;
    AttentionOverview *m_overview = nullptr;
    LinkStripView *m_links = nullptr;
    ControlPanel *m_controls = nullptr;
    CorpusPanel *m_corpus = nullptr;
    ModelPanel *m_model = nullptr;
    ProbingPanel *m_probing = nullptr;
    std::string m_pendingProbeSentence; ///< opened from the probing panel, layer/head not yet applied
    int m_pendingProbeLayer = 0;
    int m_pendingProbeHead = 0;
    QTextBrowser *m_inspector = nullptr;
    QLabel *m_status = nullptr;
    QProgressBar *m_progress = nullptr;
    QPushButton *m_cancel = nullptr;
    bool m_waitingForAnalysis = false;
    QStringList m_parserNames;
    struct ViewSlot {
        QWidget *widget = nullptr;
        std::function<void(const ViewData &)> setData;
        std::function<void(const ViewState &)> setState;
        quint64 dataGeneration = 0;
        ViewState state;
        bool hasState = false;
    };
    std::vector<ViewSlot> m_slots;
    ViewData m_viewData;
    quint64 m_dataGeneration = 0;
    double m_lastViewUpdateMs = 0.0;
};

} // namespace treelens
