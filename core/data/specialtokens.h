#pragma once
/// \file specialtokens.h
/// A word-piece model's special tokens ([CLS], [SEP], <s>, </s>) are units of their
/// own in its analysis (Clark et al. 2019 found whole heads resting on [SEP]); the
/// user may fold them away instead. Folding drops their rows and columns from the
/// word-level matrices; the rows are not renormalised, so a row shows the share of
/// the word's attention that went to the other words (what went to [CLS] or [SEP] is
/// left out, not spread over the words). Torch-free.

#include "core/data/analysis.h"

namespace treelens {

/// Whether `a` is a word-piece model's analysis with special units to fold (units no
/// input word maps to, beside its pieces).
bool hasFoldableSpecialTokens(const Analysis &a);

/// `a` (and each side of a pair) without its special units: removed from `tokens`,
/// the rows and columns of `attention`, the rows of `layerStates`; `wordToken`
/// renumbered; `pieceToken` of a special piece set to -1 (the pieces view keeps them).
/// An analysis without foldable special tokens is returned as it is.
Analysis foldSpecialTokens(const Analysis &a);

} // namespace treelens
