// A Tregex subset (docs/tregex.md): the lexer and the parser, which turn a pattern into
// the flat tables of tregeximpl.h (node descriptions and conditions: relations, & and |
// groups, each possibly `!` or `?`), and the description of a parsed pattern. Matching is
// in tregexmatch.cpp.
#include "core/query/tregex.h"

#include <algorithm>
#include <cstddef>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <unicode/regex.h>
#include <unicode/unistr.h>
#include <unicode/utypes.h>

#include "core/query/tregeximpl.h"

namespace treelens {

namespace {

using tregex::Rel;

constexpr std::size_t kMaxDescriptions = 500;
constexpr int kMaxNesting = 100;

struct RelSpelling {
    const char *text;
    Rel rel;
    int arg;            // child number implied by the spelling (<, is <1, <- is <-1); 0 none
    const char *refused; // Tregex relations this subset does not take: why, else nullptr
};

// Longest spellings first: the lexer takes the first that matches.
const RelSpelling kRelations[] = {
    {"<...", Rel::Child, 0, "'<...' (exact children)"}, {"<<<", Rel::DominatesLeaf, 0, nullptr},
    {"<<,", Rel::LeftmostDesc, 0, nullptr}, {"<<-", Rel::RightmostDesc, 0, nullptr},
    {"<<`", Rel::RightmostDesc, 0, nullptr}, {"<<:", Rel::Dominates, 0, "'<<:' (unary chains)"},
    {"<<#", Rel::Dominates, 0, "'<<#' (heads)"}, {">>,", Rel::LeftmostDescOf, 0, nullptr},
    {">>-", Rel::RightmostDescOf, 0, nullptr}, {">>`", Rel::RightmostDescOf, 0, nullptr},
    {">>:", Rel::Dominates, 0, "'>>:' (unary chains)"}, {">>#", Rel::Dominates, 0, "'>>#' (heads)"},
    {"$++", Rel::LeftSister, 0, nullptr}, {"$--", Rel::RightSister, 0, nullptr},
    {"$..", Rel::LeftSister, 0, nullptr}, {"$,,", Rel::RightSister, 0, nullptr},
    {"<<", Rel::Dominates, 0, nullptr}, {">>", Rel::DominatedBy, 0, nullptr},
    {"<,", Rel::Child, 1, nullptr}, {">,", Rel::Parent, 1, nullptr},
    {"<-", Rel::Child, -1, nullptr}, {">-", Rel::Parent, -1, nullptr},
    {"<`", Rel::Child, -1, nullptr}, {">`", Rel::Parent, -1, nullptr},
    {"<:", Rel::OnlyChild, 0, nullptr}, {">:", Rel::OnlyChildOf, 0, nullptr},
    {"<#", Rel::Dominates, 0, "'<#' (heads)"}, {">#", Rel::Dominates, 0, "'>#' (heads)"},
    {"<+", Rel::Dominates, 0, "'<+(C)' (unbroken chains)"}, {">+", Rel::Dominates, 0, "'>+(C)' (unbroken chains)"},
    {".+", Rel::Dominates, 0, "'.+(C)' (unbroken chains)"}, {",+", Rel::Dominates, 0, "',+(C)' (unbroken chains)"},
    {"$+", Rel::ImmLeftSister, 0, nullptr}, {"$-", Rel::ImmRightSister, 0, nullptr},
    {"$.", Rel::ImmLeftSister, 0, nullptr}, {"$,", Rel::ImmRightSister, 0, nullptr},
    {"==", Rel::Same, 0, nullptr}, {"<=", Rel::SameOrParent, 0, nullptr},
    {"..", Rel::Precedes, 0, nullptr}, {",,", Rel::Follows, 0, nullptr},
    {"<", Rel::Child, 0, nullptr}, {">", Rel::Parent, 0, nullptr}, {"$", Rel::Sister, 0, nullptr},
    {".", Rel::ImmPrecedes, 0, nullptr}, {",", Rel::ImmFollows, 0, nullptr}, {":", Rel::Anywhere, 0, nullptr},
};

enum class Tok { Ident, Regex, Blank, RootNode, Relation, LParen, RParen, LBrack, RBrack, Bang, Question, Amp, Bar, At, Eq, End };

struct Token {
    Tok kind = Tok::End;
    std::size_t pos = 0;   // byte offset in the pattern
    std::string text;      // as written
    Rel rel = Rel::Child;
    int arg = 0;
    const char *refused = nullptr;
};

bool isSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// Tregex's IDENTIFIER token: these characters end an identifier (and may not start one,
// nor may a digit, '_' or '|').
bool endsIdentifier(char c) { return isSpace(c) || std::string_view("(/@!#%&)=?[]><~.,$:").find(c) != std::string_view::npos; }
bool startsIdentifier(char c)
{
    return !endsIdentifier(c) && !(c >= '0' && c <= '9') && std::string_view("|_{};").find(c) == std::string_view::npos;
}

using Impl = TregexPattern::Impl;

std::size_t columnOf(std::string_view text, std::size_t pos)
{
    std::size_t col = 1;
    for (std::size_t i = 0; i < pos && i < text.size(); ++i)
        if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80)
            ++col;
    return col;
}

class Lexer {
public:
    explicit Lexer(std::string_view text) : m_text(text) {}

