#include "core/eval/makepairs.h"

#include <cctype>
#include <cstdlib>
#include <map>

#include <nlohmann/json.hpp>

#include "core/base/strings.h"

namespace treelens {

namespace {

/// A feature's value in a CoNLL-U FEATS column ("Number=Sing|Person=3"), "" when absent.
std::string feature(const std::string &feats, const std::string &name)
{
    for (std::string_view f : splitView(feats, '|')) {
        const auto eq = f.find('=');
        if (eq != std::string_view::npos && f.substr(0, eq) == name)
            return std::string(f.substr(eq + 1));
    }
    return {};
}

bool tagIs(const Token &t, std::initializer_list<const char *> tags)
{
    for (const char *tag : tags)
        if (t.xpos == tag)
            return true;
    return false;
}

/// A noun's or pronoun's number: its Number feature, else the PTB tag (NN/NNP Sing, NNS/NNPS Plur).
std::string nominalNumber(const Token &t)
{
    std::string n = feature(t.feats, "Number");
    if (n == "Sing" || n == "Plur")
        return n;
    if (tagIs(t, {"NN", "NNP"}))
        return "Sing";
    if (tagIs(t, {"NNS", "NNPS"}))
        return "Plur";
    return {};
}

bool isNoun(const Token &t) { return t.upos == "NOUN" || t.upos == "PROPN" || t.xpos.rfind("NN", 0) == 0; }

std::string lower(const std::string &s) { return toLowerAscii(s); }

/// `form` written as `model` is (an upper-case first letter, or all capitals).
std::string caseLike(std::string form, const std::string &model)
{
    if (model.empty() || form.empty())
        return form;
    bool allUpper = model.size() > 1;
    for (char c : model)
        if (std::isalpha(static_cast<unsigned char>(c)) && !std::isupper(static_cast<unsigned char>(c)))
            allUpper = false;
    if (allUpper) {
        for (char &c : form)
            c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    } else if (std::isupper(static_cast<unsigned char>(model[0]))) {
        form[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(form[0])));
    }
    return form;
}

bool alphabetic(const std::string &s)
{
    if (s.empty())
        return false;
    for (char c : s)
        if (!std::isalpha(static_cast<unsigned char>(c)))
            return false;
    return true;
}

/// What the treebank says a lemma's finite present forms are.
struct Lexicon {
    std::map<std::string, std::map<std::string, int>> singular, plural; // lemma -> form -> count

    static std::string mostFrequent(const std::map<std::string, int> &forms)
    {
        std::string best;
        int n = 0;
        for (const auto &[form, count] : forms)
            if (count > n) {
                best = form;
                n = count;
            }
        return best;
    }
    std::string singularOf(const std::string &lemma) const
    {
        const auto it = singular.find(lemma);
        return it == singular.end() ? std::string() : mostFrequent(it->second);
    }
    std::string pluralOf(const std::string &lemma) const
    {
        const auto it = plural.find(lemma);
        return it == plural.end() ? std::string() : mostFrequent(it->second);
    }
};

/// A finite present verb's number by its tag (VBZ Sing, VBP Plur) or its features
/// (VerbForm=Fin, Tense=Pres, Number); "" for anything else.
std::string presentNumber(const Token &t)
{
    if (t.xpos == "VBZ")
        return "Sing";
    if (t.xpos == "VBP")
        return "Plur";
    if ((t.xpos.empty() || t.xpos == "_") && feature(t.feats, "VerbForm") == "Fin" && feature(t.feats, "Tense") == "Pres")
        return feature(t.feats, "Number");
    return {};
}

Lexicon learnLexicon(const std::vector<Sentence> &sentences)
{
    Lexicon lex;
    for (const Sentence &s : sentences)
        for (const Token &t : s.tokens) {
            const std::string lemma = lower(t.lemma), form = lower(t.text);
            if (!alphabetic(lemma) || !alphabetic(form) || lemma == "be")
                continue;
            const std::string n = presentNumber(t);
            if (n == "Sing")
                ++lex.singular[lemma][form];
            else if (n == "Plur")
                ++lex.plural[lemma][form];
        }
    return lex;
}

const std::map<std::string, std::string> &irregular()
{
    static const std::map<std::string, std::string> m{{"is", "are"},   {"are", "is"},   {"was", "were"}, {"were", "was"},
                                                      {"has", "have"}, {"have", "has"}, {"does", "do"},  {"do", "does"}};
    return m;
}

class Maker {
public:
    Maker(const std::vector<Sentence> &sentences, PairPhenomenon p, const std::vector<bool> &from)
        : m_sentences(sentences), m_phenomenon(p), m_from(from)
    {
        if (p == PairPhenomenon::Agreement)
            m_lex = learnLexicon(sentences);
    }

