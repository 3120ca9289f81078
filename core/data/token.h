#pragma once
/// \file token.h

#include <string>

namespace treelens {

/// One syntactic word. Character offsets are byte offsets into Sentence::text
/// (half-open [charStart, charEnd)), or -1 when the token was not aligned to text.
struct Token {
    std::string text;
    std::string lemma;
    std::string upos;
    std::string xpos;
    std::string feats;
    int charStart = -1;
    int charEnd = -1;

    // CoNLL-U columns kept verbatim so a file round-trips byte for byte.
    std::string deps; ///< enhanced dependencies (column 9), "_" when absent
    std::string misc; ///< MISC (column 10), "_" when absent

    bool operator==(const Token &o) const
    {
        return text == o.text && lemma == o.lemma && upos == o.upos && xpos == o.xpos
            && feats == o.feats && charStart == o.charStart && charEnd == o.charEnd
            && deps == o.deps && misc == o.misc;
    }
};

} // namespace treelens
