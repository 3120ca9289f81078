#pragma once
/// \file backgroundjobs.h
/// The app's JobRunner as the views' BackgroundWork (viz/ cannot see the
/// session layer; ui/ joins the two).

#include <functional>
#include <type_traits>
#include <utility>

#include "ui/session/jobrunner.h"
#include "viz/backgroundwork.h"

namespace treelens {

/// Jobs of a view go to `lane` of `jobs`, one group per slot.
inline BackgroundWork backgroundWorkOf(JobRunner &jobs, JobRunner::Lane lane)
{
    BackgroundWork w;
    w.run = [&jobs, lane](const QString &slot, QObject *context,
                          std::function<BackgroundWork::Deliver(const std::function<bool()> &)> work) {
        jobs.submitDeferred(lane, slot, context, [work = std::move(work)](const RunControl &control) {
            return work([&control] { return control.isCancelled(); });
        });
    };
    w.cancel = [&jobs](const QString &slot) { jobs.cancelGroup(slot); };
    return w;
}

} // namespace treelens
