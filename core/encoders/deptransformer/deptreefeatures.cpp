// The Dependency-Transformer's tree inputs (see deptreefeatures.h).
#include "core/encoders/deptransformer/deptreefeatures.h"

#include <algorithm>
#include <cmath>

#include <nlohmann/json.hpp>

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

std::string DepTransformerConfig::toJson() const
{
    return nlohmann::json{{"n_layers", layers}, {"n_heads", heads}, {"d_model", dModel}, {"d_ff", dFF}, {"d_rel", dRel},
                          {"max_rel_dist", maxRelDist}, {"max_level", maxLevel}, {"max_len", maxLen},
                          {"layer_norm_eps", lnEps}, {"vocab_size", vocabSize}, {"n_relations", relations},
                          {"n_classes", classes}, {"n_pair_classes", pairClasses}, {"pair_hidden", pairHidden},
                          {"pad_id", padId}, {"unk_id", unkId}, {"root_id", rootId},
                          {"level_embedding", levelEmbedding}, {"relation_attention", relationAttention}, {"gate", gate}}
        .dump();
}

Result<DepTransformerConfig> DepTransformerConfig::fromJson(const std::string &text)
{
    try {
        const auto j = nlohmann::json::parse(text);
        DepTransformerConfig c;
        c.layers = j.at("n_layers").get<int>();
        c.heads = j.at("n_heads").get<int>();
        c.dModel = j.at("d_model").get<int>();
        c.dFF = j.at("d_ff").get<int>();
        c.dRel = j.at("d_rel").get<int>();
        c.maxRelDist = j.at("max_rel_dist").get<int>();
        c.maxLevel = j.at("max_level").get<int>();
        c.maxLen = j.at("max_len").get<int>();
        c.lnEps = j.value("layer_norm_eps", c.lnEps);
        c.vocabSize = j.at("vocab_size").get<int>();
        c.relations = j.at("n_relations").get<int>();
        c.classes = j.value("n_classes", c.classes);
        c.pairClasses = j.value("n_pair_classes", c.pairClasses);
        c.pairHidden = j.value("pair_hidden", c.pairHidden);
        c.padId = j.value("pad_id", c.padId);
        c.unkId = j.value("unk_id", c.unkId);
        c.rootId = j.value("root_id", c.rootId);
        c.levelEmbedding = j.value("level_embedding", c.levelEmbedding);
        c.relationAttention = j.value("relation_attention", c.relationAttention);
        c.gate = j.value("gate", c.gate);
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
