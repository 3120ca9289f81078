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

/// A positive integer field of config.json.
Status readPositive(const json &j, const char *key, int &out, const std::string &where)
{
    const auto it = j.find(key);
    if (it == j.end())
        return makeError(where, std::string("no \"") + key + "\"");
    if (!it->is_number_integer() || it->get<long long>() < 1 || it->get<long long>() > (1LL << 30))
        return makeError(where, std::string("\"") + key + "\" must be a positive integer");
    out = it->get<int>();
    return {};
}

bool supportedActivation(const std::string &act)
{
    static const std::set<std::string> known = {"gelu", "gelu_new", "gelu_pytorch_tanh", "gelu_fast", "relu", "silu", "swish"};
    return known.count(act) > 0;
}

/// "bert.encoder.layer.0.attention.output.LayerNorm.gamma" → "encoder.layer.0.attention.output.LayerNorm.weight".
std::string canonicalName(std::string name, const std::string &modelType)
{
    const std::string prefix = modelType + ".";
    if (name.rfind(prefix, 0) == 0)
        name = name.substr(prefix.size());
    auto endsWith = [&](const std::string &suffix) {
        return name.size() >= suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
    };
    if (endsWith("LayerNorm.gamma"))
        name = name.substr(0, name.size() - 5) + "weight";
    else if (endsWith("LayerNorm.beta"))
        name = name.substr(0, name.size() - 4) + "bias";
    return name;
}

} // namespace

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
    if (c.modelType != "bert" && c.modelType != "roberta")
        return makeError(where, "model_type \"" + c.modelType + "\" is not one this build runs (it runs bert and roberta)");
    for (auto [key, out] : {std::pair<const char *, int *>{"vocab_size", &c.vocabSize},
                            {"hidden_size", &c.hidden},
                            {"num_hidden_layers", &c.layers},
                            {"num_attention_heads", &c.heads},
                            {"intermediate_size", &c.intermediate},
                            {"max_position_embeddings", &c.maxPositions},
                            {"type_vocab_size", &c.typeVocabSize}})
        if (auto s = readPositive(j, key, *out, where); !s)
            return s.error();
    if (c.hidden % c.heads != 0)
        return makeError(where, "hidden_size " + std::to_string(c.hidden) + " is not a multiple of num_attention_heads " +
                                    std::to_string(c.heads));
    c.hiddenAct = j.value("hidden_act", std::string("gelu"));
    if (!j.value("hidden_act", json("gelu")).is_string() || !supportedActivation(c.hiddenAct))
        return makeError(where, "hidden_act \"" + c.hiddenAct +
                                    "\" is not one this build computes (gelu, gelu_new, gelu_pytorch_tanh, gelu_fast, relu, silu)");
    if (j.contains("layer_norm_eps")) {
        if (!j["layer_norm_eps"].is_number() || !(j["layer_norm_eps"].get<double>() > 0))
            return makeError(where, "\"layer_norm_eps\" must be a positive number");
        c.layerNormEps = j["layer_norm_eps"].get<double>();
    }
    if (j.contains("pad_token_id") && !j["pad_token_id"].is_null()) {
        if (!j["pad_token_id"].is_number_integer() || j["pad_token_id"].get<long long>() < 0 ||
            j["pad_token_id"].get<long long>() >= c.vocabSize)
            return makeError(where, "\"pad_token_id\" must be an id of the vocabulary");
        c.padTokenId = j["pad_token_id"].get<int>();
    }
    const std::string positions = j.value("position_embedding_type", std::string("absolute"));
    if (positions != "absolute")
        return makeError(where, "position_embedding_type \"" + positions + "\" is not one this build computes (absolute)");
    if (j.value("is_decoder", false) || j.value("add_cross_attention", false))
        return makeError(where, "a decoder (is_decoder / add_cross_attention) is not an encoder this build runs");
    if (j.contains("id2label") && j["id2label"].is_object()) {
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
    }
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

