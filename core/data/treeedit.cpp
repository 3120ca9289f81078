#include "core/data/treeedit.h"
#include "core/base/strings.h"

#include <algorithm>
#include <cctype>
#include <sstream>

namespace treelens {

namespace {

bool parseNumber(const std::string &s, int &out)
{
    if (s.empty() || s.size() > 6 || !std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c); }))
        return false;
    return parseInt(s, out);
}

/// "I-J" or "I" (one word) into first, last.
bool parseSpan(const std::string &s, int &first, int &last)
{
    const auto dash = s.find('-');
    if (dash == std::string::npos) {
        if (!parseNumber(s, first))
            return false;
        last = first;
        return true;
    }
    return parseNumber(s.substr(0, dash), first) && parseNumber(s.substr(dash + 1), last);
}

/// A relation or phrase label: non-empty, no spaces or parentheses (PTB brackets, CoNLL-U columns).
Status checkLabel(const std::string &label, const char *what)
{
    if (label.empty())
        return Error{std::string("an empty ") + what};
    for (unsigned char c : label)
        if (std::isspace(c) || c == '(' || c == ')')
            return Error{std::string("the ") + what + " '" + label + "' has a space or a parenthesis"};
    return {};
}

std::string wordName(int w, const std::vector<std::string> &words)
{
    std::string s = std::to_string(w);
    if (w >= 1 && w <= static_cast<int>(words.size()))
        s += " '" + words[static_cast<std::size_t>(w - 1)] + "'";
    return s;
}

std::string spanName(int first, int last)
{
    return first == last ? std::to_string(first) : std::to_string(first) + "-" + std::to_string(last);
}

/// "(NP 3-5)": a node as the messages name it (words from 1).
std::string bracketName(const ConstituencyTree &t, int node)
{
    const auto [s, e] = t.span(node);
    return "(" + t.node(node).label + " " + spanName(s + 1, e) + ")";
}

bool isPhrase(const ConstituencyTree &t, int i)
{
    return !t.node(i).terminal && !t.isPreterminal(i);
}

int depthOf(const ConstituencyTree &t, int i)
{
    int d = 0;
    for (int p = t.node(i).parent; p >= 0; p = t.node(p).parent)
        ++d;
    return d;
}

const char *kindName(TreeEdit::Kind k)
{
    switch (k) {
    case TreeEdit::Kind::Head: return "head";
    case TreeEdit::Kind::Label: return "label";
    case TreeEdit::Kind::Bracket: return "bracket";
    case TreeEdit::Kind::Unbracket: return "unbracket";
    case TreeEdit::Kind::Relabel: return "relabel";
    }
    return "";
}

} // namespace

Result<TreeEdit> parseTreeEdit(const std::string &text)
{
    std::istringstream in(text);
    std::vector<std::string> parts;
    for (std::string p; in >> p;)
        parts.push_back(p);
    const std::string quoted = "edit '" + text + "'";
    if (parts.empty())
        return Error{"an empty edit (expected: head W=H, label W=REL, bracket I-J LABEL, unbracket I-J, relabel I-J LABEL)"};
    TreeEdit e;
    const std::string &verb = parts[0];
    if (verb == "head" || verb == "label") {
        e.kind = verb == "head" ? TreeEdit::Kind::Head : TreeEdit::Kind::Label;
        const std::string expected = verb == "head" ? "head W=H (words from 1, 0 = root)" : "label W=REL";
        if (parts.size() != 2)
            return Error{quoted + ": expected " + expected};
        const auto eq = parts[1].find('=');
        if (eq == std::string::npos || !parseNumber(parts[1].substr(0, eq), e.word))
            return Error{quoted + ": expected " + expected};
        const std::string rhs = parts[1].substr(eq + 1);
        if (e.kind == TreeEdit::Kind::Head) {
            if (!parseNumber(rhs, e.head))
                return Error{quoted + ": expected " + expected};
        } else {
            e.label = rhs;
            if (auto st = checkLabel(e.label, "relation"); !st)
                return Error{quoted + ": " + st.message(), st.code()};
        }
        if (e.word < 1)
            return Error{quoted + ": words are numbered from 1"};
        return e;
    }
    if (verb == "bracket" || verb == "relabel" || verb == "unbracket") {
        e.kind = verb == "bracket" ? TreeEdit::Kind::Bracket : verb == "relabel" ? TreeEdit::Kind::Relabel : TreeEdit::Kind::Unbracket;
        const bool labelled = e.kind != TreeEdit::Kind::Unbracket;
        const std::string expected = verb + (labelled ? " I-J LABEL" : " I-J") + " (words from 1, I-J inclusive)";
        if (parts.size() != (labelled ? 3u : 2u) || !parseSpan(parts[1], e.first, e.last))
            return Error{quoted + ": expected " + expected};
        if (e.first < 1 || e.last < e.first)
            return Error{quoted + ": the span " + parts[1] + " is not I-J with 1 <= I <= J"};
        if (labelled) {
            e.label = parts[2];
            if (auto st = checkLabel(e.label, "label"); !st)
                return Error{quoted + ": " + st.message(), st.code()};
        }
        return e;
    }
    return Error{quoted + ": unknown edit '" + verb + "' (head, label, bracket, unbracket, relabel)"};
}

