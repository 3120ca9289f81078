#include "core/formats/conllu.h"

#include <algorithm>

#include "core/base/strings.h"
#include "core/base/utf8.h"
#include "core/base/inputlimits.h"
#include "core/formats/ptb.h"

namespace treelens {

namespace {

const char *const kColumnNames[10] = {"ID", "FORM", "LEMMA", "UPOS", "XPOS", "FEATS", "HEAD", "DEPREL", "DEPS", "MISC"};

// Splits a line into exactly 10 tab-separated fields; returns the count found.
int splitColumns(std::string_view line, std::string_view (&cols)[10])
{
    int n = 0;
    std::size_t start = 0;
    while (true) {
        const auto tab = line.find('\t', start);
        const auto field = line.substr(start, tab == std::string_view::npos ? std::string_view::npos : tab - start);
        if (n < 10)
            cols[n] = field;
        ++n;
        if (tab == std::string_view::npos)
            return n;
        start = tab + 1;
    }
}


// Skips ASCII and Unicode white space (EWT texts contain U+00A0, see SpacesAfter).
std::size_t skipSpaces(std::string_view text, std::size_t pos)
{
    while (pos < text.size()) {
        int len = 1;
        const char32_t c = decodeUtf8(text, pos, len);
        const bool space = c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == 0xA0 || c == 0x1680
            || (c >= 0x2000 && c <= 0x200B) || c == 0x202F || c == 0x205F || c == 0x3000 || c == 0xFEFF;
        if (!space)
            break;
        pos += static_cast<std::size_t>(len);
    }
    return pos;
}

// Aligns tokens (or the multiword tokens that cover them) to the sentence text.
void alignOffsets(Sentence &s)
{
    const std::string &text = s.text;
    if (text.empty())
        return;
    std::size_t pos = 0;
    std::size_t mwt = 0;
    const int n = static_cast<int>(s.tokens.size());
    for (int i = 0; i < n;) {
        // A multiword token covering word i+1 aligns as one surface string.
        while (mwt < s.multiwordTokens.size() && s.multiwordTokens[mwt].last < i + 1)
            ++mwt;
        const bool inMwt = mwt < s.multiwordTokens.size() && s.multiwordTokens[mwt].first == i + 1;
        const std::string &surface = inMwt ? s.multiwordTokens[mwt].columns[1] : s.tokens[static_cast<std::size_t>(i)].text;
        const int span = inMwt ? s.multiwordTokens[mwt].last - s.multiwordTokens[mwt].first + 1 : 1;
        pos = skipSpaces(text, pos);
        if (text.compare(pos, surface.size(), surface) != 0)
            return; // text and forms disagree: leave the rest unaligned
        for (int k = 0; k < span && i + k < n; ++k) {
            auto &t = s.tokens[static_cast<std::size_t>(i + k)];
            t.charStart = static_cast<int>(pos);
            t.charEnd = static_cast<int>(pos + surface.size());
        }
        pos += surface.size();
        i += span;
    }
}

/// Reads CoNLL-U line by line: comment lines, multiword token and empty node
/// lines, and word lines go into the sentence being read, which a blank line
/// (or the end of the text) checks and closes.
class Reader {
public:
    Reader(std::string_view text, const std::string &source, const ConlluReadOptions &opt)
        : m_text(text), m_source(source), m_opt(opt) {}

    Result<std::vector<Sentence>> run()
    {
        auto checked = checkedText(m_text, m_source, m_opt.firstLine);
        if (!checked)
            return checked.error();
        m_text = *checked;
        std::size_t pos = 0;
        int lineNo = m_opt.firstLine - 1;
        while (pos < m_text.size()) {
            auto nl = m_text.find('\n', pos);
            if (nl == std::string_view::npos)
                nl = m_text.size();
            std::string_view line = m_text.substr(pos, nl - pos);
            pos = nl + 1;
            ++lineNo;
            // CRLF files read like LF files; every trailing CR goes (not just one)
            // so that what is written back reads back identically (found by fuzzing).
            while (!line.empty() && line.back() == '\r')
                line.remove_suffix(1);
            if (auto s = readLine(line, lineNo); !s)
                return s.error();
        }
        if (auto s = finishSentence(); !s)
            return s.error();
        return std::move(m_out);
    }

private:
    Error fail(int line, const std::string &what) const
    {
        return Error{m_source + ":" + std::to_string(line) + ": " + what};
    }

