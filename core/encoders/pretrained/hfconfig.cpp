#include "core/encoders/pretrained/hfconfig.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <iterator>
#include <map>
#include <set>
#include <utility>

#include <nlohmann/json.hpp>

#include "core/base/strings.h"
#include "core/base/inputlimits.h"
#include "core/base/jsonstrict.h"
#include "core/model/checkpoint.h"
#include "core/model/safetensors.h"

namespace treelens {

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

const char *const kFamily = "pretrained-transformer";

/// The value of the first of `keys` that is present and not null ("a.b": key b of object a).
const json *findKey(const json &j, const std::vector<std::string> &keys, std::string *found = nullptr)
{
    for (const std::string &key : keys) {
        const json *at = &j;
        std::size_t start = 0;
        bool ok = true;
        while (ok) {
            const auto dot = key.find('.', start);
            const std::string part = key.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
            if (!at->is_object() || !at->contains(part) || (*at)[part].is_null())
                ok = false;
            else
                at = &(*at)[part];
            if (dot == std::string::npos)
                break;
            start = dot + 1;
        }
        if (ok) {
            if (found)
                *found = key;
            return at;
        }
    }
    return nullptr;
}

/// A positive integer field of config.json, spelled one of `keys`; `required`: absent is an error.
Status readPositive(const json &j, const std::vector<std::string> &keys, int &out, const std::string &where, bool required = true)
{
    std::string key;
    const json *v = findKey(j, keys, &key);
    if (!v) {
        if (!required)
            return {};
        return makeError(where, "no \"" + (keys.empty() ? std::string("?") : keys.front()) + "\"");
    }
    if (!v->is_number_integer() || v->get<long long>() < 1 || v->get<long long>() > (1LL << 30))
        return makeError(where, "\"" + key + "\" must be a positive integer");
    out = v->get<int>();
    return {};
}

/// A positive number of config.json (an epsilon, a rotary base), spelled one of `keys`.
Status readPositiveNumber(const json &j, const std::vector<std::string> &keys, double &out, const std::string &where)
{
    std::string key;
    if (const json *v = findKey(j, keys, &key)) {
        if (!v->is_number() || !(v->get<double>() > 0))
            return makeError(where, "\"" + key + "\" must be a positive number");
        out = v->get<double>();
    }
    return {};
}

bool supportedActivation(const std::string &act)
{
    static const std::set<std::string> known = {"gelu", "gelu_new", "gelu_pytorch_tanh", "gelu_fast", "relu", "silu", "swish"};
    return known.count(act) > 0;
}

/// "bert.encoder.layer.0.attention.output.LayerNorm.gamma" → "encoder.layer.0.attention.output.LayerNorm.weight":
/// the architecture's prefix off, TensorFlow-era LayerNorm names as the library renames them.
std::string canonicalName(std::string name, const HfArchitecture &arch)
{
    for (const std::string &prefix : arch.prefixes)
        if (name.rfind(prefix, 0) == 0) {
            name = name.substr(prefix.size());
            break;
        }
    auto endsWith = [&](const std::string &suffix) {
        return name.size() >= suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
    };
    if (endsWith("LayerNorm.gamma"))
        name = name.substr(0, name.size() - 5) + "weight";
    else if (endsWith("LayerNorm.beta"))
        name = name.substr(0, name.size() - 4) + "bias";
    return name;
}

bool unusedTensor(const std::string &name, const HfArchitecture &arch)
{
    for (const std::string &p : arch.unusedPrefixes)
        if (name.rfind(p, 0) == 0)
            return true;
    // A suffix is whole components: "attn.bias" is GPT-2's mask buffer h.0.attn.bias, not h.0.attn.c_attn.bias.
    for (const std::string &x : arch.unusedSuffixes)
        if (name.size() >= x.size() && name.compare(name.size() - x.size(), x.size(), x) == 0 &&
            (name.size() == x.size() || name[name.size() - x.size() - 1] == '.'))
            return true;
    return false;
}

} // namespace

std::string hfClassifierName(HfClassifier head)
{
    switch (head) {
    case HfClassifier::PooledLinear:
        return "pooled-linear";
    case HfClassifier::DenseTanhOut:
        return "dense-tanh-out";
    case HfClassifier::None:
        break;
    }
    return "";
}

