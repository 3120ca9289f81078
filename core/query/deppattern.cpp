// Grew requests: the parser (docs/query.md, "Dependency patterns"). depmatch.cpp
// matches what this builds.
#include "core/query/deppattern.h"

#include <algorithm>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <unicode/regex.h>
#include <unicode/unistr.h>
#include <unicode/utypes.h>

#include "core/query/deppatternimpl.h"

namespace treelens {

namespace {

using Impl = DepPattern::Impl;

constexpr std::size_t kMaxNodes = 64;
constexpr std::size_t kMaxItems = 512;

bool isSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
bool isIdentChar(char c)
{
    const auto u = static_cast<unsigned char>(c);
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '$'
        || u >= 0x80;
}
// A bare value (`upos=VERB`, `Number=Sing`, a relation `nsubj:pass`): up to a blank or a
// character with a meaning in the request language.
bool isBareValueChar(char c) { return !isSpace(c) && std::string_view(",;|]=<>!\"{}[").find(c) == std::string_view::npos; }

/// OCaml Str's syntax (Grew's re"...") in ICU's: `\|` `\(` `\)` are the operators and
/// `|` `(` `)` `{` `}` literal; inside [...] every character is literal but a leading ^.
std::string strToIcu(std::string_view re)
{
    std::string out;
    for (std::size_t i = 0; i < re.size(); ++i) {
        const char c = re[i];
        if (c == '\\' && i + 1 < re.size()) {
            const char d = re[++i];
            if (d == '|' || d == '(' || d == ')')
                out += d;
            else if (d == 'b')
                out += "\\b";
            else {
                out += '\\';
                out += d;
            }
        } else if (c == '|' || c == '(' || c == ')' || c == '{' || c == '}') {
            out += '\\';
            out += c;
        } else if (c == '[') {
            out += '[';
            std::size_t j = i + 1;
            if (j < re.size() && re[j] == '^')
                out += re[j++];
            if (j < re.size() && re[j] == ']') // a leading ']' is literal
                out += "\\]", ++j;
            for (; j < re.size() && re[j] != ']'; ++j) {
                if (std::string_view("[\\&-").find(re[j]) != std::string_view::npos && !(re[j] == '-' && j + 1 < re.size() && re[j + 1] != ']' && j > i + 1))
                    out += '\\';
                out += re[j];
            }
            out += ']';
            i = j;
        } else {
            out += c;
        }
    }
    return out;
}

class Parser {
public:
    Parser(std::string_view text, Impl &impl) : m_text(text), m_impl(impl) {}

    std::optional<Error> run()
    {
        m_impl.clauses.push_back({}); // the kernel
        skipBlanks();
        if (atEnd())
            return fail("expected 'pattern {', 'with {' or 'without {', found the end of the request");
        while (!m_error && !atEnd()) {
            clause();
            skipBlanks();
        }
        if (m_error)
            return m_error;
        return finish();
    }

private:
    // ---- characters ----
    bool atEnd() const { return m_pos >= m_text.size(); }
    char peek(std::size_t k = 0) const { return m_pos + k < m_text.size() ? m_text[m_pos + k] : '\0'; }
    bool startsWith(std::string_view s) const { return m_text.substr(m_pos, s.size()) == s; }
    void skipBlanks()
    {
        while (!atEnd()) {
            if (isSpace(peek()))
                ++m_pos;
            else if (peek() == '%') // a comment to the end of the line
                while (!atEnd() && peek() != '\n')
                    ++m_pos;
            else
                break;
        }
    }
    std::string found() const
    {
        if (atEnd())
            return "the end of the request";
        std::size_t n = 1;
        while (m_pos + n < m_text.size() && (static_cast<unsigned char>(m_text[m_pos + n]) & 0xC0) == 0x80)
            ++n;
        return "'" + std::string(m_text.substr(m_pos, n)) + "'";
    }
    std::string where(std::size_t pos) const
    {
        std::size_t line = 1, col = 1;
        for (std::size_t i = 0; i < pos && i < m_text.size(); ++i) {
            if (m_text[i] == '\n')
                ++line, col = 1;
            else if ((static_cast<unsigned char>(m_text[i]) & 0xC0) != 0x80)
                ++col;
        }
        return "line " + std::to_string(line) + ", column " + std::to_string(col);
    }
    std::optional<Error> fail(const std::string &message) { return failAt(m_pos, message); }
    std::optional<Error> failAt(std::size_t pos, const std::string &message)
    {
        if (!m_error)
            m_error = Error{where(pos) + ": " + message};
        return m_error;
    }
    bool expect(std::string_view s, const std::string &what)
    {
        skipBlanks();
        if (startsWith(s)) {
            m_pos += s.size();
            return true;
        }
        fail("expected " + what + ", found " + found());
        return false;
    }
    std::string identifier()
    {
        const std::size_t start = m_pos;
        while (!atEnd() && isIdentChar(peek()))
            ++m_pos;
        return std::string(m_text.substr(start, m_pos - start));
    }

