#pragma once
/// \file npy.h
/// NumPy's .npy format (version 1.0), so that corpus-scale arrays (`analyze --arrays DIR`:
/// attention, layer states) load with `numpy.load` without parsing text: the magic string,
/// a header dict {'descr': '<f4', 'fortran_order': False, 'shape': (...)} padded to a
/// multiple of 64 bytes, then the little-endian float32 data, row-major. Written atomically.

#include <cstdint>
#include <string>
#include <vector>

#include "core/base/result.h"

namespace treelens {

/// The .npy bytes of a float32 array of `shape` (product(shape) == data.size(), else an Error).
Result<std::string> npyBytes(const std::vector<float> &data, const std::vector<std::int64_t> &shape);
/// npyBytes written to `path` atomically; errors name the file.
Status writeNpy(const std::string &path, const std::vector<float> &data, const std::vector<std::int64_t> &shape);

} // namespace treelens
