#pragma once
/// \file noablation.h
/// Head ablation's checks at the family boundary: the heads asked for are in the model, and the
/// refusal of a family whose heads cannot be switched off (yet): an analysis or an
/// explanation asked with AnalyzeOptions::ablate / ExplainOptions::ablate must not run as
/// if nothing were ablated. Head ablation is built for pretrained Transformers (hfnet.cpp) and the
/// Tree Transformer (treetransformernet.cpp).

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

/// A family without it: an error naming the model and why when `ablate` is not empty; ok otherwise.
inline Status refuseHeadAblation(const EncoderInfo &info, const std::vector<HeadAblation> &ablate)
{
    if (ablate.empty())
        return {};
    const std::string name = info.name.empty() ? "this " + info.family + " model" : info.name;
    if (info.heads <= 0)
        return makeError("--ablate", name + " has no attention heads to switch off");
    return makeError("--ablate", name + ": head ablation is not built for the " + info.family +
                                     " family yet (it is for the Tree Transformer and for pretrained Transformers: Hugging Face folders)");
}

} // namespace treelens
