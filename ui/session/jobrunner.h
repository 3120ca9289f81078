#pragma once
/// \file jobrunner.h
/// Runs parsing and inference off the GUI thread. One worker thread owns the
/// parser and the encoder (and so its device). Every request gets a generation
/// id; a newer request supersedes older ones: their work is cancelled through
/// RunControl (within one encoder layer / parser call) and their results are
/// dropped. Settings are captured on the GUI thread when the request is made.
/// Results arrive on the GUI thread through queued signals as immutable shared
/// pointers; progress is throttled to at most one signal per 50 ms.

#include <atomic>
#include <memory>
#include <vector>

#include <QObject>
#include <QString>
#include <QThread>

#include "core/data/analysis.h"
#include "core/data/sentence.h"
#include "core/encoders/encoder.h"
#include "core/eval/corpusinduction.h"
#include "core/parsing/parser.h"

namespace treelens {

class JobWorker;

/// A corpus analysis for the corpus table (core/eval/corpusinduction.h).
struct CorpusAnalysis {
    std::vector<CorpusSentenceScore> rows;
    /// Where the reference brackets came from: "gold constituency" or
    /// "gold dependency subtrees" (the yield of every word with dependents).
    QString reference;
    double meanF1 = -1.0;   ///< mean sentence F1 over scored sentences
    int scored = 0;
    double seconds = 0.0;
};

class JobRunner : public QObject {
    Q_OBJECT
public:
    explicit JobRunner(QObject *parent = nullptr);
    ~JobRunner() override;

    /// Parser settings are captured here, on the GUI thread, and sent with the next request.
    void setParserConfig(const ParserConfig &config);
    ParserConfig parserConfig() const { return m_config; }
    /// Encoder model run after parsing ("" = none). Loaded once on the worker
    /// thread; the load starts at once and ends in modelLoaded or modelFailed.
    void setModelPath(const QString &path);
    QString modelPath() const { return m_modelPath; }

    /// Tokenises and parses `text` (one sentence) and runs the encoder.
    quint64 requestParse(const QString &text);
    /// A sentence from a corpus: its tokens and gold trees are kept; a missing
    /// tree is filled by the parser; then the encoder runs.
    quint64 requestSentence(std::shared_ptr<const Sentence> sentence);
    /// Runs the encoder over a whole corpus (no parsing) and scores every
    /// sentence's induced brackets against its gold trees; progress is reported.
    quint64 requestCorpusAnalysis(std::shared_ptr<const std::vector<Sentence>> corpus);
    /// Cancels whatever is running (its result will not be delivered).
    void cancel();

    quint64 currentGeneration() const { return m_generation.load(); }
    bool isBusy() const { return m_pending > 0; }

Q_SIGNALS:
    void sentenceAvailable(quint64 generation, std::shared_ptr<const treelens::Sentence> sentence);
    void jobFailed(quint64 generation, const QString &message);
    /// Everything for one request at once: the sentence with its trees, the
    /// analysis (null without a model or when it failed; then modelError says why).
    /// Emitted before sentenceAvailable/analysisAvailable/modelFailed.
    void resultAvailable(quint64 generation, std::shared_ptr<const treelens::Sentence> sentence,
                         std::shared_ptr<const treelens::Analysis> analysis, const QString &modelError);
    /// The encoder's analysis of the sentence just delivered (after sentenceAvailable).
    void analysisAvailable(quint64 generation, std::shared_ptr<const treelens::Analysis> analysis);
    /// The model could not be loaded or run; the trees are still delivered.
    void modelFailed(quint64 generation, const QString &message);
    /// The model in modelPath() is loaded (info().device says where it runs).
    void modelLoaded(const QString &path, std::shared_ptr<const treelens::EncoderInfo> info);
    void corpusAnalysisAvailable(quint64 generation, std::shared_ptr<const treelens::CorpusAnalysis> result);
    /// done of total units of `stage` (total 0 = indeterminate). Throttled.
    void progressChanged(quint64 generation, int done, int total, const QString &stage);
    void busyChanged(bool busy);

private:
    quint64 next();
    void finish(quint64 generation);

    QThread m_thread;
    JobWorker *m_worker = nullptr;
    std::atomic<quint64> m_generation{0};
    ParserConfig m_config;
    QString m_modelPath;
    int m_pending = 0;
};

} // namespace treelens

Q_DECLARE_METATYPE(std::shared_ptr<const treelens::Sentence>)
Q_DECLARE_METATYPE(std::shared_ptr<const std::vector<treelens::Sentence>>)
Q_DECLARE_METATYPE(treelens::ParserConfig)
Q_DECLARE_METATYPE(std::shared_ptr<const treelens::Analysis>)
Q_DECLARE_METATYPE(std::shared_ptr<const treelens::EncoderInfo>)
Q_DECLARE_METATYPE(std::shared_ptr<const treelens::CorpusAnalysis>)