    // ---- clauses ----
    void clause()
    {
        const std::size_t start = m_pos;
        const std::string word = identifier();
        Impl::Clause::Kind kind;
        if (word == "pattern")
            kind = Impl::Clause::Kind::Kernel;
        else if (word == "with")
            kind = Impl::Clause::Kind::With;
        else if (word == "without")
            kind = Impl::Clause::Kind::Without;
        else {
            m_pos = start;
            if (word == "global" || word == "commands" || word == "rule")
                failAt(start, "'" + word + "' clauses are not supported (only pattern, with and without)");
            else
                failAt(start, "expected 'pattern', 'with' or 'without', found " + (word.empty() ? found() : "'" + word + "'"));
            return;
        }
        if (kind != Impl::Clause::Kind::Kernel && m_kernelClosed == false)
            m_kernelClosed = true;
        if (kind == Impl::Clause::Kind::Kernel && m_kernelClosed) {
            failAt(start, "a 'pattern' clause after 'with' or 'without': write the pattern clauses first");
            return;
        }
        if (kind == Impl::Clause::Kind::Kernel) {
            m_clause = 0;
        } else {
            m_impl.clauses.push_back({});
            m_impl.clauses.back().kind = kind;
            m_clause = m_impl.clauses.size() - 1;
        }
        if (!expect("{", "'{'"))
            return;
        while (!m_error) {
            skipBlanks();
            if (peek() == '}') {
                ++m_pos;
                return;
            }
            if (peek() == ';') {
                ++m_pos;
                continue;
            }
            if (atEnd()) {
                fail("expected '}', found the end of the request");
                return;
            }
            item();
        }
    }

    Impl::Clause &current() { return m_impl.clauses[m_clause]; }

    /// The node called `name`, declared in this clause when new.
    int node(const std::string &name, std::size_t pos)
    {
        // A node an extension added is that extension's own: another clause that names it
        // makes a node of its own (as in Grew, where the extensions are independent).
        for (std::size_t i = 0; i < m_impl.allNames.size(); ++i)
            if (m_impl.allNames[i] == name && (m_owner[i] == 0 || m_owner[i] == m_clause))
                return static_cast<int>(i);
        if (m_impl.allNames.size() >= kMaxNodes) {
            failAt(pos, "too many nodes (at most " + std::to_string(kMaxNodes) + ")");
            return 0;
        }
        m_impl.allNames.push_back(name);
        m_owner.push_back(m_clause);
        current().newNodes.push_back(static_cast<int>(m_impl.allNames.size() - 1));
        return static_cast<int>(m_impl.allNames.size() - 1);
    }

    void add(Impl::Item item)
    {
        if (++m_items > kMaxItems) {
            fail("too many items (at most " + std::to_string(kMaxItems) + ")");
            return;
        }
        current().items.push_back(std::move(item));
    }

    void item()
    {
        const std::size_t start = m_pos;
        if (peek() == '*') { // * -[r]-> X
            ++m_pos;
            skipBlanks();
            Impl::Item it;
            it.kind = Impl::ItemKind::InEdge;
            if (!edgeLabel(it.label, true))
                return;
            skipBlanks();
            const std::size_t p = m_pos;
            const std::string target = identifier();
            if (target.empty()) {
                fail("expected a node name, found " + found());
                return;
            }
            it.a = node(target, p);
            add(std::move(it));
            return;
        }
        std::string first = identifier();
        if (first.empty()) {
            fail("expected a node name, found " + found());
            return;
        }
        skipBlanks();
        if (peek() == ':' && peek(1) != ':') { // e: X -[r]-> Y (a named edge; the name is not used)
            ++m_pos;
            skipBlanks();
            const std::size_t p = m_pos;
            first = identifier();
            if (first.empty()) {
                fail("expected a node name after the edge name, found " + found());
                return;
            }
            skipBlanks();
            if (!startsWith("-")) {
                failAt(p, "expected an edge 'X -[...]-> Y' after 'NAME:'");
                return;
            }
        }
        if (peek() == '[') {
            filter(node(first, start));
            return;
        }
        if (peek() == '.') {
            comparison(first, start);
            return;
        }
        relation(first, start);
    }

