// Shards of a corpus run and their merge (see shard.h).
#include "core/formats/shard.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <stdexcept>

#include <nlohmann/json.hpp>
#include <zlib.h>

#include "core/base/strings.h"
#include "core/base/fileio.h"

namespace treelens {

namespace fs = std::filesystem;
using nlohmann::json;

Result<ShardSpec> parseShardSpec(const std::string &text)
{
    const auto slash = text.find('/');
    auto number = [](const std::string &s, int &out) {
        if (s.empty() || s.size() > 6 || !std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; }))
            return false;
        return parseInt(s, out);
    };
    ShardSpec s;
    if (slash == std::string::npos || !number(text.substr(0, slash), s.index) || !number(text.substr(slash + 1), s.count))
        return Error{"--shard '" + text + "' is not I/N (shard I of N, I from 1: 2/4)"};
    if (s.count < 1 || s.index < 1 || s.index > s.count)
        return Error{"--shard '" + text + "': I must be 1 to N and N at least 1"};
    return s;
}

namespace {

/// Blocks ⌊(I−1)·B/N⌋ .. ⌊I·B/N⌋ of B.
std::pair<std::size_t, std::size_t> blockRange(std::size_t blocks, const ShardSpec &s)
{
    const auto n = static_cast<std::size_t>(s.count), i = static_cast<std::size_t>(s.index);
    return {(i - 1) * blocks / n, i * blocks / n};
}

} // namespace

ShardRange shardRange(std::size_t total, const ShardSpec &s, std::size_t block)
{
    if (!s.active())
        return {0, total};
    block = std::max<std::size_t>(1, block);
    const std::size_t blocks = (total + block - 1) / block;
    const auto [b0, b1] = blockRange(blocks, s);
    return {std::min(total, b0 * block), std::min(total, b1 * block)};
}

ShardRange shardRangeByGroups(const std::vector<std::size_t> &groupStarts, std::size_t total, const ShardSpec &s)
{
    if (!s.active())
        return {0, total};
    const auto [g0, g1] = blockRange(groupStarts.size(), s);
    auto at = [&](std::size_t g) { return g < groupStarts.size() ? groupStarts[g] : total; };
    return {at(g0), at(g1)};
}

namespace {

std::string hex8(unsigned long v)
{
    char buf[16];
    std::snprintf(buf, sizeof buf, "%08lx", v & 0xffffffffUL);
    return buf;
}

Status addFile(const fs::path &p, uLong &crc, std::uint64_t &size)
{
    std::ifstream in(p, std::ios::binary);
    if (!in)
        return Error{p.string() + ": cannot be read"};
    std::vector<char> buf(1 << 16);
    while (in) {
        in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
        const auto n = in.gcount();
        if (n > 0) {
            crc = ::crc32(crc, reinterpret_cast<const Bytef *>(buf.data()), static_cast<uInt>(n));
            size += static_cast<std::uint64_t>(n);
        }
    }
    return {};
}

} // namespace

Result<InputIdentity> inputIdentity(const std::string &path)
{
    InputIdentity id;
    id.path = path;
    std::error_code ec;
    uLong crc = ::crc32(0L, Z_NULL, 0);
    if (fs::is_directory(path, ec)) {
        std::vector<fs::path> files;
        for (const auto &e : fs::directory_iterator(path, ec))
            if (e.is_regular_file())
                files.push_back(e.path());
        std::sort(files.begin(), files.end());
        for (const auto &f : files) {
            const std::string name = f.filename().string();
            crc = ::crc32(crc, reinterpret_cast<const Bytef *>(name.data()), static_cast<uInt>(name.size()));
            if (auto st = addFile(f, crc, id.size); !st)
                return st.error();
        }
    } else if (fs::is_regular_file(path, ec)) {
        if (auto st = addFile(path, crc, id.size); !st)
            return st.error();
    } else {
        return Error{path + ": no such file or folder (--shard needs its input in a file)"};
    }
    id.crc32 = hex8(crc);
    return id;
}

