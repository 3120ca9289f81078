// Precompiled header for the core translation units that use LibTorch.
#pragma once
#include <torch/torch.h>
