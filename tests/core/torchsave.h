#pragma once
/// \file torchsave.h
/// Test helpers that write what torch.save writes, byte by byte: a zip of stored
/// entries (libzip) and a pickle built opcode by opcode, so the restricted unpickler
/// is tested against files made without it (and without Python).

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>
#include <zip.h>

namespace treelens::test {

/// Writes a zip with libzip (stored entries, like torch.save; deflated with `deflate`).
inline void makeZip(const std::string &path, const std::vector<std::pair<std::string, std::string>> &entries, bool deflate = false)
{
    std::filesystem::remove(path);
    int err = 0;
    zip_t *z = zip_open(path.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &err);
    ASSERT_NE(z, nullptr);
    for (const auto &[name, data] : entries) {
        void *copy = std::malloc(data.size() + 1);
        std::memcpy(copy, data.data(), data.size());
        zip_source_t *src = zip_source_buffer(z, copy, data.size(), 1);
        const zip_int64_t idx = zip_file_add(z, name.c_str(), src, ZIP_FL_OVERWRITE);
        ASSERT_GE(idx, 0);
        zip_set_file_compression(z, static_cast<zip_uint64_t>(idx), deflate ? ZIP_CM_DEFLATE : ZIP_CM_STORE, 0);
    }
    ASSERT_EQ(zip_close(z), 0);
}

/// Hand-written pickles, opcode by opcode (protocol 2 unless said otherwise).
struct Pickle {
    std::string b = std::string("\x80\x02", 2);

    Pickle &op(char c) { b += c; return *this; }
    Pickle &raw(const std::string &s) { b += s; return *this; }
    Pickle &le32(std::uint32_t n)
    {
        for (int i = 0; i < 4; ++i)
            b += static_cast<char>((n >> (8 * i)) & 0xff);
        return *this;
    }
    Pickle &str(const std::string &s) { op('X').le32(static_cast<std::uint32_t>(s.size())); b += s; return *this; }
    Pickle &integer(std::int64_t v)
    {
        if (v >= INT32_MIN && v <= INT32_MAX)
            return op('J').le32(static_cast<std::uint32_t>(v));
        op('\x8a').op('\x08');
        for (int i = 0; i < 8; ++i)
            b += static_cast<char>((static_cast<std::uint64_t>(v) >> (8 * i)) & 0xff);
        return *this;
    }
    Pickle &global(const std::string &mod, const std::string &name) { return op('c').raw(mod + "\n" + name + "\n"); }
    Pickle &mark() { return op('('); }
    Pickle &tuple() { return op('t'); }
    Pickle &ints(const std::vector<std::int64_t> &v)
    {
        mark();
        for (auto x : v)
            integer(x);
        return tuple();
    }
    /// _rebuild_tensor_v2(('storage', torch.<type>, key, 'cpu', numel), offset, size, stride, False, OrderedDict())
    Pickle &tensor(const std::string &type, const std::string &key, std::int64_t numel, std::int64_t offset,
                   const std::vector<std::int64_t> &size, const std::vector<std::int64_t> &stride,
                   const std::string &fn = "_rebuild_tensor_v2")
    {
        global("torch._utils", fn).mark();
        mark().str("storage").global("torch", type).str(key).str("cpu").integer(numel).tuple().op('Q');
        integer(offset).ints(size).ints(stride).op('\x89');
        global("collections", "OrderedDict").op(')').op('R');
        return tuple().op('R');
    }
    Pickle &stop() { return op('.'); }
};

} // namespace treelens::test
