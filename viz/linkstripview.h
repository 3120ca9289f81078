#pragma once
/// \file linkstripview.h
/// The Tree Transformer's per-layer link probabilities between neighbouring
/// words (Analysis::linkProbs, over tokens; gaps between words mapped through
/// wordToken) as a layers × gaps chart (QCustomPlot colour map, layer 1 at the
/// bottom), with the selected layer's probabilities as a line chart above it and
/// the merge threshold drawn as a horizontal line. Below, a "merge" strip shows
/// the words grouped into constituents at the current layer: neighbours whose
/// link probability at that layer is >= threshold are one group (the prior is
/// hierarchical, so groups only merge going up). A layer slider and a Play
/// button animate the merging from the lowest to the top layer, with speed control.

#include <vector>

#include <QString>
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
class QSlider;
class QSpinBox;
class QPushButton;
class QTimer;

namespace treelens {

class LinkStripView : public QWidget, public ExportableView {
    Q_OBJECT
public:
    explicit LinkStripView(QWidget *parent = nullptr);

    void setData(const ViewData &data);
    void setState(const ViewState &state);
    /// Merge threshold for the groups (default 0.5).
    void setMergeThreshold(double threshold);
    double mergeThreshold() const { return m_mergeThreshold; }

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

    QSizeF exportSize() const override;
    void renderTo(QPainter *painter, const QRectF &target) override;
    QString exportName() const override { return QStringLiteral("links"); }

Q_SIGNALS:
    void hovered(const QString &text);
    /// The animation or slider moved to another layer (0-based).
    void layerChanged(int layer);

private:
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
    QString stripCaption() const;
    void paintMergeStrip(QPainter *painter, const QRectF &rect) const;
    QSize chartSize() const;
    /// Natural outer height of the layers × gaps map with its gap labels.
    double mapBlockHeight() const;
    friend class MergeStripWidget;
    ViewData m_data;
    ViewState m_state;
    double m_mergeThreshold = 0.5;
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
    QCPItemRect *m_layerBox = nullptr;
    QCPTextElement *m_title = nullptr;
    QCPMarginGroup *m_columns = nullptr;
    QCPMarginGroup *m_rows = nullptr;
    std::vector<QString> m_gapLabels; ///< "the|cat" per gap
    int m_tickStep = 0;
    bool m_rotated = false;
    int m_resumeLayer = -1; ///< layer a paused animation continues from (-1: start at 0)
};

} // namespace treelens
