#pragma once
/// \file pairviews.h
/// The pair workbench's views over plain core data:
///  - PairBridgeView: a pair model's internals between the two sentences — the
///    question's words on top, the answer's below, each with its groups (the
///    selected head's group layout, GGSA), within-group attention of the selected
///    layer/head as arcs, the gate strength per word (mean of G over D) as bars,
///    the answer's question-interaction residual per word (iGGSA) as bars, and
///    the composition attention from the question vector to the answer words as
///    lines between the rows. Any pair Analysis (first = question, second[0] =
///    answer); what the model lacks is said in the figure. A Dependency-Transformer
///    pair: attention arcs (words mapped to its tokens past [root]), each word's mean
///    relation gate as the bars, and no line between the rows (its pair head reads
///    the two [root] vectors only).
///  - SliceBarChart: a metric per slice (bars, one series per system).
///  - ScoreScatterPlot: two systems' scores of every pair, correct pairs
///    highlighted; a click reports the nearest pair.
/// All are ExportableView (PNG/SVG/PDF through viewexport.h).

#include <memory>
#include <vector>

#include <QWidget>

#include "core/data/analysis.h"
#include "core/data/viewstate.h"
#include "viz/viewcommon.h"

class QCustomPlot;

namespace treelens {

class PairBridgeView : public PaintedExportView {
    Q_OBJECT
public:
    explicit PairBridgeView(QWidget *parent = nullptr);
    /// The pair's analysis (`data.analysis`: the first sentence's, with the second's in
    /// Analysis::second; null: nothing to draw). The view registry's "bridge" entry.
    void setData(const ViewData &data);
    void setState(const ViewState &state);
    /// The caption above the drawing (gold label, system); kept across setData().
    void setCaption(const QString &caption);

    QString exportName() const override { return QStringLiteral("pair-bridge"); }
    QSize sizeHint() const override;

protected:
    void paint(QPainter &p, const QSizeF &size) const override;

private:
    std::shared_ptr<const Analysis> m_analysis;
    QString m_caption;
    ViewState m_state;
};

class SliceBarChart : public QWidget, public ExportableView {
    Q_OBJECT
public:
    explicit SliceBarChart(QWidget *parent = nullptr);
    /// values[system][slice]; NaN = no value (an empty slice).
    void setData(const QString &title, const QString &metric, const QStringList &slices, const QStringList &systems,
                 const std::vector<std::vector<double>> &values);
    QSizeF exportSize() const override;
    void renderTo(QPainter *painter, const QRectF &target) override;
    QString exportName() const override { return QStringLiteral("slices"); }

private:
    QCustomPlot *m_plot;
};

class ScoreScatterPlot : public QWidget, public ExportableView {
    Q_OBJECT
public:
    explicit ScoreScatterPlot(QWidget *parent = nullptr);
    /// x, y: the two systems' scores per pair; correct[i]: pair i is a correct answer.
    void setData(const QString &xName, const QString &yName, const std::vector<double> &x, const std::vector<double> &y,
                 const std::vector<bool> &correct);
    QSizeF exportSize() const override;
    void renderTo(QPainter *painter, const QRectF &target) override;
    QString exportName() const override { return QStringLiteral("score-scatter"); }

Q_SIGNALS:
    void pairClicked(int pair);

private:
    QCustomPlot *m_plot;
    std::vector<double> m_x, m_y;
};

} // namespace treelens
