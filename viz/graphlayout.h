#pragma once
/// \file graphlayout.h
/// Graphviz (cgraph + gvc, the `dot` engine) as a layout service: give node
/// sizes and edges, get node centres and edge paths back in Qt coordinates
/// (points, y growing downwards, root rank at the top). Drawing stays in Qt.
/// Graphviz is not thread-safe: every call is serialised by a process-wide mutex,
/// so it may be called from any thread.

#include <functional>
#include <utility>
#include <vector>

#include <QPainterPath>
#include <QPointF>
#include <QRectF>
#include <QSizeF>
#include <QString>

#include "core/base/result.h"

namespace treelens {

struct GraphLayoutRequest {
    std::vector<QSizeF> nodeSizes;                  ///< points; one per node
    std::vector<std::pair<int, int>> edges;         ///< (tail, head) node indices, tail above head
    /// Groups of nodes forced onto one rank, left to right in the given order
    /// (e.g. the leaves of a constituency tree on one baseline, in sentence order).
    std::vector<std::vector<int>> sameRank;
    /// Keep the out-edges of each node in the given order (dot's ordering=out).
    bool orderedChildren = true;
    double rankSeparation = 28.0;  ///< points between ranks
    double nodeSeparation = 8.0;   ///< points between neighbours on a rank
};

struct GraphLayoutResult {
    std::vector<QPointF> centers;       ///< node centres
    std::vector<QPainterPath> edgePaths;///< one per request edge, tail to head (Bezier from dot's splines)
    QRectF bounds;                      ///< bounding box of everything, top-left may be non-zero
};

/// Lays the graph out with dot. Errors: invalid node indices, Graphviz failures.
/// `stillWanted`, when given, is asked once the Graphviz lock is held: false
/// returns the error "cancelled" at once (a queued layout nobody needs any more).
Result<GraphLayoutResult> layoutGraph(const GraphLayoutRequest &request,
                                      const std::function<bool()> &stillWanted = {});

/// The Graphviz library version ("7.1.0"), for the About dialog.
QString graphvizVersion();

} // namespace treelens