std::string toString(const TreeEdit &e)
{
    switch (e.kind) {
    case TreeEdit::Kind::Head: return "head " + std::to_string(e.word) + "=" + std::to_string(e.head);
    case TreeEdit::Kind::Label: return "label " + std::to_string(e.word) + "=" + e.label;
    case TreeEdit::Kind::Unbracket: return "unbracket " + std::to_string(e.first) + "-" + std::to_string(e.last);
    case TreeEdit::Kind::Bracket:
    case TreeEdit::Kind::Relabel:
        return std::string(kindName(e.kind)) + " " + std::to_string(e.first) + "-" + std::to_string(e.last) + " " + e.label;
    }
    return {};
}

Status applyDependencyEdit(DependencyTree &tree, const TreeEdit &edit, const std::vector<std::string> &words)
{
    const std::string what = toString(edit) + ": ";
    const int n = static_cast<int>(tree.size());
    if (!edit.dependency())
        return Error{what + "not an edit of a dependency tree"};
    if (auto st = tree.validate(); !st)
        return Error{what + "the tree is not valid before the edit: " + st.message(), st.code()};
    if (edit.word < 1 || edit.word > n)
        return Error{what + "word " + std::to_string(edit.word) + " is outside the sentence's " + std::to_string(n) + " words"};
    const int w = edit.word;
    auto headOf = [&tree](int word) { return tree.heads[static_cast<std::size_t>(word - 1)]; };
    if (edit.kind == TreeEdit::Kind::Label) {
        if (auto st = checkLabel(edit.label, "relation"); !st)
            return Error{what + st.message(), st.code()};
        const std::string &old = tree.deprels[static_cast<std::size_t>(w - 1)];
        if (headOf(w) == 0)
            return Error{what + "word " + wordName(w, words) + " is the root: its relation is root (make another word the root "
                                "first: head V=0)"};
        if (edit.label == "root")
            return Error{what + "only the root word has the relation root (make word " + std::to_string(w) + " the root: head " +
                         std::to_string(w) + "=0)"};
        if (old == edit.label)
            return Error{what + "word " + wordName(w, words) + "'s relation is " + old + " already"};
        tree.deprels[static_cast<std::size_t>(w - 1)] = edit.label;
        return {};
    }
    const int h = edit.head;
    if (h < 0 || h > n)
        return Error{what + "head " + std::to_string(h) + " is outside the sentence (0 = root, 1.." + std::to_string(n) + ")"};
    if (h == w)
        return Error{what + "a word is not its own head"};
    if (headOf(w) == h)
        return Error{what + "word " + wordName(w, words) + "'s head is " + (h == 0 ? std::string("the root") : wordName(h, words)) +
                     " already"};
    if (h == 0) {
        // W becomes the root; the former root takes W's relation under W.
        int root = 0;
        for (int i = 1; i <= n; ++i)
            if (headOf(i) == 0)
                root = i;
        tree.heads[static_cast<std::size_t>(root - 1)] = w;
        tree.deprels[static_cast<std::size_t>(root - 1)] = tree.deprels[static_cast<std::size_t>(w - 1)];
        tree.heads[static_cast<std::size_t>(w - 1)] = 0;
        tree.deprels[static_cast<std::size_t>(w - 1)] = "root";
        return {};
    }
    if (headOf(w) == 0)
        return Error{what + "word " + wordName(w, words) + " is the root: a tree keeps one root, so it gets no head (make another "
                            "word the root first: head V=0)"};
    // A cycle: H lies below W. The path from W through H up to W names it.
    std::vector<int> up;
    for (int cur = h; cur != 0; cur = headOf(cur)) {
        up.push_back(cur);
        if (cur == w) {
            std::string cycle = wordName(w, words);
            for (int v : up)
                cycle += " \xe2\x86\x92 " + wordName(v, words);
            return Error{what + "makes a cycle: " + cycle + " (each arrow points to the word's head)"};
        }
        if (static_cast<int>(up.size()) > n)
            break; // not a tree before the edit (validate() said it was)
    }
    tree.heads[static_cast<std::size_t>(w - 1)] = h;
    return {};
}

