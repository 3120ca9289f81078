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
    a.unusedPrefixes = {"cls.", "lm_head."};
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
    return a;
}

} // namespace

const std::vector<HfArchitecture> &hfArchitectures()
{
    static const std::vector<HfArchitecture> table = {bert(), roberta()};
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
