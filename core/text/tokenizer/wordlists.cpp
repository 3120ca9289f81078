// wordlists: the tokenizer's word lists (the data of its rules); see
// wordlists.h.
#include "core/text/tokenizer/wordlists.h"

namespace treelens::tokenizer {

// Abbreviations that keep their period (lower-cased, without the period).
// Single letters and letter-dot patterns ("U.S.", "a.m.") are handled by rule.
// Titles and the like come before a name or number, so their period never
// ends a sentence.
const WordSet &titleAbbreviations()
{
    static const WordSet s = {
        "mr", "mrs", "ms", "dr", "drs", "prof", "st", "sts", "mt", "ft", "gen", "gov", "sen", "rep", "reps",
        "rev", "lt", "col", "capt", "sgt", "cpl", "maj", "adm", "pres", "hon", "messrs", "vs", "cf", "viz",
        "eg", "ie", "approx", "al", "et", "ph", "tel", "attn", "arrv", "lv", "ext", "jan", "feb", "apr",
        "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec", "tue", "tues", "thu", "thur", "thurs",
        "vol", "vols", "pp", "fig", "figs"};
    return s;
}

// The others end a sentence when a capitalised word follows ("... and so on
// etc. The next"); before anything else they keep their period.
const WordSet &otherAbbreviations()
{
    static const WordSet s = {
        "sr", "jr", "inc", "corp", "co", "ltd", "bros", "dept", "univ", "assn", "ave", "blvd", "rd", "hwy",
        "etc", "ect", "est", "eds", "hr", "hrs", "yr", "yrs", "mins", "lb", "lbs", "oz", "mar", "mon",
        "wed", "fri", "sat", "sun", "fax", "spec", "para", "conf", "sec", "esp", "dom", "rec", "ps", "mob",
        "info", "min", "max", "misc", "ref", "govt", "intl", "natl", "assoc", "mfg", "pvt", "sc", "que",
        "ca", "la", "va", "wa", "cal", "calif", "fla", "mass", "penn", "tenn", "tex", "wash", "ariz",
        "colo", "conn", "ill", "kan", "ky", "md", "mich", "minn", "miss", "mo", "neb", "nev", "okla",
        "ore", "pa", "wis", "wyo"};
    return s;
}

// Bound prefixes after which EWT keeps the hyphen inside the word ("e-mail",
// "non-violent"); other hyphenated compounds are split ("long - term").
const WordSet &hyphenPrefixes()
{
    static const WordSet s = {
        "e", "non", "anti", "pre", "re", "mid", "post", "co", "over", "multi", "pro", "ex", "sub",
        "semi", "cross", "neo", "counter", "psycho", "socio", "arch", "intra", "un", "mis", "micro",
        "macro", "bi", "tri", "de", "dis", "extra", "ultra", "hyper", "super", "trans", "quasi",
        "pseudo", "infra", "proto", "mega", "mini", "auto", "meta", "poly", "mono", "uni"};
    return s;
}

// File extensions: "report.doc", "ld2d-#69366-1.DOC" stay whole.
const WordSet &fileExtensions()
{
    static const WordSet s = {
        "doc", "docx", "xls", "xlsx", "ppt", "pptx", "pdf", "txt", "rtf", "htm", "html", "php", "asp",
        "aspx", "jsp", "cgi", "xml", "json", "csv", "zip", "gz", "tar", "exe", "dll", "jpg", "jpeg",
        "gif", "png", "bmp", "tif", "tiff", "mp3", "mp4", "wav", "avi", "mov", "wmv", "mpg", "cpp",
        "h", "py", "js", "css", "java", "log", "dat", "ini", "cfg", "bat", "sh", "msg", "eml", "vcf", "url"};
    return s;
}

// Top-level domains and file extensions: "Amazon.com", "report.doc" stay whole.
bool isDomainSuffix(const std::string &lower)
{
    static const WordSet tlds = {
        "com", "org", "net", "edu", "gov", "mil", "int", "info", "biz", "us", "uk", "ca", "de", "fr",
        "au", "in", "jp", "cn", "ru", "it", "nl", "es", "ch", "se", "no", "be", "at", "ie", "nz", "za",
        "br", "mx", "tv", "io", "co", "me", "ly", "cc", "ws", "eu", "asia", "mobi", "name", "pro"};
    return tlds.count(lower) > 0 || fileExtensions().count(lower) > 0;
}

// Letters after a number that stay attached ("9th", "1990s"); any other
// letters split off as a unit or word ("5 pm", "65 k", "2.7 m").
bool keepsNumberSuffix(const std::string &lower, bool singleUpper)
{
    if (lower == "st" || lower == "nd" || lower == "rd" || lower == "th" || lower == "s")
        return true;
    // Codes such as "18T" or "83N" stay whole; K, M, B, C, F are units.
    return singleUpper && lower != "k" && lower != "m" && lower != "b" && lower != "c" && lower != "f";
}

// Contractions written without an apostrophe, and EWT's other multiword
// tokens, mapped to the lengths of their words ("dont" -> "do" + "nt").
const std::unordered_map<std::string, std::vector<int>> &fusedWords()
{
    static const std::unordered_map<std::string, std::vector<int>> m = {
        {"gonna", {3, 2}}, {"gotta", {3, 2}}, {"wanna", {3, 2}}, {"outta", {3, 2}},
        {"cannot", {3, 3}}, {"dunno", {2, 1, 2}}, {"sorta", {4, 1}}, {"gimme", {3, 2}},
        {"lemme", {3, 2}}, {"dont", {2, 2}}, {"cant", {2, 2}}, {"wont", {2, 2}}, {"didnt", {3, 2}},
        {"doesnt", {4, 2}}, {"couldnt", {5, 2}}, {"wouldnt", {5, 2}}, {"shouldnt", {6, 2}},
        {"isnt", {2, 2}}, {"wasnt", {3, 2}}, {"arent", {3, 2}}, {"werent", {4, 2}},
        {"havent", {4, 2}}, {"hasnt", {3, 2}}, {"hadnt", {3, 2}}, {"aint", {2, 2}}, {"im", {1, 1}},
        {"ive", {1, 2}}, {"thats", {4, 1}}, {"theres", {5, 1}}, {"whats", {4, 1}}, {"youre", {3, 2}},
        {"theyre", {4, 2}}, {"youve", {3, 2}}, {"theyve", {4, 2}}, {"youll", {3, 2}},
        {"theyll", {4, 2}}, {"hes", {2, 1}}, {"shes", {3, 1}}, {"lets", {3, 1}}, {"elses", {4, 1}}};
    return m;
}

const WordSet &clitics()
{
    static const WordSet s = {"s", "re", "ve", "ll", "d", "m"};
    return s;
}

// Common sentence-initial words: "etc. The" ends a sentence, "U.S. Army"
// does not.
bool isCommonSentenceStarter(std::string_view w)
{
    static const WordSet s = {"The", "This", "That", "These", "Those", "It", "I", "We", "You", "He", "She",
                              "They", "There", "But", "And", "So", "If", "In", "On", "At", "As", "For",
                              "My", "Our", "Your", "His", "Her", "Their", "A", "An", "What", "When",
                              "Where", "Why", "How", "Please", "Thanks", "Thank", "Also", "However",
                              "Then", "Now", "Is", "Are", "Do", "Does", "Can", "Will", "Would", "Let"};
    return s.count(std::string(w)) > 0;
}

// Words after which "its" is "it s" (a misspelt "it's"): they cannot follow
// the possessive ("its a", "its not", "its really").
const WordSet &wordsAfterContractedIts()
{
    static const WordSet s = {
        "a", "an", "the", "not", "really", "simply", "very", "all", "like", "still", "kind", "sort",
        "in", "now", "definitely", "for", "also", "only", "just", "been", "getting", "going", "gonna",
        "nothing", "your", "my", "called", "probably", "prolly", "always", "never", "too", "pretty",
        "quite", "actually", "ok", "okay", "because", "what", "how", "that", "this", "there", "at",
        "on", "to", "from", "between", "about", "is", "was", "so", "time"};
    return s;
}

// Degrees written with inner periods, which stay one word: "Ph.D.", "M.Sc.".
const WordSet &degreeAbbreviations()
{
    static const WordSet s = {"ph.d", "m.sc", "b.sc", "ed.d", "psy.d", "d.phil", "m.phil"};
    return s;
}

// Newsgroup hierarchies that start a dotted name in lower case ("alt.animals",
// "comp.sources.unix").
const WordSet &newsgroupHierarchies()
{
    static const WordSet s = {"alt", "comp", "misc", "rec", "sci", "soc", "talk", "news",
                              "ba", "humanities", "microsoft", "uk", "aus", "can"};
    return s;
}

// Abbreviations among otherAbbreviations() that are ordinary words too: in
// lower case before a capital their period ends the sentence
// (Scanner::isAbbreviation).
const WordSet &abbreviationsThatAreWords()
{
    static const WordSet s = {"sat", "sun", "wed", "mar", "mon", "min", "max", "ill", "miss",
                              "mass", "wash", "ore", "sec", "rec", "info", "ref", "la", "pa",
                              "mo", "est", "dom", "co", "ca", "que", "fax", "spec", "para",
                              "conf", "mob", "misc", "ps", "hr", "yr", "rd", "ave", "penn"};
    return s;
}

// Abbreviations (lower case, with their periods) that the sentence splitter lets
// end a sentence although the scanner keeps them whole (abbreviationMayEndSentence
// in tokenizer.cpp).
const WordSet &sentenceEndingAbbreviations()
{
    static const WordSet s = {"etc.", "a.m.", "p.m.", "u.s.", "inc.", "ltd.", "co.", "corp.", "jr.", "sr.",
                              "u.k.", "d.c.", "u.s.a.", "l.l.c.", "e.t.c."};
    return s;
}

} // namespace treelens::tokenizer
