#pragma once
/// \file probingpanel.h
/// The "Probing" dock (TreeLens issue 6): a form that configures a probing run
/// (core/probing/proberun.h) and the views of its typed reports
/// (core/probing/probereport.h). The form runs one model after another off the
/// GUI thread with cooperative cancellation: startRun() starts one model's run,
/// reportReady() receives its report (the two places a job system takes over).
/// The views: live learning curves (viz/probecurveplot.h), the Results and
/// Compare tables (ui/probingresults.h, by the rules of core/probing/probecompare.h,
/// those of `treelens-cli probe-tables`), the attention heatmaps whose cells list
/// their sentences worst first (viz/probeattentionview.h), the link probabilities
/// by constituent size (viz/linkprobabilityplot.h), the structural probes
/// (viz/structuralview.h) and unsupervised parsing (viz/inductionview.h).
/// Double-clicking a sentence emits openSentence() with the sentence itself.
/// Every plot exports as PNG/SVG/PDF, the report as JSON (core/probing/probejson.h);
/// the inputs persist (ui/session/settings.h, "probing/..."). Holds no probing logic.
///
/// Several encoders: the Models list holds model files (prefilled with the
/// shipped encoders); the checked ones run one after another with the same
/// configuration, each giving its own ProbeRunReport. The "Model:" selector above
/// the result tabs picks the report the Results, Attention, Link probabilities,
/// Structural probes and Unsupervised parsing tabs show; a "Compare" tab (first of
/// the result tabs after a run of two or more models) sets the models side by side.
///
/// Layer numbering: the dock numbers layers and heads as the View dock and the
/// report's JSON do, from 1 (layer k = encoder layer k; the layer below the first
/// is "embeddings"; core/base/numbering.h). The API (selectCell, openSentence)
/// takes the 0-based indices of the typed report and of ViewState.

#include <atomic>
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <QPointer>
#include <QString>
#include <QStringList>
#include <QWidget>

#include "core/data/sentence.h"
#include "core/probing/proberun.h"
#include "ui/queryslice.h"
#include "ui/session/jobrunner.h"

class QCheckBox;
class QComboBox;
class QCPColorMap;
class QCustomPlot;
class QLabel;
class QLineEdit;
class QListWidget;
class QMenu;
class QPushButton;
class QSpinBox;
class QTableWidget;
class QTabWidget;

namespace treelens {

class InductionView;
class LinkProbabilityPlot;
class ProbeAttentionView;
class ProbeCurvePlot;
class ProbingModelList;
class StructuralView;
struct ProbingSettings;

class ProbingPanel : public QWidget {
    Q_OBJECT
public:
    explicit ProbingPanel(QWidget *parent = nullptr);
    ~ProbingPanel() override;
    /// Where runs go (the app's job system; without one the panel makes its own
    /// JobRunner at the first run). Runs use the group "probing".
    void setJobRunner(JobRunner *jobs);

    // Configuration (the widgets' values; setters for MainWindow and tests).
    /// Makes `path` the one checked model (added to the list when absent); "" =
    /// none checked: the shipped default model.
    void setModelPath(const QString &path);
    /// The first checked model ("" = none checked: the shipped default model).
    QString modelPath() const;
    /// Checks exactly `paths`, in the list's order (adding the missing ones at its end).
    void setModelPaths(const QStringList &paths);
    /// The checked models, in the list's order (a run runs them in this order).
    QStringList modelPaths() const;
    /// Every model of the list, checked or not.
    QStringList listedModelPaths() const;
    /// Adds `path` to the list (checked), or checks it when listed.
    void addModel(const QString &path);
    void setFiles(const QString &train, const QString &dev, const QString &test);
    void setTasks(const QStringList &tasks);
    QStringList checkedTasks() const;
    void setLayers(const QString &layers);
    void setPooling(const QString &pooling); ///< both, cls or mean
    void setControl(bool on);
    void setRandomInit(bool on);
    void setSeed(int seed);
    void setEpochs(int epochs); ///< 0 = each probe's default
    void setRank(int rank);     ///< structural probes' rank; 0 = d_model
    /// Supplies the open corpus for "Use the open corpus" (nullptr/empty = none).
    void setCorpusSource(std::function<std::shared_ptr<const std::vector<Sentence>>()> source);
    void setUseOpenCorpus(bool on);
    /// Supplies the Corpus dock's matched sentences for "Only sentences matching the corpus
    /// query" (queryslice.h): checked, they are the open corpus a run reads (and the box checks
    /// "Use the open corpus").
    void setQuerySliceSource(QuerySliceBox::Source source) { m_slice->setSource(std::move(source)); }
    QuerySliceBox *querySliceBox() const { return m_slice; }
    /// The configuration the widgets describe, for the first checked model (a run
    /// uses it for every checked model, with ProbeRunConfig::model replaced).
    ProbeRunConfig config() const;

