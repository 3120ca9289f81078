#pragma once
/// \file checkpoint.h
/// PyTorch checkpoints (torch.save zip format, torch >= 1.6) read without
/// Python or LibTorch: libzip for the archive, the restricted unpickler of
/// pickle.h for data.pkl. Finds the state dict: the top-level dict when it maps
/// names to tensors, else the value under 'state_dict', 'model_state_dict' or
/// 'model' (e.g. the official Tree Transformer's {'step', 'state_dict':
/// OrderedDict}). Non-tensor entries are skipped and reported in `note`.

#include <string>

#include "core/base/result.h"
#include "core/model/tensordata.h"

namespace treelens {

Result<TensorMap> readTorchCheckpoint(const std::string &path, std::string *note = nullptr);

} // namespace treelens