    void relation(const std::string &first, std::size_t start)
    {
        Impl::Item it;
        if (startsWith("-*->")) {
            m_pos += 4;
            it.kind = Impl::ItemKind::Dominates;
        } else if (startsWith("->") || startsWith("-[")) {
            it.kind = Impl::ItemKind::Edge;
            if (!edgeLabel(it.label, false))
                return;
        } else if (startsWith("<<") || startsWith(">>")) {
            it.kind = Impl::ItemKind::Precedes;
            m_pos += 2;
        } else if (startsWith("<") || startsWith(">")) {
            if (startsWith("<>")) {
                fail("expected '[', '->', '-[', '<', '<<', '>', '>>' or '.' after the node name, found '<>'");
                return;
            }
            it.kind = Impl::ItemKind::ImmediatePrecedes;
            m_pos += 1;
        } else {
            fail("expected '[', '->', '-[', '-*->', '<', '<<', '>', '>>' or '.' after the node name, found " + found());
            return;
        }
        const bool reversed = m_text[m_pos - 1] == '>' && (it.kind == Impl::ItemKind::Precedes || it.kind == Impl::ItemKind::ImmediatePrecedes);
        skipBlanks();
        if (peek() == '*' && it.kind == Impl::ItemKind::Edge) {
            ++m_pos;
            it.kind = Impl::ItemKind::OutEdge;
            it.a = node(first, start);
            add(std::move(it));
            return;
        }
        const std::size_t p = m_pos;
        const std::string second = identifier();
        if (second.empty()) {
            fail("expected a node name, found " + found());
            return;
        }
        it.a = node(first, start);
        it.b = node(second, p);
        if (reversed)
            std::swap(it.a, it.b);
        if (it.a == it.b && it.kind != Impl::ItemKind::Edge) {
            failAt(start, "a node cannot be before or above itself");
            return;
        }
        add(std::move(it));
    }

    // `->`, `-[...]->` (m_pos at '-'); `inEdge`: written `* -[...]-> X`.
    bool edgeLabel(DepLabelTest &label, bool inEdge)
    {
        if (startsWith("->")) {
            m_pos += 2;
            return true;
        }
        if (!startsWith("-[")) {
            fail(std::string("expected '->' or '-[' ") + (inEdge ? "after '*'" : "") + ", found " + found());
            return false;
        }
        m_pos += 2;
        skipBlanks();
        if (peek() == '^') {
            ++m_pos;
            label.kind = DepLabelTest::Kind::NotIn;
            label.labels = labelList();
        } else if (startsWith("re\"")) {
            label.kind = DepLabelTest::Kind::Regex;
            label.labels = regexValue();
        } else if (looksLikeAtom()) {
            label.kind = DepLabelTest::Kind::Atoms;
            do {
                skipBlanks();
                atom(label);
                skipBlanks();
            } while (!m_error && peek() == ',' && (++m_pos, true));
        } else {
            label.kind = DepLabelTest::Kind::In;
            label.labels = labelList();
        }
        skipBlanks();
        return !m_error && expect("]->", "']->'");
    }
    bool looksLikeAtom() const
    {
        if (peek() == '!')
            return true;
        std::size_t i = m_pos;
        while (i < m_text.size() && isBareValueChar(m_text[i]) && m_text[i] != ':')
            ++i;
        return i < m_text.size() && (m_text[i] == '=' || m_text.substr(i, 2) == "<>");
    }
    void atom(DepLabelTest &label)
    {
        DepLabelTest::Atom a;
        if (peek() == '!') {
            ++m_pos;
            a.absent = true;
        }
        const std::size_t p = m_pos;
        const std::string name = identifier();
        if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) {
            failAt(p, "expected a label part '1', '2', ... (as in 1=nsubj or !2), found " + (name.empty() ? found() : "'" + name + "'"));
            return;
        }
        a.part = std::stoi(name.substr(0, 3));
        if (a.part < 1 || a.part > 9) {
            failAt(p, "label parts are numbered 1 to 9");
            return;
        }
        if (!a.absent) {
            skipBlanks();
            if (startsWith("<>"))
                a.negated = true, m_pos += 2;
            else if (!expect("=", "'=' or '<>'"))
                return;
            skipBlanks();
            a.values = startsWith("re\"") ? regexValue() : valueList();
        }
        label.atoms.push_back(std::move(a));
    }

