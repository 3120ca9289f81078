#pragma once
/// \file ptb.h
/// Penn Treebank bracket reader and writer. Reads any number of trees per file,
/// with or without the unlabeled "( (S ...) )" wrapper or a ROOT/TOP node,
/// function tags ("NP-SBJ-1"), "-NONE-" traces and "-LRB-"-style tokens. The
/// wrapper is kept as a node with an empty label so it round-trips.

#include <string>
#include <string_view>
#include <vector>

#include "core/base/result.h"
#include "core/data/constituencytree.h"
#include "core/data/sentence.h"

namespace treelens {

struct PtbReadOptions {
    bool stripTraces = false;
    bool stripFunctionTags = false;
    /// Deeper nesting is refused (protects the recursive tree algorithms).
    int maxDepth = 3000;
};

/// Parses bracketed trees. Errors: "source:line: message".
Result<std::vector<ConstituencyTree>> readPtb(std::string_view text, const std::string &source,
                                              const PtbReadOptions &options = {});

/// Trees as Sentences: tokens (text + xpos from the preterminals), text (words
/// joined by spaces, with -LRB- style escapes undone), constituency set, id "<source-stem>:<n>".
/// What the options strip is counted in the metadata: "ptb.traces_removed" (-NONE-
/// preterminals) and "ptb.function_tags_removed" (phrase labels that lost a function
/// tag or index), each only when non-zero.
Result<std::vector<Sentence>> readPtbSentences(std::string_view text, const std::string &source,
                                               const PtbReadOptions &options = {});

enum class PtbStyle {
    OneLine, ///< "(S (NP (DT The) (NN man)) (VP (VBD left)))"
    Treebank ///< the indented layout of the WSJ .mrg files (round-trips them byte for byte)
};

std::string writePtbTree(const ConstituencyTree &tree, PtbStyle style = PtbStyle::OneLine);
/// One tree per line (OneLine) or the .mrg layout; sentences without a
/// constituency tree are an error naming the sentence id.
Result<std::string> writePtb(const std::vector<Sentence> &sentences, PtbStyle style = PtbStyle::OneLine);

/// PTB escapes: "(" <-> "-LRB-", ")" <-> "-RRB-", "{" <-> "-LCB-", "}" <-> "-RCB-", "[" <-> "-LSB-", "]" <-> "-RSB-".
std::string ptbUnescape(const std::string &word);
std::string ptbEscape(const std::string &word);

} // namespace treelens
