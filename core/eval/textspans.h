#pragma once
/// \file textspans.h
/// Character spans of a sentence's surface tokens and words, and running-text
/// paragraphs rebuilt from gold "# text" lines. Shared by the tokenizer
/// evaluation (tokeneval.h) and the raw-text parser evaluation (rawtexteval.h),
/// so both score exactly the same units. Definitions:
///  - surface tokens: a multiword token ("don't") is one token spanning its
///    words, every other word is a token with its own span;
///  - words: the words inside a multiword token get the spans of their FORMs
///    within its surface string ("do" [0,2), "n't" [2,5) in "don't"); where the
///    FORMs do not spell the surface string, the multiword token counts as one
///    word with its whole span;
///  - paragraphs: gold "# text" lines, trimmed, joined with one space; a
///    paragraph ends before a sentence with a "# newdoc" or "# newpar" comment.

#include <string>
#include <utility>
#include <vector>

#include "core/data/sentence.h"

namespace treelens {

/// Half-open byte range [first, second).
using TextSpan = std::pair<int, int>;

/// The surface tokens and words of one sentence as byte spans in its text.
struct SentenceSpans {
    std::vector<TextSpan> surface; ///< one per surface token, in order
    std::vector<TextSpan> words;   ///< one per scored word, in order
    /// For words[k]: the 0-based range [first, last] of Sentence::tokens it
    /// stands for (first == last except for a multiword token whose FORMs do not
    /// spell its surface string).
    std::vector<std::pair<int, int>> wordTokens;
    bool ok = true; ///< false when a token has no offsets or offsets outside the text
};

/// Spans of `s` from Token::charStart/charEnd (offsets into Sentence::text). A
/// multiword token spans from its first word's start to its last word's end, so
/// both readConllu's gold (every word of "don't" carries the token's span) and
/// the tokenizer's output (each word carries its own piece) give the same spans.
SentenceSpans sentenceSpans(const Sentence &s);

/// One paragraph of running text rebuilt from gold sentences.
struct TextParagraph {
    std::string text;
    std::vector<int> sentences;  ///< indices into the gold vector, in order
    std::vector<TextSpan> spans; ///< each sentence's trimmed text in `text`
    /// For each sentence: where byte 0 of its (untrimmed) Sentence::text would
    /// sit in `text`, so token offset o maps to o + shift (may be negative when
    /// the text starts with white space).
    std::vector<int> shifts;
};

/// Joins gold "# text" lines into paragraphs (see the file comment). Sentences
/// whose text is empty or blank belong to no paragraph.
std::vector<TextParagraph> textParagraphs(const std::vector<Sentence> &gold);

/// Number of spans present in both sorted lists, counting repeats (multiset).
long long countCommonSpans(const std::vector<TextSpan> &a, const std::vector<TextSpan> &b);

} // namespace treelens
