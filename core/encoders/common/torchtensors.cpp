// Tensor conversions shared by the families (see torchtensors.h).
#include "core/encoders/common/torchtensors.h"

#include <cmath>
#include <cstring>

#include <torch/torch.h>

#include "core/encoders/common/familykit.h"
#include "core/runtime/device.h"

namespace treelens {

Result<TorchParameters> parametersFromTensors(const std::map<std::string, std::vector<std::int64_t>> &shapes,
                                              const TensorMap &tensors, const torch::Device &device,
                                              const std::string &where, const std::string &what, bool floatingOnly)
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
        const std::vector<float> v = it->second.toFloat();
        out[name] = torch::from_blob(const_cast<float *>(v.data()), shape, torch::kFloat32).clone().to(device);
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