    /// All tokens, ending with Tok::End; an error names the column.
    Result<std::vector<Token>> run()
    {
        std::vector<Token> out;
        std::size_t i = 0;
        while (true) {
            while (i < m_text.size() && isSpace(m_text[i]))
                ++i;
            Token t;
            t.pos = i;
            if (i >= m_text.size()) {
                out.push_back(t);
                return out;
            }
            auto err = next(i, t);
            if (!err.empty())
                return Error{"column " + std::to_string(columnOf(m_text, t.pos)) + ": " + err};
            out.push_back(std::move(t));
        }
    }

private:
    std::string next(std::size_t &i, Token &t)
    {
        const char c = m_text[i];
        const std::string_view rest = m_text.substr(i);
        static const std::pair<char, Tok> kSingles[] = {{'(', Tok::LParen}, {')', Tok::RParen}, {'[', Tok::LBrack},
                                                        {']', Tok::RBrack}, {'!', Tok::Bang},   {'?', Tok::Question},
                                                        {'&', Tok::Amp},    {'|', Tok::Bar},    {'@', Tok::At}};
        if (rest.substr(0, 6) == "_ROOT_" && (rest.size() == 6 || endsIdentifier(rest[6])))
            return take(i, t, Tok::RootNode, 6);
        if (rest.substr(0, 2) == "__" && (rest.size() == 2 || endsIdentifier(rest[2])))
            return take(i, t, Tok::Blank, 2);
        if (c == '/')
            return regex(i, t);
        for (const auto &r : kRelations) {
            const std::string_view s(r.text);
            if (rest.substr(0, s.size()) != s)
                continue;
            take(i, t, Tok::Relation, s.size());
            t.rel = r.rel;
            t.arg = r.arg;
            t.refused = r.refused;
            return childNumber(i, t);
        }
        for (const auto &[ch, kind] : kSingles)
            if (c == ch)
                return take(i, t, kind, 1);
        if (c == '=')
            return take(i, t, Tok::Eq, 1);
        if (!startsIdentifier(c))
            return "unexpected character '" + std::string(1, c) + "'" +
                   (c == '~' ? " (links are not supported)" : c == '#' || c == '%' ? " (variable groups are not supported)" : "");
        std::size_t n = 1;
        while (n < rest.size() && !endsIdentifier(rest[n]))
            ++n;
        return take(i, t, Tok::Ident, n);
    }

    std::string take(std::size_t &i, Token &t, Tok kind, std::size_t n)
    {
        t.kind = kind;
        t.text = std::string(m_text.substr(i, n));
        i += n;
        return {};
    }

    std::string regex(std::size_t &i, Token &t)
    {
        std::size_t j = i + 1;
        while (j < m_text.size() && m_text[j] != '/' && m_text[j] != '\n' && m_text[j] != '\r')
            j += (m_text[j] == '\\' && j + 1 < m_text.size() && m_text[j + 1] == '/') ? 2 : 1;
        if (j >= m_text.size() || m_text[j] != '/')
            return "the regular expression has no closing '/'";
        return take(i, t, Tok::Regex, j + 1 - i);
    }

    // "<2", "<-2", ">1", ">-1": a child number written right after the relation.
    std::string childNumber(std::size_t &i, Token &t)
    {
        const bool numbered = t.text == "<" || t.text == ">" || t.text == "<-" || t.text == ">-";
        if (!numbered || i >= m_text.size() || m_text[i] < '0' || m_text[i] > '9')
            return {};
        long long n = 0;
        std::size_t j = i;
        while (j < m_text.size() && m_text[j] >= '0' && m_text[j] <= '9') {
            n = std::min<long long>(n * 10 + (m_text[j] - '0'), 1000000);
            ++j;
        }
        if (n == 0)
            return "child numbers start at 1, found '" + t.text + std::string(m_text.substr(i, j - i)) + "'";
        t.arg = static_cast<int>(t.text.size() == 2 ? -n : n);
        t.text += std::string(m_text.substr(i, j - i));
        i = j;
        return {};
    }

