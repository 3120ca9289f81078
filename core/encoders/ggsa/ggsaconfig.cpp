// GGSA configuration and group layout (see ggsaconfig.h).
#include "core/encoders/ggsa/ggsaconfig.h"

#include <algorithm>
#include <cmath>

#include <nlohmann/json.hpp>

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

std::string GgsaConfig::toJson() const
{
    return json{{"d_model", dModel},
                {"heads", heads},
                {"group_size", groupSize},
                {"offsets", offsets},
                {"layers", layers},
                {"d_ff", dFF},
                {"d_mlp", dMlp},
                {"vocab_size", vocabSize},
                {"max_len", maxLen},
                {"pad_id", padId},
                {"unk_id", unkId},
                {"ln_eps", lnEps},
                {"embedding_scale", embeddingScale},
                {"positional_encoding", positionalEncoding},
                {"interaction", interaction},
                {"composition", composition},
                {"score", score},
                {"gate", gate},
                {"global_attention", globalAttention},
                {"embedding_dropout", embeddingDropout},
                {"overlap_feature", overlapFeature}}
        .dump();
}

Result<GgsaConfig> GgsaConfig::fromJson(const std::string &text)
{
    try {
        const auto j = json::parse(text);
        if (!j.is_object())
            return makeError("ggsa config", "\"model\" must be a JSON object");
        GgsaConfig c;
        c.dModel = j.at("d_model").get<int>();
        c.heads = j.at("heads").get<int>();
        c.groupSize = j.at("group_size").get<int>();
        c.offsets = j.at("offsets").get<std::vector<int>>();
        c.layers = j.at("layers").get<int>();
        c.dFF = j.at("d_ff").get<int>();
        c.dMlp = j.at("d_mlp").get<int>();
        c.vocabSize = j.at("vocab_size").get<int>();
        c.maxLen = j.value("max_len", c.maxLen);
        c.padId = j.value("pad_id", c.padId);
        c.unkId = j.value("unk_id", c.unkId);
        c.lnEps = j.value("ln_eps", c.lnEps);
        c.embeddingScale = j.value("embedding_scale", c.embeddingScale);
        c.positionalEncoding = j.value("positional_encoding", c.positionalEncoding);
        c.interaction = j.value("interaction", c.interaction);
        c.composition = j.value("composition", c.composition);
        c.score = j.value("score", c.score);
        c.gate = j.value("gate", c.gate);
        c.globalAttention = j.value("global_attention", c.globalAttention);
        c.embeddingDropout = j.value("embedding_dropout", c.embeddingDropout);
        c.overlapFeature = j.value("overlap_feature", c.overlapFeature);
        if (auto s = c.validate(); !s)
            return s.error();
        return c;
    } catch (const std::exception &e) {
        return makeError("ggsa config", e.what());
    }
}

Result<GgsaVocabulary> GgsaVocabulary::fromTokens(std::vector<std::string> tokens, const std::string &where)
{
    if (tokens.empty())
        return makeError(where, "the vocabulary is empty");
    GgsaVocabulary v;
    for (std::size_t i = 0; i < tokens.size(); ++i)
        if (!v.m_index.emplace(tokens[i], static_cast<int>(i)).second)
            return makeError(where, "the vocabulary lists '" + tokens[i] + "' twice");
    v.m_tokens = std::move(tokens);
    return v;
}

int GgsaVocabulary::id(const std::string &word) const
{
    auto it = m_index.find(toLowerAscii(word));
    return it == m_index.end() ? -1 : it->second;
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