    /// One line (without its line end): a blank line closes the sentence.
    Status readLine(std::string_view line, int lineNo)
    {
        if (line.empty())
            return finishSentence();
        if (!m_open) {
            m_open = true;
            m_sentenceLine = lineNo;
        }
        if (line[0] == '#')
            return readComment(line, lineNo);
        std::string_view cols[10];
        const int ncols = splitColumns(line, cols);
        if (ncols != 10)
            return fail(lineNo, "expected 10 tab-separated columns, found " + std::to_string(ncols));
        for (int k = 0; k < 10; ++k)
            if (cols[k].empty())
                return fail(lineNo, std::string("column ") + std::to_string(k + 1) + " (" + kColumnNames[k] + ") is empty (use '_')");
        const std::string_view id = cols[0];
        if (id.find('-') != std::string_view::npos)
            return readMultiwordToken(cols, lineNo);
        if (id.find('.') != std::string_view::npos)
            return readEmptyNode(cols, lineNo);
        return readWord(cols, lineNo);
    }

    /// A comment: kept verbatim; sent_id, constituency and text are read.
    Status readComment(std::string_view line, int lineNo)
    {
        Sentence &cur = m_cur;
        if (!cur.tokens.empty())
            return fail(lineNo, "comment line inside a sentence's word lines");
        cur.comments.emplace_back(line.substr(1));
        const std::string_view c = trimView(line.substr(1));
        if (startsWith(c, "sent_id")) {
            const auto eq = c.find('=');
            if (eq != std::string_view::npos)
                cur.id = std::string(trimView(c.substr(eq + 1)));
        } else if (startsWith(c, "constituency")) {
            const auto eq = c.find('=');
            if (eq != std::string_view::npos) {
                auto trees = readPtb(c.substr(eq + 1), m_source + ":" + std::to_string(lineNo) + " (constituency)");
                if (!trees)
                    return trees.error();
                if (trees->size() != 1)
                    return fail(lineNo, "'# constituency' must hold exactly one tree");
                cur.constituency = std::move(trees->front());
            }
        } else if (startsWith(c, "text") && c.size() > 4 && (c[4] == ' ' || c[4] == '=')) {
            const auto eq = c.find('=');
            if (eq != std::string_view::npos) {
                // Keep the text exactly after "= " (it may have inner spacing).
                std::string_view v = c.substr(eq + 1);
                if (!v.empty() && v[0] == ' ')
                    v.remove_prefix(1);
                cur.text = std::string(v);
            }
        }
        return {};
    }

    /// A multiword token line ("3-4"): it must start at the next word.
    Status readMultiwordToken(const std::string_view (&cols)[10], int lineNo)
    {
        const std::string_view id = cols[0];
        const auto dash = id.find('-');
        const int nextWord = static_cast<int>(m_cur.tokens.size()) + 1;
        MultiwordToken m;
        if (!parseInt(id.substr(0, dash), m.first) || !parseInt(id.substr(dash + 1), m.last))
            return fail(lineNo, "bad multiword token id '" + std::string(id) + "'");
        if (m.first != nextWord || m.last <= m.first)
            return fail(lineNo, "multiword token range '" + std::string(id) + "' does not start at the next word " + std::to_string(nextWord));
        if (!m_cur.multiwordTokens.empty() && m_cur.multiwordTokens.back().last >= m.first)
            return fail(lineNo, "multiword token range '" + std::string(id) + "' overlaps '" + m_cur.multiwordTokens.back().columns[0] + "'");
        m.columns.reserve(10);
        for (auto c : cols)
            m.columns.emplace_back(c);
        m_cur.multiwordTokens.push_back(std::move(m));
        return {};
    }

    /// An empty node line ("2.1"): after the last word read, numbered in order.
    Status readEmptyNode(const std::string_view (&cols)[10], int lineNo)
    {
        const std::string_view id = cols[0];
        const auto dot = id.find('.');
        const int nextWord = static_cast<int>(m_cur.tokens.size()) + 1;
        EmptyNode e;
        if (!parseInt(id.substr(0, dot), e.after) || !parseInt(id.substr(dot + 1), e.sub) || e.sub < 1)
            return fail(lineNo, "bad empty node id '" + std::string(id) + "'");
        if (e.after != nextWord - 1)
            return fail(lineNo, "empty node '" + std::string(id) + "' is out of order");
        if (!m_cur.emptyNodes.empty() && m_cur.emptyNodes.back().after == e.after && e.sub != m_cur.emptyNodes.back().sub + 1)
            return fail(lineNo, "duplicate or out-of-order empty node id '" + std::string(id) + "'");
        e.columns.reserve(10);
        for (auto c : cols)
            e.columns.emplace_back(c);
        m_cur.emptyNodes.push_back(std::move(e));
        return {};
    }

