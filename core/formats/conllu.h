#pragma once
/// \file conllu.h
/// CoNLL-U reader and writer (https://universaldependencies.org/format.html).
/// Everything in the format is kept: comments (sent_id/text and any other) in
/// order, multiword token ranges, empty nodes, enhanced DEPS and MISC verbatim,
/// so reading then writing a valid file reproduces it byte for byte.
/// A "# constituency = (S ...)" comment (PTB brackets over the words) is read
/// into Sentence::constituency and written for sentences that have a tree.

#include <string>
#include <string_view>
#include <vector>

#include "core/base/result.h"
#include "core/data/sentence.h"

namespace treelens {

struct ConlluReadOptions {
    /// Compute Token::charStart/charEnd by aligning FORMs (or multiword token
    /// forms) to "# text" using SpaceAfter=No; tokens stay -1 when they do not align.
    bool alignOffsets = true;
    /// Validate trees (one root, heads in range, no cycles). A sentence whose HEAD
    /// column is "_" on every word has no dependency tree and is accepted.
    bool validateTrees = true;
    /// For a piece of a larger file (CorpusStream): the line number of its first
    /// line, and how many sentences came before it (for default ids "sN").
    int firstLine = 1;
    int firstIndex = 0;
};

/// Parses CoNLL-U text. `source` names the input in error messages
/// ("file.conllu:LINE: message").
Result<std::vector<Sentence>> readConllu(std::string_view text, const std::string &source,
                                         const ConlluReadOptions &options = {});

/// Serialises sentences. Sentences without comments get "# sent_id" and "# text"
/// lines from Sentence::id/text; words without a value in a column get "_";
/// sentences without a dependency tree get "_" for HEAD and DEPREL.
std::string writeConllu(const std::vector<Sentence> &sentences);
void appendConllu(std::string &out, const Sentence &sentence);

} // namespace treelens
