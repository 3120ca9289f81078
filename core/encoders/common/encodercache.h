#pragma once
/// \file encodercache.h
/// One loaded encoder per model file, shared by every job that needs it (the
/// app's sentence analysis, corpus scoring and probing runs load a model once).
/// An Encoder is used from one thread at a time, so the shared instance
/// serialises its calls: each analyze()/embed()/layerStates() call holds the
/// encoder's lock, and jobs interleave batch by batch. Thread-safe; torch-free.

#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "core/base/result.h"
#include "core/encoders/encoder.h"

namespace treelens {

class EncoderCache {
public:
    /// The shared encoder of `path` on `device`, loaded on first use (concurrent
    /// first uses wait for one load). A failed load is remembered and its error
    /// returned again until clear() (the app does not retry on every sentence).
    Result<std::shared_ptr<Encoder>> get(const std::string &path, const DeviceConfig &device = {});
    /// Forgets a failed load of `path` (any device) so that the next get() tries again.
    void forgetFailure(const std::string &path);
    /// Forgets every encoder (instances still in use stay alive until released).
    void clear();
    /// Encoders loaded so far (for tests and the About box).
    std::size_t size() const;
    /// The precision every later get() loads with, whatever its DeviceConfig says
    /// ("" = the DeviceConfig's own): the app's one precision setting. Encoders
    /// already loaded stay; a get() in the new precision loads its own instance.
    void setPrecision(const std::string &precision);
    std::string precision() const;
    /// The CPU threads every later get() loads with when its DeviceConfig says 0
    /// (0 = the libraries' defaults): the app leaves a core to its GUI thread.
    void setThreads(int threads);

private:
    struct Entry {
        std::mutex loading;
        std::shared_ptr<Encoder> encoder;
        std::string error;
        bool tried = false;
    };
    mutable std::mutex m_mutex;
    std::map<std::string, std::shared_ptr<Entry>> m_entries;
    std::string m_precision;
    int m_threads = 0;
};

} // namespace treelens
