#include "core/encoders/tat/tatconfig.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "core/encoders/common/configschema.h"

#include "core/base/strings.h"
#include "core/encoders/common/vocabulary.h"

namespace treelens {

using nlohmann::json;

Status TatConfig::validate() const
{
    auto bad = [](const std::string &m) { return Status(makeError("tree-aggregation-transformer config", m)); };
    if (lmVocab < 4 || lmDModel < 1 || lmLayers < 0 || lmHeads < 1 || lmDFF < 1 || lmMaxPositions < 4)
        return bad("lm sizes must be positive (vocab_size >= 4, max_positions >= 4)");
    if (lmDModel % lmHeads != 0)
        return bad("lm d_model " + std::to_string(lmDModel) + " is not divisible by n_heads " + std::to_string(lmHeads));
    if (dSem < 1 || dSyn < 1 || dSynEmb < 1 || heads < 1 || dFFSem < 1 || dFFSyn < 1 || tags < 1 || classes < 2)
        return bad("tat sizes must be positive and n_classes at least 2");
    if (dSem % heads != 0 || dSyn % heads != 0)
        return bad("d_sem and d_syn must be divisible by n_heads");
    if (streams != "both" && streams != "semantic")
        return bad("tat.streams must be \"both\" or \"semantic\", not \"" + streams + "\"");
    if (head != "tree" && head != "residual" && head != "sequential")
        return bad("head must be \"tree\", \"residual\" or \"sequential\", not \"" + head + "\"");
    if (!(dropout >= 0.0 && dropout < 1.0))
        return bad("dropout must be in [0, 1)");
    if (maxSpanPositions < 3 || maxLevels < 1)
        return bad("max_span_positions must be at least 3 and max_levels at least 1");
    if (lmVocab > 10'000'000 || lmDModel > 65536 || dSem > 65536 || dSyn > 65536 || maxSpanPositions > 100000 || maxLevels > 100000)
        return bad("a size is out of range");
    return {};
}

namespace {

using C = TatConfig;

/// treelens.config's "model" object of a TAT: its language model ("lm"), its tree
/// aggregation ("tat"), the top-level switches and the special tokens' ids.
const std::vector<ConfigField<C>> &lmFields()
{
    static const std::vector<ConfigField<C>> fields = {
        {"vocab_size", &C::lmVocab, true}, {"d_model", &C::lmDModel, true}, {"n_layers", &C::lmLayers, true},
        {"n_heads", &C::lmHeads, true}, {"d_ff", &C::lmDFF, true}, {"max_positions", &C::lmMaxPositions, true},
        {"layer_norm_eps", &C::lnEps}};
    return fields;
}

const std::vector<ConfigField<C>> &tatFields()
{
    static const std::vector<ConfigField<C>> fields = {
        {"d_sem", &C::dSem, true}, {"d_syn", &C::dSyn, true}, {"d_syn_emb", &C::dSynEmb, true}, {"n_heads", &C::heads, true},
        {"d_ff_sem", &C::dFFSem, true}, {"d_ff_syn", &C::dFFSyn, true}, {"n_tags", &C::tags, true},
        {"max_span_positions", &C::maxSpanPositions, true}, {"max_levels", &C::maxLevels, true},
        {"streams", &C::streams}};
    return fields;
}

const std::vector<ConfigField<C>> &topFields()
{
    static const std::vector<ConfigField<C>> fields = {{"head", &C::head}, {"dropout", &C::dropout}};
    return fields;
}

const std::vector<ConfigField<C>> &specialTokenFields()
{
    static const std::vector<ConfigField<C>> fields = {
        {"<pad>", &C::padId}, {"<s>", &C::bosId}, {"</s>", &C::sepId}, {"<unk>", &C::unkId}};
    return fields;
}

} // namespace

std::string TatConfig::toJson() const
{
    json j = configToJson(*this, topFields());
    j["lm"] = configToJson(*this, lmFields());
    j["tat"] = configToJson(*this, tatFields());
    j["n_classes"] = classes;
    j["special_tokens"] = configToJson(*this, specialTokenFields());
    return j.dump();
}

Result<TatConfig> TatConfig::fromJson(const std::string &text)
{
    try {
        const json j = json::parse(text);
        TatConfig c;
        const json lm = j.at("lm"), t = j.at("tat");
        configFromJson(lm, c, lmFields());
        configFromJson(t, c, tatFields());
        configFromJson(j, c, topFields());
        if (t.contains("n_recursive_layers") && t["n_recursive_layers"].get<int>() != 1)
            return makeError("tree-aggregation-transformer config", "only one recursive layer is supported (the paper's)");
        if (j.contains("n_classes"))
            c.classes = j["n_classes"].get<int>();
        else if (j.contains("classifier") && j["classifier"].contains("classes"))
            c.classes = static_cast<int>(j["classifier"]["classes"].size());
        if (j.contains("special_tokens"))
            configFromJson(j["special_tokens"], c, specialTokenFields());
        if (auto st = c.validate(); !st)
            return st.error();
        return c;
    } catch (const std::exception &e) {
        return makeError("tree-aggregation-transformer config", e.what());
    }
}

Result<TatTags> TatTags::fromLabels(std::vector<std::string> labels, const std::string &where)
{
    TatTags t;
    for (std::size_t i = 0; i < labels.size(); ++i)
        if (!t.m_index.emplace(labels[i], static_cast<int>(i)).second)
            return makeError(where, "tag '" + labels[i] + "' is listed twice");
    t.m_labels = std::move(labels);
    return t;
}

int TatTags::id(const std::string &label) const
{
    if (auto it = m_index.find(label); it != m_index.end())
        return it->second;
    // Function tags and indices: "NP-SBJ-1" -> "NP", "PP=2" -> "PP" (never for "-LRB-" style tags).
    if (!label.empty() && label.front() != '-') {
        const auto cut = label.find_first_of("-=");
        if (cut != std::string::npos && cut > 0)
            if (auto it = m_index.find(label.substr(0, cut)); it != m_index.end())
                return it->second;
    }
    return -1;
}

std::vector<std::string> pennTreebankTags()
{
    return {"CC",   "CD",   "DT",   "EX",   "FW",   "IN",    "JJ",    "JJR",   "JJS",  "LS",   "MD",  "NN",
            "NNS",  "NNP",  "NNPS", "PDT",  "POS",  "PRP",   "PRP$",  "RB",    "RBR",  "RBS",  "RP",  "SYM",
            "TO",   "UH",   "VB",   "VBD",  "VBG",  "VBN",   "VBP",   "VBZ",   "WDT",  "WP",   "WP$", "WRB",
            "#",    "$",    ".",    ",",    ":",    "``",    "''",    "-LRB-", "-RRB-",
            "ADJP", "ADVP", "CONJP", "FRAG", "INTJ", "LST",  "NAC",   "NP",    "NX",   "PP",   "PRN", "PRT",
            "QP",   "RRC",  "S",    "SBAR", "SBARQ", "SINV", "SQ",    "UCP",   "VP",   "WHADJP", "WHADVP", "WHNP",
            "WHPP", "X"};
}

TatConfig treelensTatConfig(int vocabSize)
{
    TatConfig c;
    c.lmVocab = vocabSize;
    c.lmDModel = 128;
    c.lmLayers = 4;
    c.lmHeads = 4;
    c.lmDFF = 512;
    c.lmMaxPositions = 256;
    c.dSem = c.dSyn = 64;
    c.dSynEmb = 32;
    c.heads = 4;
    c.dFFSem = c.dFFSyn = 128;
    c.maxSpanPositions = 64;
    c.maxLevels = 48;
    c.tags = static_cast<int>(treelensTatTags().size());
    c.dropout = 0.1;
    return c;
}

std::vector<std::string> treelensTatTags()
{
    auto tags = pennTreebankTags();
    for (const char *t : {"HYPH", "NFP", "ADD", "AFX", "GW", "XX"})
        tags.push_back(t);
    return tags;
}

int TatTree::maxLength() const
{
    int m = 0;
    for (const auto &n : nodes)
        m = std::max(m, n.length());
    return m;
}

Result<TatTree> tatTree(const ConstituencyTree &tree, const TatTags &tags, const TatConfig &config)
{
    if (tree.empty() || tree.wordCount() == 0)
        return makeError("constituency tree", "the tree has no words");
    TatTree out;
    const auto posTags = tree.tags();
    for (std::size_t w = 0; w < posTags.size(); ++w) {
        const int id = tags.id(posTags[w]);
        if (id < 0)
            return makeError("constituency tree", "word " + std::to_string(w + 1) + ": POS tag '" + posTags[w] +
                                                       "' is not in the model's tag inventory");
        out.wordTags.push_back(id);
    }
    const auto order = phrasePostOrder(tree);
    if (order.empty())
        return makeError("constituency tree", "the root is a word or a part-of-speech tag, not a phrase");
    std::vector<int> idOf(tree.nodes().size(), -1);
    for (const auto &[n, level] : order) {
        TatNode v;
        v.label = tree.node(n).label;
        v.tag = tags.id(v.label);
        if (v.tag < 0)
            return makeError("constituency tree", "phrase label '" + v.label + "' is not in the model's tag inventory");
        v.level = level;
        if (v.level >= config.maxLevels)
            return makeError("constituency tree", "the tree is " + std::to_string(v.level + 1) + " phrases deep; the model takes at most " +
                                                       std::to_string(config.maxLevels));
        const auto [s, e] = tree.span(n);
        v.start = s;
        v.end = e;
        for (int c : tree.node(n).children) {
            if (idOf[static_cast<std::size_t>(c)] >= 0) {
                v.children.push_back({true, idOf[static_cast<std::size_t>(c)]});
            } else if (tree.isPreterminal(c)) {
                const int t = tree.node(c).children.front();
                if (tree.node(t).wordIndex >= 0)
                    v.children.push_back({false, tree.node(t).wordIndex});
            } else if (tree.node(c).terminal && tree.node(c).wordIndex >= 0) {
                return makeError("constituency tree", "word '" + tree.node(c).label + "' has no part-of-speech tag above it");
            }
        }
        if (v.length() > config.maxSpanPositions)
            return makeError("constituency tree", "a " + v.label + " phrase has " + std::to_string(v.children.size()) +
                                                       " children; the model takes at most " +
                                                       std::to_string(config.maxSpanPositions - 2));
        const int id = static_cast<int>(out.nodes.size());
        idOf[static_cast<std::size_t>(n)] = id;
        for (const auto &ch : v.children)
            if (ch.node)
                out.nodes[static_cast<std::size_t>(ch.index)].parent = id;
        out.nodes.push_back(std::move(v));
    }
    return out;
}

} // namespace treelens