    /// A word line: the next word in sequence, its HEAD and DEPREL kept for the tree.
    Status readWord(const std::string_view (&cols)[10], int lineNo)
    {
        const std::string_view id = cols[0];
        const int nextWord = static_cast<int>(m_cur.tokens.size()) + 1;
        int wid = 0;
        if (!parseInt(id, wid))
            return fail(lineNo, "ID '" + std::string(id) + "' is not an integer");
        if (wid != nextWord)
            return fail(lineNo, wid < nextWord ? "duplicate word id " + std::string(id)
                                               : "word id " + std::string(id) + " out of sequence (expected " + std::to_string(nextWord) + ")");
        Token t;
        t.text = std::string(cols[1]);
        t.lemma = std::string(cols[2]);
        t.upos = std::string(cols[3]);
        t.xpos = std::string(cols[4]);
        t.feats = std::string(cols[5]);
        t.deps = std::string(cols[8]);
        t.misc = std::string(cols[9]);
        if (cols[6] == "_") {
            m_headsMissing = true;
            m_heads.push_back(-1);
        } else {
            int h = 0;
            if (!parseInt(cols[6], h))
                return fail(lineNo, "HEAD '" + std::string(cols[6]) + "' is not an integer");
            if (h < 0)
                return fail(lineNo, "HEAD " + std::to_string(h) + " is negative");
            m_headsSeen = true;
            m_heads.push_back(h);
        }
        m_rels.emplace_back(cols[7]);
        m_wordLines.push_back(lineNo);
        m_cur.tokens.push_back(std::move(t));
        return {};
    }

    /// The sentence's dependency tree from the HEAD and DEPREL columns (all or none
    /// of its words have a HEAD), checked as the options ask.
    Status takeDependencyTree()
    {
        if (m_headsSeen && m_headsMissing)
            return fail(m_sentenceLine, "HEAD is '_' for some words but not others");
        if (!m_headsSeen)
            return {};
        const int n = static_cast<int>(m_heads.size());
        for (int k = 0; k < n; ++k)
            if (m_heads[static_cast<std::size_t>(k)] > n)
                return fail(m_wordLines[static_cast<std::size_t>(k)], "HEAD " + std::to_string(m_heads[static_cast<std::size_t>(k)])
                                                                         + " out of range (the sentence has " + std::to_string(n) + " words)");
        DependencyTree t;
        t.heads = std::move(m_heads);
        t.deprels = std::move(m_rels);
        if (m_opt.validateTrees) {
            // Range errors were caught per line; check root count and cycles.
            const Status st = t.validate();
            if (!st.ok())
                return fail(m_sentenceLine, "sentence " + (m_cur.id.empty() ? std::to_string(m_opt.firstIndex + m_out.size() + 1) : "'" + m_cur.id + "'") + ": " + st.message());
        }
        m_cur.dependency = std::move(t);
        return {};
    }

    /// Checks and keeps the sentence being read (if one is open) and starts the next.
    Status finishSentence()
    {
        if (!m_open)
            return {};
        Sentence &cur = m_cur;
        if (cur.tokens.empty())
            return fail(m_sentenceLine, "sentence has comments but no words");
        if (auto s = takeDependencyTree(); !s)
            return s;
        if (cur.constituency && cur.constituency->wordCount() != static_cast<int>(cur.tokens.size()))
            return fail(m_sentenceLine, "'# constituency' tree has " + std::to_string(cur.constituency->wordCount()) + " words but the sentence has "
                                            + std::to_string(cur.tokens.size()));
        for (const auto &m : cur.multiwordTokens)
            if (m.last > static_cast<int>(cur.tokens.size()))
                return fail(m_sentenceLine, "multiword token " + m.columns[0] + " extends past the last word");
        if (m_opt.alignOffsets)
            alignOffsets(cur);
        if (cur.id.empty())
            cur.id = "s" + std::to_string(m_opt.firstIndex + m_out.size() + 1);
        cur.line = m_sentenceLine;
        m_out.push_back(std::move(cur));
        m_cur = Sentence();
        m_heads.clear();
        m_rels.clear();
        m_wordLines.clear();
        m_headsSeen = m_headsMissing = false;
        m_open = false;
        return {};
    }

