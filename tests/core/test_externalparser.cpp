// The "external" parser backend against small shell scripts written to a temp dir.
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <string>

#include <sys/stat.h>
#include <unistd.h>

#include "core/parsing/externalparser.h"
#include "core/parsing/parser.h"
#include "testutil.h"

using namespace treelens;

namespace {

class ExternalParserTest : public ::testing::Test {
protected:
    void SetUp() override
    {
        char tmpl[] = "/tmp/treelens-external-XXXXXX";
        ASSERT_NE(::mkdtemp(tmpl), nullptr);
        m_dir = tmpl;
        // Right-branching chain: word i is headed by word i-1 (word 1 by the root).
        // UPOS echoes TREELENS_INPUT_FORMAT so the tests see the environment.
        writeScript("chain.sh", "#!/bin/sh\n"
                                "awk -v fmt=\"$TREELENS_INPUT_FORMAT\" '{ for (i = 1; i <= NF; i++) "
                                "printf \"%d\\t%s\\t_\\t%s\\tXX\\t_\\t%d\\t%s\\t_\\t_\\n\", i, $i, fmt, i - 1, (i == 1 ? \"root\" : \"dep\"); "
                                "print \"\" }'\n");
        writeScript("garbage.sh", "#!/bin/sh\ncat >/dev/null\necho 'hello world'\n");
        writeScript("extra.sh", "#!/bin/sh\n"
                                "awk '{ for (i = 1; i <= NF + 1; i++) printf \"%d\\tw\\t_\\t_\\t_\\t_\\t%d\\tdep\\t_\\t_\\n\", i, i - 1; print \"\" }'\n");
        writeScript("fail.sh", "#!/bin/sh\necho 'loading model' >&2\necho 'model file missing' >&2\nexit 3\n");
        // Floods stderr (more than any pipe buffer) before reading its input, then
        // writes a valid parse: deadlocks if stderr is not read concurrently.
        writeScript("noisy.sh", "#!/bin/sh\nhead -c 1000000 /dev/zero | tr '\\0' x >&2\necho >&2\necho 'done' >&2\n"
                                "exec sh " + m_dir + "/chain.sh\n");
        writeScript("tworoots.sh", "#!/bin/sh\ncat >/dev/null\n"
                                   "printf '1\\ta\\t_\\t_\\t_\\t_\\t0\\troot\\t_\\t_\\n2\\tb\\t_\\t_\\t_\\t_\\t0\\troot\\t_\\t_\\n\\n'\n");
    }
    void TearDown() override
    {
        if (!m_dir.empty())
            std::system(("rm -rf '" + m_dir + "'").c_str());
    }

    void writeScript(const std::string &name, const std::string &text)
    {
        const std::string path = m_dir + "/" + name;
        std::ofstream(path) << text;
        ::chmod(path.c_str(), 0755);
    }
    std::string script(const std::string &name) const { return m_dir + "/" + name; }

    static Sentence sentence(const std::vector<std::string> &words)
    {
        Sentence s;
        s.id = "s1";
        for (const auto &w : words) {
            Token t;
            t.text = w;
            t.lemma = "lemma-" + w;
            t.upos = "INPUT";
            s.tokens.push_back(t);
        }
        return s;
    }

    static std::unique_ptr<Parser> make(const std::string &command, double timeout = 10.0, int maxWords = 250)
    {
        ParserConfig c;
        c.backend = "external";
        c.command = command;
        c.timeoutSeconds = timeout;
        c.maxWords = maxWords;
        auto p = createParser(c);
        EXPECT_TRUE(p.ok()) << p.message();
        return p.ok() ? std::move(*p) : nullptr;
    }

    std::string m_dir;
};

} // namespace

TEST_F(ExternalParserTest, IsListedAndNeedsACommand)
{
    bool found = false;
    for (const auto &p : availableParsers())
        if (p.name == "external") {
            found = true;
            EXPECT_TRUE(p.dependencies);
            EXPECT_FALSE(p.constituencies);
        }
    EXPECT_TRUE(found);
    ParserConfig c;
    c.backend = "external";
    auto p = createParser(c);
    ASSERT_FALSE(p.ok());
    EXPECT_NE(p.message().find("no command"), std::string::npos) << p.message();
}