    MadePairs run()
    {
        for (std::size_t k = 0; k < m_sentences.size(); ++k) {
            const Sentence &s = m_sentences[k];
            if (!m_from.empty() && (k >= m_from.size() || !m_from[k]))
                continue;
            if (!s.dependency || s.dependency->size() != s.tokens.size()) {
                skip("no dependency tree");
                continue;
            }
            for (int i = 0; i < static_cast<int>(s.tokens.size()); ++i)
                if (m_phenomenon == PairPhenomenon::Agreement)
                    agreement(s, i);
                else
                    determiner(s, i);
        }
        for (const char *reason : kReasons)
            if (m_skipped.count(reason))
                m_out.skipped.emplace_back(reason, m_skipped[reason]);
        return std::move(m_out);
    }

private:
    static constexpr const char *kReasons[] = {"no dependency tree",
                                               "no subject in the tree",
                                               "the subject's number is unknown",
                                               "first or second person subject",
                                               "was/were in a conditional clause",
                                               "subject and verb differ in number in the treebank",
                                               "a contraction or 'am'",
                                               "no other-number form in the treebank",
                                               "the noun's number is unknown",
                                               "determiner and noun differ in number in the treebank"};

    void skip(const char *reason) { ++m_skipped[reason]; }

    /// The verb's other-number form, "" when it cannot be inflected (counted).
    std::string otherForm(const Token &v, const std::string &number)
    {
        const std::string form = lower(v.text);
        if (const auto it = irregular().find(form); it != irregular().end())
            return it->second;
        if (!alphabetic(form)) {
            skip("a contraction or 'am'");
            return {};
        }
        const std::string lemma = lower(v.lemma);
        std::string other = number == "Sing" ? m_lex.pluralOf(lemma) : m_lex.singularOf(lemma);
        // An English verb's plural present is its base form: the lemma, when the treebank
        // never wrote that plural.
        if (other.empty() && number == "Sing" && alphabetic(lemma) && lemma != "be")
            other = lemma;
        if (other.empty() || other == form)
            skip("no other-number form in the treebank");
        return other == form ? std::string() : other;
    }

    void agreement(const Sentence &s, int v)
    {
        const Token &verb = s.tokens[static_cast<std::size_t>(v)];
        const std::string low = lower(verb.text);
        std::string number = presentNumber(verb);
        if (low == "was" || low == "were")
            number = low == "was" ? "Sing" : "Plur";
        if (number.empty())
            return; // not a finite present verb, nor was/were
        if (low == "am" || !alphabetic(low)) {
            skip("a contraction or 'am'");
            return;
        }
        const DependencyTree &tree = *s.dependency;
        const std::string &rel = tree.deprels[static_cast<std::size_t>(v)];
        // An auxiliary or copula agrees with the subject of the word it depends on.
        int clause = (rel == "aux" || rel == "aux:pass" || rel == "cop") ? tree.heads[static_cast<std::size_t>(v)] - 1 : v;
        if (clause >= static_cast<int>(s.tokens.size()))
            clause = -1;
        int subject = -1;
        if (clause >= 0)
            for (int c : tree.children(clause))
                if (c != v && (tree.deprels[static_cast<std::size_t>(c)] == "nsubj" || tree.deprels[static_cast<std::size_t>(c)] == "nsubj:pass")) {
                    subject = c;
                    break;
                }
        if (subject < 0) {
            skip("no subject in the tree");
            return;
        }
        // "if he was" -> "if he were" is grammatical (the irrealis were): not a bad sentence.
        if (low == "was" || low == "were")
            for (int c : tree.children(clause)) {
                const std::string mark = lower(s.tokens[static_cast<std::size_t>(c)].text);
                if (tree.deprels[static_cast<std::size_t>(c)] == "mark" && (mark == "if" || mark == "though" || mark == "unless" ||
                                                                             mark == "whether" || mark == "as"))
                    return skip("was/were in a conditional clause");
            }
        const Token &subj = s.tokens[static_cast<std::size_t>(subject)];
        const std::string person = feature(subj.feats, "Person");
        if (person == "1" || person == "2" || lower(subj.text) == "i" || lower(subj.text) == "you") {
            skip("first or second person subject");
            return;
        }
        const std::string subjNumber = nominalNumber(subj);
        if (subjNumber.empty()) {
            skip("the subject's number is unknown");
            return;
        }
        if (subjNumber != number) {
            skip("subject and verb differ in number in the treebank");
            return;
        }
        const std::string other = otherForm(verb, number);
        if (other.empty())
            return;
        emit(s, v, subject, caseLike(other, verb.text), subjNumber);
    }

