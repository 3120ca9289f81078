// GGSA configuration and group layout (see ggsaconfig.h).
#include "core/encoders/ggsa/ggsaconfig.h"

#include <algorithm>
#include <cmath>

#include <nlohmann/json.hpp>

#include "core/encoders/common/configschema.h"

#include "core/base/strings.h"

namespace treelens {

using nlohmann::json;

Status GgsaConfig::validate() const
{
    auto bad = [](const std::string &m) { return Status(makeError("ggsa config", m)); };
    if (dModel < 1 || dModel > 8192) return bad("d_model must be 1..8192, not " + std::to_string(dModel));
    if (heads < 1 || dModel % heads != 0)
        return bad("heads (" + std::to_string(heads) + ") must divide d_model (" + std::to_string(dModel) + ")");
    if (groupSize < 1 || groupSize > 4096) return bad("group_size must be 1..4096, not " + std::to_string(groupSize));
    if (static_cast<int>(offsets.size()) != heads)
        return bad(std::to_string(offsets.size()) + " offsets for " + std::to_string(heads) + " heads");
    for (int o : offsets)
        if (o < 0 || o >= groupSize)
            return bad("offset " + std::to_string(o) + " is outside 0.." + std::to_string(groupSize - 1));
    if (layers < 1 || layers > 64) return bad("layers must be 1..64, not " + std::to_string(layers));
    if (dFF < 1 || dFF > 65536) return bad("d_ff must be 1..65536, not " + std::to_string(dFF));
    if (dMlp < 1 || dMlp > 65536) return bad("d_mlp must be 1..65536, not " + std::to_string(dMlp));
    if (vocabSize < 2 || vocabSize > 2000000) return bad("vocab_size must be 2..2000000, not " + std::to_string(vocabSize));
    if (maxLen < 1 || maxLen > 100000) return bad("max_len must be 1..100000, not " + std::to_string(maxLen));
    if (padId < 0 || padId >= vocabSize || unkId < 0 || unkId >= vocabSize)
        return bad("pad_id and unk_id must be vocabulary ids");
    if (!(lnEps > 0.0) || !std::isfinite(lnEps)) return bad("ln_eps must be positive");
    if (!std::isfinite(embeddingScale)) return bad("embedding_scale must be finite");
    if (positionalEncoding != "paper_literal" && positionalEncoding != "vaswani")
        return bad("positional_encoding must be paper_literal or vaswani, not '" + positionalEncoding + "'");
    if (composition != "max" && composition != "attention")
        return bad("composition must be max or attention, not '" + composition + "'");
    if (score != "cosine" && score != "mlp") return bad("score must be cosine or mlp, not '" + score + "'");
    if (!(embeddingDropout >= 0.0 && embeddingDropout < 1.0)) return bad("embedding_dropout must be in [0, 1)");
    return {};
}

namespace {

/// treelens.config's "model" object of a GGSA model.
const std::vector<ConfigField<GgsaConfig>> &configFields()
{
    using C = GgsaConfig;
    static const std::vector<ConfigField<C>> fields = {
        {"d_model", &C::dModel, true}, {"heads", &C::heads, true}, {"group_size", &C::groupSize, true},
        {"offsets", &C::offsets, true},
        {"layers", &C::layers, true}, {"d_ff", &C::dFF, true}, {"d_mlp", &C::dMlp, true}, {"vocab_size", &C::vocabSize, true},
        {"max_len", &C::maxLen}, {"pad_id", &C::padId}, {"unk_id", &C::unkId},
        {"ln_eps", &C::lnEps}, {"embedding_scale", &C::embeddingScale},
        {"positional_encoding", &C::positionalEncoding}, {"interaction", &C::interaction}, {"composition", &C::composition},
        {"score", &C::score}, {"gate", &C::gate}, {"global_attention", &C::globalAttention},
        {"embedding_dropout", &C::embeddingDropout}, {"overlap_feature", &C::overlapFeature}};
    return fields;
}

} // namespace

std::string GgsaConfig::toJson() const
{
    return configToJson(*this, configFields()).dump();
}

Result<GgsaConfig> GgsaConfig::fromJson(const std::string &text)
{
    try {
        const auto j = json::parse(text);
        if (!j.is_object())
            return makeError("ggsa config", "\"model\" must be a JSON object");
        GgsaConfig c;
        configFromJson(j, c, configFields());
        if (auto s = c.validate(); !s)
            return s.error();
        return c;
    } catch (const std::exception &e) {
        return makeError("ggsa config", e.what());
    }
}

int ggsaGroupId(int position, int offset, int groupSize)
{
    return (position + offset) / groupSize;
}

std::pair<int, int> ggsaGroupSpan(int position, int length, int offset, int groupSize)
{
    const int g = ggsaGroupId(position, offset, groupSize);
    return {std::max(0, g * groupSize - offset), std::min(length, (g + 1) * groupSize - offset)};
}

std::vector<std::pair<int, int>> ggsaGroups(int length, int offset, int groupSize)
{
    std::vector<std::pair<int, int>> groups;
    for (int i = 0; i < length;) {
        const auto span = ggsaGroupSpan(i, length, offset, groupSize);
        groups.push_back(span);
        i = span.second;
    }
    return groups;
}

long long ggsaPairsGroup(int length, int offset, int groupSize)
{
    long long pairs = 0;
    for (const auto &[start, end] : ggsaGroups(length, offset, groupSize))
        pairs += static_cast<long long>(end - start) * (end - start);
    return pairs;
}

long long ggsaSlotsBlocked(int length, int offset, int groupSize)
{
    const long long groups = (static_cast<long long>(length) + offset + groupSize - 1) / groupSize;
    return groups * groupSize * groupSize;
}

} // namespace treelens
