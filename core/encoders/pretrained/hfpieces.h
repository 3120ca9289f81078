#pragma once
/// \file hfpieces.h
/// One input of the pretrained-Transformer family as pieces (internal to core: torch types):
/// its encoding by the folder's tokenizer (a language model's BOS put in front on request),
/// the pieces grouped into word units (wordpieces.h), the split of a pair's units into its two
/// sentences, the pooling matrices of Clark et al.'s word-level attention, and a language
/// model's next-piece log-probabilities summed into each word's surprisal.

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <torch/types.h>

#include "core/encoders/encoder.h"
#include "core/encoders/pretrained/hftokenizer.h"
#include "core/encoders/pretrained/wordpieces.h"

namespace treelens {

/// One input's pieces: the encoding and its word units.
struct Pieces {
    TokenEncoding encoding;
    PieceUnits units;
    std::vector<std::string> words[2];
};

/// The input's words joined by single spaces and encoded (`pair`: with its second sentence);
/// `bos`: an id put in front as a special piece when the encoding does not start with a special
/// piece already (--prepend-bos for tokenizers that add none).
Pieces piecesOf(const HfTokenizer &tok, const EncoderInput &in, bool pair, std::optional<std::int64_t> bos = std::nullopt);

/// Where the second text's units start: the first text's run from the start through the
/// special token after its last word (all units for one text).
int sideSplit(const Pieces &p);

/// R [U, N]: a unit's row averages its pieces; S [N, U]: a piece's row sums into its unit.
std::pair<torch::Tensor, torch::Tensor> poolingOf(const PieceUnits &u, int64_t pieces);

/// A language model's surprisal of the first text's words, in nats: per word, the sum over its
/// pieces p of -log p(piece p | pieces before it) (`logprobs[p - 1]`, one per piece after the
/// first). NaN for a word whose pieces include the sequence's first piece (nothing predicts it)
/// or that has no piece.
std::vector<double> wordSurprisal(const Pieces &p, const std::vector<double> &logprobs);

} // namespace treelens
