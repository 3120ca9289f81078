// LaTeX export: hand-checked forest / tikz-dependency output, escaping of every
// special character (also over all EWT test words), and compiling the standalone
// documents with pdflatex when it is installed.
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <unistd.h>

#include "core/base/fileio.h"
#include "core/formats/conllu.h"
#include "core/formats/latex.h"
#include "core/formats/ptb.h"
#include "testutil.h"

using namespace treelens;

namespace {

ConstituencyTree tree(const std::string &ptb)
{
    auto t = readPtb(ptb, "t");
    EXPECT_TRUE(t.ok()) << (t.ok() ? "" : t.message());
    return t.ok() && !t->empty() ? t->front() : ConstituencyTree{};
}

Sentence catSentence()
{
    Sentence s;
    const char *words[] = {"The", "cat", "sat", "down"};
    const char *upos[] = {"DET", "NOUN", "VERB", "ADV"};
    for (int i = 0; i < 4; ++i) {
        Token t;
        t.text = words[i];
        t.upos = upos[i];
        s.tokens.push_back(t);
    }
    s.dependency = DependencyTree{{2, 3, 0, 3}, {"det", "nsubj", "root", "compound:prt"}};
    return s;
}

/// Independent check of escaped text: every \ starts a known escape, braces
/// balance, no raw & % $ # _ ~ ^ remain, and [ ] only appear inside braces.
::testing::AssertionResult wellEscaped(const std::string &e)
{
    static const std::set<std::string> commands = {"textbackslash", "textasciitilde", "textasciicircum",
                                                   "textless", "textgreater", "textbar"};
    int depth = 0;
    for (std::size_t i = 0; i < e.size(); ++i) {
        const char c = e[i];
        if (c == '\\') {
            if (i + 1 >= e.size())
                return ::testing::AssertionFailure() << "trailing backslash in '" << e << "'";
            const char n = e[i + 1];
            if (std::string("&%$#_{}").find(n) != std::string::npos) {
                ++i;
                continue;
            }
            std::size_t j = i + 1;
            while (j < e.size() && std::isalpha(static_cast<unsigned char>(e[j])))
                ++j;
            const std::string name = e.substr(i + 1, j - i - 1);
            if (!commands.count(name))
                return ::testing::AssertionFailure() << "unknown command '\\" << name << "' in '" << e << "'";
            i = j - 1;
        } else if (c == '{') {
            ++depth;
        } else if (c == '}') {
            if (--depth < 0)
                return ::testing::AssertionFailure() << "unbalanced '}' in '" << e << "'";
        } else if (std::string("&%$#_~^").find(c) != std::string::npos) {
            return ::testing::AssertionFailure() << "unescaped '" << c << "' in '" << e << "'";
        } else if ((c == '[' || c == ']') && depth == 0) {
            return ::testing::AssertionFailure() << "unbraced '" << c << "' in '" << e << "'";
        } else if (static_cast<unsigned char>(c) < 0x20) {
            return ::testing::AssertionFailure() << "control character in '" << e << "'";
        }
    }
    if (depth != 0)
        return ::testing::AssertionFailure() << "unbalanced '{' in '" << e << "'";
    return ::testing::AssertionSuccess();
}

/// Reverses the escaping (what a reader sees on the page), to check nothing is lost.
std::string unescape(const std::string &e)
{
    static const std::pair<const char *, char> commands[] = {
        {"\\textbackslash{}", '\\'}, {"\\textasciitilde{}", '~'}, {"\\textasciicircum{}", '^'},
        {"\\textless{}", '<'},       {"\\textgreater{}", '>'},    {"\\textbar{}", '|'},
        {"{[}", '['},                {"{]}", ']'}};
    std::string out;
    for (std::size_t i = 0; i < e.size();) {
        bool matched = false;
        for (const auto &[cmd, ch] : commands) {
            const std::string c = cmd;
            if (e.compare(i, c.size(), c) == 0) {
                out += ch;
                i += c.size();
                matched = true;
                break;
            }
        }
        if (matched)
            continue;
        if (e.compare(i, 2, "{}") == 0) { // ligature breaker
            i += 2;
        } else if (e[i] == '\\' && i + 1 < e.size()) {
            out += e[i + 1];
            i += 2;
        } else {
            out += e[i++];
        }
    }
    return out;
}

bool onPath(const char *tool)
{
    return std::system((std::string("command -v ") + tool + " >/dev/null 2>&1").c_str()) == 0;
}

/// The build directories of one test, removed when it ends.
struct BuildDirs {
    std::vector<std::filesystem::path> dirs;
    ~BuildDirs()
    {
        std::error_code ec;
        for (const auto &d : dirs)
            std::filesystem::remove_all(d, ec);
    }
};

/// Compiles `tex` in a fresh directory; returns the PDF path or "" (and the log through `log`).
std::string compile(BuildDirs &dirs, const std::string &name, const std::string &tex, std::string &log)
{
    namespace fs = std::filesystem;
    const fs::path dir = fs::temp_directory_path() / ("treelens-latex-" + std::to_string(::getpid()) + "-" + name);
    dirs.dirs.push_back(dir);
    fs::remove_all(dir);
    fs::create_directories(dir);
    std::ofstream(dir / (name + ".tex")) << tex;
    const std::string cmd = "cd '" + dir.string() + "' && pdflatex -interaction=nonstopmode -halt-on-error " + name
                            + ".tex > build.out 2>&1";
    const int rc = std::system(cmd.c_str());
    std::ifstream in(dir / "build.out");
    std::stringstream ss;
    ss << in.rdbuf();
    log = ss.str();
    const fs::path pdf = dir / (name + ".pdf");
    if (rc != 0 || !fs::exists(pdf) || fs::file_size(pdf) == 0)
        return {};
    return pdf.string();
}

std::string pdfText(const std::string &pdf)
{
    const std::string txt = pdf + ".txt";
    if (std::system(("pdftotext '" + pdf + "' '" + txt + "' 2>/dev/null").c_str()) != 0)
        return {};
    std::ifstream in(txt);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

} // namespace

TEST(Latex, EscapesEverySpecialCharacter)
{
    EXPECT_EQ(escapeLatex("a&b%c$d#e_f{g}h~i^j\\k"),
              "a\\&b\\%c\\$d\\#e\\_f\\{g\\}h\\textasciitilde{}i\\textasciicircum{}j\\textbackslash{}k");
    EXPECT_EQ(escapeLatex("[x]"), "{[}x{]}");
    EXPECT_EQ(escapeLatex("<a|b>"), "\\textless{}a\\textbar{}b\\textgreater{}");
    EXPECT_EQ(escapeLatex("--"), "-{}-");
    EXPECT_EQ(escapeLatex("``x''"), "`{}`x'{}'");
    EXPECT_EQ(escapeLatex("a\tb\nc"), "a b c");
    EXPECT_EQ(escapeLatex("naïve"), "naïve"); // UTF-8 passes through
    EXPECT_EQ(escapeLatex(""), "");
    for (const char *w : {"\\", "}{", "{{", "\\\\}", "a_b^c", "[[]]", "~~", "\\textbf{x}"}) {
        EXPECT_TRUE(wellEscaped(escapeLatex(w))) << w;
        EXPECT_EQ(unescape(escapeLatex(w)), w);
    }
}

TEST(Latex, EscapesAllEwtTestWords)
{
    const std::string rel = "data/ud-english-ewt/en_ewt-ud-test.conllu";
    TREELENS_REQUIRE_SHARED(rel);
    auto text = readFile(test::sharedPath(rel));
    ASSERT_TRUE(text.ok()) << text.message();
    auto sentences = readConllu(*text, rel);
    ASSERT_TRUE(sentences.ok()) << sentences.message();
    std::size_t checked = 0;
    std::set<char> specialsSeen;
    for (const auto &s : *sentences) {
        for (const auto &t : s.tokens) {
            for (const std::string *w : {&t.text, &t.lemma, &t.upos}) {
                const std::string e = escapeLatex(*w);
                ASSERT_TRUE(wellEscaped(e)) << s.id;
                ASSERT_EQ(unescape(e), *w) << s.id;
                for (char c : *w)
                    if (std::string("&%$#_{}~^\\[]<>|").find(c) != std::string::npos)
                        specialsSeen.insert(c);
                ++checked;
            }
        }
    }
    EXPECT_GT(checked, 50000u);
    // The corpus really exercises the escaping (it has e-mail addresses, prices, smileys).
    EXPECT_GE(specialsSeen.size(), 5u);
}

TEST(Latex, ForestForFourWords)
{
    LatexOptions opt;
    opt.standalone = false;
    // The unlabeled PTB wrapper is dropped.
    const std::string out = constituencyToForest(tree("( (S (NP (DT The) (NN cat)) (VP (VBD sat) (RB down))) )"), opt);
    EXPECT_EQ(out, "% needs \\usepackage{forest}\n"
                   "\\begin{forest}\n"
                   "  for tree={s sep=2mm, l sep=3mm},\n"
                   "  where n children=0{tier=word}{},\n"
                   "  [S\n"
                   "    [NP\n"
                   "      [DT [The]]\n"
                   "      [NN [cat]]]\n"
                   "    [VP\n"
                   "      [VBD [sat]]\n"
                   "      [RB [down]]]]\n"
                   "\\end{forest}\n");
}

TEST(Latex, ForestProtectsNodeContentAndDropsTraces)
{
    LatexOptions opt;
    opt.standalone = false;
    const std::string out = constituencyToForest(
        tree("(S (NP-SBJ (-NONE- *T*-1)) (NP (CD 1,000) (SYM x=y) (-LRB- -LRB-) (NN [a]) (NN a_b)))"), opt);
    EXPECT_EQ(out.find("NONE"), std::string::npos) << out;
    EXPECT_EQ(out.find("NP-SBJ"), std::string::npos) << "trace-only constituent kept:\n" << out;
    EXPECT_NE(out.find("[CD [{1,000}]]"), std::string::npos) << out;
    EXPECT_NE(out.find("[SYM [{x=y}]]"), std::string::npos) << out;
    EXPECT_NE(out.find("[-LRB- [(]]"), std::string::npos) << out; // the word is shown as "(", the tag kept
    EXPECT_NE(out.find("[NN [{[}a{]}]]"), std::string::npos) << out;
    EXPECT_NE(out.find("[NN [a\\_b]]"), std::string::npos) << out;
    EXPECT_EQ(constituencyToForest(ConstituencyTree{}, opt), "");
}

TEST(Latex, TikzDependencyForFourWords)
{
    LatexOptions opt;
    opt.standalone = false;
    const Sentence s = catSentence();
    EXPECT_EQ(dependencyToTikzDependency(s, opt),
              "% needs \\usepackage{tikz-dependency}\n"
              "\\begin{dependency}[text theme=simple, label theme=simple]\n"
              "  \\begin{deptext}[column sep=0.6em, row 2/.style={font=\\scriptsize\\sffamily}]\n"
              "    The \\& cat \\& sat \\& down \\\\\n"
              "    DET \\& NOUN \\& VERB \\& ADV \\\\\n"
              "  \\end{deptext}\n"
              "  \\depedge[edge height=3ex]{2}{1}{det}\n"
              "  \\depedge[edge height=3ex]{3}{2}{nsubj}\n"
              "  \\deproot[edge height=6ex]{3}{root}\n"
              "  \\depedge[edge height=3ex]{3}{4}{compound:prt}\n"
              "\\end{dependency}\n");

    // Attention arcs: weight 1 and 0 give the extremes of opacity and width; a
    // weight above 1 is clamped, self-arcs and out-of-range words are skipped.
    const std::vector<LatexArc> arcs = {{1, 0, 1.0f}, {3, 2, 0.0f}, {0, 3, 2.0f}, {2, 2, 0.9f}, {0, 4, 0.5f}};
    const std::string out = dependencyToTikzDependency(s, opt, &arcs);
    const std::string full = "  \\depedge[edge below, edge height=3ex, edge style={draw=blue!60!black, draw opacity=1.00, "
                             "line width=2.00pt}, label style={below, font=\\tiny, text opacity=1.00}]{2}{1}{1.00}\n";
    const std::string faint = "  \\depedge[edge below, edge height=3ex, edge style={draw=blue!60!black, draw opacity=0.15, "
                              "line width=0.30pt}, label style={below, font=\\tiny, text opacity=0.40}]{4}{3}{0.00}\n";
    EXPECT_NE(out.find(full), std::string::npos) << out;
    EXPECT_NE(out.find(faint), std::string::npos) << out;
    // The arc over words 1..4 encloses the other two, so it is one level lower.
    EXPECT_NE(out.find("[edge below, edge height=6ex, edge style={draw=blue!60!black, draw opacity=1.00, "
                       "line width=2.00pt}, label style={below, font=\\tiny, text opacity=1.00}]{1}{4}{1.00}\n"),
              std::string::npos) << out;
    EXPECT_EQ(out.find("{3}{3}"), std::string::npos) << out;
    EXPECT_EQ(out.find("{1}{5}"), std::string::npos) << out;
}

TEST(Latex, AttentionArcsCarryTheirCaption)
{
    LatexOptions opt;
    opt.standalone = false;
    opt.attentionCaption = "Arcs: attention, layer 3, head 1 & more";
    const Sentence s = catSentence();
    const std::vector<LatexArc> arcs = {{1, 0, 1.0f}};
    const std::string out = dependencyToTikzDependency(s, opt, &arcs);
    // A comment above the figure, and a node under the arcs with the text escaped.
    EXPECT_EQ(out.rfind("% needs \\usepackage{tikz-dependency}\n% Arcs: attention, layer 3, head 1 & more\n", 0), 0u) << out;
    EXPECT_NE(out.find("  \\node[anchor=north west, inner sep=0pt, font=\\scriptsize] at ([yshift=-6pt]current bounding "
                       "box.south west) {Arcs: attention, layer 3, head 1 \\& more};\n\\end{dependency}"),
              std::string::npos)
        << out;
    // No arcs, no caption.
    EXPECT_EQ(dependencyToTikzDependency(s, opt).find("Arcs:"), std::string::npos);
}

TEST(Latex, ArcsStackByNesting)
{
    // A B C D with B the root: B→A and D→C are innermost (level 1), B→D encloses
    // D→C (level 2), and the root arrow comes from above both (level 3).
    Sentence s;
    for (const char *w : {"A", "B", "C", "D"}) {
        Token t;
        t.text = w;
        s.tokens.push_back(t);
    }
    s.dependency = DependencyTree{{2, 0, 4, 2}, {"a", "root", "c", "d"}};
    LatexOptions opt;
    opt.standalone = false;
    const std::string out = dependencyToTikzDependency(s, opt);
    EXPECT_NE(out.find("  \\depedge[edge height=3ex]{2}{1}{a}\n"
                       "  \\deproot[edge height=9ex]{2}{root}\n"
                       "  \\depedge[edge height=3ex]{4}{3}{c}\n"
                       "  \\depedge[edge height=6ex]{2}{4}{d}\n"),
              std::string::npos)
        << out;
}

TEST(Latex, DependencyEscapesWordsAndLabels)
{
    Sentence s;
    for (const char *w : {"AT&T", "50%", "a_b"}) {
        Token t;
        t.text = w;
        s.tokens.push_back(t);
    }
    s.dependency = DependencyTree{{0, 1, -1}, {"", "nmod_x", "dep"}};
    LatexOptions opt;
    opt.standalone = false;
    const std::string out = dependencyToTikzDependency(s, opt);
    // \& separates deptext columns, so a literal ampersand is set by its code.
    EXPECT_NE(out.find("    AT\\symbol{38}T \\& 50\\% \\& a\\_b \\\\\n"), std::string::npos) << out;
    EXPECT_EQ(out.find("row 2/"), std::string::npos) << "no UPOS row without UPOS:\n" << out;
    EXPECT_NE(out.find("\\deproot[edge height=6ex]{1}{root}"), std::string::npos) << out;
    EXPECT_NE(out.find("\\depedge[edge height=3ex]{1}{2}{nmod\\_x}"), std::string::npos) << out;
    EXPECT_EQ(out.find("{3}{dep}"), std::string::npos) << "a word without a head gets no arc:\n" << out;
}

TEST(Latex, StandaloneDocumentsCompile)
{
    if (!onPath("pdflatex"))
        GTEST_SKIP() << "pdflatex not installed; LaTeX not compiled";
    const std::string specials =
        "(S (NP (NNP AT&T) (POS 's)) (VP (VBD paid) (NP ($ $) (CD 1,000) (NN 100%) (NN a_b) (NN {x}) (NN [y]) "
        "(NN ~^\\\\) (NN #1) (NN x=y) (: --) (SYM <|>))) (. .))";
    BuildDirs dirs;
    std::string log;
    const std::string pdf = compile(dirs, "forest", constituencyToForest(tree(specials)), log);
    ASSERT_FALSE(pdf.empty()) << log;
    if (onPath("pdftotext")) {
        const std::string text = pdfText(pdf);
        for (const char *w : {"AT&T", "1,000", "100%", "#1", "x=y", "$", "paid"})
            EXPECT_NE(text.find(w), std::string::npos) << w << " not in the PDF text:\n" << text;
    }

    Sentence s = catSentence();
    s.tokens[1].text = "c&t_%{x}";
    const std::vector<LatexArc> arcs = {{1, 0, 0.8f}, {3, 1, 0.2f}};
    ASSERT_FALSE(compile(dirs, "dependency", dependencyToTikzDependency(s, {}, &arcs), log).empty()) << log;
}

TEST(Latex, LongSentencesCompile)
{
    if (!onPath("pdflatex"))
        GTEST_SKIP() << "pdflatex not installed; LaTeX not compiled";
    const std::string rel = "data/ud-english-ewt/en_ewt-ud-test.conllu";
    TREELENS_REQUIRE_SHARED(rel);
    auto text = readFile(test::sharedPath(rel));
    ASSERT_TRUE(text.ok()) << text.message();
    auto sentences = readConllu(*text, rel);
    ASSERT_TRUE(sentences.ok()) << sentences.message();
    const Sentence *longOne = nullptr;
    for (const auto &s : *sentences)
        if (s.tokens.size() >= 40 && s.dependency) {
            longOne = &s;
            break;
        }
    ASSERT_NE(longOne, nullptr);
    std::vector<LatexArc> arcs;
    for (int i = 0; i + 3 < static_cast<int>(longOne->tokens.size()); i += 5)
        arcs.push_back({i, i + 3, static_cast<float>(i * 7 % 11) / 10.0f});
    BuildDirs dirs;
    std::string log;
    EXPECT_FALSE(compile(dirs, "ewt40", dependencyToTikzDependency(*longOne, {}, &arcs), log).empty())
        << longOne->id << "\n" << log;

    // A 40+-word WSJ tree with traces, when the PTB sample is there.
    const std::string wsj = test::sharedPath("data/ptb-sample/wsj_0001.mrg");
    if (wsj.empty() || !test::pathExists(wsj))
        return;
    const std::string dir = test::sharedPath("data/ptb-sample");
    for (const auto &entry : std::filesystem::directory_iterator(dir)) {
        if (entry.path().extension() != ".mrg")
            continue;
        auto mrg = readFile(entry.path().string());
        ASSERT_TRUE(mrg.ok());
        auto trees = readPtb(*mrg, entry.path().string());
        ASSERT_TRUE(trees.ok()) << trees.message();
        for (const auto &t : *trees) {
            if (t.wordCount() < 40)
                continue;
            EXPECT_FALSE(compile(dirs, "wsj40", constituencyToForest(t), log).empty()) << entry.path() << "\n" << log;
            return;
        }
    }
}
