#include "core/formats/latex.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>

#include "core/formats/ptb.h"

namespace treelens {

namespace {

// The preamble both documents share. T1 + lmodern give real < > | " glyphs and
// vector fonts; without lmodern the default OT1 Computer Modern (Type 1, always
// installed) is used rather than T1 bitmap fonts, and escapeLatex only emits
// commands that exist in both encodings.
const char *const kPreamble = "\\documentclass[border=4pt]{standalone}\n"
                              "\\IfFileExists{lmodern.sty}{\\usepackage[T1]{fontenc}\\usepackage{lmodern}}{}\n";

/// A number in [0, 99.99] with two decimals, independent of the C locale (Qt
/// applications set LC_NUMERIC from the environment, and "0,42" would split a
/// TikZ option list).
std::string fixed2(double v)
{
    if (!std::isfinite(v) || v < 0.0)
        v = 0.0;
    const long hundredths = std::lround(v * 100.0);
    char buf[32];
    std::snprintf(buf, sizeof buf, "%ld.%02ld", hundredths / 100, hundredths % 100);
    return buf;
}

/// Forest node content: escaped, and braced when it holds a comma or '=' (which
/// forest would otherwise read as the start of the node's options).
std::string forestContent(const std::string &text)
{
    std::string e = escapeLatex(text);
    if (e.find_first_of(",=") != std::string::npos)
        e = "{" + e + "}";
    return e;
}

/// Escape for a deptext cell: tikz-dependency uses \& as its column separator,
/// so a literal ampersand must be a glyph by number instead.
std::string deptextCell(const std::string &text)
{
    const std::string e = escapeLatex(text);
    std::string out;
    out.reserve(e.size());
    for (std::size_t i = 0; i < e.size(); ++i) {
        if (e[i] == '\\' && i + 1 < e.size() && e[i + 1] == '&') {
            out += "\\symbol{38}";
            ++i;
        } else if (e[i] == '\\' && i + 1 < e.size()) {
            // Copy any other two-character escape whole so "\\&" inside "\textbackslash{}" never matches.
            out += e[i];
            out += e[i + 1];
            ++i;
        } else {
            out += e[i];
        }
    }
    return out;
}

struct Arc {
    int lo = 0;
    int hi = 0;
    int level = 1;
};

/// Stacking levels for arcs drawn on one side of the words, so nested and
/// crossing arcs never share a height: shorter arcs first, each one level above
/// every arc already placed that overlaps its interior (arcs meeting only at a
/// word share a level). A height per level instead of tikz-dependency's
/// default (proportional to the distance) keeps long sentences compact.
void assignLevels(std::vector<Arc> &arcs)
{
    std::vector<std::size_t> order(arcs.size());
    for (std::size_t i = 0; i < order.size(); ++i)
        order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        return arcs[a].hi - arcs[a].lo < arcs[b].hi - arcs[b].lo;
    });
    for (std::size_t k = 0; k < order.size(); ++k) {
        Arc &a = arcs[order[k]];
        a.level = 1;
        for (std::size_t j = 0; j < k; ++j) {
            const Arc &b = arcs[order[j]];
            if (b.lo < a.hi && a.lo < b.hi)
                a.level = std::max(a.level, b.level + 1);
        }
    }
}

/// Height of a level: 3ex per level leaves room for a \scriptsize label on each line.
std::string levelHeight(int level)
{
    return std::to_string(3 * level) + "ex";
}

} // namespace

