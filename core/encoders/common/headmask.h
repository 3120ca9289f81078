#pragma once
/// \file headmask.h
/// Head ablation inside a family's forward pass (torch): the heads' outputs of one layer with
/// the ablated heads zeroed, before the layer's output projection (headablation.h). Every
/// family with heads switches them off through this one function.

#include <cstddef>
#include <cstdint>
#include <vector>

#include <torch/types.h>

#include "core/encoders/headablation.h"

namespace treelens {

/// `perHead` [B, H, ...] (the heads' attention-weighted values of layer `layer`, head on dim 1)
/// with the heads `ablate` names for that layer set to zero (head -1: all of them); `perHead`
/// itself when none is.
inline torch::Tensor withoutAblatedHeads(const torch::Tensor &perHead, const std::vector<HeadAblation> &ablate, int layer)
{
    const std::int64_t H = perHead.size(1);
    std::vector<float> keep(static_cast<std::size_t>(H), 1.0f);
    bool any = false;
    for (const HeadAblation &a : ablate)
        if (a.layer == layer)
            for (std::int64_t h = 0; h < H; ++h)
                if (a.head < 0 || a.head == h) {
                    keep[static_cast<std::size_t>(h)] = 0.0f;
                    any = true;
                }
    if (!any)
        return perHead;
    std::vector<std::int64_t> shape(static_cast<std::size_t>(perHead.dim()), 1);
    shape[1] = H;
    return perHead * torch::tensor(keep, perHead.options()).view(shape);
}

} // namespace treelens
