#pragma once
/// \file precisionrule.h
/// The rule `--precision auto` applies to what it measured (torch-free, so tests
/// feed it any timings and CPU features): which candidates are tried, and which
/// one is kept. The timing itself is the family's (treetransformer.cpp: link
/// probabilities; pretrained/hfencoder.cpp: attention probabilities).

#include <cstddef>
#include <string>
#include <vector>

namespace treelens {

/// A precision other than fp32 is kept only when the link probabilities of the
/// timing sentence stay within this of fp32's (docs/performance.md: the official-size
/// model's int8 stays under 1e-3 on WSJ; the small shipped model's reaches 1.6e-2 and
/// changes a tenth of its induced trees)...
constexpr double kAutoLinkBound = 2e-3;
/// ... and only when it takes at most this fraction of fp32's time (it changes the numbers).
constexpr double kAutoMaxTimeRatio = 0.9;

/// What auto times: fp32 first, int8 where the device has it, bf16 only where the
/// CPU runs it natively (elsewhere oneDNN emulates it, tens of times slower).
std::vector<std::string> autoPrecisionCandidates(bool int8Available, bool nativeBf16);

/// One candidate as measured: its best time and how far its links (or what the
/// PrecisionProbe names) are from fp32's (0 for fp32 itself).
struct PrecisionTiming {
    std::string precision;
    double ms = 0.0;
    double linkDrift = 0.0;
};

/// What the timing input was and what was compared with fp32 (the note's words) and
/// the bound a candidate's drift must stay within.
struct PrecisionProbe {
    std::string unit = "word";       ///< "a 40-word sentence"
    std::string compared = "links";  ///< "links within 4.0e-04 of fp32"
    double bound = kAutoLinkBound;
};

struct PrecisionPick {
    std::size_t index = 0; ///< into the timings
    std::string note;      ///< EncoderInfo::precisionNote: "auto: int8 (9.8 ms for a 40-word sentence, ...); fp32 ..."
};

/// Keeps the fastest candidate within the probe's bound that beats fp32 by the
/// ratio; fp32 (timings[0]) otherwise. `words`: the timing sentence's length (in
/// the probe's unit).
PrecisionPick pickPrecision(const std::vector<PrecisionTiming> &timings, int words, bool nativeBf16,
                            const PrecisionProbe &probe = {});

} // namespace treelens
