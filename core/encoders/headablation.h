#pragma once
/// \file headablation.h
/// One attention head switched off (head ablation), torch-free: what AnalyzeOptions and
/// ExplainOptions carry.

namespace treelens {

/// Zero ablation of a head: its output (the attention-weighted sum of its values) replaced by
/// zeros before the layer's output projection, everything else as usual. 0-based here; people
/// count from 1 (core/base/numbering.h converts at the boundary).
struct HeadAblation {
    int layer = 0;
    int head = -1;                ///< -1: every head of the layer
    bool operator==(const HeadAblation &o) const { return layer == o.layer && head == o.head; }
};

} // namespace treelens
