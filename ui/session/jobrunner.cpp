#include "ui/session/jobrunner.h"


#include <QElapsedTimer>

#include "core/text/tokenizer.h"

namespace treelens {

/// Lives on the worker thread; owns the parser (Link Grammar dictionaries are
/// expensive to load and not shared between threads) and the encoder (and so
/// its device).
class JobWorker : public QObject {
    Q_OBJECT
    /// Emits jobDone when a request handler returns, however it returns, so the
    /// runner's count of outstanding requests stays exact.
    struct DoneGuard {
        JobWorker *w;
        quint64 generation;
        ~DoneGuard() { Q_EMIT w->jobDone(generation); }
    };

public:
    explicit JobWorker(const std::atomic<quint64> *latest) : m_latest(latest) {}

    void loadModel(const QString &modelPath)
    {
        if (ensureEncoder(modelPath))
            Q_EMIT modelLoaded(modelPath, std::make_shared<const EncoderInfo>(m_encoder->info()));
        else if (!modelPath.isEmpty())
            Q_EMIT modelFailed(0, m_modelError);
    }

    void parseText(quint64 generation, const QString &text, const ParserConfig &config, const QString &modelPath)
    {
        DoneGuard done{this, generation};
        if (stale(generation))
            return;
        Sentence s;
        s.id = "input";
        s.text = text.trimmed().toStdString();
        s.tokens = Tokenizer().tokenize(s.text);
        if (s.tokens.empty()) {
            Q_EMIT finished(generation, nullptr, nullptr, QStringLiteral("Type a sentence to analyse."), QString());
            return;
        }
        run(generation, std::move(s), config, modelPath);
    }

    void analyseSentence(quint64 generation, std::shared_ptr<const Sentence> sentence, const ParserConfig &config,
                         const QString &modelPath)
    {
        DoneGuard done{this, generation};
        if (stale(generation))
            return;
        run(generation, *sentence, config, modelPath);
    }

    void analyseCorpus(quint64 generation, std::shared_ptr<const std::vector<Sentence>> corpus, const QString &modelPath)
    {
        DoneGuard done{this, generation};
        if (stale(generation))
            return;
        if (!ensureEncoder(modelPath)) {
            Q_EMIT finished(generation, nullptr, nullptr,
                            m_modelError.isEmpty() ? QStringLiteral("No model loaded.") : m_modelError, QString());
            return;
        }
        RunControl control;
        control.cancelled = [this, generation] { return stale(generation); };
        control.progress = [this, generation](std::size_t done, std::size_t total, const std::string &stage) {
            progress(generation, static_cast<int>(done), static_cast<int>(total), QString::fromStdString(stage));
        };
        auto scored = scoreCorpusInduction(*m_encoder, *corpus, &control);
        if (stale(generation))
            return;
        if (!scored) {
            Q_EMIT finished(generation, nullptr, nullptr, QString::fromStdString(scored.message()), QString());
            return;
        }
        auto result = std::make_shared<CorpusAnalysis>();
        result->rows = std::move(scored->rows);
        result->reference = QString::fromStdString(scored->reference);
        result->meanF1 = scored->meanF1;
        result->scored = scored->scored;
        result->seconds = scored->seconds;
        Q_EMIT corpusFinished(generation, std::move(result));
    }

Q_SIGNALS:
    void finished(quint64 generation, std::shared_ptr<const treelens::Sentence> sentence,
                  std::shared_ptr<const treelens::Analysis> analysis, const QString &error, const QString &modelError);
    void corpusFinished(quint64 generation, std::shared_ptr<const treelens::CorpusAnalysis> result);
    void modelLoaded(const QString &path, std::shared_ptr<const treelens::EncoderInfo> info);
    void modelFailed(quint64 generation, const QString &message);
    void progressed(quint64 generation, int done, int total, const QString &stage);
    void jobDone(quint64 generation);

private:
    /// Superseded: the runner counts every request, so a skipped one still reports.
    bool stale(quint64 generation) const { return generation != m_latest->load(); }

    void progress(quint64 generation, int done, int total, const QString &stage)
    {
        if (!m_progressClock.isValid() || m_progressClock.elapsed() >= 50 || done == total) {
            m_progressClock.restart();
            Q_EMIT progressed(generation, done, total, stage);
        }
    }

