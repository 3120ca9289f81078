#pragma once
/// \file hfarchitecture.h
/// The architectures of the pretrained-Transformer family, one table entry per Hugging Face
/// `model_type` (the way llama.cpp adds an architecture: an entry, a tensor-name table, a
/// block function). An entry says how the library spells the configuration's keys, which
/// tensors the model has under which names and shapes, where its norms sit and what kind
/// they are, how positions enter, how the attention projections are laid out, what the MLP
/// computes, which heads it may carry and what its special tokens are. The config reader
/// (hfconfig), the weight loader (hfconfig) and the network (hfnet) read the entry; none of
/// them names a model type. Adding an architecture is an entry in hfarchitecture.cpp and,
/// when no block function computes it yet, one in hfnet.cpp (docs/architecture.md, "Adding an
/// architecture to the pretrained family"). Torch-free.

#include <cstdint>
#include <string>
#include <vector>

namespace treelens {

/// What a tensor (or a module of weight + bias) does in the network.
enum class HfRole {
    TokenEmbedding,    ///< [vocab, hidden]
    PositionEmbedding, ///< [positions, hidden] (learned positions)
    TypeEmbedding,     ///< [token types, hidden]
    EmbeddingNorm,     ///< [hidden], after the embeddings (BERT)
    AttentionNorm,     ///< [hidden]: before the attention (pre-norm) or after its residual (post-norm)
    Query,             ///< [heads * head_dim, hidden]
    Key,               ///< [kv_heads * head_dim, hidden]
    Value,             ///< [kv_heads * head_dim, hidden]
    QueryKeyValue,     ///< the three fused (HfQkvLayout)
    QueryNorm,         ///< [head_dim], a norm over each query head (Qwen3)
    KeyNorm,           ///< [head_dim]
    AttentionOutput,   ///< [hidden, heads * head_dim]
    MlpNorm,           ///< [hidden]: before the MLP (pre-norm) or after its residual (post-norm)
    MlpUp,             ///< [intermediate, hidden]
    MlpGate,           ///< [intermediate, hidden] (gated MLPs)
    MlpDown,           ///< [hidden, intermediate]
    FinalNorm,         ///< [hidden], after the last block (pre-norm models)
    LmHead,            ///< [vocab, hidden], no bias; absent when tied to the token embedding
    Pooler,            ///< [hidden, hidden], tanh(W h[first] + b) (BERT's pooler)
    Classifier,        ///< [classes, hidden] on the pooled output
    ClassifierDense,   ///< [hidden, hidden] on h[first], then tanh (RoBERTa's head)
    ClassifierOut,     ///< [classes, hidden] after ClassifierDense
    MlmDense,          ///< [hidden, hidden]: the masked-LM head's transform (then the activation and MlmNorm)
    MlmNorm,           ///< [hidden], the masked-LM head's LayerNorm
    MlmDecoder,        ///< [vocab, hidden] (+ an optional bias): absent when tied to the token embedding
    MlmBias,           ///< [vocab]: the masked-LM head's output bias (HfParts::BiasOnly)
};

/// Which of its tensors a role's module has.
enum class HfParts { Weight, WeightBias, BiasOptional, BiasOnly };

/// One role's module name; "{L}" stands for the layer number. The tensors are NAME.weight and
/// NAME.bias (HfParts), after the architecture's prefix is taken off.
struct HfTensorName {
    HfRole role;
    std::string name;
    HfParts parts = HfParts::WeightBias;
};

enum class HfNormKind {
    LayerNorm,         ///< (x - mean) / sqrt(var + eps) * w + b, the biased variance
    RmsNorm,           ///< w * x / sqrt(mean(x^2) + eps)
    RmsNormPlusOne     ///< (1 + w) * x / sqrt(mean(x^2) + eps): the stored w is an offset (Gemma)
};

/// Where a block's norms sit, which is the block function that computes it (hfnet.cpp).
enum class HfBlock {
    PostNorm,          ///< x = N1(x + attn(x)); x = N2(x + mlp(x))  (BERT, RoBERTa)
    PreNorm,           ///< x = x + attn(N1 x); x = x + mlp(N2 x)    (GPT-2, Llama, Qwen, Gemma)
    ParallelPreNorm    ///< x = x + attn(N1 x) + mlp(N2 x)           (GPT-NeoX with use_parallel_residual)
};

enum class HfPositions {
    Learned,           ///< a learned table indexed 0..T-1
    LearnedAfterPadding, ///< a learned table indexed from pad_token_id + 1 (RoBERTa)
    Rotary             ///< rotary embedding of q and k (rotate_half pairing i with i + r/2)
};

enum class HfQkvLayout {
    Separate,          ///< Query, Key, Value modules
    FusedConv1D,       ///< QueryKeyValue stored [hidden, 3 * hidden] = [q | k | v] columns (GPT-2 Conv1D)
    FusedPerHead       ///< QueryKeyValue stored [3 * hidden, hidden], per head [q_h | k_h | v_h] (GPT-NeoX)
};

enum class HfMlp {
    Dense,             ///< down(act(up(x)))
    Gated              ///< down(act(gate(x)) * up(x))
};

enum class HfMask {
    Bidirectional,     ///< every piece attends to every piece (padding masked)
    Causal             ///< piece i attends to pieces 0..i only
};

/// The sequence-classification heads an architecture may carry (decided once, by the tensors).
enum class HfClassifier {
    None,
    PooledLinear,      ///< Classifier on the pooler's output (BERT)
    DenseTanhOut       ///< ClassifierDense, tanh, ClassifierOut on h[first] (RoBERTa)
};

/// How the configuration's quantities are spelled in config.json. Each list is tried in order
/// (the first key present and not null wins); "a.b" is key b of object a.
struct HfConfigKeys {
    std::vector<std::string> vocab{"vocab_size"};
    std::vector<std::string> hidden{"hidden_size"};
    std::vector<std::string> layers{"num_hidden_layers"};
    std::vector<std::string> heads{"num_attention_heads"};
    std::vector<std::string> kvHeads;          ///< empty or absent: = heads
    std::vector<std::string> headDim;          ///< empty or absent: hidden / heads
    std::vector<std::string> intermediate{"intermediate_size"};
    int intermediateFactor = 0;                ///< absent or null intermediate: factor * hidden (0: required)
    std::vector<std::string> maxPositions{"max_position_embeddings"};
    bool maxPositionsRequired = true;
    std::vector<std::string> typeVocab;        ///< empty: no token types
    std::vector<std::string> activation{"hidden_act"};
    std::string defaultActivation = "gelu";
    std::vector<std::string> normEps{"layer_norm_eps"};
    double defaultNormEps = 1e-12;
    std::vector<std::string> ropeTheta;        ///< rotary base
    double defaultRopeTheta = 10000.0;
    std::vector<std::string> rotaryFraction;   ///< the share of head_dim that rotates
    double defaultRotaryFraction = 1.0;
    std::vector<std::string> tieHead{"tie_word_embeddings"};
    bool defaultTiedHead = false;
    /// A boolean choosing ParallelPreNorm (true) or PreNorm (false) (GPT-NeoX's use_parallel_residual);
    /// absent: the entry's block.
    std::vector<std::string> parallelResidual;
    /// Rope scaling ("rope_parameters" or "rope_scaling" with "rope_type"/"type"): default, linear
    /// and llama3 are computed; another type is refused by name.
    std::vector<std::string> ropeScaling;
    /// Whether a sliding window is on (Mistral/Qwen "use_sliding_window") and its width: a
    /// model with a window is computed with full causal attention for inputs up to the window,
    /// and longer inputs are refused (nothing this build reads needs the window).
    std::vector<std::string> slidingWindowOn, slidingWindow;
    /// The activation is read from the first key present only in configs written by transformers 4
    /// ("transformers_version" 4.x; Gemma's "hidden_activation", null = the default activation).
    std::vector<std::string> activationV4;
};

struct HfArchitecture {
    std::string modelType;                     ///< config.json's "model_type"
    std::string displayName;                   ///< "BERT", "GPT-2": what a person calls it
    /// The library's classes for this model type (config.json's "architectures" names one).
    std::vector<std::string> classes;
    /// Prefixes the library puts before the base model's tensors ("bert.", "transformer."),
    /// taken off when the weights are read; a tensor is found with or without them.
    std::vector<std::string> prefixes;
    std::vector<HfTensorName> tensors;         ///< the tensor-name table
    /// Tensors of the folder this build does not use (a masked-LM head, buffers): name
    /// prefixes and suffixes of whole dot-separated components (after the model prefix is taken
    /// off), reported in a note.
    std::vector<std::string> unusedPrefixes, unusedSuffixes;
    HfConfigKeys keys;
    HfMask mask = HfMask::Bidirectional;
    HfBlock block = HfBlock::PostNorm;
    HfNormKind norm = HfNormKind::LayerNorm;
    HfPositions positions = HfPositions::Learned;
    HfQkvLayout qkv = HfQkvLayout::Separate;
    HfMlp mlp = HfMlp::Dense;
    bool embeddingScaled = false;              ///< x = embed(ids) * sqrt(hidden), rounded to float32 (Gemma)
    /// Attention scores divided by sqrt(head_dim) (GPT-2) instead of multiplied by head_dim^-0.5.
    bool scoreDivides = false;
    /// Linear modules stored [in, out] (y = x W + b: GPT-2's Conv1D) instead of [out, in].
    bool conv1d = false;
    bool languageModel = false;                ///< a causal LM: logits over the vocabulary (LmHead or tied)
    /// The masked-LM head's activation (RoBERTa's lm_head: always the exact gelu); "" = the
    /// config's hidden activation (BERT's BertPredictionHeadTransform).
    std::string mlmActivation;
    /// The encoder's special-token rule: every sequence starts with a special token of its own
    /// ([CLS], <s>) that the pooler and the classifier read (hasClsToken).
    bool firstTokenPooled = true;
    /// Encoders of this family read token types (segment ids) and refuse a decoder config.
    bool encoder = true;
};

/// Every architecture this build runs, in a fixed order.
const std::vector<HfArchitecture> &hfArchitectures();
/// The entry of `modelType`, nullptr when this build does not run it.
const HfArchitecture *findHfArchitecture(const std::string &modelType);
/// "bert, roberta, ..." for messages.
std::string hfModelTypesText();
/// The module name of `role` in layer `layer` (-1 for a role outside the layers), "" when the
/// architecture has no such role.
std::string hfTensorName(const HfArchitecture &arch, HfRole role, int layer = -1);
/// The role's parts (weight, bias), HfParts::Weight when the architecture has no such role.
HfParts hfTensorParts(const HfArchitecture &arch, HfRole role);
/// Whether the architecture has `role`.
bool hfHasRole(const HfArchitecture &arch, HfRole role);

} // namespace treelens
