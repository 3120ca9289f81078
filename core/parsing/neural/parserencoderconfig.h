#pragma once
/// \file parserencoderconfig.h
/// The encoder both neural parsers share: a trained word embedding plus a
/// character CNN over the word's (clipped) characters, into a BiLSTM, with
/// dropout and word dropout. Torch-free.

#include <string>

#include "core/base/result.h"

namespace treelens {

struct ParserEncoderConfig {
    int wordDim = 100;        ///< word embedding size (lower-cased forms seen ≥ min count)
    int charDim = 32;         ///< character embedding size
    int charFilters = 100;    ///< character CNN filters (= the word's character vector size)
    int charKernel = 3;
    int maxWordChars = 24;    ///< longer words keep their first 12 and last 12 characters
    int lstmLayers = 2;
    int lstmHidden = 200;     ///< per direction
    double dropout = 0.33;    ///< on embeddings, between BiLSTM layers and in the MLPs
    double wordDropout = 0.25;///< probability of replacing a training word by [UNK]

protected:
    /// Range checks of these fields; errors are "<what>: word_dim must be 1..2048" etc.
    Status validateEncoder(const std::string &what) const;
    /// These fields added to a JSON object's text (word_dim, char_dim, char_filters,
    /// char_kernel, max_word_chars, lstm_layers, lstm_hidden, dropout, word_dropout).
    std::string encoderJson(const std::string &objectJson) const;
    /// Reads them from a JSON object's text (absent keys keep their values).
    void readEncoder(const std::string &objectJson);
};

} // namespace treelens
