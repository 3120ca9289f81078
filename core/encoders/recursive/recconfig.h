#pragma once
/// \file recconfig.h
/// The recursive tree models of the thesis in seed 004 (Ahmed, chapters 4, 8
/// and 9; the reference fixture's README `recursive-tree-transformer-reference`
/// is the specification, its section numbers are cited as §N): the recursive
/// Tree Transformer on constituency trees (CTT), on dependency trees (DTT) and on
/// dependency trees with edge labels (DTT + edges), and the Tree-LSTM with
/// attention over the children (Child-Sum on dependency trees, binary on
/// binarized constituency trees). Their hyper-parameters and the trees they
/// compose over. Torch-free; the views and tests read it too.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/base/result.h"
#include "core/data/constituencytree.h"
#include "core/data/dependencytree.h"

namespace treelens {

/// Which of the five models; the values are the fixture's tensor prefixes.
enum class RecModel { Ctt, Dtt, Dtte, TreeLstmChildSum, TreeLstmBinary };

/// "ctt", "dtt", "dtte", "treelstm.cs", "treelstm.bin".
const char *recModelName(RecModel model);
Result<RecModel> recModelFromName(const std::string &name);

/// Hyper-parameters; the fixture's config.json names in comments.
struct RecConfig {
    RecModel model = RecModel::Dtte;
    int vocab = 27;            ///< rows of embed.word.weight
    int dModel = 12;           ///< tree_transformer.d_model = the word-vector size (treelstm.in_dim)
    int branches = 3;          ///< n_branches (= heads)
    int dK = 4;                ///< d_k = d_v
    int dFF = 14;              ///< d_ff of each branch's PCNN
    int memDim = 10;           ///< treelstm.mem_dim
    int headHidden = 8;        ///< head.hidden_dim
    double lnEps = 1e-5;       ///< layer_norm_eps
    /// The dependency relations (index = id of the edge-label vector; the fixture's
    /// "dependency_relations", UD v1 there). Only DTT + edges reads them.
    std::vector<std::string> relations;
    /// DTT + edges: the order of [q; y; x] in the forward and backward edge
    /// (Eq. 9.2, §12 choice 13): a permutation of "qyx".
    std::string edgeForward = "qyx";
    std::string edgeBackward = "qxy";
    /// Tree Transformers: the composition function (Table 8.3's ablation): "multi-branch"
    /// (§3, the thesis's), "multi-head" (heads concatenated, Eq. 9.4: n_branches · d_k =
    /// d_model) or "single-head" (one head, d_k = d_model).
    std::string composition = "multi-branch";
    /// Tree Transformers: sinusoidal positional encoding of each member's place in its
    /// set (the head word 0, then the children) added to the composition's input (Table
    /// 8.2's ablation; off in the thesis's reported models and the fixture).
    bool positional = false;
    /// Training only: dropout on each branch's PCNN output (the thesis's 0.1) and on the head's input.
    double dropout = 0.0;
    /// Tree-LSTM: where the attention's query comes from, "cross" (the other
    /// sentence's sequential-LSTM vector, Table 4.2 "Sentence 2") or "self" (the children).
    std::string query = "cross";
    /// "relatedness" (a pair, 5 classes 1..5, score Σ i·p_i; §8), "pair-classification"
    /// (a pair, `classes`, the same head) or "classification" (one sentence: a
    /// sigmoid hidden layer on the root vector, then the classes).
    std::string task = "relatedness";
    std::vector<std::string> classes{"1", "2", "3", "4", "5"};

    bool treeLstm() const { return model == RecModel::TreeLstmChildSum || model == RecModel::TreeLstmBinary; }
    bool dependency() const { return model == RecModel::Dtt || model == RecModel::Dtte || model == RecModel::TreeLstmChildSum; }
    bool pair() const { return task != "classification"; }
    bool multiBranch() const { return composition == "multi-branch"; }
    /// The size of a root vector (D of §8): d, 2d for DTT + edges, m for the Tree-LSTMs.
    int rootDim() const;
    /// The tensor-name prefix ("dtte.").
    std::string prefix() const { return std::string(recModelName(model)) + "."; }

