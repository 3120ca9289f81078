// The Dependency-Transformer's tree inputs (see deptreefeatures.h).
#include "core/encoders/deptransformer/deptreefeatures.h"

#include <algorithm>
#include <cmath>

#include <nlohmann/json.hpp>

#include "core/encoders/common/configschema.h"

namespace treelens {

Status DepTransformerConfig::validate() const
{
    auto bad = [](const std::string &m) { return Status(makeError("dependency-transformer config", m)); };
    if (layers < 1 || layers > 64) return bad("n_layers must be 1..64");
    if (heads < 1 || dModel < 1 || dModel % heads != 0) return bad("n_heads must divide d_model");
    if (dModel > 8192 || dFF < 1 || dFF > 65536 || dRel < 1 || dRel > 4096) return bad("sizes out of range");
    if (maxRelDist < 1 || maxRelDist > 64 || maxLevel < 1 || maxLevel > 1000) return bad("max_rel_dist / max_level out of range");
    if (maxLen < 2 || maxLen > 100000) return bad("max_len must be 2..100000");
    if (vocabSize < 3 || vocabSize > 2000000 || relations < 3 || relations > 100000) return bad("vocabulary sizes out of range");
    if (classes < 1 || pairClasses < 1 || pairHidden < 1 || classes > 10000 || pairClasses > 10000 || pairHidden > 65536)
        return bad("class counts out of range");
    for (int id : {padId, unkId, rootId})
        if (id < 0 || id >= vocabSize)
            return bad("pad_id, unk_id and root_id must be vocabulary ids");
    if (!(lnEps > 0) || !std::isfinite(lnEps)) return bad("layer_norm_eps must be positive");
    return {};
}

namespace {

/// treelens.config's "model" object of a Dependency-Transformer (the fixture's config keys).
const std::vector<ConfigField<DepTransformerConfig>> &configFields()
{
    using C = DepTransformerConfig;
    static const std::vector<ConfigField<C>> fields = {
        {"n_layers", &C::layers, true}, {"n_heads", &C::heads, true}, {"d_model", &C::dModel, true}, {"d_ff", &C::dFF, true},
        {"d_rel", &C::dRel, true}, {"max_rel_dist", &C::maxRelDist, true}, {"max_level", &C::maxLevel, true},
        {"max_len", &C::maxLen, true},
        {"layer_norm_eps", &C::lnEps},
        {"vocab_size", &C::vocabSize, true}, {"n_relations", &C::relations, true},
        {"n_classes", &C::classes}, {"n_pair_classes", &C::pairClasses}, {"pair_hidden", &C::pairHidden},
        {"pad_id", &C::padId}, {"unk_id", &C::unkId}, {"root_id", &C::rootId},
        {"level_embedding", &C::levelEmbedding}, {"relation_attention", &C::relationAttention}, {"gate", &C::gate}};
    return fields;
}

} // namespace

std::string DepTransformerConfig::toJson() const
{
    return configToJson(*this, configFields()).dump();
}

Result<DepTransformerConfig> DepTransformerConfig::fromJson(const std::string &text)
{
    try {
        DepTransformerConfig c;
        configFromJson(nlohmann::json::parse(text), c, configFields());
        if (auto s = c.validate(); !s)
            return s.error();
        return c;
    } catch (const std::exception &e) {
        return makeError("dependency-transformer config", e.what());
    }
}

Result<RelationVocabulary> RelationVocabulary::fromLabels(std::vector<std::string> labels, const std::string &where)
{
    RelationVocabulary v;
    for (std::size_t i = 0; i < labels.size(); ++i)
        if (!v.m_index.emplace(labels[i], static_cast<int>(i)).second)
            return makeError(where, "relation '" + labels[i] + "' is listed twice");
    for (const char *needed : {"[pad]", "[none]", "[self]"})
        if (!v.m_index.count(needed))
            return makeError(where, std::string("the relation vocabulary has no ") + needed);
    v.m_pad = v.m_index.at("[pad]");
    v.m_none = v.m_index.at("[none]");
    v.m_self = v.m_index.at("[self]");
    v.m_labels = std::move(labels);
    return v;
}

int RelationVocabulary::arcId(const std::string &deprel) const
{
    if (auto it = m_index.find(deprel); it != m_index.end())
        return it->second;
    if (const auto colon = deprel.find(':'); colon != std::string::npos)
        if (auto it = m_index.find(deprel.substr(0, colon)); it != m_index.end())
            return it->second;
    if (auto it = m_index.find("dep"); it != m_index.end())
        return it->second;
    return m_none;
}

int RelationVocabulary::distanceId(int a, int b) const
{
    const auto it = m_index.find(std::to_string(a) + ":" + std::to_string(b));
    return it == m_index.end() ? m_none : it->second;
}

Result<DepTreeFeatures> depTreeFeatures(const DependencyTree &tree, const RelationVocabulary &relations,
                                        int maxDistance, int maxLevel)
{
    if (auto s = tree.validate(); !s)
        return s.error();
    const int n = static_cast<int>(tree.size());
    DepTreeFeatures f;
    f.n1 = n + 1;
    // parent[0] = -1 ([root]); parent[k] = head(k).
    std::vector<int> parent(static_cast<std::size_t>(f.n1), -1);
    for (int k = 1; k <= n; ++k)
        parent[static_cast<std::size_t>(k)] = tree.heads[static_cast<std::size_t>(k - 1)];
    f.depth.assign(static_cast<std::size_t>(f.n1), 0);
    for (int k = 1; k <= n; ++k) {
        int d = 0;
        for (int x = k; x != 0; x = parent[static_cast<std::size_t>(x)]) {
            if (++d > f.n1)
                return makeError("dependency tree", "the heads form a cycle");
        }
        f.depth[static_cast<std::size_t>(k)] = d;
    }
    f.levels.resize(f.depth.size());
    for (std::size_t k = 0; k < f.depth.size(); ++k)
        f.levels[k] = std::min(f.depth[k], maxLevel);
    f.distance.resize(static_cast<std::size_t>(f.n1) * f.n1);
    f.relations.resize(f.distance.size());
    for (int i = 0; i < f.n1; ++i)
        for (int j = 0; j < f.n1; ++j) {
            int x = i, y = j;
            while (f.depth[static_cast<std::size_t>(x)] > f.depth[static_cast<std::size_t>(y)])
                x = parent[static_cast<std::size_t>(x)];
            while (f.depth[static_cast<std::size_t>(y)] > f.depth[static_cast<std::size_t>(x)])
                y = parent[static_cast<std::size_t>(y)];
            while (x != y) {
                x = parent[static_cast<std::size_t>(x)];
                y = parent[static_cast<std::size_t>(y)];
            }
            const int a = f.depth[static_cast<std::size_t>(i)] - f.depth[static_cast<std::size_t>(x)];
            const int b = f.depth[static_cast<std::size_t>(j)] - f.depth[static_cast<std::size_t>(x)];
            const std::size_t at = static_cast<std::size_t>(i) * f.n1 + j;
            f.distance[at] = {a, b};
            int id = relations.noneId();
            if (i == j)
                id = relations.selfId();
            else if (a + b == 1) {
                const int child = a == 1 ? i : j;
                id = relations.arcId(tree.deprels[static_cast<std::size_t>(child - 1)]);
            } else if (a + b <= maxDistance)
                id = relations.distanceId(a, b);
            f.relations[at] = id;
        }
    return f;
}

} // namespace treelens
