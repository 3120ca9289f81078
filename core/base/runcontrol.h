#pragma once
/// \file runcontrol.h
/// Progress reporting and cooperative cancellation for long core jobs
/// (parsing a corpus, batch inference, training). Callbacks may be invoked from
/// the worker thread that runs the job; they must be cheap and thread-safe.

#include <atomic>
#include <cstddef>
#include <functional>
#include <string>

namespace treelens {

struct RunControl {
    /// Called with items done, items in total (0 if unknown) and a short stage name.
    std::function<void(std::size_t done, std::size_t total, const std::string &stage)> progress;
    /// Polled between units of work; returning true stops the job early.
    std::function<bool()> cancelled;

    void report(std::size_t done, std::size_t total, const std::string &stage) const
    {
        if (progress)
            progress(done, total, stage);
    }
    bool isCancelled() const { return cancelled && cancelled(); }
};

} // namespace treelens
