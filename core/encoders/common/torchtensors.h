#pragma once
/// \file torchtensors.h
/// Conversions between LibTorch tensors and the plain types of model files and
/// analyses, shared by the encoder families (internal to core: torch types).

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <torch/types.h>

#include "core/base/result.h"
#include "core/data/analysis.h"
#include "core/model/tensordata.h"

namespace treelens {

/// Named parameters on a device, as a family's network holds them.
using TorchParameters = std::map<std::string, torch::Tensor>;

/// The tensors named by `shapes`, checked (missing, other shape, any tensor not
/// in `shapes`: "unexpected tensor 'N' for WHAT"; with `floatingOnly`, integer
/// dtypes too) and copied to `device` as f32. Errors start with `where`.
Result<TorchParameters> parametersFromTensors(const std::map<std::string, std::vector<std::int64_t>> &shapes,
                                              const TensorMap &tensors, const torch::Device &device,
                                              const std::string &where, const std::string &what,
                                              bool floatingOnly = false);
/// The parameters back as plain f32 tensors.
TensorMap tensorsFromParameters(const TorchParameters &parameters);
/// requires_grad on every parameter.
void setRequiresGrad(TorchParameters &parameters, bool on);

/// A tensor as a plain F32 TensorData (any device, any float dtype).
TensorData floatTensorData(const torch::Tensor &x);
/// Plain I64 TensorData; precondition: values.size() == product(shape).
TensorData int64TensorData(std::vector<std::int64_t> shape, const std::vector<std::int64_t> &values);
/// A 2-d tensor as a Matrix.
Matrix matrixOf(const torch::Tensor &t2d);
/// A tensor of any rank as a NamedArray.
NamedArray namedArrayOf(const torch::Tensor &t);

} // namespace treelens
