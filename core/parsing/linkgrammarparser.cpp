#include "core/parsing/linkgrammarparser.h"

#include <link-grammar/link-includes.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#if LINK_MAJOR_VERSION < 5 || (LINK_MAJOR_VERSION == 5 && LINK_MINOR_VERSION < 9)
#error "The Link Grammar backend needs link-grammar 5.9 or newer (linkage_get_word_byte_start)"
#endif

// Link Grammar's C API declares global types called Sentence, Dictionary and
// Linkage; inside namespace treelens "Sentence" is ours, so the C types get aliases.
using LgDictionary = ::Dictionary;
using LgOptions = ::Parse_Options;
using LgSentence = ::Sentence;
using LgLinkage = ::Linkage;

namespace treelens {
namespace {

// Enough to rank the best linkages without post-processing thousands of them;
// Link Grammar samples (deterministically, repeatable_rand) when more exist.
constexpr int kLinkageLimit = 100;

// The null-link fallback stops at (this / number of words) null links: beyond
// that a partial parse is mostly unlinked words anyway, and the library's count
// table can take gigabytes (see parse()).
constexpr int kNullLinkWordBudget = 1000;

// ---------------------------------------------------------------------------
// Library plumbing: per-thread message capture and RAII handles.

/// Installs a collecting error handler for the lifetime of the object. Link
/// Grammar's handler is per thread, so every call that may report installs one
/// and restores whatever the host application had before.
class LgMessages {
public:
    LgMessages()
    {
        m_prevData = lg_error_set_handler_data(this);
        m_prevHandler = lg_error_set_handler(&LgMessages::collect, this);
    }
    ~LgMessages()
    {
        lg_error_flush(); // a message without its final newline is still pending
        lg_error_set_handler(m_prevHandler, const_cast<void *>(m_prevData));
    }
    LgMessages(const LgMessages &) = delete;
    LgMessages &operator=(const LgMessages &) = delete;

    /// Errors and fatal errors reported so far, "; "-joined ("" if none).
    /// Warnings and info (e.g. about the locale) are dropped on purpose.
    const std::string &errors() const { return m_errors; }

private:
    static void collect(lg_errinfo *info, void *data)
    {
        auto *self = static_cast<LgMessages *>(data);
        if (!self || !info || !info->text || info->severity > lg_Error)
            return;
        std::string text = info->text;
        while (!text.empty() && (text.back() == '\n' || text.back() == ' '))
            text.pop_back();
        if (text.empty())
            return;
        if (!self->m_errors.empty())
            self->m_errors += "; ";
        self->m_errors += text;
    }

