#include "ui/session/jobrunner.h"

#include "core/text/tokenizer.h"

namespace treelens {

/// Lives on the worker thread; owns the parser (Link Grammar dictionaries are
/// expensive to load and not shared between threads).
class ParseWorker : public QObject {
    Q_OBJECT
public:
    explicit ParseWorker(const std::atomic<quint64> *latest) : m_latest(latest) {}

    void parse(quint64 generation, const QString &text, const ParserConfig &config)
    {
        // Superseded before it started: skip the work, but still report so the
        // runner's count of outstanding requests stays exact.
        if (generation != m_latest->load()) {
            Q_EMIT finished(generation, nullptr, QString());
            return;
        }
        if (!m_parser || config.backend != m_config.backend || config.timeoutSeconds != m_config.timeoutSeconds
            || config.maxWords != m_config.maxWords) {
            auto p = createParser(config);
            if (!p) {
                Q_EMIT finished(generation, nullptr, QString::fromStdString(p.message()));
                return;
            }
            m_parser = std::move(*p);
            m_config = config;
        }
        Sentence s;
        s.id = "input";
        s.text = text.trimmed().toStdString();
        s.tokens = Tokenizer().tokenize(s.text);
        if (s.tokens.empty()) {
            Q_EMIT finished(generation, nullptr, QStringLiteral("Type a sentence to analyse."));
            return;
        }
        auto r = m_parser->parse(s);
        if (!r) {
            Q_EMIT finished(generation, nullptr, QString::fromStdString(r.message()));
            return;
        }
        Q_EMIT finished(generation, std::make_shared<const Sentence>(std::move(*r)), QString());
    }

Q_SIGNALS:
    void finished(quint64 generation, std::shared_ptr<const treelens::Sentence> sentence, const QString &error);

private:
    const std::atomic<quint64> *m_latest;
    std::unique_ptr<Parser> m_parser;
    ParserConfig m_config;
};

JobRunner::JobRunner(QObject *parent) : QObject(parent)
{
    qRegisterMetaType<std::shared_ptr<const Sentence>>();
    qRegisterMetaType<ParserConfig>();
    m_thread.setObjectName(QStringLiteral("treelens-jobs"));
    m_worker = new ParseWorker(&m_generation);
    m_worker->moveToThread(&m_thread);
    connect(&m_thread, &QThread::finished, m_worker, &QObject::deleteLater);
    connect(this, &JobRunner::parseRequested, m_worker, &ParseWorker::parse, Qt::QueuedConnection);
    connect(m_worker, &ParseWorker::finished, this, &JobRunner::onWorkerResult, Qt::QueuedConnection);
    m_thread.start();
}

JobRunner::~JobRunner()
{
    m_generation.fetch_add(1);
    m_thread.quit();
    m_thread.wait();
}

void JobRunner::setParserConfig(const ParserConfig &config) { m_config = config; }

quint64 JobRunner::requestParse(const QString &text)
{
    const quint64 gen = m_generation.fetch_add(1) + 1;
    if (m_pending++ == 0)
        Q_EMIT busyChanged(true);
    Q_EMIT parseRequested(gen, text, m_config);
    return gen;
}

void JobRunner::cancel()
{
    m_generation.fetch_add(1);
}

void JobRunner::onWorkerResult(quint64 generation, std::shared_ptr<const Sentence> sentence, const QString &error)
{
    if (generation == m_generation.load()) {
        if (sentence)
            Q_EMIT sentenceAvailable(generation, std::move(sentence));
        else
            Q_EMIT jobFailed(generation, error);
    }
    if (--m_pending == 0)
        Q_EMIT busyChanged(false);
}

} // namespace treelens

#include "jobrunner.moc"
