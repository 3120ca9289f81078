#pragma once
/// \file minimalpairspanel.h
/// The Minimal pairs dock (issue 46; docs/minimal-pairs.md, "In the app"): a pair file
/// opened (BLiMP JSON Lines or a good/bad TSV, as `treelens-cli minimal-pairs` reads it) or
/// pairs made from the open corpus's trees (agreement, determiner: core makePairs; or from
/// only the sentences the Corpus dock's query matches, queryslice.h); the
/// window's model scores them off the GUI thread with the heads switched off now
/// (AblationControl), and scores them again whenever that set or the model changes; the
/// accuracy overall and per phenomenon with Wilson 95 % intervals; the pair list; the
/// selected pair on its tree with every word's surprisal in both sentences (MinimalPairView);
/// and the ablation sweep (every head and layer switched off in turn, as `ablate-sweep`)
/// as a heatmap whose cells list the pairs that head flips. A checkbox makes a click in the
/// heads overview switch heads off and on (clickAblatesChanged).

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <QString>
#include <QWidget>

#include "core/data/dependencytree.h"
#include "core/data/sentence.h"
#include "core/eval/minimalpairs.h"
#include "core/encoders/encoder.h"
#include "core/eval/minimalpairscoring.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QPushButton;
class QTableWidget;
class QTabWidget;

namespace treelens {

class AblationControl;
class JobRunner;
class MinimalPairView;
class QuerySliceBox;
class SweepHeatmap;

/// The pairs the dock holds: the pairs, and for pairs made from a corpus the good sentence's tree.
struct PairSet {
    std::vector<MinimalPair> pairs;
    std::vector<std::optional<DependencyTree>> trees; ///< per pair; empty for a file
    QString source;                                   ///< the file, or "CORPUS (agreement)"
};

/// One scoring of the pair set: per pair its sentences' surprisals and log-probabilities.
struct PairScoring {
    struct Row {
        std::vector<double> goodSurprisal, badSurprisal;
        double goodLogprob = 0.0, badLogprob = 0.0;
        std::string skipped;
    };
    std::vector<Row> rows;
    PairSummary summary;
    QString model, score;
    std::vector<std::pair<int, int>> ablated;
    double seconds = 0.0;
};

/// A model's name as the dock and its figures write it: its own, else its file's name.
std::string pairModelName(const EncoderInfo &info, const std::string &path);

class MinimalPairsPanel : public QWidget {
    Q_OBJECT
public:
    MinimalPairsPanel(JobRunner *jobs, AblationControl *ablation, QWidget *parent = nullptr);
    ~MinimalPairsPanel() override;

    void setModelPath(const QString &path);
    /// Where "Make pairs" takes the open corpus from.
    void setCorpusSource(std::function<std::shared_ptr<const std::vector<Sentence>>()> source);
    /// Supplies the Corpus dock's matched sentences for "Only sentences matching the corpus
    /// query" (queryslice.h): checked, pairs are made from them only.
    void setQuerySliceSource(std::function<std::shared_ptr<const std::vector<Sentence>>()> source);
    QuerySliceBox *querySliceBox() const { return m_slice; }

    /// Opens a pair file and scores it; false (and `*error`) when it cannot be read.
    bool openPairs(const QString &path, QString *error = nullptr);
    /// Makes pairs of `phenomenon` ("agreement", "determiner") from the open corpus and scores them.
    bool makePairsFromCorpus(const QString &phenomenon, QString *error = nullptr);
    /// Scores the pairs again (the model, the heads switched off now), off the GUI thread.
    void score();
    /// Every head and every layer switched off in turn, off the GUI thread (the heatmap); while
    /// one runs, stops it (its button reads "Stop the sweep").
    void sweep();
    /// Shows pair `index` (of the pair set) in the pair view.
    void selectPair(int index);
    /// Lists only the pairs switching off (layer, head) flips (head -1: the layer); layer -1: all.
    void showFlipped(int layer, int head);

    const PairSet &pairSet() const { return m_set; }
    const PairScoring *scoring() const { return m_scoring.get(); }
    const std::vector<SweepCell> &sweepCells() const { return m_cells; }
    QString summaryText() const;
    QTableWidget *pairTable() const { return m_pairs; }
    /// What the list shows ("All 8 pairs", "The 2 pairs switching off L3 H2 flips …").
    QString listNote() const;
    QTableWidget *phenomenonTable() const { return m_phenomena; }
    MinimalPairView *pairView() const { return m_view; }
    SweepHeatmap *sweepView() const { return m_heatmap; }
    QTabWidget *tabs() const { return m_tabs; }
    QCheckBox *clickAblatesBox() const { return m_clickAblates; }
    bool isScoring() const;
    bool isSweeping() const { return m_sweeping; }

Q_SIGNALS:
    void clickAblatesChanged(bool on);
    void statusMessage(const QString &text);
    void scored();
    /// The pairs could not be scored (the model refused them, or could not be loaded): why.
    void scoreFailed(const QString &message);
    void sweepFinished();
    /// The sweep stopped without a heatmap (no heads, cancelled, an error): why.
    void sweepFailed(const QString &message);

private:
    void build();
    void setPairs(PairSet set);
    void showScoring(std::shared_ptr<const PairScoring> scoring);
    void fillPairTable();
    void fillPhenomena();
    void exportSweep();
    void openDialog();
    void ablationChanged();
    /// Stops a running sweep and forgets the heatmap and its filter (the pairs, model or heads changed).
    void dropSweep();

    JobRunner *m_jobs;
    AblationControl *m_ablation;
    QString m_modelPath;
    std::function<std::shared_ptr<const std::vector<Sentence>>()> m_corpus;
    PairSet m_set;
    std::shared_ptr<const PairScoring> m_scoring;
    std::vector<SweepCell> m_cells;
    std::vector<std::size_t> m_shown; ///< the pair set's indices listed in the table
    QString m_filter;                 ///< the phenomenon the list is restricted to ("" = every one)
    std::optional<std::vector<std::size_t>> m_flipped; ///< the pairs a sweep cell flips, when one is chosen
    QString m_flippedBy;
    int m_current = -1;               ///< the pair shown in the pair view (-1: none)
    bool m_sweeping = false;          ///< a sweep of this panel is running (not yet delivered or dropped)              ///< that cell ("L3 H2")

    QLabel *m_summary = nullptr, *m_listNote = nullptr;
    QComboBox *m_phenomenon = nullptr;
    QPushButton *m_sweepButton = nullptr, *m_exportButton = nullptr, *m_showAll = nullptr;
    QCheckBox *m_clickAblates = nullptr;
    QuerySliceBox *m_slice = nullptr;
    QTableWidget *m_phenomena = nullptr, *m_pairs = nullptr;
    QTabWidget *m_tabs = nullptr;
    MinimalPairView *m_view = nullptr;
    SweepHeatmap *m_heatmap = nullptr;
};

} // namespace treelens
