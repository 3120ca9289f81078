#pragma once
/// \file tensordata.h
/// Plain (torch-free) named tensors as read from or written to model files.
/// Model readers (safetensors, PyTorch checkpoint import) produce a TensorMap;
/// encoders turn it into device tensors. Bytes are little-endian, row-major
/// (C-contiguous), exactly `numel() * dtypeSize(dtype)` long, owned or mapped
/// from the file they were read from.

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace treelens {

class MappedFile; // core/base/mappedfile.h

enum class DType { F32, F16, BF16, F64, I64, I32, I16, I8, U8, Bool };

/// Size of one element in bytes.
std::size_t dtypeSize(DType t);
/// safetensors spelling: "F32", "F16", "BF16", "F64", "I64", "I32", "I16", "I8", "U8", "BOOL".
const char *dtypeName(DType t);
std::optional<DType> dtypeFromName(const std::string &name);

/// A tensor's dtype, shape and bytes. The bytes are either owned (`bytes`: what
/// a writer, an import or a computation builds) or a view into a mapped file
/// (mapped(): what readSafetensors() gives), kept alive by a shared reference to
/// the mapping; copies of a view share the mapping. Read the bytes through
/// data()/size(), which see both; `bytes` is empty for a view. A view is
/// read-only (the mapping faults on a write): to change a tensor, assign a new
/// TensorData.
struct TensorData {
    DType dtype = DType::F32;
    std::vector<std::int64_t> shape;   ///< empty = scalar (one element)
    std::vector<std::uint8_t> bytes;   ///< owned bytes: numel() * dtypeSize(dtype); empty for a view

    /// A view of `size` bytes at `offset` in `file` (precondition: inside the file).
    static TensorData mapped(DType dtype, std::vector<std::int64_t> shape, std::shared_ptr<const MappedFile> file,
                             std::size_t offset, std::size_t size);
    /// The bytes, owned or mapped (numel() * dtypeSize(dtype) of them for a valid tensor).
    const std::uint8_t *data() const { return m_file ? m_view : bytes.data(); }
    std::size_t size() const { return m_file ? m_viewSize : bytes.size(); }
    /// The mapped file a view lies in; null for owned bytes.
    const std::shared_ptr<const MappedFile> &mapping() const { return m_file; }
    /// Gives a view's pages back to the system (MappedFile::releasePages) once its
    /// values were copied elsewhere; the bytes stay readable (read from the file
    /// again). No-op for owned bytes.
    void releasePages() const;

    std::size_t numel() const;
    /// Converts any floating or integer dtype to f32 values (row-major).
    std::vector<float> toFloat() const;
    /// toFloat() into `out` (numel() floats), without a vector in between: F16 and
    /// BF16 are widened exactly (every value is a float). Returns false, writing
    /// nothing, when size() is short of numel() * dtypeSize(dtype).
    bool toFloatInto(float *out) const;
    /// Builds an F32 tensor from values; precondition: values.size() == product(shape).
    static TensorData fromFloat(std::vector<std::int64_t> shape, const std::vector<float> &values);
    /// Same values stored as F16 (round to nearest even) or BF16 (an owned copy).
    TensorData convertedTo(DType target) const;

private:
    std::shared_ptr<const MappedFile> m_file;
    const std::uint8_t *m_view = nullptr;
    std::size_t m_viewSize = 0;
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
