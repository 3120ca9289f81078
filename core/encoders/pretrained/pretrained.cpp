// The pretrained-transformer family (see pretrained.h): its registry entry and verify-fixture on
// a folder of the reference layout (an encoder's or a decoder's expected.json).
#include "core/encoders/pretrained/pretrained.h"

#include <cmath>
#include <filesystem>
#include <optional>
#include <utility>

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "core/base/inputlimits.h"
#include "core/encoders/pretrained/hfconfig.h"
#include "core/encoders/pretrained/hfencoder.h"
#include "core/encoders/pretrained/hffixture.h"
#include "core/encoders/pretrained/hfnet.h"
#include "core/encoders/pretrained/hftokenizer.h"

namespace treelens {

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

const char *const kFamily = "pretrained-transformer";

/// 1-d to 4-d tensors as nested JSON lists (shortest decimals that round-trip the f32).
json nested(const torch::Tensor &t)
{
    const auto c = t.to(torch::kCPU, torch::kFloat32).contiguous();
    if (c.dim() == 1) {
        json a = json::array();
        const float *d = c.data_ptr<float>();
        for (int64_t i = 0; i < c.size(0); ++i)
            a.push_back(d[i]);
        return a;
    }
    json a = json::array();
    for (int64_t i = 0; i < c.size(0); ++i)
        a.push_back(nested(c[i]));
    return a;
}

/// One sentence's forward as expected.json lays it out: the encoder's hidden states, attentions,
/// pooler and head; a language model's logits and next-token log-probabilities.
void addForward(const HfForward &f, json &out)
{
    json attentions = json::array();
    for (const auto &a : f.attention)
        attentions.push_back(nested(a[0]));
    out["attentions"] = attentions;
    json hidden = json::array();
    for (const auto &h : f.hidden)
        hidden.push_back(nested(h[0]));
    out["hidden_states"] = hidden;
    if (f.pooled.defined())
        out["pooler_output"] = nested(f.pooled[0]);
    if (f.logits.defined())
        out["logits"] = nested(f.logits[0]);
    if (f.lmLogits.defined())
        out["logits"] = nested(f.lmLogits[0]);
    if (!f.logprobs.empty()) {
        out["next_token_logprobs"] = f.logprobs[0];
        double total = 0.0;
        for (double lp : f.logprobs[0])
            total += lp;
        out["sentence_logprob"] = total;
    }
}

/// A decoder's "ablations": each expected entry's layer and head (0-based, head null for the
/// whole layer) run again with that head (or layer) zeroed.
Result<json> ablationsOf(const HfNet &net, const json &expected, const torch::Tensor &ids, const torch::Tensor &types,
                         const torch::Tensor &mask, const std::string &where)
{
    json out = json::array();
    for (const auto &entry : expected) {
        if (!entry.is_object() || !entry.contains("layer") || !entry["layer"].is_number_integer() ||
            (entry.contains("head") && !entry["head"].is_null() && !entry["head"].is_number_integer()))
            return makeError(where, "an ablation without an integer \"layer\" (and \"head\", or null)");
        HeadAblation a;
        a.layer = entry["layer"].get<int>();
        a.head = entry.contains("head") && !entry["head"].is_null() ? entry["head"].get<int>() : -1;
        if (a.layer < 0 || a.layer >= net.config().layers || a.head < -1 || a.head >= net.config().heads)
            return makeError(where, "ablation of layer " + std::to_string(a.layer) + " head " + std::to_string(a.head) +
                                        " (0-based) is outside the model");
        HfRunOptions o;
        o.attention = false;
        o.logprobs = true;
        o.keepLogits = true;
        o.ablate = {a};
        const HfForward f = net.run(ids, types, mask, o);
        json r = {{"layer", a.layer}, {"head", a.head < 0 ? json(nullptr) : json(a.head)}};
        r["logits_last"] = nested(f.lmLogits[0][f.lmLogits.size(1) - 1]);
        r["next_token_logprobs"] = f.logprobs[0];
        double total = 0.0;
        for (double lp : f.logprobs[0])
            total += lp;
        r["sentence_logprob"] = total;
        out.push_back(std::move(r));
    }
    return out;
}

/// One sentence of expected.json computed: its encoding, then the network's outputs.
Result<json> computeSentence(const HfNet &net, const HfTokenizer &tok, const json &s, const std::string &where)
{
    if (!s.is_object() || !s.contains("text") || !s["text"].is_string())
        return makeError(where, "a sentence without \"text\"");
    const std::string text = s["text"].get<std::string>();
    const TokenEncoding enc =
        s.contains("text_pair") && s["text_pair"].is_string() ? tok.encodePair(text, s["text_pair"].get<std::string>()) : tok.encode(text);
    json out = {{"text", text}, {"input_ids", enc.ids}, {"tokens", enc.tokens}};
    if (s.contains("text_pair"))
        out["text_pair"] = s["text_pair"];
    json offsets = json::array();
    for (const auto &[a, b] : enc.offsets)
        offsets.push_back({a, b});
    out["offsets"] = offsets;
    if (s.contains("token_type_ids"))
        out["token_type_ids"] = enc.typeIds;
    const auto n = static_cast<int64_t>(enc.ids.size());
    if (n == 0)
        return makeError(where, "\"" + text + "\": the tokenizer gives no pieces");
    if (net.maxPieces() > 0 && n > net.maxPieces())
        return makeError(where, "\"" + text + "\": " + std::to_string(n) + " pieces, the model takes at most " + std::to_string(net.maxPieces()));
    const auto ids = torch::tensor(enc.ids, torch::kLong).view({1, n});
    std::vector<int64_t> typeIds(enc.typeIds.begin(), enc.typeIds.end());
    typeIds.resize(static_cast<std::size_t>(n), 0);
    const auto types = torch::tensor(typeIds, torch::kLong).view({1, n});
    const auto mask = torch::ones({1, n}, torch::kBool);
    HfRunOptions o;
    o.logprobs = net.arch().languageModel;
    o.keepLogits = net.arch().languageModel;
    addForward(net.run(ids, types, mask, o), out);
    if (s.contains("ablations") && s["ablations"].is_array()) {
        auto ablations = ablationsOf(net, s["ablations"], ids, types, mask, where);
        if (!ablations)
            return ablations.error();
        out["ablations"] = std::move(*ablations);
    }
    return out;
}

/// verify-fixture on a folder of the reference layout: each sentence of expected.json
/// through the tokenizer and the network (one at a time, unpadded), in its layout.
std::optional<Result<FixtureReport>> verifyHfFixture(const std::string &dir, std::string *computedJson)
{
    if (!isHfFixtureFolder(dir))
        return std::nullopt;
    const std::string expectedPath = (fs::path(dir) / "expected.json").string();
    auto expected = readFileLimited(expectedPath, inputLimits().maxSideFileBytes * 8);
    if (!expected)
        return Result<FixtureReport>(expected.error());
    const json e = json::parse(*expected, nullptr, false);
    if (!e.is_object() || !e.contains("sentences") || !e["sentences"].is_array())
        return Result<FixtureReport>(makeError(expectedPath, "no \"sentences\" array"));
    auto file = readHfModelFolder(dir);
    if (!file)
        return Result<FixtureReport>(file.error());
    auto config = hfConfigOf(*file);
    if (!config)
        return Result<FixtureReport>(config.error());
    auto tok = HfTokenizer::fromFolder(dir);
    if (!tok)
        return Result<FixtureReport>(tok.error());
    auto net = HfNet::fromModelFile(*file, *config, torch::Device(torch::kCPU));
    if (!net)
        return Result<FixtureReport>(net.error());
    json sentences = json::array();
    for (const auto &s : e["sentences"]) {
        auto out = computeSentence(*net, *tok, s, expectedPath);
        if (!out)
            return Result<FixtureReport>(out.error());
        sentences.push_back(std::move(*out));
    }
    json computed = {{"family", config->modelType}, {"tolerance_abs", e.value("tolerance_abs", 1e-5)}, {"sentences", sentences}};
    if (e.contains("architecture"))
        computed["architecture"] = e["architecture"];
    *computedJson = computed.dump();
    return compareHfFixture(*computedJson, *expected, expectedPath);
}

} // namespace

EncoderFamily pretrainedTransformerFamily()
{
    EncoderFamily f;
    f.name = kFamily;
    f.create = createPretrainedEncoder;
    f.claimsFolder = isHfModelFolder;
    f.readFolder = [](const std::string &dir) -> std::optional<Result<ModelFile>> {
        if (!isHfModelFolder(dir))
            return std::nullopt;
        return readHfModelFolder(dir);
    };
    f.summary = [](const ModelFile &file) -> std::string {
        auto c = hfConfigOf(file);
        if (!c)
            return c.message();
        return c->modelType + ": " + std::to_string(c->layers) + " layers, " + std::to_string(c->heads) + " heads, hidden " +
               std::to_string(c->hidden) + ", vocabulary " + std::to_string(c->vocabSize);
    };
    f.verifyFolderFixture = verifyHfFixture;
    return f;
}

} // namespace treelens
