#pragma once
// What the session tests share: one QCoreApplication and waiting on the event loop.
#include <QCoreApplication>
#include <QElapsedTimer>

namespace treelens::test {

inline QCoreApplication &sessionApp()
{
    static int argc = 1;
    static char arg0[] = "test";
    static char *argv[] = {arg0, nullptr};
    static QCoreApplication a(argc, argv);
    return a;
}

/// Spins the event loop until `done` or the timeout.
template <class F>
bool waitFor(F done, int ms = 20000)
{
    QElapsedTimer t;
    t.start();
    while (!done() && t.elapsed() < ms)
        QCoreApplication::processEvents(QEventLoop::AllEvents, 10);
    return done();
}

} // namespace treelens::test
