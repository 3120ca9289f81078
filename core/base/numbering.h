#pragma once
/// \file numbering.h
/// How TreeLens numbers layers, heads and words where a person reads or types
/// them (docs/cli.md, "Numbering"): encoder layers 1..L and heads 1..H, as the
/// app's View dock counts them; the input of the first encoder layer is named
/// "embeddings", never layer 0; a span of words as a person counts them,
/// "words 3–13" (first and last word, from 1).
///
/// Inside TreeLens — Analysis matrices, the probing reports' typed values, the
/// model file's treelens.config ("induction": start_layer, min_layer) — layers,
/// heads and words are 0-based indices and spans are half-open [start, end);
/// these helpers are where the two meet.

#include <string>

#include "core/base/result.h"

namespace treelens {

/// The name of the layer below the first encoder layer (what a probe reads at
/// "layer 0" of the layer states) in everything a person reads or types.
inline constexpr const char *kEmbeddingsLayerName = "embeddings";

/// A probed layer (0 = the embeddings, k = the output of encoder layer k) as a
/// person reads it: "embeddings" or "k".
std::string probedLayerName(int probedLayer);

/// The span [start, end) of 0-based word indices as a person counts it: "words
/// 3–13" (an en dash between the first and the last word, from 1); "word 3" for
/// one word.
std::string wordSpanText(int start, int end);

/// A layer number a person typed, "1".."layers", as its 0-based index. Errors
/// (no prefix; the caller names the setting) say why: "layer 0: layers are
/// numbered from 1 (1..4)", "layer 7: the model has 4 layers (1..4)",
/// "'x' is not a layer number".
Result<int> parseLayerNumber(const std::string &text, int layers);

} // namespace treelens
