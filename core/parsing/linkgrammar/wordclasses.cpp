// wordclasses: the Link Grammar backend's string helpers and closed-class word
// lists; see wordclasses.h.
#include "core/parsing/linkgrammar/wordclasses.h"

#include <cctype>

namespace treelens::linkgrammar {

std::string lowerAscii(std::string s)
{
    for (char &c : s)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

bool startsWith(const std::string &s, const std::string &p) { return s.compare(0, p.size(), p) == 0; }

bool endsWith(const std::string &s, const std::string &p)
{
    return s.size() >= p.size() && s.compare(s.size() - p.size(), p.size(), p) == 0;
}

bool equalsIgnoreCase(const std::string &a, const std::string &b) { return lowerAscii(a) == lowerAscii(b); }

bool isUpperAscii(char c) { return c >= 'A' && c <= 'Z'; }
bool isLowerAscii(char c) { return c >= 'a' && c <= 'z'; }

bool inList(const std::string &w, std::initializer_list<const char *> list)
{
    for (const char *x : list)
        if (w == x)
            return true;
    return false;
}

bool isBeForm(const std::string &w)
{
    return inList(w, {"be", "is", "am", "are", "was", "were", "been", "being", "'s", "'re", "'m"});
}
bool isDoForm(const std::string &w) { return inList(w, {"do", "does", "did"}); }
bool isModal(const std::string &w)
{
    return inList(w, {"will", "would", "can", "could", "shall", "should", "may", "might", "must", "'ll", "'d", "wo", "ca",
                      "ought", "cannot"});
}
bool isWhWord(const std::string &w)
{
    return inList(w, {"who", "whom", "whose", "what", "which", "where", "when", "why", "how", "whoever", "whatever",
                      "whichever", "wherever", "whenever", "that"});
}
bool isCoordinator(const std::string &w)
{
    return inList(w, {"and", "or", "but", "nor", "&", "yet", "plus", "either", "neither", "both", "versus", "vs.", "v."});
}

} // namespace treelens::linkgrammar
