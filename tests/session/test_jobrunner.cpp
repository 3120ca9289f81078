#include <cstdlib>
#include <set>

#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>

#include "ui/session/jobrunner.h"
#include "faultymodel.h"
#include "sessiontest.h"
#include "testutil.h"

using namespace treelens;

namespace {
QCoreApplication &app() { return test::sessionApp(); }
using test::waitFor;
} // namespace

TEST(JobRunner, DeliversParsedSentenceOffTheGuiThread)
{
    app();
    JobRunner runner;
    std::shared_ptr<const Sentence> got;
    QString error;
    QObject::connect(&runner, &JobRunner::resultAvailable,
                     [&](quint64, std::shared_ptr<const Sentence> s, std::shared_ptr<const Analysis>, const QString &) { got = s; });
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
    QObject::connect(&runner, &JobRunner::resultAvailable,
                     [&](quint64 g, std::shared_ptr<const Sentence>, std::shared_ptr<const Analysis>, const QString &) {
                         delivered.push_back(g);
                     });
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
    QObject::connect(&runner, &JobRunner::resultAvailable,
                     [&](quint64, std::shared_ptr<const Sentence>, std::shared_ptr<const Analysis>, const QString &) { ++delivered; });
    QObject::connect(&runner, &JobRunner::busyChanged, [&](bool b) { busy = b; });
    runner.requestParse(QStringLiteral("This result is never shown."));
    runner.cancel();
    ASSERT_TRUE(waitFor([&] { return !busy; }));
    EXPECT_EQ(delivered, 0);
}

#include <QTimer>
#include <thread>

#include "core/formats/corpus.h"
#include "ui/session/latencyprobe.h"

TEST(LatencyProbe, MeasuresABlockedEventLoop)
{
    app();
    LatencyProbe probe(5);
    probe.start();
    QElapsedTimer t;
    t.start();
    // Let the probe tick freely, then block the loop for 150 ms from inside it.
    QTimer::singleShot(50, [] { std::this_thread::sleep_for(std::chrono::milliseconds(150)); });
    while (t.elapsed() < 400)
        QCoreApplication::processEvents(QEventLoop::AllEvents, 5);
    probe.stop();
    EXPECT_GE(probe.maxStallMs(), 140.0);
    EXPECT_EQ(probe.stallsOver100ms(), 1);
    EXPECT_GT(probe.samples(), 10);
}

namespace {
std::shared_ptr<const std::vector<Sentence>> threeSentences()
{
    auto r = readCorpusFile(std::string(TREELENS_TEST_DATA_DIR) + "/ui/three.conllu", CorpusFormat::Conllu);
    EXPECT_TRUE(r.ok());
    return std::make_shared<const std::vector<Sentence>>(std::move(*r));
}
} // namespace

TEST(JobRunner, ScoresACorpusAgainstDependencySubtrees)
{
    app();
    const std::string model = defaultModelPath();
    if (model.empty())
        GTEST_SKIP() << "SKIPPED: the shipped model was not found";
    const auto corpus = threeSentences();
    JobRunner runner;
    runner.setModelPath(QString::fromStdString(model));
    std::shared_ptr<const CorpusAnalysis> result;
    int progress = 0;
    QObject::connect(&runner, &JobRunner::corpusAnalysisAvailable,
                     [&](quint64, std::shared_ptr<const CorpusAnalysis> r) { result = r; });
    QObject::connect(&runner, &JobRunner::progressChanged, [&](quint64, int, int, const QString &) { ++progress; });
    runner.requestCorpusAnalysis(corpus);
    ASSERT_TRUE(waitFor([&] { return result != nullptr; }, 60000));
    ASSERT_EQ(result->rows.size(), 3u);
    EXPECT_EQ(result->reference, QStringLiteral("gold dependency subtrees"));
    EXPECT_GT(progress, 0);

    // Independent reference: run the encoder here and score by hand against the
    // subtree spans read off the hand-written trees.
    auto enc = loadEncoder(model);
    ASSERT_TRUE(enc.ok());
    const std::vector<std::set<std::pair<int, int>>> gold = {
        {{0, 2}},                 // The cat | sat .
        {{0, 2}, {4, 6}},         // Mr. Vinken | of Elsevier (chairman's yield is the whole sentence)
        {},                       // Dogs bark loudly . : bark's yield is everything
    };
    for (std::size_t i = 0; i < 3; ++i) {
        auto a = (*enc)->analyze({EncoderInput{(*corpus)[i].words(), std::nullopt, std::nullopt, {}, {}, {}}});
        ASSERT_TRUE(a.ok());
        const int n = static_cast<int>((*corpus)[i].tokens.size());
        std::set<std::pair<int, int>> pred;
        for (const auto &b : a->front().inducedBrackets)
            if (b.second - b.first > 1 && b.second - b.first < n)
                pred.insert(b);
        double f1 = 100.0;
        if (!(gold[i].empty() && pred.empty())) {
            int hit = 0;
            for (const auto &p : pred)
                hit += gold[i].count(p) ? 1 : 0;
            f1 = hit == 0 ? 0.0 : 200.0 * hit / static_cast<double>(pred.size() + gold[i].size());
        }
        EXPECT_NEAR(result->rows[i].f1, f1, 1e-9) << "sentence " << i;
        EXPECT_EQ(result->rows[i].words, n);
    }
}

