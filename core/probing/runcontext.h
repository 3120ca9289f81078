#pragma once
/// \file runcontext.h
/// What every stage of a probing run (core/probing/run*.h) shares: the caller's
/// callbacks (progress lines, learning-curve points, finished tasks) and
/// cancellation, and the number formatting of the progress lines and the text
/// report. Torch-free.

#include <chrono>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "core/base/runcontrol.h"

namespace treelens {

/// One epoch of one probe, for live learning curves.
struct ProbeCurvePoint {
    std::string task;    ///< e.g. "treedepth", "structural-distance"
    std::string variant; ///< "" (the model), "control" or "random-init"
    int layer = 0;
    std::string pooling; ///< "cls" / "mean"; "" for structural probes
    int epoch = 0;       ///< 1-based
    double trainLoss = 0.0;
    double devLoss = 0.0;   ///< NaN without dev
    double devMetric = 0.0; ///< accuracy / MSE (sentence), UUAS / root accuracy (structural); NaN without dev
};

struct ProbeRunCallbacks {
    /// Progress lines (what the CLI prints to stderr after "probe: ").
    std::function<void(const std::string &line)> progress;
    /// Once per epoch of every probe trained.
    std::function<void(const ProbeCurvePoint &point)> curve;
    /// Once per task, when its results (all variants) are complete.
    std::function<void(const std::string &task)> taskFinished;
};

using ProbeClock = std::chrono::steady_clock;

inline double secondsSince(ProbeClock::time_point t0)
{
    return std::chrono::duration<double>(ProbeClock::now() - t0).count();
}

/// The caller's callbacks and cancellation, as the stages use them. Holds
/// references: it lives no longer than the runProbes call that made it.
class ProbeRunContext {
public:
    ProbeRunContext(const ProbeRunCallbacks &callbacks, const RunControl *control)
        : m_callbacks(callbacks), m_control(control)
    {
    }

    void say(const std::string &line) const;
    bool cancelled() const { return m_control && m_control->isCancelled(); }
    const RunControl *control() const { return m_control; }
    void curve(const ProbeCurvePoint &point) const;
    void finished(const std::string &task) const;
    /// A RunControl for a stage that reports "done/total": cancellation passes
    /// through; progress becomes a line "what: stage done/total" when the stage
    /// starts to report and then at most every 5 s, plus the final count when the
    /// stage took a second or more.
    RunControl progressControl(const std::string &what) const;

private:
    const ProbeRunCallbacks &m_callbacks;
    const RunControl *m_control;
};

/// One progress line, handed to the context when the statement ends:
/// `ProgressLine(ctx) << "parsed in " << seconds << " s";`
class ProgressLine {
public:
    explicit ProgressLine(const ProbeRunContext &ctx) : m_ctx(ctx) {}
    ~ProgressLine() { m_ctx.say(m_s.str()); }
    ProgressLine(const ProgressLine &) = delete;
    ProgressLine &operator=(const ProgressLine &) = delete;
    template <class T> ProgressLine &operator<<(const T &v)
    {
        m_s << v;
        return *this;
    }

private:
    const ProbeRunContext &m_ctx;
    std::ostringstream m_s;
};

/// `v` with `digits` decimals (printf "%.*f"), "-" when not finite, no "-0.00".
std::string probeFixed(double v, int digits);

/// A file list for the report: up to three joined by ", ", else "first ... last (N files)".
std::string probeFileList(const std::vector<std::string> &files);

} // namespace treelens