    // ---- values ----
    /// m_pos at '"': a string, with \" and \\ as escapes; `raw` (a regular expression)
    /// keeps every backslash but the one before '"'.
    std::string quoted(bool raw = false)
    {
        const std::size_t start = m_pos++;
        std::string out;
        while (!atEnd() && peek() != '"') {
            if (peek() == '\\' && m_pos + 1 < m_text.size() && (!raw || m_text[m_pos + 1] == '"'))
                ++m_pos;
            else if (peek() == '\\' && m_pos + 1 < m_text.size())
                out += m_text[m_pos++];
            out += m_text[m_pos++];
        }
        if (atEnd()) {
            failAt(start, "a string that does not end (expected '\"')");
            return out;
        }
        ++m_pos;
        return out;
    }
    std::string value()
    {
        skipBlanks();
        if (peek() == '"')
            return quoted();
        const std::size_t start = m_pos;
        while (!atEnd() && isBareValueChar(peek()))
            ++m_pos;
        if (m_pos == start)
            fail("expected a value, found " + found());
        return std::string(m_text.substr(start, m_pos - start));
    }
    DepValueSet valueList()
    {
        DepValueSet v;
        v.kind = DepValueSet::Kind::List;
        do {
            v.values.push_back(value());
            skipBlanks();
        } while (!m_error && peek() == '|' && (++m_pos, true));
        return v;
    }
    DepValueSet labelList() { return valueList(); }
    DepValueSet regexValue()
    {
        DepValueSet v;
        v.kind = DepValueSet::Kind::Regex;
        const std::size_t start = m_pos;
        std::string body;
        if (peek() == '/') {
            const std::size_t end = m_text.find('/', m_pos + 1);
            if (end == std::string_view::npos) {
                fail("a /regular expression/ that does not end (expected '/')");
                return v;
            }
            body = std::string(m_text.substr(m_pos + 1, end - m_pos - 1));
            m_pos = end + 1;
        } else {
            m_pos += 2; // re
            body = strToIcu(quoted(true));
        }
        if (m_error)
            return v;
        UErrorCode status = U_ZERO_ERROR;
        UParseError pe;
        v.regex.reset(icu::RegexPattern::compile(icu::UnicodeString::fromUTF8(body), 0, pe, status));
        if (U_FAILURE(status) || !v.regex) {
            v.regex.reset();
            failAt(start, "not a regular expression this reads (" + std::string(u_errorName(status)) + ")");
            return v;
        }
        v.regexIndex = static_cast<int>(m_impl.regexes.size());
        m_impl.regexes.push_back(v.regex);
        return v;
    }
    DepValueSet valuesOrRegex()
    {
        skipBlanks();
        if (startsWith("re\"") || peek() == '/')
            return regexValue();
        return valueList();
    }

    // ---- node filters: X [upos=VERB, Number=Sing|Plur, lemma<>"it", !Tense, Mood] ----
    void filter(int n)
    {
        ++m_pos; // [
        Impl::Item it;
        it.kind = Impl::ItemKind::Filter;
        it.a = n;
        skipBlanks();
        if (peek() == ']') {
            ++m_pos;
            add(std::move(it));
            return;
        }
        while (!m_error) {
            skipBlanks();
            DepFeatureTest f;
            if (peek() == '!') {
                ++m_pos;
                f.op = DepFeatureTest::Op::Absent;
            }
            skipBlanks();
            const std::size_t p = m_pos;
            while (!atEnd() && isBareValueChar(peek()))
                ++m_pos;
            f.name = std::string(m_text.substr(p, m_pos - p));
            if (f.name.empty()) {
                fail("expected a feature name, found " + found());
                return;
            }
            skipBlanks();
            if (f.op != DepFeatureTest::Op::Absent) {
                if (peek() == '=') {
                    ++m_pos;
                    f.op = DepFeatureTest::Op::In;
                    f.values = valuesOrRegex();
                } else if (startsWith("<>")) {
                    m_pos += 2;
                    f.op = DepFeatureTest::Op::NotIn;
                    f.values = valuesOrRegex();
                }
            }
            it.features.push_back(std::move(f));
            skipBlanks();
            if (peek() == ',') {
                ++m_pos;
                continue;
            }
            if (peek() == ']') {
                ++m_pos;
                break;
            }
            fail("expected ',' or ']', found " + found());
        }
        add(std::move(it));
    }

