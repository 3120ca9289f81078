#include "core/formats/ptb.h"

#include <functional>

#include "core/base/fileio.h"
#include "core/base/strings.h"
#include "core/base/utf8.h"
#include "core/base/inputlimits.h"

namespace treelens {

namespace {

bool isSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

class PtbReader {
public:
    PtbReader(std::string_view text, const std::string &source, const PtbReadOptions &opt)
        : m_text(text), m_source(source), m_opt(opt) {}

    Result<std::vector<ConstituencyTree>> run()
    {
        auto checked = checkedText(m_text, m_source);
        if (!checked)
            return checked.error();
        m_text = *checked;
        std::vector<ConstituencyTree> out;
        while (true) {
            skipSpace();
            if (m_pos >= m_text.size())
                break;
            if (m_text[m_pos] != '(')
                return fail(m_pos, "expected '(' at the start of a tree, found '" + std::string(1, m_text[m_pos]) + "'");
            ConstituencyTree tree;
            const std::size_t start = m_pos;
            if (!parseNode(tree, -1, 0))
                return Error{m_error};
            tree.renumberWords();
            // What stripping takes away, counted for the sentence's metadata: the
            // traces, then the function tags and indices of the labels that remain
            // (a phrase that held only a trace goes with it, uncounted).
            std::pair<int, int> stripped{0, 0};
            auto nonTerminals = [&tree](auto &&each) {
                for (int i = 0; i < static_cast<int>(tree.nodes().size()); ++i)
                    if (!tree.node(i).terminal)
                        each(tree.node(i));
            };
            if (m_opt.stripTraces) {
                nonTerminals([&](const ConstituencyNode &n) { stripped.first += n.label == "-NONE-" ? 1 : 0; });
                tree.stripTraces();
                if (tree.wordCount() == 0)
                    return fail(start, "tree has no words once traces are removed");
            }
            if (m_opt.stripFunctionTags) {
                nonTerminals([&](const ConstituencyNode &n) {
                    stripped.second += ConstituencyTree::baseLabel(n.label) != n.label ? 1 : 0;
                });
                tree.stripFunctionTags();
            }
            m_stripped.push_back(stripped);
            m_lines.push_back(lineAt(start));
            out.push_back(std::move(tree));
        }
        return out;
    }

private:
    // Line of a byte offset; offsets must not decrease between calls (trees are read in order).
    int lineAt(std::size_t offset)
    {
        for (; m_countedTo < offset && m_countedTo < m_text.size(); ++m_countedTo)
            m_countedLine += m_text[m_countedTo] == '\n';
        return m_countedLine;
    }

    void skipSpace()
    {
        while (m_pos < m_text.size() && isSpace(m_text[m_pos]))
            ++m_pos;
    }

    std::string_view readAtom()
    {
        const std::size_t b = m_pos;
        while (m_pos < m_text.size() && !isSpace(m_text[m_pos]) && m_text[m_pos] != '(' && m_text[m_pos] != ')')
            ++m_pos;
        return m_text.substr(b, m_pos - b);
    }

    // Parses "(LABEL child...)" at m_pos; children are atoms (terminals) or nodes.
    bool parseNode(ConstituencyTree &tree, int parent, int depth)
    {
        if (depth > m_opt.maxDepth) {
            setError(m_pos, "trees nested deeper than " + std::to_string(m_opt.maxDepth) + " levels are not supported");
            return false;
        }
        const std::size_t open = m_pos;
        ++m_pos; // '('
        skipSpace();
        std::string label;
        if (m_pos < m_text.size() && m_text[m_pos] != '(' && m_text[m_pos] != ')')
            label = std::string(readAtom());
        const int self = tree.addNode(label, parent);
        int children = 0;
        while (true) {
            skipSpace();
            if (m_pos >= m_text.size()) {
                setError(open, "unbalanced brackets: '(' is never closed");
                return false;
            }
            const char c = m_text[m_pos];
            if (c == ')') {
                ++m_pos;
                break;
            }
            if (c == '(') {
                if (!parseNode(tree, self, depth + 1))
                    return false;
            } else {
                const std::string_view atom = readAtom();
                tree.addNode(std::string(atom), self, true);
            }
            ++children;
        }
        if (children == 0) {
            setError(open, label.empty() ? "empty brackets '()'" : "constituent '" + label + "' has no children");
            return false;
        }
        if (parent < 0) {
            // A stray ')' right after a complete tree means unbalanced input.
            skipSpace();
            if (m_pos < m_text.size() && m_text[m_pos] == ')') {
                setError(m_pos, "unbalanced brackets: unexpected ')'");
                return false;
            }
        }
        return true;
    }

    void setError(std::size_t offset, const std::string &what)
    {
        m_error = m_source + ":" + std::to_string(lineOfOffset(m_text, offset)) + ": " + what;
    }
    Error fail(std::size_t offset, const std::string &what)
    {
        setError(offset, what);
        return Error{m_error};
    }

