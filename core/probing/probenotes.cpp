// probenotes: intervals, small-split warnings and baseline notes; see probenotes.h.
#include "core/probing/probenotes.h"

#include <algorithm>
#include <cmath>
#include <cstddef>

#include "core/base/numbering.h"
#include "core/probing/runcontext.h"

namespace treelens {

namespace {

std::string layerList(const std::vector<int> &layers)
{
    std::string out;
    for (std::size_t i = 0; i < layers.size(); ++i)
        out += (i == 0 ? "" : ", ") + probedLayerName(layers[i]);
    return out;
}

/// The test metric the table leads with: accuracy, or R2 for a regression.
double headline(const ProbeResult &r, bool regression) { return regression ? r.test.r2 : r.test.accuracy; }

} // namespace

std::pair<double, double> accuracyInterval(double accuracy, long n)
{
    const double nan = std::nan("");
    if (n <= 0 || !std::isfinite(accuracy))
        return {nan, nan};
    const double z = 1.96, z2 = z * z, N = static_cast<double>(n);
    const double centre = (accuracy + z2 / (2 * N)) / (1 + z2 / N);
    const double half = z / (1 + z2 / N) * std::sqrt(accuracy * (1 - accuracy) / N + z2 / (4 * N * N));
    return {std::max(0.0, centre - half), std::min(1.0, centre + half)};
}

std::vector<std::string> sentenceTaskNotes(const SentenceProbeTask &t, const std::vector<std::string> &poolings)
{
    std::vector<std::string> notes;
    const long test = t.examples[2], dev = t.examples[1];
    if (test > 0 && test < kSmallTestSplit) {
        const auto [lo, hi] = accuracyInterval(0.5, test);
        notes.push_back("warning: " + t.name + ": the test split has " + std::to_string(test) + " examples: " +
                        (t.regression ? std::string("differences between layers on so few are not evidence")
                                      : "a test accuracy near 50 % has a 95 % interval of about +-" +
                                            probeFixed(100 * (hi - lo) / 2, 0) +
                                            " points, so differences between layers smaller than that are not "
                                            "evidence") +
                        " (use a larger corpus or --test)");
    }
    if (dev > 0 && dev < kSmallDevSplit)
        notes.push_back("warning: " + t.name + ": the dev split has " + std::to_string(dev) +
                        " examples: the epoch kept (chosen on dev) is a noisy choice");
    const bool reg = t.regression;
    const double base = reg ? t.baseline.meanR2 : t.baseline.majorityAccuracy;
    for (const auto &p : poolings) {
        std::vector<int> belowBaseline, belowRandom;
        int randomWithin = 0;
        for (std::size_t i = 0; i < t.layers.size(); ++i) {
            const SentenceProbeCell *c = t.layers[i].find(p);
            if (!c)
                continue;
            const double v = headline(c->result, reg);
            if (std::isfinite(base) && std::isfinite(v) && v <= base + 1e-12)
                belowBaseline.push_back(t.layers[i].layer);
            if (!t.randomInit || i >= t.randomInitLayers.size())
                continue;
            const SentenceProbeCell *r = t.randomInitLayers[i].find(p);
            const double rv = r ? headline(r->result, reg) : std::nan("");
            if (std::isfinite(rv) && std::isfinite(v) && rv >= v - 1e-12) {
                belowRandom.push_back(t.layers[i].layer);
                if (!reg) {
                    const auto [lo, hi] = accuracyInterval(v, test);
                    randomWithin += rv <= hi ? 1 : 0;
                }
            }
        }
        if (!belowBaseline.empty())
            notes.push_back("note: " + t.name + " (" + p + "): at layer" + (belowBaseline.size() > 1 ? "s " : " ") +
                            layerList(belowBaseline) + " the probe is no better than " +
                            (reg ? "predicting the train mean" : "always answering the majority class") +
                            ": nothing there is evidence that the layer encodes the property");
        if (!belowRandom.empty()) {
            std::string n = "note: " + t.name + " (" + p + "): the random-weight encoder's probe scores at least as high "
                            "as the trained encoder's at layer" + (belowRandom.size() > 1 ? "s " : " ") +
                            layerList(belowRandom) +
                            ": what the probe reads there needs no training (word identity and position survive "
                            "random layers; Zhang & Bowman 2018, Hewitt & Liang 2019)";
            if (!reg && randomWithin > 0)
                n += "; at " + std::to_string(randomWithin) + " of them the random encoder's accuracy is inside the "
                     "trained probe's 95 % interval (" + std::to_string(test) + " test examples): the two do not differ";
            notes.push_back(n);
        }
    }
    return notes;
}

} // namespace treelens