    std::string_view m_text;
};

std::string describeToken(const Token &t)
{
    return t.kind == Tok::End ? std::string("the end of the pattern") : "'" + t.text + "'";
}

bool startsChild(Tok k) { return k == Tok::Relation || k == Tok::Bang || k == Tok::Question || k == Tok::LBrack || k == Tok::LParen; }

class Parser {
public:
    Parser(std::string_view text, std::vector<Token> tokens) : m_text(text), m_tokens(std::move(tokens)) {}

    Result<std::shared_ptr<Impl>> run()
    {
        m_impl = std::make_shared<Impl>();
        m_impl->text = std::string(m_text);
        m_impl->roots.push_back(subNode(0));
        while (!m_error && peek().kind == Tok::Bar) {
            ++m_at;
            m_impl->roots.push_back(subNode(0));
        }
        if (!m_error && peek().kind != Tok::End)
            fail(peek(), "expected a relation, '|' or the end of the pattern, found " + describeToken(peek()));
        if (m_error)
            return *m_error;
        return m_impl;
    }

private:
    const Token &peek(std::size_t ahead = 0) const { return m_tokens[std::min(m_at + ahead, m_tokens.size() - 1)]; }

    void fail(const Token &t, const std::string &message)
    {
        if (!m_error)
            m_error = Error{"column " + std::to_string(columnOf(m_text, t.pos)) + ": " + message};
    }

    bool tooDeep(int depth)
    {
        if (depth <= kMaxNesting)
            return false;
        fail(peek(), "the pattern nests deeper than " + std::to_string(kMaxNesting) + " levels");
        return true;
    }

    bool expect(Tok kind, const char *what)
    {
        if (peek().kind == kind) {
            ++m_at;
            return true;
        }
        fail(peek(), std::string("expected ") + what + ", found " + describeToken(peek()));
        return false;
    }

    int addCond(Impl::Cond c)
    {
        m_impl->conds.push_back(std::move(c));
        return static_cast<int>(m_impl->conds.size()) - 1;
    }

    // subnode := '(' subnode ')' [relations] | description [relations]
    int subNode(int depth)
    {
        if (tooDeep(depth))
            return -1;
        int node = -1;
        if (peek().kind == Tok::LParen) {
            ++m_at;
            node = subNode(depth + 1);
            if (m_error || !expect(Tok::RParen, "')'"))
                return -1;
        } else {
            node = description();
        }
        if (m_error || !startsChild(peek().kind))
            return node;
        const int more = relDisj(depth + 1);
        if (m_error)
            return -1;
        int &cond = m_impl->nodes[static_cast<std::size_t>(node)].cond;
        if (cond < 0) {
            cond = more;
        } else { // "(NP < DT) < NN": the group's relations and the new ones, all of them
            Impl::Cond both;
            both.kind = Impl::CondKind::And;
            both.parts = {cond, more};
            cond = addCond(std::move(both));
        }
        return node;
    }

    // description := ['!'] ['@'] (IDENT | REGEX | '__' | '_ROOT_') ['=' name] | '=' name
    int description();
    void setLabels(Impl::Node &n, const Token &t);
    void setRegex(Impl::Node &n, const Token &t);
    int nameAfterEq(bool declare);

    // relDisj := relConj ('|' relConj)*, '|' only when a relation follows it
    int relDisj(int depth)
    {
        if (tooDeep(depth))
            return -1;
        const std::set<std::string> before = m_known;
        std::set<std::string> all = m_known;
        std::vector<int> parts{relConj(depth)};
        all.insert(m_known.begin(), m_known.end());
        while (!m_error && peek().kind == Tok::Bar && startsChild(peek(1).kind)) {
            ++m_at;
            m_known = before; // Tregex: a name bound on one side of '|' may be bound again on the other
            parts.push_back(relConj(depth));
            all.insert(m_known.begin(), m_known.end());
        }
        m_known = all;
        if (m_error || parts.size() == 1)
            return parts.front();
        Impl::Cond c;
        c.kind = Impl::CondKind::Or;
        c.parts = std::move(parts);
        return addCond(std::move(c));
    }