    // ---- X.f = Y.g, X.f <> "v", X.f = re"..." ----
    void comparison(const std::string &first, std::size_t start)
    {
        ++m_pos; // .
        Impl::Item it;
        it.featureA = featureName();
        skipBlanks();
        if (startsWith("<>"))
            it.equal = false, m_pos += 2;
        else if (peek() == '=')
            ++m_pos;
        else {
            fail("expected '=' or '<>' after " + first + "." + it.featureA + ", found " + found()
                 + (peek() == '<' || peek() == '>' ? " (numeric comparisons are not supported)" : ""));
            return;
        }
        skipBlanks();
        it.a = node(first, start);
        const std::size_t p = m_pos;
        if (peek() == '"' || startsWith("re\"") || peek() == '/') {
            it.kind = Impl::ItemKind::CompareValue;
            it.value = peek() == '"' ? DepValueSet{DepValueSet::Kind::List, {quoted()}, nullptr, -1} : regexValue();
        } else {
            const std::string second = identifier();
            if (peek() == '.' && !second.empty()) {
                ++m_pos;
                it.kind = Impl::ItemKind::CompareFeatures;
                it.b = node(second, p);
                it.featureB = featureName();
            } else {
                m_pos = p;
                it.kind = Impl::ItemKind::CompareValue;
                it.value = valueList();
            }
        }
        add(std::move(it));
    }
    std::string featureName()
    {
        const std::size_t p = m_pos;
        while (!atEnd() && isBareValueChar(peek()) && peek() != '.')
            ++m_pos;
        if (m_pos == p)
            fail("expected a feature name after '.', found " + found());
        return std::string(m_text.substr(p, m_pos - p));
    }

    std::optional<Error> finish()
    {
        const std::size_t kernelNodes = m_impl.clauses[0].newNodes.size();
        if (kernelNodes == 0)
            return Error{"line 1, column 1: the request has no 'pattern' node (pattern { X [] } matches every word)"};
        for (int n : m_impl.clauses[0].newNodes)
            m_impl.names.push_back(m_impl.allNames[static_cast<std::size_t>(n)]);
        for (const std::string &name : m_impl.allNames)
            m_impl.injective.push_back(name.empty() || name.back() != '$');
        std::vector<bool> kernel(m_impl.allNames.size(), false);
        planClause(m_impl.clauses[0], kernel);
        for (int n : m_impl.clauses[0].newNodes)
            kernel[static_cast<std::size_t>(n)] = true;
        for (std::size_t c = 1; c < m_impl.clauses.size(); ++c)
            planClause(m_impl.clauses[c], kernel);
        return std::nullopt;
    }

    std::string_view m_text;
    Impl &m_impl;
    std::size_t m_pos = 0;
    std::size_t m_clause = 0;
    std::size_t m_items = 0;
    bool m_kernelClosed = false;
    std::vector<std::size_t> m_owner; ///< per node of allNames: the clause that declared it
    std::optional<Error> m_error;
};

} // namespace

Result<DepPattern> DepPattern::parse(std::string_view text)
{
    auto impl = std::make_shared<Impl>();
    impl->text = std::string(text);
    Parser parser(text, *impl);
    if (auto error = parser.run())
        return *error;
    DepPattern p;
    p.m_impl = std::move(impl);
    return p;
}

const std::vector<std::string> &DepPattern::names() const { return m_impl->names; }
const std::string &DepPattern::text() const { return m_impl->text; }

bool looksLikeGrewRequest(std::string_view text)
{
    std::size_t i = 0;
    while (i < text.size()) {
        if (isSpace(text[i]))
            ++i;
        else if (text[i] == '%')
            while (i < text.size() && text[i] != '\n')
                ++i;
        else
            break;
    }
    std::size_t j = i;
    while (j < text.size() && isIdentChar(text[j]))
        ++j;
    const std::string_view word = text.substr(i, j - i);
    if (word != "pattern" && word != "with" && word != "without")
        return false;
    while (j < text.size() && isSpace(text[j]))
        ++j;
    return j < text.size() && text[j] == '{';
}

} // namespace treelens
