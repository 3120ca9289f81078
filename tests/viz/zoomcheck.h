#pragma once
// One check the tree views share: "+" zooms about the centre of what is shown.

#include <QApplication>
#include <QGraphicsScene>
#include <QGraphicsView>
#include <QKeyEvent>
#include <QPointF>
#include <QString>

#include <gtest/gtest.h>

namespace treelens::test {

// Centres `view` on its scene, presses "+", and expects the scene point at the viewport's
// centre to stay within 4 scene units.
inline void expectKeyboardZoomKeepsCentre(QGraphicsView &view)
{
    view.centerOn(view.scene()->sceneRect().center());
    const QPointF before = view.mapToScene(view.viewport()->rect().center());
    QKeyEvent plus(QEvent::KeyPress, Qt::Key_Plus, Qt::NoModifier, QStringLiteral("+"));
    QApplication::sendEvent(&view, &plus);
    QApplication::processEvents();
    const QPointF after = view.mapToScene(view.viewport()->rect().center());
    EXPECT_NEAR(after.x(), before.x(), 4.0);
    EXPECT_NEAR(after.y(), before.y(), 4.0);
}

} // namespace treelens::test
