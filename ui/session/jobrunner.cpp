#include "ui/session/jobrunner.h"

#include "core/encoders/encoder.h"
#include "core/text/tokenizer.h"

namespace treelens {

/// Lives on the worker thread; owns the parser (Link Grammar dictionaries are
/// expensive to load and not shared between threads) and the encoder (and so
/// its device).
class ParseWorker : public QObject {
    Q_OBJECT
public:
    explicit ParseWorker(const std::atomic<quint64> *latest) : m_latest(latest) {}

    void parse(quint64 generation, const QString &text, const ParserConfig &config, const QString &modelPath)
    {
        // Superseded before it started: skip the work, but still report so the
        // runner's count of outstanding requests stays exact.
        if (generation != m_latest->load()) {
            Q_EMIT finished(generation, nullptr, nullptr, QString(), QString());
            return;
        }
        if (!m_parser || config.backend != m_config.backend || config.timeoutSeconds != m_config.timeoutSeconds
            || config.maxWords != m_config.maxWords) {
            auto p = createParser(config);
            if (!p) {
                Q_EMIT finished(generation, nullptr, nullptr, QString::fromStdString(p.message()), QString());
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
            Q_EMIT finished(generation, nullptr, nullptr, QStringLiteral("Type a sentence to analyse."), QString());
            return;
        }
        auto r = m_parser->parse(s);
        if (!r) {
            Q_EMIT finished(generation, nullptr, nullptr, QString::fromStdString(r.message()), QString());
            return;
        }
        auto sentence = std::make_shared<const Sentence>(std::move(*r));
        std::shared_ptr<const Analysis> analysis;
        QString modelError;
        if (!modelPath.isEmpty() && generation == m_latest->load()) {
            if (!m_encoder || modelPath != m_modelPath) {
                m_encoder.reset();
                m_modelPath = modelPath;
                auto e = loadEncoder(modelPath.toStdString());
                if (e)
                    m_encoder = std::move(*e);
                else
                    m_modelError = QString::fromStdString(e.message());
            }
            if (m_encoder) {
                RunControl control;
                control.cancelled = [this, generation] { return generation != m_latest->load(); };
                auto a = m_encoder->analyze({EncoderInput{sentence->words(), sentence->dependency, sentence->constituency, {}}},
                                            AnalyzeOptions{}, &control);
                if (a)
                    analysis = std::make_shared<const Analysis>(std::move(a->front()));
                else
                    modelError = QString::fromStdString(a.message());
            } else {
                modelError = m_modelError;
            }
        }
        Q_EMIT finished(generation, std::move(sentence), std::move(analysis), QString(), modelError);
    }

Q_SIGNALS:
    void finished(quint64 generation, std::shared_ptr<const treelens::Sentence> sentence,
                  std::shared_ptr<const treelens::Analysis> analysis, const QString &error, const QString &modelError);

private:
    const std::atomic<quint64> *m_latest;
    std::unique_ptr<Parser> m_parser;
    ParserConfig m_config;
    std::unique_ptr<Encoder> m_encoder;
    QString m_modelPath;
    QString m_modelError;
};

JobRunner::JobRunner(QObject *parent) : QObject(parent)
{
    qRegisterMetaType<std::shared_ptr<const Sentence>>();
    qRegisterMetaType<ParserConfig>();
    qRegisterMetaType<std::shared_ptr<const Analysis>>();
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
    Q_EMIT parseRequested(gen, text, m_config, m_modelPath);
    return gen;
}

void JobRunner::cancel()
{
    m_generation.fetch_add(1);
}

void JobRunner::onWorkerResult(quint64 generation, std::shared_ptr<const Sentence> sentence,
                               std::shared_ptr<const Analysis> analysis, const QString &error, const QString &modelError)
{
    if (generation == m_generation.load()) {
        if (sentence) {
            Q_EMIT sentenceAvailable(generation, std::move(sentence));
            if (analysis)
                Q_EMIT analysisAvailable(generation, std::move(analysis));
            else if (!modelError.isEmpty())
                Q_EMIT modelFailed(generation, modelError);
        } else
            Q_EMIT jobFailed(generation, error);
    }
    if (--m_pending == 0)
        Q_EMIT busyChanged(false);
}

} // namespace treelens

#include "jobrunner.moc"
