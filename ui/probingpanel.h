#pragma once
/// \file probingpanel.h
/// The "Probing" dock (TreeLens issue 6): configures a probing run
/// (core/probing/proberun.h), runs it on a worker thread with cooperative
/// cancellation, draws the learning curve of the probe being trained, fills a
/// results table from the report JSON, and shows the attention analyses as
/// layers × heads heatmaps whose cells list their sentences worst first.
/// Double-clicking a sentence emits openSentence(). Holds no probing logic.

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <QJsonObject>
#include <QString>
#include <QStringList>
#include <QWidget>

#include "core/data/sentence.h"
#include "core/probing/proberun.h"

class QCheckBox;
class QComboBox;
class QCPColorMap;
class QCPColorScale;
class QCustomPlot;
class QLabel;
class QLineEdit;
class QListWidget;
class QPushButton;
class QSpinBox;
class QTableWidget;
class QThread;

namespace treelens {

class ProbingPanel : public QWidget {
    Q_OBJECT
public:
    explicit ProbingPanel(QWidget *parent = nullptr);
    ~ProbingPanel() override;

    // Configuration (the widgets' values; setters for MainWindow and tests).
    void setModelPath(const QString &path);
    QString modelPath() const;
    void setFiles(const QString &train, const QString &dev, const QString &test);
    void setTasks(const QStringList &tasks);
    QStringList checkedTasks() const;
    void setLayers(const QString &layers);
    void setPooling(const QString &pooling); ///< both, cls or mean
    void setControl(bool on);
    void setRandomInit(bool on);
    void setSeed(int seed);
    void setEpochs(int epochs); ///< 0 = each probe's default
    /// Supplies the open corpus for "Use the open corpus" (nullptr/empty = none).
    void setCorpusSource(std::function<std::shared_ptr<const std::vector<Sentence>>()> source);
    void setUseOpenCorpus(bool on);
    /// The configuration the widgets describe.
    ProbeRunConfig config() const;

    /// Starts a run (no-op while one is running).
    void run();
    /// Asks the running job to stop at the next unit of work.
    void cancel();
    bool isRunning() const { return m_running; }

    // Results.
    QString reportJson() const { return m_reportJson; }
    QString reportText() const { return m_reportText; }
    bool exportJson(const QString &path, QString *error = nullptr) const;
    bool exportCsv(const QString &path, QString *error = nullptr) const;
    /// The attention task the heatmap shows ("" = none).
    QString heatmapTask() const;
    void setHeatmapTask(const QString &task);
    /// Lists the sentences behind a heatmap cell, worst first.
    void selectCell(int layer, int head);
    /// Emits openSentence for row `row` of the sentence list.
    void activateSentence(int row);

    // Widgets, for tests and screenshots.
    QCustomPlot *curvePlot() const { return m_curvePlot; }
    QCustomPlot *heatmapPlot() const { return m_heatPlot; }
    QCPColorMap *heatmap() const { return m_heatMap; }
    QTableWidget *resultsTable() const { return m_table; }
    QListWidget *sentenceList() const { return m_sentences; }
    QLabel *statusLabel() const { return m_status; }
    int curvePointCount() const { return m_curvePoints; }

Q_SIGNALS:
    /// A run ended: ok, or the error / "cancelled" message.
    void finished(bool ok, const QString &message);
    void curvePointAdded();
    void progressText(const QString &line);
    /// The user asked to see a sentence of a heatmap cell at that layer/head.
    void openSentence(const QString &sentenceId, int layer, int head);

private:
    void browse(QLineEdit *edit);
    void addCurvePoint(const ProbeCurvePoint &p);
    void showReport(const std::shared_ptr<ProbeRunReport> &report);
    void fillTable(const QJsonObject &tasks);
    void updateHeatmap();
    void finish(bool ok, const QString &message);

    QLineEdit *m_train = nullptr, *m_dev = nullptr, *m_test = nullptr, *m_model = nullptr, *m_layers = nullptr;
    QCheckBox *m_useCorpus = nullptr, *m_control = nullptr, *m_randomInit = nullptr;
    QListWidget *m_tasks = nullptr;
    QComboBox *m_pooling = nullptr, *m_heatTask = nullptr;
    QSpinBox *m_seed = nullptr, *m_epochs = nullptr;
    QPushButton *m_run = nullptr, *m_cancel = nullptr, *m_export = nullptr;
    QLabel *m_status = nullptr, *m_cellLabel = nullptr;
    QCustomPlot *m_curvePlot = nullptr, *m_heatPlot = nullptr;
    QCPColorMap *m_heatMap = nullptr;
    QCPColorScale *m_heatScale = nullptr;
    QTableWidget *m_table = nullptr;
    QListWidget *m_sentences = nullptr;

    std::function<std::shared_ptr<const std::vector<Sentence>>()> m_corpusSource;
    QThread *m_thread = nullptr;
    std::shared_ptr<std::atomic<bool>> m_cancelFlag;
    bool m_running = false;
    quint64 m_generation = 0;
    int m_curvePoints = 0;
    std::vector<std::string> m_curveKeys; ///< latest probes drawn, oldest first
    std::shared_ptr<ProbeRunReport> m_report;
    QString m_reportJson, m_reportText;
    int m_cellLayer = -1, m_cellHead = -1;
};

} // namespace treelens