    lg_error_handler m_prevHandler = nullptr;
    const void *m_prevData = nullptr;
    std::string m_errors;
};

struct DictionaryDeleter {
    void operator()(LgDictionary d) const { dictionary_delete(d); }
};
struct OptionsDeleter {
    void operator()(LgOptions o) const { parse_options_delete(o); }
};
struct SentenceDeleter {
    void operator()(LgSentence s) const { sentence_delete(s); }
};
struct LinkageDeleter {
    void operator()(LgLinkage l) const { linkage_delete(l); }
};
struct TreeStringDeleter {
    void operator()(char *s) const { linkage_free_constituent_tree_str(s); }
};
using DictionaryPtr = std::unique_ptr<std::remove_pointer_t<LgDictionary>, DictionaryDeleter>;
using OptionsPtr = std::unique_ptr<std::remove_pointer_t<LgOptions>, OptionsDeleter>;
using LgSentencePtr = std::unique_ptr<std::remove_pointer_t<LgSentence>, SentenceDeleter>;
using LinkagePtr = std::unique_ptr<std::remove_pointer_t<LgLinkage>, LinkageDeleter>;
using TreeStringPtr = std::unique_ptr<char, TreeStringDeleter>;

// ---------------------------------------------------------------------------
// String helpers (ASCII case folding is enough: the decisions below are about
// English function words and Link Grammar's ASCII annotations).

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

std::string formatSeconds(double s)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", s);
    return buf;
}

/// "1,000", "3/4", "10:30", "1990s", "-5", "2.5": tagged CD.
bool isNumberForm(const std::string &w)
{
    bool digit = false;
    for (std::size_t i = 0; i < w.size(); ++i) {
        const char c = w[i];
        if (c >= '0' && c <= '9')
            digit = true;
        else if (c == ',' || c == '.' || c == ':' || c == '/' || c == '-' || c == '+')
            continue;
        else if (c == 's' && i + 1 == w.size() && digit)
            continue;
        else
            return false;
    }
    return digit;
}

/// PTB tag of a punctuation/symbol token, or "" for anything else.
std::string punctuationTag(const std::string &w)
{
    if (inList(w, {".", "?", "!", "?!", "!!", "??", "!?"}))
        return ".";
    if (w == ",")
        return ",";
    if (inList(w, {":", ";", "-", "--", "---", "...", "..", "\xE2\x80\xA6", "\xE2\x80\x94", "\xE2\x80\x93"}))
        return ":";
    if (inList(w, {"``", "`", "\xE2\x80\x9C", "\xE2\x80\x98"}))
        return "``";
    if (inList(w, {"''", "'", "\"", "\xE2\x80\x9D", "\xE2\x80\x99"}))
        return "''";
    if (inList(w, {"(", "[", "{", "-LRB-", "-LSB-", "-LCB-"}))
        return "-LRB-";
    if (inList(w, {")", "]", "}", "-RRB-", "-RSB-", "-RCB-"}))
        return "-RRB-";
    if (inList(w, {"$", "US$", "C$", "A$", "HK$", "\xE2\x82\xAC", "\xC2\xA3", "\xC2\xA5"}))
        return "$";
    if (w == "#")
        return "#";
    return {};
}

/// Tags whose tokens get the UD relation "punct" (evalb's punctuation set plus brackets).
bool isPunctuationTag(const std::string &tag)
{
    return inList(tag, {".", ",", ":", "``", "''", "-LRB-", "-RRB-"});
}

// Closed-class English words (lower case). Link Grammar gives most of them no
// subscript, so their POS comes from these lists.
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

// ---------------------------------------------------------------------------
// Link Grammar words and links.

struct LgWord {
    std::string raw;       ///< linkage_get_word(): "saw.v-d", "[the]", "Vinken[!<CAPITALIZED-WORDS>]"
    std::string surface;   ///< the input bytes the word covers
    std::string lower;
    std::string subscript; ///< "v-d", "n", "" (none)
    std::string marker;    ///< "?", "~", "!<CAPITALIZED-WORDS>", "" (none)
    int start = -1;
    int end = -1;
    bool wall = false;
    int token = -1;        ///< our token, -1 for walls and unaligned words
    int links = 0;
    std::vector<std::string> leftOf;  ///< majors of links where this word is the left end
    std::vector<std::string> rightOf; ///< majors of links where this word is the right end
    bool hasLeftOf(const char *major) const { return std::find(leftOf.begin(), leftOf.end(), major) != leftOf.end(); }
    bool hasRightOf(const char *major) const { return std::find(rightOf.begin(), rightOf.end(), major) != rightOf.end(); }
};

struct LgLink {
    int left = 0;
    int right = 0;
    std::string label;  ///< "Ss*s"
    std::string llabel; ///< "hWV": Link Grammar's own head (h) / dependent (d) marks
    std::string rlabel;
    std::string major;  ///< leading capitals: "S", "MV", "SJ", "WV", "IDBF"
    std::string sub;    ///< the rest: "s*s", "p", "ls"
};

void splitLabel(const std::string &label, std::string &major, std::string &sub)
{
    std::size_t i = 0;
    while (i < label.size() && isUpperAscii(label[i]))
        ++i;
    major = label.substr(0, i);
    sub = label.substr(i);
}

/// A subscript is what follows the last '.' when it looks like one ("v-d", "n", "ord").
bool looksLikeSubscript(const std::string &s)
{
    if (s.empty() || !isLowerAscii(s[0]) || s.size() > 8)
        return false;
    for (char c : s)
        if (!isLowerAscii(c) && c != '-' && !(c >= '0' && c <= '9'))
            return false;
    return true;
}

/// Splits "nonexecutive[!<ADJ-WORDS>].a" into subscript "a" and marker "!<ADJ-WORDS>".
void decomposeWord(LgWord &w)
{
    std::string s = w.raw;
    if (w.links == 0 && s.size() >= 3 && s.front() == '[' && s.back() == ']')
        s = s.substr(1, s.size() - 2); // null-linked words are shown as "[word]"
    std::string rest;
    if (!w.surface.empty() && s.size() >= w.surface.size() && equalsIgnoreCase(s.substr(0, w.surface.size()), w.surface)) {
        rest = s.substr(w.surface.size());
    } else {
        // Display differs from the input (should not happen with spell guessing
        // off): the marker starts at the first '[' after the word, the subscript
        // after the last dot.
        const std::size_t m = s.find('[', 1);
        if (m != std::string::npos) {
            rest = s.substr(m);
        } else {
            const std::size_t dot = s.rfind('.');
            if (dot != std::string::npos && dot > 0 && looksLikeSubscript(s.substr(dot + 1)))
                rest = s.substr(dot);
        }
    }
    if (!rest.empty() && rest[0] == '[') {
        const std::size_t close = rest.find(']');
        if (close != std::string::npos) {
            w.marker = rest.substr(1, close - 1);
            rest = rest.substr(close + 1);
        }
    }
    if (rest.size() > 1 && rest[0] == '.' && looksLikeSubscript(rest.substr(1)))
        w.subscript = rest.substr(1);
}

/// Checks each word's byte offsets against the text and re-finds the word from
/// the previous word's end when they do not match: Link Grammar 5.12 strips
/// quote marks ("``") before it computes offsets, which shifts every later word.
void verifyOffsets(std::vector<LgWord> &words, const std::string &text)
{
    const std::string lowerText = lowerAscii(text);
    const int size = static_cast<int>(text.size());
    int drift = 0;
    int cursor = 0;
    for (LgWord &w : words) {
        if (w.wall || w.end <= w.start)
            continue;
        std::string shown = w.raw;
        if (shown.size() >= 3 && shown.front() == '[' && shown.back() == ']')
            shown = shown.substr(1, shown.size() - 2);
        const int len = w.end - w.start;
        const std::string needle = lowerAscii(shown.substr(0, static_cast<std::size_t>(len)));
        const auto matchesAt = [&](int pos) {
            return pos >= 0 && pos + len <= size && static_cast<int>(needle.size()) == len
                && lowerText.compare(static_cast<std::size_t>(pos), static_cast<std::size_t>(len), needle) == 0;
        };
        int pos = w.start + drift;
        if (!matchesAt(pos)) {
            if (matchesAt(w.start)) {
                pos = w.start;
            } else if (static_cast<int>(needle.size()) == len) {
                const std::size_t found = lowerText.find(needle, static_cast<std::size_t>(cursor));
                if (found != std::string::npos)
                    pos = static_cast<int>(found);
            }
            // Otherwise Link Grammar spelled the word differently: keep the shifted offsets.
        }
        pos = std::clamp(pos, 0, size);
        drift = pos - w.start;
        w.start = pos;
        w.end = std::min(pos + len, size);
        cursor = w.end;
    }
}

// ---------------------------------------------------------------------------
// POS tags (PTB-style, derived; Link Grammar has no POS tags of its own).

bool isVerbSubscript(const std::string &s)
{
    return s == "v" || s == "v-d" || s == "w" || s == "w-d" || s == "q" || s == "q-d" || s == "g" || s == "v-g";
}
bool isNounSubscript(const std::string &s)
{
    return inList(s, {"n", "n-u", "n-f", "s", "t", "u", "i", "c", "y", "x", "tz", "ti", "id", "l", "m", "f", "b", "o"});
}

std::string closedClassTag(const std::string &lw, const LgWord *w)
{
    const bool determinerUse = w && w->hasLeftOf("D");
    if (lw == "to")
        return "TO";
    if (inList(lw, {"the", "a", "an", "this", "these", "those", "every", "each", "some", "any", "no", "another", "all",
                    "both", "either", "neither", "half"}))
        return "DT";
    // Link Grammar links these as determiners; PTB and UD call them adjectives
    // (adverbs when Link Grammar says so: "more.e").
    const bool adverb = w && startsWith(w->subscript, "e");
    if (inList(lw, {"other", "few", "many", "several", "same", "such", "much", "little", "next", "various", "certain"}))
        return adverb ? "RB" : "JJ";
    if (inList(lw, {"more", "fewer", "less"}))
        return adverb ? "RBR" : "JJR";
    if (inList(lw, {"most", "least"}))
        return adverb ? "RBS" : "JJS";
    if (lw == "that")
        return w && w->subscript == "j-c" ? "IN" : (determinerUse ? "DT" : "WDT");
    if (lw == "her")
        return determinerUse ? "PRP$" : "PRP";
    if (inList(lw, {"i", "me", "you", "he", "him", "she", "it", "we", "us", "they", "them", "myself", "yourself",
                    "himself", "herself", "itself", "ourselves", "yourselves", "themselves", "'em"}))
        return "PRP";
    if (inList(lw, {"my", "your", "his", "its", "our", "their"}))
        return "PRP$";
    if (inList(lw, {"which", "whatever", "whichever"}))
        return "WDT";
    if (inList(lw, {"who", "whom", "what", "whoever"}))
        return "WP";
    if (lw == "whose")
        return "WP$";
    if (inList(lw, {"where", "when", "why", "how", "whenever", "wherever"}))
        return "WRB";
    if (isCoordinator(lw) && lw != "both" && lw != "either" && lw != "neither")
        return "CC";
    if (isModal(lw) && lw != "'d" && lw != "cannot")
        return "MD";
    if (lw == "there" && w && (w->hasLeftOf("SF") || w->hasRightOf("SFI")))
        return "EX";
    if (inList(lw, {"not", "n't", "never"}))
        return "RB";
    if (lw == "cannot")
        return "MD";
    // Auxiliaries Link Grammar leaves without a subscript.
    if (inList(lw, {"am", "are", "'m", "'re", "have", "'ve", "do"}))
        return "VBP";
    if (inList(lw, {"is", "has", "does"}))
        return "VBZ";
    if (inList(lw, {"was", "were", "had", "did"}))
        return "VBD";
    if (lw == "be")
        return "VB";
    if (lw == "been")
        return "VBN";
    if (lw == "being")
        return "VBG";
    if (lw == "'s" || lw == "'") {
        if (w && (w->hasRightOf("YS") || w->hasRightOf("YP") || w->subscript == "p"))
            return "POS";
        return lw == "'s" ? "VBZ" : "''";
    }
    if (inList(lw, {"up", "out", "off", "down", "away", "back", "over", "on", "in"}) && w && w->hasRightOf("K"))
        return "RP";
    if (inList(lw, {"of", "in", "on", "at", "for", "with", "from", "by", "about", "as", "into", "like", "through",
                    "after", "over", "between", "out", "against", "during", "without", "before", "under", "around",
                    "among", "because", "if", "whether", "while", "although", "though", "since", "until", "unless",
                    "upon", "within", "across", "behind", "beyond", "despite", "toward", "towards", "near", "than",
                    "per", "via", "amid", "onto", "up", "down", "above", "below", "along", "throughout", "except",
                    "inside", "outside", "past", "beside", "besides", "whereas", "till", "unlike", "off"}))
        return "IN";
    if (inList(lw, {"one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
                    "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety", "hundred",
                    "thousand", "million", "billion", "trillion", "dozen"}))
        return "CD";
    return {};
}

std::string verbTag(const std::string &lw, const LgWord &w)
{
    if (isModal(lw) && lw != "'d")
        return "MD";
    if (isBeForm(lw)) {
        if (lw == "is" || lw == "'s") return "VBZ";
        if (lw == "am" || lw == "are" || lw == "'re" || lw == "'m") return "VBP";
        if (lw == "was" || lw == "were") return "VBD";
        if (lw == "been") return "VBN";
        if (lw == "being") return "VBG";
    }
    if (lw == "has" || lw == "does") return "VBZ";
    if (lw == "did") return "VBD";
    if (w.subscript == "g" || w.subscript == "v-g") return "VBG";
    // Past participles sit to the right of have (PP), passive be (Pv) or modify nouns (Mv).
    if (w.hasRightOf("PP") || w.hasRightOf("Pv") || (w.hasRightOf("M") && endsWith(w.subscript, "-d")))
        return "VBN";
    if (w.hasRightOf("P") && endsWith(w.subscript, "-d"))
        return "VBN";
    if (endsWith(w.subscript, "-d")) return "VBD";
    if (endsWith(lw, "ing") && lw.size() > 4) return "VBG";
    if (w.hasRightOf("I") || w.hasRightOf("IV")) return "VB";
    if (endsWith(lw, "s") && !endsWith(lw, "ss") && lw.size() > 2) return "VBZ";
    if (w.hasRightOf("S") || w.hasLeftOf("SI") || w.hasRightOf("SX") || w.hasRightOf("RS")) return "VBP";
    return "VB";
}

std::string nounTag(const std::string &surface, const std::string &lw, const LgWord &w, bool sentenceInitial)
{
    // Demonyms before a noun ("Palestinian leaders"): Link Grammar files them
    // with nouns, PTB and UD call them adjectives there.
    const bool attributive = w.hasLeftOf("A") || w.hasLeftOf("AN");
    if (attributive && !surface.empty() && isUpperAscii(surface[0])
        && (endsWith(lw, "an") || endsWith(lw, "ese") || endsWith(lw, "ish") || endsWith(lw, "i")))
        return "JJ";
    const bool capitalised = !surface.empty() && isUpperAscii(surface[0]);
    const bool properMarker = w.marker.find("CAPITALIZED") != std::string::npos || w.marker.find("INITIALS") != std::string::npos
        || w.marker.find("ALL-UPPER") != std::string::npos;
    const bool proper = properMarker || (capitalised && (!sentenceInitial || inList(w.subscript, {"l", "b", "o", "m", "f", "x", "y"})));
    const bool plural = w.subscript == "p" || w.marker.find("PL-") != std::string::npos || w.marker.find("S-WORDS") != std::string::npos
        || (endsWith(lw, "s") && !endsWith(lw, "ss") && !endsWith(lw, "us") && !endsWith(lw, "is") && lw.size() > 3);
    if (proper)
        return plural && !properMarker ? "NNPS" : "NNP";
    return plural ? "NNS" : "NN";
}

/// The tag of a token whose representative Link Grammar word is w (w may be null).
/// The mapping is documented in docs/link-grammar.md.
std::string tagFor(const std::string &surface, const LgWord *w, bool sentenceInitial)
{
    if (std::string p = punctuationTag(surface); !p.empty())
        return (surface == "'" && w && (w->hasRightOf("YP") || w->subscript == "p")) ? "POS" : p;
    if (isNumberForm(surface))
        return "CD";
    const std::string lw = lowerAscii(surface);
    if (lw == "%")
        return "NN";
    const std::string sub = w ? w->subscript : std::string();
    // Content-word subscripts are reliable; function words mostly have none, or a
    // semantic one (".p" marks pronouns and plurals alike), so the lists go first.
    if (w && isVerbSubscript(sub))
        return verbTag(lw, *w);
    if (w && startsWith(sub, "j"))
        return isCoordinator(lw) ? "CC" : "IN";
    if (sub == "v-fill")
        return "CC";
    if (std::string c = closedClassTag(lw, w); !c.empty())
        return c;
    if (sub == "a" || sub == "ord" || sub == "a-c" || sub == "a-s")
        return sub == "a-c" ? "JJR" : sub == "a-s" ? "JJS" : "JJ";
    if (sub == "e" || sub == "ee" || sub == "adv" || sub == "e-y" || sub == "h")
        return "RB";
    if (sub == "e-c")
        return "RBR";
    if (sub == "ij")
        return "UH";
    if (sub == "eq" || sub == "eqn")
        return "SYM";
    if (sub == "r" || sub == "z")
        return (w && (w->hasLeftOf("J") || w->hasLeftOf("JQ") || w->hasLeftOf("JT") || w->hasLeftOf("IN"))) ? "IN" : "RB";
    if (w && (isNounSubscript(sub) || sub == "p"))
        return nounTag(surface, lw, *w, sentenceInitial);
    if (w && !w->marker.empty()) {
        // Unknown words matched by a regex class of 4.0.regex: "!<CAPITALIZED-WORDS>".
        const std::size_t lt = w->marker.find('<'), gt = w->marker.find('>');
        const std::string cls = (lt != std::string::npos && gt != std::string::npos && gt > lt)
            ? w->marker.substr(lt + 1, gt - lt - 1) : std::string();
        if (inList(cls, {"NUMBERS", "YEAR-DATE", "DECADE-DATE", "FRACTION", "HMS-TIME", "ROMAN-NUMERAL-WORDS", "PART-NUMBER"}))
            return "CD";
        if (cls == "ING-WORDS") return "VBG";
        if (cls == "ED-WORDS") return "VBN";
        if (cls == "LY-WORDS") return "RB";
        if (inList(cls, {"ADJ-WORDS", "LATIN-ADJ-WORDS", "HYPHENATED-WORDS", "ORDINALS", "DAY-ORDINALS"}))
            return "JJ";
        if (cls == "EMOTICON") return "SYM";
        if (!cls.empty())
            return nounTag(surface, lw, *w, sentenceInitial); // capitalised, plural, unit and other noun classes
    }
    if (lw == "&")
        return "CC";
    // Nothing from Link Grammar (no subscript, unlinked, or a dictionary entry
    // without one): capitalisation and suffixes, then "X".
    const bool alphabetic = !lw.empty() && std::all_of(lw.begin(), lw.end(), [](char c) {
        return isLowerAscii(c) || c == '-' || c == '\'' || c == '.' || static_cast<unsigned char>(c) >= 0x80;
    });
    if (!alphabetic)
        return "X";
    if (!sentenceInitial && isUpperAscii(surface[0]))
        return "NNP";
    if (endsWith(lw, "ly") && lw.size() > 4) return "RB";
    if (endsWith(lw, "ing") && lw.size() > 5) return "VBG";
    if (endsWith(lw, "ed") && lw.size() > 4) return "VBN";
    if (endsWith(lw, "s") && !endsWith(lw, "ss") && lw.size() > 3) return "NNS";
    return "NN";
}

// ---------------------------------------------------------------------------
// Alignment of Link Grammar words to our tokens (byte offsets into the joined
// input string: tolerant of Link Grammar splitting a token, merging tokens or
// dropping one).

struct Alignment {
    std::vector<std::vector<int>> wordsOf; ///< per token: its Link Grammar words, in order
    std::vector<int> rep;                  ///< per token: the word that stands for it, or -1
    std::vector<int> mergedInto;           ///< per token: token whose word also covers it, or -1
    int split = 0;
    int merged = 0;
    int dropped = 0;
};

Alignment alignWords(std::vector<LgWord> &words, const std::vector<std::pair<int, int>> &ranges)
{
    const int n = static_cast<int>(ranges.size());
    Alignment a;
    a.wordsOf.assign(static_cast<std::size_t>(n), {});
    a.rep.assign(static_cast<std::size_t>(n), -1);
    a.mergedInto.assign(static_cast<std::size_t>(n), -1);
    std::vector<int> coveredBy(static_cast<std::size_t>(n), -1); // word overlapping a token it does not belong to
    for (int wi = 0; wi < static_cast<int>(words.size()); ++wi) {
        LgWord &w = words[static_cast<std::size_t>(wi)];
        if (w.wall || w.end <= w.start)
            continue;
        int best = -1, bestOverlap = 0;
        for (int t = 0; t < n; ++t) {
            const auto [ts, te] = ranges[static_cast<std::size_t>(t)];
            const int overlap = std::min(te, w.end) - std::max(ts, w.start);
            if (overlap <= 0)
                continue;
            if (overlap > bestOverlap) {
                if (best >= 0)
                    coveredBy[static_cast<std::size_t>(best)] = wi;
                best = t;
                bestOverlap = overlap;
            } else {
                coveredBy[static_cast<std::size_t>(t)] = wi;
            }
        }
        w.token = best;
        if (best >= 0)
            a.wordsOf[static_cast<std::size_t>(best)].push_back(wi);
    }
    for (int t = 0; t < n; ++t) {
        const auto &ws = a.wordsOf[static_cast<std::size_t>(t)];
        if (ws.empty()) {
            const int cw = coveredBy[static_cast<std::size_t>(t)];
            if (cw >= 0 && words[static_cast<std::size_t>(cw)].token >= 0) {
                a.mergedInto[static_cast<std::size_t>(t)] = words[static_cast<std::size_t>(cw)].token;
                ++a.merged;
            } else {
                ++a.dropped;
            }
            continue;
        }
        if (ws.size() > 1)
            ++a.split;
        // The longest piece stands for the token ("Nov." -> "Nov.x" + "."): it
        // carries the content, so its subscript gives the POS and its leaf the position.
        int rep = ws.front();
        for (int wi : ws) {
            const auto &w = words[static_cast<std::size_t>(wi)];
            const auto &r = words[static_cast<std::size_t>(rep)];
            if (w.end - w.start > r.end - r.start)
                rep = wi;
        }
        a.rep[static_cast<std::size_t>(t)] = rep;
    }
    return a;
}

// ---------------------------------------------------------------------------
// Dependencies: link types -> UD relations (table in docs/link-grammar.md).

/// Head switches applied after the tree is chosen: Link Grammar makes function
/// words heads (preposition -> object, auxiliary -> verb, complementizer -> verb,
/// conjunction -> conjuncts); UD makes the content word the head.
enum class Switch { None, Case, Aux, AuxPass, Cop, Mark, Possessive, Flat, Coord, SubWall };

struct Candidate {
    int head = -1;  ///< token
    int dep = -1;   ///< token
    std::string label;
    int priority = 2;
    int length = 0;
    Switch sw = Switch::None;
    /// 1: openers (CO) link to the subject, UD wants the verb; 2: "the" links
    /// to a superlative (L), UD wants the noun the superlative modifies.
    int lift = 0;
};

struct TokenFacts {
    std::string lower;
    std::string tag;
    std::string subscript; ///< of the representative Link Grammar word
    bool punct = false;
    bool verb() const { return startsWith(tag, "VB") || tag == "MD"; }
};

enum class HeadSide { Left, Right, NonPunct, Marker };

struct Rule {
    HeadSide side = HeadSide::Marker;
    std::string label = "dep";
    int priority = 2;
    Switch sw = Switch::None;
    int lift = 0; ///< see Candidate::lift
};

Rule rule(HeadSide side, const char *label, int priority = 3, Switch sw = Switch::None)
{
    Rule r;
    r.side = side;
    r.label = label;
    r.priority = priority;
    r.sw = sw;
    return r;
}

/// The relation for the modifier of a verb (MV, CO): by the modifier's form.
std::string adverbialLabel(const std::string &sub, const TokenFacts &dep)
{
    if (!sub.empty() && (sub[0] == 's' || sub[0] == 'i'))
        return "advcl"; // subordinate clause, "in order to"
    if (dep.verb())
        return "advcl";
    if (startsWith(dep.tag, "RB") || dep.tag == "RP" || startsWith(dep.tag, "JJ") || dep.tag == "WRB")
        return "advmod";
    return "obl"; // prepositions (their object takes the label) and bare nouns ("last year")
}

Rule ruleFor(const LgLink &l, const TokenFacts &left, const TokenFacts &right)
{
    const std::string &M = l.major;
    const std::string &s = l.sub;
    const char s0 = s.empty() ? '\0' : s[0];
    const bool be = isBeForm(left.lower);

    // Modifiers before a noun: the relation follows the modifier's form (Link
    // Grammar calls "two", "many" and "my" determiners, and adjectives AN at times).
    const std::string &lt = left.tag;
    const bool adjectival = startsWith(lt, "JJ") || lt == "VBN" || lt == "VBG";
    if (M == "A" || M == "AN") {
        if (lt == "CD") return rule(HeadSide::Right, "nummod");
        if (M == "A") return rule(HeadSide::Right, startsWith(lt, "NN") ? "compound" : "amod");
        return rule(HeadSide::Right, adjectival ? "amod" : "compound");
    }
    if (M == "AL") return rule(HeadSide::Right, "det:predet");
    if (M == "L") {
        Rule r = rule(HeadSide::Right, "det"); // "the -L-> best", lifted to the noun
        r.lift = 2;
        return r;
    }
    if (M == "D" || M == "DD" || M == "DG" || M == "DT" || M == "DP") {
        if (inList(left.lower, {"my", "your", "his", "her", "its", "our", "their", "whose"}))
            return rule(HeadSide::Right, "nmod:poss");
        if (lt == "CD") return rule(HeadSide::Right, "nummod");
        if (adjectival) return rule(HeadSide::Right, "amod");
        return rule(HeadSide::Right, "det");
    }
    if (M == "E" || M == "EA" || M == "EC" || M == "EE" || M == "EN" || M == "ER" || M == "EI" || M == "EZ"
        || M == "EW" || M == "EP" || M == "EQ" || M == "ET" || M == "H" || M == "Q")
        return rule(HeadSide::Right, "advmod");
    if (M == "EB" || M == "EF" || M == "EL" || M == "N") return rule(HeadSide::Left, "advmod");
    if (M == "S" || M == "SX" || M == "RS") return rule(HeadSide::Right, "nsubj");
    if (M == "SF") return rule(HeadSide::Right, "expl");
    if (M == "SI" || M == "SXI") return rule(HeadSide::Left, "nsubj");
    if (M == "SFI") return rule(HeadSide::Left, "expl");
    if (M == "O") {
        if (be) return rule(HeadSide::Left, "obj", 3, Switch::Cop); // "is a man"
        return rule(HeadSide::Left, "obj");
    }
    if (M == "OX") return rule(HeadSide::Left, "expl");
    if (M == "OD" || M == "OT" || M == "OF" || M == "OH") return rule(HeadSide::Left, "obl");
    if (M == "ON" || M == "IN" || M == "J" || M == "JG" || M == "JQ" || M == "JT")
        return rule(HeadSide::Left, "obj", 3, Switch::Case);
    if (M == "I") {
        if (left.lower == "to") return rule(HeadSide::Left, "xcomp", 3, Switch::Mark);
        if (isModal(left.lower) || isDoForm(left.lower)) return rule(HeadSide::Left, "xcomp", 3, Switch::Aux);
        return rule(HeadSide::Left, "xcomp");
    }
    if (M == "IV") return rule(HeadSide::Left, "xcomp", 1);
    if (M == "PP") return rule(HeadSide::Left, "xcomp", 3, Switch::Aux);
    if (M == "P") {
        const bool get = inList(left.lower, {"get", "gets", "got", "gotten", "getting"});
        if (s0 == 'v') return rule(HeadSide::Left, "xcomp", 3, (be || get) ? Switch::AuxPass : Switch::None);
        if (s0 == 'g') return rule(HeadSide::Left, "xcomp", 3, be ? Switch::Aux : Switch::None);
        if (s0 == 'a') return rule(HeadSide::Left, "xcomp", 3, be ? Switch::Cop : Switch::None);
        if (s0 == 'p') return rule(HeadSide::Left, "obl", 3, be ? Switch::Cop : Switch::None); // "is on loan"
        return rule(HeadSide::Left, "xcomp");
    }
    if (M == "TO") return rule(HeadSide::Left, "xcomp");
    if (M == "TH" || M == "TS" || M == "QI") return rule(HeadSide::Left, "ccomp");
    if (M == "CV") {
        if (left.verb()) return rule(HeadSide::Left, "ccomp");
        return rule(HeadSide::Left, "ccomp", 3, Switch::Mark); // "that/because ... verb"
    }
    if (M == "C" || M == "R") return rule(HeadSide::Left, "dep", 1); // to the clause's subject / relative pronoun
    if (M == "CO") {
        Rule r = rule(HeadSide::Right, adverbialLabel("", left).c_str());
        r.lift = 1;
        return r;
    }
    if (M == "CP") return rule(HeadSide::Left, "parataxis", 2);
    if (M == "B") {
        if (isWhWord(left.lower)) return rule(HeadSide::Right, "obj"); // "what did you see"
        return rule(HeadSide::Left, "acl:relcl");
    }
    if (M == "K") return rule(HeadSide::Left, "compound:prt");
    if (M == "M") {
        if (s0 == 'v' || s0 == 'g') return rule(HeadSide::Left, "acl");
        if (s0 == 'r' || s0 == 'j') return rule(HeadSide::Left, "acl:relcl");
        if (s0 == 'a') return rule(HeadSide::Left, "amod");
        return rule(HeadSide::Left, "nmod");
    }
    if (M == "MG" || M == "MF" || M == "MC") return rule(HeadSide::Left, "nmod");
    if (M == "MV") return rule(HeadSide::Left, adverbialLabel(s, right).c_str());
    if (M == "MX") {
        if (s.find('r') != std::string::npos) return rule(HeadSide::Left, "dep", 1); // noun -> ", which"
        if (s.find('a') != std::string::npos) return rule(HeadSide::Left, "amod");
        return rule(HeadSide::Left, "appos");
    }
    // Proper-noun sequences: a person's name (starting with a given name, .m
    // .f .b) is flat and headed by its first word in UD; other names ("US
    // Marines", "Genetics Institute") are compounds headed by the last word,
    // which is also where Link Grammar attaches the sequence.
    if (M == "G") {
        if (inList(left.subscript, {"m", "f", "b"}))
            return rule(HeadSide::Right, "flat", 3, Switch::Flat);
        return rule(HeadSide::Right, "compound");
    }
    if (M == "GN") return rule(HeadSide::Left, "appos");
    if (M == "NM") return rule(HeadSide::Left, "nummod");
    if (M == "ND") return rule(HeadSide::Right, "nummod");
    if (M == "NN") return rule(HeadSide::Right, "compound");
    if (M == "TM" || M == "TY") return rule(HeadSide::Left, "nummod");
    if (M == "Y") return rule(HeadSide::Right, "obl");
    if (M == "YS" || M == "YP") return rule(HeadSide::Right, "nmod:poss", 3, Switch::Possessive);
    if (M == "LE" || M == "LI") return rule(HeadSide::Left, "obl");
    if (startsWith(M, "ID")) return rule(HeadSide::Left, "fixed");
    if (M == "X" || M == "ZZZ") return rule(HeadSide::NonPunct, "punct");
    if (M == "PH") return rule(HeadSide::Right, "dep", 0); // a/an phonetic agreement, redundant with D
    if (M.size() == 2 && M[1] == 'J' && M != "XJ" && (s0 == 'l' || s0 == 'r'))
        return rule(s0 == 'l' ? HeadSide::Right : HeadSide::Left, "conj", 3, Switch::Coord); // SJ VJ AJ MJ RJ QJ
    if (M == "XJ") return rule(HeadSide::Right, "cc:preconj");
    // Wall links between words: Link Grammar starts a coordinated or juxtaposed
    // clause at its conjunction or separator as if at a new LEFT-WALL
    // ("..., and -WV-> was"); resolved in resolveSubWalls().
    if (M == "WV" || (M == "W" && s0 != 'd'))
        return rule(HeadSide::Left, "parataxis", 2, Switch::SubWall);
    if (M == "W" || M == "WN" || M == "WR" || M == "WY" || M == "RW")
        return rule(HeadSide::Marker, "parataxis", 1);
    return rule(HeadSide::Marker, "dep", 2);
}

class DependencyBuilder {
public:
    DependencyBuilder(const std::vector<LgWord> &words, const std::vector<LgLink> &links, const Alignment &alignment,
                      std::vector<TokenFacts> facts)
        : m_words(words), m_links(links), m_align(alignment), m_facts(std::move(facts)),
          m_n(static_cast<int>(m_facts.size()))
    {
    }

