#pragma once
/// \file randominit.h
/// The random-init baseline of probing (TreeLens issue 6): an encoder of the same
/// configuration as a model file with freshly initialised, seeded weights (the
/// official initialisation). Torch-free header; used by `treelens-cli probe` and
/// the GUI probing panel through core/probing/proberun.h.

#include <memory>
#include <string>

#include "core/base/result.h"
#include "core/encoders/encoder.h"

namespace treelens {

/// An encoder of the configuration stored in the model file at `modelPath`, with
/// random weights drawn from `seed` (tree-transformer models only). Its name gets
/// " (random init, seed N)" appended.
Result<std::unique_ptr<Encoder>> randomEncoderLike(const std::string &modelPath, unsigned seed,
                                                   const DeviceConfig &device = {});

} // namespace treelens
