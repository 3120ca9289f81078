#pragma once
/// \file latencyprobe.h
/// Measures how responsive the GUI thread's event loop is: a precise timer asks
/// to be woken every `intervalMs`; how late each wake-up comes is the time the
/// event loop was blocked. Used by the UI tests (the GUI thread must never stall
/// for more than 100 ms) and by bench/bench_gui. Lives on the thread it watches.

#include <QElapsedTimer>
#include <QObject>
#include <QTimer>

namespace treelens {

class LatencyProbe : public QObject {
    Q_OBJECT
public:
    explicit LatencyProbe(int intervalMs = 5, QObject *parent = nullptr);

    void start();
    void stop();
    void reset();

    /// The longest stall seen since start()/reset(), in milliseconds: the delay
    /// of the latest wake-up beyond its due time.
    double maxStallMs() const { return m_maxStallMs; }
    /// Stalls over 100 ms counted since start()/reset().
    int stallsOver100ms() const { return m_over100; }
    int samples() const { return m_samples; }

private:
    void tick();

    int m_intervalMs;
    QTimer m_timer;
    QElapsedTimer m_clock;
    qint64 m_lastNs = 0;
    double m_maxStallMs = 0.0;
    int m_over100 = 0;
    int m_samples = 0;
};

} // namespace treelens
