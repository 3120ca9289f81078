#include <QCoreApplication>
#include <QElapsedTimer>

#include "ui/session/jobrunner.h"
#include "testutil.h"

using namespace treelens;

namespace {
int argc = 1;
char arg0[] = "test";
char *argv[] = {arg0, nullptr};
QCoreApplication &app()
{
    static QCoreApplication a(argc, argv);
    return a;
}

// Spins the event loop until `done` or the timeout.
template <class F>
bool waitFor(F done, int ms = 20000)
{
    QElapsedTimer t;
    t.start();
    while (!done() && t.elapsed() < ms)
        QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
    return done();
}
} // namespace

TEST(JobRunner, DeliversParsedSentenceOffTheGuiThread)
{
    app();
    JobRunner runner;
    std::shared_ptr<const Sentence> got;
    QString error;
    QObject::connect(&runner, &JobRunner::sentenceAvailable, [&](quint64, std::shared_ptr<const Sentence> s) { got = s; });
    QObject::connect(&runner, &JobRunner::jobFailed, [&](quint64, const QString &m) { error = m; });
    runner.requestParse(QStringLiteral("The old man saw a red kite."));
    ASSERT_TRUE(waitFor([&] { return got || !error.isEmpty(); })) << "no result within 20 s";
    ASSERT_TRUE(got) << error.toStdString();
    EXPECT_EQ(got->tokens.size(), 8u);
    ASSERT_TRUE(got->dependency);
    EXPECT_TRUE(got->dependency->validate().ok());
}

TEST(JobRunner, NewerRequestSupersedesOlder)
{
    app();
    JobRunner runner;
    std::vector<quint64> delivered;
    bool busy = false;
    QObject::connect(&runner, &JobRunner::sentenceAvailable, [&](quint64 g, std::shared_ptr<const Sentence>) { delivered.push_back(g); });
    QObject::connect(&runner, &JobRunner::jobFailed, [&](quint64 g, const QString &) { delivered.push_back(g); });
    QObject::connect(&runner, &JobRunner::busyChanged, [&](bool b) { busy = b; });
    runner.requestParse(QStringLiteral("A first sentence that will be superseded."));
    runner.requestParse(QStringLiteral("Another one."));
    const quint64 last = runner.requestParse(QStringLiteral("The last one wins."));
    EXPECT_TRUE(busy);
    ASSERT_TRUE(waitFor([&] { return !busy; }));
    ASSERT_EQ(delivered.size(), 1u);
    EXPECT_EQ(delivered[0], last);
}

TEST(JobRunner, CancelDropsTheResult)
{
    app();
    JobRunner runner;
    int delivered = 0;
    bool busy = false;
    QObject::connect(&runner, &JobRunner::sentenceAvailable, [&](quint64, std::shared_ptr<const Sentence>) { ++delivered; });
    QObject::connect(&runner, &JobRunner::busyChanged, [&](bool b) { busy = b; });
    runner.requestParse(QStringLiteral("This result is never shown."));
    runner.cancel();
    ASSERT_TRUE(waitFor([&] { return !busy; }));
    EXPECT_EQ(delivered, 0);
}
