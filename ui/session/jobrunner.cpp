#include "ui/session/jobrunner.h"

#include <QElapsedTimer>
#include <QMetaObject>

#include "core/runtime/computecontext.h"
#include "core/training/training.h"
#include "ui/session/sentencepipeline.h"

namespace treelens {

namespace {

/// At most one progress report per 50 ms (and always the last unit).
class ProgressThrottle {
public:
    bool due(int done, int total)
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        if (m_clock.isValid() && m_clock.elapsed() < 50 && done != total)
            return false;
        m_clock.restart();
        return true;
    }

private:
    std::mutex m_mutex;
    QElapsedTimer m_clock;
};

} // namespace

JobRunner::JobRunner(QObject *parent)
    : QObject(parent), m_pipeline(std::make_shared<SentencePipeline>(m_encoders)),
      m_alive(std::make_shared<std::atomic<bool>>(true))
{
    qRegisterMetaType<std::shared_ptr<const Sentence>>();
    qRegisterMetaType<std::shared_ptr<const std::vector<Sentence>>>();
    qRegisterMetaType<ParserConfig>();
    qRegisterMetaType<std::shared_ptr<const Analysis>>();
    qRegisterMetaType<std::shared_ptr<const EncoderInfo>>();
    qRegisterMetaType<std::shared_ptr<const CorpusAnalysis>>();
    qRegisterMetaType<TrainProgress>();
    // The document lane's one thread owns the parser: it must never expire.
    m_documentLane.setMaxThreadCount(1);
    m_documentLane.setExpiryTimeout(-1);
    m_documentLane.setObjectName(QStringLiteral("treelens-document"));
    m_layoutLane.setMaxThreadCount(1);
    m_layoutLane.setObjectName(QStringLiteral("treelens-layout"));
    m_backgroundLane.setMaxThreadCount(2);
    m_backgroundLane.setObjectName(QStringLiteral("treelens-background"));
}

JobRunner::~JobRunner()
{
    m_alive->store(false);
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        for (auto &[group, id] : m_latest)
            id = m_nextId.fetch_add(1) + 1; // every running job sees itself superseded
    }
    m_documentLane.waitForDone();
    m_layoutLane.waitForDone();
    m_backgroundLane.waitForDone();
}

QThreadPool &JobRunner::pool(Lane lane)
{
    return lane == Lane::Document ? m_documentLane : lane == Lane::Layout ? m_layoutLane : m_backgroundLane;
}

bool JobRunner::stale(const QString &group, quint64 id) const
{
    std::lock_guard<std::mutex> lock(m_mutex);
    auto it = m_latest.find(group);
    return it == m_latest.end() || it->second != id;
}

quint64 JobRunner::enqueue(Lane lane, const QString &group, QObject *receiver,
                           std::function<void(const JobProgress &)> onProgress, Work work)
{
    const quint64 id = m_nextId.fetch_add(1) + 1;
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_latest[group] = id;
    }
    if (m_pending[group]++ == 0 && group == documentGroup())
        Q_EMIT busyChanged(true);
    if (group == documentGroup())
        ++m_documentPending;
    QPointer<QObject> target(receiver ? receiver : this);
    auto alive = m_alive;
    auto throttle = std::make_shared<ProgressThrottle>();
    pool(lane).start([this, id, group, target, alive, throttle, onProgress = std::move(onProgress), work = std::move(work)] {
        std::function<void()> deliver;
        if (!stale(group, id)) {
            RunControl control;
            control.cancelled = [this, group, id] { return stale(group, id) || stopRequested(group, id); };
            control.progress = [this, id, group, target, alive, throttle, onProgress](std::size_t done, std::size_t total,
                                                                                    const std::string &stage) {
                if (!throttle->due(static_cast<int>(done), static_cast<int>(total)))
                    return;
                const JobProgress p{id, static_cast<int>(done), static_cast<int>(total), QString::fromStdString(stage)};
                QMetaObject::invokeMethod(
                    this,
                    [this, group, alive, target, onProgress, p] {
                        if (!alive->load() || stale(group, p.job))
                            return;
                        if (group == documentGroup())
                            Q_EMIT progressChanged(p.job, p.done, p.total, p.stage);
                        if (onProgress && target)
                            onProgress(p);
                    },
                    Qt::QueuedConnection);
            };
            try {
                deliver = work(id, control);
            } catch (const std::exception &e) {
                // A job never takes the app down: a document job fails with a message
                // (typed jobs catch their own errors: see submit()).
                const QString message = QStringLiteral("internal error: %1").arg(QString::fromUtf8(e.what()));
                if (group == documentGroup())
                    deliver = [this, id, message] { Q_EMIT jobFailed(id, message); };
            }
        }
        // Always come back to the GUI thread: the pending count must stay exact.
        QMetaObject::invokeMethod(
            this,
            [this, id, group, target, alive, deliver = std::move(deliver)] {
                if (!alive->load())
                    return;
                if (deliver && target && !stale(group, id))
                    deliver();
                finish(group);
            },
            Qt::QueuedConnection);
    });
    return id;
}

