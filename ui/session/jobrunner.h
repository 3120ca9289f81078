#pragma once
/// \file jobrunner.h
/// Runs parsing (and later inference) off the GUI thread. One worker thread owns
/// the parser; each request gets a generation id and a newer request supersedes
/// older ones (their results are dropped and their work is cancelled). Results
/// arrive on the GUI thread through queued signals as immutable shared pointers.

#include <atomic>
#include <memory>

#include <QObject>
#include <QString>
#include <QThread>

#include "core/data/analysis.h"
#include "core/data/sentence.h"
#include "core/parsing/parser.h"

namespace treelens {

class ParseWorker;

class JobRunner : public QObject {
    Q_OBJECT
public:
    explicit JobRunner(QObject *parent = nullptr);
    ~JobRunner() override;

    /// Parser settings are captured here, on the GUI thread, and sent with the next request.
    void setParserConfig(const ParserConfig &config);
    ParserConfig parserConfig() const { return m_config; }
    /// Encoder model run after parsing ("" = none). Loaded once on the worker thread.
    void setModelPath(const QString &path) { m_modelPath = path; }
    QString modelPath() const { return m_modelPath; }

    /// Tokenises and parses `text` (one sentence). Returns the request's generation id.
    quint64 requestParse(const QString &text);
    /// Cancels whatever is running (its result will not be delivered).
    void cancel();

    quint64 currentGeneration() const { return m_generation.load(); }

Q_SIGNALS:
    void sentenceAvailable(quint64 generation, std::shared_ptr<const treelens::Sentence> sentence);
    void jobFailed(quint64 generation, const QString &message);
    /// The encoder's analysis of the sentence just delivered (after sentenceAvailable).
    void analysisAvailable(quint64 generation, std::shared_ptr<const treelens::Analysis> analysis);
    /// The model could not be loaded or run; the trees are still delivered.
    void modelFailed(quint64 generation, const QString &message);
    void busyChanged(bool busy);

    // Internal: carries a request to the worker thread.
    void parseRequested(quint64 generation, const QString &text, const treelens::ParserConfig &config,
                        const QString &modelPath);

private:
    void onWorkerResult(quint64 generation, std::shared_ptr<const Sentence> sentence,
                        std::shared_ptr<const Analysis> analysis, const QString &error, const QString &modelError);

    QThread m_thread;
    ParseWorker *m_worker = nullptr;
    std::atomic<quint64> m_generation{0};
    ParserConfig m_config;
    QString m_modelPath;
    int m_pending = 0;
};

} // namespace treelens

Q_DECLARE_METATYPE(std::shared_ptr<const treelens::Sentence>)
Q_DECLARE_METATYPE(treelens::ParserConfig)
Q_DECLARE_METATYPE(std::shared_ptr<const treelens::Analysis>)
