#pragma once
/// \file noablation.h
/// Head ablation's check at the family boundary: the heads asked for are in the model, so that an
/// analysis or an explanation asked with AnalyzeOptions::ablate / ExplainOptions::ablate never runs
/// as if nothing were ablated. Every family with attention heads switches them off (through
/// headmask.h's withoutAblatedHeads; the pretrained family in hfnet.cpp); a model without heads
/// (a Tree-LSTM, the sequential TAT) refuses by its own words.

#include <string>
#include <vector>

#include "core/base/result.h"
#include "core/encoders/encoder.h"

namespace treelens {

/// A family with head ablation: every layer and head of `ablate` inside the model (`info`'s
/// layers x heads; head -1: the whole layer), else a Refused error naming the first outside.
inline Status checkHeadAblation(const EncoderInfo &info, const std::vector<HeadAblation> &ablate)
{
    for (const HeadAblation &a : ablate)
        if (a.layer < 0 || a.layer >= info.layers || a.head < -1 || a.head >= info.heads)
            return makeError("--ablate", "layer " + std::to_string(a.layer + 1) + (a.head < 0 ? "" : " head " + std::to_string(a.head + 1)) +
                                             " is outside the model (" + std::to_string(info.layers) + " layers of " +
                                             std::to_string(info.heads) + " heads)",
                             ErrorCode::Refused);
    return {};
}

} // namespace treelens
