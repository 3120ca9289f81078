#pragma once
/// \file tatconfig.h
/// The Tree Aggregation Transformer (seed 000, Mrini et al. 2021; the reference
/// fixture's README is the specification): its hyper-parameters and the node
/// table it builds from a constituency tree (README §1: phrasal brackets only,
/// post-order, level = depth from the root, children = words and phrasal
/// sub-brackets left to right). Torch-free; views and tests read it too.

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/base/result.h"
#include "core/data/constituencytree.h"
#include "core/data/phraseorder.h"

namespace treelens {

/// Hyper-parameters; the names of the fixture's config.json in comments.
struct TatConfig {
    // The language-model stand-in (README §2), "lm".
    int lmVocab = 41;          ///< vocab_size
    int lmDModel = 20;         ///< d_model
    int lmLayers = 1;          ///< n_layers
    int lmHeads = 2;           ///< n_heads
    int lmDFF = 40;            ///< d_ff
    int lmMaxPositions = 64;   ///< max_positions
    double lnEps = 1e-5;       ///< layer_norm_eps
    // The recursive layer (README §3-5), "tat".
    int dSem = 16;             ///< d_sem
    int dSyn = 16;             ///< d_syn
    int dSynEmb = 12;          ///< d_syn_emb
    int heads = 2;             ///< n_heads (per stream)
    int dFFSem = 32;           ///< d_ff_sem
    int dFFSyn = 32;           ///< d_ff_syn
    int tags = 71;             ///< n_tags
    int maxSpanPositions = 16; ///< max_span_positions: children + 2 per node
    int maxLevels = 16;        ///< max_levels: tree depth + 1
    int classes = 2;           ///< the classifier's classes [irrelevant, relevant]
    // Variants of models trained here (not in the fixture's config.json; the defaults are the paper's).
    /// "both" (the paper's) or "semantic": the syntactic stream left out (the
    /// Table 3 ablation): no tat.*syn* / tag / position / level tensors, and eq. (9)
    /// reads [w^e_q; w^e_s].
    std::string streams = "both";
    /// What the prediction reads: "tree" (eq. 9, tanh of the root vectors),
    /// "residual" (the CLS-residual variant, the LM's <s> output prepended) or
    /// "sequential" (the LM's <s> output alone: the sequential model of the same
    /// size, no tat.* tensors and classifier cls_seq).
    std::string head = "tree";
    double dropout = 0.0;      ///< training only: LM embeddings, attention and FFN outputs, classifier input
    bool syntactic() const { return streams == "both"; }
    bool sequential() const { return head == "sequential"; }
    int rootDim() const { return dSem + (syntactic() ? dSyn : 0); } ///< one side's root vector [w^e; w^n]
    int padId = 0, bosId = 1, sepId = 2, unkId = 3;

    Status validate() const;
    /// The native form ({"lm": {...}, "tat": {...}, "n_classes", ...}).
    std::string toJson() const;
    /// Reads the native form or the fixture's config.json (the same "lm"/"tat" objects).
    static Result<TatConfig> fromJson(const std::string &text);
};

/// One child of a node: a word (index in the sentence) or a phrasal node (id in the table).
struct TatChild {
    bool node = false;
    int index = 0;
};

/// One phrasal node (README §1).
struct TatNode {
    std::string label;
    int tag = -1;            ///< id of the label in the tag inventory
    int level = 0;           ///< depth: root 0
    int start = 0, end = 0;  ///< word span [start, end)
    int parent = -1;         ///< node id, -1 for the root
    std::vector<TatChild> children;
    int length() const { return static_cast<int>(children.size()) + 2; } ///< L_v = k + 2
};

/// The tag inventory (POS tags and phrase labels in one table, README §3).
class TatTags {
public:
    static Result<TatTags> fromLabels(std::vector<std::string> labels, const std::string &where);
    const std::vector<std::string> &labels() const { return m_labels; }
    /// The id of a POS tag or phrase label; a label with a function tag or index
    /// ("NP-SBJ-1", "PP=2") falls back to its base ("NP", "PP"); -1 when unknown.
    int id(const std::string &label) const;

private:
    std::vector<std::string> m_labels;
    std::map<std::string, int> m_index;
};

/// The size of the models trained here (docs/tree-aggregation-transformer.md): an
/// LM of 4 layers × 128 (4 heads, FFN 512, 256 positions) over `vocabSize` tokens, a
/// TAT with d_sem = d_syn = 64, d_syn_emb 32, 4 heads per stream, FFN 128, 64 span
/// positions, 48 levels, the treelensTatTags() inventory, dropout 0.1 while training.
TatConfig treelensTatConfig(int vocabSize);

/// The standard Penn Treebank inventory in the fixture's order: the 45 POS tags,
/// then the 26 phrase labels (71 tags).
std::vector<std::string> pennTreebankTags();
/// The inventory of models trained here: pennTreebankTags() and the six UD English
/// EWT XPOS tags the shipped tagger also gives (HYPH, NFP, ADD, AFX, GW, XX).
std::vector<std::string> treelensTatTags();


/// The node table of a tree (README §1) in post-order, with the words' tag ids.
/// Errors: an empty tree, a word or node label outside the inventory, a node with
/// more than `maxSpanPositions` - 2 children, a tree deeper than `maxLevels` - 1.
/// Iterative (no recursion): a 1,000-level tree is no stack risk.
struct TatTree {
    std::vector<TatNode> nodes;
    std::vector<int> wordTags;  ///< tag id of each word
    int maxLength() const;      ///< the largest L_v
};
Result<TatTree> tatTree(const ConstituencyTree &tree, const TatTags &tags, const TatConfig &config);

} // namespace treelens
