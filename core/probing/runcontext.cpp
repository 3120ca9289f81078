// runcontext: callbacks, cancellation and number formatting shared by the
// stages of a probing run; see runcontext.h.
#include "core/probing/runcontext.h"

#include <cmath>
#include <cstdio>
#include <memory>

#include "core/base/strings.h"

namespace treelens {

void ProbeRunContext::say(const std::string &line) const
{
    if (m_callbacks.progress)
        m_callbacks.progress(line);
}

void ProbeRunContext::curve(const ProbeCurvePoint &point) const
{
    if (m_callbacks.curve)
        m_callbacks.curve(point);
}

void ProbeRunContext::finished(const std::string &task) const
{
    if (m_callbacks.taskFinished)
        m_callbacks.taskFinished(task);
}

RunControl ProbeRunContext::progressControl(const std::string &what) const
{
    RunControl rc;
    if (m_control)
        rc.cancelled = m_control->cancelled;
    auto last = std::make_shared<ProbeClock::time_point>(ProbeClock::now());
    auto printed = std::make_shared<bool>(false);
    rc.progress = [this, what, last, printed](std::size_t done, std::size_t total, const std::string &stage) {
        const bool final = total > 0 && done >= total;
        if (!final && *printed && secondsSince(*last) < 5.0)
            return;
        if (final && !*printed && secondsSince(*last) < 1.0)
            return; // fast stages: the caller's summary line is enough
        *last = ProbeClock::now();
        *printed = true;
        ProgressLine(*this) << what << ": " << stage << " " << done << "/" << total;
    };
    return rc;
}

std::string probeFixed(double v, int digits)
{
    if (!std::isfinite(v))
        return "-";
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", digits, v);
    std::string s = buf;
    if (s == "-0" || s.rfind("-0.", 0) == 0) {
        bool zero = true;
        for (char c : s.substr(1))
            zero = zero && (c == '0' || c == '.');
        if (zero)
            s = s.substr(1);
    }
    return s;
}

std::string probeFileList(const std::vector<std::string> &files)
{
    if (files.size() <= 3)
        return join(files, ", ");
    return files.front() + " ... " + files.back() + " (" + std::to_string(files.size()) + " files)";
}

} // namespace treelens
