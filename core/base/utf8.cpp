#include "core/base/utf8.h"

#include <algorithm>

namespace treelens {

namespace {

// Length of a valid sequence starting at s[i], or 0 if invalid.
int validSequenceLength(std::string_view s, std::size_t i)
{
    const auto b0 = static_cast<unsigned char>(s[i]);
    if (b0 < 0x80)
        return 1;
    int len = 0;
    unsigned char lo = 0x80, hi = 0xBF;
    if (b0 >= 0xC2 && b0 <= 0xDF) {
        len = 2;
    } else if (b0 >= 0xE0 && b0 <= 0xEF) {
        len = 3;
        if (b0 == 0xE0) lo = 0xA0;       // no overlongs
        if (b0 == 0xED) hi = 0x9F;       // no surrogates
    } else if (b0 >= 0xF0 && b0 <= 0xF4) {
        len = 4;
        if (b0 == 0xF0) lo = 0x90;
        if (b0 == 0xF4) hi = 0x8F;       // <= U+10FFFF
    } else {
        return 0;
    }
    if (i + static_cast<std::size_t>(len) > s.size())
        return 0;
    for (int k = 1; k < len; ++k) {
        const auto b = static_cast<unsigned char>(s[i + static_cast<std::size_t>(k)]);
        const unsigned char l = k == 1 ? lo : 0x80, h = k == 1 ? hi : 0xBF;
        if (b < l || b > h)
            return 0;
    }
    return len;
}

} // namespace

long long findInvalidUtf8(std::string_view s)
{
    std::size_t i = 0;
    while (i < s.size()) {
        // Fast path over ASCII.
        if (static_cast<unsigned char>(s[i]) < 0x80) {
            ++i;
            continue;
        }
        const int len = validSequenceLength(s, i);
        if (len == 0)
            return static_cast<long long>(i);
        i += static_cast<std::size_t>(len);
    }
    return -1;
}

char32_t decodeUtf8(std::string_view s, std::size_t pos, int &len)
{
    len = validSequenceLength(s, pos);
    if (len == 0) {
        len = 1;
        return 0xFFFD;
    }
    const auto b0 = static_cast<unsigned char>(s[pos]);
    if (len == 1)
        return b0;
    char32_t cp = b0 & (0xFF >> (len + 1));
    for (int k = 1; k < len; ++k)
        cp = (cp << 6) | (static_cast<unsigned char>(s[pos + static_cast<std::size_t>(k)]) & 0x3F);
    return cp;
}

void appendUtf8(std::string &out, char32_t cp)
{
    if (cp < 0x80) {
        out += static_cast<char>(cp);
    } else if (cp < 0x800) {
        out += static_cast<char>(0xC0 | (cp >> 6));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out += static_cast<char>(0xE0 | (cp >> 12));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (cp >> 18));
        out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    }
}

int lineOfOffset(std::string_view s, std::size_t pos)
{
    pos = std::min(pos, s.size());
    return 1 + static_cast<int>(std::count(s.begin(), s.begin() + static_cast<std::ptrdiff_t>(pos), '\n'));
}

std::vector<std::string> utf8Characters(std::string_view s)
{
    std::vector<std::string> out;
    out.reserve(s.size());
    for (std::size_t pos = 0; pos < s.size();) {
        int len = 1;
        decodeUtf8(s, pos, len);
        len = std::max(1, len);
        out.emplace_back(s.substr(pos, static_cast<std::size_t>(len)));
        pos += static_cast<std::size_t>(len);
    }
    return out;
}

} // namespace treelens
