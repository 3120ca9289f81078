#pragma once
/// \file whatifview.h
/// The comparison of "what if the tree were different?" (issue 33): the analysis of
/// a sentence with its tree as it was and with the edited tree, by the same model.
/// From the top: the edits in order; the prediction before → after with each label's
/// change (or the pair score); for a model that does not read the edited tree, a note
/// saying so and what changes instead (each head's share of the tree's arcs, the
/// best head before and after); the edited dependency tree (arcs above the words:
/// arcs the edits made in orange, the arcs they replaced dashed grey, changed labels
/// in orange) with the change of the selected layer/head's attention (or, for the
/// Dependency-Transformer, its relation gate: setQuantity) between the words as arcs
/// below them, after − before on a diverging colour map (blue: less, red: more;
/// |change| >= 0.02, the 3 strongest per word in long sentences) with a legend; a
/// recursive model's nodes as bars under the words over their spans, coloured by the
/// change of the node state's norm, the nodes the edit removed dashed grey and the new
/// ones outlined in orange (core/eval/analysisdelta.h); for constituency edits both
/// trees in brackets. Exports like every view.
///
/// Scene items carry data(0) = kind ("word", "edited-arc", "removed-arc", "tree-arc",
/// "delta-arc", "prediction", "note", "legend") and data(1) for tests.

#include <memory>
#include <vector>

#include <QGraphicsView>
#include <QStringList>

#include "core/eval/analysisdelta.h"
#include "viz/viewcommon.h"

class QGraphicsScene;

namespace treelens {

class WhatIfView : public QGraphicsView, public ExportableView {
    Q_OBJECT
public:
    struct Comparison {
        std::shared_ptr<const Sentence> before, after;   ///< the sentence with the tree as it was, and edited
        std::shared_ptr<const Analysis> beforeAnalysis, afterAnalysis;
        QStringList edits;                               ///< in the edit language, in order
        bool readsTree = true;                           ///< the model reads the tree the edits changed
        QString model;                                   ///< its name, for the note
    };

    /// What the arcs below the words show the change of: the selected attention, or
    /// (Dependency-Transformer) the relation gate g of the selected layer/head.
    enum class Quantity { Attention, Gate };

    explicit WhatIfView(QWidget *parent = nullptr);
    void setComparison(const Comparison &comparison);
    void setState(const ViewState &state);
    void setQuantity(Quantity quantity);
    Quantity quantity() const { return m_quantity; }
    /// Whether the analyses have relation gates (the Gate quantity has something to show).
    bool hasGates() const;
    const Comparison &comparison() const { return m_comparison; }
    /// What changed (empty without both analyses).
    const AnalysisDelta &delta() const { return m_delta; }

    // For tests: the attention-change arcs drawn (words from, to; after − before).
    struct DeltaArc {
        int from;
        int to;
        double change;
    };
    std::vector<DeltaArc> deltaArcs() const { return m_deltaArcs; }
    /// The text lines drawn above the tree (edits, prediction, notes).
    QStringList lines() const { return m_lines; }
    /// A recursive model's nodes drawn as bars under the words (span, after − before norm).
    struct NodeBar {
        int start;
        int end;
        bool before;
        bool after;
        double change;
    };
    std::vector<NodeBar> nodeBars() const { return m_nodeBars; }

    QSizeF exportSize() const override;
    void renderTo(QPainter *painter, const QRectF &target) override;
    QString exportName() const override { return QStringLiteral("whatif"); }

private:
    struct Fonts;     ///< the fonts of one drawing (whatifview.cpp)
    class TextLines;  ///< the lines of text stacked down the top of the scene (whatifview.cpp)
    struct TreeRow;   ///< where the edited tree's words and arcs go (whatifview.cpp)
    void rebuild();
    /// Shows the whole comparison: scaled down to the viewport when it is larger (never
    /// below kMinFitScale, then it scrolls), never enlarged (issue 47: docked, the tree
    /// under the notes was cut off).
    void fitToViewport();

protected:
    void resizeEvent(QResizeEvent *event) override;

private:
    // The sections of the drawing, top to bottom.
    /// The title and the edits in order.
    void addEdits(TextLines &lines, const Fonts &fonts) const;
    /// The prediction before → after, each label's change with two bars, the pair score.
    void addPrediction(TextLines &lines, const Fonts &fonts);
    /// A model that does not read the edited tree (and its most syntactic head), or that nothing changed.
    void addReadingNotes(TextLines &lines, const Fonts &fonts) const;
    /// What else changed: the largest gate change, the composed nodes, the induced tree's F1, both trees.
    void addChangeNotes(TextLines &lines, const Fonts &fonts) const;
    /// The edited dependency tree from `top` down, with the changes under its words.
    void addTree(double top, const Fonts &fonts);
    void addWords(const TreeRow &row, const Fonts &fonts);
    /// The tree's arcs above the words: kept, edited (orange), replaced (dashed grey), relabelled.
    void addTreeArcs(const TreeRow &row, const Fonts &fonts);
    void addTreeArc(const TreeRow &row, int dep, int head, const QColor &color, double width, Qt::PenStyle style,
                    const char *kind, const QString &label, const Fonts &fonts);
    /// What changed between the words (after − before), |change| >= 0.02, the strongest per word in
    /// long sentences; `largest` gets the largest |change| of all pairs.
    std::vector<DeltaArc> findDeltaArcs(int n, bool gates, double *largest) const;
    /// The attention (or, with `gates`, the relation gate) of word i to word j in the selected layer/head.
    double changedValue(const Analysis &analysis, int i, int j, bool gates) const;
    /// The changes as arcs under the words; returns the lowest point they reach.
    double addDeltaArcs(const TreeRow &row, const std::vector<DeltaArc> &arcs, double scale, bool gates, double below);
    /// A recursive model's nodes as bars from `top` down, with their key; returns the lowest point.
    double addNodeBars(const TreeRow &row, double top, const Fonts &fonts);
    /// The caption of the changes and their diverging colour bar from −scale to +scale.
    void addLegend(double top, double scale, bool gates, const Fonts &fonts);
    Comparison m_comparison;
    ViewState m_state;
    AnalysisDelta m_delta;
    QGraphicsScene *m_scene = nullptr;
    std::vector<DeltaArc> m_deltaArcs;
    std::vector<NodeBar> m_nodeBars;
    QStringList m_lines;
    Quantity m_quantity = Quantity::Attention;
};

} // namespace treelens