    DependencyTree build()
    {
        collectCandidates();
        select();
        applyLifts();
        attachLeftovers();
        resolveSubWalls();
        applySwitches();
        applyCoordination();
        fixLabels();
        DependencyTree tree;
        tree.heads.resize(static_cast<std::size_t>(m_n));
        tree.deprels = m_label;
        for (int i = 0; i < m_n; ++i)
            tree.heads[static_cast<std::size_t>(i)] = m_head[static_cast<std::size_t>(i)] + 1;
        return tree;
    }

private:
    int &head(int t) { return m_head[static_cast<std::size_t>(t)]; }
    std::string &label(int t) { return m_label[static_cast<std::size_t>(t)]; }
    const TokenFacts &fact(int t) const { return m_facts[static_cast<std::size_t>(t)]; }

    void collectCandidates()
    {
        // Relative pronouns: noun -R/MX*r-> "who/which" -RS/B-> verb gives noun -> verb (acl:relcl).
        std::vector<std::vector<int>> relNouns(m_words.size()), relVerbs(m_words.size());
        for (const LgLink &l : m_links) {
            const int lt = m_words[static_cast<std::size_t>(l.left)].token;
            const int rt = m_words[static_cast<std::size_t>(l.right)].token;
            if (m_words[static_cast<std::size_t>(l.left)].wall) {
                if (rt >= 0)
                    m_wallLinks.emplace_back(l.major + (l.major == "W" ? l.sub.substr(0, 1) : std::string()), rt);
                continue;
            }
            if (lt < 0 || rt < 0 || lt == rt)
                continue; // right wall, unaligned word, or pieces of one token
            if (l.major == "R" || (l.major == "MX" && l.sub.find('r') != std::string::npos))
                relNouns[static_cast<std::size_t>(l.right)].push_back(lt);
            if (l.major == "RS" || l.major == "B")
                relVerbs[static_cast<std::size_t>(l.left)].push_back(rt);
            const Rule r = ruleFor(l, fact(lt), fact(rt));
            bool headLeft = true;
            switch (r.side) {
            case HeadSide::Left: headLeft = true; break;
            case HeadSide::Right: headLeft = false; break;
            case HeadSide::NonPunct: headLeft = !fact(lt).punct || fact(rt).punct; break;
            case HeadSide::Marker:
                // Link Grammar marks some connectors as head (h) or dependent (d).
                if (startsWith(l.llabel, "d") || startsWith(l.rlabel, "h"))
                    headLeft = false;
                break;
            }
            Candidate c;
            c.head = headLeft ? lt : rt;
            c.dep = headLeft ? rt : lt;
            c.label = r.label;
            c.priority = r.priority;
            c.length = rt - lt;
            c.sw = r.sw;
            c.lift = r.lift;
            m_candidates.push_back(std::move(c));
        }
        for (std::size_t w = 0; w < m_words.size(); ++w)
            for (int noun : relNouns[w])
                for (int verb : relVerbs[w])
                    if (noun != verb) {
                        Candidate c;
                        c.head = noun;
                        c.dep = verb;
                        c.label = "acl:relcl";
                        c.length = std::abs(verb - noun);
                        m_candidates.push_back(c);
                    }
        // A token Link Grammar merged into its neighbour's word hangs from that neighbour.
        for (int t = 0; t < m_n; ++t)
            if (const int p = m_align.mergedInto[static_cast<std::size_t>(t)]; p >= 0 && p != t) {
                Candidate c;
                c.head = p;
                c.dep = t;
                c.label = "dep";
                c.priority = 10;
                c.length = std::abs(t - p);
                m_candidates.push_back(c);
            }
    }