    /// Starts a run of every checked model, one after another (no-op while one is running).
    void run();
    /// Asks the running job to stop at the next unit of work; no further model starts.
    void cancel();
    bool isRunning() const { return m_running; }

    // Results.
    /// The last run's report JSON: one model's report as `probe --json` prints it,
    /// or {"models": [report, ...]} after a run of several models.
    QString reportJson() const { return m_reportJson; }
    QString reportText() const { return m_reportText; }
    /// The reports of the last run, one per model, in the run's order.
    int reportCount() const { return static_cast<int>(m_reports.size()); }
    std::shared_ptr<const ProbeRunReport> report(int index) const;
    /// The name the dock gives report `index`'s model (its file's base name).
    QString reportModelName(int index) const;
    /// The report the result tabs show (the "Model:" selector).
    int currentReport() const;
    void setCurrentReport(int index);
    /// Writes reportJson().
    bool exportJson(const QString &path, QString *error = nullptr) const;
    /// Writes the Compare table after a run of several models, else the Results table.
    bool exportCsv(const QString &path, QString *error = nullptr) const;
    /// Writes `plot` (curvePlot(), heatmapPlot() or linkPlot()) as .png (300 dpi),
    /// .svg or .pdf, by the extension; atomically (viz/viewexport.h).
    bool exportPlot(QCustomPlot *plot, const QString &path, QString *error = nullptr) const;
    /// The attention task the heatmap shows ("" = none).
    QString heatmapTask() const;
    void setHeatmapTask(const QString &task);

    /// The Attention tab's state, as its ProbeAttentionView (viz/probeattentionview.h)
    /// has it: for head accuracy the map's layout, relation, direction and layer
    /// (0-based) of the heads × relations map; the title; the cell whose sentences
    /// are listed (0-based layer and head).
    enum class HeatmapMode { LayersByHeads, HeadsByRelations };
    void setHeatmapMode(HeatmapMode mode);
    HeatmapMode heatmapMode() const;
    void setRelation(const QString &relation);
    QString relation() const;
    void setDirection(ArcDirection direction);
    ArcDirection direction() const;
    void setRelationLayer(int layer);
    int relationLayer() const;
    QString heatmapTitle() const;
    void selectCell(int layer, int head);
    /// Emits openSentence for row `row` of the sentence list.
    void activateSentence(int row);
    /// The sentence `id` of the last run, from the open corpus it ran on or by
    /// reading its files (cached); nullptr when absent or unreadable.
    std::shared_ptr<const Sentence> runSentence(const QString &id);

    // Widgets, for tests and screenshots.
    QCustomPlot *curvePlot() const;
    QCustomPlot *heatmapPlot() const;
    QCustomPlot *linkPlot() const;
    QCPColorMap *heatmap() const;
    /// The numbers drawn on the heatmap's cells, row by row.
    QStringList heatmapCellTexts() const;
    QComboBox *relationCombo() const;
    QMenu *exportMenu() const { return m_exportMenu; }
    QTabWidget *tabs() const { return m_tabs; }
    QTableWidget *resultsTable() const { return m_table; }
    /// Rows: task, metric; then a column per model and the majority baseline.
    QTableWidget *compareTable() const { return m_compare; }
    QWidget *compareTab() const { return m_compareTab; }
    QComboBox *modelSelector() const { return m_modelSelect; }
    QListWidget *modelList() const;
    StructuralView *structuralView() const { return m_structuralView; }
    InductionView *inductionView() const { return m_inductionView; }
    /// The structural probe the Structural tab shows ("" = none).
    QString structuralTask() const;
    void setStructuralTask(const QString &task);
    QListWidget *sentenceList() const;
    QLabel *statusLabel() const { return m_status; }
    int curvePointCount() const;

Q_SIGNALS:
    /// A run ended: ok, or the error / "cancelled" message.
    void finished(bool ok, const QString &message);
    void curvePointAdded();
    void progressText(const QString &line);
    /// The user asked to see a sentence of a heatmap cell at that layer/head
    /// (0-based, as ViewState). `sentence` is the probed sentence itself (nullptr
    /// when the run's corpus no longer has it), for a receiver whose open corpus
    /// lacks it.
    void openSentence(const QString &sentenceId, int layer, int head,
                      std::shared_ptr<const treelens::Sentence> sentence = nullptr);

private:
    /// One model of a run.
    struct ModelRun {
        std::shared_ptr<const ProbeRunConfig> config;
        QString name;   ///< for the columns, the selector and the curves
        QString prefix; ///< of its progress lines: "model 2/3: name: " ("" for one model)
        QString curveModel; ///< names its curves in a run of several models ("" for one model)
    };
    /// What a run read, for runSentence(): its files, or the open corpus.
    struct RunSource {
        std::vector<std::string> files; ///< train, dev, test
        std::string format;             ///< ProbeRunConfig::from
        std::shared_ptr<const std::vector<Sentence>> corpus;
    };