    std::string_view m_text;
    const std::string &m_source;
    const PtbReadOptions &m_opt;
    std::size_t m_pos = 0;
    std::size_t m_countedTo = 0;
    int m_countedLine = 1;
    std::string m_error;

public:
    std::vector<int> m_lines; ///< start line of each tree read
    /// Per tree: traces and function tags removed by the options (0 when kept).
    std::vector<std::pair<int, int>> m_stripped;
};

// A word as a leaf: only round brackets are rewritten (-LRB-/-RRB-, also inside a
// word), since they would end the bracket; every other word is written verbatim so
// that a tree read from text is written back identically (fuzzed round trip).
std::string leafText(const std::string &word)
{
    if (word.find_first_of("()") == std::string::npos)
        return word;
    std::string out;
    for (char c : word)
        out += c == '(' ? std::string("-LRB-") : c == ')' ? std::string("-RRB-") : std::string(1, c);
    return out;
}

// Writes a subtree on one line: "(NP (DT the) (NN man))".
void writeOneLine(const ConstituencyTree &t, int i, std::string &out)
{
    const auto &n = t.node(i);
    if (n.terminal) {
        out += leafText(n.label);
        return;
    }
    out += '(';
    out += n.label;
    for (int c : n.children) {
        out += ' ';
        writeOneLine(t, c, out);
    }
    out += ')';
}

// The .mrg layout: phrasal children start a new line indented two spaces per
// level; preterminals follow on the current line as "(TAG word) ".
void writeTreebank(const ConstituencyTree &t, int i, int depth, std::string &out)
{
    const auto &n = t.node(i);
    out += '(';
    out += n.label;
    out += ' ';
    bool lastPhrasal = false;
    for (int c : n.children) {
        const auto &cn = t.node(c);
        if (cn.terminal) {
            // A bare word directly under a phrase (not in the WSJ files).
            out += leafText(cn.label);
            out += ' ';
            lastPhrasal = false;
        } else if (t.isPreterminal(c)) {
            if (lastPhrasal) {
                out += '\n';
                out.append(static_cast<std::size_t>(2 * (depth + 1)), ' ');
            }
            out += '(';
            out += cn.label;
            out += ' ';
            out += leafText(t.node(cn.children[0]).label);
            out += ") ";
            lastPhrasal = false;
        } else {
            if (depth > 0 || !n.label.empty() || c != n.children.front()) {
                out += '\n';
                out.append(static_cast<std::size_t>(2 * (depth + 1)), ' ');
            }
            writeTreebank(t, c, depth + 1, out);
            lastPhrasal = true;
        }
    }
    out += ')';
}

std::string stemOf(const std::string &source)
{
    std::string name = fileName(source);
    const auto dot = name.rfind('.');
    return dot == std::string::npos || dot == 0 ? name : name.substr(0, dot);
}

} // namespace

Result<std::vector<ConstituencyTree>> readPtb(std::string_view text, const std::string &source, const PtbReadOptions &options)
{
    return PtbReader(text, source, options).run();
}

Result<std::vector<Sentence>> readPtbSentences(std::string_view text, const std::string &source, const PtbReadOptions &options)
{
    PtbReader reader(text, source, options);
    auto trees = reader.run();
    if (!trees)
        return trees.error();
    std::vector<Sentence> out;
    out.reserve(trees->size());
    const std::string stem = stemOf(source);
    int n = 0;
    for (auto &tree : *trees) {
        Sentence s;
        s.line = reader.m_lines[static_cast<std::size_t>(n)];
        s.id = stem + ":" + std::to_string(++n);
        const auto words = tree.words();
        const auto tags = tree.tags();
        for (std::size_t k = 0; k < words.size(); ++k) {
            Token t;
            t.text = ptbUnescape(words[k]);
            t.xpos = tags[k];
            if (!s.text.empty())
                s.text += ' ';
            t.charStart = static_cast<int>(s.text.size());
            s.text += t.text;
            t.charEnd = static_cast<int>(s.text.size());
            s.tokens.push_back(std::move(t));
        }
        s.constituency = std::move(tree);
        const auto [traces, functionTags] = reader.m_stripped[static_cast<std::size_t>(n) - 1];
        if (traces > 0)
            s.setMetadata("ptb.traces_removed", std::to_string(traces));
        if (functionTags > 0)
            s.setMetadata("ptb.function_tags_removed", std::to_string(functionTags));
        out.push_back(std::move(s));
    }
    return out;
}

std::string writePtbTree(const ConstituencyTree &tree, PtbStyle style)
{
    std::string out;
    if (tree.empty())
        return out;
    if (style == PtbStyle::OneLine)
        writeOneLine(tree, tree.root(), out);
    else
        writeTreebank(tree, tree.root(), 0, out);
    return out;
}

Result<std::string> writePtb(const std::vector<Sentence> &sentences, PtbStyle style)
{
    std::string out;
    if (style == PtbStyle::Treebank)
        out += '\n'; // the WSJ files start with an empty line
    for (const auto &s : sentences) {
        if (!s.constituency || s.constituency->empty())
            return Error{"sentence '" + s.id + "' has no constituency tree"};
        out += writePtbTree(*s.constituency, style);
        out += '\n';
    }
    return out;
}

namespace {
const std::pair<const char *, const char *> kEscapes[] = {
    {"(", "-LRB-"}, {")", "-RRB-"}, {"{", "-LCB-"}, {"}", "-RCB-"}, {"[", "-LSB-"}, {"]", "-RSB-"}};
}

namespace {
std::string replaceAll(std::string s, const std::string &from, const std::string &to)
{
    for (std::size_t p = s.find(from); p != std::string::npos; p = s.find(from, p + to.size()))
        s.replace(p, from.size(), to);
    return s;
}
} // namespace

std::string ptbUnescape(const std::string &word)
{
    for (const auto &[raw, esc] : kEscapes)
        if (word == esc)
            return raw;
    // A bracket inside a longer word (an emoticon ":)" written ":-RRB-").
    if (word.size() > 5 && (word.find("-LRB-") != std::string::npos || word.find("-RRB-") != std::string::npos))
        return replaceAll(replaceAll(word, "-LRB-", "("), "-RRB-", ")");
    return word;
}

std::string ptbEscape(const std::string &word)
{
    for (const auto &[raw, esc] : kEscapes)
        if (word == raw)
            return esc;
    // Round brackets end a bracket wherever they are in a word.
    if (word.find_first_of("()") != std::string::npos)
        return replaceAll(replaceAll(word, "(", "-LRB-"), ")", "-RRB-");
    return word;
}

} // namespace treelens
