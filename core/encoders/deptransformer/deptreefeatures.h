#pragma once
/// \file deptreefeatures.h
/// The Dependency-Transformer's inputs from a dependency tree (seed 003; the
/// reference fixture's README, section 1): the `[root]` token as node 0, tree
/// depths and clipped levels, the (a, b) distances of every ordered pair to
/// their lowest common ancestor, and the relation matrix with infilling (`[self]`
/// on the diagonal, the arc label for adjacent nodes in both directions, `a:b`
/// for a + b <= T, `[none]` beyond). Torch-free; the views read it too.

#include <cstddef>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/base/result.h"
#include "core/data/dependencytree.h"

namespace treelens {

/// The relation vocabulary: index = relation id.
class RelationVocabulary {
public:
    /// Needs "[pad]", "[none]" and "[self]"; labels may repeat nowhere.
    static Result<RelationVocabulary> fromLabels(std::vector<std::string> labels, const std::string &where);
    int size() const { return static_cast<int>(m_labels.size()); }
    const std::string &label(int id) const { return m_labels[static_cast<std::size_t>(id)]; }
    const std::vector<std::string> &labels() const { return m_labels; }
    int noneId() const { return m_none; }
    int selfId() const { return m_self; }
    int padId() const { return m_pad; }
    /// The id of an arc label: the label, else its base ("nmod:xyz" -> "nmod"), else "dep", else [none].
    int arcId(const std::string &deprel) const;
    /// The id of the distance relation "a:b", or [none] when the vocabulary lacks it.
    int distanceId(int a, int b) const;

private:
    std::vector<std::string> m_labels;
    std::map<std::string, int> m_index;
    int m_pad = 0, m_none = 1, m_self = 2;
};

/// Everything the model takes from one tree; n1 = words + 1 (the [root] token first).
struct DepTreeFeatures {
    int n1 = 0;
    std::vector<int> depth;                      ///< [n1]: arcs up to ROOT ([root] 0)
    std::vector<int> levels;                     ///< [n1]: min(depth, maxLevel)
    std::vector<std::pair<int, int>> distance;   ///< [n1 * n1]: (a, b) of (i, j), row-major
    std::vector<int> relations;                  ///< [n1 * n1]: relation ids, row-major
    int relation(int i, int j) const { return relations[static_cast<std::size_t>(i) * n1 + j]; }
};

/// The model's hyper-parameters (the fixture's config.json names in comments).
struct DepTransformerConfig {
    int layers = 3;          ///< n_layers
    int heads = 3;           ///< n_heads
    int dModel = 30;         ///< d_model
    int dFF = 40;            ///< d_ff
    int dRel = 8;            ///< d_rel
    int maxRelDist = 3;      ///< max_rel_dist (T)
    int maxLevel = 8;        ///< max_level
    int maxLen = 32;         ///< max_len: position table rows (words + 1)
    double lnEps = 1e-5;     ///< layer_norm_eps
    int vocabSize = 0;
    int relations = 0;       ///< n_relations
    int classes = 2;         ///< n_classes (sentence classifier)
    int pairClasses = 3;     ///< n_pair_classes
    int pairHidden = 16;     ///< pair_hidden
    int padId = 0, unkId = 1, rootId = 2;
    // The ablation variants (Table 3): the full model has all three.
    bool levelEmbedding = true;
    bool relationAttention = true;
    bool gate = true;

    int dHead() const { return heads > 0 ? dModel / heads : 0; }
    Status validate() const;
    std::string toJson() const;
    static Result<DepTransformerConfig> fromJson(const std::string &text);
};

/// The features of `tree` (validated: one root, no cycles). `maxDistance` = T.
Result<DepTreeFeatures> depTreeFeatures(const DependencyTree &tree, const RelationVocabulary &relations,
                                        int maxDistance, int maxLevel);

} // namespace treelens
