// The constituency view's tree layout (see constituencyview.h): a tree becomes the
// graph of its drawn nodes (phrases, induced brackets, words with their tags) and is
// laid out by Graphviz, on the worker thread for long sentences.
#include "viz/constituencyview.h"

#include <algorithm>
#include <exception>
#include <functional>
#include <string>

#include <QFontMetricsF>
#include <QPointer>

#include "core/data/phraseorder.h"
#include "core/formats/ptb.h"
#include "viz/constituencystyle.h"

namespace treelens {

using namespace constituency;

QString ConstituencyView::layoutSlot(const ConstituencyTree *tree) const
{
    return QStringLiteral("layout:%1:%2")
        .arg(reinterpret_cast<quintptr>(this), 0, 16)
        .arg(reinterpret_cast<quintptr>(tree), 0, 16);
}

void ConstituencyView::cancelLayoutJobs()
{
    if (!m_work.cancel)
        return;
    for (auto &[tree, graph] : m_graphs)
        if (graph.pending)
            m_work.cancel(layoutSlot(tree));
}

bool ConstituencyView::layoutPending() const
{
    for (const auto &[tree, graph] : m_graphs)
        if (graph.pending)
            return true;
    return false;
}

void ConstituencyView::TreeGraph::setLayout(Result<GraphLayoutResult> result)
{
    if (result.ok())
        layout = std::move(result.value());
    else
        error = QString::fromStdString(result.message());
    pending = false;
    request = GraphLayoutRequest{};
}

void ConstituencyView::finishPendingLayouts()
{
    if (!layoutPending())
        return;
    // The queued jobs' results are not needed any more (and are dropped).
    cancelLayoutJobs();
    for (auto &[tree, graph] : m_graphs)
        if (graph.pending) // Graphviz calls are serialised: this waits for a worker already in dot
            graph.setLayout(layoutGraph(graph.request));
    rebuild();
    fitToViewport();
}

void ConstituencyView::layoutArrived(const ConstituencyTree *tree, Result<GraphLayoutResult> layout)
{
    auto it = m_graphs.find(tree);
    if (it == m_graphs.end() || !it->second.pending)
        return; // finished synchronously meanwhile (an export)
    it->second.setLayout(std::move(layout));
    rebuild();
    if (!layoutPending()) {
        fitToViewport();
        Q_EMIT layoutFinished();
    }
}

const ConstituencyView::TreeGraph &ConstituencyView::graphFor(const ConstituencyTree &tree, bool induced)
{
    auto it = m_graphs.find(&tree);
    if (it != m_graphs.end())
        return it->second;
    TreeGraph &g = m_graphs[&tree];

    const QFontMetricsF phraseMetrics(phraseFont());
    const QFontMetricsF wordMetrics(wordFont());
    const QFontMetricsF posMetrics(posFont());
    GraphLayoutRequest request;
    std::vector<std::pair<int, int>> wordRank; // (word index, graph node)

    // Pre-order walk from the content root with an explicit stack (trees may be
    // thousands deep). Children are pushed in reverse so they come out in order,
    // which makes the edge order match the child order for ordering=out.
    // Preterminals are not nodes of their own: the tag is drawn above its word in
    // one leaf node, so tag and word always line up and take one rank, not two.
    struct Item {
        int node;
        int parentGraphNode;
        QString pos;
    };
    // The TAT's node ids of the phrases (a Tree Aggregation Transformer's node attention is keyed by them).
    std::vector<int> tatIds;
    if (!induced) {
        tatIds.assign(tree.nodes().size(), -1);
        int id = 0;
        for (const auto &[n, level] : phrasePostOrder(tree))
            tatIds[static_cast<std::size_t>(n)] = id++;
    }
    std::vector<Item> stack{{tree.contentRoot(), -1, QString()}};
    while (!stack.empty()) {
        const Item item = stack.back();
        stack.pop_back();
        const ConstituencyNode &cn = tree.node(item.node);
        const auto span = tree.span(item.node);
        if (span.first >= span.second)
            continue; // traces only: nothing to draw
        if (!cn.terminal && tree.isPreterminal(item.node)) {
            // The induced tree's "W" preterminals carry no information.
            const QString pos = induced ? QString() : QString::fromStdString(cn.label);
            for (auto c = cn.children.rbegin(); c != cn.children.rend(); ++c)
                stack.push_back({*c, item.parentGraphNode, pos});
            continue;
        }
        TreeGraph::Node node;
        node.span = span;
        QSizeF size;
        if (cn.terminal) {
            node.kind = TreeGraph::Kind::Word;
            // Terminals keep PTB escapes ("-LRB-"); show the bracket itself.
            node.text = QString::fromStdString(ptbUnescape(cn.label));
            node.pos = item.pos;
            node.word = cn.wordIndex;
            const double w = wordMetrics.horizontalAdvance(node.text) + 8.0;
            size = node.pos.isEmpty()
                       ? QSizeF(w, kNodeHeight)
                       : QSizeF(std::max(w, posMetrics.horizontalAdvance(node.pos) + 4.0), kNodeHeight + kPosHeight);
        } else if (induced) {
            node.kind = TreeGraph::Kind::Dot;
            size = QSizeF(kDotSize, kDotSize);
        } else {
            node.kind = TreeGraph::Kind::Phrase;
            node.text = QString::fromStdString(cn.label);
            size = QSizeF(std::max(24.0, phraseMetrics.horizontalAdvance(node.text) + 12.0), kNodeHeight);
        }
        const int self = static_cast<int>(g.nodes.size());
        if (node.kind == TreeGraph::Kind::Word)
            wordRank.push_back({node.word, self});
        if (node.kind == TreeGraph::Kind::Phrase)
            node.tatNode = tatIds.empty() ? -1 : tatIds[static_cast<std::size_t>(item.node)];
        g.nodes.push_back(node);
        request.nodeSizes.push_back(size);
        if (item.parentGraphNode >= 0)
            g.edges.push_back({item.parentGraphNode, self});
        for (auto c = cn.children.rbegin(); c != cn.children.rend(); ++c)
            stack.push_back({*c, self, QString()});
    }

    // All words on one baseline in sentence order.
    std::sort(wordRank.begin(), wordRank.end());
    std::vector<int> words;
    for (const auto &w : wordRank)
        words.push_back(w.second);
    if (words.size() > 1)
        request.sameRank.push_back(words);
    request.edges = g.edges;
    request.rankSeparation = induced ? 16.0 : 18.0;
    request.nodeSeparation = 7.0;
    if (m_work && static_cast<int>(words.size()) >= asyncLayoutWords()) {
        // dot takes ~100 ms for a 200-word tree: off the GUI thread.
        g.pending = true;
        g.request = request;
        QPointer<ConstituencyView> self(this);
        const ConstituencyTree *key = &tree;
        m_work.run(layoutSlot(key), this, [self, key, request](const std::function<bool()> &cancelled) -> BackgroundWork::Deliver {
            Result<GraphLayoutResult> layout = Error{"graph layout: failed"};
            try {
                layout = layoutGraph(request, [&] { return !cancelled(); });
            } catch (const std::exception &e) {
                layout = Error{std::string("graph layout: ") + e.what()};
            }
            return [self, key, layout = std::move(layout)]() mutable {
                if (self)
                    self->layoutArrived(key, std::move(layout));
            };
        });
        return g;
    }
    g.setLayout(layoutGraph(request));
    return g;
}

} // namespace treelens