quint64 JobRunner::submitDeferred(Lane lane, const QString &group, QObject *receiver,
                                  std::function<std::function<void()>(const RunControl &)> work)
{
    return enqueue(lane, group, receiver, {},
                   [work = std::move(work)](quint64, const RunControl &control) { return work(control); });
}

void JobRunner::finish(const QString &group)
{
    if (--m_pending[group] == 0 && group == documentGroup())
        Q_EMIT busyChanged(false);
    if (group == documentGroup())
        --m_documentPending;
}

bool JobRunner::stopRequested(const QString &group, quint64 id) const
{
    std::lock_guard<std::mutex> lock(m_mutex);
    auto it = m_stop.find(group);
    return it != m_stop.end() && it->second == id;
}

void JobRunner::requestStop(const QString &group)
{
    std::lock_guard<std::mutex> lock(m_mutex);
    auto it = m_latest.find(group);
    if (it != m_latest.end())
        m_stop[group] = it->second;
}

void JobRunner::cancelGroup(const QString &group)
{
    std::lock_guard<std::mutex> lock(m_mutex);
    auto it = m_latest.find(group);
    if (it != m_latest.end())
        it->second = m_nextId.fetch_add(1) + 1; // an id no job has: all are stale
}

bool JobRunner::isRunning(const QString &group) const
{
    auto it = m_pending.find(group);
    return it != m_pending.end() && it->second > 0;
}

quint64 JobRunner::currentGeneration() const
{
    std::lock_guard<std::mutex> lock(m_mutex);
    auto it = m_latest.find(documentGroup());
    return it == m_latest.end() ? 0 : it->second;
}

void JobRunner::cancel() { cancelGroup(documentGroup()); }

void JobRunner::setParserConfig(const ParserConfig &config) { m_config = config; }

void JobRunner::setModelPath(const QString &path)
{
    m_modelPath = path;
    if (path.isEmpty())
        return;
    m_encoders.forgetFailure(path.toStdString()); // chosen again: try again (the file may have been fixed)
    // Not a document job: a new sentence must not cancel loading the model.
    auto alive = m_alive;
    m_documentLane.start([this, path, alive] {
        auto encoder = m_encoders.get(path.toStdString());
        QMetaObject::invokeMethod(
            this,
            [this, path, alive, info = encoder ? std::make_shared<const EncoderInfo>((*encoder)->info()) : nullptr,
             error = encoder ? QString() : QString::fromStdString(encoder.message())] {
                if (!alive->load())
                    return;
                if (info)
                    Q_EMIT modelLoaded(path, info);
                else
                    Q_EMIT modelFailed(0, error);
            },
            Qt::QueuedConnection);
    });
}

namespace {

/// What the document jobs hand back to the GUI thread.
std::function<void()> deliverSentence(JobRunner *runner, quint64 id, SentencePipeline::Output out)
{
    return [runner, id, out = std::move(out)]() {
        if (!out.sentence) {
            Q_EMIT runner->jobFailed(id, QString::fromStdString(out.error));
            return;
        }
        const QString modelError = QString::fromStdString(out.modelError);
        Q_EMIT runner->resultAvailable(id, out.sentence, out.analysis, modelError);
        if (!out.analysis && !modelError.isEmpty())
            Q_EMIT runner->modelFailed(id, modelError);
    };
}

} // namespace

