#include <QApplication>
#include <QElapsedTimer>

#include "ui/mainwindow.h"
#include "viz/treetextview.h"
#include "testutil.h"

using namespace treelens;

TEST(MainWindow, AnalysesASentenceAndShowsBothTrees)
{
    qputenv("XDG_CONFIG_HOME", QByteArray(::testing::TempDir().c_str()));
    int argc = 1;
    char arg0[] = "test";
    char *argv[] = {arg0, nullptr};
    QApplication app(argc, argv);
    MainWindow w;
    w.show();
    bool shown = false, ok = false;
    QObject::connect(&w, &MainWindow::analysisShown, [&](bool r) {
        shown = true;
        ok = r;
    });
    w.analyse(QStringLiteral("The old man saw a red kite."));
    QElapsedTimer t;
    t.start();
    while (!shown && t.elapsed() < 20000)
        QApplication::processEvents(QEventLoop::AllEvents, 20);
    ASSERT_TRUE(shown);
    ASSERT_TRUE(ok) << w.treeTextView()->toPlainText().toStdString();
    ASSERT_TRUE(w.document()->sentence());
    const QString text = w.treeTextView()->toPlainText();
    EXPECT_EQ(text, formatTreesAsText(*w.document()->sentence()));
    for (const char *word : {"old", "man", "saw", "red", "kite"})
        EXPECT_TRUE(text.contains(QString::fromLatin1(word)));
    EXPECT_TRUE(text.contains(QStringLiteral("Constituency tree")));
}