std::string escapeLatex(const std::string &text)
{
    std::string out;
    out.reserve(text.size() + text.size() / 4);
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        const char next = i + 1 < text.size() ? text[i + 1] : '\0';
        switch (c) {
        case '&': case '%': case '$': case '#': case '_': case '{': case '}':
            out += '\\';
            out += c;
            break;
        case '\\': out += "\\textbackslash{}"; break;
        case '~': out += "\\textasciitilde{}"; break;
        case '^': out += "\\textasciicircum{}"; break;
        case '<': out += "\\textless{}"; break;
        case '>': out += "\\textgreater{}"; break;
        case '|': out += "\\textbar{}"; break;
        // Braced so a bracket after a command is never taken as its optional argument.
        case '[': out += "{[}"; break;
        case ']': out += "{]}"; break;
        case '\t': case '\n': case '\r': case '\f': case '\v':
            out += ' ';
            break;
        default:
            if (static_cast<unsigned char>(c) < 0x20) // other control characters are not text
                break;
            out += c;
            // Break the font ligatures that would turn "--" into a dash or "''" into a quote.
            if ((c == '-' && next == '-') || (c == '\'' && next == '\'') || (c == '`' && next == '`')
                || ((c == '!' || c == '?') && next == '`') || (c == ',' && next == ','))
                out += "{}";
            break;
        }
    }
    return out;
}

std::string constituencyToForest(const ConstituencyTree &tree, const LatexOptions &opt)
{
    if (tree.empty())
        return {};
    const int top = tree.contentRoot();
    const auto &nodes = tree.nodes();

    // Which nodes cover at least one word: traces and trace-only constituents are left out.
    std::vector<char> hasWord(nodes.size(), 0);
    std::function<bool(int)> mark = [&](int i) {
        const auto &n = tree.node(i);
        bool any = n.terminal && n.wordIndex >= 0;
        for (int c : n.children)
            any = mark(c) || any;
        hasWord[static_cast<std::size_t>(i)] = any;
        return any;
    };
    if (!mark(top))
        return {};

    std::string body;
    std::function<void(int, int)> emit = [&](int i, int depth) {
        const auto &n = tree.node(i);
        body += std::string(static_cast<std::size_t>(2 * depth + 2), ' ');
        if (n.terminal) {
            body += "[" + forestContent(ptbUnescape(n.label)) + "]";
            return;
        }
        body += "[" + forestContent(n.label);
        if (tree.isPreterminal(i)) {
            // POS and word on one line: "[DT [The]]".
            body += " [" + forestContent(ptbUnescape(tree.node(n.children[0]).label)) + "]]";
            return;
        }
        for (int c : n.children) {
            if (!hasWord[static_cast<std::size_t>(c)])
                continue;
            body += "\n";
            emit(c, depth + 1);
        }
        body += "]";
    };
    emit(top, 0);

    std::string out;
    if (opt.standalone)
        out += std::string(kPreamble) + "\\usepackage{forest}\n\\begin{document}\n";
    else
        out += "% needs \\usepackage{forest}\n";
    out += "\\begin{forest}\n"
           "  for tree={s sep=2mm, l sep=3mm},\n"
           "  where n children=0{tier=word}{},\n";
    out += body;
    out += "\n\\end{forest}\n";
    if (opt.standalone)
        out += "\\end{document}\n";
    return out;
}