    // relConj := modChild (['&'] modChild)*
    int relConj(int depth)
    {
        std::vector<int> parts{modChild(depth)};
        while (!m_error && (startsChild(peek().kind) || peek().kind == Tok::Amp)) {
            if (peek().kind == Tok::Amp)
                ++m_at;
            parts.push_back(modChild(depth));
        }
        if (m_error || parts.size() == 1)
            return parts.front();
        Impl::Cond c;
        c.kind = Impl::CondKind::And;
        c.parts = std::move(parts);
        return addCond(std::move(c));
    }

    // modChild := child | '!' modChild | '?' child
    int modChild(int depth)
    {
        if (tooDeep(depth))
            return -1;
        const Token &t = peek();
        if (t.kind == Tok::Bang) {
            ++m_at;
            const bool outer = m_underNegation;
            m_underNegation = true;
            const int c = modChild(depth + 1);
            m_underNegation = outer;
            if (m_error)
                return -1;
            if (m_impl->conds[static_cast<std::size_t>(c)].optional)
                fail(t, "'!' and '?' cannot apply to the same relation");
            m_impl->conds[static_cast<std::size_t>(c)].negated = true;
            return c;
        }
        if (t.kind == Tok::Question) {
            ++m_at;
            const int c = child(depth + 1);
            if (!m_error)
                m_impl->conds[static_cast<std::size_t>(c)].optional = true;
            return c;
        }
        return child(depth);
    }

    // child := '[' relDisj ']' | '(' relDisj ')' | relation node
    int child(int depth)
    {
        const Token &t = peek();
        if (t.kind == Tok::LBrack || t.kind == Tok::LParen) {
            ++m_at;
            const int c = relDisj(depth + 1);
            if (m_error)
                return -1;
            expect(t.kind == Tok::LBrack ? Tok::RBrack : Tok::RParen, t.kind == Tok::LBrack ? "']'" : "')'");
            return c;
        }
        if (t.kind != Tok::Relation) {
            fail(t, "expected a relation, found " + describeToken(t));
            return -1;
        }
        if (t.refused) {
            fail(t, std::string("relation ") + t.refused + " is not supported (docs/tregex.md)");
            return -1;
        }
        ++m_at;
        Impl::Cond c;
        c.rel = t.rel;
        c.arg = t.arg;
        c.relText = t.text;
        // node := '(' subnode ')' | description: after a relation, a bare description
        // takes no relations of its own (they belong to the node on the left).
        if (peek().kind == Tok::LParen) {
            ++m_at;
            c.target = subNode(depth + 1);
            if (!m_error)
                expect(Tok::RParen, "')'");
        } else {
            c.target = description();
        }
        return m_error ? -1 : addCond(std::move(c));
    }

