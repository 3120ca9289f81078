#pragma once
/// \file linkstripview.h
/// The Tree Transformer's per-layer link probabilities between neighbouring
/// words (Analysis::linkProbs, over tokens; gaps between words mapped through
/// wordToken) as a layers × gaps chart (QCustomPlot colour map, layer 1 at the
/// bottom), with the selected layer's probabilities as a line chart above it and
/// the merge threshold drawn as a horizontal line. Below, a "merge" strip shows
/// the words grouped into constituents at the current layer: neighbours whose
/// link probability at that layer is >= threshold are one group (the prior is
/// hierarchical, so groups only merge going up). The threshold is the model's own
/// unsupervised-parse threshold (Analysis::induction: a span whose links are all
/// above it is not split at that layer), and its descent rule is drawn as a second
/// line; the strip's caption says so. A layer slider and a Play button animate the
/// merging from the lowest to the top layer, with speed control. A one-word
/// sentence, or a model without link probabilities, is said so in the figure.

#include <optional>
#include <utility>
#include <vector>

#include <QString>
#include <QStringList>
#include <QWidget>

#include "viz/viewcommon.h"

class QCustomPlot;
class QCPAxisRect;
class QCPColorMap;
class QCPColorScale;
class QCPGraph;
class QCPItemRect;
class QCPItemStraightLine;
class QCPItemText;
class QCPMarginGroup;
class QCPTextElement;
class QLabel;
class QLayout;
class QSlider;
class QSpinBox;
class QPushButton;
class QTimer;

namespace treelens {

class PlotTitle;

class LinkStripView : public QWidget, public ExportableView {
    Q_OBJECT
public:
    explicit LinkStripView(QWidget *parent = nullptr);

    void setData(const ViewData &data);
    void setState(const ViewState &state);
    /// Overrides the merge threshold for the groups. Default: the model's
    /// unsupervised-parse threshold (Analysis::induction), 0.5 without one.
    void setMergeThreshold(double threshold);
    double mergeThreshold() const;
    /// The model's descent rule (Analysis::induction::descend), drawn as a second line; unset without one.
    std::optional<double> descendThreshold() const;

    // Animation
    void play();
    void stop();
    bool isPlaying() const;
    /// Milliseconds per layer step.
    void setStepInterval(int ms);
    int currentLayer() const { return m_layer; }

    // For tests.
    QCustomPlot *plot() const { return m_plot; }
    /// Link probability (over words) between word k and k+1 at layer l, as plotted.
    double gapValue(int layer, int gap) const;
    /// Groups at the current layer as [start, end) word ranges, left to right.
    std::vector<std::pair<int, int>> groups() const;
    /// The notes under the title (what the figure cannot show).
    QStringList titleLines() const;
    /// The merge strip's caption, one string per line.
    QStringList caption() const;
    /// The labels of the threshold lines (merge, descend; "" when not drawn) and the chart's message.
    QString thresholdLabel() const;
    QString descendLabel() const;
    QString chartMessage() const;

    QSizeF exportSize() const override;
    void renderTo(QPainter *painter, const QRectF &target) override;
    QString exportName() const override { return QStringLiteral("links"); }

Q_SIGNALS:
    void hovered(const QString &text);
    /// The animation or slider moved to another layer (0-based).
    void layerChanged(int layer);

private:
    // The parts of the constructor, in the order they run.
    /// The scrolled content: the plot over the merge strip.
    QWidget *buildContent();
    /// Play, the layer label, the slider and the speed under the content, and what they do.
    QLayout *buildControls();
    void connectControls();
    /// The plot's layout: title / link chart / layers × gaps map with its colour scale.
    void buildPlotLayout();
    /// The chart's axes and its line of the selected layer's probabilities.
    void styleChart();
    /// The threshold lines, labelled outside the chart, and the chart's message.
    void addChartItems();
    /// A threshold line and its label, right of the chart (in the colour scale's column).
    void addThresholdLine(QCPItemStraightLine *&line, QCPItemText *&text, Qt::PenStyle style, Qt::Alignment vertical);
    /// The layers × gaps map and the box around the current layer.
    void addLayerMap();
    void rebuild();
    /// Moves the view to `layer`; `notify`: emit layerChanged when it changed.
    void showLayer(int layer, bool notify = true);
    void step();
    int layerCount() const;
    int gapCount() const;
    /// Link probability from the analysis (not the plot) for word gap `gap`.
    double linkAt(int layer, int gap) const;
    void updateGapTicks(double axisPixels);
    void handleHover(const QPointF &pos, const QPoint &globalPos);
    /// The merge strip's natural size and painting (shared by the widget and renderTo).
    QSizeF mergeStripSize() const;
    QStringList stripCaption() const;
    /// Height of the caption's wrapped second line in a strip `width` wide (0 without one).
    double captionNoteHeight(const QStringList &caption, double width) const;
    void paintMergeStrip(QPainter *painter, const QRectF &rect) const;
    QSize chartSize() const;
    /// Natural outer height of the layers × gaps map with its gap labels.
    double mapBlockHeight() const;
    friend class MergeStripWidget;
    ViewData m_data;
    ViewState m_state;
    std::optional<double> m_thresholdOverride;
    int m_layer = 0;
    QCustomPlot *m_plot = nullptr;
    QWidget *m_mergeStrip = nullptr;
    QSlider *m_slider = nullptr;
    QPushButton *m_play = nullptr;
    QTimer *m_timer = nullptr;
    QSpinBox *m_speed = nullptr;
    QLabel *m_layerLabel = nullptr;
    QCPAxisRect *m_chartRect = nullptr;
    QCPAxisRect *m_mapRect = nullptr;
    QCPColorMap *m_map = nullptr;
    QCPColorScale *m_scale = nullptr;
    QCPGraph *m_graph = nullptr;
    QCPItemStraightLine *m_thresholdLine = nullptr;
    QCPItemText *m_thresholdText = nullptr;
    QCPItemStraightLine *m_descendLine = nullptr;
    QCPItemText *m_descendText = nullptr;
    QCPItemText *m_chartMessage = nullptr;
    QCPItemRect *m_layerBox = nullptr;
    PlotTitle *m_title = nullptr;
    QCPMarginGroup *m_columns = nullptr;
    QCPMarginGroup *m_rows = nullptr;
    std::vector<QString> m_gapLabels; ///< "the|cat" per gap
    int m_tickStep = 0;
    bool m_rotated = false;
    int m_resumeLayer = -1; ///< layer a paused animation continues from (-1: start at 0)
};

} // namespace treelens