    bool reaches(int from, int target) const
    {
        // Walks up from `from`; true if `target` is on the way (would close a cycle).
        for (int cur = from, steps = 0; cur >= 0 && steps <= m_n; cur = m_head[static_cast<std::size_t>(cur)], ++steps)
            if (cur == target)
                return true;
        return false;
    }

    /// Greedy spanning forest: strongest, then shortest links first; an arc is
    /// taken when its dependent has no head yet and it closes no cycle.
    void select()
    {
        m_head.assign(static_cast<std::size_t>(m_n), -1);
        m_label.assign(static_cast<std::size_t>(m_n), "dep");
        m_switch.assign(static_cast<std::size_t>(m_n), Switch::None);
        m_switchHead.assign(static_cast<std::size_t>(m_n), -1);
        m_lift.assign(static_cast<std::size_t>(m_n), 0);
        std::stable_sort(m_candidates.begin(), m_candidates.end(), [](const Candidate &a, const Candidate &b) {
            if (a.priority != b.priority) return a.priority > b.priority;
            if (a.length != b.length) return a.length < b.length;
            return a.dep < b.dep;
        });
        for (const Candidate &c : m_candidates) {
            int dep = c.dep;
            // Link Grammar links some words straight to the lexical verb ("question
            // -B-> anticipated") that already hangs from its auxiliary chain ("has
            // -PP-> anticipated"): such a link goes to the top of the chain, which
            // hands it down to the verb when the switches are applied.
            while (c.sw == Switch::None && head(dep) >= 0 && isContentSwitch(m_switch[static_cast<std::size_t>(dep)]))
                dep = head(dep);
            if (head(dep) >= 0 || dep == c.head || reaches(c.head, dep))
                continue;
            head(dep) = c.head;
            label(dep) = c.label;
            m_switch[static_cast<std::size_t>(dep)] = dep == c.dep ? c.sw : Switch::None;
            m_switchHead[static_cast<std::size_t>(dep)] = c.head;
            m_lift[static_cast<std::size_t>(dep)] = dep == c.dep ? static_cast<char>(c.lift) : 0;
        }
    }

