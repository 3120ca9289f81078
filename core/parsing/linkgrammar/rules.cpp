// rules: Link Grammar link types -> UD relations; see rules.h.
#include "core/parsing/linkgrammar/rules.h"

#include "core/parsing/linkgrammar/wordclasses.h"

namespace treelens::linkgrammar {
namespace {

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

} // namespace

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

} // namespace treelens::linkgrammar