Result<HfWeights> hfWeightsFrom(TensorMap raw, const HfConfig &c, const std::string &where)
{
    HfWeights w;
    w.file = where;
    std::vector<std::string> unused;
    for (auto &[name, t] : raw) {
        const std::string n = canonicalName(name, c.modelType);
        if (n.rfind("cls.", 0) == 0 || n.rfind("lm_head.", 0) == 0 || n == "embeddings.position_ids") {
            unused.push_back(name);
            continue;
        }
        if (t.dtype != DType::F32 && t.dtype != DType::F16 && t.dtype != DType::BF16 && t.dtype != DType::F64)
            return makeError(where, "tensor '" + name + "' is not floating point");
        if (w.tensors.count(n))
            return makeError(where, "tensor '" + name + "' is there twice (with and without the model's prefix)");
        w.tensors[n] = std::move(t);
    }
    const std::int64_t d = c.hidden, ff = c.intermediate;
    auto need = [&](const std::string &name, std::vector<std::int64_t> shape) -> Status {
        return expectShape(w.tensors, name, shape, where);
    };
    // The vocabulary's size first: the most common mismatch, said as such.
    const auto words = w.tensors.find("embeddings.word_embeddings.weight");
    if (words != w.tensors.end() && words->second.shape.size() == 2 && words->second.shape[0] != c.vocabSize)
        return makeError(where, "embeddings.word_embeddings.weight has " + std::to_string(words->second.shape[0]) +
                                    " rows but config.json's vocab_size is " + std::to_string(c.vocabSize));
    for (auto s : {need("embeddings.word_embeddings.weight", {c.vocabSize, d}),
                   need("embeddings.position_embeddings.weight", {c.maxPositions, d}),
                   need("embeddings.token_type_embeddings.weight", {c.typeVocabSize, d}),
                   need("embeddings.LayerNorm.weight", {d}), need("embeddings.LayerNorm.bias", {d})})
        if (!s)
            return s.error();
    for (int l = 0; l < c.layers; ++l) {
        const std::string p = "encoder.layer." + std::to_string(l) + ".";
        for (const char *m : {"attention.self.query", "attention.self.key", "attention.self.value", "attention.output.dense"})
            for (auto s : {need(p + m + ".weight", {d, d}), need(p + m + ".bias", {d})})
                if (!s)
                    return s.error();
        for (auto s : {need(p + "attention.output.LayerNorm.weight", {d}), need(p + "attention.output.LayerNorm.bias", {d}),
                       need(p + "intermediate.dense.weight", {ff, d}), need(p + "intermediate.dense.bias", {ff}),
                       need(p + "output.dense.weight", {d, ff}), need(p + "output.dense.bias", {d}),
                       need(p + "output.LayerNorm.weight", {d}), need(p + "output.LayerNorm.bias", {d})})
            if (!s)
                return s.error();
    }
    if (w.tensors.count("encoder.layer." + std::to_string(c.layers) + ".attention.self.query.weight"))
        return makeError(where, "the weights have more layers than config.json's num_hidden_layers " + std::to_string(c.layers));
    w.pooler = w.tensors.count("pooler.dense.weight") > 0;
    if (w.pooler)
        for (auto s : {need("pooler.dense.weight", {d, d}), need("pooler.dense.bias", {d})})
            if (!s)
                return s.error();
    const std::int64_t classes = std::max<std::int64_t>(1, static_cast<std::int64_t>(c.labels.size()));
    if (w.tensors.count("classifier.weight")) {
        w.head = "linear";
        if (!w.pooler)
            return makeError(where, "classifier.weight reads the pooled output, and the weights have no pooler.dense.weight");
        for (auto s : {need("classifier.weight", {classes, d}), need("classifier.bias", {classes})})
            if (!s)
                return s.error();
    } else if (w.tensors.count("classifier.dense.weight")) {
        w.head = "roberta";
        for (auto s : {need("classifier.dense.weight", {d, d}), need("classifier.dense.bias", {d}),
                       need("classifier.out_proj.weight", {classes, d}), need("classifier.out_proj.bias", {classes})})
            if (!s)
                return s.error();
    }
    if (!unused.empty())
        w.note = std::to_string(unused.size()) + " tensors not used (the masked-LM head and buffers, e.g. " + unused.front() + ")";
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
                     {"task", weights->head.empty() ? "encoder" : "classification"},
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
