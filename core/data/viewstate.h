#pragma once
/// \file viewstate.h
/// The selection over one Analysis that every view shows: layer, head, attention
/// before or after ×C, focus word, threshold. A plain value type: the session's
/// AnalysisDocument holds the current one (and clamps it to the analysis' shape),
/// the views draw with it (viz/viewcommon.h), exports read it.

namespace treelens {

/// The selection shared by all views. Layers and heads are 0-based here; the UI
/// shows them 1-based. Word indices are 0-based positions in Sentence::tokens.
struct ViewState {
    int layer = 0;
    int head = 0;
    /// true: attention after the structural weighting (Tree Transformer: softmax ⊙ C);
    /// false: the plain softmax (Analysis::attentionRaw, falls back to attention when empty).
    bool weightedAttention = true;
    /// The word whose outgoing attention is shown on trees (-1: none / whole matrix).
    int focusWord = -1;
    /// Attention arcs / merges below this value are not drawn.
    double threshold = 0.1;
    /// (Last, so aggregate initialisers of the fields above stay valid.)
    /// Dependency-Transformer: the relation attention softmax(S^r)
    /// (Analysis::attentionRelation) instead; takes precedence over weightedAttention
    /// when the analysis has it, ignored otherwise.
    bool relationAttention = false;
    /// Tree Aggregation Transformer: the level-by-level aggregation shown up to this
    /// 1-based step (step 1 = the deepest level, the last step = the root); 0 = all
    /// done. Views of other families ignore it.
    int aggregationStep = 0;

    bool operator==(const ViewState &o) const
    {
        return layer == o.layer && head == o.head && weightedAttention == o.weightedAttention
            && relationAttention == o.relationAttention && aggregationStep == o.aggregationStep
            && focusWord == o.focusWord && threshold == o.threshold;
    }
    bool operator!=(const ViewState &o) const { return !(*this == o); }
};

} // namespace treelens
