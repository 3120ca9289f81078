#pragma once
/// \file attentionheatmap.h
/// Attention of the selected layer/head as a heatmap (heatmapview.h): the word matrix
/// before or after ×C (ViewState::weightedAttention), or the relation-weighted one
/// (viewcommon.h selectedAttention). The colour scale says its unit and a line under
/// the title what a row sums to — 1 for the softmax, less after ×C (not
/// renormalised) or when part of each row is elsewhere — and from what value the
/// colours saturate (the 99.5th percentile: attention is spread thin in long
/// sentences); a gated group self-attention says what its blocks are. Hover gives the
/// exact value and the row's sum.
///
/// A causal model (Analysis::causalAttention: a decoder-only language model) attends only to
/// itself and the units before it: the cells above the diagonal (column after row) are not
/// possible, not attention 0. They are left out of the map and hatched (CausalHatch,
/// plotstyle.h), a line under the title says why (causalNote, viewcommon.h), the hover says
/// so, and the colour scale's top is read from the possible cells only.
///
/// PieceHeatmap: the attention between the word pieces of a word-piece model
/// (Analysis::pieceAttention) as the model computed it, labelled with the pieces as a person
/// reads them (Analysis::pieceText when the analysis has it: " old" for GPT-2's "Ġold"; the
/// vocabulary's spelling otherwise), line breaks and lone spaces made visible.

#include <string>
#include <vector>

#include "viz/heatmapview.h"

namespace treelens {

class CausalHatch;

class AttentionHeatmap : public HeatmapView {
    Q_OBJECT
public:
    explicit AttentionHeatmap(QWidget *parent = nullptr) : AttentionHeatmap(parent, true) {}

    QString exportName() const override { return QStringLiteral("attention"); }
    /// Whether cell (r, c) is not possible (a causal model's attention to a later unit):
    /// hatched, NaN in cellValue(). For tests.
    bool notPossible(int r, int c) const;
    /// The hatching item over the map (nullptr: none, a bidirectional model's). For tests.
    const CausalHatch *causalHatch() const;

protected:
    /// `build`: draw at once; a subclass passes false and draws once its own hooks are in place.
    AttentionHeatmap(QWidget *parent, bool build);

    /// How the figure names what it shows.
    struct Wording {
        QString subject;           ///< the title's first words ("Attention")
        QString unit;              ///< what a row or column is ("token")
        bool variantInTitle = true; ///< the title names the variant (after ×C, ...)
        QString note;              ///< a last line under the title ("": none)
        QString causalUnit;        ///< what a causal model's row is, in its note ("word")
    };
    virtual Wording wording() const;

    const Matrix *currentMatrix() const override;
    Figure describe(const Matrix *m) const override;
    QString describeCell(int r, int c) const override;
    bool cellMasked(int r, int c) const override;
    void addItems(int n) override;

private:
    /// "after ×C" / "softmax before ×C", empty for models without a prior.
    QString attentionVariant() const;
};

class PieceHeatmap : public AttentionHeatmap {
    Q_OBJECT
public:
    explicit PieceHeatmap(QWidget *parent = nullptr);

    QString exportName() const override { return QStringLiteral("pieces"); }

protected:
    Wording wording() const override;
    const Matrix *currentMatrix() const override;
    /// Reads the pieces' labels (pieceText or pieces) for the axes.
    void prepareMatrix() override;
    const std::vector<std::string> &axisTokens() const override;

private:
    std::vector<std::string> m_labels; ///< the axes' labels, one per piece
};

} // namespace treelens
