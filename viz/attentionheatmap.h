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
/// PieceHeatmap: the attention between the word pieces of a word-piece model
/// (Analysis::pieceAttention) as the model computed it, labelled with the pieces.

#include <string>
#include <vector>

#include "viz/heatmapview.h"

namespace treelens {

class AttentionHeatmap : public HeatmapView {
    Q_OBJECT
public:
    explicit AttentionHeatmap(QWidget *parent = nullptr) : AttentionHeatmap(parent, true) {}

    QString exportName() const override { return QStringLiteral("attention"); }

protected:
    /// `build`: draw at once; a subclass passes false and draws once its own hooks are in place.
    AttentionHeatmap(QWidget *parent, bool build);

    /// How the figure names what it shows.
    struct Wording {
        QString subject;           ///< the title's first words ("Attention")
        QString unit;              ///< what a row or column is ("token")
        bool variantInTitle = true; ///< the title names the variant (after ×C, ...)
        QString note;              ///< a last line under the title ("": none)
    };
    virtual Wording wording() const;

    const Matrix *currentMatrix() const override;
    Figure describe(const Matrix *m) const override;
    QString describeCell(int r, int c) const override;

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
    const std::vector<std::string> &axisTokens() const override;
};

} // namespace treelens
