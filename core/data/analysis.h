#pragma once
/// \file analysis.h
/// What an encoder did with one input, in plain types (no torch): the viewers,
/// the CLI and probing read only this. Matrices are dense row-major float with
/// explicit shapes, indexed by the encoder's own units (`tokens`: word tokens,
/// with a `[CLS]`-style token first when the model has one; tree nodes for
/// recursive models). An encoder fills only the fields it emits (EncoderInfo
/// says which); empty vectors mean "not applicable".

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/data/constituencytree.h"
#include "core/data/induction.h"

namespace treelens {

/// A dense row-major float matrix.
struct Matrix {
    int rows = 0;
    int cols = 0;
    std::vector<float> data; ///< rows * cols values

    Matrix() = default;
    Matrix(int r, int c, float fill = 0.0f) : rows(r), cols(c), data(static_cast<std::size_t>(r) * c, fill) {}
    float at(int r, int c) const { return data[static_cast<std::size_t>(r) * cols + c]; }
    float &at(int r, int c) { return data[static_cast<std::size_t>(r) * cols + c]; }
    bool empty() const { return data.empty(); }
};

/// A named float array with a shape (gates and other family-specific outputs,
/// e.g. "token_gate.mean" [layers, tokens], "relation_gate.values" [layers, heads, n, n]; core/data/overlays.h).
struct NamedArray {
    std::vector<int> shape;
    std::vector<float> data;
};

/// Recursive models: how one tree node attends over its children (and, for
/// dependency composition, its parent), per head.
struct NodeAttention {
    int node = -1;
    std::vector<int> targets;                   ///< node indices attended to
    std::vector<std::vector<float>> weights;    ///< [head][target]
    // Recursive tree models (core/encoders/recursive/recursive.h) fill these too.
    int start = -1, end = -1;                   ///< the node's word span [start, end)
    int headWord = -1;                          ///< dependency trees: the token whose subtree the node is
    std::string label;                          ///< phrase label, or the head word's relation
    float norm = 0.0f;                          ///< the L2 norm of the node's state
    /// Named per-node arrays (e.g. "attn" [branch, query member, key member],
    /// "edge_fwd.attn", Tree-LSTM "gates" [5 (i, o, u, c, h), m], "f" [child, m]).
    std::map<std::string, NamedArray> arrays;
};

/// The model's induced brackets as unsupervised-parsing evaluation makes them
/// (core/eval/inductioneval.h, `treelens-cli eval-induction`): the words of the
/// sentence without punctuation (decided by the constituency tree's tags), and
/// the brackets the model induces over those words.
struct PunctuationFreeParse {
    std::vector<int> words;                     ///< indices into Analysis::words of the words kept, in order
    std::vector<std::pair<int, int>> brackets;  ///< [start, end) over the kept words, whole span omitted, sorted
    /// true: the model was run on the kept words (as eval-induction runs it);
    /// false: the brackets of the whole sentence with the punctuation taken out afterwards.
    bool rerun = false;
};

/// What a relation-aware encoder (the Dependency-Transformer) read from the tree
/// for every ordered token pair (i, j) (row i attends column j; the encoder's
/// tokens, `[root]` first): the relation id, the id's name (an arc label such as
/// `nsubj`, a distance relation `a:b`, `[self]`, `[none]`), and the tree distance
/// (a, b): arcs from i, resp. j, up to their lowest common ancestor.
struct TokenRelations {
    enum class Kind { Self, Arc, Distance, None };
    int n = 0;                                  ///< tokens
    std::vector<int> ids;                       ///< [n * n], row-major
    std::vector<std::string> names;             ///< id -> name (the model's relation vocabulary)
    std::vector<std::pair<int, int>> distance;  ///< [n * n] (a, b), row-major
    std::vector<int> levels;                    ///< [n] tree depth clipped at the model's maximum level
    int noneId = -1;                            ///< the id of `[none]` (pairs beyond the distance threshold)

