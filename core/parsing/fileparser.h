#pragma once
/// \file fileparser.h
/// The "file" backend: trees read from an already parsed file (CoNLL-U, PTB or
/// TreeLens JSON; format from the extension) instead of predicted. A sentence is
/// looked up by its exact word sequence; the first sentence of the file with
/// those words wins. The returned sentence keeps the input's tokens (text,
/// offsets) and takes the file's trees and, where the input has none, its UPOS,
/// XPOS and lemmas. Metadata "parser" = "file", "parser.file" = the path.
/// A sentence that is not in the file is an Error naming the file, so a corpus
/// parsed elsewhere (a spaCy/Stanza/UDPipe run, a gold treebank) can be viewed
/// and scored exactly as predicted.

#include <memory>

#include "core/base/result.h"
#include "core/parsing/parser.h"

namespace treelens {

ParserInfo fileParserInfo();
/// Reads config.treeFile; errors when it is unset, unreadable or holds no tree.
Result<std::unique_ptr<Parser>> createFileParser(const ParserConfig &config);

} // namespace treelens
