// encodercache: one shared, call-serialised encoder per model file (see encodercache.h).
#include "core/encoders/common/encodercache.h"

namespace treelens {

namespace {

/// Forwards every call under one lock.
class SerializedEncoder : public Encoder {
public:
    explicit SerializedEncoder(std::unique_ptr<Encoder> inner) : m_inner(std::move(inner)) {}
    const EncoderInfo &info() const override { return m_inner->info(); } // immutable after loading
    Result<std::vector<Analysis>> analyze(const std::vector<EncoderInput> &batch, const AnalyzeOptions &options,
                                          const RunControl *control) override
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        return m_inner->analyze(batch, options, control);
    }
    Result<std::vector<std::vector<float>>> embed(const std::vector<EncoderInput> &batch, const EmbedOptions &options,
                                                  const RunControl *control) override
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        return m_inner->embed(batch, options, control);
    }
    Result<std::vector<std::vector<Matrix>>> layerStates(const std::vector<EncoderInput> &batch,
                                                         const RunControl *control) override
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        return m_inner->layerStates(batch, control);
    }
    Result<std::vector<Attribution>> explain(const std::vector<EncoderInput> &batch, const ExplainOptions &options,
                                             const RunControl *control) override
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        return m_inner->explain(batch, options, control);
    }

private:
    std::mutex m_mutex;
    std::unique_ptr<Encoder> m_inner;
};

std::string keyOf(const std::string &path, const DeviceConfig &d)
{
    return path + '\n' + d.device + '\n' + std::to_string(d.threads) + '\n' + std::to_string(d.batchSize) + '\n' + d.precision;
}

} // namespace

Result<std::shared_ptr<Encoder>> EncoderCache::get(const std::string &path, const DeviceConfig &requested)
{
    std::shared_ptr<Entry> entry;
    DeviceConfig device = requested;
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        if (!m_precision.empty())
            device.precision = m_precision;
        if (device.threads == 0)
            device.threads = m_threads;
        auto &slot = m_entries[keyOf(path, device)];
        if (!slot)
            slot = std::make_shared<Entry>();
        entry = slot;
    }
    std::lock_guard<std::mutex> lock(entry->loading);
    if (!entry->tried) {
        entry->tried = true;
        auto e = loadEncoder(path, device);
        if (e)
            entry->encoder = std::make_shared<SerializedEncoder>(std::move(*e));
        else
            entry->error = e.message();
    }
    if (!entry->encoder)
        return Error{entry->error};
    return entry->encoder;
}

void EncoderCache::forgetFailure(const std::string &path)
{
    std::lock_guard<std::mutex> lock(m_mutex);
    for (auto it = m_entries.begin(); it != m_entries.end();) {
        bool failed = false;
        if (it->first.compare(0, path.size() + 1, path + '\n') == 0) {
            std::lock_guard<std::mutex> entryLock(it->second->loading);
            failed = it->second->tried && !it->second->encoder;
        }
        it = failed ? m_entries.erase(it) : std::next(it);
    }
}

void EncoderCache::setPrecision(const std::string &precision)
{
    std::lock_guard<std::mutex> lock(m_mutex);
    m_precision = precision;
}

void EncoderCache::setThreads(int threads)
{
    std::lock_guard<std::mutex> lock(m_mutex);
    m_threads = threads > 0 ? threads : 0;
}

std::string EncoderCache::precision() const
{
    std::lock_guard<std::mutex> lock(m_mutex);
    return m_precision;
}

void EncoderCache::clear()
{
    std::lock_guard<std::mutex> lock(m_mutex);
    m_entries.clear();
}

std::size_t EncoderCache::size() const
{
    std::lock_guard<std::mutex> lock(m_mutex);
    std::size_t n = 0;
    for (const auto &[key, e] : m_entries) {
        std::lock_guard<std::mutex> entryLock(e->loading);
        n += e->encoder ? 1 : 0;
    }
    return n;
}

} // namespace treelens
