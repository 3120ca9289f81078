// tagger: PTB-style POS tags of our tokens from their Link Grammar words; see
// tagger.h.
#include "core/parsing/linkgrammar/tagger.h"

#include <algorithm>
#include <cstddef>

namespace treelens::linkgrammar {
namespace {

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

} // namespace

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

bool isPunctuationTag(const std::string &tag)
{
    return inList(tag, {".", ",", ":", "``", "''", "-LRB-", "-RRB-"});
}

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

} // namespace treelens::linkgrammar
