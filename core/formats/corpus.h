#pragma once
/// \file corpus.h
/// Format detection and one entry point for reading/writing any supported corpus
/// format, used by the CLI and the GUI.

#include <string>
#include <vector>

#include "core/base/result.h"
#include "core/data/sentence.h"

namespace treelens {

enum class CorpusFormat { Conllu, Ptb, Json, Text };

/// "conllu", "ptb", "json", "text" (also "mrg", "jsonl", "txt").
Result<CorpusFormat> parseCorpusFormat(const std::string &name);
std::string corpusFormatName(CorpusFormat f);
/// From the extension: .conllu, .mrg/.ptb, .json/.jsonl, anything else plain text.
CorpusFormat formatFromPath(const std::string &path);

struct CorpusReadOptions {
    bool split = false;              ///< plain text: running text
    bool stripTraces = false;        ///< PTB
    bool stripFunctionTags = false;  ///< PTB
    int maxTokens = 0;               ///< plain text: refuse longer sentences
};

Result<std::vector<Sentence>> readCorpus(const std::string &text, const std::string &source, CorpusFormat format,
                                         const CorpusReadOptions &options = {});
Result<std::vector<Sentence>> readCorpusFile(const std::string &path, CorpusFormat format,
                                             const CorpusReadOptions &options = {});

/// Serialises in the given format (PTB: one tree per line; text: tokens joined by spaces).
Result<std::string> writeCorpus(const std::vector<Sentence> &sentences, CorpusFormat format);

} // namespace treelens
