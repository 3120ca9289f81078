// Zooming a graphics view about the mouse or its centre (see viewzoom.h).
#include "viz/viewzoom.h"

#include <QGraphicsView>

namespace treelens {

void zoomAbout(QGraphicsView &view, ZoomAnchor anchor, const std::function<void()> &zoom)
{
    view.setTransformationAnchor(anchor == ZoomAnchor::UnderMouse ? QGraphicsView::AnchorUnderMouse
                                                                  : QGraphicsView::AnchorViewCenter);
    zoom();
    view.setTransformationAnchor(QGraphicsView::AnchorUnderMouse);
}

} // namespace treelens
