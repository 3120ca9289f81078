#include "viz/graphlayout.h"

#include <cmath>
#include <cstdio>
#include <mutex>
#include <string>

#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>

#if defined(__unix__) || defined(__APPLE__)
#include <clocale>
#include <locale.h>
#define TREELENS_HAVE_USELOCALE 1
#endif

namespace treelens {

namespace {

/// Graphviz keeps global state (error handlers, the cgraph id discipline, the
/// dot engine's statics): every use goes through this one lock.
std::mutex &graphvizMutex()
{
    static std::mutex m;
    return m;
}

/// Messages Graphviz reports while a layout runs (collected under the mutex).
std::string &graphvizMessages()
{
    static std::string s;
    return s;
}

int collectGraphvizMessage(char *message)
{
    if (message)
        graphvizMessages() += message;
    return 0;
}

/// The one GVC context. Created on first use with the plugins from the
/// installation's plugin config (Debian ships libgvplugin_dot_layout and the
/// config6a file that names it). Deliberately never freed: tearing Graphviz
/// down during static destruction races other static destructors for no gain.
/// Precondition: graphvizMutex() is held.
GVC_t *graphvizContext()
{
    static GVC_t *gvc = gvContext();
    return gvc;
}

/// An attribute value; written while CNumericLocale is active, so always with '.'.
std::string number(double v)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.4f", v);
    return buf;
}

char *cstr(const char *s)
{
    // cgraph's API takes char* but never writes through it.
    return const_cast<char *>(s);
}

/// Graphviz reads attribute values with strtod, which follows LC_NUMERIC, and
/// QCoreApplication sets the user's locale (a comma decimal separator would turn
/// "0.5" into 0). Switch only this thread to the C numeric locale while laying out.
class CNumericLocale {
public:
    CNumericLocale()
    {
#ifdef TREELENS_HAVE_USELOCALE
        static locale_t c = newlocale(LC_NUMERIC_MASK, "C", static_cast<locale_t>(nullptr));
        if (c)
            m_previous = uselocale(c);
#endif
    }
    ~CNumericLocale()
    {
#ifdef TREELENS_HAVE_USELOCALE
        if (m_previous)
            uselocale(m_previous);
#endif
    }
    CNumericLocale(const CNumericLocale &) = delete;
    CNumericLocale &operator=(const CNumericLocale &) = delete;

private:
#ifdef TREELENS_HAVE_USELOCALE
    locale_t m_previous = static_cast<locale_t>(nullptr);
#endif
};

} // namespace