    int id(int i, int j) const { return ids[static_cast<std::size_t>(i) * n + j]; }
    std::pair<int, int> dist(int i, int j) const { return distance[static_cast<std::size_t>(i) * n + j]; }
    std::string name(int i, int j) const
    {
        const int k = id(i, j);
        return k >= 0 && k < static_cast<int>(names.size()) ? names[static_cast<std::size_t>(k)] : std::to_string(k);
    }
    /// Self (i == j), Arc (one is the other's head), Distance (an infilled `a:b`
    /// pair) or None (beyond the threshold, or a distance the vocabulary lacks).
    Kind kind(int i, int j) const
    {
        const auto [a, b] = dist(i, j);
        if (a + b == 0)
            return Kind::Self;
        if (a + b == 1)
            return Kind::Arc;
        return id(i, j) == noneId ? Kind::None : Kind::Distance;
    }
};

/// A classification or scoring result for tasks with an output head.
struct Prediction {
    std::string label;
    float score = 0.0f;
    std::vector<std::string> labels;
    std::vector<float> probabilities;
};

/// What a model reads besides its words (EncoderInfo::input; every Analysis says it too).
enum class InputKind {
    Words,               ///< a word sequence (Tree Transformer, GGSA, pretrained Transformers)
    WordsWithDependency, ///< words plus a dependency tree (Dependency-Transformer, recursive dependency models)
    WordsWithConstituency///< words plus a constituency tree (Tree Aggregation Transformer, recursive constituency models)
};

/// The two kinds of tree a sentence carries.
enum class TreeKind { Dependency, Constituency };

/// Whether a model that reads `input` reads the sentence's tree of `kind`: what an edit of that
/// tree changes (the tree editor, `whatif`), what a corpus must carry before the model runs.
inline bool readsTree(InputKind input, TreeKind kind)
{
    return kind == TreeKind::Dependency ? input == InputKind::WordsWithDependency : input == InputKind::WordsWithConstituency;
}

struct Analysis {
    std::string family;                 ///< e.g. "tree-transformer": for people (titles, file names), never for decisions
    /// What the model read besides the words (the model's EncoderInfo::input).
    InputKind input = InputKind::Words;
    /// What the model is, in words, where its family's name would mislead a reader:
    /// "a plain Transformer" for a Tree Transformer with its constituent prior off.
    /// "" when the family's name says it.
    std::string architecture;
    std::vector<std::string> tokens;    ///< the model's units, as the matrices index them
    std::vector<std::string> words;     ///< the input words
    /// Index in `tokens` of each input word (word pieces → words is explicit, never assumed).
    std::vector<int> wordToken;
    int layers = 0;
    int heads = 0;

    /// attention[layer][head]: tokens×tokens, after any structural weighting
    /// (Tree Transformer: softmax ⊙ C, not renormalised).
    std::vector<std::vector<Matrix>> attention;
    /// The same before the structural weighting (plain softmax); empty if identical.
    std::vector<std::vector<Matrix>> attentionRaw;
    /// Dependency-Transformer: the softmax of the relation score S^r alone
    /// ([layer][head], tokens×tokens); `attention` is the gated combination and
    /// `attentionRaw` the plain softmax(S^e). Empty for other families.
    std::vector<std::vector<Matrix>> attentionRelation;
    /// Dependency-Transformer: the relation gate g ([layer][head], tokens×tokens,
    /// row = query token): 0 = the plain score, 1 = the relation score.
    std::vector<std::vector<Matrix>> relationGate;
    /// Dependency-Transformer: the relation matrix the model read.
    std::optional<TokenRelations> relations;
    /// constituentPrior[layer]: tokens×tokens (Tree Transformer C).
    std::vector<Matrix> constituentPrior;
    /// linkProbs[layer][k]: probability that tokens k and k+1 are in one constituent.
    std::vector<std::vector<float>> linkProbs;
    /// Brackets induced by the model over word indices [start, end), the
    /// whole-sentence span omitted, sorted; and the same as a tree over the words.
    std::vector<std::pair<int, int>> inducedBrackets;
    std::optional<ConstituencyTree> inducedTree;
    /// The unsupervised-parse settings the induced tree was made with (the
    /// model's own, EncoderInfo::induction, unless the caller chose others);
    /// unset when the encoder induces no tree.
    std::optional<InductionConfig> induction;
    /// The induced brackets as evaluation scores them (see PunctuationFreeParse);
    /// set by the app's sentence pipeline when the sentence has a constituency tree.
    std::optional<PunctuationFreeParse> withoutPunctuation;
    /// Input words (indices into `words`) the model's word vocabulary does not
    /// have: the model sees its unknown token instead (punctuation tokens are not
    /// listed). Unset when the model has no word vocabulary to check against.
    std::optional<std::vector<int>> unknownWords;