quint64 JobRunner::requestParse(const QString &text)
{
    auto pipeline = m_pipeline;
    return enqueue(Lane::Document, documentGroup(), this, {},
                   [this, pipeline, text = text.toStdString(), config = m_config, model = m_modelPath.toStdString(),
                    ablate = m_ablate](quint64 id, const RunControl &control) {
                       return deliverSentence(this, id, pipeline->runText(text, config, model, control, ablate));
                   });
}

quint64 JobRunner::requestSentence(std::shared_ptr<const Sentence> sentence)
{
    auto pipeline = m_pipeline;
    return enqueue(Lane::Document, documentGroup(), this, {},
                   [this, pipeline, sentence = std::move(sentence), config = m_config, model = m_modelPath.toStdString(),
                    ablate = m_ablate](quint64 id, const RunControl &control) {
                       return deliverSentence(this, id, pipeline->run(*sentence, config, model, control, ablate));
                   });
}

quint64 JobRunner::requestCorpusAnalysis(std::shared_ptr<const std::vector<Sentence>> corpus)
{
    return enqueue(
        Lane::Document, documentGroup(), this, {},
        [this, corpus = std::move(corpus), model = m_modelPath.toStdString()](quint64 id,
                                                                            const RunControl &control) -> std::function<void()> {
            auto fail = [this, id](const QString &message) -> std::function<void()> {
                return [this, id, message] { Q_EMIT jobFailed(id, message); };
            };
            if (model.empty())
                return fail(QStringLiteral("No model loaded."));
            auto encoder = m_encoders.get(model);
            if (!encoder)
                return fail(QString::fromStdString(encoder.message()));
            auto scored = scoreCorpusInduction(**encoder, *corpus, &control);
            if (!scored)
                return fail(QString::fromStdString(scored.message()));
            auto result = std::make_shared<CorpusAnalysis>();
            result->rows = std::move(scored->rows);
            result->reference = QString::fromStdString(scored->reference);
            result->meanF1 = scored->meanF1;
            result->scored = scored->scored;
            result->seconds = scored->seconds;
            std::shared_ptr<const CorpusAnalysis> done = std::move(result);
            return [this, id, done] { Q_EMIT corpusAnalysisAvailable(id, done); };
        });
}

quint64 JobRunner::requestTraining(std::shared_ptr<const TrainRecipe> recipe, const QString &resumeFrom)
{
    auto alive = m_alive;
    auto id = std::make_shared<std::atomic<quint64>>(0);
    auto throttle = std::make_shared<ProgressThrottle>();
    const quint64 job = submit<QString>(
        Lane::Background, trainingGroup(), this,
        [this, recipe, resume = resumeFrom.toStdString(), alive, id, throttle](const RunControl &control) -> Result<QString> {
            auto onProgress = [this, alive, id, throttle](const TrainProgress &p) {
                if (p.event == TrainProgress::Event::Batch && !throttle->due(0, 1))
                    return;
                QMetaObject::invokeMethod(
                    this,
                    [this, alive, id, p] {
                        if (alive->load() && !stale(trainingGroup(), id->load()))
                            Q_EMIT trainingProgress(id->load(), p);
                    },
                    Qt::QueuedConnection);
            };
            ComputeContext compute;
            compute.retainFreedMemory = true; // the app trains: keep freed batch memory in the heap from now on
            applyComputeContext(compute);
            if (auto s = trainModel(*recipe, resume, onProgress, &control); !s)
                return s.error();
            return QString::fromStdString(recipe->output);
        },
        [this](quint64 job, std::shared_ptr<const QString> output) { Q_EMIT trainingFinished(job, *output); },
        [this](quint64 job, const QString &message) { Q_EMIT trainingFailed(job, message); });
    id->store(job);
    return job;
}

} // namespace treelens
