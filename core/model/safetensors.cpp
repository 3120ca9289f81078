#include "core/model/safetensors.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/base/fileio.h"
#include "core/base/jsonstrict.h"
#include "core/base/mappedfile.h"

namespace treelens {

namespace {

/// Where a tensor's bytes lie in the data buffer, for the coverage check.
struct Range {
    std::uint64_t begin, end;
    std::string name;
};

/// The header's entry for tensor `name`, checked (dtype, shape, offsets inside
/// the data buffer of `bufferSize` bytes, size = shape × dtype); `range` gets its offsets.
Result<TensorData> tensorEntry(const std::string &name, const nlohmann::json &v, std::uint64_t bufferSize,
                               const std::string &where, Range &range)
{
    const std::string t = "tensor '" + name + "'";
    if (name.empty())
        return makeError(where, "a tensor has an empty name");
    if (!v.is_object() || !v.contains("dtype") || !v.contains("shape") || !v.contains("data_offsets"))
        return makeError(where, t + ": needs dtype, shape and data_offsets");
    if (!v["dtype"].is_string())
        return makeError(where, t + ": dtype is not a string");
    const auto dtype = dtypeFromName(v["dtype"].get<std::string>());
    if (!dtype)
        return makeError(where, t + ": unknown dtype '" + v["dtype"].get<std::string>() + "'");
    if (!v["shape"].is_array())
        return makeError(where, t + ": shape is not an array");
    TensorData td;
    td.dtype = *dtype;
    std::uint64_t numel = 1;
    for (const auto &d : v["shape"]) {
        if (!d.is_number_unsigned() && !(d.is_number_integer() && d.get<long long>() >= 0))
            return makeError(where, t + ": shape entries must be non-negative integers");
        const auto dim = d.get<std::uint64_t>();
        if (dim > 0 && numel > std::numeric_limits<std::uint64_t>::max() / 16 / dim)
            return makeError(where, t + ": shape is too large");
        numel *= dim;
        td.shape.push_back(static_cast<std::int64_t>(dim));
    }
    if (td.shape.size() > 8)
        return makeError(where, t + ": more than 8 dimensions");
    const auto &off = v["data_offsets"];
    if (!off.is_array() || off.size() != 2 || !off[0].is_number_unsigned() || !off[1].is_number_unsigned())
        return makeError(where, t + ": data_offsets must be two non-negative integers");
    const auto begin = off[0].get<std::uint64_t>(), end = off[1].get<std::uint64_t>();
    if (end < begin)
        return makeError(where, t + ": data_offsets end before they begin");
    if (end > bufferSize)
        return makeError(where, t + ": data ends at byte " + std::to_string(end) + " but the data buffer has " +
                                    std::to_string(bufferSize) + " (truncated file?)");
    const std::uint64_t want = numel * dtypeSize(*dtype);
    if (end - begin != want)
        return makeError(where, t + ": " + std::to_string(end - begin) + " bytes for shape " + shapeText(td.shape) +
                                    " of " + dtypeName(*dtype) + " (needs " + std::to_string(want) + ")");
    range = {begin, end, name};
    return td;
}

/// The tensors cover the data buffer exactly: no overlap, no hole, no trailing bytes.
Status checkCoverage(std::vector<Range> ranges, std::uint64_t bufferSize, const std::string &where)
{
    std::sort(ranges.begin(), ranges.end(), [](const Range &a, const Range &b) { return a.begin < b.begin || (a.begin == b.begin && a.end < b.end); });
    std::uint64_t cursor = 0;
    for (const auto &r : ranges) {
        if (r.begin < cursor)
            return makeError(where, "tensor '" + r.name + "' overlaps the previous tensor's data");
        if (r.begin > cursor)
            return makeError(where, "bytes " + std::to_string(cursor) + ".." + std::to_string(r.begin) +
                                        " of the data buffer belong to no tensor");
        cursor = r.end;
    }
    if (cursor != bufferSize)
        return makeError(where, "the data buffer has " + std::to_string(bufferSize - cursor) + " trailing bytes that belong to no tensor");
    return {};
}

/// What a file of another kind than safetensors is, said instead of an absurd header length.
std::optional<Error> otherKindOfFile(const std::uint8_t *data, const std::string &where)
{
    if (data[0] == 'P' && data[1] == 'K' && data[2] == 3 && data[3] == 4)
        return makeError(where, "not a safetensors file but a zip archive (a PyTorch checkpoint? convert it with "
                                "treelens-cli import-checkpoint)");
    const bool text = std::all_of(data, data + 8, [](std::uint8_t c) { return (c >= 0x20 && c < 0x7f) || (c >= 9 && c <= 13); });
    if (text)
        return makeError(where, "not a safetensors file: it starts with text, where a safetensors file starts with "
                                "its header's length in 8 bytes");
    return std::nullopt;
}

/// The reader under both APIs: `data` holds the whole file. With `file` null every
/// tensor's bytes are copied (owned); with `file` (the mapping `data` lies in), every
/// tensor is a view into it. The checks and messages are the same either way.
Result<SafetensorsFile> parseSafetensors(const std::uint8_t *data, std::size_t size, const std::string &where,
                                         const std::shared_ptr<const MappedFile> &file)
{
    if (size < 8)
        return makeError(where, "file is " + std::to_string(size) + " bytes, too short for a safetensors header");
    std::uint64_t n = 0;
    for (int i = 7; i >= 0; --i)
        n = (n << 8) | data[i];
    if (n > kSafetensorsMaxHeader || n > size - 8)
        if (auto other = otherKindOfFile(data, where))
            return *other;
    if (n > kSafetensorsMaxHeader)
        return makeError(where, "header length " + std::to_string(n) + " exceeds the 100 MB limit");
    if (n > size - 8)
        return makeError(where, "header claims " + std::to_string(n) + " bytes but the file has only " +
                                    std::to_string(size - 8) + " after the length field");
    if (n < 2)
        return makeError(where, "header is empty");
    if (std::memchr(data + 8, 0, n) != nullptr)
        return makeError(where, "header contains a NUL byte");
    // docs/model-files.md: no name appears twice (nlohmann::json would keep the last one).
    auto parsed = parseJsonStrict(std::string_view(reinterpret_cast<const char *>(data + 8), static_cast<std::size_t>(n)),
                                  where + ": header");
    if (!parsed)
        return parsed.error();
    const nlohmann::json header = std::move(*parsed);
    if (!header.is_object())
        return makeError(where, "header is not a JSON object");
    const std::uint8_t *buffer = data + 8 + n;
    const std::uint64_t bufferSize = size - 8 - n;
    SafetensorsFile out;
    std::vector<Range> ranges;
    for (auto it = header.begin(); it != header.end(); ++it) {
        const std::string &name = it.key();
        const auto &v = it.value();
        if (name == "__metadata__") {
            if (!v.is_object())
                return makeError(where, "__metadata__ is not an object");
            for (auto m = v.begin(); m != v.end(); ++m) {
                if (!m.value().is_string())
                    return makeError(where, "metadata value '" + m.key() + "' is not a string");
                out.metadata[m.key()] = m.value().get<std::string>();
            }
            continue;
        }
        Range r{};
        auto td = tensorEntry(name, v, bufferSize, where, r);
        if (!td)
            return td.error();
        const auto length = static_cast<std::size_t>(r.end - r.begin);
        if (file)
            *td = TensorData::mapped(td->dtype, std::move(td->shape), file, static_cast<std::size_t>(buffer - file->data()) + r.begin, length);
        else
            td->bytes.assign(buffer + r.begin, buffer + r.end);
        ranges.push_back(std::move(r));
        if (!out.tensors.emplace(name, std::move(*td)).second)
            return makeError(where, "tensor '" + name + "' appears twice");
    }
    if (auto s = checkCoverage(std::move(ranges), bufferSize, where); !s)
        return s.error();
    return out;
}

} // namespace

Result<SafetensorsFile> readSafetensorsBytes(const std::uint8_t *data, std::size_t size, const std::string &where)
{
    return parseSafetensors(data, size, where, nullptr);
}

Result<std::map<std::string, std::string>> readSafetensorsHeaderMetadata(const std::uint8_t *data, std::size_t size,
                                                                         const std::string &where)
{
    if (size < 8)
        return makeError(where, "file is " + std::to_string(size) + " bytes, too short for a safetensors header");
    std::uint64_t n = 0;
    for (int i = 7; i >= 0; --i)
        n = (n << 8) | data[i];
    if (n > kSafetensorsMaxHeader || n > size - 8 || n < 2)
        return readSafetensorsBytes(data, size, where).error(); // its message for each of these
    auto parsed = parseJsonStrict(std::string_view(reinterpret_cast<const char *>(data + 8), static_cast<std::size_t>(n)),
                                  where + ": header");
    if (!parsed)
        return parsed.error();
    if (!parsed->is_object())
        return makeError(where, "header is not a JSON object");
    std::map<std::string, std::string> out;
    const auto it = parsed->find("__metadata__");
    if (it == parsed->end())
        return out;
    if (!it->is_object())
        return makeError(where, "__metadata__ is not an object");
    for (auto m = it->begin(); m != it->end(); ++m) {
        if (!m.value().is_string())
            return makeError(where, "metadata value '" + m.key() + "' is not a string");
        out[m.key()] = m.value().get<std::string>();
    }
    return out;
}

Result<SafetensorsFile> readSafetensors(const std::string &path)
{
    if (path != "-") {
        auto file = MappedFile::open(path);
        if (file)
            return parseSafetensors((*file)->data(), (*file)->size(), path, *file);
        // A file that cannot be read at all (missing, a directory, a device) is said as reading would say it;
        // one the system would not map (a file system without mmap) is read as before.
        if (file.code() != ErrorCode::Io)
            return file.error();
    }
    auto bytes = readFile(path);
    if (!bytes)
        return bytes.error();
    return readSafetensorsBytes(reinterpret_cast<const std::uint8_t *>(bytes->data()), bytes->size(), path);
}

Result<std::string> safetensorsBytes(const TensorMap &tensors, const std::map<std::string, std::string> &metadata)
{
    nlohmann::json header = nlohmann::json::object();
    if (!metadata.empty())
        header["__metadata__"] = metadata;
    std::uint64_t offset = 0;
    for (const auto &[name, t] : tensors) {
        if (name == "__metadata__" || name.empty())
            return makeError("safetensors", "invalid tensor name '" + name + "'");
        const std::uint64_t want = t.numel() * dtypeSize(t.dtype);
        if (t.size() != want)
            return makeError("safetensors", "tensor '" + name + "' holds " + std::to_string(t.size()) +
                                                " bytes, its shape needs " + std::to_string(want));
        header[name] = {{"dtype", dtypeName(t.dtype)}, {"shape", t.shape}, {"data_offsets", {offset, offset + want}}};
        offset += want;
    }
    std::string h = header.dump();
    while (h.size() % 8 != 0)
        h += ' ';
    std::string out;
    out.reserve(8 + h.size() + offset);
    const std::uint64_t n = h.size();
    for (int i = 0; i < 8; ++i)
        out += static_cast<char>((n >> (8 * i)) & 0xff);
    out += h;
    for (const auto &[name, t] : tensors)
        out.append(reinterpret_cast<const char *>(t.data()), t.size());
    return out;
}

Status writeSafetensors(const std::string &path, const TensorMap &tensors,
                        const std::map<std::string, std::string> &metadata)
{
    auto bytes = safetensorsBytes(tensors, metadata);
    if (!bytes)
        return makeError(path, bytes.error());
    return writeFileAtomic(path, *bytes);
}

} // namespace treelens
