// Reading the aggregation nodes' overlays from an Analysis (see aggregationnodes.h).
#include "viz/aggregationnodes.h"

#include <algorithm>

#include "core/data/overlays.h"
#include "core/data/phraseorder.h"

namespace treelens {

namespace {

const NamedArray *gate(const Analysis &a, const char *name)
{
    auto it = a.gates.find(name);
    return it == a.gates.end() ? nullptr : &it->second;
}

} // namespace

std::optional<AggregationNodes> aggregationNodesOf(const Analysis &a)
{
    const NamedArray *level = gate(a, overlay::kAggregationNodeLevel), *span = gate(a, overlay::kAggregationNodeSpan), *len = gate(a, overlay::kAggregationNodeLength);
    if (!level || !span || !len || level->shape.size() != 1)
        return std::nullopt;
    const int N = level->shape[0];
    if (N <= 0 || span->data.size() != static_cast<std::size_t>(2 * N) || len->data.size() != static_cast<std::size_t>(N))
        return std::nullopt;
    AggregationNodes out;
    const NamedArray *sem = gate(a, overlay::kAggregationAttentionSemantic), *syn = gate(a, overlay::kAggregationAttentionSyntactic);
    const NamedArray *normSem = gate(a, overlay::kAggregationNodeNormSemantic), *normSyn = gate(a, overlay::kAggregationNodeNormSyntactic);
    out.syntactic = syn != nullptr || !sem;
    if (sem && sem->shape.size() == 3 && sem->shape[0] == N)
        out.heads = sem->shape[1];
    for (int v = 0; v < N; ++v) {
        AggregationNode r;
        r.id = v;
        r.level = static_cast<int>(level->data[static_cast<std::size_t>(v)]);
        r.span = {static_cast<int>(span->data[static_cast<std::size_t>(2 * v)]), static_cast<int>(span->data[static_cast<std::size_t>(2 * v + 1)])};
        r.length = static_cast<int>(len->data[static_cast<std::size_t>(v)]);
        if (v < static_cast<int>(a.nodeAttention.size()))
            r.targets = a.nodeAttention[static_cast<std::size_t>(v)].targets;
        auto rows = [&](const NamedArray *g, std::vector<std::vector<float>> &into) {
            if (!g || g->shape.size() != 3 || g->shape[0] != N)
                return;
            const int H = g->shape[1], L = g->shape[2];
            for (int h = 0; h < H; ++h) {
                std::vector<float> row;
                for (int i = 0; i < std::min(L, r.length); ++i)
                    row.push_back(g->data[(static_cast<std::size_t>(v) * H + h) * L + i]);
                into.push_back(std::move(row));
            }
        };
        rows(sem, r.sem);
        rows(syn, r.syn);
        if (normSem && normSem->data.size() == static_cast<std::size_t>(N))
            r.normSem = normSem->data[static_cast<std::size_t>(v)];
        if (normSyn && normSyn->data.size() == static_cast<std::size_t>(N))
            r.normSyn = normSyn->data[static_cast<std::size_t>(v)];
        out.maxLevel = std::max(out.maxLevel, r.level);
        out.nodes.push_back(std::move(r));
    }
    out.scheduleMaxLevel = out.maxLevel;
    return out;
}

AggregationPhase aggregationPhase(const AggregationNodes &nodes, int level, int step)
{
    if (step <= 0)
        return AggregationPhase::Done;
    const int current = nodes.levelAt(step);
    return level > current ? AggregationPhase::Done : level == current ? AggregationPhase::Current : AggregationPhase::Pending;
}

std::string phraseLabel(int id, const ConstituencyTree &tree)
{
    const auto order = phrasePostOrder(tree);
    if (id < 0 || id >= static_cast<int>(order.size()))
        return std::string();
    return tree.node(order[static_cast<std::size_t>(id)].first).label;
}

std::vector<std::string> phrasePositionLabels(const AggregationNodes &nodes, int id, const ConstituencyTree &tree,
                                           const std::vector<std::string> &words)
{
    std::vector<std::string> out;
    if (id < 0 || id >= static_cast<int>(nodes.nodes.size()))
        return out;
    const auto order = phrasePostOrder(tree); // walked once for the node and all its children
    auto label = [&](int node) {
        return node >= 0 && node < static_cast<int>(order.size()) ? tree.node(order[static_cast<std::size_t>(node)].first).label
                                                                    : std::string();
    };
    const AggregationNode &r = nodes.nodes[static_cast<std::size_t>(id)];
    out.push_back("start (" + label(id) + ")");
    for (int t : r.targets) {
        if (t < 0) {
            const int w = -1 - t;
            out.push_back(w < static_cast<int>(words.size()) ? words[static_cast<std::size_t>(w)] : "word " + std::to_string(w + 1));
        } else if (t < static_cast<int>(nodes.nodes.size())) {
            const auto span = nodes.nodes[static_cast<std::size_t>(t)].span;
            std::string text = label(t);
            for (int w = span.first; w < span.second && w < static_cast<int>(words.size()); ++w)
                text += (w - span.first < 3 ? " " + words[static_cast<std::size_t>(w)] : (w - span.first == 3 ? " …" : ""));
            out.push_back(text);
        }
    }
    out.push_back("end (" + label(id) + ")");
    return out;
}

} // namespace treelens
