#pragma once
/// \file charclasses.h
/// Internal to the tokenizer (core/text/tokenizer.cpp and the units of
/// core/text/tokenizer/): the classes of code points the scanner and the
/// sentence splitter ask (spaces, letters, digits, marks, apostrophes,
/// punctuation) and the decoding of one code point. Inline: they run for
/// every character.

#include <cstddef>
#include <string_view>

#include "core/base/utf8.h"

namespace treelens::tokenizer {

inline bool isSpaceCp(char32_t c)
{
    // U+200B and U+FEFF are not White_Space in Unicode, but they are invisible
    // and occur between words in web text; the CoNLL-U reader skips them too.
    return c == ' ' || (c >= 0x09 && c <= 0x0D) || c == 0x85 || c == 0xA0 || c == 0x1680
        || (c >= 0x2000 && c <= 0x200B) || c == 0x2028 || c == 0x2029 || c == 0x202F
        || c == 0x205F || c == 0x3000 || c == 0xFEFF;
}

inline bool isDigit(char32_t c) { return c >= '0' && c <= '9'; }
inline bool isAsciiAlpha(char32_t c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
inline bool isAsciiAlnum(char32_t c) { return isAsciiAlpha(c) || isDigit(c); }

inline bool isMark(char32_t c)
{
    return (c >= 0x0300 && c <= 0x036F) || (c >= 0x1AB0 && c <= 0x1AFF) || (c >= 0x1DC0 && c <= 0x1DFF)
        || (c >= 0x20D0 && c <= 0x20FF) || (c >= 0xFE20 && c <= 0xFE2F) || (c >= 0xFE00 && c <= 0xFE0F)
        || c == 0x00AD || c == 0x200C || c == 0x200D || (c >= 0xE0100 && c <= 0xE01EF);
}

// Non-ASCII code points that are punctuation or symbols rather than letters.
// Everything else above U+007F counts as a letter: the tokenizer only needs
// to know where words end, not which script they are in.
inline bool isNonAsciiSymbol(char32_t c)
{
    if (c < 0x80)
        return false;
    if (c <= 0xBF)
        return c != 0xAA && c != 0xB5 && c != 0xBA && c != 0xAD && c != 0xB2 && c != 0xB3
            && c != 0xB9; // ª µ º and superscript digits ("m²") belong to words
    // U+02BC (modifier letter apostrophe) is a letter in Unicode but an
    // apostrophe in English text: "donʼt".
    return c == 0xD7 || c == 0xF7 || c == 0x02BC || (c >= 0x2000 && c <= 0x2BFF) || (c >= 0x2E00 && c <= 0x2E7F)
        || (c >= 0x3000 && c <= 0x303F) || (c >= 0xE000 && c <= 0xF8FF) || (c >= 0xFE10 && c <= 0xFE1F)
        || (c >= 0xFE30 && c <= 0xFE6F) || (c >= 0xFF01 && c <= 0xFF0F) || (c >= 0xFF1A && c <= 0xFF20)
        || (c >= 0xFF3B && c <= 0xFF40) || (c >= 0xFF5B && c <= 0xFF65) || (c >= 0xFFF0 && c <= 0xFFFF)
        || (c >= 0x1F000 && c <= 0x1FAFF) || c > 0x10FFFF;
}

inline bool isLetter(char32_t c)
{
    if (c < 0x80)
        return isAsciiAlpha(c);
    return !isNonAsciiSymbol(c) && !isMark(c) && !isSpaceCp(c);
}

inline bool isWordChar(char32_t c) { return isLetter(c) || isDigit(c) || isMark(c); }

inline bool isUpperLetter(char32_t c)
{
    if (c < 0x80)
        return c >= 'A' && c <= 'Z';
    if (c >= 0xC0 && c <= 0xDE)
        return c != 0xD7;
    if (c >= 0x100 && c <= 0x17F) // Latin Extended-A alternates upper/lower
        return c % 2 == 0;
    return (c >= 0x391 && c <= 0x3A9) || (c >= 0x400 && c <= 0x42F);
}

// Characters used as an apostrophe inside a word ("don’t", "mama`s").
inline bool isApostrophe(char32_t c) { return c == '\'' || c == 0x2019 || c == '`' || c == 0x02BC || c == 0x2018; }

inline bool isOpeningPunct(char32_t c)
{
    return c == '(' || c == '[' || c == '{' || c == '<' || c == 0xAB || c == 0x201C || c == 0x2018
        || c == 0x201E || c == 0x201A || c == 0x2039 || c == '"' || c == '\'' || c == '`';
}

inline bool isTerminalPunct(char32_t c) { return c == '.' || c == '!' || c == '?' || c == 0x2026; }

inline bool isClosingPunct(char32_t c)
{
    return c == ')' || c == ']' || c == '}' || c == '"' || c == '\'' || c == 0x201D || c == 0x2019
        || c == 0xBB || c == 0x203A;
}

inline char32_t decodeAt(std::string_view s, std::size_t pos, int &len)
{
    const auto b = static_cast<unsigned char>(s[pos]);
    if (b < 0x80) {
        len = 1;
        return b;
    }
    return decodeUtf8(s, pos, len);
}

} // namespace treelens::tokenizer
