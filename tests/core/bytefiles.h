#pragma once
// Byte-level file helpers the model-file tests share (test_checkpoint, test_modelfiles,
// test_mappedweights): a scratch path per suite, a whole file read and written as bytes, and
// the little-endian u64 of a safetensors header length.
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace treelens::test {

/// `name` in the temporary folder `suite` (created).
inline std::string scratchPath(const std::string &suite, const std::string &name)
{
    const auto dir = std::filesystem::temp_directory_path() / suite;
    std::filesystem::create_directories(dir);
    return (dir / name).string();
}

inline std::string slurp(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

/// Writes `bytes` to `path`, replacing what was there.
inline void spit(const std::string &path, const std::string &bytes)
{
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << bytes;
}

/// `n` as 8 little-endian bytes.
inline std::string le64(std::uint64_t n)
{
    std::string s;
    for (int i = 0; i < 8; ++i)
        s += static_cast<char>((n >> (8 * i)) & 0xff);
    return s;
}

} // namespace treelens::test