int constituentOver(const ConstituencyTree &tree, int first, int last)
{
    if (tree.empty())
        return -1;
    int best = -1, bestDepth = -1;
    for (int i = 0; i < static_cast<int>(tree.nodes().size()); ++i) {
        if (tree.node(i).parent == -2 || !isPhrase(tree, i))
            continue;
        const auto [s, e] = tree.span(i);
        if (s != first - 1 || e != last || s == e)
            continue;
        const int d = depthOf(tree, i);
        if (d > bestDepth) {
            best = i;
            bestDepth = d;
        }
    }
    return best;
}

Status applyConstituencyEdit(ConstituencyTree &tree, const TreeEdit &edit)
{
    const std::string what = toString(edit) + ": ";
    if (edit.dependency())
        return Error{what + "not an edit of a constituency tree"};
    if (tree.empty())
        return Error{what + "the sentence has no constituency tree"};
    const int n = tree.wordCount();
    if (edit.first < 1 || edit.last > n || edit.first > edit.last)
        return Error{what + "words " + spanName(edit.first, edit.last) + " are outside the sentence's " + std::to_string(n) +
                     " words"};
    const int s = edit.first - 1, e = edit.last;
    const int existing = constituentOver(tree, edit.first, edit.last);
    if (edit.kind == TreeEdit::Kind::Bracket) {
        if (auto st = checkLabel(edit.label, "label"); !st)
            return Error{what + st.message(), st.code()};
        if (existing >= 0)
            return Error{what + "words " + spanName(edit.first, edit.last) + " have a bracket already, " +
                         bracketName(tree, existing) + " (relabel it)"};
        // The smallest phrase containing the span; its children inside the span move under the new one.
        int parent = tree.contentRoot();
        for (bool descended = true; descended;) {
            descended = false;
            for (int c : tree.node(parent).children) {
                if (!isPhrase(tree, c))
                    continue;
                const auto [cs, ce] = tree.span(c);
                if (cs <= s && e <= ce && cs < ce) {
                    parent = c;
                    descended = true;
                    break;
                }
            }
        }
        auto &kids = tree.node(parent).children;
        int from = -1, to = -1; // the children inside the span, [from, to]
        for (int k = 0; k < static_cast<int>(kids.size()); ++k) {
            const auto [cs, ce] = tree.span(kids[static_cast<std::size_t>(k)]);
            if (cs == ce || ce <= s || cs >= e)
                continue; // traces and children outside
            if (cs < s || ce > e)
                return Error{what + "a bracket over words " + spanName(edit.first, edit.last) + " would cross " +
                             bracketName(tree, kids[static_cast<std::size_t>(k)])};
            if (from < 0)
                from = k;
            to = k;
        }
        if (from < 0)
            return Error{what + "no word of the span is under " + bracketName(tree, parent)};
        const std::vector<int> moved(kids.begin() + from, kids.begin() + to + 1);
        const int fresh = tree.addNode(edit.label, parent); // appended to parent's children: put it in place
        auto &pk = tree.node(parent).children;
        pk.pop_back();
        pk.erase(pk.begin() + from, pk.begin() + to + 1);
        pk.insert(pk.begin() + from, fresh);
        for (int c : moved) {
            tree.node(c).parent = fresh;
            tree.node(fresh).children.push_back(c);
        }
        tree.compact();
        return {};
    }
    if (existing < 0)
        return Error{what + "no bracket covers exactly words " + spanName(edit.first, edit.last)};
    if (edit.kind == TreeEdit::Kind::Relabel) {
        if (auto st = checkLabel(edit.label, "label"); !st)
            return Error{what + st.message(), st.code()};
        if (tree.node(existing).label == edit.label)
            return Error{what + bracketName(tree, existing) + " is labelled " + edit.label + " already"};
        tree.node(existing).label = edit.label;
        return {};
    }
    // Unbracket: its children go to its parent, in its place.
    if (existing == tree.root() || existing == tree.contentRoot() || tree.node(existing).parent < 0)
        return Error{what + "the whole sentence's bracket " + bracketName(tree, existing) + " stays"};
    const int parent = tree.node(existing).parent;
    const std::vector<int> kids = tree.node(existing).children;
    auto &pk = tree.node(parent).children;
    const auto at = std::find(pk.begin(), pk.end(), existing);
    const auto pos = at - pk.begin();
    pk.erase(at);
    pk.insert(pk.begin() + pos, kids.begin(), kids.end());
    for (int c : kids)
        tree.node(c).parent = parent;
    tree.node(existing).children.clear();
    tree.node(existing).parent = -2; // dropped by compact()
    tree.compact();
    return {};
}

