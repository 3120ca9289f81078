#pragma once
/// \file hfconfig.h
/// A pretrained Transformer as the Hugging Face `transformers` library saves it
/// (`save_pretrained`): a folder with `config.json` (a `model_type` of the architecture
/// table, hfarchitecture.h), the weights (`model.safetensors`, a sharded
/// `model.safetensors.index.json`, or `pytorch_model.bin` read by the restricted
/// unpickler) and the tokenizer (hftokenizer.h). This reads the configuration by the
/// entry's key spellings and the weights under the library's parameter names without
/// the base model's prefix, and checks every tensor of the entry's table against the
/// configuration. Nothing is keyed to a particular model or model type. Torch-free.

#include <cstdint>
#include <string>
#include <vector>

#include "core/base/result.h"
#include "core/encoders/pretrained/hfarchitecture.h"
#include "core/model/modelfile.h"
#include "core/model/tensordata.h"

namespace treelens {

/// config.json, the fields the encoder reads.
struct HfConfig {
    std::string modelType;       ///< config.json's "model_type"
    const HfArchitecture *arch = nullptr; ///< its entry of the architecture table (never null once read)
    int vocabSize = 0;           ///< rows of the embedding (and the LM head): may exceed the tokenizer's size
    int hidden = 0;
    int layers = 0;
    int heads = 0;
    int kvHeads = 0;             ///< key/value heads (grouped-query attention); = heads without
    int headDim = 0;             ///< per head; hidden / heads unless the config says otherwise
    int intermediate = 0;
    int maxPositions = 0;        ///< the longest input in pieces the model takes (positions), 0 = no limit known
    int typeVocabSize = 0;       ///< 0 = no token types
    std::string hiddenAct;       ///< "gelu" (erf), "gelu_new" / "gelu_pytorch_tanh" / "gelu_fast" (tanh), "relu", "silu"
    double layerNormEps = 1e-12; ///< the norms' epsilon, whatever the norm
    int padTokenId = 0;
    double ropeTheta = 10000.0;  ///< rotary base (HfPositions::Rotary)
    int rotaryDims = 0;          ///< the dims of each head that rotate (even), HfPositions::Rotary
    /// Rope scaling: "default", "linear" (positions / factor) or "llama3" (the low frequencies
    /// divided by `factor`, a smooth ramp between lowFreqFactor and highFreqFactor).
    std::string ropeType = "default";
    double ropeFactor = 1.0, ropeLowFreqFactor = 1.0, ropeHighFreqFactor = 4.0;
    int ropeOriginalMaxPositions = 8192;
    int slidingWindow = 0;       ///< a sliding window that is on: inputs longer than it are refused (0 = none)
    int bosTokenId = -1;         ///< config.json's bos_token_id (-1 = none): what --prepend-bos puts in front
    bool tiedHead = false;       ///< the LM head is the token embedding
    HfBlock block = HfBlock::PostNorm; ///< the entry's block, or ParallelPreNorm when the config asks for it
    /// id2label in id order when the folder has a sequence-classification head (else empty).
    std::vector<std::string> labels;
    /// What a classification head reads: two sentences together (a cross-encoder:
    /// [CLS] A [SEP] B [SEP]) or one. config.json does not say it in one field; in
    /// order: "treelens_input": "pair" | "single" (a user's explicit word); a
    /// sentence-transformers CrossEncoder's keys ("sentence_transformers",
    /// "sbert_ce_default_activation_function") → pair; "finetuning_task" naming a
    /// sentence-pair task (mnli, qnli, qqp, rte, mrpc, wnli, stsb, snli, xnli, wikiqa,
    /// msmarco, ...) → pair, any other → single; labels naming entailment → pair;
    /// else single. `inputReason` says which rule decided (for messages and docs).
    bool pairInput = false;
    std::string inputReason;
};

/// The weights of the folder, renamed as the encoder reads them.
struct HfWeights {
    TensorMap tensors;           ///< "embeddings.word_embeddings.weight", "encoder.layer.0....", "pooler.dense.weight", "classifier...."
    std::string file;            ///< the file (or index) they came from, for messages
    std::string note;            ///< what was left out ("the masked-LM head (cls.*) is not used") or the reader's note
    bool pooler = false;         ///< the folder has the pooler
    HfClassifier head = HfClassifier::None; ///< the sequence-classification head, decided here once by the tensors
    bool mlmHead = false;        ///< a complete masked-LM head (HfRole::MlmDense .. MlmBias)
};

/// "pooled-linear", "dense-tanh-out", "" for none: the head's name in treelens.config ("head").
std::string hfClassifierName(HfClassifier head);
/// The head named by hfClassifierName (None for "" or an unknown name).
HfClassifier hfClassifierNamed(const std::string &name);

/// The tensors of an architecture for `config` (its table with the layers spelled out): full
/// name (after the prefix), shape, and whether the model needs it. Optional ones (a pooler, a
/// classifier, a bias of HfParts::BiasOptional, an untied LM head) are checked when present.
struct HfTensorSpec {
    std::string name;
    std::vector<std::int64_t> shape;
    HfRole role;
    bool required = true;
};
std::vector<HfTensorSpec> hfTensorSpecs(const HfConfig &config, std::int64_t classes);

/// Whether `dir` is a folder of this layout (config.json with "model_type", no TreeLens "family").
bool isHfModelFolder(const std::string &dir);

/// Reads and checks config.json: a model_type of the architecture table, the sizes by the
/// entry's key spellings (positive, heads divisible by kv heads, hidden divisible by heads
/// unless head_dim is given), a supported activation, an encoder's absolute positions; one
/// line naming the file and the field otherwise.
Result<HfConfig> readHfConfig(const std::string &dir);
/// The same from config.json's text (`where` names it in messages).
Result<HfConfig> parseHfConfig(const std::string &json, const std::string &where);

/// Reads the weights: model.safetensors, else model.safetensors.index.json (every shard
/// it names), else pytorch_model.bin; renames them (prefix, LayerNorm gamma/beta) and
/// checks every tensor the encoder uses against `config` (a missing one, another shape,
/// a vocabulary size that disagrees with the embeddings: one line naming the file and
/// the tensor).
Result<HfWeights> readHfWeights(const std::string &dir, const HfConfig &config);
/// The renaming and checks of readHfWeights on tensors already read from `where`.
Result<HfWeights> hfWeightsFrom(TensorMap raw, const HfConfig &config, const std::string &where);

/// The folder as a ModelFile of the pretrained-transformer family: treelens.config
/// {"family": "pretrained-transformer", "name": the folder's name, "task", "hf": config.json},
/// the checked weights, sourcePath = the folder (the encoder reads the tokenizer there).
Result<ModelFile> readHfModelFolder(const std::string &dir);

/// The config of a ModelFile made by readHfModelFolder (its "hf" object).
Result<HfConfig> hfConfigOf(const ModelFile &file);

} // namespace treelens
