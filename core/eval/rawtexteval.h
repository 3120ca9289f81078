#pragma once
/// \file rawtexteval.h
/// Scores a whole pipeline (sentence splitter + tokenizer + tagger/parser) on raw
/// text against a gold UD treebank, in the manner of the CoNLL 2018 shared task
/// scorer (conll18_ud_eval.py). Definitions, precisely (docs/evaluation.md):
///  - text: gold "# text" lines are joined into paragraphs as in tokeneval
///    (textspans.h: trimmed, one space between sentences, a paragraph ends at
///    "# newdoc"/"# newpar"). The system reads exactly these paragraph strings,
///    so gold and system spans are BYTE OFFSETS IN THE SAME PARAGRAPH TEXT and
///    are compared directly (no need for the scorer's whitespace-stripped
///    character offsets, which it uses because its two files may differ in
///    white space). Paragraphs are laid end to end, one byte apart, in one
///    document coordinate.
///  - units (textspans.h): surface tokens (a multiword token is one token);
///    words (words of a multiword token get the spans of their FORMs; where the
///    FORMs do not spell the surface string the multiword token is one word,
///    which takes the UPOS/XPOS/head/relation of its syntactic head: the first
///    of its words whose head lies outside it); sentences span from their first
///    token's start to their last token's end.
///  - Tokens, Sentences, Words: P/R/F1 of identical spans (multiset).
///  - a system word is aligned to the gold word with the identical span (the
///    scorer's alignment outside multiword tokens; inside them the scorer falls
///    back to an LCS of the FORMs, which this simplification does not do).
///  - UPOS, XPOS: aligned and the column equal. UAS: aligned and either both
///    heads are the root, or the system head word is aligned to the gold head
///    word. LAS: UAS and the universal part of the relation ("nmod:poss" ->
///    "nmod") equal.
///  - every metric is a PrfCounts: gold = gold words, predicted = system words,
///    correct as above (precision over system words, recall over gold words;
///    F1 is the headline figure, as in the scorer).
///  - "no punctuation" UAS/LAS leave out gold words whose UPOS is PUNCT (without
///    UPOS: a PTB punctuation XPOS; depeval's isPunctuation) and the system words
///    aligned to them; an unaligned system word is left out when its own UPOS
///    (else XPOS) says punctuation, or, with neither, when its form is made of
///    punctuation characters only.
/// Scores are fractions in [0, 1]. Nothing is printed.

#include <functional>
#include <vector>

#include "core/base/result.h"
#include "core/data/sentence.h"
#include "core/eval/tokeneval.h"
#include "core/text/tokenizer.h"

namespace treelens {

struct RawTextScore {
    PrfCounts tokens;
    PrfCounts sentences;
    PrfCounts words;
    PrfCounts upos;
    PrfCounts xpos;
    PrfCounts ufeats; ///< CoNLL 2018 UFeats and Lemmas (core/eval/morpheval.h)
    PrfCounts lemmas;
    PrfCounts uas;
    PrfCounts las;
    PrfCounts uasNoPunct; ///< gold/predicted count the words left in (see the file comment)
    PrfCounts lasNoPunct;
    long long unparsedSentences = 0; ///< system sentences without a dependency tree
    long long paragraphs = 0;      ///< set by evaluateRawText
    double tokenizeSeconds = 0.0;  ///< set by evaluateRawText: sentence splitting + tokenization
    double parseSeconds = 0.0;     ///< set by evaluateRawText: the parse callback
};

/// Scores system sentences against gold sentences of the same text. Sentence
/// i's token offsets (Token::charStart/charEnd, relative to its Sentence::text)
/// plus offsets[i] must be byte offsets in one text shared by both sides; an
/// empty offsets vector means 0 for every sentence. Multiword tokens are read
/// from Sentence::multiwordTokens. A system sentence without a dependency tree
/// (one the parser could not parse) is scored with no heads: its words count for
/// Tokens, Words, UPOS and XPOS but are never UAS/LAS-correct
/// (unparsedSentences counts them). Heads out of range (partial parses' -1) are
/// never correct. Errors when an offsets vector has the wrong size, a sentence
/// has a token without offsets (or outside its text), a gold sentence with words
/// has no dependency tree, or a tree's size differs from its sentence's.
Result<RawTextScore> scoreRawText(const std::vector<Sentence> &gold, const std::vector<int> &goldOffsets,
                                  const std::vector<Sentence> &system, const std::vector<int> &systemOffsets);

/// Parses the system sentences in place (trees, and tags where the parser gives
/// them); must keep the sentences and their tokens. A sentence it leaves without
/// a tree is scored as unparsed (see scoreRawText); an Error stops the evaluation.
using ParseSentences = std::function<Status(std::vector<Sentence> &)>;

/// The whole pipeline: rebuilds the paragraphs from the gold "# text" lines,
/// runs tokenizer.splitAndTokenize on each, calls `parse` once on all system
/// sentences (ids "s1", "s2", ... over the whole input), and scores them with
/// scoreRawText. Errors: a gold sentence without "# text" or whose tokens are not
/// aligned to it (readConllu's offsets), an error from `parse` (returned as is),
/// or a parse that changed the number of sentences or of their tokens.
Result<RawTextScore> evaluateRawText(const std::vector<Sentence> &gold, const Tokenizer &tokenizer,
                                     const ParseSentences &parse);

} // namespace treelens