HfClassifier hfClassifierNamed(const std::string &name)
{
    if (name == "pooled-linear")
        return HfClassifier::PooledLinear;
    if (name == "dense-tanh-out")
        return HfClassifier::DenseTanhOut;
    return HfClassifier::None;
}

bool isHfModelFolder(const std::string &dir)
{
    std::error_code ec;
    const fs::path config = fs::path(dir) / "config.json";
    if (!fs::is_directory(dir, ec) || !fs::is_regular_file(config, ec))
        return false;
    auto text = readFileLimited(config.string(), inputLimits().maxSideFileBytes);
    if (!text)
        return false;
    const json j = json::parse(*text, nullptr, false);
    return j.is_object() && j.contains("model_type") && !j.contains("family");
}

namespace {

/// HfConfig::pairInput and inputReason, by the rules its comment lists.
Status decideInput(const json &j, const std::string &where, HfConfig &c)
{
    if (j.contains("treelens_input")) {
        const json &v = j["treelens_input"];
        if (!v.is_string() || (v.get<std::string>() != "pair" && v.get<std::string>() != "single"))
            return makeError(where, "\"treelens_input\" must be \"pair\" or \"single\"");
        c.pairInput = v.get<std::string>() == "pair";
        c.inputReason = "config.json's \"treelens_input\" says " + v.get<std::string>();
        return {};
    }
    for (const char *key : {"sentence_transformers", "sbert_ce_default_activation_function"})
        if (j.contains(key)) {
            c.pairInput = true;
            c.inputReason = std::string("a sentence-transformers cross-encoder (config.json has \"") + key + "\")";
            return {};
        }
    if (j.contains("finetuning_task") && j["finetuning_task"].is_string()) {
        std::string task = j["finetuning_task"].get<std::string>();
        std::transform(task.begin(), task.end(), task.begin(), [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
        static const char *const pairTasks[] = {"mnli", "mnli-mm", "qnli", "qqp", "rte", "mrpc", "wnli", "stsb", "sts-b", "ax",
                                                "snli", "xnli", "anli", "scitail", "wikiqa", "trecqa", "msmarco", "ms_marco",
                                                "ms-marco", "paws", "boolq"};
        c.pairInput = std::find(std::begin(pairTasks), std::end(pairTasks), task) != std::end(pairTasks);
        c.inputReason = "config.json's \"finetuning_task\" is \"" + j["finetuning_task"].get<std::string>() + "\", " +
                        (c.pairInput ? "a sentence-pair task" : "not a sentence-pair task TreeLens knows");
        return {};
    }
    for (const std::string &label : c.labels) {
        std::string l = label;
        std::transform(l.begin(), l.end(), l.begin(), [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
        if (l.find("entail") != std::string::npos) {
            c.pairInput = true;
            c.inputReason = "its labels name entailment (\"" + label + "\")";
            return {};
        }
    }
    c.pairInput = false;
    c.inputReason = "config.json names no sentence-pair task (\"treelens_input\": \"pair\" makes it read pairs)";
    return {};
}

} // namespace

namespace {

/// The sizes of `c` by the entry's key spellings, and their consistency.
Status readSizes(const json &j, const HfConfigKeys &k, const std::string &where, HfConfig &c)
{
    for (auto [keys, out] : {std::pair<const std::vector<std::string> *, int *>{&k.vocab, &c.vocabSize},
                             {&k.hidden, &c.hidden},
                             {&k.layers, &c.layers},
                             {&k.heads, &c.heads}})
        if (auto s = readPositive(j, *keys, *out, where); !s)
            return s;
    if (auto s = readPositive(j, k.intermediate, c.intermediate, where, k.intermediateFactor == 0); !s)
        return s;
    if (c.intermediate == 0)
        c.intermediate = k.intermediateFactor * c.hidden;
    if (auto s = readPositive(j, k.maxPositions, c.maxPositions, where, k.maxPositionsRequired); !s)
        return s;
    if (!k.typeVocab.empty())
        if (auto s = readPositive(j, k.typeVocab, c.typeVocabSize, where); !s)
            return s;
    c.kvHeads = c.heads;
    if (auto s = readPositive(j, k.kvHeads, c.kvHeads, where, false); !s)
        return s;
    if (c.heads % c.kvHeads != 0)
        return makeError(where, "num_attention_heads " + std::to_string(c.heads) + " is not a multiple of num_key_value_heads " +
                                    std::to_string(c.kvHeads));
    if (auto s = readPositive(j, k.headDim, c.headDim, where, false); !s)
        return s;
    if (c.headDim == 0) {
        if (c.hidden % c.heads != 0)
            return makeError(where, "hidden_size " + std::to_string(c.hidden) + " is not a multiple of num_attention_heads " +
                                        std::to_string(c.heads));
        c.headDim = c.hidden / c.heads;
    }
    return {};
}

/// Activation, norm epsilon, rotary settings and the tied head, by the entry's spellings.
Status readSettings(const json &j, const HfArchitecture &arch, const std::string &where, HfConfig &c)
{
    const HfConfigKeys &k = arch.keys;
    std::string actKey;
    // Configs written by transformers 4 name some activations under another key, which those
    // versions read instead (null: the default activation).
    const bool v4 = j.contains("transformers_version") && j["transformers_version"].is_string() &&
                    j["transformers_version"].get<std::string>().rfind("4.", 0) == 0;
    const json *act = v4 && !k.activationV4.empty() ? findKey(j, k.activationV4, &actKey) : findKey(j, k.activation, &actKey);
    c.hiddenAct = act && act->is_string() ? act->get<std::string>() : k.defaultActivation;
    if ((act && !act->is_string()) || !supportedActivation(c.hiddenAct))
        return makeError(where, (actKey.empty() ? std::string("hidden_act") : actKey) + " \"" + c.hiddenAct +
                                    "\" is not one this build computes (gelu, gelu_new, gelu_pytorch_tanh, gelu_fast, relu, silu)");
    c.layerNormEps = k.defaultNormEps;
    if (auto s = readPositiveNumber(j, k.normEps, c.layerNormEps, where); !s)
        return s;
    if (arch.positions == HfPositions::Rotary) {
        c.ropeTheta = k.defaultRopeTheta;
        if (auto s = readPositiveNumber(j, k.ropeTheta, c.ropeTheta, where); !s)
            return s;
        double fraction = k.defaultRotaryFraction;
        if (auto s = readPositiveNumber(j, k.rotaryFraction, fraction, where); !s)
            return s;
        // The library's int(head_dim * fraction), even so that dimension i pairs with i + r/2.
        c.rotaryDims = static_cast<int>(c.headDim * fraction);
        if (c.rotaryDims < 2 || c.rotaryDims > c.headDim || c.rotaryDims % 2 != 0)
            return makeError(where, "the rotary fraction " + std::to_string(fraction) + " of head_dim " + std::to_string(c.headDim) +
                                        " gives " + std::to_string(c.rotaryDims) + " rotary dims (an even number from 2 to head_dim)");
    }
    c.tiedHead = k.defaultTiedHead;
    std::string tieKey;
    if (const json *tie = findKey(j, k.tieHead, &tieKey)) {
        if (!tie->is_boolean())
            return makeError(where, "\"" + tieKey + "\" must be true or false");
        c.tiedHead = tie->get<bool>();
    }
    c.block = arch.block;
    if (const json *parallel = findKey(j, k.parallelResidual); parallel && parallel->is_boolean())
        c.block = parallel->get<bool>() ? HfBlock::ParallelPreNorm : HfBlock::PreNorm;
    if (const json *bos = j.contains("bos_token_id") ? &j["bos_token_id"] : nullptr; bos && bos->is_number_integer() &&
                                                                                     bos->get<long long>() >= 0 &&
                                                                                     bos->get<long long>() < c.vocabSize)
        c.bosTokenId = bos->get<int>();
    return {};
}

/// Rope scaling and a sliding window, by the entry's spellings.
Status readPositionLimits(const json &j, const HfConfigKeys &k, const std::string &where, HfConfig &c)
{
    std::string key;
    if (const json *scaling = findKey(j, k.ropeScaling, &key); scaling && scaling->is_object()) {
        const json &r = *scaling;
        c.ropeType = r.contains("rope_type") && r["rope_type"].is_string() ? r["rope_type"].get<std::string>()
                     : r.contains("type") && r["type"].is_string()        ? r["type"].get<std::string>()
                                                                         : std::string("default");
        auto number = [&](const char *name, double &out) -> Status {
            if (r.contains(name) && !r[name].is_null()) {
                if (!r[name].is_number() || !(r[name].get<double>() > 0))
                    return makeError(where, key + "." + name + " must be a positive number");
                out = r[name].get<double>();
            }
            return {};
        };
        double original = c.ropeOriginalMaxPositions;
        for (auto st : {number("factor", c.ropeFactor), number("low_freq_factor", c.ropeLowFreqFactor),
                        number("high_freq_factor", c.ropeHighFreqFactor), number("original_max_position_embeddings", original)})
            if (!st)
                return st;
        c.ropeOriginalMaxPositions = static_cast<int>(original);
        if (c.ropeType != "default" && c.ropeType != "linear" && c.ropeType != "llama3")
            return makeError(where, key + ": rope type \"" + c.ropeType + "\" is not one this build computes (default, linear, llama3)");
    }
    const json *on = findKey(j, k.slidingWindowOn);
    const bool windowOn = k.slidingWindowOn.empty() ? true : on && on->is_boolean() && on->get<bool>();
    if (windowOn)
        if (auto s = readPositive(j, k.slidingWindow, c.slidingWindow, where, false); !s)
            return s;
    return {};
}

/// What only an encoder's config says: absolute positions, not a decoder.
Status checkEncoder(const json &j, const std::string &where)
{
    const std::string positions = j.value("position_embedding_type", std::string("absolute"));
    if (positions != "absolute")
        return makeError(where, "position_embedding_type \"" + positions + "\" is not one this build computes (absolute)");
    if (j.value("is_decoder", false) || j.value("add_cross_attention", false))
        return makeError(where, "a decoder (is_decoder / add_cross_attention) is not an encoder this build runs");
    return {};
}

/// id2label in id order.
Status readLabels(const json &j, const std::string &where, HfConfig &c)
{
    if (!j.contains("id2label") || !j["id2label"].is_object())
        return {};
    std::map<int, std::string> byId;
    for (const auto &[k, v] : j["id2label"].items()) {
        int id = -1;
        if (!parseInt(k, id) || id < 0 || !v.is_string())
            return makeError(where, "id2label: \"" + k + "\" is not a label id with a name");
        byId[id] = v.get<std::string>();
    }
    for (int i = 0; i < static_cast<int>(byId.size()); ++i) {
        if (!byId.count(i))
            return makeError(where, "id2label has no label " + std::to_string(i));
        c.labels.push_back(byId[i]);
    }
    return {};
}

} // namespace

Result<HfConfig> parseHfConfig(const std::string &text, const std::string &where)
{
    auto parsed = parseJsonStrict(text, where);
    if (!parsed)
        return parsed.error();
    const json &j = *parsed;
    if (!j.is_object())
        return makeError(where, "not a JSON object");
    HfConfig c;
    const auto type = j.find("model_type");
    if (type == j.end() || !type->is_string())
        return makeError(where, "no \"model_type\" naming the architecture");
    c.modelType = type->get<std::string>();
    c.arch = findHfArchitecture(c.modelType);
    if (!c.arch)
        return makeError(where, "model_type \"" + c.modelType + "\" is not one this build runs (it runs " + hfModelTypesText() + ")");
    if (auto st = readSizes(j, c.arch->keys, where, c); !st)
        return st.error();
    if (auto st = readSettings(j, *c.arch, where, c); !st)
        return st.error();
    if (auto st = readPositionLimits(j, c.arch->keys, where, c); !st)
        return st.error();
    if (j.contains("pad_token_id") && !j["pad_token_id"].is_null()) {
        if (!j["pad_token_id"].is_number_integer() || j["pad_token_id"].get<long long>() < 0 ||
            j["pad_token_id"].get<long long>() >= c.vocabSize)
            return makeError(where, "\"pad_token_id\" must be an id of the vocabulary");
        c.padTokenId = j["pad_token_id"].get<int>();
    }
    if (c.arch->encoder)
        if (auto st = checkEncoder(j, where); !st)
            return st.error();
    if (auto st = readLabels(j, where, c); !st)
        return st.error();
    if (auto st = decideInput(j, where, c); !st)
        return st.error();
    return c;
}

Result<HfConfig> readHfConfig(const std::string &dir)
{
    const std::string path = (fs::path(dir) / "config.json").string();
    auto text = readFileLimited(path, inputLimits().maxSideFileBytes);
    if (!text)
        return text.error();
    return parseHfConfig(*text, path);
}

std::vector<HfTensorSpec> hfTensorSpecs(const HfConfig &c, std::int64_t classes)
{
    const HfArchitecture &arch = *c.arch;
    const std::int64_t d = c.hidden, ff = c.intermediate, hd = c.headDim, q = static_cast<std::int64_t>(c.heads) * hd,
                       kv = static_cast<std::int64_t>(c.kvHeads) * hd;
    // GPT-2's Conv1D modules are stored [in, out]; nn.Linear's [out, in].
    auto linear = [&](std::int64_t out, std::int64_t in) {
        return arch.conv1d ? std::vector<std::int64_t>{in, out} : std::vector<std::int64_t>{out, in};
    };
    std::vector<HfTensorSpec> specs;
    auto add = [&](HfRole role, int layer, std::vector<std::int64_t> weight, std::int64_t bias, bool required) {
        const std::string name = hfTensorName(arch, role, layer);
        if (name.empty())
            return;
        const HfParts parts = hfTensorParts(arch, role);
        if (parts == HfParts::BiasOnly) { // a lone parameter NAME.bias (BERT's cls.predictions.bias)
            specs.push_back({name + ".bias", {bias}, role, required});
            return;
        }
        specs.push_back({name + ".weight", std::move(weight), role, required});
        if (parts != HfParts::Weight)
            specs.push_back({name + ".bias", {bias}, role, required && parts == HfParts::WeightBias});
    };
    add(HfRole::TokenEmbedding, -1, {c.vocabSize, d}, 0, true);
    if (arch.positions != HfPositions::Rotary)
        add(HfRole::PositionEmbedding, -1, {c.maxPositions, d}, 0, true);
    if (c.typeVocabSize > 0)
        add(HfRole::TypeEmbedding, -1, {c.typeVocabSize, d}, 0, true);
    add(HfRole::EmbeddingNorm, -1, {d}, d, true);
    for (int l = 0; l < c.layers; ++l) {
        add(HfRole::AttentionNorm, l, {d}, d, true);
        add(HfRole::QueryKeyValue, l, linear(q + 2 * kv, d), q + 2 * kv, true);
        add(HfRole::Query, l, linear(q, d), q, true);
        add(HfRole::Key, l, linear(kv, d), kv, true);
        add(HfRole::Value, l, linear(kv, d), kv, true);
        add(HfRole::QueryNorm, l, {hd}, hd, true);
        add(HfRole::KeyNorm, l, {hd}, hd, true);
        add(HfRole::AttentionOutput, l, linear(d, q), d, true);
        add(HfRole::MlpNorm, l, {d}, d, true);
        add(HfRole::MlpUp, l, linear(ff, d), ff, true);
        add(HfRole::MlpGate, l, linear(ff, d), ff, true);
        add(HfRole::MlpDown, l, linear(d, ff), d, true);
    }
    add(HfRole::FinalNorm, -1, {d}, d, true);
    add(HfRole::LmHead, -1, {c.vocabSize, d}, 0, arch.languageModel && !c.tiedHead);
    add(HfRole::Pooler, -1, {d, d}, d, false);
    add(HfRole::Classifier, -1, {classes, d}, classes, false);
    add(HfRole::ClassifierDense, -1, {d, d}, d, false);
    add(HfRole::ClassifierOut, -1, {classes, d}, classes, false);
    // The masked-LM head: checked when present; hfWeightsFrom decides whether it is complete.
    add(HfRole::MlmDense, -1, {d, d}, d, false);
    add(HfRole::MlmNorm, -1, {d}, d, false);
    add(HfRole::MlmDecoder, -1, {c.vocabSize, d}, c.vocabSize, false);
    add(HfRole::MlmBias, -1, {}, c.vocabSize, false);
    return specs;
}

namespace {

/// The sequence-classification head the tensors hold, checked against what it reads.
Result<HfClassifier> classifierOf(const TensorMap &t, const HfConfig &c, bool pooler, const std::string &where)
{
    const HfArchitecture &arch = *c.arch;
    const std::string linear = hfTensorName(arch, HfRole::Classifier), dense = hfTensorName(arch, HfRole::ClassifierDense);
    if (!linear.empty() && t.count(linear + ".weight")) {
        if (!pooler)
            return makeError(where, linear + ".weight reads the pooled output, and the weights have no " + hfTensorName(arch, HfRole::Pooler) +
                                        ".weight");
        return HfClassifier::PooledLinear;
    }
    if (!dense.empty() && t.count(dense + ".weight"))
        return HfClassifier::DenseTanhOut;
    return HfClassifier::None;
}

} // namespace

Result<HfWeights> hfWeightsFrom(TensorMap raw, const HfConfig &c, const std::string &where)
{
    const HfArchitecture &arch = *c.arch;
    HfWeights w;
    w.file = where;
    std::vector<std::string> unused;
    for (auto &[name, t] : raw) {
        const std::string n = canonicalName(name, arch);
        if (unusedTensor(n, arch)) {
            unused.push_back(name);
            continue;
        }
        if (t.dtype != DType::F32 && t.dtype != DType::F16 && t.dtype != DType::BF16 && t.dtype != DType::F64)
            return makeError(where, "tensor '" + name + "' is not floating point");
        if (w.tensors.count(n))
            return makeError(where, "tensor '" + name + "' is there twice (with and without the model's prefix)");
        w.tensors[n] = std::move(t);
    }
    // The vocabulary's size first: the most common mismatch, said as such.
    const std::string embedding = hfTensorName(arch, HfRole::TokenEmbedding) + ".weight";
    const auto words = w.tensors.find(embedding);
    if (words != w.tensors.end() && words->second.shape.size() == 2 && words->second.shape[0] != c.vocabSize)
        return makeError(where, embedding + " has " + std::to_string(words->second.shape[0]) + " rows but config.json's vocab_size is " +
                                    std::to_string(c.vocabSize));
    const std::int64_t classes = std::max<std::int64_t>(1, static_cast<std::int64_t>(c.labels.size()));
    for (const HfTensorSpec &spec : hfTensorSpecs(c, classes)) {
        if (!spec.required && !w.tensors.count(spec.name))
            continue;
        if (auto s = expectShape(w.tensors, spec.name, spec.shape, where); !s)
            return s.error();
    }
    const std::string nextLayer = hfTensorName(arch, arch.qkv == HfQkvLayout::Separate ? HfRole::Query : HfRole::QueryKeyValue, c.layers);
    if (w.tensors.count(nextLayer + ".weight"))
        return makeError(where, "the weights have more layers than config.json's num_hidden_layers " + std::to_string(c.layers));
    const std::string pooler = hfTensorName(arch, HfRole::Pooler);
    w.pooler = !pooler.empty() && w.tensors.count(pooler + ".weight") > 0;
    auto head = classifierOf(w.tensors, c, w.pooler, where);
    if (!head)
        return head.error();
    w.head = *head;
    // A masked-LM head (BertForMaskedLM, RobertaForMaskedLM): its transform, norm and output bias
    // all there (the decoder's weight may be left out: tied to the word embeddings).
    const std::string mlmDense = hfTensorName(arch, HfRole::MlmDense);
    if (!mlmDense.empty() && w.tensors.count(mlmDense + ".weight")) {
        const std::string bias = hfTensorName(arch, HfRole::MlmBias) + ".bias", decoderBias = hfTensorName(arch, HfRole::MlmDecoder) + ".bias";
        for (const std::string &needed : {mlmDense + ".bias", hfTensorName(arch, HfRole::MlmNorm) + ".weight", hfTensorName(arch, HfRole::MlmNorm) + ".bias"})
            if (!w.tensors.count(needed))
                return makeError(where, "the masked-LM head has " + mlmDense + ".weight but no " + needed);
        if (!w.tensors.count(bias) && !w.tensors.count(decoderBias))
            return makeError(where, "the masked-LM head has " + mlmDense + ".weight but neither " + bias + " nor " + decoderBias);
        w.mlmHead = true;
    }
    if (!unused.empty())
        w.note = std::to_string(unused.size()) + " tensors not used (heads this build does not read and buffers, e.g. " +
                 unused.front() + ")";
    return w;
}

Result<HfWeights> readHfWeights(const std::string &dir, const HfConfig &config)
{
    std::error_code ec;
    const fs::path root(dir);
    const fs::path single = root / "model.safetensors";
    const fs::path index = root / "model.safetensors.index.json";
    const fs::path bin = root / "pytorch_model.bin";
    if (fs::is_regular_file(single, ec)) {
        auto file = readSafetensors(single.string());
        if (!file)
            return file.error();
        return hfWeightsFrom(std::move(file->tensors), config, single.string());
    }
    if (fs::is_regular_file(index, ec)) {
        auto text = readFileLimited(index.string(), inputLimits().maxSideFileBytes);
        if (!text)
            return text.error();
        auto parsed = parseJsonStrict(*text, index.string());
        if (!parsed)
            return parsed.error();
        const auto map = parsed->find("weight_map");
        if (map == parsed->end() || !map->is_object())
            return makeError(index.string(), "no \"weight_map\" object naming each tensor's shard");
        std::set<std::string> shards;
        for (const auto &[tensor, shard] : map->items()) {
            if (!shard.is_string() || shard.get<std::string>().find('/') != std::string::npos)
                return makeError(index.string(), "weight_map: \"" + tensor + "\" does not name a shard file of this folder");
            shards.insert(shard.get<std::string>());
        }
        TensorMap all;
        for (const auto &shard : shards) {
            auto file = readSafetensors((root / shard).string());
            if (!file)
                return file.error();
            for (auto &[name, t] : file->tensors)
                all[name] = std::move(t);
        }
        for (const auto &[tensor, shard] : map->items())
            if (!all.count(tensor))
                return makeError((root / shard.get<std::string>()).string(), "tensor '" + tensor + "' named by the index is not in it");
        return hfWeightsFrom(std::move(all), config, index.string());
    }
    if (fs::is_regular_file(bin, ec)) {
        std::string note;
        auto tensors = readTorchCheckpoint(bin.string(), &note);
        if (!tensors)
            return tensors.error();
        auto w = hfWeightsFrom(std::move(*tensors), config, bin.string());
        if (w && !note.empty())
            w->note = w->note.empty() ? note : note + "; " + w->note;
        return w;
    }
    return makeError(dir, "no weights: model.safetensors, model.safetensors.index.json or pytorch_model.bin");
}

Result<ModelFile> readHfModelFolder(const std::string &dir)
{
    const std::string path = (fs::path(dir) / "config.json").string();
    auto text = readFileLimited(path, inputLimits().maxSideFileBytes);
    if (!text)
        return text.error();
    auto config = parseHfConfig(*text, path);
    if (!config)
        return config.error();
    auto weights = readHfWeights(dir, *config);
    if (!weights)
        return weights.error();
    std::string name = fs::path(dir).filename().string();
    if (name.empty() || name == ".")
        name = fs::weakly_canonical(fs::path(dir)).filename().string();
    json treelens = {{"family", kFamily},
                     {"name", name},
                     {"task", weights->head == HfClassifier::None ? "encoder" : "classification"},
                     {"head", hfClassifierName(weights->head)},
                     {"mlm_head", weights->mlmHead},
                     {"hf", json::parse(*text)},
                     {"weights", {{"file", fs::path(weights->file).filename().string()}, {"note", weights->note}}}};
    ModelFile file;
    file.configJson = treelens.dump();
    file.tensors = std::move(weights->tensors);
    file.sourcePath = dir;
    return file;
}

Result<HfConfig> hfConfigOf(const ModelFile &file)
{
    const json j = json::parse(file.configJson, nullptr, false);
    if (!j.is_object() || !j.contains("hf"))
        return makeError(file.sourcePath, "treelens.config has no \"hf\" object (not a pretrained-transformer model)");
    return parseHfConfig(j["hf"].dump(), file.sourcePath + "/config.json");
}

} // namespace treelens