    bool ensureEncoder(const QString &modelPath)
    {
        if (modelPath.isEmpty())
            return false;
        if (m_encoder && modelPath == m_modelPath)
            return true;
        if (!m_encoder && modelPath == m_modelPath && !m_modelError.isEmpty())
            return false; // already failed: do not retry on every sentence
        m_encoder.reset();
        m_modelPath = modelPath;
        m_modelError.clear();
        auto e = loadEncoder(modelPath.toStdString());
        if (!e) {
            m_modelError = QString::fromStdString(e.message());
            return false;
        }
        m_encoder = std::move(*e);
        return true;
    }

    void run(quint64 generation, Sentence s, const ParserConfig &config, const QString &modelPath)
    {
        double parseMs = 0.0, encoderMs = 0.0;
        // Fill in the trees a corpus sentence lacks (all of them for typed text).
        if (!s.dependency || !s.constituency) {
            if (!m_parser || config.backend != m_config.backend || config.timeoutSeconds != m_config.timeoutSeconds
                || config.maxWords != m_config.maxWords || config.command != m_config.command
                || config.dependencyModel != m_config.dependencyModel || config.constituencyModel != m_config.constituencyModel
                || config.chunkLongerThan != m_config.chunkLongerThan || config.chunkMaxPiece != m_config.chunkMaxPiece
                || config.treeFile != m_config.treeFile) {
                auto p = createParser(config);
                if (!p) {
                    Q_EMIT finished(generation, nullptr, nullptr, QString::fromStdString(p.message()), QString());
                    return;
                }
                m_parser = std::move(*p);
                m_config = config;
            }
            progress(generation, 0, 0, QStringLiteral("Parsing"));
            QElapsedTimer parseClock;
            parseClock.start();
            auto r = m_parser->parse(s);
            parseMs = static_cast<double>(parseClock.nsecsElapsed()) / 1e6;
            if (!r) {
                // The encoder needs only the words: show its analysis without trees
                // rather than nothing (e.g. Link Grammar on a 200-word sentence).
                s.setMetadata("parse_error", r.message());
            }
            const bool goldDep = s.dependency.has_value(), goldConst = s.constituency.has_value();
            Sentence parsed = r ? std::move(*r) : s;
            if (goldDep) {
                parsed.dependency = s.dependency;
                parsed.setMetadata("dependency_source", "gold");
            }
            if (goldConst) {
                parsed.constituency = s.constituency;
                parsed.setMetadata("constituency_source", "gold");
            }
            s = std::move(parsed);
        } else {
            s.setMetadata("dependency_source", "gold");
            s.setMetadata("constituency_source", "gold");
        }
        std::shared_ptr<const Analysis> analysis;
        QString modelError;
        if (!modelPath.isEmpty() && !stale(generation)) {
            progress(generation, 0, 0, QStringLiteral("Running the encoder"));
            if (ensureEncoder(modelPath)) {
                RunControl control;
                control.cancelled = [this, generation] { return stale(generation); };
                QElapsedTimer encoderClock;
                encoderClock.start();
                auto a = m_encoder->analyze({EncoderInput{s.words(), s.dependency, s.constituency, {}}}, AnalyzeOptions{},
                                            &control);
                encoderMs = static_cast<double>(encoderClock.nsecsElapsed()) / 1e6;
                if (a)
                    analysis = std::make_shared<const Analysis>(std::move(a->front()));
                else
                    modelError = QString::fromStdString(a.message());
            } else {
                modelError = m_modelError;
            }
        }
        // Stage timings for the status bar and bench_gui (metadata is never written to CoNLL-U).
        s.setMetadata("timing.parse_ms", std::to_string(parseMs));
        s.setMetadata("timing.encoder_ms", std::to_string(encoderMs));
        Q_EMIT finished(generation, std::make_shared<const Sentence>(std::move(s)), std::move(analysis), QString(), modelError);
    }