    std::string_view m_text;
    std::vector<Token> m_tokens;
    std::size_t m_at = 0;
    std::shared_ptr<Impl> m_impl;
    std::optional<Error> m_error;
    std::set<std::string> m_known; // names bound so far (Tregex's knownVariables)
    bool m_underNegation = false;
};

int Parser::description()
{
    Impl::Node n;
    const Token &first = peek();
    if (peek().kind == Tok::Bang) {
        n.negated = true;
        ++m_at;
    }
    if (peek().kind == Tok::At) {
        n.basic = true;
        ++m_at;
    }
    const Token &t = peek();
    switch (t.kind) {
    case Tok::Ident: setLabels(n, t); break;
    case Tok::Regex: setRegex(n, t); break;
    case Tok::Blank: n.kind = Impl::DescKind::Any; break;
    case Tok::RootNode: n.kind = Impl::DescKind::Root; break;
    case Tok::Eq:
        if (n.negated || n.basic) {
            fail(first, "'!' and '@' need a label description, not a reference to a name");
            return -1;
        }
        ++m_at;
        n.kind = Impl::DescKind::Backref;
        n.ref = nameAfterEq(false);
        n.text = "=" + (n.ref >= 0 ? m_impl->names[static_cast<std::size_t>(n.ref)] : std::string());
        break;
    default:
        fail(t, "expected a node description, found " + describeToken(t));
        return -1;
    }
    if (m_error)
        return -1;
    if (n.kind != Impl::DescKind::Backref) {
        n.text = t.text;
        ++m_at;
        if (peek().kind == Tok::Eq) {
            ++m_at;
            n.bind = nameAfterEq(true);
        }
    }
    if (m_error)
        return -1;
    if (m_impl->nodes.size() >= kMaxDescriptions) {
        fail(t, "the pattern has more than " + std::to_string(kMaxDescriptions) + " node descriptions");
        return -1;
    }
    m_impl->nodes.push_back(std::move(n));
    return static_cast<int>(m_impl->nodes.size()) - 1;
}

void Parser::setLabels(Impl::Node &n, const Token &t)
{
    n.kind = Impl::DescKind::Labels;
    std::size_t from = 0;
    while (true) {
        const std::size_t bar = t.text.find('|', from);
        const std::string alt = t.text.substr(from, bar == std::string::npos ? std::string::npos : bar - from);
        if (alt.empty()) {
            fail(t, "empty label alternative in '" + t.text + "'");
            return;
        }
        n.labels.push_back(alt);
        if (bar == std::string::npos)
            return;
        from = bar + 1;
    }
}

void Parser::setRegex(Impl::Node &n, const Token &t)
{
    n.kind = Impl::DescKind::Regex;
    const std::string body = t.text.substr(1, t.text.size() - 2);
    UErrorCode status = U_ZERO_ERROR;
    UParseError pe{};
    n.regex.reset(icu::RegexPattern::compile(icu::UnicodeString::fromUTF8(body), 0, pe, status));
    if (U_FAILURE(status) || !n.regex)
        fail(t, "bad regular expression " + t.text + " (ICU: " + u_errorName(status) + ")");
}

int Parser::nameAfterEq(bool declare)
{
    const Token &t = peek();
    if (t.kind != Tok::Ident || t.text.find('|') != std::string::npos) {
        fail(t, "expected a name after '=', found " + describeToken(t));
        return -1;
    }
    ++m_at;
    auto &names = m_impl->names;
    const auto it = std::find(names.begin(), names.end(), t.text);
    if (!declare) {
        if (!m_known.count(t.text))
            fail(t, "'=" + t.text + "' refers to no name bound before it");
        return it == names.end() ? -1 : static_cast<int>(it - names.begin());
    }
    if (m_underNegation)
        fail(t, "a name cannot be bound under '!' ('" + t.text + "')");
    else if (m_known.count(t.text))
        fail(t, "the name '" + t.text + "' is bound twice");
    m_known.insert(t.text);
    if (it != names.end())
        return static_cast<int>(it - names.begin());
    names.push_back(t.text);
    return static_cast<int>(names.size()) - 1;
}

// ---------------------------------------------------------------------------------------
// Describing a parsed pattern

std::string describeNode(const Impl &p, int n);

std::string describeCond(const Impl &p, int c, bool top)
{
    const Impl::Cond &cond = p.conds[static_cast<std::size_t>(c)];
    const std::string prefix = cond.negated ? "!" : cond.optional ? "?" : "";
    if (cond.kind == Impl::CondKind::Relation) {
        const Impl::Node &t = p.nodes[static_cast<std::size_t>(cond.target)];
        const std::string target = describeNode(p, cond.target);
        return prefix + cond.relText + " " + (t.cond >= 0 ? "(" + target + ")" : target);
    }
    const char *sep = cond.kind == Impl::CondKind::And ? " & " : " | ";
    std::string inner;
    for (std::size_t i = 0; i < cond.parts.size(); ++i)
        inner += (i ? sep : "") + describeCond(p, cond.parts[i], false);
    if (top && prefix.empty() && cond.kind == Impl::CondKind::And)
        return inner;
    return prefix + "[" + inner + "]";
}

std::string describeNode(const Impl &p, int n)
{
    const Impl::Node &node = p.nodes[static_cast<std::size_t>(n)];
    std::string s = std::string(node.negated ? "!" : "") + (node.basic ? "@" : "") + node.text;
    if (node.bind >= 0)
        s += "=" + p.names[static_cast<std::size_t>(node.bind)];
    if (node.cond >= 0)
        s += " " + describeCond(p, node.cond, true);
    return s;
}

} // namespace

Result<TregexPattern> TregexPattern::parse(std::string_view text)
{
    auto tokens = Lexer(text).run();
    if (!tokens)
        return tokens.error();
    auto impl = Parser(text, std::move(*tokens)).run();
    if (!impl)
        return impl.error();
    TregexPattern p;
    p.m_impl = std::move(*impl);
    return p;
}

const std::vector<std::string> &TregexPattern::names() const { return m_impl->names; }
const std::string &TregexPattern::text() const { return m_impl->text; }
std::size_t TregexPattern::size() const { return m_impl->nodes.size(); }

std::string TregexPattern::describe() const
{
    std::string s;
    for (std::size_t i = 0; i < m_impl->roots.size(); ++i)
        s += (i ? " | " : "") + describeNode(*m_impl, m_impl->roots[i]);
    return s;
}

} // namespace treelens
