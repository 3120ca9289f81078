#include "core/base/inputlimits.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>

#include <sys/stat.h>

#include "core/base/utf8.h"

namespace treelens {

const InputLimits &inputLimits()
{
    static const InputLimits limits;
    return limits;
}

namespace {

std::string sizeText(std::uint64_t bytes)
{
    if (bytes >= (std::uint64_t(1) << 30) && bytes % (std::uint64_t(1) << 30) == 0)
        return std::to_string(bytes >> 30) + " GiB";
    if (bytes >= (std::uint64_t(1) << 20) && bytes % (std::uint64_t(1) << 20) == 0)
        return std::to_string(bytes >> 20) + " MiB";
    return std::to_string(bytes) + " bytes";
}

} // namespace

Result<std::string> readFileLimited(const std::string &path, std::uint64_t maxBytes)
{
    std::string data;
    char buf[1 << 16];
    if (path == "-") {
        while (std::cin.read(buf, sizeof buf) || std::cin.gcount() > 0) {
            data.append(buf, static_cast<std::size_t>(std::cin.gcount()));
            if (data.size() > maxBytes)
                return makeError("<stdin>", "input larger than " + sizeText(maxBytes) + " (refused)");
        }
        return data;
    }
    auto size = checkRegularFile(path, maxBytes);
    if (!size)
        return size.error();
    std::FILE *f = std::fopen(path.c_str(), "rb");
    if (!f)
        return makeError(path, std::strerror(errno));
    data.reserve(static_cast<std::size_t>(*size));
    std::size_t n;
    bool tooLarge = false;
    while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) {
        data.append(buf, n);
        // The file may grow while it is read: the limit holds for what is read.
        if (data.size() > maxBytes) {
            tooLarge = true;
            break;
        }
    }
    const bool failed = std::ferror(f) != 0;
    std::fclose(f);
    if (tooLarge)
        return makeError(path, "file grew past the limit of " + sizeText(maxBytes) + " while it was read (refused)");
    if (failed)
        return makeError(path, "read error");
    return data;
}

Result<std::uint64_t> checkRegularFile(const std::string &path, std::uint64_t maxBytes)
{
    if (path.empty())
        return Error{"empty file name"};
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0)
        return makeError(path, std::strerror(errno));
    if (S_ISDIR(st.st_mode))
        return makeError(path, "is a directory");
    if (!S_ISREG(st.st_mode))
        return makeError(path, "not a regular file (a device, pipe or socket; refused)");
    if (static_cast<std::uint64_t>(st.st_size) > maxBytes)
        return makeError(path, "file is " + std::to_string(st.st_size) + " bytes, larger than the limit of " +
                                   sizeText(maxBytes) + " (refused)");
    return static_cast<std::uint64_t>(st.st_size);
}

Result<std::string_view> checkedText(std::string_view text, const std::string &source, int firstLine)
{
    if (text.size() >= 3 && static_cast<unsigned char>(text[0]) == 0xEF && static_cast<unsigned char>(text[1]) == 0xBB &&
        static_cast<unsigned char>(text[2]) == 0xBF)
        text.remove_prefix(3);
    // "SOURCE:LINE" and the column in characters (code points), counted from 1.
    auto at = [&](std::size_t offset, std::string &column) {
        const std::size_t nl = offset == 0 ? std::string_view::npos : text.rfind('\n', offset - 1);
        std::size_t col = 1;
        for (std::size_t p = nl == std::string_view::npos ? 0 : nl + 1; p < offset; ++col) {
            int len = 1;
            decodeUtf8(text, p, len);
            p += static_cast<std::size_t>(len);
        }
        column = std::to_string(col);
        return source + ":" + std::to_string(firstLine - 1 + lineOfOffset(text, offset));
    };
    const long long bad = findInvalidUtf8(text);
    const std::size_t nul = text.find('\0');
    std::string column;
    if (nul != std::string_view::npos && (bad < 0 || nul < static_cast<std::size_t>(bad))) {
        const std::string where = at(nul, column);
        return makeError(where, "NUL byte at column " + column + " (a binary file? refused)");
    }
    if (bad >= 0) {
        const std::string where = at(static_cast<std::size_t>(bad), column);
        return makeError(where, "invalid UTF-8 at column " + column);
    }
    return text;
}

Status checkSentenceLength(std::size_t words, int limit, const std::string &source, int line,
                           const std::string &sentenceId, const std::string &hint)
{
    if (limit <= 0 || words <= static_cast<std::size_t>(limit))
        return {};
    std::string where = source;
    if (line > 0)
        where += (where.empty() ? "line " : ":") + std::to_string(line);
    std::string what = line > 0 || sentenceId.empty() ? "sentence" : "sentence " + sentenceId;
    what += " has " + std::to_string(words) + " words (limit " + std::to_string(limit) + (hint.empty() ? "" : ", " + hint) + ")";
    return makeError(where, what);
}

std::string printableMessage(std::string_view message)
{
    std::string out;
    out.reserve(message.size());
    static const char *hex = "0123456789abcdef";
    auto escapeByte = [&](unsigned char b) {
        out += "\\x";
        out += hex[b >> 4];
        out += hex[b & 15];
    };
    for (std::size_t p = 0; p < message.size();) {
        const unsigned char b = static_cast<unsigned char>(message[p]);
        if (b < 0x80) {
            if (b < 0x20 || b == 0x7f) {
                if (b == '\t')
                    out += ' ';
                else
                    escapeByte(b);
            } else {
                out += static_cast<char>(b);
            }
            ++p;
            continue;
        }
        int len = 1;
        const char32_t cp = decodeUtf8(message, p, len);
        if (cp == 0xFFFD && len == 1) {
            escapeByte(b); // an invalid byte
        } else if (cp >= 0x80 && cp < 0xA0) {
            out += "\\u{" + std::string(1, hex[(cp >> 4) & 15]) + hex[cp & 15] + "}"; // C1 control (CSI is U+009B)
        } else {
            out.append(message.substr(p, static_cast<std::size_t>(len)));
        }
        p += static_cast<std::size_t>(len);
    }
    return out;
}

Result<int> narrowInt(long long value, long long lo, long long hi, const std::string &key)
{
    if (value < lo || value > hi)
        return Error{key + ": " + std::to_string(value) + " is out of range " + std::to_string(lo) + ".." + std::to_string(hi)};
    return static_cast<int>(value);
}

} // namespace treelens