    std::map<std::string, NamedArray> gates;
    std::vector<NodeAttention> nodeAttention;

    /// Sentence embeddings: the first (`[CLS]`) token's final state and the mean
    /// of the word tokens' final states (both d_model long).
    std::vector<float> embedding;
    std::vector<float> meanEmbedding;
    /// layerStates[l]: tokens×d_model hidden states after layer l (l = 0 is the
    /// embedding layer output, l = k the output of layer k); only when requested.
    std::vector<Matrix> layerStates;

    std::optional<Prediction> prediction;
    /// What the model's family says about this analysis that a reader needs and no field
    /// shows: "no constituent prior (a plain Transformer): no link probabilities and no induced
    /// tree". One line each; the text output and the views print them.
    std::vector<std::string> notes;
    /// Sentence-pair models: attention from the first sentence to the second's
    /// tokens. One matrix per attention: rows are the first sentence's tokens, or
    /// one row when it attends from a pooled vector (GGSA's attentive composition:
    /// 1 x second-tokens weights of the question vector over the answer words).
    std::vector<Matrix> crossAttention;
    /// Word-piece models (pretrained Transformers): the pieces the tokenizer made of
    /// this sentence ("[CLS]", "re", "##d", ...), the unit of `tokens` each piece
    /// belongs to, and the attention between the pieces ([layer][head], pieces×pieces;
    /// within this sentence for one side of a pair). `attention` is the same pooled to
    /// `tokens` (Clark et al.: mean over the attending word's pieces, sum over the
    /// attended word's). Empty for models whose units are words.
    std::vector<std::string> pieces;
    std::vector<int> pieceToken;
    std::vector<std::vector<Matrix>> pieceAttention;
    /// The pieces as a person reads them (a byte-level "Ġold" as " old", byte tokens as the
    /// character they make up); empty when they read as `pieces` do.
    std::vector<std::string> pieceText;

    /// A causal model (a decoder-only language model): a unit attends only to itself and the
    /// units before it, so attention[l][h](i, j) for j > i is not possible (not zero attention).
    bool causalAttention = false;
    /// A language model's surprisal of each word in nats: -log p of the word's pieces given
    /// everything before them (the sum over its pieces); NaN where nothing predicts the word
    /// (its pieces include the sequence's first piece). Empty for a model that predicts no words.
    /// A masked language model asked for its pseudo-log-likelihood (AnalyzeOptions): -log p of
    /// each piece masked alone given all the others, summed per word.
    std::vector<double> surprisal;
    /// The same per piece (NaN for the first piece of the sequence; for a masked model NaN for
    /// the special pieces, [CLS]/[SEP]/<s>, which are never masked).
    std::vector<double> pieceSurprisal;
    /// log p of the sentence: the sum of the next-piece log-probabilities of every piece after
    /// the first (the library's sequence log-probability); for a masked model its
    /// pseudo-log-likelihood (the sum over the pieces of the sentence); unset otherwise.
    std::optional<double> logprob;
    /// Heads switched off when this analysis was made (0-based; head -1: a whole layer).
    std::vector<std::pair<int, int>> ablated;
    /// Sentence-pair models: the second sentence (answer, hypothesis) as the
    /// model's second encoder saw it, with its own tokens, attention, gates and
    /// states; empty for a single sentence. `prediction` and `crossAttention`
    /// belong to the pair and live in the first.
    std::vector<Analysis> second;
};

/// Whether the model that made `a` read the sentence's tree of `kind` (readsTree above).
inline bool readsTree(const Analysis &a, TreeKind kind) { return readsTree(a.input, kind); }

} // namespace treelens
