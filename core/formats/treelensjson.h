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

#include <nlohmann/json_fwd.hpp>

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

/// One sentence object of the schema above, validated as the readers do (also the
/// "first"/"second" objects of sentence-pair JSON, core/formats/pairs.h). Errors are
/// "WHERE: message"; the line is left 0 (the caller knows where the object was).
Result<Sentence> sentenceFromJson(const nlohmann::json &object, const std::string &where);
/// The object sentenceToJsonLine() writes, for embedding in a larger document.
nlohmann::json sentenceToJson(const Sentence &sentence);

} // namespace treelens
