#pragma once
// The QApplication and event-loop helpers shared by the UI test files, which run
// in one process (treelens_ui_tests): whichever test comes first creates the
// application (on the heap: a static QApplication crashes at exit).
#include <string>

#include <QApplication>
#include <QElapsedTimer>

#include <gtest/gtest.h>

namespace treelens::test {

inline QApplication &uiApp()
{
    static int argc = 1;
    static char arg0[] = "treelens_ui_tests";
    static char *argv[] = {arg0, nullptr};
    static QApplication *a = [] {
        if (auto *existing = qobject_cast<QApplication *>(QCoreApplication::instance()))
            return existing;
        qputenv("XDG_CONFIG_HOME", QByteArray(::testing::TempDir().c_str()) + "/treelens-ui-tests");
        auto *instance = new QApplication(argc, argv);
        QApplication::setOrganizationName(QStringLiteral("TreeLensTests"));
        QApplication::setApplicationName(QStringLiteral("TreeLensTests"));
        return instance;
    }();
    return *a;
}

/// Processes events until done() or `ms` milliseconds have passed; returns done().
template <class F>
bool waitFor(F done, int ms = 30000)
{
    QElapsedTimer t;
    t.start();
    while (!done() && t.elapsed() < ms)
        QApplication::processEvents(QEventLoop::AllEvents, 10);
    return done();
}

} // namespace treelens::test
