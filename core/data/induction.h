#pragma once
/// \file induction.h
/// Unsupervised constituency parsing from per-layer link probabilities: the
/// official Tree Transformer's top-down greedy algorithm (parse.py build_tree),
/// torch-free so it can be tested and reused on any link table.

#include <string>
#include <utility>
#include <vector>

#include "core/base/result.h"
#include "core/data/constituencytree.h"

namespace treelens {

/// The parse settings. Layers are 0-based indices here and in toJson/fromJson,
/// the model file's treelens.config "induction" object (a file-format contract:
/// {"start_layer": -1, "min_layer": 2, ...} is the official setting "start at
/// the top, never below the third layer"). What a person reads numbers layers
/// from 1 (core/base/numbering.h): toNumberedJson and text().
struct InductionConfig {
    int startLayer = -1;       ///< 0-based layer to start at; -1 = the top layer
    int minLayer = 2;          ///< 0-based: never descend below this layer (official: 2, the third layer)
    double threshold = 0.8;    ///< a span whose weakest link is above this is not split here
    double descend = 0.7;      ///< a side whose links are all above this recurses one layer lower

    /// Errors name the treelens.config keys and their 0-based values.
    Status validate(int layers) const;
    /// The defaults for a model of `layers` layers (the minimum layer lowered to fit).
    static InductionConfig defaultsFor(int layers);
    /// treelens.config's "induction" object: 0-based layers, -1 = the top.
    std::string toJson() const;
    static Result<InductionConfig> fromJson(const std::string &json);
    /// The settings as a person reads them (eval-induction --json, tune-induction,
    /// probe reports): the same keys with layers numbered from 1, the top start
    /// written as the top layer's number (`layers`).
    std::string toNumberedJson(int layers) const;
    /// The inverse of toNumberedJson: layer numbers from 1 back to 0-based indices.
    static Result<InductionConfig> fromNumberedJson(const std::string &json);
    /// "start at layer 4 (the top), minimum layer 3, threshold 0.80, descent rule 0.70".
    std::string text(int layers) const;
};

/// links[layer][k] links word k and word k+1 (n_words - 1 per layer).
/// Returns the brackets [start, end) over word indices, sorted and unique,
/// without the whole-sentence span; none for fewer than 2 words.
/// Follows the official code exactly, including: the first weakest link wins
/// ties; the layer stays clamped at minLayer; at minLayer an unsplittable span
/// becomes one flat bracket; a one-link span is a 2-word bracket.
std::vector<std::pair<int, int>> induceBrackets(const std::vector<std::vector<float>> &links,
                                                const InductionConfig &config = {});

/// Builds a tree over the words from nested brackets (labels "X", preterminal
/// "W"); brackets must be properly nested (as induceBrackets' are).
ConstituencyTree bracketsToTree(const std::vector<std::string> &words,
                                const std::vector<std::pair<int, int>> &brackets);

/// Left- and right-branching and uniformly random binary bracketings (baselines).
std::vector<std::pair<int, int>> leftBranchingBrackets(int words);
std::vector<std::pair<int, int>> rightBranchingBrackets(int words);
std::vector<std::pair<int, int>> randomBinaryBrackets(int words, unsigned seed);

} // namespace treelens