Status applyTreeEdit(Sentence &sentence, const TreeEdit &edit)
{
    const bool dep = edit.dependency();
    const std::string key = dep ? "dependency_source" : "constituency_source";
    if (dep ? !sentence.dependency : !sentence.constituency)
        return Error{toString(edit) + ": the sentence has no " + (dep ? "dependency" : "constituency") + " tree"};
    // Edited on copies: an error leaves the sentence as it was.
    if (dep) {
        DependencyTree t = *sentence.dependency;
        if (auto st = applyDependencyEdit(t, edit, sentence.words()); !st)
            return st;
        sentence.dependency = std::move(t);
    } else {
        ConstituencyTree t = *sentence.constituency;
        if (auto st = applyConstituencyEdit(t, edit); !st)
            return st;
        sentence.constituency = std::move(t);
    }
    const std::string prefix = dep ? "dependency" : "constituency";
    if (sentence.metadataValue(key) != "edited") {
        std::string from = sentence.metadataValue(key);
        if (from.empty())
            from = sentence.metadataValue("parser").empty() ? "input" : "parsed";
        sentence.setMetadata(prefix + "_edited_from", from);
        sentence.setMetadata(key, "edited");
        sentence.setMetadata(prefix + "_edits", "0");
    }
    // A count a file may hold in any spelling: what is not a count starts again from 0.
    int edits = 0;
    if (!parseInt(sentence.metadataValue(prefix + "_edits"), edits) || edits < 0)
        edits = 0;
    sentence.setMetadata(prefix + "_edits", std::to_string(edits + 1));
    return {};
}

std::string editedTreeNote(const Sentence &sentence, bool constituency)
{
    const std::string prefix = constituency ? "constituency" : "dependency";
    if (sentence.metadataValue(prefix + "_source") != "edited")
        return {};
    const std::string from = sentence.metadataValue(prefix + "_edited_from");
    const std::string count = sentence.metadataValue(prefix + "_edits");
    std::string note = "edited (from the " + (from.empty() ? std::string("input") : from) + " tree";
    if (!count.empty())
        note += ", " + count + (count == "1" ? " edit" : " edits");
    return note + ")";
}

} // namespace treelens
