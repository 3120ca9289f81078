#include "core/model/tensordata.h"

#include "core/base/mappedfile.h"

#include <cmath>
#include <cstring>

namespace treelens {

std::size_t dtypeSize(DType t)
{
    switch (t) {
    case DType::F64: case DType::I64: return 8;
    case DType::F32: case DType::I32: return 4;
    case DType::F16: case DType::BF16: case DType::I16: return 2;
    case DType::I8: case DType::U8: case DType::Bool: return 1;
    }
    return 1;
}

const char *dtypeName(DType t)
{
    switch (t) {
    case DType::F32: return "F32";
    case DType::F16: return "F16";
    case DType::BF16: return "BF16";
    case DType::F64: return "F64";
    case DType::I64: return "I64";
    case DType::I32: return "I32";
    case DType::I16: return "I16";
    case DType::I8: return "I8";
    case DType::U8: return "U8";
    case DType::Bool: return "BOOL";
    }
    return "?";
}

std::optional<DType> dtypeFromName(const std::string &n)
{
    static const std::pair<const char *, DType> table[] = {
        {"F32", DType::F32}, {"F16", DType::F16}, {"BF16", DType::BF16}, {"F64", DType::F64},
        {"I64", DType::I64}, {"I32", DType::I32}, {"I16", DType::I16},   {"I8", DType::I8},
        {"U8", DType::U8},   {"BOOL", DType::Bool}};
    for (const auto &[name, t] : table)
        if (n == name)
            return t;
    return std::nullopt;
}

std::size_t TensorData::numel() const
{
    std::size_t n = 1;
    for (std::int64_t d : shape)
        n *= static_cast<std::size_t>(d < 0 ? 0 : d);
    return n;
}

float halfToFloat(std::uint16_t h)
{
    const std::uint32_t sign = (h & 0x8000u) << 16;
    std::uint32_t exp = (h >> 10) & 0x1f;
    std::uint32_t man = h & 0x3ffu;
    std::uint32_t bits;
    if (exp == 0) {
        if (man == 0) {
            bits = sign;
        } else { // subnormal: normalise
            exp = 127 - 15 + 1;
            while (!(man & 0x400u)) {
                man <<= 1;
                --exp;
            }
            man &= 0x3ffu;
            bits = sign | (exp << 23) | (man << 13);
        }
    } else if (exp == 0x1f) {
        bits = sign | 0x7f800000u | (man << 13);
    } else {
        bits = sign | ((exp + 127 - 15) << 23) | (man << 13);
    }
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
}

std::uint16_t floatToHalf(float f)
{
    std::uint32_t x;
    std::memcpy(&x, &f, 4);
    const std::uint16_t sign = static_cast<std::uint16_t>((x >> 16) & 0x8000u);
    const std::uint32_t absx = x & 0x7fffffffu;
    if (absx >= 0x7f800000u) // Inf or NaN
        return sign | 0x7c00u | (absx > 0x7f800000u ? 0x200u : 0u);
    if (absx >= 0x477ff000u) // rounds to >= 65520: overflow to Inf
        return sign | 0x7c00u;
    if (absx < 0x38800000u) { // below the smallest normal half: subnormal or zero
        if (absx < 0x33000000u)
            return sign;
        const std::uint32_t e = absx >> 23;
        const std::uint32_t m = (absx & 0x7fffffu) | 0x800000u;
        // value = m * 2^(e-150); one half subnormal step is 2^-24
        const std::uint32_t shift = 126 - e; // 14..24
        const std::uint32_t dropped = m & ((1u << shift) - 1u);
        const std::uint32_t halfway = 1u << (shift - 1);
        std::uint32_t half = m >> shift;
        if (dropped > halfway || (dropped == halfway && (half & 1u)))
            ++half;
        return sign | static_cast<std::uint16_t>(half);
    }
    std::uint32_t v = absx - (112u << 23); // rebias exponent 127 -> 15
    const std::uint32_t dropped = v & 0x1fffu;
    v >>= 13;
    if (dropped > 0x1000u || (dropped == 0x1000u && (v & 1u)))
        ++v; // may carry into the exponent, which is correct
    return sign | static_cast<std::uint16_t>(v);
}

float bf16ToFloat(std::uint16_t b)
{
    const std::uint32_t bits = static_cast<std::uint32_t>(b) << 16;
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
}

std::uint16_t floatToBf16(float f)
{
    std::uint32_t x;
    std::memcpy(&x, &f, 4);
    if ((x & 0x7fffffffu) > 0x7f800000u)
        return static_cast<std::uint16_t>((x >> 16) | 0x40u); // quiet NaN
    const std::uint32_t rounding = 0x7fffu + ((x >> 16) & 1u);
    return static_cast<std::uint16_t>((x + rounding) >> 16);
}

namespace {
template <class T>
T load(const std::uint8_t *p)
{
    T v;
    std::memcpy(&v, p, sizeof(T));
    return v;
}
} // namespace

bool TensorData::toFloatInto(float *out) const
{
    const std::size_t n = numel();
    const std::size_t es = dtypeSize(dtype);
    if (size() < n * es)
        return false;
    const std::uint8_t *p = data();
    // One loop per dtype: the widening of a large mapped BF16 tensor is a tight loop.
    switch (dtype) {
    case DType::F32: if (n) std::memcpy(out, p, n * 4); break;
    case DType::F16: for (std::size_t i = 0; i < n; ++i) out[i] = halfToFloat(load<std::uint16_t>(p + 2 * i)); break;
    case DType::BF16: for (std::size_t i = 0; i < n; ++i) out[i] = bf16ToFloat(load<std::uint16_t>(p + 2 * i)); break;
    case DType::F64: for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<float>(load<double>(p + 8 * i)); break;
    case DType::I64: for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<float>(load<std::int64_t>(p + 8 * i)); break;
    case DType::I32: for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<float>(load<std::int32_t>(p + 4 * i)); break;
    case DType::I16: for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<float>(load<std::int16_t>(p + 2 * i)); break;
    case DType::I8: for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<float>(load<std::int8_t>(p + i)); break;
    case DType::U8: for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<float>(p[i]); break;
    case DType::Bool: for (std::size_t i = 0; i < n; ++i) out[i] = p[i] ? 1.0f : 0.0f; break;
    }
    return true;
}

std::vector<float> TensorData::toFloat() const
{
    std::vector<float> out(numel());
    if (!toFloatInto(out.data()))
        return {};
    return out;
}

TensorData TensorData::mapped(DType dtype, std::vector<std::int64_t> shape, std::shared_ptr<const MappedFile> file,
                              std::size_t offset, std::size_t size)
{
    TensorData t;
    t.dtype = dtype;
    t.shape = std::move(shape);
    t.m_view = file->data() + offset;
    t.m_viewSize = size;
    t.m_file = std::move(file);
    return t;
}

void TensorData::releasePages() const
{
    if (m_file)
        m_file->releasePages(m_view, m_viewSize);
}

TensorData TensorData::fromFloat(std::vector<std::int64_t> shape, const std::vector<float> &values)
{
    TensorData t;
    t.dtype = DType::F32;
    t.shape = std::move(shape);
    t.bytes.resize(values.size() * 4);
    if (!values.empty())
        std::memcpy(t.bytes.data(), values.data(), t.bytes.size());
    return t;
}

TensorData TensorData::convertedTo(DType target) const
{
    if (target == dtype)
        return *this;
    const std::vector<float> v = toFloat();
    TensorData t;
    t.dtype = target;
    t.shape = shape;
    if (target == DType::F32)
        return fromFloat(shape, v);
    t.bytes.resize(v.size() * dtypeSize(target));
    for (std::size_t i = 0; i < v.size(); ++i) {
        std::uint16_t h = 0;
        if (target == DType::F16)
            h = floatToHalf(v[i]);
        else if (target == DType::BF16)
            h = floatToBf16(v[i]);
        else
            return fromFloat(shape, v); // only float targets are meaningful here
        std::memcpy(t.bytes.data() + 2 * i, &h, 2);
    }
    return t;
}

std::string shapeText(const std::vector<std::int64_t> &shape)
{
    std::string t = "[";
    for (std::size_t i = 0; i < shape.size(); ++i)
        t += (i ? ", " : "") + std::to_string(shape[i]);
    return t + "]";
}

} // namespace treelens
