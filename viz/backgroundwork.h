#pragma once
/// \file backgroundwork.h
/// Where a view sends work that must not run on the GUI thread. Views never own
/// threads: the app hands them its JobRunner through this (ui/ connects the
/// two); a view without one does the work on the GUI thread.

#include <functional>

#include <QObject>
#include <QString>

namespace treelens {

struct BackgroundWork {
    /// Deliver: what to run on the GUI thread with the work's result.
    using Deliver = std::function<void()>;
    /// work(cancelled) runs on a worker thread and may poll `cancelled`; the
    /// Deliver it returns runs on the GUI thread — not at all when a newer job of
    /// the same `slot` superseded it or `context` was destroyed meanwhile.
    using Run = std::function<void(const QString &slot, QObject *context,
                                   std::function<Deliver(const std::function<bool()> &cancelled)> work)>;
    Run run;
    /// Supersedes the jobs of `slot` (their Deliver never runs).
    std::function<void(const QString &slot)> cancel;

    explicit operator bool() const { return static_cast<bool>(run); }
};

} // namespace treelens
