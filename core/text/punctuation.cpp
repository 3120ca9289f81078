// Punctuation tokens as the evaluations count them (see punctuation.h).
#include "core/text/punctuation.h"

namespace treelens {

bool isPunctuationToken(const std::string &token)
{
    // The characters of the evaluation's punctuation tags (. , : -LRB- -RRB- '' ``);
    // $ % # & are words there (tags $ and #), so they stay.
    static const std::string punctuation = ".,:;!?'\"`()[]{}-";
    if (token.empty())
        return false;
    for (char c : token)
        if (punctuation.find(c) == std::string::npos)
            return false;
    return true;
}

} // namespace treelens
