#pragma once
/// \file linkage.h
/// Internal to the Link Grammar backend: Link Grammar's words and links as the
/// parser copies them out of a linkage, the reading of a word's subscript and
/// marker, and the alignment of the words to our tokens.

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

namespace treelens::linkgrammar {

// Link Grammar words and links.

struct LgWord {
    std::string raw;       ///< linkage_get_word(): "saw.v-d", "[the]", "Vinken[!<CAPITALIZED-WORDS>]"
    std::string surface;   ///< the input bytes the word covers
    std::string lower;
    std::string subscript; ///< "v-d", "n", "" (none)
    std::string marker;    ///< "?", "~", "!<CAPITALIZED-WORDS>", "" (none)
    int start = -1;
    int end = -1;
    bool wall = false;
    int token = -1;        ///< our token, -1 for walls and unaligned words
    int links = 0;
    std::vector<std::string> leftOf;  ///< majors of links where this word is the left end
    std::vector<std::string> rightOf; ///< majors of links where this word is the right end
    bool hasLeftOf(const char *major) const { return std::find(leftOf.begin(), leftOf.end(), major) != leftOf.end(); }
    bool hasRightOf(const char *major) const { return std::find(rightOf.begin(), rightOf.end(), major) != rightOf.end(); }
};

struct LgLink {
    int left = 0;
    int right = 0;
    std::string label;  ///< "Ss*s"
    std::string llabel; ///< "hWV": Link Grammar's own head (h) / dependent (d) marks
    std::string rlabel;
    std::string major;  ///< leading capitals: "S", "MV", "SJ", "WV", "IDBF"
    std::string sub;    ///< the rest: "s*s", "p", "ls"
};

/// Splits a link label ("Ss*s") into its major type ("S") and the rest ("s*s").
void splitLabel(const std::string &label, std::string &major, std::string &sub);

/// Splits "nonexecutive[!<ADJ-WORDS>].a" into subscript "a" and marker "!<ADJ-WORDS>".
void decomposeWord(LgWord &w);

/// Checks each word's byte offsets against the text and re-finds the word from
/// the previous word's end when they do not match: Link Grammar 5.12 strips
/// quote marks ("``") before it computes offsets, which shifts every later word.
void verifyOffsets(std::vector<LgWord> &words, const std::string &text);

// Alignment of Link Grammar words to our tokens (byte offsets into the joined
// input string: tolerant of Link Grammar splitting a token, merging tokens or
// dropping one).

struct Alignment {
    std::vector<std::vector<int>> wordsOf; ///< per token: its Link Grammar words, in order
    std::vector<int> rep;                  ///< per token: the word that stands for it, or -1
    std::vector<int> mergedInto;           ///< per token: token whose word also covers it, or -1
    int split = 0;
    int merged = 0;
    int dropped = 0;
};

/// Aligns the words to the tokens' byte ranges (sets LgWord::token).
Alignment alignWords(std::vector<LgWord> &words, const std::vector<std::pair<int, int>> &ranges);

} // namespace treelens::linkgrammar
