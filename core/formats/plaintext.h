#pragma once
/// \file plaintext.h
/// Plain text input: one sentence per line (tokenized), or running text split
/// into sentences (split = true). Blank lines are skipped. Invalid UTF-8 is an
/// error naming the line.

#include <string>
#include <string_view>
#include <vector>

#include "core/base/result.h"
#include "core/data/sentence.h"

namespace treelens {

struct PlainTextOptions {
    bool split = false;        ///< running text: split into sentences
    int maxTokens = 0;         ///< > 0: longer sentences are an error naming the line
    int firstLine = 1;         ///< a piece of a larger file (CorpusStream): its first line's number
    int firstIndex = 0;        ///< ... and the sentences before it (default ids "sN")
};

Result<std::vector<Sentence>> readPlainText(std::string_view text, const std::string &source,
                                            const PlainTextOptions &options = {});

} // namespace treelens