TEST_F(ExternalParserTest, ParsesWithAChainScript)
{
    auto p = make("sh " + script("chain.sh"));
    ASSERT_TRUE(p);
    // "New York" holds a space: sent as "New_York", kept as "New York".
    const Sentence in = sentence({"I", "love", "New York", "!"});
    auto r = p->parse(in);
    ASSERT_TRUE(r.ok()) << r.message();
    ASSERT_TRUE(r->dependency.has_value());
    EXPECT_EQ(r->dependency->heads, (std::vector<int>{0, 1, 2, 3}));
    EXPECT_EQ(r->dependency->deprels, (std::vector<std::string>{"root", "dep", "dep", "dep"}));
    EXPECT_EQ(r->words(), (std::vector<std::string>{"I", "love", "New York", "!"}));
    for (const auto &t : r->tokens) {
        EXPECT_EQ(t.upos, "tokens"); // TREELENS_INPUT_FORMAT reached the command
        EXPECT_EQ(t.xpos, "XX");
        EXPECT_EQ(t.lemma, "lemma-" + t.text); // the input's columns are kept
    }
    EXPECT_EQ(r->metadataValue("parser"), "external");
    EXPECT_EQ(r->id, "s1");

    // Direct path to an executable script, and parseAll over several sentences.
    auto q = make(script("chain.sh"));
    ASSERT_TRUE(q);
    auto all = q->parseAll({sentence({"a"}), sentence({"b", "c"}), sentence({"d", "e", "f"})});
    ASSERT_TRUE(all.ok()) << all.message();
    ASSERT_EQ(all->size(), 3u);
    EXPECT_EQ((*all)[2].dependency->heads, (std::vector<int>{0, 1, 2}));
}

TEST_F(ExternalParserTest, GarbageOutputIsAnError)
{
    auto r = make(script("garbage.sh"))->parse(sentence({"a", "b"}));
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.message().find("did not write valid CoNLL-U"), std::string::npos) << r.message();
    EXPECT_NE(r.message().find("garbage.sh"), std::string::npos) << r.message();

    auto t = make(script("tworoots.sh"))->parse(sentence({"a", "b"}));
    ASSERT_FALSE(t.ok());
    EXPECT_NE(t.message().find("root"), std::string::npos) << t.message();
}

TEST_F(ExternalParserTest, WrongWordCountNamesCommandAndCounts)
{
    auto r = make(script("extra.sh"))->parse(sentence({"a", "b", "c"}));
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.message().find("extra.sh"), std::string::npos) << r.message();
    EXPECT_NE(r.message().find("returned 4 words for 3 tokens"), std::string::npos) << r.message();
}

TEST_F(ExternalParserTest, TimeoutKillsTheProcessGroup)
{
    // The outer shell waits for an inner one: both must die for parse() to return.
    auto p = make("sh -c 'sleep 20'; echo late", 0.5);
    const auto t0 = std::chrono::steady_clock::now();
    auto r = p->parse(sentence({"a"}));
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.message().find("external parser: no output within 0.5 s"), std::string::npos) << r.message();
    EXPECT_LT(secs, 3.0);
    EXPECT_GE(secs, 0.45);
}

TEST_F(ExternalParserTest, ExitStatusAndStderrLastLine)
{
    auto r = make(script("fail.sh"))->parse(sentence({"a"}));
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.message().find("exited with status 3: model file missing"), std::string::npos) << r.message();

    auto nf = make("/nonexistent/treelens-parser-xyz --model m")->parse(sentence({"a"}));
    ASSERT_FALSE(nf.ok());
    EXPECT_NE(nf.message().find("external parser: command not found: /nonexistent/treelens-parser-xyz --model m"), std::string::npos)
        << nf.message();
}

TEST_F(ExternalParserTest, LargeStderrDoesNotDeadlock)
{
    auto r = make(script("noisy.sh"))->parse(sentence({"x", "y"}));
    ASSERT_TRUE(r.ok()) << r.message();
    EXPECT_EQ(r->dependency->heads, (std::vector<int>{0, 1}));
    // The captured stderr tail ends with the last line.
    auto out = runShellCommand("sh " + script("noisy.sh"), "a b\n", {}, 10.0);
    ASSERT_TRUE(out.ok());
    EXPECT_EQ(out->exitStatus, 0);
    EXPECT_LE(out->err.size(), 64u * 1024u);
    EXPECT_EQ(out->err.substr(out->err.size() - 5), "done\n");
}

TEST_F(ExternalParserTest, CommandThatIgnoresLargeInputDoesNotRaiseSigpipe)
{
    // ~400 KB of input, more than a pipe holds; the command exits without reading
    // it. Without SIGPIPE protection this test process would be killed.
    std::vector<std::string> words(20000, "tokentokentokentoken");
    auto r = make("exit 0", 10.0, 20000)->parse(sentence(words));
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.message().find("returned 0 sentences"), std::string::npos) << r.message();
}

TEST_F(ExternalParserTest, RefusesEmptyAndTooLongSentences)
{
    auto p = make("sh " + script("chain.sh"), 10.0, 3);
    EXPECT_FALSE(p->parse(Sentence()).ok());
    auto r = p->parse(sentence({"a", "b", "c", "d"}));
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.message().find("limit is 3"), std::string::npos) << r.message();
}
