#pragma once
/// \file jobrunner.h
/// The one place that runs background work in the app: parsing and analysing
/// the current sentence, corpus scoring, probe runs, Graphviz layouts, and the
/// jobs still to come (pair scoring, training). Views and panels request work
/// here and never own threads.
///
/// - **Lanes.** Document jobs run one after another on one thread (it owns the
///   parser: Link Grammar's dictionaries are not shared between threads); layouts
///   on a thread of their own; long jobs (probing, training, pairs) on a pool of
///   two.
/// - **Groups and generations.** Every request gets a generation id from one
///   counter and belongs to a group ("document", "probing", "layout:<view>", …).
///   A newer request in a group supersedes the older ones there: their
///   RunControl reports cancelled (core polls it between units of work, so they
///   stop within ~200 ms) and their results are dropped. Document requests —
///   typed sentences, corpus sentences, corpus scoring — share the group
///   "document", so a new sentence stops a corpus scoring run.
/// - **Results** arrive on the GUI thread as immutable `shared_ptr<const T>`
///   through queued calls: the typed signals below for the document jobs, the
///   callbacks given to submit() for the others (dropped when their receiver is
///   gone). Progress is throttled to one report per 50 ms per job.
/// - **Models.** One EncoderCache: every job that runs a model file shares one
///   loaded encoder (its calls are serialised batch by batch).
/// Settings (parser, model path) are captured on the GUI thread when a request
/// is made.

#include <atomic>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <QObject>
#include <QPointer>
#include <QString>
#include <QThreadPool>

#include "core/base/result.h"
#include "core/base/runcontrol.h"
#include "core/data/analysis.h"
#include "core/data/sentence.h"
#include "core/encoders/common/encodercache.h"
#include "core/encoders/encoder.h"
#include "core/encoders/headablation.h"
#include "core/eval/corpusinduction.h"
#include "core/parsing/parser.h"
#include "core/training/recipe.h"
#include "core/training/trainprogress.h"

namespace treelens {

class SentencePipeline;

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

/// A job's progress, throttled (total 0 = indeterminate).
struct JobProgress {
    quint64 job = 0;
    int done = 0;
    int total = 0;
    QString stage;
};

class JobRunner : public QObject {
    Q_OBJECT
public:
    enum class Lane { Document, Layout, Background };
    static QString documentGroup() { return QStringLiteral("document"); }

    explicit JobRunner(QObject *parent = nullptr);
    ~JobRunner() override;

    // ---- the document jobs (group "document")

    /// Parser settings are captured here, on the GUI thread, and sent with the next request.
    void setParserConfig(const ParserConfig &config);
    ParserConfig parserConfig() const { return m_config; }
    /// Encoder model run after parsing ("" = none). Loaded once (into the shared
    /// cache) on the document thread; the load starts at once and ends in
    /// modelLoaded or modelFailed.
    void setModelPath(const QString &path);
    QString modelPath() const { return m_modelPath; }
    /// The heads switched off in every later document request (0-based; head -1: a whole
    /// layer), captured with the request as the parser settings are. Empty: none.
    void setAblation(const std::vector<HeadAblation> &ablate) { m_ablate = ablate; }
    const std::vector<HeadAblation> &ablation() const { return m_ablate; }

    /// Tokenises and parses `text` (one sentence) and runs the encoder.
    quint64 requestParse(const QString &text);
    /// A sentence from a corpus: its tokens and gold trees are kept; a missing
    /// tree is filled by the parser; then the encoder runs.
    quint64 requestSentence(std::shared_ptr<const Sentence> sentence);
    /// Runs the encoder over a whole corpus (no parsing) and scores every
    /// sentence's induced brackets against its gold trees; progress is reported.
    quint64 requestCorpusAnalysis(std::shared_ptr<const std::vector<Sentence>> corpus);
    /// Cancels the document jobs (their results will not be delivered).
    void cancel();

    /// The latest document request's generation.
    quint64 currentGeneration() const;
    /// Document jobs are outstanding.
    bool isBusy() const { return m_documentPending > 0; }

    // ---- training (group "training", background lane)

    /// Trains by `recipe` (validated by the trainer) from scratch or from the
    /// checkpoint `resumeFrom`; progress arrives as trainingProgress (Batch events
    /// at most every 100 ms, every other event), the end as trainingFinished or
    /// trainingFailed. cancelGroup("training") stops it after a checkpoint.
    quint64 requestTraining(std::shared_ptr<const TrainRecipe> recipe, const QString &resumeFrom = QString());
    static QString trainingGroup() { return QStringLiteral("training"); }

    // ---- any job

