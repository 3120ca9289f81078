// NumPy .npy writer (see npy.h).
#include "core/formats/npy.h"

#include <cstring>

#include "core/base/fileio.h"

namespace treelens {

Result<std::string> npyBytes(const std::vector<float> &data, const std::vector<std::int64_t> &shape)
{
    std::int64_t count = 1;
    std::string dims;
    for (std::int64_t d : shape) {
        if (d < 0)
            return Error{"an array dimension is negative"};
        count *= d;
        dims += std::to_string(d) + ",";
    }
    if (shape.size() > 1)
        dims.pop_back(); // (3, 4); a one-dimensional shape keeps its comma: (3,)
    if (count != static_cast<std::int64_t>(data.size()))
        return Error{"the array has " + std::to_string(data.size()) + " values for a shape of " + std::to_string(count)};
    std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (" + dims + "), }";
    // Magic (6) + version (2) + header length (2) + header + '\n', padded with spaces to 64 bytes.
    const std::size_t unpadded = 10 + header.size() + 1;
    header.append((64 - unpadded % 64) % 64, ' ');
    header += '\n';
    std::string out("\x93NUMPY\x01\x00", 8);
    out += static_cast<char>(header.size() & 0xff);
    out += static_cast<char>((header.size() >> 8) & 0xff);
    out += header;
    const std::size_t at = out.size();
    out.resize(at + data.size() * sizeof(float));
    // The machines TreeLens runs on are little-endian (x86-64, aarch64), as '<f4' says.
    if (!data.empty())
        std::memcpy(&out[at], data.data(), data.size() * sizeof(float));
    return out;
}

Status writeNpy(const std::string &path, const std::vector<float> &data, const std::vector<std::int64_t> &shape)
{
    auto bytes = npyBytes(data, shape);
    if (!bytes)
        return makeError(path, bytes.error());
    return writeFileAtomic(path, *bytes);
}

} // namespace treelens
