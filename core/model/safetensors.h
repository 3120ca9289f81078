#pragma once
/// \file safetensors.h
/// Reader/writer for the safetensors format (8-byte little-endian header
/// length N, N bytes of JSON header, then the data buffer). There is no Debian
/// package for it; this one validates everything and never trusts the file:
/// header length against the file size, JSON well-formedness, dtype names,
/// shapes, offsets in range, sizes matching shape × dtype, no overlap and no
/// uncovered bytes, string-only metadata. Errors name the file and tensor.

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>

#include "core/base/result.h"
#include "core/model/tensordata.h"

namespace treelens {

struct SafetensorsFile {
    TensorMap tensors;
    std::map<std::string, std::string> metadata; ///< the "__metadata__" object
};

/// Largest header accepted (the format's own limit is 100 MB).
constexpr std::uint64_t kSafetensorsMaxHeader = 100u * 1024u * 1024u;

/// Maps the file read-only (MappedFile) and validates it: every tensor is a view
/// into the mapping (TensorData::mapped), so reading costs the header, not the
/// weights; the mapping lives as long as any tensor of it. A file of any size is
/// taken (the 2 GiB limit of text files does not apply: nothing is read up front).
/// Where the system will not map the file (or for "-", standard input), it is
/// read into memory as readSafetensorsBytes() reads bytes. Errors as
/// readSafetensorsBytes()'s, and readFile()'s for a file that cannot be read.
Result<SafetensorsFile> readSafetensors(const std::string &path);
/// Validates a whole file held in memory (`where` names it in errors); every
/// tensor's bytes are copied out (owned), so `data` may go once this returns.
Result<SafetensorsFile> readSafetensorsBytes(const std::uint8_t *data, std::size_t size, const std::string &where);

/// The "__metadata__" of a header alone: `data` holds the 8-byte length and at
/// least that many header bytes (the tensors' bytes may be absent). Checks as
/// readSafetensorsBytes does for the header; the tensor entries are not read.
Result<std::map<std::string, std::string>> readSafetensorsHeaderMetadata(const std::uint8_t *data, std::size_t size,
                                                                         const std::string &where);

/// Serialises (tensors sorted by name, header padded with spaces to a multiple of 8).
Result<std::string> safetensorsBytes(const TensorMap &tensors, const std::map<std::string, std::string> &metadata);
/// Writes atomically (temporary file then rename).
Status writeSafetensors(const std::string &path, const TensorMap &tensors,
                        const std::map<std::string, std::string> &metadata);

} // namespace treelens
