#pragma once
/// \file heatmaplabels.h
/// What the heatmaps (heatmapview.h and its kinds) and the heads overview
/// (attentionoverview.h) write alike: token labels on their axes and in hover texts,
/// the attention colour scale's label and the note under the title, and where that
/// scale saturates.

#include <string>
#include <vector>

#include <QString>

namespace treelens {

/// Token `i` as an axis label: cut to 14 characters so one long word piece cannot eat
/// the plot; the 1-based position when `i` is not a token.
QString tokenLabel(const std::vector<std::string> &tokens, int i);
/// Token `i` whole (hover texts); the 1-based position when `i` is not a token.
QString fullToken(const std::vector<std::string> &tokens, int i);

/// What the attention colours measure, short enough for the colour scale (a long label
/// ran past both ends of the bar): after ×C (`afterC`) or the softmax's weights.
QString attentionScaleLabel(bool afterC);
/// The line under the title that says the rest: what a row sums to (1 for the softmax,
/// less after ×C, which is not renormalised, or when `rowsWhole` is false: a part of
/// each row is elsewhere, e.g. a word-piece model's special tokens folded away or the
/// other sentence of a pair), whether the scale is `shared` by every map, and the
/// value from which colours saturate (`upper` < 1).
QString attentionScaleNote(bool afterC, double upper, bool shared, bool rowsWhole = true);

/// The top of an attention colour scale for `values`: their 99.5th percentile rounded
/// up to 0.05, in [0.05, 1]; 1 without values. Attention rows sum to at most 1, so in
/// long sentences every weight is small and a fixed 0..1 scale leaves the map dark;
/// larger values saturate.
double attentionScaleTop(std::vector<float> values);

} // namespace treelens
