#pragma once
/// \file trainprogress.h
/// The one progress report of every trainer (core/training/trainer.h), read by
/// the CLI's progress line and by the app alike. Torch-free.

#include <cmath>
#include <string>

namespace treelens {

struct TrainProgress {
    enum class Event {
        Started,      ///< data and model ready (message: what was read)
        Batch,        ///< every log_every steps: loss, throughput, ETA
        Evaluated,    ///< after a dev evaluation: devMetric, bestDevMetric, improved
        Checkpointed, ///< a checkpoint was written
        Finished,     ///< the output is written (message: the final report)
        Message,      ///< anything else worth a line
    };
    Event event = Event::Message;
    long step = 0;              ///< optimisation steps done
    long steps = 0;             ///< the run's step budget (0 = the epochs decide)
    int epoch = 0;              ///< 1-based epoch in progress
    int epochs = 0;             ///< the run's epoch budget (0 = the steps decide)
    long batch = 0;             ///< 1-based batch within the epoch
    long batches = 0;           ///< batches in this epoch
    double loss = NAN;          ///< mean training loss since the last report
    double accuracy = NAN;      ///< the family's own training accuracy, when it has one
    double lr = NAN;
    double stepsPerSecond = NAN;
    double unitsPerSecond = NAN; ///< words or tokens per second (see unit)
    std::string unit;           ///< "words", "tokens"
    double elapsedSeconds = 0.0; ///< over every session of this run (resumes included)
    double etaSeconds = NAN;    ///< until the step/epoch budget is spent (not counting early stopping)
    std::string metric;         ///< the dev metric's name, e.g. "LAS", "labelled F1", "held-out MLM loss"
    bool higherIsBetter = true;
    double devMetric = NAN;     ///< latest dev evaluation
    double bestDevMetric = NAN; ///< best so far
    bool improved = false;      ///< this evaluation is the best so far
    std::string devSummary;     ///< the family's dev figures in words ("UAS 88.10 LAS 85.31 UPOS 95.02")
    std::string message;

    bool hasDev() const { return !std::isnan(devMetric); }
};

/// One human-readable line (the CLI prints it on stderr after "train: ").
std::string formatTrainProgress(const TrainProgress &p);

} // namespace treelens
