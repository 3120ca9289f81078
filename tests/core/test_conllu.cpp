#include <chrono>

#include "core/base/fileio.h"
#include "core/formats/conllu.h"
#include "testutil.h"

using namespace treelens;

namespace {

const char *kSmall =
    "# sent_id = t1\n"
    "# text = I don't know.\n"
    "1\tI\tI\tPRON\tPRP\tCase=Nom\t4\tnsubj\t4:nsubj\t_\n"
    "2-3\tdon't\t_\t_\t_\t_\t_\t_\t_\t_\n"
    "2\tdo\tdo\tAUX\tVBP\t_\t4\taux\t4:aux\t_\n"
    "3\tn't\tnot\tPART\tRB\t_\t4\tadvmod\t4:advmod\t_\n"
    "4\tknow\tknow\tVERB\tVB\t_\t0\troot\t0:root\tSpaceAfter=No\n"
    "4.1\tknow\tknow\tVERB\tVB\t_\t_\t_\t4:conj\tCopyOf=4\n"
    "5\t.\t.\tPUNCT\t.\t_\t4\tpunct\t4:punct\t_\n"
    "\n";

} // namespace

TEST(Conllu, ReadsEveryColumnAndExtras)
{
    auto r = readConllu(kSmall, "small.conllu");
    ASSERT_TRUE(r.ok()) << r.message();
    ASSERT_EQ(r->size(), 1u);
    const Sentence &s = r->front();
    EXPECT_EQ(s.id, "t1");
    EXPECT_EQ(s.text, "I don't know.");
    ASSERT_EQ(s.tokens.size(), 5u);
    EXPECT_EQ(s.tokens[2].text, "n't");
    EXPECT_EQ(s.tokens[2].lemma, "not");
    ASSERT_TRUE(s.dependency);
    EXPECT_EQ(s.dependency->heads, (std::vector<int>{4, 4, 4, 0, 4}));
    EXPECT_EQ(s.dependency->deprels[0], "nsubj");
    ASSERT_EQ(s.multiwordTokens.size(), 1u);
    EXPECT_EQ(s.multiwordTokens[0].first, 2);
    EXPECT_EQ(s.multiwordTokens[0].last, 3);
    ASSERT_EQ(s.emptyNodes.size(), 1u);
    EXPECT_EQ(s.emptyNodes[0].after, 4);
    // Offsets: "do" and "n't" both map to the surface "don't" at bytes 2..7.
    EXPECT_EQ(s.tokens[1].charStart, 2);
    EXPECT_EQ(s.tokens[1].charEnd, 7);
    EXPECT_EQ(s.tokens[3].charStart, 8);
    EXPECT_EQ(s.tokens[4].charStart, 12);
    EXPECT_EQ(writeConllu(*r), kSmall);
}

TEST(Conllu, WritesGeneratedCommentsAndUnderscores)
{
    Sentence s;
    s.id = "x";
    s.text = "Hi";
    Token t;
    t.text = "Hi";
    s.tokens.push_back(t);
    EXPECT_EQ(writeConllu({s}), "# sent_id = x\n# text = Hi\n1\tHi\t_\t_\t_\t_\t_\t_\t_\t_\n\n");
    s.dependency = DependencyTree{{0}, {"root"}};
    EXPECT_EQ(writeConllu({s}), "# sent_id = x\n# text = Hi\n1\tHi\t_\t_\t_\t_\t0\troot\t_\t_\n\n");
}

struct BadCase {
    const char *name;
    const char *text;
    const char *expect; // substring of the message
};

