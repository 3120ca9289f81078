// The architecture table of the pretrained-Transformer family (see hfarchitecture.h).
#include "core/encoders/pretrained/hfarchitecture.h"

namespace treelens {

namespace {

using R = HfRole;

/// BERT's tensor names after the base prefix: shared by the encoders of its lineage.
std::vector<HfTensorName> bertTensors()
{
    return {
        {R::TokenEmbedding, "embeddings.word_embeddings", HfParts::Weight},
        {R::PositionEmbedding, "embeddings.position_embeddings", HfParts::Weight},
        {R::TypeEmbedding, "embeddings.token_type_embeddings", HfParts::Weight},
        {R::EmbeddingNorm, "embeddings.LayerNorm"},
        {R::Query, "encoder.layer.{L}.attention.self.query"},
        {R::Key, "encoder.layer.{L}.attention.self.key"},
        {R::Value, "encoder.layer.{L}.attention.self.value"},
        {R::AttentionOutput, "encoder.layer.{L}.attention.output.dense"},
        {R::AttentionNorm, "encoder.layer.{L}.attention.output.LayerNorm"},
        {R::MlpUp, "encoder.layer.{L}.intermediate.dense"},
        {R::MlpDown, "encoder.layer.{L}.output.dense"},
        {R::MlpNorm, "encoder.layer.{L}.output.LayerNorm"},
        {R::Pooler, "pooler.dense"},
        {R::Classifier, "classifier"},
        {R::ClassifierDense, "classifier.dense"},
        {R::ClassifierOut, "classifier.out_proj"},
    };
}

HfConfigKeys bertKeys()
{
    HfConfigKeys k;
    k.typeVocab = {"type_vocab_size"};
    return k;
}

HfArchitecture bert()
{
    HfArchitecture a;
    a.modelType = "bert";
    a.displayName = "BERT";
    a.classes = {"BertModel", "BertForSequenceClassification", "BertForMaskedLM", "BertForPreTraining"};
    a.prefixes = {"bert."};
    a.tensors = bertTensors();
    // BertForMaskedLM's and BertForPreTraining's masked-LM head (cls.predictions, its decoder tied
    // to the word embeddings); the next-sentence head of BertForPreTraining is not used.
    a.tensors.push_back({R::MlmDense, "cls.predictions.transform.dense"});
    a.tensors.push_back({R::MlmNorm, "cls.predictions.transform.LayerNorm"});
    a.tensors.push_back({R::MlmDecoder, "cls.predictions.decoder", HfParts::BiasOptional});
    a.tensors.push_back({R::MlmBias, "cls.predictions", HfParts::BiasOnly});
    a.unusedPrefixes = {"cls.seq_relationship."};
    a.unusedSuffixes = {"embeddings.position_ids"};
    a.keys = bertKeys();
    return a;
}

HfArchitecture roberta()
{
    HfArchitecture a = bert();
    a.modelType = "roberta";
    a.displayName = "RoBERTa";
    a.classes = {"RobertaModel", "RobertaForSequenceClassification", "RobertaForMaskedLM"};
    a.prefixes = {"roberta."};
    a.positions = HfPositions::LearnedAfterPadding;
    // RobertaForMaskedLM's lm_head: dense, exact gelu, layer_norm, decoder (tied) + bias.
    a.tensors = bertTensors();
    a.tensors.push_back({R::MlmDense, "lm_head.dense"});
    a.tensors.push_back({R::MlmNorm, "lm_head.layer_norm"});
    a.tensors.push_back({R::MlmDecoder, "lm_head.decoder", HfParts::BiasOptional});
    a.tensors.push_back({R::MlmBias, "lm_head", HfParts::BiasOnly});
    a.unusedPrefixes = {};
    a.mlmActivation = "gelu";
    return a;
}

/// What every decoder-only language model of the table shares.
HfArchitecture decoder()
{
    HfArchitecture a;
    a.mask = HfMask::Causal;
    a.block = HfBlock::PreNorm;
    a.languageModel = true;
    a.firstTokenPooled = false;
    a.encoder = false;
    a.keys.maxPositionsRequired = false;
    a.keys.ropeScaling = {"rope_parameters", "rope_scaling"};
    return a;
}

HfArchitecture gpt2()
{
    HfArchitecture a = decoder();
    a.modelType = "gpt2";
    a.displayName = "GPT-2";
    a.classes = {"GPT2LMHeadModel", "GPT2Model"};
    a.prefixes = {"transformer."};
    a.tensors = {
        {R::TokenEmbedding, "wte", HfParts::Weight},
        {R::PositionEmbedding, "wpe", HfParts::Weight},
        {R::AttentionNorm, "h.{L}.ln_1"},
        {R::QueryKeyValue, "h.{L}.attn.c_attn"},
        {R::AttentionOutput, "h.{L}.attn.c_proj"},
        {R::MlpNorm, "h.{L}.ln_2"},
        {R::MlpUp, "h.{L}.mlp.c_fc"},
        {R::MlpDown, "h.{L}.mlp.c_proj"},
        {R::FinalNorm, "ln_f"},
        {R::LmHead, "lm_head", HfParts::Weight},
    };
    // Buffers old checkpoints carry (the causal mask), not weights.
    a.unusedSuffixes = {"attn.bias", "attn.masked_bias"};
    HfConfigKeys &k = a.keys;
    k.hidden = {"n_embd", "hidden_size"};
    k.layers = {"n_layer", "num_hidden_layers"};
    k.heads = {"n_head", "num_attention_heads"};
    k.intermediate = {"n_inner"};
    k.intermediateFactor = 4;
    k.maxPositions = {"n_positions", "max_position_embeddings"};
    k.maxPositionsRequired = true;
    k.activation = {"activation_function"};
    k.defaultActivation = "gelu_new";
    k.normEps = {"layer_norm_epsilon"};
    k.defaultNormEps = 1e-5;
    k.defaultTiedHead = true;
    a.qkv = HfQkvLayout::FusedConv1D;
    a.conv1d = true;
    a.scoreDivides = true;
    return a;
}

HfArchitecture gptNeox()
{
    HfArchitecture a = decoder();
    a.modelType = "gpt_neox";
    a.displayName = "GPT-NeoX";
    a.classes = {"GPTNeoXForCausalLM", "GPTNeoXModel"};
    a.prefixes = {"gpt_neox."};
    a.tensors = {
        {R::TokenEmbedding, "embed_in", HfParts::Weight},
        {R::AttentionNorm, "layers.{L}.input_layernorm"},
        {R::QueryKeyValue, "layers.{L}.attention.query_key_value", HfParts::BiasOptional},
        {R::AttentionOutput, "layers.{L}.attention.dense", HfParts::BiasOptional},
        {R::MlpNorm, "layers.{L}.post_attention_layernorm"},
        {R::MlpUp, "layers.{L}.mlp.dense_h_to_4h"},
        {R::MlpDown, "layers.{L}.mlp.dense_4h_to_h"},
        {R::FinalNorm, "final_layer_norm"},
        {R::LmHead, "embed_out", HfParts::Weight},
    };
    a.unusedSuffixes = {"attention.bias", "attention.masked_bias", "rotary_emb.inv_freq"};
    HfConfigKeys &k = a.keys;
    k.normEps = {"layer_norm_eps"};
    k.defaultNormEps = 1e-5;
    k.ropeTheta = {"rope_parameters.rope_theta", "rotary_emb_base"};
    k.rotaryFraction = {"rope_parameters.partial_rotary_factor", "partial_rotary_factor", "rotary_pct"};
    k.defaultRotaryFraction = 0.25;
    k.parallelResidual = {"use_parallel_residual"};
    a.block = HfBlock::ParallelPreNorm;
    a.positions = HfPositions::Rotary;
    a.qkv = HfQkvLayout::FusedPerHead;
    return a;
}

/// Llama's layout (RMSNorm, rotary, grouped-query attention, gated MLP), shared by the models
/// built on it.
HfArchitecture llama()
{
    HfArchitecture a = decoder();
    a.modelType = "llama";
    a.displayName = "Llama";
    a.classes = {"LlamaForCausalLM", "LlamaModel"};
    a.prefixes = {"model."};
    a.tensors = {
        {R::TokenEmbedding, "embed_tokens", HfParts::Weight},
        {R::AttentionNorm, "layers.{L}.input_layernorm", HfParts::Weight},
        {R::Query, "layers.{L}.self_attn.q_proj", HfParts::BiasOptional},
        {R::Key, "layers.{L}.self_attn.k_proj", HfParts::BiasOptional},
        {R::Value, "layers.{L}.self_attn.v_proj", HfParts::BiasOptional},
        {R::AttentionOutput, "layers.{L}.self_attn.o_proj", HfParts::BiasOptional},
        {R::MlpNorm, "layers.{L}.post_attention_layernorm", HfParts::Weight},
        {R::MlpGate, "layers.{L}.mlp.gate_proj", HfParts::BiasOptional},
        {R::MlpUp, "layers.{L}.mlp.up_proj", HfParts::BiasOptional},
        {R::MlpDown, "layers.{L}.mlp.down_proj", HfParts::BiasOptional},
        {R::FinalNorm, "norm", HfParts::Weight},
        {R::LmHead, "lm_head", HfParts::Weight},
    };
    a.unusedSuffixes = {"rotary_emb.inv_freq"};
    HfConfigKeys &k = a.keys;
    k.kvHeads = {"num_key_value_heads"};
    k.headDim = {"head_dim"};
    k.normEps = {"rms_norm_eps"};
    k.defaultNormEps = 1e-6;
    k.defaultActivation = "silu";
    k.ropeTheta = {"rope_parameters.rope_theta", "rope_theta"};
    a.norm = HfNormKind::RmsNorm;
    a.positions = HfPositions::Rotary;
    a.mlp = HfMlp::Gated;
    return a;
}

HfArchitecture mistral()
{
    HfArchitecture a = llama();
    a.modelType = "mistral";
    a.displayName = "Mistral";
    a.classes = {"MistralForCausalLM", "MistralModel"};
    a.keys.slidingWindow = {"sliding_window"};
    return a;
}

HfArchitecture qwen2()
{
    HfArchitecture a = llama();
    a.modelType = "qwen2";
    a.displayName = "Qwen2";
    a.classes = {"Qwen2ForCausalLM", "Qwen2Model"};
    // Qwen2 always has q/k/v biases (never on o_proj).
    for (HfTensorName &t : a.tensors)
        if (t.role == R::Query || t.role == R::Key || t.role == R::Value)
            t.parts = HfParts::WeightBias;
    a.keys.slidingWindowOn = {"use_sliding_window"};
    a.keys.slidingWindow = {"sliding_window"};
    return a;
}

HfArchitecture qwen3()
{
    HfArchitecture a = llama();
    a.modelType = "qwen3";
    a.displayName = "Qwen3";
    a.classes = {"Qwen3ForCausalLM", "Qwen3Model"};
    a.tensors.push_back({R::QueryNorm, "layers.{L}.self_attn.q_norm", HfParts::Weight});
    a.tensors.push_back({R::KeyNorm, "layers.{L}.self_attn.k_norm", HfParts::Weight});
    a.keys.slidingWindowOn = {"use_sliding_window"};
    a.keys.slidingWindow = {"sliding_window"};
    return a;
}

HfArchitecture gemma()
{
    HfArchitecture a = llama();
    a.modelType = "gemma";
    a.displayName = "Gemma";
    a.classes = {"GemmaForCausalLM", "GemmaModel"};
    a.norm = HfNormKind::RmsNormPlusOne;
    a.embeddingScaled = true;
    a.keys.defaultTiedHead = true;
    a.keys.defaultActivation = "gelu_pytorch_tanh";
    a.keys.activationV4 = {"hidden_activation"};
    return a;
}

} // namespace

const std::vector<HfArchitecture> &hfArchitectures()
{
    static const std::vector<HfArchitecture> table = {bert(), roberta(), gpt2(), gptNeox(), llama(), mistral(), qwen2(), qwen3(), gemma()};
    return table;
}

const HfArchitecture *findHfArchitecture(const std::string &modelType)
{
    for (const HfArchitecture &a : hfArchitectures())
        if (a.modelType == modelType)
            return &a;
    return nullptr;
}

std::string hfModelTypesText()
{
    std::string out;
    for (const HfArchitecture &a : hfArchitectures())
        out += (out.empty() ? "" : ", ") + a.modelType;
    return out;
}

std::string hfTensorName(const HfArchitecture &arch, HfRole role, int layer)
{
    for (const HfTensorName &t : arch.tensors)
        if (t.role == role) {
            std::string name = t.name;
            if (const auto at = name.find("{L}"); at != std::string::npos)
                name.replace(at, 3, std::to_string(layer));
            return name;
        }
    return {};
}

HfParts hfTensorParts(const HfArchitecture &arch, HfRole role)
{
    for (const HfTensorName &t : arch.tensors)
        if (t.role == role)
            return t.parts;
    return HfParts::Weight;
}

bool hfHasRole(const HfArchitecture &arch, HfRole role)
{
    for (const HfTensorName &t : arch.tensors)
        if (t.role == role)
            return true;
    return false;
}

} // namespace treelens