Result<InputIdentity> inputIdentity(const std::vector<std::string> &paths)
{
    if (paths.size() == 1)
        return inputIdentity(paths.front());
    InputIdentity all;
    uLong crc = ::crc32(0L, Z_NULL, 0);
    for (const auto &p : paths) {
        auto id = inputIdentity(p);
        if (!id)
            return id.error();
        all.path += (all.path.empty() ? "" : " ") + p;
        all.size += id->size;
        crc = ::crc32(crc, reinterpret_cast<const Bytef *>(id->crc32.data()), static_cast<uInt>(id->crc32.size()));
    }
    all.crc32 = hex8(crc);
    return all;
}

std::string shardHeaderLine(const ShardHeader &h)
{
    json j = {{"command", h.command},
              {"options", h.options},
              {"shard", h.shard.str()},
              {"input", {{"path", h.input.path}, {"size", h.input.size}, {"crc32", h.input.crc32}}},
              {"total", h.total},
              {"begin", h.begin},
              {"end", h.end},
              {"header_lines", h.headerLines},
              {"threads", h.threads},
              {"cpus", h.cpus}};
    return kShardLine + j.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
}

std::string shardEndLine(std::size_t records)
{
    return kShardEndLine + json{{"records", records}}.dump() + "\n";
}

namespace {

/// A count or size of a shard line: a non-negative integer (a number too large for 64 bits,
/// which the JSON reader keeps as a float, or a negative one is refused, never converted).
std::uint64_t countOf(const json &v)
{
    if (!v.is_number_unsigned())
        throw std::runtime_error("expected a non-negative integer, found " + v.dump());
    return v.get<std::uint64_t>();
}

/// The shard line's JSON (after kShardLine) into `h`.
Status parseShardLine(const std::string &path, const std::string &line, ShardHeader &h)
{
    try {
        const json j = json::parse(line);
        h.command = j.at("command").get<std::string>();
        h.options = j.at("options").get<std::string>();
        auto spec = parseShardSpec(j.at("shard").get<std::string>());
        if (!spec)
            return Error{path + ": " + spec.message(), spec.code()};
        h.shard = *spec;
        h.input.path = j.at("input").at("path").get<std::string>();
        h.input.size = countOf(j.at("input").at("size"));
        h.input.crc32 = j.at("input").at("crc32").get<std::string>();
        h.total = static_cast<std::size_t>(countOf(j.at("total")));
        h.begin = static_cast<std::size_t>(countOf(j.at("begin")));
        h.end = static_cast<std::size_t>(countOf(j.at("end")));
        h.headerLines = j.at("header_lines").get<int>();
        h.threads = j.value("threads", -1); // absent before issue 47
        h.cpus = j.value("cpus", 0);
    } catch (const std::exception &e) {
        return Error{path + ": the shard line is not readable: " + e.what()};
    }
    if (h.begin > h.end || h.end > h.total)
        return Error{path + ": its records " + std::to_string(h.begin) + ".." + std::to_string(h.end) + " are not within the input's " +
                     std::to_string(h.total)};
    return {};
}

/// The shard line and the end line of `path` (the body only as offsets: its files can be
/// larger than memory); the body too when `withBody`.
Result<ShardFile> readShard(const std::string &path, bool withBody)
{
    std::error_code ec;
    if (!fs::is_regular_file(path, ec))
        return Error{path + ": not a file (merge takes the shards' output files)"};
    std::ifstream in(path, std::ios::binary | std::ios::ate);
    if (!in)
        return Error{path + ": cannot be read"};
    const auto size = static_cast<std::uint64_t>(std::max<std::streamoff>(0, in.tellg()));
    in.seekg(0);
    const std::string head = kShardLine, tail = kShardEndLine;
    std::string first;
    if (!std::getline(in, first) || first.compare(0, head.size(), head) != 0)
        return Error{path + ": not a shard output (it does not start with '" + head + "{…}'; run the command with --shard I/N -o FILE)"};
    if (in.eof())
        return Error{path + ": incomplete shard output (its first line has no end)"};
    ShardFile f;
    if (auto st = parseShardLine(path, first.substr(head.size()), f.header); !st)
        return st.error();
    f.bodyBegin = first.size() + 1;
    f.bodyEnd = size;
    // The end line: the file's last line (short; read from the file's end).
    const std::uint64_t tailSize = std::min<std::uint64_t>(size - f.bodyBegin, 1 << 16);
    std::string last(static_cast<std::size_t>(tailSize), '\0');
    in.clear();
    in.seekg(static_cast<std::streamoff>(size - tailSize));
    if (tailSize > 0 && !in.read(last.data(), static_cast<std::streamsize>(tailSize)))
        return Error{path + ": cannot be read"};
    if (!last.empty() && last.back() == '\n') {
        const auto lastStart = last.rfind('\n', last.size() >= 2 ? last.size() - 2 : 0);
        const std::size_t at = lastStart == std::string::npos || last.size() < 2 ? 0 : lastStart + 1;
        const bool wholeLine = lastStart != std::string::npos || tailSize == size - f.bodyBegin;
        if (wholeLine && last.compare(at, tail.size(), tail) == 0) {
            try {
                f.records = static_cast<std::size_t>(countOf(json::parse(last.substr(at + tail.size())).at("records")));
                f.complete = true;
                f.bodyEnd = size - tailSize + at;
            } catch (const std::exception &) {
                f.complete = false;
            }
        }
    }
    if (withBody) {
        f.body.assign(static_cast<std::size_t>(f.bodyEnd - f.bodyBegin), '\0');
        in.clear();
        in.seekg(static_cast<std::streamoff>(f.bodyBegin));
        if (!f.body.empty() && !in.read(f.body.data(), static_cast<std::streamsize>(f.body.size())))
            return Error{path + ": cannot be read"};
    }
    return f;
}

} // namespace

