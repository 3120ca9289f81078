// probereport: the typed result of a probing run; see probereport.h.
#include "core/probing/probereport.h"

#include <cmath>

namespace treelens {

double reportRounded(double value, int digits)
{
    if (!std::isfinite(value))
        return kNoValue;
    const double f = std::pow(10.0, digits);
    const double r = std::round(value * f) / f;
    return r == 0.0 ? 0.0 : r; // no "-0.0"
}

double reportPercent(double fraction) { return reportRounded(100.0 * fraction, 2); }

const SentenceProbeCell *SentenceProbeLayer::find(const std::string &name) const
{
    const auto it = pooling.find(name);
    return it == pooling.end() ? nullptr : &it->second;
}

const SentenceProbeTask *ProbeRunReport::sentenceTask(const std::string &name) const
{
    for (const auto &t : sentenceTasks)
        if (t.name == name)
            return &t;
    return nullptr;
}

const StructuralProbeTask *ProbeRunReport::structuralTask(const std::string &name) const
{
    for (const auto &t : structuralTasks)
        if (t.name == name)
            return &t;
    return nullptr;
}

bool ProbeRunReport::hasTask(const std::string &name) const
{
    if (sentenceTask(name) || structuralTask(name))
        return true;
    if (name == "unsupervised-parsing")
        return induction.has_value();
    return attention.summaries.count(name) > 0;
}

} // namespace treelens