    const std::atomic<quint64> *m_latest;
    std::unique_ptr<Parser> m_parser;
    ParserConfig m_config;
    std::unique_ptr<Encoder> m_encoder;
    QString m_modelPath;
    QString m_modelError;
    QElapsedTimer m_progressClock;
};

JobRunner::JobRunner(QObject *parent) : QObject(parent)
{
    qRegisterMetaType<std::shared_ptr<const Sentence>>();
    qRegisterMetaType<std::shared_ptr<const std::vector<Sentence>>>();
    qRegisterMetaType<ParserConfig>();
    qRegisterMetaType<std::shared_ptr<const Analysis>>();
    qRegisterMetaType<std::shared_ptr<const EncoderInfo>>();
    qRegisterMetaType<std::shared_ptr<const CorpusAnalysis>>();
    m_thread.setObjectName(QStringLiteral("treelens-jobs"));
    m_worker = new JobWorker(&m_generation);
    m_worker->moveToThread(&m_thread);
    connect(&m_thread, &QThread::finished, m_worker, &QObject::deleteLater);
    connect(m_worker, &JobWorker::finished, this,
            [this](quint64 generation, std::shared_ptr<const Sentence> sentence, std::shared_ptr<const Analysis> analysis,
                   const QString &error, const QString &modelError) {
                if (generation == m_generation.load()) {
                    if (sentence) {
                        Q_EMIT resultAvailable(generation, sentence, analysis, modelError);
                        Q_EMIT sentenceAvailable(generation, std::move(sentence));
                        if (analysis)
                            Q_EMIT analysisAvailable(generation, std::move(analysis));
                        else if (!modelError.isEmpty())
                            Q_EMIT modelFailed(generation, modelError);
                    } else {
                        Q_EMIT jobFailed(generation, error);
                    }
                }
            },
            Qt::QueuedConnection);
    connect(m_worker, &JobWorker::corpusFinished, this,
            [this](quint64 generation, std::shared_ptr<const CorpusAnalysis> result) {
                if (generation == m_generation.load())
                    Q_EMIT corpusAnalysisAvailable(generation, std::move(result));
            },
            Qt::QueuedConnection);
    connect(m_worker, &JobWorker::jobDone, this, &JobRunner::finish, Qt::QueuedConnection);
    connect(m_worker, &JobWorker::modelLoaded, this, &JobRunner::modelLoaded, Qt::QueuedConnection);
    connect(m_worker, &JobWorker::modelFailed, this, &JobRunner::modelFailed, Qt::QueuedConnection);
    connect(m_worker, &JobWorker::progressed, this,
            [this](quint64 generation, int done, int total, const QString &stage) {
                if (generation == m_generation.load())
                    Q_EMIT progressChanged(generation, done, total, stage);
            },
            Qt::QueuedConnection);
    m_thread.start();
}

JobRunner::~JobRunner()
{
    m_generation.fetch_add(1);
    m_thread.quit();
    m_thread.wait();
}

void JobRunner::setParserConfig(const ParserConfig &config) { m_config = config; }

void JobRunner::setModelPath(const QString &path)
{
    m_modelPath = path;
    QMetaObject::invokeMethod(m_worker, [w = m_worker, path] { w->loadModel(path); }, Qt::QueuedConnection);
}

quint64 JobRunner::next()
{
    const quint64 gen = m_generation.fetch_add(1) + 1;
    if (m_pending++ == 0)
        Q_EMIT busyChanged(true);
    return gen;
}

void JobRunner::finish(quint64)
{
    if (--m_pending == 0)
        Q_EMIT busyChanged(false);
}

quint64 JobRunner::requestParse(const QString &text)
{
    const quint64 gen = next();
    QMetaObject::invokeMethod(
        m_worker, [w = m_worker, gen, text, c = m_config, m = m_modelPath] { w->parseText(gen, text, c, m); },
        Qt::QueuedConnection);
    return gen;
}

quint64 JobRunner::requestSentence(std::shared_ptr<const Sentence> sentence)
{
    const quint64 gen = next();
    QMetaObject::invokeMethod(
        m_worker,
        [w = m_worker, gen, s = std::move(sentence), c = m_config, m = m_modelPath] { w->analyseSentence(gen, s, c, m); },
        Qt::QueuedConnection);
    return gen;
}

quint64 JobRunner::requestCorpusAnalysis(std::shared_ptr<const std::vector<Sentence>> corpus)
{
    const quint64 gen = next();
    QMetaObject::invokeMethod(
        m_worker, [w = m_worker, gen, c = std::move(corpus), m = m_modelPath] { w->analyseCorpus(gen, c, m); },
        Qt::QueuedConnection);
    return gen;
}

void JobRunner::cancel()
{
    m_generation.fetch_add(1);
}

} // namespace treelens

#include "jobrunner.moc"