TEST(JobRunner, ANewRequestCancelsACorpusAnalysis)
{
    app();
    const std::string model = defaultModelPath();
    if (model.empty())
        GTEST_SKIP() << "SKIPPED: the shipped model was not found";
    // 600 sentences: long enough that it is still running when superseded.
    auto many = std::make_shared<std::vector<Sentence>>();
    const auto three = threeSentences();
    for (int i = 0; i < 200; ++i)
        many->insert(many->end(), three->begin(), three->end());
    JobRunner runner;
    runner.setModelPath(QString::fromStdString(model));
    bool corpusDelivered = false, busy = true;
    std::shared_ptr<const Sentence> got;
    QObject::connect(&runner, &JobRunner::corpusAnalysisAvailable, [&](quint64, auto) { corpusDelivered = true; });
    QObject::connect(&runner, &JobRunner::resultAvailable,
                     [&](quint64, std::shared_ptr<const Sentence> s, std::shared_ptr<const Analysis>, const QString &) { got = s; });
    QObject::connect(&runner, &JobRunner::busyChanged, [&](bool b) { busy = b; });
    int started = 0;
    QObject::connect(&runner, &JobRunner::progressChanged, [&](quint64, int done, int, const QString &) { started = done; });
    runner.requestCorpusAnalysis(many);
    ASSERT_TRUE(waitFor([&] { return started > 0; }, 60000));
    QElapsedTimer t;
    t.start();
    runner.cancel();
    ASSERT_TRUE(waitFor([&] { return !busy; }));
    std::printf("[ info ] corpus analysis stopped %lld ms after cancel()\n", static_cast<long long>(t.elapsed()));
    EXPECT_FALSE(corpusDelivered);
    // A new request after that runs normally.
    runner.requestCorpusAnalysis(many);
    ASSERT_TRUE(waitFor([&] { return busy; }));
    runner.requestSentence(std::make_shared<const Sentence>((*three)[0]));
    ASSERT_TRUE(waitFor([&] { return got != nullptr; }, 60000));
    ASSERT_TRUE(waitFor([&] { return !busy; }));
    EXPECT_FALSE(corpusDelivered);
    EXPECT_EQ(got->tokens.size(), 4u);
}

// Errors in one place (issue 44): a model whose forward throws (faultymodel.h) reaches the
// document as a model error naming the model and the sentence, not as a crash or an
// "internal error"; the sentence itself is still delivered.
TEST(JobRunner, AForwardThatThrowsIsAModelErrorNotACrash)
{
    app();
    std::string temp = QDir::tempPath().toStdString() + "/treelens-faulty-XXXXXX";
    const std::string dir = test::faultyHfModel(std::string(mkdtemp(temp.data())) + "/bert-faulty");
    if (dir.empty())
        GTEST_SKIP() << "SKIPPED: shared data 'fixtures/hf-transformers-reference' not found";
    JobRunner runner;
    runner.setModelPath(QString::fromStdString(dir));
    bool done = false;
    std::shared_ptr<const Sentence> sentence;
    std::shared_ptr<const Analysis> analysis;
    QString modelError, jobError;
    QObject::connect(&runner, &JobRunner::resultAvailable,
                     [&](quint64, std::shared_ptr<const Sentence> s, std::shared_ptr<const Analysis> a, const QString &m) {
                         sentence = s;
                         analysis = a;
                         modelError = m;
                         done = true;
                     });
    QObject::connect(&runner, &JobRunner::jobFailed, [&](quint64, const QString &m) {
        jobError = m;
        done = true;
    });
    runner.requestParse(QStringLiteral("The old man saw a red kite."));
    ASSERT_TRUE(waitFor([&] { return done; })) << "no result within 20 s";
    EXPECT_TRUE(jobError.isEmpty()) << jobError.toStdString();
    ASSERT_TRUE(sentence);
    EXPECT_FALSE(analysis);
    EXPECT_TRUE(modelError.contains(QStringLiteral("bert-faulty, analyze, sentence 1: the computation failed (index out of range")))
        << modelError.toStdString();
    EXPECT_FALSE(modelError.contains(QStringLiteral("internal error"))) << modelError.toStdString();
}
