// Tensor conversions shared by the families (see torchtensors.h).
#include "core/encoders/common/torchtensors.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>

#include <torch/torch.h>

#include "core/base/mappedfile.h"
#include "core/encoders/common/familykit.h"
#include "core/runtime/device.h"

namespace treelens {

namespace {

torch::ScalarType scalarTypeOf(DType t)
{
    switch (t) {
    case DType::F32: return torch::kFloat32;
    case DType::F16: return torch::kFloat16;
    case DType::BF16: return torch::kBFloat16;
    case DType::F64: return torch::kFloat64;
    case DType::I64: return torch::kInt64;
    case DType::I32: return torch::kInt32;
    case DType::I16: return torch::kInt16;
    case DType::I8: return torch::kInt8;
    case DType::U8: return torch::kUInt8;
    case DType::Bool: return torch::kBool;
    }
    return torch::kFloat32;
}

/// The mapped bytes of `t` as a CPU tensor of `type` without a copy, when `t` is a
/// view whose bytes are aligned to `type`'s element; else a null tensor. The
/// tensor's deleter holds the mapping, so it outlives the TensorMap.
torch::Tensor sharedTensor(const TensorData &t, torch::ScalarType type)
{
    const std::size_t align = c10::elementSize(type);
    if (!t.mapping() || reinterpret_cast<std::uintptr_t>(t.data()) % align != 0 || t.size() != t.numel() * dtypeSize(t.dtype))
        return {};
    std::shared_ptr<const MappedFile> keep = t.mapping();
    // The mapping is read-only and never written through (ParameterMemory::SharedWithFile).
    return torch::from_blob(const_cast<std::uint8_t *>(t.data()), t.shape, [keep](void *) {}, torch::TensorOptions().dtype(type));
}

} // namespace

torch::Tensor floatTensorOf(const TensorData &t, const torch::Device &device, ParameterMemory memory)
{
    if (memory == ParameterMemory::SharedWithFile && t.dtype == DType::F32 && device.is_cpu())
        if (auto shared = sharedTensor(t, torch::kFloat32); shared.defined())
            return shared;
    torch::Tensor out = torch::empty(t.shape, torch::kFloat32);
    if (!t.toFloatInto(out.data_ptr<float>()))
        return {};
    t.releasePages(); // the values are in `out` now; a mapped file's pages can go
    return out.to(device);
}

torch::Tensor storedTensor(const TensorData &t, ParameterMemory memory)
{
    const torch::ScalarType type = scalarTypeOf(t.dtype);
    if (memory == ParameterMemory::SharedWithFile)
        if (auto shared = sharedTensor(t, type); shared.defined())
            return shared;
    if (t.size() != t.numel() * dtypeSize(t.dtype))
        return {};
    torch::Tensor out = torch::empty(t.shape, torch::TensorOptions().dtype(type));
    if (t.size() > 0)
        std::memcpy(out.data_ptr(), t.data(), t.size());
    return out;
}

Result<TorchParameters> parametersFromTensors(const std::map<std::string, std::vector<std::int64_t>> &shapes,
                                              const TensorMap &tensors, const torch::Device &device,
                                              const std::string &where, const std::string &what, bool floatingOnly,
                                              ParameterMemory memory)
{
    TorchParameters out;
    for (const auto &[name, shape] : shapes) {
        const auto it = tensors.find(name);
        if (it == tensors.end())
            return makeError(where, "tensor '" + name + "' is missing (expected shape " + shapeText(shape) + ")");
        if (it->second.shape != shape)
            return makeError(where, "tensor '" + name + "' has shape " + shapeText(it->second.shape) + ", expected " +
                                        shapeText(shape));
        const DType t = it->second.dtype;
        if (floatingOnly && t != DType::F32 && t != DType::F16 && t != DType::BF16 && t != DType::F64)
            return makeError(where, "tensor '" + name + "' has dtype " + dtypeName(t) + ", expected a floating type");
        torch::Tensor p = floatTensorOf(it->second, device, memory);
        if (!p.defined())
            return makeError(where, "tensor '" + name + "' holds " + std::to_string(it->second.size()) + " bytes, its shape needs " +
                                        std::to_string(it->second.numel() * dtypeSize(t)));
        out[name] = std::move(p);
    }
    for (const auto &[name, t] : tensors)
        if (!shapes.count(name))
            return makeError(where, "unexpected tensor '" + name + "' for " + what);
    return out;
}

TensorMap tensorsFromParameters(const TorchParameters &parameters)
{
    TensorMap out;
    for (const auto &[name, t] : parameters)
        out[name] = floatTensorData(t);
    return out;
}

void setRequiresGrad(TorchParameters &parameters, bool on)
{
    for (auto &[name, t] : parameters)
        t.set_requires_grad(on);
}

TensorData floatTensorData(const torch::Tensor &x)
{
    auto c = x.detach().to(torch::kCPU, torch::kFloat32).contiguous();
    std::vector<float> v(c.data_ptr<float>(), c.data_ptr<float>() + c.numel());
    return TensorData::fromFloat(std::vector<std::int64_t>(c.sizes().begin(), c.sizes().end()), v);
}

TensorData int64TensorData(std::vector<std::int64_t> shape, const std::vector<std::int64_t> &values)
{
    TensorData t;
    t.dtype = DType::I64;
    t.shape = std::move(shape);
    t.bytes.resize(values.size() * sizeof(std::int64_t));
    if (!values.empty())
        std::memcpy(t.bytes.data(), values.data(), t.bytes.size());
    return t;
}

Matrix matrixOf(const torch::Tensor &t2d)
{
    auto c = t2d.detach().to(torch::kCPU, torch::kFloat32).contiguous();
    Matrix m(static_cast<int>(c.size(0)), static_cast<int>(c.size(1)));
    std::memcpy(m.data.data(), c.data_ptr<float>(), m.data.size() * sizeof(float));
    return m;
}

NamedArray namedArrayOf(const torch::Tensor &t)
{
    auto c = t.detach().to(torch::kCPU, torch::kFloat32).contiguous();
    NamedArray a;
    for (auto s : c.sizes())
        a.shape.push_back(static_cast<int>(s));
    a.data.assign(c.data_ptr<float>(), c.data_ptr<float>() + c.numel());
    return a;
}

std::vector<torch::Tensor> parameterList(const TorchParameters &parameters)
{
    std::vector<torch::Tensor> v;
    v.reserve(parameters.size());
    for (const auto &entry : parameters)
        v.push_back(entry.second);
    return v;
}

TensorMap randomTensorsFor(const std::map<std::string, std::vector<std::int64_t>> &shapes, unsigned seed,
                           const std::function<torch::Tensor(const std::string &, const std::vector<std::int64_t> &)> &init)
{
    torch::manual_seed(seed);
    TensorMap out;
    for (const auto &[name, shape] : shapes)
        out[name] = floatTensorData(init(name, shape));
    return out;
}

torch::Tensor xavierUniform(const std::vector<std::int64_t> &shape, std::int64_t fanSum)
{
    const double bound = std::sqrt(6.0 / static_cast<double>(fanSum));
    return torch::empty(shape).uniform_(-bound, bound);
}

Result<torch::Device> deviceForModel(const ModelFile &file, int vocabSize, const std::string &field,
                                     const DeviceConfig &device)
{
    if (auto s = checkVocabularySize(file, vocabSize, field); !s)
        return s.error();
    return resolveDevice(device);
}

} // namespace treelens
