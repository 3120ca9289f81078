// dependencies: Link Grammar linkage -> UD-style dependency tree; see
// dependencies.h.
#include "core/parsing/linkgrammar/dependencies.h"

#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>

#include "core/parsing/linkgrammar/rules.h"
#include "core/parsing/linkgrammar/wordclasses.h"

namespace treelens::linkgrammar {
namespace {

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

} // namespace

DependencyTree buildDependencies(const std::vector<LgWord> &words, const std::vector<LgLink> &links,
                                 const Alignment &alignment, const std::vector<TokenFacts> &facts)
{
    DependencyBuilder deps(words, links, alignment, facts);
    return deps.build();
}

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

} // namespace treelens::linkgrammar