    void determiner(const Sentence &s, int d)
    {
        static const std::map<std::string, std::pair<std::string, std::string>> dets{
            {"this", {"these", "Sing"}}, {"these", {"this", "Plur"}}, {"that", {"those", "Sing"}}, {"those", {"that", "Plur"}}};
        const Token &det = s.tokens[static_cast<std::size_t>(d)];
        const auto it = dets.find(lower(det.text));
        const DependencyTree &tree = *s.dependency;
        if (it == dets.end() || tree.deprels[static_cast<std::size_t>(d)] != "det")
            return;
        const int noun = tree.heads[static_cast<std::size_t>(d)] - 1;
        if (noun < 0 || noun == d || noun >= static_cast<int>(s.tokens.size()) || !isNoun(s.tokens[static_cast<std::size_t>(noun)]))
            return;
        const std::string nounNumber = nominalNumber(s.tokens[static_cast<std::size_t>(noun)]);
        if (nounNumber.empty()) {
            skip("the noun's number is unknown");
            return;
        }
        if (nounNumber != it->second.second) {
            skip("determiner and noun differ in number in the treebank");
            return;
        }
        emit(s, d, noun, caseLike(it->second.first, det.text), nounNumber);
    }

    void emit(const Sentence &s, int changed, int controller, const std::string &replacement, const std::string &number)
    {
        MadePair p;
        p.sentenceId = s.id;
        for (const Token &t : s.tokens)
            p.goodWords.push_back(t.text);
        p.badWords = p.goodWords;
        p.badWords[static_cast<std::size_t>(changed)] = replacement;
        p.changed = changed + 1;
        p.controller = controller + 1;
        p.distance = std::abs(changed - controller);
        p.goodNumber = number;
        for (int k = std::min(changed, controller) + 1; k < std::max(changed, controller); ++k) {
            const Token &t = s.tokens[static_cast<std::size_t>(k)];
            const std::string n = isNoun(t) ? nominalNumber(t) : std::string();
            if (!n.empty() && n != number)
                p.attractors.push_back(k + 1);
        }
        m_out.pairs.push_back(std::move(p));
    }

    const std::vector<Sentence> &m_sentences;
    PairPhenomenon m_phenomenon;
    Lexicon m_lex;
    MadePairs m_out;
    std::map<std::string, int> m_skipped;
    const std::vector<bool> &m_from;
};

} // namespace

Result<PairPhenomenon> parsePairPhenomenon(const std::string &name)
{
    if (name == "agreement")
        return PairPhenomenon::Agreement;
    if (name == "determiner")
        return PairPhenomenon::Determiner;
    return makeError("--phenomenon", "'" + name + "' is not agreement or determiner");
}

std::string pairPhenomenonName(PairPhenomenon p) { return p == PairPhenomenon::Agreement ? "agreement" : "determiner"; }

MadePairs makePairs(const std::vector<Sentence> &sentences, PairPhenomenon phenomenon, const std::vector<bool> &from)
{
    return Maker(sentences, phenomenon, from).run();
}

std::string madePairJson(const MadePair &pair, PairPhenomenon phenomenon, int number)
{
    const bool agreement = phenomenon == PairPhenomenon::Agreement;
    nlohmann::ordered_json j;
    j["sentence_good"] = join(pair.goodWords, " ");
    j["sentence_bad"] = join(pair.badWords, " ");
    j["UID"] = agreement ? "treebank_subject_verb_agreement" : "treebank_determiner_noun_agreement";
    j["field"] = "syntax";
    j["linguistics_term"] = agreement ? "subject_verb_agreement" : "determiner_noun_agreement";
    j["pairID"] = std::to_string(number);
    j["source"] = pair.sentenceId;
    j[agreement ? "subject" : "noun"] = pair.controller;
    j[agreement ? "verb" : "determiner"] = pair.changed;
    j["number"] = pair.goodNumber;
    j["distance"] = pair.distance;
    j["attractors"] = pair.attractors.size();
    j["attractor_words"] = pair.attractors;
    return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

} // namespace treelens