std::string dependencyToTikzDependency(const Sentence &s, const LatexOptions &opt, const std::vector<LatexArc> *attention)
{
    const int n = static_cast<int>(s.tokens.size());
    std::string out;
    if (opt.standalone)
        out += std::string(kPreamble) + "\\usepackage{tikz-dependency}\n\\begin{document}\n";
    else
        out += "% needs \\usepackage{tikz-dependency}\n";
    const bool withUpos = std::any_of(s.tokens.begin(), s.tokens.end(),
                                      [](const Token &t) { return !t.upos.empty() && t.upos != "_"; });
    if (attention && !attention->empty() && !opt.attentionCaption.empty())
        out += "% " + opt.attentionCaption + "\n";
    out += "\\begin{dependency}[text theme=simple, label theme=simple]\n";
    out += withUpos ? "  \\begin{deptext}[column sep=0.6em, row 2/.style={font=\\scriptsize\\sffamily}]\n"
                    : "  \\begin{deptext}[column sep=0.6em]\n";
    auto row = [&](const std::function<std::string(const Token &)> &cell) {
        out += "    ";
        for (int i = 0; i < n; ++i) {
            if (i > 0)
                out += " \\& ";
            out += deptextCell(cell(s.tokens[static_cast<std::size_t>(i)]));
        }
        out += " \\\\\n";
    };
    row([](const Token &t) { return t.text; });
    if (withUpos)
        row([](const Token &t) { return t.upos == "_" ? std::string() : t.upos; });
    out += "  \\end{deptext}\n";

    if (s.dependency) {
        const auto &d = *s.dependency;
        // Arcs above the words get stacking levels; roots hang from above them all.
        std::vector<Arc> arcs;
        std::vector<int> arcDep; // the 1-based dependent of each arc
        for (int i = 0; i < n && i < static_cast<int>(d.heads.size()); ++i) {
            const int h = d.heads[static_cast<std::size_t>(i)];
            if (h >= 1 && h <= n && h != i + 1) {
                arcs.push_back({std::min(h, i + 1), std::max(h, i + 1), 1});
                arcDep.push_back(i + 1);
            }
        }
        assignLevels(arcs);
        int top = 0;
        for (const auto &a : arcs)
            top = std::max(top, a.level);
        auto rel = [&](int dep) {
            const auto k = static_cast<std::size_t>(dep - 1);
            return k < d.deprels.size() ? d.deprels[k] : std::string();
        };
        std::size_t next = 0;
        for (int i = 0; i < n && i < static_cast<int>(d.heads.size()); ++i) {
            if (d.heads[static_cast<std::size_t>(i)] == 0) {
                const std::string r = rel(i + 1);
                out += "  \\deproot[edge height=" + levelHeight(top + 1) + "]{" + std::to_string(i + 1) + "}{"
                       + escapeLatex(r.empty() ? "root" : r) + "}\n";
            } else if (next < arcDep.size() && arcDep[next] == i + 1) {
                out += "  \\depedge[edge height=" + levelHeight(arcs[next].level) + "]{"
                       + std::to_string(d.heads[static_cast<std::size_t>(i)]) + "}{" + std::to_string(i + 1) + "}{"
                       + escapeLatex(rel(i + 1)) + "}\n";
                ++next;
            }
        }
    }

    if (attention) {
        std::vector<LatexArc> shown;
        std::vector<Arc> arcs;
        for (const auto &a : *attention) {
            // tikz-dependency cannot draw an arc from a word to itself.
            if (a.from == a.to || a.from < 0 || a.to < 0 || a.from >= n || a.to >= n)
                continue;
            shown.push_back(a);
            arcs.push_back({std::min(a.from, a.to), std::max(a.from, a.to), 1});
        }
        assignLevels(arcs);
        for (std::size_t k = 0; k < shown.size(); ++k) {
            const auto &a = shown[k];
            const double w = std::isfinite(a.weight) ? std::clamp(static_cast<double>(a.weight), 0.0, 1.0) : 0.0;
            out += "  \\depedge[edge below, edge height=" + levelHeight(arcs[k].level)
                   + ", edge style={draw=blue!60!black, draw opacity=" + fixed2(0.15 + 0.85 * w) + ", line width="
                   + fixed2(0.3 + 1.7 * w) + "pt}, label style={below, font=\\tiny, text opacity=" + fixed2(0.4 + 0.6 * w)
                   + "}]{" + std::to_string(a.from + 1) + "}{" + std::to_string(a.to + 1) + "}{"
                   + (opt.attentionLabels ? fixed2(w) : std::string()) + "}\n";
        }
        if (!shown.empty() && !opt.attentionCaption.empty())
            // Under everything drawn so far: the bounding box includes the arcs.
            out += "  \\node[anchor=north west, inner sep=0pt, font=\\scriptsize] at "
                   "([yshift=-6pt]current bounding box.south west) {" + escapeLatex(opt.attentionCaption) + "};\n";
    }
    out += "\\end{dependency}\n";
    if (opt.standalone)
        out += "\\end{document}\n";
    return out;
}

} // namespace treelens
