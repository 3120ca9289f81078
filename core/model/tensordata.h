#pragma once
/// \file tensordata.h
/// Plain (torch-free) named tensors as read from or written to model files.
/// Model readers (safetensors, PyTorch checkpoint import) produce a TensorMap;
/// encoders turn it into device tensors. Bytes are little-endian, row-major
/// (C-contiguous), exactly `numel() * dtypeSize(dtype)` long.

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace treelens {

enum class DType { F32, F16, BF16, F64, I64, I32, I16, I8, U8, Bool };

/// Size of one element in bytes.
std::size_t dtypeSize(DType t);
/// safetensors spelling: "F32", "F16", "BF16", "F64", "I64", "I32", "I16", "I8", "U8", "BOOL".
const char *dtypeName(DType t);
std::optional<DType> dtypeFromName(const std::string &name);

struct TensorData {
    DType dtype = DType::F32;
    std::vector<std::int64_t> shape;   ///< empty = scalar (one element)
    std::vector<std::uint8_t> bytes;   ///< numel() * dtypeSize(dtype) bytes

    std::size_t numel() const;
    /// Converts any floating or integer dtype to f32 values (row-major).
    std::vector<float> toFloat() const;
    /// Builds an F32 tensor from values; precondition: values.size() == product(shape).
    static TensorData fromFloat(std::vector<std::int64_t> shape, const std::vector<float> &values);
    /// Same values stored as F16 (round to nearest even) or BF16.
    TensorData convertedTo(DType target) const;
};

/// Name → tensor, sorted by name (deterministic file output).
using TensorMap = std::map<std::string, TensorData>;

/// "[2, 3]": a shape as error messages write it.
std::string shapeText(const std::vector<std::int64_t> &shape);

/// IEEE half / bfloat16 conversions (round to nearest even; NaN preserved).
float halfToFloat(std::uint16_t h);
std::uint16_t floatToHalf(float f);
float bf16ToFloat(std::uint16_t b);
std::uint16_t floatToBf16(float f);

} // namespace treelens
