#pragma once
/// \file probeattentionview.h
/// The attention analyses of a probing run (core/probing/probereport.h's
/// ProbeRunAttention) as heatmaps: head accuracy per relation and direction as
/// layers × heads (or heads × relations at one layer) with the relation's best
/// fixed-offset baseline in the title, constituent mass − baseline and the
/// attention MST's UUAS as layers × heads. Clicking a cell lists its sentences,
/// worst first; activating one emits sentenceActivated().
///
/// Layer numbering: drawn as the View dock and the report's JSON number layers
/// and heads, from 1 (the typed report's index l, h is drawn at l + 1, h + 1).
/// The API takes the typed report's 0-based indices.

#include <memory>
#include <vector>

#include <QString>
#include <QStringList>
#include <QWidget>

#include "core/probing/probereport.h"

class QComboBox;
class QCPColorMap;
class QCPItemText;
class QCPColorScale;
class QCPTextElement;
class QCustomPlot;
class QLabel;
class QListWidget;
class QSpinBox;

namespace treelens {

class ProbeAttentionView : public QWidget {
    Q_OBJECT
public:
    explicit ProbeAttentionView(QWidget *parent = nullptr);

    /// Shows a run's analyses (null clears), keeping the analysis, relation and
    /// direction shown when the run has them; `model` heads the title ("" for a
    /// run of one model).
    void setAttention(std::shared_ptr<const ProbeRunAttention> attention, const QString &model = QString());

    /// The analysis the heatmap shows: head-accuracy, constituent-mass or attention-mst ("" = none).
    QString task() const;
    void setTask(const QString &task);
    enum class Mode { LayersByHeads, HeadsByRelations }; ///< head accuracy only
    void setMode(Mode mode);
    Mode mode() const;
    /// The relation of the head-accuracy map ("all" or a universal relation).
    void setRelation(const QString &relation);
    QString relation() const;
    void setDirection(ArcDirection direction);
    ArcDirection direction() const;
    /// The layer (0-based) of the heads × relations map.
    void setRelationLayer(int layer);
    int relationLayer() const;
    /// Task, relation, direction and, for head accuracy, the relation's best fixed-offset baseline.
    QString title() const;

    /// Lists the sentences behind a cell, worst first (0-based layer and head; for
    /// head accuracy of the current relation and direction).
    void selectCell(int layer, int head);
    /// Emits sentenceActivated for row `row` of the list.
    void activateSentence(int row);
    /// Whether the map has cells (for the export menu).
    bool hasCells() const;

    QCustomPlot *plot() const { return m_plot; }
    QCPColorMap *map() const { return m_map; }
    /// The numbers drawn on the cells, row by row (empty on a grid too dense to label).
    QStringList cellTexts() const;
    QComboBox *relationCombo() const { return m_relation; }
    QListWidget *sentenceList() const { return m_sentences; }

Q_SIGNALS:
    /// A sentence of the listed cell was activated: its id, the cell's layer and head (0-based).
    void sentenceActivated(const QString &sentenceId, int layer, int head);

private:
    const RelationHeadAccuracy *currentRelation() const;
    void fillChoices();
    void updateMap();
    void updateTitle();
    void cellClicked(QMouseEvent *event);

    std::shared_ptr<const ProbeRunAttention> m_attention;
    QString m_model;
    int m_cellLayer = -1, m_cellHead = -1;

    QComboBox *m_task = nullptr, *m_relation = nullptr, *m_direction = nullptr, *m_mode = nullptr;
    QSpinBox *m_relationLayer = nullptr;
    QWidget *m_headControls = nullptr;
    QCustomPlot *m_plot = nullptr;
    QCPColorMap *m_map = nullptr;
    std::vector<QCPItemText *> m_cellTexts; ///< each cell's number (issue 47: the cells had none)
    QCPColorScale *m_scale = nullptr;
    QCPTextElement *m_title = nullptr;
    QLabel *m_cellLabel = nullptr;
    QListWidget *m_sentences = nullptr;
};

} // namespace treelens