    static bool isContentSwitch(Switch sw)
    {
        return sw == Switch::Aux || sw == Switch::AuxPass || sw == Switch::Cop || sw == Switch::Mark;
    }

    int top(int t) const
    {
        int steps = 0;
        while (m_head[static_cast<std::size_t>(t)] >= 0 && steps++ <= m_n)
            t = m_head[static_cast<std::size_t>(t)];
        return t;
    }

    void applyLifts()
    {
        for (int t = 0; t < m_n; ++t) {
            const int kind = m_lift[static_cast<std::size_t>(t)];
            const int h = head(t);
            if (kind == 0 || h < 0 || head(h) < 0)
                continue;
            // Lifting to an ancestor never closes a cycle.
            if (kind == 1 && (startsWith(label(h), "nsubj") || label(h) == "expl"))
                head(t) = head(h);
            else if (kind == 2 && label(h) == "amod")
                head(t) = head(h);
        }
    }

    /// The root: the top of the component holding the word LEFT-WALL's WV link
    /// points to (the main verb), else another W link's target (imperatives,
    /// questions, noun-phrase "sentences"), else the subject's (Wd), else the
    /// biggest component. Every other component top hangs from it.
    void attachLeftovers()
    {
        // A reporting clause after the quote ("..., '' she said") is linked from
        // the wall by CP: UD makes the reporting verb the root, the quote its ccomp.
        int anchor = -1;
        bool reporting = false;
        for (const char *want : {"CP", "WV", "Wi", "Wq", "Ws", "Wj", "W", "Wd", "Q"}) {
            for (const auto &[major, token] : m_wallLinks) {
                if (major == want || (std::strcmp(want, "W") == 0 && startsWith(major, "W") && major != "Wd" && major != "WV")) {
                    anchor = token;
                    break;
                }
            }
            if (anchor >= 0) {
                reporting = std::strcmp(want, "CP") == 0;
                break;
            }
        }
        std::vector<int> size(static_cast<std::size_t>(m_n), 0);
        for (int t = 0; t < m_n; ++t)
            ++size[static_cast<std::size_t>(top(t))];
        int root = anchor >= 0 ? top(anchor) : -1;
        if (root < 0 || size[static_cast<std::size_t>(root)] == 1) {
            // No usable wall link (or it points at a lone word): the biggest
            // component, preferring one topped by a verb.
            int best = -1;
            for (int t = 0; t < m_n; ++t) {
                if (head(t) >= 0)
                    continue;
                const auto key = [&](int x) { return std::make_pair(size[static_cast<std::size_t>(x)], fact(x).verb() ? 1 : 0); };
                if (best < 0 || key(t) > key(best))
                    best = t;
            }
            if (root < 0 || size[static_cast<std::size_t>(best)] > 1)
                root = best;
        }
        bool quoted = false;
        for (int t = 0; t < m_n; ++t) {
            if (t == root || head(t) >= 0)
                continue;
            head(t) = root;
            label(t) = fact(t).punct ? "punct" : "dep";
            if (reporting && !quoted && size[static_cast<std::size_t>(t)] > 1) {
                label(t) = "ccomp"; // the quoted clause
                quoted = true;
            }
            m_switch[static_cast<std::size_t>(t)] = Switch::None;
        }
        label(root) = "root";
    }

    /// Makes `content` take `func`'s place: content gets func's head and
    /// relation (or `contentLabel`), func's other dependents, and func hangs from
    /// content with `funcLabel`. Keeps the tree a tree.
    void promote(int func, int content, const std::string &funcLabel, const std::string &contentLabel)
    {
        head(content) = head(func);
        label(content) = contentLabel.empty() ? label(func) : contentLabel;
        for (int k = 0; k < m_n; ++k)
            if (k != content && head(k) == func)
                head(k) = content;
        head(func) = content;
        label(func) = funcLabel;
        // The content word also takes over func's place in a coordination.
        if (m_switch[static_cast<std::size_t>(func)] == Switch::Coord) {
            m_switch[static_cast<std::size_t>(content)] = Switch::Coord;
            m_switchHead[static_cast<std::size_t>(content)] = m_switchHead[static_cast<std::size_t>(func)];
            m_switch[static_cast<std::size_t>(func)] = Switch::None;
        }
    }

    /// A word that starts a clause like a wall ("and", "but", ";") makes way
    /// for the clause's head: a conjunction becomes its cc and the clause conj,
    /// anything else leaves the clause as parataxis.
    void resolveSubWalls()
    {
        for (int x = 0; x < m_n; ++x) {
            int clause = -1;
            for (int k = 0; k < m_n; ++k)
                if (head(k) == x && m_switch[static_cast<std::size_t>(k)] == Switch::SubWall) {
                    m_switch[static_cast<std::size_t>(k)] = Switch::None;
                    if (clause < 0 || (fact(k).verb() && !fact(clause).verb()))
                        clause = k; // WV's verb rather than Ws's subject
                }
            if (clause < 0)
                continue;
            const bool coordinator = fact(x).tag == "CC" || isCoordinator(fact(x).lower);
            const std::string clauseLabel = head(x) < 0 ? "root" : coordinator ? "conj" : "parataxis";
            promote(x, clause, fact(x).punct ? "punct" : coordinator ? "cc" : "advmod", clauseLabel);
        }
    }

