#pragma once
/// \file sentence.h

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/data/constituencytree.h"
#include "core/data/dependencytree.h"
#include "core/data/token.h"

namespace treelens {

/// A CoNLL-U multiword token line ("1-2\tdon't\t_ ..."), kept verbatim.
struct MultiwordToken {
    int first = 0;  ///< 1-based id of the first word
    int last = 0;   ///< 1-based id of the last word
    std::vector<std::string> columns; ///< the 10 columns, ID included
};

/// A CoNLL-U empty node line ("8.1\t..."), kept verbatim.
struct EmptyNode {
    int after = 0;  ///< word id it follows (0 = before the first word)
    int sub = 0;    ///< the number after the dot
    std::vector<std::string> columns; ///< the 10 columns, ID included
};

/// One sentence with its tokens and whatever trees are known for it.
struct Sentence {
    std::string id;    ///< "# sent_id", or a generated id
    std::string text;  ///< "# text", or the raw input
    int line = 0;      ///< 1-based line where the sentence starts in its source file (0 = unknown)
    std::vector<Token> tokens;
    std::optional<DependencyTree> dependency;
    std::optional<ConstituencyTree> constituency;

    /// Comment lines in file order, without the leading "#" but with everything
    /// after it verbatim (so "# sent_id = x" is stored as " sent_id = x").
    std::vector<std::string> comments;
    std::vector<MultiwordToken> multiwordTokens;
    std::vector<EmptyNode> emptyNodes;
    /// Free-form metadata (parser name, "partial" flags, ...). Not written to CoNLL-U.
    std::vector<std::pair<std::string, std::string>> metadata;

    std::vector<std::string> words() const;
    std::string metadataValue(const std::string &key) const;
    void setMetadata(const std::string &key, const std::string &value);
};

/// Two sentences with a label, for pair tasks (answer selection, entailment).
struct SentencePair {
    Sentence first;
    Sentence second;
    std::string label;
    std::string group; ///< e.g. question id: pairs sharing it are ranked together
};

} // namespace treelens
