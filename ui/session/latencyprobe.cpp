#include "ui/session/latencyprobe.h"

#include <algorithm>

namespace treelens {

LatencyProbe::LatencyProbe(int intervalMs, QObject *parent) : QObject(parent), m_intervalMs(intervalMs)
{
    m_timer.setTimerType(Qt::PreciseTimer);
    m_timer.setInterval(intervalMs);
    connect(&m_timer, &QTimer::timeout, this, &LatencyProbe::tick);
}

void LatencyProbe::start()
{
    reset();
    m_timer.start();
}

void LatencyProbe::stop() { m_timer.stop(); }

void LatencyProbe::reset()
{
    m_clock.restart();
    m_lastNs = m_clock.nsecsElapsed();
    m_maxStallMs = 0.0;
    m_over100 = 0;
    m_samples = 0;
}

void LatencyProbe::tick()
{
    const qint64 now = m_clock.nsecsElapsed();
    // Lateness beyond the interval is time the loop could not run timers.
    const double stall = static_cast<double>(now - m_lastNs) / 1e6 - m_intervalMs;
    m_lastNs = now;
    ++m_samples;
    m_maxStallMs = std::max(m_maxStallMs, stall);
    if (stall > 100.0)
        ++m_over100;
}

} // namespace treelens