    void applySwitches()
    {
        // Names: Link Grammar links "Pierre -G- Vinken" and attaches the last
        // word; UD heads a flat name by its first word. Right to left, so a
        // longer name hands the head down word by word.
        std::vector<int> names;
        for (int t = 0; t < m_n; ++t)
            if (m_switch[static_cast<std::size_t>(t)] == Switch::Flat)
                names.push_back(t);
        std::stable_sort(names.begin(), names.end(), [&](int a, int b) {
            return m_switchHead[static_cast<std::size_t>(a)] > m_switchHead[static_cast<std::size_t>(b)];
        });
        for (int content : names) {
            const int func = m_switchHead[static_cast<std::size_t>(content)];
            if (head(content) == func)
                promote(func, content, "flat", {});
        }

        std::vector<int> order;
        for (int t = 0; t < m_n; ++t) {
            const Switch sw = m_switch[static_cast<std::size_t>(t)];
            if (sw != Switch::None && sw != Switch::Coord && sw != Switch::Flat)
                order.push_back(t);
        }
        // Left to right by function word, so auxiliary chains ("will have been
        // seen") hand the head down one step at a time.
        std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
            return m_switchHead[static_cast<std::size_t>(a)] < m_switchHead[static_cast<std::size_t>(b)];
        });
        for (int content : order) {
            const int func = m_switchHead[static_cast<std::size_t>(content)];
            if (head(content) != func)
                continue; // an earlier switch moved it
            switch (m_switch[static_cast<std::size_t>(content)]) {
            case Switch::Case: promote(func, content, "case", {}); break;
            case Switch::Aux: promote(func, content, "aux", {}); break;
            case Switch::AuxPass: promote(func, content, "aux:pass", {}); break;
            case Switch::Cop:
                // "there was a demonstration": UD keeps the existential verb as head.
                if (hasChildLabelled(func, "expl"))
                    label(content) = startsWith(fact(content).tag, "NN") || fact(content).tag == "PRP" ? "nsubj" : label(content);
                else
                    // "was seeking", "was pleased": a participle after be is a verb, be its auxiliary.
                    promote(func, content, fact(content).tag == "VBG" ? "aux" : fact(content).tag == "VBN" ? "aux:pass" : "cop", {});
                break;
            case Switch::Mark: promote(func, content, fact(func).tag == "WRB" ? "advmod" : "mark", {}); break;
            case Switch::Possessive: promote(func, content, "case", "nmod:poss"); break;
            default: break;
            }
        }
    }

    /// Link Grammar heads a coordination by the conjunction; UD by the first
    /// conjunct, with the others as conj and the conjunction as cc of the next one.
    void applyCoordination()
    {
        for (int c = 0; c < m_n; ++c) {
            std::vector<int> conjuncts;
            for (int t = 0; t < m_n; ++t)
                if (m_switch[static_cast<std::size_t>(t)] == Switch::Coord && m_switchHead[static_cast<std::size_t>(t)] == c
                    && head(t) == c)
                    conjuncts.push_back(t);
            if (conjuncts.empty())
                continue;
            const int first = conjuncts.front();
            head(first) = head(c);
            label(first) = label(c);
            for (int k = 0; k < m_n; ++k)
                if (k != first && head(k) == c)
                    head(k) = first;
            for (std::size_t i = 1; i < conjuncts.size(); ++i)
                label(conjuncts[i]) = "conj";
            int next = conjuncts.back();
            for (int x : conjuncts)
                if (x > c) {
                    next = x;
                    break;
                }
            head(c) = next;
            label(c) = fact(c).punct ? "punct" : "cc";
        }
    }

    bool hasChildLabelled(int h, const char *rel)
    {
        for (int k = 0; k < m_n; ++k)
            if (head(k) == h && label(k) == rel)
                return true;
        return false;
    }

    bool isAncestor(int a, int d) const
    {
        for (int cur = m_head[static_cast<std::size_t>(d)], steps = 0; cur >= 0 && steps <= m_n;
             cur = m_head[static_cast<std::size_t>(cur)], ++steps)
            if (cur == a)
                return true;
        return false;
    }

    /// A punctuation root (e.g. Link Grammar's linkage hung from a dash) hands
    /// the root over to its biggest non-punctuation dependent.
    void keepRootOffPunctuation()
    {
        int root = -1;
        for (int t = 0; t < m_n; ++t)
            if (head(t) < 0)
                root = t;
        if (root < 0 || !fact(root).punct)
            return;
        int best = -1, bestSize = 0;
        for (int c = 0; c < m_n; ++c) {
            if (head(c) != root || fact(c).punct)
                continue;
            int size = 1;
            for (int k = 0; k < m_n; ++k)
                size += isAncestor(c, k);
            if (size > bestSize) {
                best = c;
                bestSize = size;
            }
        }
        if (best >= 0)
            promote(root, best, "punct", "root");
    }

    /// UD attaches punctuation to the head of the phrase it delimits; Link
    /// Grammar's X links do not say which. As udapi's ud.FixPunct does: from
    /// the nearest word on each side climb while the ancestors stay on that
    /// side, then take the lower of the two (the one under the other).
    void attachPunctuation()
    {
        for (int p = 0; p < m_n; ++p) {
            if (!fact(p).punct || head(p) < 0)
                continue;
            int l = -1, r = -1;
            for (int x = p - 1; x >= 0 && l < 0; --x)
                if (!fact(x).punct)
                    l = x;
            for (int x = p + 1; x < m_n && r < 0; ++x)
                if (!fact(x).punct)
                    r = x;
            if (l >= 0)
                while (head(l) >= 0 && head(l) < p && !fact(head(l)).punct)
                    l = head(l);
            if (r >= 0)
                while (head(r) >= 0 && head(r) > p && !fact(head(r)).punct)
                    r = head(r);
            int target = l;
            if (l < 0)
                target = r;
            else if (r >= 0) {
                if (isAncestor(l, r))
                    target = r;
                else if (!isAncestor(r, l) && p + 1 < m_n && fact(p + 1).punct)
                    target = r;
            }
            if (target >= 0) {
                head(p) = target;
                label(p) = "punct";
            }
        }
    }

    void fixLabels()
    {
        keepRootOffPunctuation();
        // Punctuation is a leaf in UD: hand any dependents on to its head.
        for (int t = 0; t < m_n; ++t) {
            if (!fact(t).punct || head(t) < 0)
                continue;
            for (int k = 0; k < m_n; ++k)
                if (head(k) == t)
                    head(k) = head(t);
            label(t) = "punct";
        }
        for (int t = 0; t < m_n; ++t) {
            std::string &l = label(t);
            if (head(t) < 0) {
                l = "root";
                continue;
            }
            const std::string &tag = fact(t).tag;
            if (l == "nsubj") {
                for (int k = 0; k < m_n; ++k)
                    if (head(k) == head(t) && label(k) == "aux:pass")
                        l = "nsubj:pass";
            }
            if ((l == "obl" || l == "nmod") && (tag == "IN" || tag == "RP" || tag == "TO" || startsWith(tag, "RB")))
                l = "advmod"; // a preposition that kept no object ("go home", "came in")
            if (l == "dep" && tag == "CD")
                l = "nummod";
            if ((l == "advmod" || l == "dep") && (tag == "UH" || inList(fact(t).lower, {"well", "yes", "oh", "ok", "okay",
                                                                          "please", "hi", "hello", "thanks", "yeah", "wow"})))
                l = "discourse";
            if (l == "root")
                l = "dep";
        }
        // Two objects: the first is the indirect one ("gave him a book").
        for (int h = 0; h < m_n; ++h) {
            int objects = 0, first = -1;
            for (int k = 0; k < m_n; ++k)
                if (head(k) == h && label(k) == "obj" && objects++ == 0)
                    first = k;
            if (objects >= 2)
                label(first) = "iobj";
        }
        attachPunctuation();
    }

    const std::vector<LgWord> &m_words;
    const std::vector<LgLink> &m_links;
    const Alignment &m_align;
    std::vector<TokenFacts> m_facts;
    int m_n = 0;
    std::vector<Candidate> m_candidates;
    std::vector<std::pair<std::string, int>> m_wallLinks; ///< (link type, token) from LEFT-WALL
    std::vector<int> m_head;                              ///< 0-based, -1 = none/root
    std::vector<std::string> m_label;
    std::vector<Switch> m_switch;
    std::vector<int> m_switchHead;
    std::vector<char> m_lift;
};

/// Every token hangs from the first non-punctuation token: a last resort that
/// keeps the result a valid tree (only used if the conversion produced none).
DependencyTree flatDependencies(const std::vector<TokenFacts> &facts)
{
    const int n = static_cast<int>(facts.size());
    int root = 0;
    for (int t = 0; t < n; ++t)
        if (!facts[static_cast<std::size_t>(t)].punct) {
            root = t;
            break;
        }
    DependencyTree d;
    for (int t = 0; t < n; ++t) {
        d.heads.push_back(t == root ? 0 : root + 1);
        d.deprels.push_back(t == root ? "root" : facts[static_cast<std::size_t>(t)].punct ? "punct" : "dep");
    }
    return d;
}

// ---------------------------------------------------------------------------
// Constituency: Link Grammar's SINGLE_LINE constituent string -> our tree.

struct LgTreeNode {
    std::string label;
    int parent = -1;
    std::vector<int> kids; ///< >= 0: node index; < 0: leaf -(k + 1)
};

/// Parses "(S (NP the man.n) (VP saw.v-d ...) .)". Link Grammar prints
/// parentheses inside words as braces, so '(' and ')' are always structure.
/// Node 0 is a synthetic top holding whatever the string has at top level.
void parseLgTree(const std::string &s, std::vector<LgTreeNode> &nodes, std::vector<std::string> &leaves,
                 std::vector<int> &leafParent)
{
    nodes.assign(1, LgTreeNode{});
    std::vector<int> stack{0};
    std::size_t i = 0;
    while (i < s.size()) {
        const char c = s[i];
        if (c == ' ' || c == '\n' || c == '\t') {
            ++i;
        } else if (c == '(') {
            std::size_t j = ++i;
            while (j < s.size() && s[j] != ' ' && s[j] != '(' && s[j] != ')')
                ++j;
            LgTreeNode n;
            n.label = s.substr(i, j - i);
            n.parent = stack.back();
            const int idx = static_cast<int>(nodes.size());
            nodes.push_back(std::move(n));
            nodes[static_cast<std::size_t>(stack.back())].kids.push_back(idx);
            stack.push_back(idx);
            i = j;
        } else if (c == ')') {
            if (stack.size() > 1)
                stack.pop_back();
            ++i;
        } else {
            std::size_t j = i;
            while (j < s.size() && s[j] != ' ' && s[j] != ')' && s[j] != '(' && s[j] != '\n')
                ++j;
            const int k = static_cast<int>(leaves.size());
            leaves.push_back(s.substr(i, j - i));
            leafParent.push_back(stack.back());
            nodes[static_cast<std::size_t>(stack.back())].kids.push_back(-(k + 1));
            i = j;
        }
    }
}

std::string normalizeForTree(std::string s)
{
    for (char &c : s) {
        if (c == '(' || c == '[')
            c = '{';
        else if (c == ')' || c == ']')
            c = '}';
    }
    return s;
}

/// One preterminal per token in a single S: used when Link Grammar's tree is
/// missing or cannot be aligned.
ConstituencyTree flatConstituency(const std::vector<Token> &tokens, const std::vector<TokenFacts> &facts)
{
    ConstituencyTree tree;
    const int root = tree.addNode("S", -1);
    for (std::size_t t = 0; t < tokens.size(); ++t) {
        const int p = tree.addNode(facts[t].tag, root);
        tree.addNode(tokens[t].text, p, true);
    }
    tree.renumberWords();
    return tree;
}

