#pragma once
/// \file utf8.h
/// Minimal UTF-8 helpers (validation and decoding). Hand-written because only
/// validation and code-point stepping are needed and Qt is not allowed in core.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace treelens {

/// Returns -1 if `s` is valid UTF-8 (no overlongs, no surrogates, <= U+10FFFF),
/// otherwise the byte offset of the first invalid sequence.
long long findInvalidUtf8(std::string_view s);

/// Decodes the code point starting at s[pos]; sets `len` to its byte length.
/// Invalid bytes decode as U+FFFD with length 1.
char32_t decodeUtf8(std::string_view s, std::size_t pos, int &len);

/// Appends the UTF-8 encoding of `cp` to `out`.
void appendUtf8(std::string &out, char32_t cp);

/// The characters (code points) of `s`, each as its UTF-8 bytes; an invalid
/// byte becomes a one-byte string of its own.
std::vector<std::string> utf8Characters(std::string_view s);
/// 1-based line number of byte offset `pos` in `s`.
int lineOfOffset(std::string_view s, std::size_t pos);

} // namespace treelens
