// The job system beyond the document jobs: typed jobs in groups (a newer job
// supersedes an older one of its group only), errors and exceptions as failed
// jobs, receivers that die, one shared encoder per model file, and training
// from the app with typed progress on the GUI thread and cancel.
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QThread>

#include <atomic>
#include <filesystem>

#include "core/parsing/neural/depparser.h"
#include "core/training/training.h"
#include "ui/session/jobrunner.h"
#include "sessiontest.h"
#include "testutil.h"

using namespace treelens;

namespace {
QCoreApplication &app() { return test::sessionApp(); }
using test::waitFor;

/// Work that runs until cancelled (or 10 s), then reports how it ended.
Result<int> spin(const RunControl &c)
{
    QElapsedTimer t;
    t.start();
    while (!c.isCancelled() && t.elapsed() < 10000)
        QThread::msleep(5);
    return c.isCancelled() ? Result<int>(Error{"cancelled"}) : Result<int>(1);
}
} // namespace

TEST(Jobs, ANewerJobSupersedesItsGroupOnlyAndResultsArriveOnTheGuiThread)
{
    app();
    JobRunner jobs;
    std::vector<int> results;
    std::vector<QString> errors;
    auto onResult = [&](quint64, std::shared_ptr<const int> v) {
        EXPECT_EQ(QThread::currentThread(), QCoreApplication::instance()->thread());
        results.push_back(*v);
    };
    auto onError = [&](quint64, const QString &m) { errors.push_back(m); };
    QElapsedTimer t;
    t.start();
    // Group a: a long job superseded by a quick one; group b runs beside it untouched.
    jobs.submit<int>(JobRunner::Lane::Background, "a", nullptr, spin, onResult, onError);
    jobs.submit<int>(JobRunner::Lane::Background, "b", nullptr, [](const RunControl &) -> Result<int> { return 7; },
                     onResult, onError);
    QThread::msleep(50);
    jobs.submit<int>(JobRunner::Lane::Background, "a", nullptr, [](const RunControl &) -> Result<int> { return 42; },
                     onResult, onError);
    ASSERT_TRUE(waitFor([&] { return results.size() == 2 && !jobs.isRunning("a"); }));
    EXPECT_LT(t.elapsed(), 5000) << "the superseded job did not stop";
    EXPECT_EQ(std::set<int>(results.begin(), results.end()), (std::set<int>{7, 42}));
    EXPECT_TRUE(errors.empty()) << "a superseded job's error is not delivered";
}

TEST(Jobs, CancelStopsWithin200MsAndDeliversNothing)
{
    app();
    JobRunner jobs;
    int delivered = 0;
    jobs.submit<int>(JobRunner::Lane::Background, "probing", nullptr, spin,
                     [&](quint64, std::shared_ptr<const int>) { ++delivered; },
                     [&](quint64, const QString &) { ++delivered; });
    ASSERT_TRUE(waitFor([&] { return jobs.isRunning("probing"); }));
    QThread::msleep(30);
    QElapsedTimer t;
    t.start();
    jobs.cancelGroup("probing");
    ASSERT_TRUE(waitFor([&] { return !jobs.isRunning("probing"); }));
    EXPECT_LT(t.elapsed(), 200);
    EXPECT_EQ(delivered, 0);
}

TEST(Jobs, ErrorsAndExceptionsBecomeFailedJobs)
{
    app();
    JobRunner jobs;
    QString error;
    jobs.submit<int>(JobRunner::Lane::Background, "x", nullptr,
                     [](const RunControl &) -> Result<int> { return Error{"file.conllu:3: bad column"}; },
                     [](quint64, std::shared_ptr<const int>) {}, [&](quint64, const QString &m) { error = m; });
    ASSERT_TRUE(waitFor([&] { return !error.isEmpty(); }));
    EXPECT_EQ(error, "file.conllu:3: bad column");
    error.clear();
    jobs.submit<int>(JobRunner::Lane::Background, "x", nullptr,
                     [](const RunControl &) -> Result<int> { throw std::runtime_error("boom"); },
                     [](quint64, std::shared_ptr<const int>) {}, [&](quint64, const QString &m) { error = m; });
    ASSERT_TRUE(waitFor([&] { return !error.isEmpty(); }));
    EXPECT_EQ(error, "internal error: boom");
}

TEST(Jobs, NothingIsDeliveredToADeadReceiver)
{
    app();
    JobRunner jobs;
    int delivered = 0;
    {
        QObject receiver;
        jobs.submit<int>(JobRunner::Lane::Background, "r", &receiver,
                         [](const RunControl &) -> Result<int> {
                             QThread::msleep(50);
                             return 1;
                         },
                         [&](quint64, std::shared_ptr<const int>) { ++delivered; });
    }
    ASSERT_TRUE(waitFor([&] { return !jobs.isRunning("r"); }));
    EXPECT_EQ(delivered, 0);
}

