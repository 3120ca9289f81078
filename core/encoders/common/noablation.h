#pragma once
/// \file noablation.h
/// The refusal of a family whose heads cannot be switched off (yet): an analysis or an
/// explanation asked with AnalyzeOptions::ablate / ExplainOptions::ablate must not run as
/// if nothing were ablated. Head ablation is built for pretrained Transformers (hfnet.cpp) and the
/// Tree Transformer (treetransformernet.cpp).

#include <string>
#include <vector>

#include "core/base/result.h"
#include "core/encoders/encoder.h"

namespace treelens {

/// An error naming the model and why when `ablate` is not empty; ok otherwise.
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