    std::string_view m_text;
    const std::string &m_source;
    const ConlluReadOptions &m_opt;
    std::vector<Sentence> m_out;
    // The sentence being read: its words, comments and tokens so far, and its
    // HEAD and DEPREL columns (with each word's line, for errors).
    Sentence m_cur;
    bool m_open = false;
    int m_sentenceLine = 0;
    bool m_headsSeen = false, m_headsMissing = false;
    std::vector<int> m_heads;
    std::vector<std::string> m_rels;
    std::vector<int> m_wordLines;
};

void appendField(std::string &out, const std::string &v)
{
    out += v.empty() ? std::string_view("_") : std::string_view(v);
}

void appendColumns(std::string &out, const std::vector<std::string> &cols)
{
    for (std::size_t k = 0; k < cols.size(); ++k) {
        if (k)
            out += '\t';
        appendField(out, cols[k]);
    }
    out += '\n';
}

} // namespace

Result<std::vector<Sentence>> readConllu(std::string_view text, const std::string &source, const ConlluReadOptions &options)
{
    return Reader(text, source, options).run();
}

void appendConllu(std::string &out, const Sentence &s)
{
    // The "# constituency" comment always reflects Sentence::constituency (a
    // re-parsed sentence must not keep a stale tree); other comments are verbatim.
    bool hasId = false, hasText = false, treeWritten = false;
    const bool tree = s.constituency && !s.constituency->empty();
    for (const auto &c : s.comments) {
        const auto t = trimView(c);
        if (startsWith(t, "constituency")) {
            if (tree && !treeWritten)
                out += "# constituency = " + writePtbTree(*s.constituency) + "\n";
            treeWritten = true;
            continue;
        }
        hasId = hasId || startsWith(t, "sent_id");
        hasText = hasText || (startsWith(t, "text") && t.size() > 4 && (t[4] == ' ' || t[4] == '='));
        out += '#';
        out += c;
        out += '\n';
    }
    if (!hasId && !s.id.empty())
        out += "# sent_id = " + s.id + "\n";
    if (!hasText && !s.text.empty())
        out += "# text = " + s.text + "\n";
    if (tree && !treeWritten)
        out += "# constituency = " + writePtbTree(*s.constituency) + "\n";

    std::size_t mwt = 0, empty = 0;
    auto emitEmpty = [&](int after) {
        while (empty < s.emptyNodes.size() && s.emptyNodes[empty].after == after)
            appendColumns(out, s.emptyNodes[empty++].columns);
    };
    emitEmpty(0);
    const bool deps = s.dependency.has_value() && s.dependency->heads.size() == s.tokens.size();
    for (std::size_t i = 0; i < s.tokens.size(); ++i) {
        const int id = static_cast<int>(i) + 1;
        while (mwt < s.multiwordTokens.size() && s.multiwordTokens[mwt].first == id)
            appendColumns(out, s.multiwordTokens[mwt++].columns);
        const Token &t = s.tokens[i];
        out += std::to_string(id);
        out += '\t';
        appendField(out, t.text);
        out += '\t';
        appendField(out, t.lemma);
        out += '\t';
        appendField(out, t.upos);
        out += '\t';
        appendField(out, t.xpos);
        out += '\t';
        appendField(out, t.feats);
        out += '\t';
        if (deps && s.dependency->heads[i] >= 0) {
            out += std::to_string(s.dependency->heads[i]);
            out += '\t';
            appendField(out, s.dependency->deprels[i]);
        } else {
            out += "_\t";
            appendField(out, deps ? s.dependency->deprels[i] : std::string());
        }
        out += '\t';
        appendField(out, t.deps);
        out += '\t';
        appendField(out, t.misc);
        out += '\n';
        emitEmpty(id);
    }
    out += '\n';
}

std::string writeConllu(const std::vector<Sentence> &sentences)
{
    std::string out;
    for (const auto &s : sentences)
        appendConllu(out, s);
    return out;
}

} // namespace treelens
