#pragma once
/// \file structuralview.h
/// The structural probes' results (TreeLens issue 6, Hewitt & Manning 2019) for
/// one probing run: a layer combo (default the report's best layer), the test
/// sentences worst first, and for the selected sentence
///  - distance probe: the gold tree distances and the predicted squared
///    distances as two heatmaps on one colour scale, and an arc diagram of the
///    gold minimum spanning tree (above the words) against the probe's (below),
///    wrong edges red, missed gold edges dashed;
///  - depth probe: gold vs predicted depth per word, gold and predicted root marked.
/// Double-clicking a sentence emits openSentence(). Holds no probing logic: the
/// numbers come from ProbeRunStructural (core/probing/probereport.h) as they are.

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <QString>
#include <QWidget>

#include "core/probing/probereport.h"
#include "viz/structuralarcview.h"
#include "viz/viewcommon.h"

class QComboBox;
class QCPAxisRect;
class QCPColorMap;
class QCPColorScale;
class QCPTextElement;
class QCustomPlot;
class QLabel;
class QListWidget;
class QMouseEvent;
class QScrollArea;
class QStackedWidget;

namespace treelens {

/// Indices into `results`, worst first. Distance: by edge accuracy
/// (correctEdges / goldEdges; a sentence without gold edges counts 1), then by
/// Spearman ρ; depth: a wrong root first, then by ρ. An undefined ρ sorts after
/// the defined ones of its group; remaining ties keep the input order.
std::vector<int> structuralWorstFirst(StructuralProbeKind kind, const std::vector<StructuralSentenceResult> &results);

/// "Embeddings" for layer 0, "Layer k" otherwise.
QString structuralLayerName(int layer);

/// A sentence list row: "7/12 edges · ρ 0.61 · The cat sat …" (distance) or
/// "root wrong · ρ 0.61 · The cat sat …" (depth).
QString structuralRowText(StructuralProbeKind kind, const StructuralSentenceResult &result,
                          const std::vector<std::string> &words);

class StructuralView : public QWidget, public ExportableView {
    Q_OBJECT
public:
    explicit StructuralView(QWidget *parent = nullptr);

    /// Shows a run's structural probe (null clears). Selects its best layer
    /// (the first probed layer when bestLayer was not probed) and the worst sentence.
    void setResult(std::shared_ptr<const ProbeRunStructural> result);
    std::shared_ptr<const ProbeRunStructural> result() const { return m_result; }

    /// Shows a probed layer (0 = embeddings); ignored for a layer not in byLayer.
    void setLayer(int layer);
    int layer() const { return m_layer; } ///< -1 without a result
    /// Selects row `row` of the sentence list (worst first); -1 clears.
    void selectSentence(int row);
    int selectedRow() const;
    /// The selected row's index into result()->sentences (-1: none).
    int selectedSentence() const;
    /// Row r of the list shows byLayer[layer()][rowOrder()[r]].
    const std::vector<int> &rowOrder() const { return m_order; }
    /// The selected row's result (nullptr: none).
    const StructuralSentenceResult *selectedResult() const;
    /// Emits openSentence for row `row`.
    void activateSentence(int row);

    // Widgets, for tests, screenshots and exports.
    QComboBox *layerCombo() const { return m_layerCombo; }
    QListWidget *sentenceList() const { return m_list; }
    QLabel *summaryLabel() const { return m_summary; }
    QLabel *sentenceLabel() const { return m_sentenceLabel; }
    /// Distance probe: both heatmaps and their colour scale in one plot.
    QCustomPlot *heatmapPlot() const { return m_heatPlot; }
    QCPColorMap *goldMap() const { return m_goldMap; }
    QCPColorMap *predictedMap() const { return m_predMap; }
    QCPColorScale *colorScale() const { return m_scale; }
    StructuralArcView *arcView() const { return m_arcs; }
    /// Depth probe: gold vs predicted depths (plottables 0 and 1: gold and predicted
    /// bars; graphs 0 and 1: the gold and predicted root markers).
    QCustomPlot *depthPlot() const { return m_depthPlot; }
    /// Depth probe: "root correct: …" / "root wrong: gold …, predicted …".
    QCPTextElement *depthSubtitle() const { return m_depthSubtitle; }
    /// The plot of the current kind (heatmaps or depths), nullptr without a result.
    QCustomPlot *currentPlot() const;

    /// Writes what exportSize()/renderTo() paint (distance: heatmaps and arcs;
    /// depth: the depth plot) to PNG, SVG or PDF by the extension (viz/viewexport.h).
    bool exportPlots(const QString &path, QString *error = nullptr, int dpi = 300);

    QSizeF exportSize() const override;
    void renderTo(QPainter *painter, const QRectF &target) override;
    QString exportName() const override;

Q_SIGNALS:
    /// The user double-clicked a sentence: its index into result()->sentences.
    void openSentence(int sentenceIndex);
    void layerChanged(int layer);

private:
    QWidget *buildDistancePage();
    void buildDepthPlot();
    /// The exact value of the heatmap cell under the mouse, as a tooltip.
    void showHeatTip(QMouseEvent *event);
    const std::vector<StructuralSentenceResult> *layerResults() const;
    std::vector<std::string> wordsOf(const StructuralSentenceResult &r) const;
    std::vector<char> punctOf(const StructuralSentenceResult &r) const;
    void fillList();
    void showSelected();
    void showDistance(const StructuralSentenceResult &r);
    void showDepth(const StructuralSentenceResult &r);
    void clearPlots();
    /// Heatmap tick labels: every k-th word so labels do not overlap; true when changed.
    bool updateHeatTicks();
    QSizeF heatExportSize() const;

    std::shared_ptr<const ProbeRunStructural> m_result;
    int m_layer = -1;
    std::vector<int> m_order;
    std::vector<std::string> m_words; ///< of the selected sentence
    int m_tickStep = 1;

    QComboBox *m_layerCombo = nullptr;
    QLabel *m_summary = nullptr, *m_sentenceLabel = nullptr;
    QListWidget *m_list = nullptr;
    QStackedWidget *m_stack = nullptr;
    QCustomPlot *m_heatPlot = nullptr, *m_depthPlot = nullptr;
    QCPAxisRect *m_goldRect = nullptr, *m_predRect = nullptr;
    QCPTextElement *m_goldTitle = nullptr, *m_predTitle = nullptr, *m_depthTitle = nullptr, *m_depthSubtitle = nullptr;
    QCPColorMap *m_goldMap = nullptr, *m_predMap = nullptr;
    QCPColorScale *m_scale = nullptr;
    StructuralArcView *m_arcs = nullptr;
    QScrollArea *m_arcScroll = nullptr;
};

} // namespace treelens