/// Converts the constituent string over Link Grammar's words into a tree over
/// our tokens: each token sits where its representative word's leaf was;
/// tokens merged into a neighbour's word sit next to that neighbour; tokens
/// Link Grammar dropped go into the lowest constituent spanning their nearest
/// placed neighbours (the top node at the sentence edges). Empty constituents
/// disappear, and a unary chain of one label is collapsed.
bool convertConstituency(const std::string &lgTree, const std::vector<LgWord> &words, const Alignment &align,
                         const std::vector<Token> &tokens, const std::vector<TokenFacts> &facts, ConstituencyTree &out)
{
    std::vector<LgTreeNode> nodes;
    std::vector<std::string> leaves;
    std::vector<int> leafParent;
    parseLgTree(lgTree, nodes, leaves, leafParent);
    if (leaves.empty())
        return false;

    // Leaves are the non-wall words in order; match by text when counts differ.
    std::vector<int> expected;
    for (int w = 0; w < static_cast<int>(words.size()); ++w)
        if (!words[static_cast<std::size_t>(w)].wall)
            expected.push_back(w);
    std::vector<int> leafOfWord(words.size(), -1);
    if (expected.size() == leaves.size()) {
        for (std::size_t k = 0; k < leaves.size(); ++k)
            leafOfWord[static_cast<std::size_t>(expected[k])] = static_cast<int>(k);
    } else {
        std::size_t j = 0;
        for (std::size_t k = 0; k < leaves.size(); ++k) {
            const std::string leaf = normalizeForTree(leaves[k]);
            for (std::size_t x = j; x < expected.size() && x < j + 8; ++x) {
                if (normalizeForTree(words[static_cast<std::size_t>(expected[x])].raw) == leaf) {
                    leafOfWord[static_cast<std::size_t>(expected[x])] = static_cast<int>(k);
                    j = x + 1;
                    break;
                }
            }
        }
    }

    const int n = static_cast<int>(tokens.size());
    std::vector<int> attach(static_cast<std::size_t>(n), -1);
    for (int t = 0; t < n; ++t) {
        std::vector<int> candidates;
        if (const int rep = align.rep[static_cast<std::size_t>(t)]; rep >= 0)
            candidates.push_back(rep);
        for (int w : align.wordsOf[static_cast<std::size_t>(t)])
            candidates.push_back(w);
        for (int w : candidates)
            if (const int leaf = leafOfWord[static_cast<std::size_t>(w)]; leaf >= 0) {
                attach[static_cast<std::size_t>(t)] = leafParent[static_cast<std::size_t>(leaf)];
                break;
            }
    }
    for (int t = 0; t < n; ++t)
        if (const int p = align.mergedInto[static_cast<std::size_t>(t)]; attach[static_cast<std::size_t>(t)] < 0 && p >= 0)
            attach[static_cast<std::size_t>(t)] = attach[static_cast<std::size_t>(p)];

    const int top = (nodes[0].kids.size() == 1 && nodes[0].kids[0] >= 0) ? nodes[0].kids[0] : 0;
    std::vector<int> depth(nodes.size(), 0);
    for (std::size_t i = 1; i < nodes.size(); ++i)
        depth[i] = depth[static_cast<std::size_t>(nodes[i].parent)] + 1; // parents precede children
    const auto lca = [&](int a, int b) {
        while (a != b) {
            if (depth[static_cast<std::size_t>(a)] >= depth[static_cast<std::size_t>(b)])
                a = nodes[static_cast<std::size_t>(a)].parent;
            else
                b = nodes[static_cast<std::size_t>(b)].parent;
            if (a < 0 || b < 0)
                return 0;
        }
        return a;
    };
    const std::vector<int> placed = attach;
    for (int t = 0; t < n; ++t) {
        if (placed[static_cast<std::size_t>(t)] >= 0)
            continue;
        int prev = -1, next = -1;
        for (int x = t - 1; x >= 0; --x)
            if (placed[static_cast<std::size_t>(x)] >= 0) {
                prev = placed[static_cast<std::size_t>(x)];
                break;
            }
        for (int x = t + 1; x < n; ++x)
            if (placed[static_cast<std::size_t>(x)] >= 0) {
                next = placed[static_cast<std::size_t>(x)];
                break;
            }
        attach[static_cast<std::size_t>(t)] = (prev >= 0 && next >= 0) ? lca(prev, next) : top;
    }
    for (int &a : attach)
        if (a == 0 && top != 0)
            a = top; // node 0 is only a wrapper when the string holds one tree

    std::vector<std::vector<int>> direct(nodes.size());
    for (int t = 0; t < n; ++t)
        direct[static_cast<std::size_t>(attach[static_cast<std::size_t>(t)])].push_back(t);
    std::vector<int> first(nodes.size(), INT_MAX);
    for (int i = static_cast<int>(nodes.size()) - 1; i >= 0; --i) { // children have larger indices
        auto &f = first[static_cast<std::size_t>(i)];
        for (int t : direct[static_cast<std::size_t>(i)])
            f = std::min(f, t);
        for (int k : nodes[static_cast<std::size_t>(i)].kids)
            if (k >= 0)
                f = std::min(f, first[static_cast<std::size_t>(k)]);
    }

    ConstituencyTree tree;
    std::function<void(int, int)> build = [&](int node, int parent) {
        std::vector<std::pair<int, int>> items; // (first token, node index or -(token + 1))
        for (int k : nodes[static_cast<std::size_t>(node)].kids)
            if (k >= 0 && first[static_cast<std::size_t>(k)] != INT_MAX)
                items.emplace_back(first[static_cast<std::size_t>(k)], k);
        for (int t : direct[static_cast<std::size_t>(node)])
            items.emplace_back(t, -(t + 1));
        std::sort(items.begin(), items.end());
        std::string label = nodes[static_cast<std::size_t>(node)].label;
        if (label.empty())
            label = "S";
        if (items.size() == 1 && items[0].second >= 0 && nodes[static_cast<std::size_t>(items[0].second)].label == label) {
            build(items[0].second, parent);
            return;
        }
        const int me = tree.addNode(label, parent);
        for (const auto &[key, item] : items) {
            if (item >= 0) {
                build(item, me);
            } else {
                const int t = -item - 1;
                const int pre = tree.addNode(facts[static_cast<std::size_t>(t)].tag, me);
                tree.addNode(tokens[static_cast<std::size_t>(t)].text, pre, true);
            }
        }
    };
    build(top, -1);
    tree.renumberWords();
    std::vector<std::string> expectedWords;
    for (const auto &tok : tokens)
        expectedWords.push_back(tok.text);
    if (tree.words() != expectedWords || !tree.validate().ok())
        return false;
    out = std::move(tree);
    return true;
}

// ---------------------------------------------------------------------------
// The parser.

std::string describe(const Sentence &s)
{
    if (!s.id.empty())
        return "sentence '" + s.id + "'";
    std::string text;
    for (const auto &t : s.tokens) {
        if (!text.empty())
            text += ' ';
        text += t.text;
        if (text.size() > 40)
            break;
    }
    if (text.size() > 40)
        text = text.substr(0, 40) + "...";
    return "sentence \"" + text + "\"";
}

/// Control characters and bytes that are not valid UTF-8 become '_' one for
/// one, so byte offsets into the joined string still match the tokens.
void sanitizeUtf8(std::string &s)
{
    const auto *p = reinterpret_cast<const unsigned char *>(s.data());
    const std::size_t n = s.size();
    std::size_t i = 0;
    while (i < n) {
        const unsigned char c = p[i];
        std::size_t len = 0;
        if (c < 0x80) len = 1;
        else if ((c & 0xE0) == 0xC0 && c >= 0xC2) len = 2;
        else if ((c & 0xF0) == 0xE0) len = 3;
        else if ((c & 0xF8) == 0xF0 && c <= 0xF4) len = 4;
        bool ok = len > 0 && i + len <= n;
        for (std::size_t k = 1; ok && k < len; ++k)
            ok = (p[i + k] & 0xC0) == 0x80;
        if (!ok) {
            s[i] = '_';
            ++i;
            continue;
        }
        if (len == 1 && (c < 0x20 || c == 0x7F))
            s[i] = '_';
        i += len;
    }
}

/// What one Link Grammar run gives back, copied out of the library's objects.
struct LgRun {
    std::string text;                        ///< what Link Grammar was fed
    std::vector<std::pair<int, int>> ranges; ///< per token: its bytes in `text`
    std::vector<LgWord> words;
    std::vector<LgLink> links;
    std::string tree;                        ///< SINGLE_LINE constituent string ("" if none)
    int nullCount = 0;
    bool valid = true;                       ///< false: breaks a post-processing rule
    std::string violation;
};

/// Abbreviations whose final period Link Grammar split off ("U.S." -> "U.S" +
/// "."): it then tends to read the period as a full stop in mid-sentence.
std::vector<int> splitAbbreviations(const LgRun &run, const Alignment &align, const std::vector<Token> &tokens)
{
    std::vector<int> out;
    for (std::size_t t = 0; t < tokens.size(); ++t) {
        const std::string &form = tokens[t].text;
        const auto &ws = align.wordsOf[t];
        if (form.size() < 2 || form.back() != '.' || ws.size() < 2 || !punctuationTag(form).empty())
            continue;
        const LgWord &last = run.words[static_cast<std::size_t>(ws.back())];
        if (last.surface == ".")
            out.push_back(static_cast<int>(t));
    }
    return out;
}

class LinkGrammarParser final : public Parser {
public:
    LinkGrammarParser(ParserConfig config, DictionaryPtr dict, OptionsPtr options)
        : m_config(std::move(config)), m_dict(std::move(dict)), m_options(std::move(options))
    {
    }

    ParserInfo info() const override { return linkGrammarParserInfo(); }
    Result<Sentence> parse(const Sentence &input) override;

private:
    using Clock = std::chrono::steady_clock;

    /// Link Grammar's timer counts whole seconds; 0 in our config means no limit.
    void setTimer(double seconds)
    {
        const int secs = seconds <= 0 ? -1 : std::max(1, static_cast<int>(std::ceil(seconds)));
        parse_options_set_max_parse_time(m_options.get(), secs);
    }

    Result<LgRun> run(const std::vector<Token> &tokens, const std::vector<char> &dropPeriod, Clock::time_point started,
                      const std::string &what, LgMessages &messages);

    ParserConfig m_config;
    DictionaryPtr m_dict;
    OptionsPtr m_options;
};