Result<ShardFile> readShardFile(const std::string &path) { return readShard(path, true); }

Result<ShardFile> readShardEnds(const std::string &path) { return readShard(path, false); }

bool shardIsDone(const std::string &path, const ShardHeader &h)
{
    std::error_code ec;
    if (!fs::exists(path, ec))
        return false;
    auto f = readShard(path, false);
    if (!f || !f->complete)
        return false;
    const ShardHeader &g = f->header;
    return g.command == h.command && g.options == h.options && g.shard.index == h.shard.index && g.shard.count == h.shard.count &&
           sameContent(g.input, h.input) && f->records == g.end - g.begin;
}

std::string differentThreads(const ShardHeader &a, const ShardHeader &b)
{
    if (a.threads < 0 || b.threads < 0) // not recorded
        return {};
    auto said = [](const ShardHeader &h) {
        return h.threads == 0 ? "the default threads (" + std::to_string(h.cpus) + " CPUs)"
                              : std::to_string(h.threads) + (h.threads == 1 ? " thread" : " threads");
    };
    if (a.threads != b.threads || (a.threads == 0 && a.cpus != b.cpus))
        return said(a) + " and " + said(b);
    return {};
}

Result<MergedShards> mergeShardsTo(const std::vector<std::string> &paths, const std::function<Status(std::string_view)> &write)
{
    if (paths.empty())
        return Error{"merge: no shard outputs given"};
    std::vector<std::pair<std::string, ShardFile>> files;
    for (const auto &p : paths) {
        auto f = readShard(p, false);
        if (!f)
            return f.error();
        if (!f->complete)
            return Error{p + ": incomplete shard output (no '" + std::string(kShardEndLine) + "' line: the run did not finish)"};
        if (f->records != f->header.end - f->header.begin)
            return Error{p + ": holds " + std::to_string(f->records) + " records, its shard line says " +
                         std::to_string(f->header.end - f->header.begin)};
        files.emplace_back(p, std::move(*f));
    }
    const ShardHeader &h0 = files.front().second.header;
    const std::string &p0 = files.front().first;
    std::map<int, std::size_t> byIndex;
    for (std::size_t k = 0; k < files.size(); ++k) {
        const auto &[p, f] = files[k];
        const ShardHeader &h = f.header;
        if (h.command != h0.command)
            return Error{p + " is a shard of '" + h.command + "', " + p0 + " of '" + h0.command + "'"};
        if (!sameContent(h.input, h0.input) || h.total != h0.total)
            return Error{p + " is a shard of another input (" + h.input.path + ", " + std::to_string(h.input.size) + " bytes, crc32 " +
                         h.input.crc32 + ") than " + p0 + " (" + h0.input.path + ", " + std::to_string(h0.input.size) + " bytes, crc32 " +
                         h0.input.crc32 + ")"};
        if (h.options != h0.options)
            return Error{p + " comes from another command line than " + p0 + " ('" + h.options + "' against '" + h0.options + "')"};
        if (h.shard.count != h0.shard.count)
            return Error{p + " is shard " + h.shard.str() + ", " + p0 + " shard " + h0.shard.str() + ": another number of shards"};
        if (auto why = differentThreads(h0, h); !why.empty())
            return Error{p0 + " and " + p + " were run with " + why +
                         ": the numbers differ in their last digits; run every shard with the same --threads"};
        if (auto [it, fresh] = byIndex.emplace(h.shard.index, k); !fresh)
            return Error{"shard " + h.shard.str() + " is given twice: " + files[it->second].first + " and " + p};
    }
    std::string missing;
    for (int i = 1; i <= h0.shard.count; ++i)
        if (!byIndex.count(i))
            missing += (missing.empty() ? "" : ", ") + std::to_string(i);
    if (!missing.empty())
        return Error{"merge: shard" + std::string(missing.find(',') == std::string::npos ? " " : "s ") + missing + " of " +
                     std::to_string(h0.shard.count) + (missing.find(',') == std::string::npos ? " is" : " are") + " missing (" +
                     std::to_string(files.size()) + " shard outputs of " + h0.input.path + " given)"};
    MergedShards m;
    std::size_t next = 0;
    for (const auto &[index, k] : byIndex) {
        const auto &[p, f] = files[k];
        if (f.header.begin != next)
            return Error{p + " (shard " + f.header.shard.str() + ") starts at record " + std::to_string(f.header.begin) +
                         ", the shards before it end at " + std::to_string(next)};
        next = f.header.end;
        m.records += f.records;
        if (index == 1)
            m.first = f.header;
    }
    if (next != h0.total)
        return Error{"merge: the shards cover " + std::to_string(next) + " of the input's " + std::to_string(h0.total) + " records"};
    // The bodies in shard order, a piece at a time (the lines every shard repeats kept once).
    for (const auto &[index, k] : byIndex) {
        const auto &[p, f] = files[k];
        std::ifstream in(p, std::ios::binary);
        in.seekg(static_cast<std::streamoff>(f.bodyBegin));
        std::uint64_t left = f.bodyEnd - f.bodyBegin;
        int skip = index > 1 ? f.header.headerLines : 0;
        std::string piece;
        while (left > 0) {
            piece.resize(static_cast<std::size_t>(std::min<std::uint64_t>(left, 1 << 20)));
            if (!in.read(piece.data(), static_cast<std::streamsize>(piece.size())))
                return Error{p + ": cannot be read"};
            left -= piece.size();
            std::size_t from = 0;
            for (; skip > 0 && from < piece.size(); --skip) {
                const auto eol = piece.find('\n', from);
                from = eol == std::string::npos ? piece.size() : eol + 1;
                if (eol == std::string::npos)
                    ++skip; // the line goes on in the next piece
            }
            if (auto st = write ? write(std::string_view(piece).substr(from)) : Status{}; !st)
                return st.error();
            if (!write)
                m.body.append(piece, from, std::string::npos);
        }
    }
    return m;
}

Result<MergedShards> mergeShards(const std::vector<std::string> &paths)
{
    return mergeShardsTo(paths, nullptr);
}

} // namespace treelens