TEST(Conllu, RejectsMalformedInputWithFileAndLine)
{
    const BadCase cases[] = {
        {"columns", "1\ta\t_\t_\t_\t_\t0\troot\t_\n\n", "bad.conllu:1: expected 10 tab-separated columns, found 9"},
        {"head-int", "1\ta\t_\t_\t_\t_\tx\troot\t_\t_\n\n", "bad.conllu:1: HEAD 'x' is not an integer"},
        {"head-range", "1\ta\t_\t_\t_\t_\t0\troot\t_\t_\n2\tb\t_\t_\t_\t_\t7\tdep\t_\t_\n\n", "bad.conllu:2: HEAD 7 out of range"},
        {"two-roots", "1\ta\t_\t_\t_\t_\t0\troot\t_\t_\n2\tb\t_\t_\t_\t_\t0\troot\t_\t_\n\n", "more than one root"},
        {"cycle", "1\ta\t_\t_\t_\t_\t2\tdep\t_\t_\n2\tb\t_\t_\t_\t_\t1\tdep\t_\t_\n3\tc\t_\t_\t_\t_\t0\troot\t_\t_\n\n", "cycle"},
        {"dup-id", "1\ta\t_\t_\t_\t_\t0\troot\t_\t_\n1\tb\t_\t_\t_\t_\t1\tdep\t_\t_\n\n", "bad.conllu:2: duplicate word id 1"},
        {"gap-id", "1\ta\t_\t_\t_\t_\t0\troot\t_\t_\n3\tb\t_\t_\t_\t_\t1\tdep\t_\t_\n\n", "out of sequence"},
        {"utf8", "1\ta\xff\t_\t_\t_\t_\t0\troot\t_\t_\n\n", "bad.conllu:1: invalid UTF-8"},
        {"mixed-head", "1\ta\t_\t_\t_\t_\t0\troot\t_\t_\n2\tb\t_\t_\t_\t_\t_\t_\t_\t_\n\n", "HEAD is '_' for some words"},
        {"empty-column", "1\ta\t_\t_\t_\t_\t0\t\t_\t_\n\n", "bad.conllu:1: column 8 (DEPREL) is empty"},
        {"self-head", "1\ta\t_\t_\t_\t_\t1\troot\t_\t_\n\n", "its own head"},
    };
    for (const auto &c : cases) {
        auto r = readConllu(c.text, "bad.conllu");
        ASSERT_FALSE(r.ok()) << c.name;
        EXPECT_NE(r.message().find(c.expect), std::string::npos) << c.name << ": " << r.message();
        EXPECT_EQ(r.message().find('\n'), std::string::npos) << "one line: " << c.name;
    }
}

TEST(Conllu, EmptyInputIsNoSentences)
{
    auto r = readConllu("", "empty.conllu");
    ASSERT_TRUE(r.ok());
    EXPECT_TRUE(r->empty());
}

TEST(Conllu, UnparsedSentenceHasNoTree)
{
    auto r = readConllu("1\ta\t_\t_\t_\t_\t_\t_\t_\t_\n\n", "x.conllu");
    ASSERT_TRUE(r.ok()) << r.message();
    EXPECT_FALSE(r->front().dependency.has_value());
}

class EwtRoundTrip : public ::testing::TestWithParam<const char *> {};

TEST_P(EwtRoundTrip, ByteForByte)
{
    const std::string rel = std::string("data/ud-english-ewt/") + GetParam();
    TREELENS_REQUIRE_SHARED(rel);
    auto text = readFile(test::sharedPath(rel));
    ASSERT_TRUE(text.ok()) << text.message();
    const auto t0 = std::chrono::steady_clock::now();
    auto r = readConllu(*text, rel);
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    ASSERT_TRUE(r.ok()) << r.message();
    std::cout << "[ info ] " << rel << ": " << r->size() << " sentences, "
              << (static_cast<double>(text->size()) / 1e6) / secs << " MB/s\n";
    const std::string back = writeConllu(*r);
    ASSERT_EQ(back.size(), text->size());
    EXPECT_TRUE(back == *text);
    // Every sentence in EWT has a tree and a text whose tokens all align.
    for (const auto &s : *r) {
        ASSERT_TRUE(s.dependency.has_value()) << s.id;
        for (const auto &t : s.tokens)
            ASSERT_GE(t.charStart, 0) << s.id << " token '" << t.text << "' not aligned to # text";
    }
}

INSTANTIATE_TEST_SUITE_P(Ewt, EwtRoundTrip,
                         ::testing::Values("en_ewt-ud-train.conllu", "en_ewt-ud-dev.conllu", "en_ewt-ud-test.conllu"));

TEST(Conllu, TrailingCarriageReturnsAreAllDroppedSoWritingIsStable)
{
    // Found by fuzzing: a comment ending in several CRs lost one per round trip.
    const std::string text = "# note\r\r\r\n1\tHi\t_\t_\t_\t_\t0\troot\t_\t_\r\n\r\n";
    auto a = readConllu(text, "crlf.conllu");
    ASSERT_TRUE(a.ok()) << a.message();
    const std::string once = writeConllu(*a);
    auto b = readConllu(once, "once.conllu");
    ASSERT_TRUE(b.ok());
    EXPECT_EQ(writeConllu(*b), once);
    EXPECT_EQ(once.find('\r'), std::string::npos);
}