TEST(Jobs, ProgressIsThrottledAndEndsWithTheLastUnit)
{
    app();
    JobRunner jobs;
    std::vector<JobProgress> seen;
    bool done = false;
    jobs.submit<int>(
        JobRunner::Lane::Background, "p", nullptr,
        [](const RunControl &c) -> Result<int> {
            for (int i = 1; i <= 200; ++i) {
                c.report(static_cast<std::size_t>(i), 200, "counting");
                QThread::usleep(500);
            }
            return 0;
        },
        [&](quint64, std::shared_ptr<const int>) { done = true; }, {},
        [&](const JobProgress &p) { seen.push_back(p); });
    ASSERT_TRUE(waitFor([&] { return done; }));
    ASSERT_FALSE(seen.empty());
    EXPECT_LT(seen.size(), 20u); // ~100 ms of work, one report per 50 ms
    EXPECT_EQ(seen.back().done, 200);
    EXPECT_EQ(seen.back().stage, "counting");
}

TEST(Jobs, EveryJobSharesOneEncoderPerModelFile)
{
    app();
    const std::string model = defaultModelPath();
    if (model.empty())
        GTEST_SKIP() << "SKIPPED: the shipped model was not found";
    JobRunner jobs;
    std::shared_ptr<Encoder> first, second;
    int ready = 0;
    for (auto *slot : {&first, &second})
        jobs.submit<std::shared_ptr<Encoder>>(
            JobRunner::Lane::Background, slot == &first ? "one" : "two", nullptr,
            [&jobs, model](const RunControl &) { return jobs.encoders().get(model); },
            [slot, &ready](quint64, std::shared_ptr<const std::shared_ptr<Encoder>> e) {
                *slot = *e;
                ++ready;
            });
    ASSERT_TRUE(waitFor([&] { return ready == 2; }, 60000));
    EXPECT_EQ(first.get(), second.get());
    EXPECT_EQ(jobs.encoders().size(), 1u);
}

TEST(Jobs, TrainsFromTheAppWithTypedProgressAndCancel)
{
    app();
    const std::string dir = ::testing::TempDir() + "/jobs-training";
    std::filesystem::create_directories(dir);
    TrainRecipe r = *trainerDefaults("dependency-parser");
    r.data.train = r.data.dev = {test::testData("ui/three.conllu")};
    r.output = dir + "/tiny.safetensors";
    r.checkpoint = dir + "/tiny.ckpt";
    DepParserConfig m;
    m.wordDim = m.charFilters = m.lstmHidden = m.arcDim = m.relDim = 8;
    m.charDim = 4;
    m.lstmLayers = 1;
    r.modelJson = m.toJson();
    r.epochs = 3;
    r.batchWords = 50;
    r.threads = 1;
    r.storage = "f32";
    auto recipe = std::make_shared<const TrainRecipe>(r);

    JobRunner jobs;
    std::vector<TrainProgress> events;
    QString output, failure;
    QObject::connect(&jobs, &JobRunner::trainingProgress, [&](quint64, const TrainProgress &p) { events.push_back(p); });
    QObject::connect(&jobs, &JobRunner::trainingFinished, [&](quint64, const QString &o) { output = o; });
    QObject::connect(&jobs, &JobRunner::trainingFailed, [&](quint64, const QString &m) { failure = m; });
    jobs.requestTraining(recipe);
    ASSERT_TRUE(waitFor([&] { return !output.isEmpty() || !failure.isEmpty(); }, 120000));
    ASSERT_TRUE(failure.isEmpty()) << failure.toStdString();
    EXPECT_EQ(output.toStdString(), r.output);
    ASSERT_GE(events.size(), 3u);
    EXPECT_EQ(events.front().event, TrainProgress::Event::Started);
    EXPECT_EQ(events.back().event, TrainProgress::Event::Finished);
    int evaluated = 0;
    for (const auto &p : events)
        evaluated += p.event == TrainProgress::Event::Evaluated;
    EXPECT_EQ(evaluated, 3);

    // Cancelled: the run stops with a checkpoint and says so.
    TrainRecipe longer = r;
    longer.epochs = 1000;
    longer.patience = 0;
    output.clear();
    jobs.requestTraining(std::make_shared<const TrainRecipe>(longer));
    ASSERT_TRUE(waitFor([&] { return events.back().event == TrainProgress::Event::Evaluated; }, 60000));
    jobs.cancelGroup(JobRunner::trainingGroup());
    ASSERT_TRUE(waitFor([&] { return !jobs.isRunning(JobRunner::trainingGroup()); }, 10000));
    EXPECT_TRUE(output.isEmpty());
    EXPECT_TRUE(std::filesystem::exists(r.checkpoint));
}
