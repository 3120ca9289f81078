#pragma once
/// \file phraseorder.h
/// The phrases of a constituency tree in post-order: the order in which a model
/// that composes a tree bottom-up (the Tree Aggregation Transformer, README §1 of
/// its fixture) numbers its nodes, and in which a view finds the bracket of such
/// a node id. Torch-free.

#include <utility>
#include <vector>

#include "core/data/constituencytree.h"

namespace treelens {

/// The phrasal nodes of `tree` in post-order from the content root, children left
/// to right, as (tree node index, level = depth below the content root). A phrasal
/// node is neither a terminal nor a preterminal and covers a word. None when the
/// content root is not phrasal. Iterative.
std::vector<std::pair<int, int>> phrasePostOrder(const ConstituencyTree &tree);

} // namespace treelens
