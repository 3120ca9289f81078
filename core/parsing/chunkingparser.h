#pragma once
/// \file chunkingparser.h
/// Long sentences for slow parsers: Link Grammar's time grows steeply with length
/// (a 200-word sentence takes 1.4 s or exceeds its 2 s limit, see
/// docs/performance.md#gui). A sentence longer than a threshold is cut at clause
/// punctuation (; : , -- and the like) into pieces of at most `maxPiece` words,
/// every piece is parsed on its own, and the trees are joined: the first piece's
/// root stays the root and the other pieces' roots attach to it as `parataxis`;
/// the constituency trees go under one S. The result says so in its metadata
/// ("chunked" = number of pieces). Trees across the cuts are therefore
/// approximations; shorter sentences pass through untouched.

#include <memory>
#include <utility>
#include <vector>

#include "core/parsing/parser.h"

namespace treelens {

/// Half-open token ranges [start, end) covering all tokens in order, each at most
/// `maxPiece` long (and, where the punctuation allows, at least maxPiece / 4).
std::vector<std::pair<int, int>> chunkRanges(const std::vector<Token> &tokens, int maxPiece);

/// Wraps `inner`: sentences with more than `longerThan` tokens are parsed in pieces.
std::unique_ptr<Parser> makeChunkingParser(std::unique_ptr<Parser> inner, int longerThan, int maxPiece);

} // namespace treelens
