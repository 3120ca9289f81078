#pragma once
/// \file torchtensors.h
/// Conversions between LibTorch tensors and the plain types of model files and
/// analyses, shared by the encoder families (internal to core: torch types).

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <torch/types.h>

#include "core/base/result.h"
#include "core/data/analysis.h"
#include "core/encoders/common/familykit.h"
#include "core/model/modelfile.h"
#include "core/model/tensordata.h"
#include "core/runtime/deviceconfig.h"

namespace treelens {

/// Named parameters on a device, as a family's network holds them.
using TorchParameters = std::map<std::string, torch::Tensor>;

/// How parameters made from tensors of a mapped file (readSafetensors) hold their values.
enum class ParameterMemory {
    /// Every parameter owns its values: the default, for every network that trains
    /// (optimizer steps write into the parameters, and the mapping is read-only).
    Copied,
    /// An F32 tensor of a mapped file, aligned to 4 bytes, becomes on the CPU a
    /// parameter that refers to the mapping (no copy; the parameter keeps the
    /// mapping alive after the TensorMap is gone). Only for networks that never
    /// write their parameters (the pretrained family: inference only): a write
    /// into such a parameter faults. Other tensors are copied as with Copied.
    SharedWithFile
};

/// The tensors named by `shapes`, checked (missing, other shape, any tensor not
/// in `shapes`: "unexpected tensor 'N' for WHAT"; with `floatingOnly`, integer
/// dtypes too) and put on `device` as f32 (floatTensorOf). Errors start with `where`.
Result<TorchParameters> parametersFromTensors(const std::map<std::string, std::vector<std::int64_t>> &shapes,
                                              const TensorMap &tensors, const torch::Device &device,
                                              const std::string &where, const std::string &what,
                                              bool floatingOnly = false, ParameterMemory memory = ParameterMemory::Copied);
/// One tensor as f32 on `device`. F16 and BF16 (and every other dtype) are widened
/// exactly, straight from the stored bytes into the new tensor (no vector in
/// between, bit for bit what TensorData::toFloat() gives); a mapped tensor's pages
/// are then given back (TensorData::releasePages), so a BF16 file costs its f32
/// weights, not both. With SharedWithFile, see ParameterMemory. Null tensor when
/// the bytes are short of the shape (the readers never give such a tensor).
torch::Tensor floatTensorOf(const TensorData &t, const torch::Device &device,
                            ParameterMemory memory = ParameterMemory::Copied);
/// One tensor on the CPU in the dtype it is stored in (F16 as kHalf, BF16 as
/// kBFloat16, F32, F64 and the integers as theirs), its elements the stored bit
/// patterns: for computing in reduced precision (BF16 weights kept as BF16).
/// With SharedWithFile a mapped tensor aligned to its element size refers to the
/// mapping (read-only, as above); otherwise the bytes are copied.
torch::Tensor storedTensor(const TensorData &t, ParameterMemory memory = ParameterMemory::Copied);
/// parametersFromTensors for a family's network: its config validated first (the
/// config's error at `where`).
template <class Config>
Result<TorchParameters> configuredParameters(const Config &config, const std::map<std::string, std::vector<std::int64_t>> &shapes,
                                             const TensorMap &tensors, const torch::Device &device,
                                             const std::string &where, const std::string &what, bool floatingOnly = false)
{
    if (auto s = config.validate(); !s)
        return makeError(where, s.error());
    return parametersFromTensors(shapes, tensors, device, where, what, floatingOnly);
}
/// The parameters back as plain f32 tensors.
TensorMap tensorsFromParameters(const TorchParameters &parameters);
/// requires_grad on every parameter.
void setRequiresGrad(TorchParameters &parameters, bool on);
/// The parameters in name order.
std::vector<torch::Tensor> parameterList(const TorchParameters &parameters);

/// Fresh weights for `shapes` (a family's parameterShapes), LibTorch's generator
/// seeded with `seed` first: init(name, shape) draws each tensor, in name order.
TensorMap randomTensorsFor(const std::map<std::string, std::vector<std::int64_t>> &shapes, unsigned seed,
                           const std::function<torch::Tensor(const std::string &name, const std::vector<std::int64_t> &shape)> &init);
/// Glorot/Xavier uniform: U(-b, b) with b = sqrt(6 / fanSum), fanSum = fan-in + fan-out.
torch::Tensor xavierUniform(const std::vector<std::int64_t> &shape, std::int64_t fanSum);

/// Where a family's create() builds its network, after the check every family makes
/// first: the file's vocabulary has `vocabSize` entries (`field`: the config's key).
Result<torch::Device> deviceForModel(const ModelFile &file, int vocabSize, const std::string &field,
                                     const DeviceConfig &device);

/// The first steps of a family's create(): the vocabulary's size checked and the
/// device resolved (deviceForModel), then Net::fromTensors(config) on that device.
template <class Net, class Config>
Result<std::pair<Net, torch::Device>> networkFor(const ModelFile &file, const Config &config, int vocabSize,
                                                 const std::string &field, const DeviceConfig &device)
{
    auto dev = deviceForModel(file, vocabSize, field, device);
    if (!dev)
        return dev.error();
    auto net = Net::fromTensors(config, file.tensors, *dev, modelWhere(file));
    if (!net)
        return net.error();
    return std::make_pair(std::move(*net), *dev);
}

/// What every family's network holds — its config, the device it runs on, its named
/// parameters — and the accessors all of them give; the family's fromTensors builds
/// it with the protected constructor once the tensors are checked.
template <class Config>
class ParameterNet {
public:
    const Config &config() const { return m_config; }
    torch::Device device() const { return m_device; }
    TorchParameters &named() { return m_p; }
    const TorchParameters &named() const { return m_p; }
    void setTrainable(bool on) { setRequiresGrad(m_p, on); }
    TensorMap toTensors() const { return tensorsFromParameters(m_p); }

protected:
    ParameterNet() = default;
    ParameterNet(Config config, torch::Device device, TorchParameters parameters)
        : m_config(std::move(config)), m_device(device), m_p(std::move(parameters))
    {
    }

    Config m_config;
    torch::Device m_device{torch::kCPU};
    TorchParameters m_p;
};

/// A tensor as a plain F32 TensorData (any device, any float dtype).
TensorData floatTensorData(const torch::Tensor &x);
/// Plain I64 TensorData; precondition: values.size() == product(shape).
TensorData int64TensorData(std::vector<std::int64_t> shape, const std::vector<std::int64_t> &values);
/// A 2-d tensor as a Matrix.
Matrix matrixOf(const torch::Tensor &t2d);
/// A tensor of any rank as a NamedArray.
NamedArray namedArrayOf(const torch::Tensor &t);

} // namespace treelens
