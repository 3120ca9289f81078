#pragma once
/// \file inductionview.h
/// Unsupervised constituency parsing by a probing run (task
/// unsupervised-parsing, ProbeRunInduction in core/probing/probereport.h): F1 per
/// start layer for the model (sentence-level F1, the Tree Transformer paper's
/// figure, and corpus-level F1) against the left-branching, right-branching and
/// random-binary baselines, for all sentences or those of at most 10 words; the
/// sentences worst first by the model's sentence F1, and the selected
/// sentence's gold and predicted brackets as nested spans over its words.
/// A model without a constituent prior shows the reason and the baselines only.

#include <memory>
#include <utility>
#include <vector>

#include <QString>
#include <QWidget>

#include "core/probing/probereport.h"
#include "viz/bracketspanview.h"
#include "viz/viewcommon.h"

class QCheckBox;
class QCustomPlot;
class QCPTextElement;
class QLabel;
class QListWidget;
class QScrollArea;

namespace treelens {

/// Indices 0..n-1 by ascending F1 (ties keep the input order).
std::vector<int> inductionWorstFirst(const std::vector<double> &perSentence);

class InductionView : public QWidget, public ExportableView {
    Q_OBJECT
public:
    explicit InductionView(QWidget *parent = nullptr);

    /// Shows a run's unsupervised parsing (null clears) and selects the worst sentence.
    void setResult(std::shared_ptr<const ProbeRunInduction> result);
    std::shared_ptr<const ProbeRunInduction> result() const { return m_result; }

    /// true: the chart shows the sentences of at most 10 words (report.upTo10)
    /// and the list only those sentences.
    void setShortSentences(bool on);
    bool shortSentences() const;

    void selectSentence(int row); ///< row of the list (worst first); -1 clears
    int selectedRow() const;
    int selectedSentence() const; ///< the selected row's index into result()->words (-1: none)
    /// Row r of the list shows sentence rowOrder()[r].
    const std::vector<int> &rowOrder() const { return m_order; }
    /// Emits openSentence for row `row`.
    void activateSentence(int row);

    /// The start layer the predicted brackets and report.all.model come from
    /// (the configured start layer; -1 in the config = the top start layer).
    int configuredStartLayer() const;

    // Widgets, for tests, screenshots and exports.
    QCustomPlot *chart() const { return m_chart; }
    QCPTextElement *chartTitle() const { return m_title; }
    BracketSpanView *bracketView() const { return m_brackets; }
    QListWidget *sentenceList() const { return m_list; }
    QLabel *statusLabel() const { return m_status; }
    QCheckBox *shortToggle() const { return m_short; }

    /// Writes the chart and the selected sentence's brackets to PNG, SVG or PDF
    /// by the extension (viz/viewexport.h).
    bool exportPlots(const QString &path, QString *error = nullptr, int dpi = 300);

    QSizeF exportSize() const override;
    void renderTo(QPainter *painter, const QRectF &target) override;
    QString exportName() const override { return QStringLiteral("unsupervised-parsing"); }

Q_SIGNALS:
    /// The user double-clicked a sentence: its index into result()->words / sentenceIds.
    void openSentence(int index);

private:
    bool hasModelScores() const;
    void rebuildChart();
    void fillList();
    void showSelected();

    std::shared_ptr<const ProbeRunInduction> m_result;
    std::vector<int> m_order;

    QLabel *m_status = nullptr, *m_sentenceLabel = nullptr;
    QCheckBox *m_short = nullptr;
    QCustomPlot *m_chart = nullptr;
    QCPTextElement *m_title = nullptr;
    QListWidget *m_list = nullptr;
    BracketSpanView *m_brackets = nullptr;
    QScrollArea *m_bracketScroll = nullptr;
};

} // namespace treelens
