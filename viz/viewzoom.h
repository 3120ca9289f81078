#pragma once
/// \file viewzoom.h
/// Zooming a QGraphicsView about a chosen point: the wheel zooms about the point
/// under the mouse, the keys and fitting about the view's centre (the mouse may be
/// anywhere then: the content must not slide away from what was centred). The tree
/// views (constituency, dependency) zoom through this one helper.

#include <functional>

class QGraphicsView;

namespace treelens {

/// The point that stays in place while a view zooms.
enum class ZoomAnchor { UnderMouse, ViewCentre };

/// Runs `zoom` (a change of `view`'s transform: setTransform, scale, resetTransform)
/// with `anchor` as the view's transformation anchor; afterwards the anchor is the
/// point under the mouse again, as the views keep it for the wheel.
void zoomAbout(QGraphicsView &view, ZoomAnchor anchor, const std::function<void()> &zoom);

} // namespace treelens
