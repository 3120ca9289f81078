#include "core/encoders/common/precisionrule.h"

#include <cstdio>

namespace treelens {

namespace {

std::string msText(double ms)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f ms", ms);
    return buf;
}

std::string driftText(double drift, bool within, const PrecisionProbe &probe)
{
    char buf[96];
    std::snprintf(buf, sizeof buf, within ? " within %.1e of fp32" : " off by %.1e: too far from fp32 here", drift);
    return ", " + probe.compared + buf;
}

} // namespace

std::vector<std::string> autoPrecisionCandidates(bool int8Available, bool nativeBf16)
{
    std::vector<std::string> c{"fp32"};
    if (int8Available)
        c.push_back("int8");
    if (nativeBf16)
        c.push_back("bf16");
    return c;
}

PrecisionPick pickPrecision(const std::vector<PrecisionTiming> &t, int words, bool nativeBf16, const PrecisionProbe &probe)
{
    PrecisionPick pick;
    if (t.empty())
        return pick;
    for (std::size_t i = 1; i < t.size(); ++i)
        if (t[i].linkDrift <= probe.bound && t[i].ms <= kAutoMaxTimeRatio * t[0].ms && t[i].ms < t[pick.index].ms)
            pick.index = i;
    const PrecisionTiming &p = t[pick.index];
    std::string note = "auto: " + p.precision + " (" + msText(p.ms) + " for a " + std::to_string(words) + "-" + probe.unit + " sentence";
    if (pick.index > 0)
        note += driftText(p.linkDrift, true, probe);
    for (std::size_t i = 0; i < t.size(); ++i) {
        if (i == pick.index)
            continue;
        note += "; " + t[i].precision + " " + msText(t[i].ms);
        if (i > 0)
            note += driftText(t[i].linkDrift, t[i].linkDrift <= probe.bound, probe);
    }
    note += ")";
    if (!nativeBf16)
        note += "; bf16 not tried: no native bf16 on this CPU";
    pick.note = std::move(note);
    return pick;
}

} // namespace treelens
