// trainprogress: the progress line every trainer's CLI prints (see trainprogress.h).
#include "core/training/trainprogress.h"

#include <cstdio>

namespace treelens {

namespace {

std::string clock(double seconds)
{
    if (std::isnan(seconds) || seconds < 0)
        return "?";
    char buf[32];
    const long s = static_cast<long>(seconds + 0.5);
    if (s >= 3600)
        std::snprintf(buf, sizeof buf, "%ldh%02ldm", s / 3600, (s / 60) % 60);
    else if (s >= 60)
        std::snprintf(buf, sizeof buf, "%ldm%02lds", s / 60, s % 60);
    else
        std::snprintf(buf, sizeof buf, "%lds", s);
    return buf;
}

std::string position(const TrainProgress &p)
{
    char buf[96];
    if (p.steps > 0)
        std::snprintf(buf, sizeof buf, "step %ld/%ld", p.step, p.steps);
    else if (p.epochs > 0)
        std::snprintf(buf, sizeof buf, "epoch %d/%d  batch %ld/%ld", p.epoch, p.epochs, p.batch, p.batches);
    else
        std::snprintf(buf, sizeof buf, "step %ld", p.step);
    return buf;
}

} // namespace

std::string formatTrainProgress(const TrainProgress &p)
{
    char buf[512];
    switch (p.event) {
    case TrainProgress::Event::Batch: {
        std::string line = position(p);
        std::snprintf(buf, sizeof buf, "  loss %.3f", p.loss);
        line += buf;
        if (!std::isnan(p.accuracy)) {
            std::snprintf(buf, sizeof buf, "  acc %.3f", p.accuracy);
            line += buf;
        }
        std::snprintf(buf, sizeof buf, "  lr %.2e  %.2f steps/s", p.lr, p.stepsPerSecond);
        line += buf;
        if (!std::isnan(p.unitsPerSecond)) {
            std::snprintf(buf, sizeof buf, "  %.0f %s/s", p.unitsPerSecond, p.unit.c_str());
            line += buf;
        }
        return line + "  " + clock(p.elapsedSeconds) + "  ETA " + clock(p.etaSeconds);
    }
    case TrainProgress::Event::Evaluated: {
        std::snprintf(buf, sizeof buf, "dev %s %.4g (best %.4g)%s", p.metric.c_str(), p.devMetric, p.bestDevMetric,
                      p.improved ? " *" : "");
        std::string line = (p.epochs > 0 && p.steps == 0 ? "epoch " + std::to_string(p.epoch) : "step " + std::to_string(p.step)) +
                           "  " + buf;
        if (!p.devSummary.empty())
            line += "  [" + p.devSummary + "]";
        if (!p.message.empty())
            line += "  " + p.message;
        return line;
    }
    case TrainProgress::Event::Checkpointed:
        return position(p) + "  checkpoint saved" + (p.message.empty() ? "" : "  " + p.message);
    default:
        return p.message;
    }
}

} // namespace treelens