Result<GraphLayoutResult> layoutGraph(const GraphLayoutRequest &request, const std::function<bool()> &stillWanted)
{
    const int n = static_cast<int>(request.nodeSizes.size());
    for (std::size_t e = 0; e < request.edges.size(); ++e) {
        const auto [t, h] = request.edges[e];
        if (t < 0 || t >= n || h < 0 || h >= n)
            return makeError("graph layout", "edge " + std::to_string(e) + " refers to node " +
                                                 std::to_string((t < 0 || t >= n) ? t : h) + " of " +
                                                 std::to_string(n));
    }
    for (std::size_t g = 0; g < request.sameRank.size(); ++g)
        for (int v : request.sameRank[g])
            if (v < 0 || v >= n)
                return makeError("graph layout", "same-rank group " + std::to_string(g) + " refers to node " +
                                                     std::to_string(v) + " of " + std::to_string(n));

    GraphLayoutResult result;
    if (n == 0)
        return result;

    std::lock_guard<std::mutex> lock(graphvizMutex());
    if (stillWanted && !stillWanted())
        return makeError("graph layout", "cancelled");
    const CNumericLocale cLocale;
    graphvizMessages().clear();
    const agusererrf previousHandler = agseterrf(collectGraphvizMessage);
    GVC_t *gvc = graphvizContext();
    if (!gvc) {
        agseterrf(previousHandler);
        return makeError("graph layout", "cannot create a Graphviz context");
    }

    Agraph_t *g = agopen(cstr("treelens"), Agdirected, nullptr);
    // Graph attributes: distances are in inches for Graphviz.
    agattr(g, AGRAPH, cstr("ranksep"), cstr(number(request.rankSeparation / 72.0).c_str()));
    agattr(g, AGRAPH, cstr("nodesep"), cstr(number(request.nodeSeparation / 72.0).c_str()));
    agattr(g, AGRAPH, cstr("ordering"), cstr(request.orderedChildren ? "out" : ""));
    // Nodes are placed by size only; Qt draws the text, so no label measuring.
    Agsym_t *shape = agattr(g, AGNODE, cstr("shape"), cstr("box"));
    Agsym_t *fixed = agattr(g, AGNODE, cstr("fixedsize"), cstr("true"));
    Agsym_t *label = agattr(g, AGNODE, cstr("label"), cstr(""));
    Agsym_t *width = agattr(g, AGNODE, cstr("width"), cstr("0.75"));
    Agsym_t *height = agattr(g, AGNODE, cstr("height"), cstr("0.5"));
    Agsym_t *margin = agattr(g, AGNODE, cstr("margin"), cstr("0"));
    (void)shape;
    (void)fixed;
    (void)label;
    (void)margin;
    // No arrowheads: the spline then runs all the way to the head node's border.
    agattr(g, AGEDGE, cstr("dir"), cstr("none"));
    Agsym_t *style = agattr(g, AGEDGE, cstr("style"), cstr(""));
    Agsym_t *weight = agattr(g, AGEDGE, cstr("weight"), cstr("1"));

    std::vector<Agnode_t *> nodes(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) {
        const std::string name = "n" + std::to_string(i);
        Agnode_t *node = agnode(g, cstr(name.c_str()), 1);
        const QSizeF size = request.nodeSizes[static_cast<std::size_t>(i)];
        // Graphviz refuses zero sizes; a hair of width keeps point-like nodes legal.
        agxset(node, width, cstr(number(std::max(size.width(), 0.01) / 72.0).c_str()));
        agxset(node, height, cstr(number(std::max(size.height(), 0.01) / 72.0).c_str()));
        nodes[static_cast<std::size_t>(i)] = node;
    }

    std::vector<Agedge_t *> edges;
    edges.reserve(request.edges.size());
    for (const auto &[t, h] : request.edges)
        // A null name with create=1 makes a new edge even for a repeated pair, so
        // every request edge keeps its own spline.
        edges.push_back(agedge(g, nodes[static_cast<std::size_t>(t)], nodes[static_cast<std::size_t>(h)], nullptr, 1));

    for (std::size_t k = 0; k < request.sameRank.size(); ++k) {
        const auto &group = request.sameRank[k];
        if (group.empty())
            continue;
        const std::string name = "rank" + std::to_string(k);
        Agraph_t *sub = agsubg(g, cstr(name.c_str()), 1);
        agsafeset(sub, cstr("rank"), cstr("same"), cstr(""));
        for (int v : group)
            agsubnode(sub, nodes[static_cast<std::size_t>(v)], 1);
        // Invisible flat edges between neighbours fix the left-to-right order
        // inside the rank: dot puts the tail of a flat edge left of its head.
        // ordering=out alone does not order nodes that hang from different parents.
        for (std::size_t i = 1; i < group.size(); ++i) {
            Agedge_t *e = agedge(g, nodes[static_cast<std::size_t>(group[i - 1])],
                                 nodes[static_cast<std::size_t>(group[i])], nullptr, 1);
            agxset(e, style, cstr("invis"));
            agxset(e, weight, cstr("0"));
        }
    }

    if (gvLayout(gvc, g, "dot") != 0) {
        const std::string messages = graphvizMessages();
        agclose(g);
        agseterrf(previousHandler);
        return makeError("graph layout", "Graphviz dot layout failed" +
                                             (messages.empty() ? std::string() : ": " + messages));
    }

    // dot works in points with y growing upwards; flip around the bounding box.
    const boxf bb = GD_bb(g);
    const double top = bb.UR.y;
    auto toQt = [top](pointf p) { return QPointF(p.x, top - p.y); };

    result.centers.reserve(static_cast<std::size_t>(n));
    for (Agnode_t *node : nodes)
        result.centers.push_back(toQt(ND_coord(node)));

    result.edgePaths.reserve(edges.size());
    for (std::size_t e = 0; e < edges.size(); ++e) {
        QPainterPath path;
        const splines *spl = ED_spl(edges[e]);
        if (spl) {
            for (int b = 0; b < spl->size; ++b) {
                const bezier &bz = spl->list[b];
                if (bz.size < 1)
                    continue;
                path.moveTo(toQt(bz.list[0]));
                for (int i = 1; i + 2 < bz.size; i += 3)
                    path.cubicTo(toQt(bz.list[i]), toQt(bz.list[i + 1]), toQt(bz.list[i + 2]));
            }
        }
        const QPointF tail = result.centers[static_cast<std::size_t>(request.edges[e].first)];
        const QPointF head = result.centers[static_cast<std::size_t>(request.edges[e].second)];
        if (path.isEmpty()) {
            // No spline (e.g. a self-loop dot dropped): a straight segment still connects the nodes.
            path.moveTo(tail);
            path.lineTo(head);
        } else {
            // dot may emit a reversed edge's spline head-first; callers expect tail to head.
            const QPointF first = path.pointAtPercent(0.0);
            const auto dist = [](QPointF a, QPointF b) { return std::hypot(a.x() - b.x(), a.y() - b.y()); };
            if (dist(first, head) + 1e-6 < dist(first, tail))
                path = path.toReversed();
        }
        result.edgePaths.push_back(path);
    }
    result.bounds = QRectF(QPointF(bb.LL.x, 0.0), QPointF(bb.UR.x, bb.UR.y - bb.LL.y));

    gvFreeLayout(gvc, g);
    agclose(g);
    agseterrf(previousHandler);
    return result;
}

QString graphvizVersion()
{
    std::lock_guard<std::mutex> lock(graphvizMutex());
    GVC_t *gvc = graphvizContext();
    return gvc ? QString::fromUtf8(gvcVersion(gvc)) : QString();
}

} // namespace treelens
