// Hyper-parameters and trees of the recursive tree models (see recconfig.h).
#include "core/encoders/recursive/recconfig.h"

#include <algorithm>
#include <map>

#include <nlohmann/json.hpp>

#include "core/encoders/common/configschema.h"

namespace treelens {

using nlohmann::json;

namespace {

constexpr RecModel kModels[] = {RecModel::Ctt, RecModel::Dtt, RecModel::Dtte, RecModel::TreeLstmChildSum, RecModel::TreeLstmBinary};

bool isPermutationOfQyx(std::string s)
{
    std::sort(s.begin(), s.end());
    return s == "qxy";
}

/// "[q; y; x]" -> "qyx" (the fixture writes the permutation with brackets).
std::string permutationOf(const std::string &text)
{
    std::string out;
    for (char ch : text)
        if (ch == 'q' || ch == 'x' || ch == 'y')
            out.push_back(ch);
    return out;
}

} // namespace

const char *recModelName(RecModel model)
{
    switch (model) {
    case RecModel::Ctt: return "ctt";
    case RecModel::Dtt: return "dtt";
    case RecModel::Dtte: return "dtte";
    case RecModel::TreeLstmChildSum: return "treelstm.cs";
    case RecModel::TreeLstmBinary: return "treelstm.bin";
    }
    return "?";
}

Result<RecModel> recModelFromName(const std::string &name)
{
    for (RecModel m : kModels)
        if (name == recModelName(m))
            return m;
    return makeError("model", "unknown recursive model '" + name + "' (ctt, dtt, dtte, treelstm.cs, treelstm.bin)");
}

int RecConfig::rootDim() const
{
    if (treeLstm())
        return memDim;
    return model == RecModel::Dtte ? 2 * dModel : dModel;
}

Status RecConfig::validate() const
{
    auto positive = [](int v, const char *name) -> Status {
        if (v <= 0 || v > 1 << 16)
            return Error{std::string(name) + " must be in 1..65536, not " + std::to_string(v)};
        return {};
    };
    for (const auto &[v, name] : std::vector<std::pair<int, const char *>>{
             {vocab, "vocab_size"}, {dModel, "d_model"}, {branches, "n_branches"}, {dK, "d_k"}, {dFF, "d_ff"},
             {memDim, "mem_dim"}, {headHidden, "head_hidden"}})
        if (auto s = positive(v, name); !s)
            return s;
    if (!(lnEps > 0.0 && lnEps < 1.0))
        return Error{"layer_norm_eps must be in (0, 1)"};
    if (model == RecModel::Dtte && relations.empty())
        return Error{"dtte needs its relation table (\"relations\")"};
    if (!isPermutationOfQyx(edgeForward) || !isPermutationOfQyx(edgeBackward))
        return Error{"edge_forward and edge_backward must be permutations of \"qyx\", not \"" + edgeForward + "\", \"" +
                     edgeBackward + "\""};
    if (composition != "multi-branch" && composition != "multi-head" && composition != "single-head")
        return Error{"composition must be multi-branch, multi-head or single-head, not \"" + composition + "\""};
    if (composition == "multi-head" && branches * dK != dModel)
        return Error{"a multi-head composition concatenates its heads: n_branches × d_k (" + std::to_string(branches) + " × " +
                     std::to_string(dK) + ") must equal d_model (" + std::to_string(dModel) + ")"};
    if (composition == "single-head" && (branches != 1 || dK != dModel))
        return Error{"a single-head composition has n_branches 1 and d_k = d_model"};
    if (!(dropout >= 0.0 && dropout < 1.0))
        return Error{"dropout must be in [0, 1)"};
    if (query != "cross" && query != "self")
        return Error{"query must be \"cross\" or \"self\", not \"" + query + "\""};
    if (task != "relatedness" && task != "pair-classification" && task != "classification")
        return Error{"task must be relatedness, pair-classification or classification, not \"" + task + "\""};
    if (classes.size() < 2)
        return Error{"a model needs at least 2 classes"};
    if (task == "relatedness" && classes.size() != 5)
        return Error{"a relatedness model has the 5 classes 1..5 (Eq. 8.9), not " + std::to_string(classes.size())};
    if (treeLstm() && query == "cross" && !pair())
        return Error{"a one-sentence Tree-LSTM has no other sentence to take its query from: use query \"self\""};
    return {};
}

namespace {

/// treelens.config's "model" object of a recursive model, but its "model" (the sub-model's name).
const std::vector<ConfigField<RecConfig>> &configFields()
{
    using C = RecConfig;
    static const std::vector<ConfigField<C>> fields = {
        {"vocab_size", &C::vocab, true}, {"d_model", &C::dModel, true},
        {"n_branches", &C::branches}, {"d_k", &C::dK}, {"d_ff", &C::dFF}, {"mem_dim", &C::memDim}, {"head_hidden", &C::headHidden},
        {"layer_norm_eps", &C::lnEps}, {"relations", &C::relations},
        {"composition", &C::composition}, {"positional_encoding", &C::positional}, {"dropout", &C::dropout},
        {"edge_forward", &C::edgeForward}, {"edge_backward", &C::edgeBackward}, {"query", &C::query},
        {"task", &C::task}, {"classes", &C::classes}};
    return fields;
}

} // namespace

std::string RecConfig::toJson() const
{
    json j = configToJson(*this, configFields());
    j["model"] = recModelName(model);
    return j.dump();
}

Result<RecConfig> RecConfig::fromJson(const std::string &text)
{
    RecConfig c;
    try {
        const json j = json::parse(text);
        auto m = recModelFromName(j.at("model").get<std::string>());
        if (!m)
            return m.error();
        c.model = *m;
        configFromJson(j, c, configFields());
    } catch (const std::exception &e) {
        return makeError("config", e.what());
    }
    if (auto s = c.validate(); !s)
        return makeError("config", s.error());
    return c;
}

Result<RecConfig> RecConfig::fromFixtureJson(const std::string &text, RecModel model)
{
    RecConfig c;
    c.model = model;
    try {
        const json j = json::parse(text);
        const json &tt = j.at("tree_transformer");
        const json &tl = j.at("treelstm");
        const json &head = j.at("head");
        c.vocab = static_cast<int>(j.at("vocab").size());
        c.dModel = tt.at("d_model").get<int>();
        c.branches = tt.at("n_branches").get<int>();
        c.dK = tt.at("d_k").get<int>();
        if (tt.value("d_v", c.dK) != c.dK)
            return makeError("config", "d_v must equal d_k");
        c.dFF = tt.at("d_ff").get<int>();
        c.lnEps = tt.value("layer_norm_eps", c.lnEps);
        if (tt.value("layer_norm_variance", std::string("biased")) != "biased")
            return makeError("config", "only the biased LayerNorm variance is supported");
        if (tt.value("positional_encoding", false))
            return makeError("config", "positional encoding is not supported (the thesis's reported models have it off)");
        if (tt.contains("dtte_edge_forward"))
            c.edgeForward = permutationOf(tt["dtte_edge_forward"].get<std::string>());
        if (tt.contains("dtte_edge_backward"))
            c.edgeBackward = permutationOf(tt["dtte_edge_backward"].get<std::string>());
        c.memDim = tl.at("mem_dim").get<int>();
        if (tl.value("in_dim", c.dModel) != c.dModel)
            return makeError("config", "treelstm.in_dim must equal the word-vector size d_model");
        c.headHidden = head.at("hidden_dim").get<int>();
        c.classes.clear();
        for (const auto &k : head.at("classes"))
            c.classes.push_back(k.is_string() ? k.get<std::string>() : k.dump());
        c.relations = j.value("dependency_relations", std::vector<std::string>{});
    } catch (const std::exception &e) {
        return makeError("config", e.what());
    }
    if (auto s = c.validate(); !s)
        return makeError("config", s.error());
    return c;
}

std::vector<std::string> udV2Relations()
{
    return {"acl",  "advcl",  "advmod", "amod",  "appos",    "aux",        "case",  "cc",       "ccomp",      "clf",
            "compound", "conj", "cop",  "csubj", "dep",      "det",        "discourse", "dislocated", "expl", "fixed",
            "flat", "goeswith", "iobj", "list",  "mark",     "nmod",       "nsubj", "nummod",   "obj",        "obl",
            "orphan", "parataxis", "punct", "reparandum", "root", "vocative", "xcomp"};
}

int RecTree::height() const
{
    return nodes.empty() ? 0 : nodes.back().height;
}

Result<RecTree> recTreeFor(const RecConfig &config, std::size_t words, const DependencyTree *dependency,
                           const ConstituencyTree *constituency, const std::string &where)
{
    Result<RecTree> t = makeError(where, "");
    if (config.dependency()) {
        if (!dependency)
            return makeError(where, std::string("the ") + recModelName(config.model) + " model needs a dependency tree");
        t = dependencyRecTree(*dependency, config.model == RecModel::Dtte ? config.relations : std::vector<std::string>{});
    } else {
        if (!constituency)
            return makeError(where, std::string("the ") + recModelName(config.model) + " model needs a constituency tree");
        t = constituencyRecTree(*constituency, config.model == RecModel::TreeLstmBinary);
    }
    if (!t)
        return makeError(where, t.error());
    if (t->words != static_cast<int>(words))
        return makeError(where, "the tree covers " + std::to_string(t->words) + " words but the sentence has " +
                                    std::to_string(words));
    return t;
}

int recRelationId(const std::vector<std::string> &relations, const std::string &label)
{
    for (int pass = 0; pass < 2; ++pass) {
        const std::string want = pass == 0 ? label : label.substr(0, label.find(':'));
        for (std::size_t i = 0; i < relations.size(); ++i)
            if (relations[i] == want)
                return static_cast<int>(i);
    }
    return -1;
}

namespace {

/// A node before numbering: children refer to words or to other scratch nodes.
struct Scratch {
    std::string label;
    bool dummy = false;
    std::vector<RecChild> children; // node = index into the scratch vector
};

/// Numbers the scratch nodes under `root` in post-order (children left to right,
/// then the node) and fills spans, parents and heights. Iterative.
Result<RecTree> numberPostOrder(const std::vector<Scratch> &scratch, int root, int words, const RecTreeLimits &limits)
{
    RecTree out;
    out.words = words;
    std::vector<int> idOf(scratch.size(), -1);
    // Explicit stack of (scratch node, next child to visit).
    std::vector<std::pair<int, std::size_t>> stack{{root, 0}};
    while (!stack.empty()) {
        auto &[s, next] = stack.back();
        const Scratch &sn = scratch[static_cast<std::size_t>(s)];
        if (next < sn.children.size()) {
            const RecChild ch = sn.children[next++];
            if (ch.node)
                stack.push_back({ch.index, 0});
            continue;
        }
        RecNode v;
        v.label = sn.label;
        v.dummy = sn.dummy;
        v.start = words;
        v.end = -1;
        v.height = 1;
        for (const RecChild &ch : sn.children) {
            if (ch.node) {
                const int id = idOf[static_cast<std::size_t>(ch.index)];
                RecNode &c = out.nodes[static_cast<std::size_t>(id)];
                v.children.push_back({true, id});
                v.start = std::min(v.start, c.start);
                v.end = std::max(v.end, c.end);
                v.height = std::max(v.height, c.height + 1);
            } else {
                v.children.push_back(ch);
                v.start = std::min(v.start, ch.index);
                v.end = std::max(v.end, ch.index + 1);
            }
        }
        if (v.height > limits.maxHeight)
            return makeError("constituency tree", "the tree is more than " + std::to_string(limits.maxHeight) + " levels deep");
        const int id = static_cast<int>(out.nodes.size());
        for (const RecChild &ch : v.children)
            if (ch.node)
                out.nodes[static_cast<std::size_t>(ch.index)].parent = id;
        idOf[static_cast<std::size_t>(s)] = id;
        out.nodes.push_back(std::move(v));
        stack.pop_back();
    }
    return out;
}

/// The leaves of the tree, left to right, must be the words 0..n-1.
Status checkCoverage(const RecTree &t)
{
    int expect = 0;
    std::vector<std::pair<int, std::size_t>> stack{{static_cast<int>(t.nodes.size()) - 1, 0}};
    while (!stack.empty()) {
        auto &[v, next] = stack.back();
        const RecNode &n = t.nodes[static_cast<std::size_t>(v)];
        if (next == n.children.size()) {
            stack.pop_back();
            continue;
        }
        const RecChild ch = n.children[next++];
        if (ch.node) {
            stack.push_back({ch.index, 0});
        } else if (ch.index != expect) {
            return Error{ch.index < expect ? "word " + std::to_string(ch.index + 1) + " is covered twice"
                                           : "word " + std::to_string(expect + 1) + " is not covered by the tree"};
        } else {
            ++expect;
        }
    }
    if (expect != t.words)
        return Error{"word " + std::to_string(expect + 1) + " is not covered by the tree"};
    return {};
}

} // namespace

Result<RecTree> constituencyRecTree(const ConstituencyTree &tree, bool binarize, const RecTreeLimits &limits)
{
    const std::string where = "constituency tree";
    if (tree.empty() || tree.wordCount() == 0)
        return makeError(where, "the tree has no words");
    const int words = tree.wordCount();
    // What every tree node becomes, bottom-up: a word, a scratch node or nothing (traces).
    struct Made {
        int kind = 0; // 0 nothing, 1 word, 2 scratch node
        int index = 0;
    };
    std::vector<Made> made(tree.nodes().size());
    std::vector<Scratch> scratch;
    const int top = tree.contentRoot();
    std::vector<std::pair<int, std::size_t>> stack{{top, 0}};
    while (!stack.empty()) {
        auto &[n, next] = stack.back();
        const ConstituencyNode &cn = tree.node(n);
        if (next < cn.children.size()) {
            stack.push_back({cn.children[next++], 0});
            continue;
        }
        Made m;
        if (cn.terminal) {
            if (cn.wordIndex >= 0)
                m = {1, cn.wordIndex};
        } else if (tree.isPreterminal(n)) {
            const ConstituencyNode &t = tree.node(cn.children.front());
            if (t.wordIndex >= 0)
                m = {1, t.wordIndex};
        } else {
            std::vector<RecChild> kids;
            for (int c : cn.children) {
                const Made &cm = made[static_cast<std::size_t>(c)];
                if (cm.kind != 0)
                    kids.push_back({cm.kind == 2, cm.index});
            }
            if (kids.size() == 1) {
                m = {kids.front().node ? 2 : 1, kids.front().index};
                if (kids.front().node) // unary collapse of a phrase over a phrase
                    scratch[static_cast<std::size_t>(kids.front().index)].label = cn.label + "+" + scratch[static_cast<std::size_t>(kids.front().index)].label;
            } else if (kids.size() > 1) {
                if (static_cast<int>(kids.size()) > limits.maxChildren)
                    return makeError(where, "a " + cn.label + " phrase has " + std::to_string(kids.size()) +
                                                " children; at most " + std::to_string(limits.maxChildren) + " are taken");
                if (binarize) {
                    // Left-factored: the first two children under @X, repeatedly.
                    while (kids.size() > 2) {
                        scratch.push_back({"@" + cn.label, true, {kids[0], kids[1]}});
                        kids.erase(kids.begin());
                        kids[0] = {true, static_cast<int>(scratch.size()) - 1};
                    }
                }
                scratch.push_back({cn.label, false, std::move(kids)});
                m = {2, static_cast<int>(scratch.size()) - 1};
            }
        }
        made[static_cast<std::size_t>(n)] = m;
        stack.pop_back();
    }
    const Made &root = made[static_cast<std::size_t>(top)];
    RecTree out;
    if (root.kind == 1) {
        out.words = words;
        out.rootWord = root.index;
        if (words != 1)
            return makeError(where, "the tree covers one word but the sentence has " + std::to_string(words));
        return out;
    }
    if (root.kind == 0)
        return makeError(where, "the tree has no words");
    auto t = numberPostOrder(scratch, root.index, words, limits);
    if (!t)
        return t.error();
    if (auto s = checkCoverage(*t); !s)
        return makeError(where, s.error());
    return t;
}

Result<RecTree> dependencyRecTree(const DependencyTree &tree, const std::vector<std::string> &relations,
                                  const RecTreeLimits &limits)
{
    const std::string where = "dependency tree";
    if (auto s = tree.validate(); !s)
        return makeError(where, s.error());
    const int n = static_cast<int>(tree.size());
    std::vector<std::vector<int>> deps(static_cast<std::size_t>(n));
    int root = -1;
    for (int t = 0; t < n; ++t) {
        const int h = tree.heads[static_cast<std::size_t>(t)];
        if (h == 0)
            root = t;
        else
            deps[static_cast<std::size_t>(h - 1)].push_back(t); // increasing token order
    }
    RecTree out;
    out.words = n;
    out.dependency = true;
    out.tokenNode.assign(static_cast<std::size_t>(n), -1);
    std::vector<int> height(static_cast<std::size_t>(n), 0), start(static_cast<std::size_t>(n)), end(static_cast<std::size_t>(n));
    std::vector<std::pair<int, std::size_t>> stack{{root, 0}};
    while (!stack.empty()) {
        auto &[t, next] = stack.back();
        const auto &kids = deps[static_cast<std::size_t>(t)];
        if (next < kids.size()) {
            stack.push_back({kids[next++], 0});
            continue;
        }
        const auto ti = static_cast<std::size_t>(t);
        start[ti] = t;
        end[ti] = t + 1;
        if (!kids.empty()) {
            if (static_cast<int>(kids.size()) > limits.maxChildren)
                return makeError(where, "token " + std::to_string(t + 1) + " has " + std::to_string(kids.size()) +
                                            " dependents; at most " + std::to_string(limits.maxChildren) + " are taken");
            RecNode v;
            v.headWord = t;
            v.label = tree.deprels[ti];
            for (int c : kids) {
                const auto ci = static_cast<std::size_t>(c);
                const int cn = out.tokenNode[ci];
                v.children.push_back(cn >= 0 ? RecChild{true, cn} : RecChild{false, c});
                v.relationLabels.push_back(tree.deprels[ci]);
                if (!relations.empty()) {
                    const int id = recRelationId(relations, tree.deprels[ci]);
                    if (id < 0)
                        return makeError(where, "token " + std::to_string(c + 1) + ": relation '" + tree.deprels[ci] +
                                                    "' is not in the model's edge-label table");
                    v.relations.push_back(id);
                }
                height[ti] = std::max(height[ti], height[ci] + 1);
                start[ti] = std::min(start[ti], start[ci]);
                end[ti] = std::max(end[ti], end[ci]);
            }
            if (height[ti] > limits.maxHeight)
                return makeError(where, "the tree is more than " + std::to_string(limits.maxHeight) + " levels deep");
            v.height = height[ti];
            v.start = start[ti];
            v.end = end[ti];
            const int id = static_cast<int>(out.nodes.size());
            for (const RecChild &ch : v.children)
                if (ch.node)
                    out.nodes[static_cast<std::size_t>(ch.index)].parent = id;
            out.tokenNode[ti] = id;
            out.nodes.push_back(std::move(v));
        }
        stack.pop_back();
    }
    if (out.nodes.empty())
        out.rootWord = root;
    return out;
}

} // namespace treelens
