#pragma once
/// \file treelensjson.h
/// TreeLens JSON: one object per sentence (JSON Lines in .jsonl, an array or JSON
/// Lines in .json). Keys (snake_case):
///   {"id", "text", "tokens": [{"form","lemma","upos","xpos","feats","start","end"}],
///    "heads": [int, 1-based, 0 = root], "deprels": [string],
///    "constituency": "(S ...)"  (PTB brackets, one line),
///    "metadata": {string: string}}
/// Absent trees are omitted. The schema is documented in docs/formats.md.

#include <string>
#include <string_view>
#include <vector>

#include "core/base/result.h"
#include "core/data/sentence.h"

namespace treelens {

Result<std::vector<Sentence>> readTreeLensJson(std::string_view text, const std::string &source);
/// JSON Lines piece of a larger file (CorpusStream): line numbers from `firstLine`,
/// default ids after `firstIndex` sentences.
Result<std::vector<Sentence>> readTreeLensJson(std::string_view text, const std::string &source, int firstLine, int firstIndex);
/// One compact object per line (JSON Lines).
std::string writeTreeLensJson(const std::vector<Sentence> &sentences);
std::string sentenceToJsonLine(const Sentence &sentence);

} // namespace treelens
