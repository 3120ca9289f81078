#pragma once
/// \file tokeneval.h
/// Scores the tokenizer and the sentence splitter against a gold treebank read
/// with readConllu (offsets aligned to "# text"). Definitions, precisely (see
/// also docs/tokenizer.md):
///  - surface tokens (the headline figure, CoNLL 2018 "Tokens"): a gold
///    multiword token ("don't") is one token with its span, every other word is
///    a token; predicted words are grouped the same way (Tokenizer's
///    SurfaceToken). A predicted token is correct iff a gold token has the same
///    byte span [start, end) in the sentence text.
///  - words (CoNLL 2018 "Words", by span): gold words inside a multiword token
///    get the spans of their FORMs within its surface string ("do" [0,2),
///    "n't" [2,5) in "don't"); predicted words are the tokenizer's words. A word
///    is correct iff a gold word has the same span (multiset match). Where the
///    FORMs do not spell the surface string, the multiword token counts as one
///    word with its whole span.
///  - sentences: gold "# text" lines are joined with one space into paragraphs
///    (a paragraph ends at "# newdoc" or "# newpar"); splitSentences runs on
///    each paragraph. Sentence spans must match exactly (CoNLL 2018
///    "Sentences"); boundaries are the sentence ends inside a paragraph (the
///    paragraph's own end is not counted).
/// Scores are fractions in [0, 1]. Nothing is printed.

#include <string>
#include <vector>

#include "core/data/sentence.h"
#include "core/text/tokenizer.h"

namespace treelens {

/// Counts for precision / recall / F1.
struct PrfCounts {
    long long gold = 0;
    long long predicted = 0;
    long long correct = 0;
    double precision() const { return predicted ? static_cast<double>(correct) / static_cast<double>(predicted) : 0.0; }
    double recall() const { return gold ? static_cast<double>(correct) / static_cast<double>(gold) : 0.0; }
    double f1() const
    {
        const long long d = gold + predicted;
        return d ? 2.0 * static_cast<double>(correct) / static_cast<double>(d) : 0.0;
    }
};

/// One stretch of a sentence where gold and predicted tokens disagree.
struct TokenMismatch {
    std::string sentenceId;
    std::vector<std::string> gold;      ///< gold surface tokens in the stretch
    std::vector<std::string> predicted; ///< predicted surface tokens in the stretch
};

struct TokenizationScore {
    PrfCounts tokens; ///< surface tokens (headline figure)
    PrfCounts words;  ///< syntactic words, multiword tokens split
    long long sentences = 0;        ///< gold sentences scored
    long long skippedSentences = 0; ///< without "# text" or with unaligned offsets
    long long bytes = 0;            ///< bytes of text tokenized
    double seconds = 0.0;           ///< time spent in the tokenizer
    std::vector<TokenMismatch> mismatches; ///< the first `maxMismatches` stretches
};

struct SegmentationScore {
    PrfCounts sentences;  ///< exact sentence spans
    PrfCounts boundaries; ///< sentence ends inside a paragraph
    long long paragraphs = 0;
};

/// Tokenizes each gold sentence's text and scores it (see the file comment).
/// Up to `maxMismatches` disagreeing stretches are kept for error analysis.
TokenizationScore evaluateTokenizer(const std::vector<Sentence> &gold, const Tokenizer &tokenizer,
                                    int maxMismatches = 0);

/// Re-splits paragraphs made of the gold sentence texts and scores the split.
SegmentationScore evaluateSentenceSplitter(const std::vector<Sentence> &gold, const Tokenizer &tokenizer);

} // namespace treelens
