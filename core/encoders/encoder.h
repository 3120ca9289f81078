#pragma once
/// \file encoder.h
/// The one interface every encoder family implements (Tree Transformer,
/// Dependency-Transformer, gated group self-attention, recursive tree
/// aggregation, recursive Tree Transformer / Tree-LSTM). Torch-free: tensors
/// stay inside the implementation; results are plain `Analysis` values.
///
/// Threading: an Encoder is used from one thread at a time (the session's
/// inference thread owns it and its device). analyze() polls RunControl between
/// batches and returns an Error "cancelled" when asked to stop.

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/base/result.h"
#include "core/base/runcontrol.h"
#include "core/data/analysis.h"
#include "core/encoders/explain.h"
#include "core/encoders/headablation.h"
#include "core/data/dependencytree.h"
#include "core/data/constituencytree.h"
#include "core/data/induction.h"
#include "core/runtime/deviceconfig.h"

namespace treelens {

/// What an encoder emits (which Analysis fields are filled).
struct EncoderOutputs {
    bool attention = false;
    bool attentionRaw = false;
    bool constituentPrior = false;
    bool linkProbs = false;
    bool inducedTree = false;
    bool gates = false;
    bool nodeAttention = false;
    bool embedding = false;
    bool layerStates = false;
    bool prediction = false;
    bool crossAttention = false;
};

/// The score of a whole sentence a model gives (minimal pairs, docs/minimal-pairs.md).
enum class SentenceScore {
    None,                ///< no vocabulary head: nothing to score a sentence with
    NextToken,           ///< a causal language model: log p of the sentence on every analysis (Analysis::logprob)
    PseudoLogLikelihood, ///< a masked language model with its vocabulary head: AnalyzeOptions::pseudoLogLikelihood
};

struct EncoderInfo {
    std::string family;          ///< "tree-transformer", ...: for people (titles, reports), never for decisions
    /// What the model is, in words, where the family's name does not say it: "a plain
    /// Transformer, constituent prior off", "GPT-2 (GPT2LMHeadModel)"; "" otherwise.
    std::string architecture;
    std::string task;            ///< "masked-lm", "classification", "pair-classification", ...
    std::string name;            ///< model name from its metadata
    int layers = 0;
    int heads = 0;
    int dModel = 0;
    int dFF = 0;
    int vocabSize = 0;
    int maxTokens = 0;           ///< longest input in tokens (position table), 0 = unbounded
    long long parameters = 0;
    /// The weights' dtype as the file stores them ("F32", "BF16", "F16", or "mixed: ..."); "" when
    /// the family does not say.
    std::string storedDtype;
    InputKind input = InputKind::Words;
    bool pairInput = false;      ///< takes sentence pairs
    bool hasClsToken = false;    ///< tokens[0] is a [CLS]-style token
    std::vector<std::string> labels;
    EncoderOutputs outputs;
    std::string device;          ///< where it runs now: "cpu" or "cuda:0"
    std::string precision = "fp32"; ///< what the projections run in: "fp32", "bf16" or "int8" (never "auto")
    /// How the precision was chosen, for the user: "auto: int8 (9.8 ms) over fp32 (31.0 ms) for a
    /// 40-word sentence", or a caveat ("bf16 is emulated on this CPU"); "" for a plain fp32 request.
    std::string precisionNote;
    /// The model's unsupervised-parse settings (treelens.config "induction", chosen
    /// on a development set when the model was made; the defaults, with the minimum
    /// layer clamped to the model's layers, when the file has none).
    InductionConfig induction;
    std::string configJson;      ///< the model file's treelens.config, verbatim
    SentenceScore sentenceScore = SentenceScore::None;
    /// Why the model gives no sentence score (SentenceScore::None), where the family can say more
    /// than "no vocabulary head" ("the file was saved without its vocabulary projection ..."); "" otherwise.
    std::string sentenceScoreNote;
};

/// One input: words, and the trees or second sentence a family needs.
struct EncoderInput {
    std::vector<std::string> words;
    std::optional<DependencyTree> dependency;
    std::optional<ConstituencyTree> constituency;
    std::vector<std::string> secondWords;  ///< sentence pairs only
    /// Sentence pairs, for pair models that read trees (the Dependency-Transformer's pair head).
    std::optional<DependencyTree> secondDependency;
    std::optional<ConstituencyTree> secondConstituency;
};

struct AnalyzeOptions {
    bool attention = true;        ///< per-head attention matrices (large: L·H·N²)
    bool layerStates = false;     ///< hidden states per layer (for probing)
    /// Unsupervised parsing settings; unset = the model's own (EncoderInfo::induction).
    std::optional<InductionConfig> induction;
    /// Heads switched off for this run (a family without heads refuses a non-empty list).
    std::vector<HeadAblation> ablate;
    /// A language model whose tokenizer adds no BOS: put the model's BOS in front, so that the
    /// first word is predicted too (off: the numbers equal the library's plain encode()).
    bool prependBos = false;
    /// A masked language model (EncoderInfo::sentenceScore PseudoLogLikelihood): score the sentence by its
    /// pseudo-log-likelihood (Salazar et al. 2020): each piece masked in turn and predicted from all the
    /// others; Analysis::logprob is the sum of those log-probabilities, surprisal and pieceSurprisal their
    /// negatives (per word: the sum over its pieces). One more forward pass per piece; the other outputs
    /// come from the unmasked sentence as without it. Ignored by other models.
    bool pseudoLogLikelihood = false;
};

/// How embed() pools hidden states into one vector per sentence.
struct EmbedOptions {
    int layer = -1;               ///< -1 = the final (normalised) output; 0 = embeddings; k = after layer k
    enum class Pooling { Cls, Mean } pooling = Pooling::Mean;
};

class Encoder {
public:
    virtual ~Encoder() = default;
    virtual const EncoderInfo &info() const = 0;
    /// One Analysis per input, in order. Errors name the input ("sentence 3: 300 tokens, the model takes at most 256").
    virtual Result<std::vector<Analysis>> analyze(const std::vector<EncoderInput> &batch,
                                                  const AnalyzeOptions &options = {},
                                                  const RunControl *control = nullptr) = 0;
    /// Sentence vectors for probing: one per input.
    virtual Result<std::vector<std::vector<float>>> embed(const std::vector<EncoderInput> &batch,
                                                          const EmbedOptions &options = {},
                                                          const RunControl *control = nullptr) = 0;
    /// Hidden states of every layer (0 = embeddings .. layers), per input:
    /// result[input][layer] is tokens×d_model. For word-level probing.
    virtual Result<std::vector<std::vector<Matrix>>> layerStates(const std::vector<EncoderInput> &batch,
                                                                 const RunControl *control = nullptr) = 0;
    /// Gradient attributions of the prediction over the input tokens (explain.h;
    /// methods IntegratedGradients and GradientInput), one per input (a pair model's
    /// input: both sentences). The default refuses with one line naming the family:
    /// a family without a prediction, or whose attributions are not built yet.
    virtual Result<std::vector<Attribution>> explain(const std::vector<EncoderInput> &batch, const ExplainOptions &options,
                                                     const RunControl *control = nullptr);
};

/// Clears the fields of `analysis` that `outputs` does not declare. A plain
/// Transformer (Tree Transformer with the constituent prior off) computes C = 1
/// and links of 1 on the way; shown, they would read as a prior that holds every
/// word together and a flat induced tree. The app shows what the model declares.
void keepDeclaredOutputs(Analysis &analysis, const EncoderOutputs &outputs);

/// Why a sentence-pair model (EncoderInfo::pairInput) does not analyse one
/// sentence on its own, naming where its pairs go; the same words in every door
/// (`analyze`, `--export-view`, the app, probing): "tat-en-wikiqa is a sentence-pair
/// model (pair-ranking): it reads two sentences together; give it pairs (treelens-cli
/// analyze --pairs PAIRS, score-pairs, eval-pairs, or the pair workbench)". "" for a
/// single-sentence model.
std::string singleSentenceRefusal(const EncoderInfo &info);

/// EncoderInfo::precisionNote of a family that runs in fp32 only, for a request of
/// `requested` ("" when fp32 was asked for).
std::string fp32OnlyNote(const std::string &requested);

/// The error of an exception caught around a model's computation: "MODEL, WHAT, INPUTS: the
/// computation failed (MESSAGE)", ErrorCode::Internal.
Error internalModelError(const EncoderInfo &info, const char *what, const std::string &inputs, const std::string &message);
/// "sentence 3", "sentences 1-32", "sentences 4, 9, 12 (one batch)": items [start, end) of a
/// run, as inputs (1-based; item k is input (*order)[k] when `order` is given).
std::string batchInputsText(std::size_t start, std::size_t end, const std::vector<std::size_t> *order = nullptr);
/// An exception's message for a user: its first line (LibTorch appends a backtrace), at most
/// 300 characters.
std::string exceptionText(const char *what);

/// Loads a model file (.safetensors or a model directory) and builds the
/// encoder of the family named in its config, on the configured device. The encoder it
/// returns never throws: an exception from a family's computation that escapes its batches
/// (BatchedEncoder catches those of each batch) becomes an ErrorCode::Internal error.
Result<std::unique_ptr<Encoder>> loadEncoder(const std::string &path, const DeviceConfig &device = {});

/// Families this build can load.
std::vector<std::string> availableEncoderFamilies();

/// Path of the shipped default model (resources/models/tree-transformer-en-small.safetensors),
/// searched next to the executable, in the install prefix and in the source tree; empty if not found.
std::string defaultModelPath();
/// A model file shipped with TreeLens by name ("parser-dep-en-ewt.safetensors"),
/// searched like defaultModelPath(); "" when not found.
std::string findShippedModel(const std::string &fileName);

} // namespace treelens