    QWidget *buildForm();
    QWidget *buildResults();
    void browse(QLineEdit *edit);
    /// The runs of the checked models (the shipped default without one), named by their files.
    std::vector<ModelRun> modelRuns(const ProbeRunConfig &config) const;
    /// Starts the next model's run as a job (the one place a run starts).
    void startRun(std::shared_ptr<const ProbeRunConfig> config);
    /// A model's report arrived on the GUI thread: the next model starts, or the
    /// series is shown (the one place results arrive).
    void reportReady(std::shared_ptr<const ProbeRunReport> report);
    void showReports();
    void showReport(); ///< the selected report in the result tabs
    void updateStructuralView();
    void openStructuralSentence(int index);
    void openInductionSentence(int index);
    void finish(bool ok, const QString &message);
    void exportPlotDialog(QCustomPlot *plot, const QString &name);
    void exportViewDialog(const QString &which); ///< "structural" or "induction"
    void exportReportDialog();
    void updateExportActions();
    void restoreSettings();
    void saveSettings() const;

    QLineEdit *m_train = nullptr, *m_dev = nullptr, *m_test = nullptr, *m_layers = nullptr;
    ProbingModelList *m_models = nullptr;
    QWidget *m_modelRow = nullptr; ///< "Model:" selector row above the result tabs
    QComboBox *m_modelSelect = nullptr;
    QWidget *m_compareTab = nullptr;
    QLabel *m_compareData = nullptr;
    QTableWidget *m_compare = nullptr;
    QCheckBox *m_useCorpus = nullptr, *m_control = nullptr, *m_randomInit = nullptr;
    QuerySliceBox *m_slice = nullptr;
    QListWidget *m_tasks = nullptr;
    QComboBox *m_pooling = nullptr;
    QMenu *m_exportMenu = nullptr;
    QTabWidget *m_tabs = nullptr;
    QComboBox *m_structTask = nullptr;
    StructuralView *m_structuralView = nullptr;
    InductionView *m_inductionView = nullptr;
    ProbeAttentionView *m_attention = nullptr;
    ProbeCurvePlot *m_curves = nullptr;
    LinkProbabilityPlot *m_links = nullptr;
    QSpinBox *m_seed = nullptr, *m_epochs = nullptr, *m_rank = nullptr;
    QPushButton *m_run = nullptr, *m_cancel = nullptr, *m_export = nullptr;
    QLabel *m_status = nullptr;
    QTableWidget *m_table = nullptr;

    std::function<std::shared_ptr<const std::vector<Sentence>>()> m_corpusSource;
    JobRunner &jobs();
    QPointer<JobRunner> m_jobs;           ///< the app's (setJobRunner) or, standalone, one of its own
    bool m_ownsJobs = false;
    bool m_cancelRequested = false;
    bool m_running = false;
    quint64 m_job = 0;                    ///< the running model's job
    std::vector<ModelRun> m_queue;                             ///< the run's models not started yet
    ModelRun m_current;                                        ///< the model running
    std::vector<std::shared_ptr<const ProbeRunReport>> m_done; ///< the reports of the run so far
    QStringList m_doneNames;
    RunSource m_pendingSource;                                 ///< of the run in progress
    std::vector<std::shared_ptr<const ProbeRunReport>> m_reports; ///< the last run's, one per model
    QStringList m_reportNames;                                  ///< their models' names
    std::shared_ptr<const ProbeRunReport> m_report;             ///< the selected one
    QString m_reportJson, m_reportText;
    bool m_restoring = false;
    RunSource m_runSource;                                       ///< of the reports shown
    std::shared_ptr<const std::vector<Sentence>> m_runSentences; ///< loaded on demand
    std::map<std::string, std::size_t> m_runIndex;             ///< id -> first index in m_runSentences
};

} // namespace treelens