    /// Runs `work` on `lane` in `group` (superseding the group's older jobs), then
    /// `onResult` or `onError` on the GUI thread unless superseded, cancelled or
    /// `receiver` is gone. `onProgress` gets the throttled reports of the job's
    /// RunControl. Returns the job's generation id.
    template <class T>
    quint64 submit(Lane lane, const QString &group, QObject *receiver,
                   std::function<Result<T>(const RunControl &)> work,
                   std::function<void(quint64, std::shared_ptr<const T>)> onResult,
                   std::function<void(quint64, const QString &)> onError = {},
                   std::function<void(const JobProgress &)> onProgress = {})
    {
        return enqueue(lane, group, receiver, std::move(onProgress),
                       [work = std::move(work), onResult = std::move(onResult), onError = std::move(onError)](
                           quint64 id, const RunControl &control) -> std::function<void()> {
                           Result<T> r = Error{"job failed"};
                           try {
                               r = work(control);
                           } catch (const std::exception &e) {
                               r = Error{std::string("internal error: ") + e.what()};
                           }
                           if (r) {
                               auto value = std::make_shared<const T>(std::move(*r));
                               return [onResult, id, value] {
                                   if (onResult)
                                       onResult(id, value);
                               };
                           }
                           const QString message = QString::fromStdString(r.message());
                           return [onError, id, message] {
                               if (onError)
                                   onError(id, message);
                           };
                       });
    }

    /// The untyped form: `work` returns what to run on the GUI thread (views use
    /// it through viz/backgroundwork.h).
    quint64 submitDeferred(Lane lane, const QString &group, QObject *receiver,
                           std::function<std::function<void()>(const RunControl &)> work);

    /// Supersedes the jobs of `group` (running ones stop; no result is delivered).
    void cancelGroup(const QString &group);
    /// Asks the group's latest job to stop (its RunControl reports cancelled) but
    /// still delivers how it ended — usually the error "cancelled" — so the
    /// requester hears when it has stopped.
    void requestStop(const QString &group);
    /// Job `id` is the latest of `group` (its results and messages are still wanted).
    bool isCurrent(const QString &group, quint64 id) const { return !stale(group, id); }
    /// The group's latest job is outstanding.
    bool isRunning(const QString &group) const;
    /// The encoders loaded by any job.
    EncoderCache &encoders() { return m_encoders; }
    const EncoderCache &encoders() const { return m_encoders; }

Q_SIGNALS:
    void jobFailed(quint64 generation, const QString &message);
    /// Everything for one document request at once: the sentence with its trees, the
    /// analysis (null without a model or when it failed; then modelError says why).
    void resultAvailable(quint64 generation, std::shared_ptr<const treelens::Sentence> sentence,
                         std::shared_ptr<const treelens::Analysis> analysis, const QString &modelError);
    /// The model could not be loaded or run; the trees are still delivered.
    void modelFailed(quint64 generation, const QString &message);
    /// The model in modelPath() is loaded (info().device says where it runs).
    void modelLoaded(const QString &path, std::shared_ptr<const treelens::EncoderInfo> info);
    void corpusAnalysisAvailable(quint64 generation, std::shared_ptr<const treelens::CorpusAnalysis> result);
    /// Progress of the document jobs: done of total units of `stage` (total 0 = indeterminate). Throttled.
    void progressChanged(quint64 generation, int done, int total, const QString &stage);
    /// Document jobs started (true) or all ended (false).
    void busyChanged(bool busy);
    void trainingProgress(quint64 job, const treelens::TrainProgress &progress);
    /// The output model file is written.
    void trainingFinished(quint64 job, const QString &output);
    void trainingFailed(quint64 job, const QString &message);

private:
    using Work = std::function<std::function<void()>(quint64, const RunControl &)>;
    quint64 enqueue(Lane lane, const QString &group, QObject *receiver, std::function<void(const JobProgress &)> onProgress,
                    Work work);
    bool stale(const QString &group, quint64 id) const;
    bool stopRequested(const QString &group, quint64 id) const;
    void finish(const QString &group);
    QThreadPool &pool(Lane lane);

    QThreadPool m_documentLane, m_layoutLane, m_backgroundLane;
    std::atomic<quint64> m_nextId{0};
    mutable std::mutex m_mutex;
    std::map<QString, quint64> m_latest;  ///< group -> newest job id
    std::map<QString, quint64> m_stop;    ///< group -> job asked to stop (requestStop)
    int m_documentPending = 0;            ///< GUI thread only
    std::map<QString, int> m_pending;     ///< GUI thread only
    EncoderCache m_encoders;
    std::shared_ptr<SentencePipeline> m_pipeline; ///< used on the document lane only
    ParserConfig m_config;
    QString m_modelPath;
    std::vector<HeadAblation> m_ablate;
    std::shared_ptr<std::atomic<bool>> m_alive; ///< false once destroyed (queued calls check it)
};

} // namespace treelens

Q_DECLARE_METATYPE(std::shared_ptr<const treelens::Sentence>)
Q_DECLARE_METATYPE(std::shared_ptr<const std::vector<treelens::Sentence>>)
Q_DECLARE_METATYPE(treelens::ParserConfig)
Q_DECLARE_METATYPE(std::shared_ptr<const treelens::Analysis>)
Q_DECLARE_METATYPE(std::shared_ptr<const treelens::EncoderInfo>)
Q_DECLARE_METATYPE(std::shared_ptr<const treelens::CorpusAnalysis>)
Q_DECLARE_METATYPE(treelens::TrainProgress)