/// Feeds the tokens (joined by single spaces, so Link Grammar sees our word
/// boundaries) and extracts the best linkage. `dropPeriod` marks tokens fed
/// without their final period. Time counts from `started`.
Result<LgRun> LinkGrammarParser::run(const std::vector<Token> &tokens, const std::vector<char> &dropPeriod,
                                     Clock::time_point started, const std::string &what, LgMessages &messages)
{
    LgRun r;
    for (std::size_t t = 0; t < tokens.size(); ++t) {
        if (!r.text.empty())
            r.text += ' ';
        const int start = static_cast<int>(r.text.size());
        const std::string &form = tokens[t].text;
        r.text += dropPeriod[t] ? form.substr(0, form.size() - 1) : form;
        r.ranges.emplace_back(start, static_cast<int>(r.text.size()));
    }
    sanitizeUtf8(r.text);

    const auto lgError = [&](const std::string &msg) {
        return Error{"link-grammar: " + msg + (messages.errors().empty() ? std::string() : ": " + messages.errors())};
    };
    LgOptions opts = m_options.get();
    LgSentencePtr sent(sentence_create(r.text.c_str(), m_dict.get()));
    if (!sent)
        return lgError("cannot create " + what);
    if (sentence_split(sent.get(), opts) < 0)
        return lgError("cannot tokenize " + what);

    // Complete linkages first (null count 0). If there are none, Link Grammar's
    // standard fallback: allow null links (words left out of the linkage), the
    // fewest first. Each null count is a parse of its own so the budget is
    // checked between them: a single call with a null-count range stops late
    // and took 4 GB on a 240-word input, one null count at a time 150 MB.
    const int length = sentence_length(sent.get());
    // Memory grows steeply with words x null links and the library ignores
    // max_memory: 242 words reached 4.5 GB at 5 null links (150 MB at 4).
    const int maxNull = std::min(length, std::max(1, kNullLinkWordBudget / std::max(1, length)));
    const double limit = m_config.timeoutSeconds;
    const auto timedOut = [&] {
        return Error{"link-grammar: no linkage within " + formatSeconds(limit) + " s for " + what};
    };
    double lastPass = 0.0;
    int nullCount = -1;
    for (int k = 0; k <= maxNull; ++k) {
        double left = 0.0;
        if (limit > 0) {
            left = limit - std::chrono::duration<double>(Clock::now() - started).count();
            // A pass with more null links is rarely quicker than the one before:
            // do not start one that cannot finish in time.
            if (left <= 0 || (k > 0 && left < lastPass))
                return timedOut();
        }
        parse_options_set_min_null_count(opts, k);
        parse_options_set_max_null_count(opts, k);
        parse_options_reset_resources(opts);
        setTimer(left);
        const auto passStart = Clock::now();
        if (sentence_parse(sent.get(), opts) < 0)
            return lgError("cannot parse " + what);
        lastPass = std::chrono::duration<double>(Clock::now() - passStart).count();
        if (parse_options_resources_exhausted(opts))
            return timedOut();
        // With null links, a linkage that breaks a post-processing rule is still
        // the best there is; a complete one like that is worth one more try.
        if (sentence_num_valid_linkages(sent.get()) > 0 || (k > 0 && sentence_num_linkages_post_processed(sent.get()) > 0)) {
            nullCount = k;
            break;
        }
    }
    if (nullCount < 0)
        return Error{"link-grammar: no linkage for " + what + ", not even with " + std::to_string(maxNull)
                     + (maxNull == 1 ? " null link" : " null links")};
    r.nullCount = nullCount;
    r.valid = sentence_num_valid_linkages(sent.get()) > 0;

    // Linkages are sorted valid-first, then by cost: 0 is the best one.
    LinkagePtr linkage(linkage_create(0, sent.get(), opts));
    if (!linkage)
        return lgError("cannot extract a linkage for " + what);
    LgLinkage lk = linkage.get();
    if (!r.valid) {
        const char *v = linkage_get_violation_name(lk);
        r.violation = v && *v ? v : "yes";
    }

    r.words.resize(linkage_get_num_words(lk));
    for (std::size_t i = 0; i < r.words.size(); ++i) {
        LgWord &w = r.words[i];
        const char *raw = linkage_get_word(lk, i);
        w.raw = raw ? raw : "";
        w.wall = (i == 0 && w.raw == "LEFT-WALL") || (i + 1 == r.words.size() && w.raw == "RIGHT-WALL");
        w.start = static_cast<int>(linkage_get_word_byte_start(lk, i));
        w.end = static_cast<int>(linkage_get_word_byte_end(lk, i));
        if (w.start < 0 || w.end < w.start)
            w.start = w.end = -1;
    }
    verifyOffsets(r.words, r.text);
    for (LgWord &w : r.words) {
        if (!w.wall && w.end > w.start)
            w.surface = r.text.substr(static_cast<std::size_t>(w.start), static_cast<std::size_t>(w.end - w.start));
        w.lower = lowerAscii(w.surface);
    }
    const int wordCount = static_cast<int>(r.words.size());
    for (std::size_t i = 0; i < linkage_get_num_links(lk); ++i) {
        LgLink l;
        l.left = static_cast<int>(linkage_get_link_lword(lk, i));
        l.right = static_cast<int>(linkage_get_link_rword(lk, i));
        if (l.left < 0 || l.right < 0 || l.left >= wordCount || l.right >= wordCount)
            continue;
        const char *lab = linkage_get_link_label(lk, i);
        const char *ll = linkage_get_link_llabel(lk, i);
        const char *rl = linkage_get_link_rlabel(lk, i);
        l.label = lab ? lab : "";
        l.llabel = ll ? ll : "";
        l.rlabel = rl ? rl : "";
        splitLabel(l.label, l.major, l.sub);
        LgWord &lw = r.words[static_cast<std::size_t>(l.left)];
        LgWord &rw = r.words[static_cast<std::size_t>(l.right)];
        ++lw.links;
        ++rw.links;
        lw.leftOf.push_back(l.major);
        rw.rightOf.push_back(l.major);
        r.links.push_back(std::move(l));
    }
    for (LgWord &w : r.words)
        if (!w.wall)
            decomposeWord(w);
    if (TreeStringPtr tree{linkage_print_constituent_tree(lk, SINGLE_LINE)})
        r.tree = tree.get();
    return r;
}

Result<Sentence> LinkGrammarParser::parse(const Sentence &input)
{
    const auto started = Clock::now();
    const int n = static_cast<int>(input.tokens.size());
    if (n == 0)
        return Error{"link-grammar: " + describe(input) + " has no tokens"};
    if (n > m_config.maxWords)
        return Error{"link-grammar: " + describe(input) + " has " + std::to_string(n) + " tokens; the limit is "
                     + std::to_string(m_config.maxWords) + " (ParserConfig::maxWords)"};

    const std::string what = describe(input) + " (" + std::to_string(n) + (n == 1 ? " word)" : " words)");
    LgMessages messages;
    std::vector<char> dropPeriod(static_cast<std::size_t>(n), 0);
    auto first = run(input.tokens, dropPeriod, started, what, messages);
    if (!first)
        return first.error();
    LgRun lg = std::move(first.value());
    Alignment align = alignWords(lg.words, lg.ranges);

    // Abbreviations whose period Link Grammar split off are fed once more
    // without it (in what is left of the budget); the second linkage is kept
    // unless it leaves more words unlinked.
    int reparsed = 0;
    const std::vector<int> abbreviations = splitAbbreviations(lg, align, input.tokens);
    if (!abbreviations.empty()) {
        for (int t : abbreviations)
            dropPeriod[static_cast<std::size_t>(t)] = 1;
        auto second = run(input.tokens, dropPeriod, started, what, messages);
        if (second && second->nullCount <= lg.nullCount) {
            lg = std::move(second.value());
            align = alignWords(lg.words, lg.ranges);
            reparsed = static_cast<int>(abbreviations.size());
        }
    }

    std::vector<TokenFacts> facts(static_cast<std::size_t>(n));
    for (int t = 0; t < n; ++t) {
        const int rep = align.rep[static_cast<std::size_t>(t)];
        TokenFacts &f = facts[static_cast<std::size_t>(t)];
        const std::string &form = input.tokens[static_cast<std::size_t>(t)].text;
        f.lower = lowerAscii(form);
        f.tag = tagFor(form, rep >= 0 ? &lg.words[static_cast<std::size_t>(rep)] : nullptr, t == 0);
        if (rep >= 0)
            f.subscript = lg.words[static_cast<std::size_t>(rep)].subscript;
        f.punct = isPunctuationTag(f.tag);
    }

    Sentence out = input;
    out.setMetadata("parser", "link-grammar");
    out.setMetadata("null_count", std::to_string(lg.nullCount));
    if (lg.nullCount > 0)
        out.setMetadata("partial", "yes");
    if (!lg.valid)
        out.setMetadata("lg.violation", lg.violation);
    if (align.split > 0)
        out.setMetadata("lg.split", std::to_string(align.split));
    if (align.merged > 0)
        out.setMetadata("lg.merged", std::to_string(align.merged));
    if (align.dropped > 0)
        out.setMetadata("lg.dropped", std::to_string(align.dropped));
    if (reparsed > 0)
        out.setMetadata("lg.abbreviations", std::to_string(reparsed));

    DependencyBuilder deps(lg.words, lg.links, align, facts);
    DependencyTree dep = deps.build();
    if (!dep.validate().ok()) {
        dep = flatDependencies(facts);
        out.setMetadata("lg.dependency", "flat");
    }
    out.dependency = std::move(dep);

    ConstituencyTree tree;
    if (lg.tree.empty() || !convertConstituency(lg.tree, lg.words, align, input.tokens, facts, tree)) {
        tree = flatConstituency(input.tokens, facts);
        out.setMetadata("lg.constituency", "flat");
    }
    out.constituency = std::move(tree);
    return out;
}

} // namespace

ParserInfo linkGrammarParserInfo()
{
    ParserInfo info;
    info.name = "link-grammar";
    info.dependencies = true;
    info.constituencies = true;
    info.description = std::string("Link Grammar (") + linkgrammar_get_version()
        + ", English dictionary): rule-based, partial parses via null links; trees converted to UD/PTB style";
    return info;
}

Result<std::unique_ptr<Parser>> createLinkGrammarParser(const ParserConfig &config)
{
    if (config.language != "en")
        return Error{"link-grammar: only English ('en') is supported, not '" + config.language
                     + "' (the POS and relation mappings are English-specific)"};
    if (!(config.timeoutSeconds >= 0))
        return Error{"link-grammar: timeoutSeconds must be >= 0 (0 = no limit), got " + formatSeconds(config.timeoutSeconds)};
    if (config.maxWords < 1)
        return Error{"link-grammar: maxWords must be at least 1, got " + std::to_string(config.maxWords)};

    LgMessages messages;
    // Loading reads and compiles the whole English dictionary (4.0.dict, the
    // word lists, regexes, affixes): ~0.25 s and ~15 MB, hence once per
    // parser. If the program's LC_CTYPE is not UTF-8 (e.g. "C"), Link Grammar
    // switches it to C.UTF-8 here; it needs a UTF-8 locale to read words.
    DictionaryPtr dict(dictionary_create_lang("en"));
    if (!dict)
        return Error{"link-grammar: cannot load the English dictionary (is link-grammar-dictionaries-en installed?)"
                     + (messages.errors().empty() ? std::string() : ": " + messages.errors())};
    OptionsPtr options(parse_options_create());
    if (!options)
        return Error{"link-grammar: cannot create parse options"};
    LgOptions o = options.get();
    parse_options_set_verbosity(o, 0);
    parse_options_set_linkage_limit(o, kLinkageLimit);
    parse_options_set_repeatable_rand(o, true); // same input, same linkage
    parse_options_set_spell_guess(o, 0);        // never replace our words with guesses
    parse_options_set_islands_ok(o, false);
    parse_options_set_display_morphology(o, 1); // unknown words show their regex class: "Vinken[!<CAPITALIZED-WORDS>]"
    return std::unique_ptr<Parser>(new LinkGrammarParser(config, std::move(dict), std::move(options)));
}

} // namespace treelens
