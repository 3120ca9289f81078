#pragma once
/// \file wordpieces.h
/// Word pieces to words, explicitly. The input words are joined by single spaces
/// into the text the tokenizer reads; each piece's offsets (code points into that
/// text) name the word it came from. A word's unit holds its pieces; every
/// special token ([CLS], [SEP], <s>, </s>) is a unit of its own. Word-level
/// attention as Clark et al. (2019) define it: the attention from word i to word j
/// is the mean over i's pieces of the sum over j's pieces; a word vector is the mean
/// of its pieces' vectors. A word the tokenizer gave no piece (its characters were
/// dropped) is a unit without pieces: its rows and columns are 0. Torch-free.

#include <string>
#include <utility>
#include <vector>

#include "core/encoders/pretrained/hftokenizer.h"

namespace treelens {

/// The text the tokenizer reads for `words`: joined by single spaces; `spans` gets
/// each word's [start, end) in code points.
std::string joinWords(const std::vector<std::string> &words, std::vector<std::pair<int, int>> &spans);

/// The pieces of one encoding grouped into units, in the order of the pieces.
struct PieceUnits {
    std::vector<std::string> names;          ///< a unit's text: the word, or the special token
    std::vector<std::vector<int>> pieces;    ///< per unit, its piece indices (empty for a word without pieces)
    std::vector<int> unitOfWord[2];          ///< per word of the first / second text, its unit
    std::vector<bool> special;               ///< per unit: a special token
    std::vector<int> pieceless[2];           ///< words of the first / second text the tokenizer gave no piece
};

/// Groups `encoding`'s pieces: a special piece (sequence -1) is a unit of its own; a
/// piece of text k belongs to the first word of `words[k]` that ends after the piece's
/// first character: the word that holds it, or, for a piece that starts with the space
/// before a word (a byte-level "Ġold" whose offsets keep the space) or is only spaces,
/// the word after it. A word without pieces takes its place among its text's words.
PieceUnits groupPieces(const TokenEncoding &encoding, const std::vector<std::string> *words[2],
                       const std::vector<std::pair<int, int>> *spans[2]);

} // namespace treelens