    Status validate() const;
    /// The native form ({"model": "dtte", "d_model": 12, ...}).
    std::string toJson() const;
    static Result<RecConfig> fromJson(const std::string &text);
    /// The fixture's config.json ("tree_transformer", "treelstm", "head",
    /// "vocab", "dependency_relations") for one of its sub-models.
    static Result<RecConfig> fromFixtureJson(const std::string &text, RecModel model);
};

/// One member of a composition: a word (its index in the sentence) or an internal node (its id).
struct RecChild {
    bool node = false;
    int index = 0;
};

/// One internal node: a phrase (constituency) or a token with dependents (dependency).
struct RecNode {
    std::string label;                 ///< phrase label ("@VP" for a binarization dummy); dependency: the head word's relation
    bool dummy = false;                ///< a node added by binarization
    int headWord = -1;                 ///< dependency: the token t whose subtree this is (the parent row, p_v)
    std::vector<RecChild> children;    ///< left to right (dependents in increasing token order)
    std::vector<int> relations;        ///< dependency, with a relation table: the relation id of each child's arc
    std::vector<std::string> relationLabels; ///< dependency: the label of each child's arc
    int start = 0, end = 0;            ///< word span [start, end)
    int parent = -1;                   ///< node id, -1 for the root
    int height = 1;                    ///< 1 + the largest height of a node child; 1 when all children are words
};

/// The tree a recursive model composes over: internal nodes in post-order
/// (children before the node, left to right), the root last (§2).
struct RecTree {
    int words = 0;
    bool dependency = false;
    std::vector<RecNode> nodes;
    std::vector<int> tokenNode;        ///< dependency: the node id of each token, -1 for a token without dependents
    int rootWord = -1;                 ///< the root when it is a word (a one-word sentence, or the dependency root token)
    int height() const;                ///< of the root (0 when the root is a word)
};

/// Limits a tree must keep (bad input: §"Bad input" of the issue).
struct RecTreeLimits {
    int maxChildren = 512;
    int maxHeight = 4096;
};

/// The n-ary tree of §2: the outer ROOT/unlabelled wrapper dropped, preterminals
/// as word leaves, unary phrasal nodes collapsed (a phrase over a phrase gets
/// "UPPER+LOWER"), traces skipped. With `binarize`, left-factored: X(c1..ck), k > 2,
/// becomes X((…(@X(c1, c2), c3)…), ck). Iterative. Errors: no words, a word not
/// covered or covered twice (the leaves must be the words 0..n-1 in order),
/// more children or levels than `limits`.
Result<RecTree> constituencyRecTree(const ConstituencyTree &tree, bool binarize, const RecTreeLimits &limits = {});

/// The dependency tree of §2: every token with dependents is a node (post-order:
/// dependents in increasing token order, recursively, then the head); its members
/// are the head word and its dependents. `relations` (may be empty) gives the
/// relation ids: an arc label outside it is an error naming the token. Errors also
/// for cycles, several roots, heads out of range (DependencyTree::validate). Iterative.
Result<RecTree> dependencyRecTree(const DependencyTree &tree, const std::vector<std::string> &relations,
                                  const RecTreeLimits &limits = {});

/// The tree `config`'s model composes over, from an input's trees (dependency: DTT, DTT + edges
/// with its relation table, Child-Sum Tree-LSTM; constituency: CTT n-ary, binary Tree-LSTM
/// binarized), checked to cover the sentence's `words`. Errors start with `where`.
Result<RecTree> recTreeFor(const RecConfig &config, std::size_t words, const DependencyTree *dependency,
                           const ConstituencyTree *constituency, const std::string &where);

/// The relation id of a UD label in `relations`: the label itself, else its
/// universal part before ':' ("nmod:poss" -> "nmod"); -1 when neither is listed.
int recRelationId(const std::vector<std::string> &relations, const std::string &label);

/// The 37 universal dependency relations of UD v2 (sorted): the edge-label table of the
/// DTT + edges models trained here starts from them, so that every label the parser can give
/// has a (frozen, Eq. 9.1) vector even when the training sentences never had it.
std::vector<std::string> udV2Relations();

} // namespace treelens
