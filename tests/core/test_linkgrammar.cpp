// Link Grammar backend: hand-checked trees, the partial-parse fallback, limits,
// time-outs and the alignment of Link Grammar's words to our tokens.
// Inputs are built by hand (tokens with text only), independent of the tokenizer.

#include <chrono>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "core/parsing/parser.h"
#include "testutil.h"

using namespace treelens;

namespace {

Sentence tokens(const std::string &id, const std::string &spaceSeparated)
{
    Sentence s;
    s.id = id;
    std::istringstream in(spaceSeparated);
    std::string w;
    while (in >> w) {
        Token t;
        t.text = w;
        s.tokens.push_back(t);
    }
    s.text = spaceSeparated;
    return s;
}

bool linkGrammarBuilt()
{
    for (const auto &p : availableParsers())
        if (p.name == "link-grammar")
            return true;
    return false;
}

#define REQUIRE_LINK_GRAMMAR()                                                                      \
    do {                                                                                            \
        if (!linkGrammarBuilt())                                                                    \
            GTEST_SKIP() << "SKIPPED: built without the Link Grammar backend (TREELENS_WITH_LINK_GRAMMAR=OFF)"; \
    } while (0)

std::unique_ptr<Parser> makeParser(double timeoutSeconds = 2.0, int maxWords = 250)
{
    ParserConfig c;
    c.backend = "link-grammar";
    c.timeoutSeconds = timeoutSeconds;
    c.maxWords = maxWords;
    auto r = createParser(c);
    EXPECT_TRUE(r.ok()) << r.message();
    return r.ok() ? std::move(r.value()) : nullptr;
}

/// Position (0-based) of the nth token with this text.
int at(const Sentence &s, const std::string &word, int nth = 0)
{
    for (std::size_t i = 0; i < s.tokens.size(); ++i)
        if (s.tokens[i].text == word && nth-- == 0)
            return static_cast<int>(i);
    ADD_FAILURE() << "no token '" << word << "'";
    return -1;
}

/// 0-based head of token i, -1 for the root.
int headOf(const Sentence &s, int i) { return s.dependency->heads[static_cast<std::size_t>(i)] - 1; }
const std::string &relOf(const Sentence &s, int i) { return s.dependency->deprels[static_cast<std::size_t>(i)]; }

bool isPunct(const std::string &w)
{
    for (const char *p : {".", ",", ":", ";", "?", "!", "``", "''", "(", ")", "--", "..."})
        if (w == p)
            return true;
    return false;
}

/// What every successful parse must satisfy.
void expectWellFormed(const Sentence &in, const Sentence &out)
{
    EXPECT_EQ(out.tokens, in.tokens) << "tokens must come back unchanged";
    EXPECT_EQ(out.id, in.id);
    EXPECT_EQ(out.metadataValue("parser"), "link-grammar");
    ASSERT_TRUE(out.dependency.has_value());
    EXPECT_EQ(out.dependency->size(), in.tokens.size());
    const Status dv = out.dependency->validate();
    EXPECT_TRUE(dv.ok()) << in.id << ": " << dv.message();
    for (const auto &rel : out.dependency->deprels)
        EXPECT_FALSE(rel.empty());
    ASSERT_TRUE(out.constituency.has_value());
    const Status cv = out.constituency->validate();
    EXPECT_TRUE(cv.ok()) << in.id << ": " << cv.message();
    EXPECT_EQ(out.constituency->words(), in.words()) << in.id << ": leaves must be exactly our tokens";
    const auto tags = out.constituency->tags();
    ASSERT_EQ(tags.size(), in.tokens.size());
    for (std::size_t i = 0; i < tags.size(); ++i)
        EXPECT_FALSE(tags[i].empty()) << "token " << i;
    // Punctuation is attached (to a real head) and labelled as such.
    for (std::size_t i = 0; i < in.tokens.size(); ++i) {
        if (!isPunct(in.tokens[i].text) || out.dependency->deprels[i] == "root")
            continue;
        EXPECT_EQ(out.dependency->deprels[i], "punct") << in.id << ": token " << i << " '" << in.tokens[i].text << "'";
        EXPECT_GT(out.dependency->heads[i], 0);
    }
}

class LinkGrammar : public ::testing::Test {
protected:
    static void SetUpTestSuite()
    {
        if (linkGrammarBuilt())
            s_parser = makeParser().release();
    }
    static void TearDownTestSuite()
    {
        delete s_parser;
        s_parser = nullptr;
    }
    void SetUp() override
    {
        REQUIRE_LINK_GRAMMAR();
        ASSERT_NE(s_parser, nullptr);
    }
    static Sentence parseOk(const Sentence &in)
    {
        auto r = s_parser->parse(in);
        EXPECT_TRUE(r.ok()) << in.id << ": " << (r.ok() ? std::string() : r.message());
        if (!r.ok())
            return in;
        expectWellFormed(in, *r);
        return std::move(r.value());
    }
    static Parser *s_parser;
};
Parser *LinkGrammar::s_parser = nullptr;

} // namespace

TEST_F(LinkGrammar, IsListedWithBothTreeKinds)
{
    bool found = false;
    for (const auto &p : availableParsers())
        if (p.name == "link-grammar") {
            found = true;
            EXPECT_TRUE(p.dependencies);
            EXPECT_TRUE(p.constituencies);
            EXPECT_NE(p.description.find("Link Grammar"), std::string::npos);
        }
    EXPECT_TRUE(found);
    EXPECT_EQ(s_parser->info().name, "link-grammar");
}

TEST_F(LinkGrammar, SimpleSentenceGivesHandCheckedTrees)
{
    const Sentence in = tokens("kite", "The old man saw a red kite .");
    const Sentence out = parseOk(in);
    ASSERT_TRUE(out.dependency && out.constituency);
    EXPECT_EQ(out.metadataValue("null_count"), "0");
    EXPECT_EQ(out.metadataValue("partial"), "");

    // Dependencies, checked by hand (UD):
    //   The<-man det, old<-man amod, man<-saw nsubj, saw root,
    //   a<-kite det, red<-kite amod, kite<-saw obj, .<-saw punct
    EXPECT_EQ(out.dependency->heads, (std::vector<int>{3, 3, 4, 0, 7, 7, 4, 4}));
    EXPECT_EQ(out.dependency->deprels,
              (std::vector<std::string>{"det", "amod", "nsubj", "root", "det", "amod", "obj", "punct"}));

    // Constituency: (S (NP The old man) (VP saw (NP a red kite)) .) with POS preterminals.
    const ConstituencyTree &t = *out.constituency;
    EXPECT_EQ(t.words(), in.words());
    EXPECT_EQ(t.tags(), (std::vector<std::string>{"DT", "JJ", "NN", "VBD", "DT", "JJ", "NN", "."}));
    EXPECT_EQ(t.node(t.contentRoot()).label, "S");
    EXPECT_EQ(t.topConstituents(), (std::vector<std::string>{"NP", "VP", "."}));
    const auto spans = t.spans();
    const auto has = [&](const std::string &label, int a, int b) {
        for (const auto &s : spans)
            if (s.label == label && s.start == a && s.end == b)
                return true;
        return false;
    };
    EXPECT_TRUE(has("S", 0, 8));
    EXPECT_TRUE(has("NP", 0, 3));
    EXPECT_TRUE(has("VP", 3, 7));
    EXPECT_TRUE(has("NP", 4, 7));
}

TEST_F(LinkGrammar, FunctionWordsBecomeDependentsAsInUd)
{
    {
        const Sentence out = parseOk(tokens("passive", "The man was arrested by the police ."));
        const int arrested = at(out, "arrested");
        EXPECT_EQ(headOf(out, arrested), -1);
        EXPECT_EQ(relOf(out, at(out, "man")), "nsubj:pass");
        EXPECT_EQ(headOf(out, at(out, "man")), arrested);
        EXPECT_EQ(relOf(out, at(out, "was")), "aux:pass");
        EXPECT_EQ(headOf(out, at(out, "police")), arrested);
        EXPECT_EQ(relOf(out, at(out, "police")), "obl");
        EXPECT_EQ(relOf(out, at(out, "by")), "case");
        EXPECT_EQ(headOf(out, at(out, "by")), at(out, "police"));
    }
    {
        const Sentence out = parseOk(tokens("poss", "I do n't know John 's dog ."));
        const int know = at(out, "know");
        const int dog = at(out, "dog");
        EXPECT_EQ(headOf(out, know), -1);
        EXPECT_EQ(headOf(out, at(out, "I")), know);
        EXPECT_EQ(relOf(out, at(out, "I")), "nsubj");
        EXPECT_EQ(relOf(out, at(out, "do")), "aux");
        EXPECT_EQ(headOf(out, at(out, "n't")), know);
        EXPECT_EQ(relOf(out, at(out, "n't")), "advmod");
        EXPECT_EQ(headOf(out, dog), know);
        EXPECT_EQ(relOf(out, dog), "obj");
        EXPECT_EQ(headOf(out, at(out, "John")), dog);
        EXPECT_EQ(relOf(out, at(out, "John")), "nmod:poss");
        EXPECT_EQ(headOf(out, at(out, "'s")), at(out, "John"));
        EXPECT_EQ(relOf(out, at(out, "'s")), "case");
    }
    {
        const Sentence out = parseOk(tokens("chain", "He will have been seen in the house ."));
        const int seen = at(out, "seen");
        EXPECT_EQ(headOf(out, seen), -1);
        for (const char *aux : {"will", "have", "been"})
            EXPECT_EQ(headOf(out, at(out, aux)), seen) << aux;
        EXPECT_EQ(relOf(out, at(out, "been")), "aux:pass");
        EXPECT_EQ(relOf(out, at(out, "He")), "nsubj:pass");
        EXPECT_EQ(headOf(out, at(out, "house")), seen);
        EXPECT_EQ(relOf(out, at(out, "in")), "case");
    }
}

TEST_F(LinkGrammar, ClausesCopulasAndNamesFollowUd)
{
    {
        // Relative clause: Link Grammar links "book" to "read", which hangs from
        // its auxiliary; the clause must still end up under "book".
        const Sentence out = parseOk(tokens("relcl", "The book that he has read is good ."));
        const int good = at(out, "good");
        EXPECT_EQ(headOf(out, good), -1);
        EXPECT_EQ(relOf(out, at(out, "is")), "cop");
        EXPECT_EQ(headOf(out, at(out, "book")), good);
        EXPECT_EQ(relOf(out, at(out, "book")), "nsubj");
        EXPECT_EQ(headOf(out, at(out, "read")), at(out, "book"));
        EXPECT_EQ(relOf(out, at(out, "read")), "acl:relcl");
        EXPECT_EQ(headOf(out, at(out, "has")), at(out, "read"));
    }
    {
        // Existential "there": the verb stays the head.
        const Sentence out = parseOk(tokens("there", "There was a big demonstration ."));
        const int was = at(out, "was");
        EXPECT_EQ(headOf(out, was), -1);
        EXPECT_EQ(relOf(out, at(out, "There")), "expl");
        EXPECT_EQ(headOf(out, at(out, "demonstration")), was);
        EXPECT_EQ(relOf(out, at(out, "demonstration")), "nsubj");
    }
    {
        // Coordinated clauses: Link Grammar starts the second one at "and" as at
        // a wall; UD makes it conj of the first, "and" its cc.
        const Sentence out = parseOk(tokens("coord", "We were citizens and there was no way ."));
        const int citizens = at(out, "citizens");
        const int was = at(out, "was");
        EXPECT_EQ(headOf(out, citizens), -1);
        EXPECT_EQ(headOf(out, was), citizens);
        EXPECT_EQ(relOf(out, was), "conj");
        EXPECT_EQ(headOf(out, at(out, "and")), was);
        EXPECT_EQ(relOf(out, at(out, "and")), "cc");
    }
    {
        // Copula with a prepositional predicate.
        const Sentence out = parseOk(tokens("pp", "The key is on the table ."));
        const int table = at(out, "table");
        EXPECT_EQ(headOf(out, table), -1);
        EXPECT_EQ(relOf(out, at(out, "is")), "cop");
        EXPECT_EQ(relOf(out, at(out, "on")), "case");
        EXPECT_EQ(headOf(out, at(out, "key")), table);
    }
    {
        // A person's name is flat, headed by the given name; two objects.
        const Sentence out = parseOk(tokens("names", "Pierre Vinken gave Mary a book ."));
        const int gave = at(out, "gave");
        EXPECT_EQ(headOf(out, at(out, "Pierre")), gave);
        EXPECT_EQ(relOf(out, at(out, "Pierre")), "nsubj");
        EXPECT_EQ(headOf(out, at(out, "Vinken")), at(out, "Pierre"));
        EXPECT_EQ(relOf(out, at(out, "Vinken")), "flat");
        EXPECT_EQ(relOf(out, at(out, "Mary")), "iobj");
        EXPECT_EQ(relOf(out, at(out, "book")), "obj");
    }
}

TEST_F(LinkGrammar, WordSaladGivesPartialParseMarkedAsSuch)
{
    const Sentence in = tokens("salad", "green ideas colorless furiously the of sleep .");
    auto r = s_parser->parse(in);
    ASSERT_TRUE(r.ok()) << r.message();
    expectWellFormed(in, *r);
    EXPECT_EQ(r->metadataValue("partial"), "yes");
    EXPECT_GT(std::stoi(r->metadataValue("null_count")), 0);
}

TEST_F(LinkGrammar, HopelessInputGivesPartialParseOrClearError)
{
    // Only function words: either a partial parse or an error that says why.
    const Sentence in = tokens("fw", "of the of the of the of the of");
    auto r = s_parser->parse(in);
    if (r.ok()) {
        expectWellFormed(in, *r);
        EXPECT_EQ(r->metadataValue("partial"), "yes");
    } else {
        EXPECT_NE(r.message().find("link-grammar: "), std::string::npos) << r.message();
        EXPECT_NE(r.message().find("'fw'"), std::string::npos) << r.message();
    }
}

TEST_F(LinkGrammar, TooLongInputIsRefusedQuickly)
{
    std::string words;
    for (int i = 0; i < 300; ++i)
        words += (i % 10 == 9) ? ". " : "dogs ";
    const Sentence in = tokens("s300", words);
    ASSERT_EQ(in.tokens.size(), 300u);
    const auto t0 = std::chrono::steady_clock::now();
    auto r = s_parser->parse(in);
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.message().find("300 tokens"), std::string::npos) << r.message();
    EXPECT_NE(r.message().find("250"), std::string::npos) << r.message();
    EXPECT_NE(r.message().find("'s300'"), std::string::npos) << r.message();
    EXPECT_LT(secs, 0.5) << "must not call Link Grammar";
}

TEST_F(LinkGrammar, TinyTimeoutReturnsPromptly)
{
    // A long run-on input with no complete linkage: the null-link search is
    // expensive, so with a tiny budget the parser must give up, not hang.
    std::string words;
    const char *salad[] = {"green", "ideas", "of", "sleep", "furiously", "the", "colorless", "and", "under", "very", "if", "quickly"};
    for (int i = 0; i < 120; ++i)
        words += std::string(salad[(i * 7) % 12]) + " ";
    const Sentence in = tokens("slow", words);
    auto parser = makeParser(0.01);
    ASSERT_NE(parser, nullptr);
    const auto t0 = std::chrono::steady_clock::now();
    auto r = parser->parse(in);
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    // Link Grammar's timer counts whole seconds of CPU: a budget under 1 s runs about 1 s.
    EXPECT_LT(secs, 10.0);
    if (r.ok()) {
        expectWellFormed(in, *r);
    } else {
        EXPECT_NE(r.message().find("no linkage within 0.01 s for sentence 'slow' (120 words)"), std::string::npos)
            << r.message();
    }
}

TEST_F(LinkGrammar, ZeroTimeoutMeansNoLimit)
{
    auto parser = makeParser(0.0);
    ASSERT_NE(parser, nullptr);
    const Sentence in = tokens("nolimit", "The old man saw a red kite .");
    auto r = parser->parse(in);
    ASSERT_TRUE(r.ok()) << r.message();
    expectWellFormed(in, *r);
}

TEST_F(LinkGrammar, TokensLinkGrammarSplitsOrDropsStillBecomeLeaves)
{
    {
        // Link Grammar splits "I'm" into "I" + "'m": one token, two LG words.
        const Sentence out = parseOk(tokens("split", "I'm happy ."));
        EXPECT_EQ(out.metadataValue("lg.split"), "1");
        EXPECT_EQ(out.metadataValue("partial"), "");
    }
    {
        // "Nov." is split into "Nov" + "." and the period read as a full stop;
        // the abbreviation is fed again without it.
        const Sentence out = parseOk(tokens("abbrev", "He left on Nov. 29 ."));
        EXPECT_EQ(out.metadataValue("lg.abbreviations"), "1");
        EXPECT_EQ(out.metadataValue("lg.split"), "");
        EXPECT_EQ(headOf(out, at(out, "Nov.")), at(out, "left"));
        EXPECT_EQ(relOf(out, at(out, "Nov.")), "obl");
        EXPECT_EQ(headOf(out, at(out, "29")), at(out, "Nov."));
        EXPECT_EQ(out.constituency->tags()[static_cast<std::size_t>(at(out, "Nov."))], "NNP");
    }
    {
        // Link Grammar drops a zero-width space entirely (no LG word at all).
        const Sentence in = tokens("drop", "He \xE2\x80\x8B left .");
        const Sentence out = parseOk(in);
        EXPECT_EQ(out.metadataValue("lg.dropped"), "1");
        EXPECT_EQ(headOf(out, 1), at(out, "left"));
    }
    {
        // Quotes: Link Grammar's byte offsets shift after a quote it strips; the
        // alignment re-checks every word against the text.
        const Sentence in = tokens("quote", "`` I do n't know , '' she said .");
        const Sentence out = parseOk(in);
        EXPECT_EQ(relOf(out, at(out, "``")), "punct");
        EXPECT_EQ(relOf(out, at(out, "I")), "nsubj");
        EXPECT_EQ(headOf(out, at(out, "I")), at(out, "know"));
        EXPECT_EQ(out.constituency->tags()[0], "``");
        EXPECT_EQ(out.constituency->tags()[static_cast<std::size_t>(at(out, "''"))], "''");
    }
    {
        // A token with a space and one with a control character inside.
        Sentence in = tokens("odd", "They visited New_York yesterday .");
        in.tokens[2].text = "New York";
        in.tokens[3].text = std::string("yester") + '\t' + "day";
        parseOk(in);
    }
}

TEST_F(LinkGrammar, EveryResultIsAValidTree)
{
    const char *inputs[] = {
        "What did you see ?",
        "The cat and the dog ran and jumped .",
        "John 's book , which I read yesterday , is very good .",
        "I want to go home because it is late .",
        "He said ( again ) that it 's fine .",
        "Pierre Vinken , 61 years old , will join the board as a nonexecutive director Nov. 29 .",
        "The U.S.-based company 's 1990s sales rose 5 % to $ 100 million .",
        "Stop !",
        "Hello",
        "...",
        ", , ,",
        "Caf\xC3\xA9 owners na\xC3\xAFvely sold cr\xC3\xA8me br\xC3\xBBl\xC3\xA9" "e .",
        "\xF0\x9F\x98\x80 is an emoji",
        "Bad \xFF\xFE bytes here .",
        "-LRB- This -RRB- is bracketed .",
        "If you go , I will too , but only if it does n't rain .",
        "Colorless green ideas sleep furiously .",
        "the the the the",
    };
    int index = 0;
    for (const char *text : inputs) {
        const Sentence in = tokens("v" + std::to_string(index++), text);
        auto r = s_parser->parse(in);
        if (!r.ok()) {
            EXPECT_EQ(r.message().rfind("link-grammar: ", 0), 0u) << r.message();
            continue;
        }
        SCOPED_TRACE(text);
        expectWellFormed(in, *r);
    }
}

TEST_F(LinkGrammar, PunctuationIsAttached)
{
    const Sentence out = parseOk(tokens("punct", "Yesterday , the man , who was tired , left early ."));
    const auto tags = out.constituency->tags();
    for (std::size_t i = 0; i < out.tokens.size(); ++i) {
        if (out.tokens[i].text == "," || out.tokens[i].text == ".") {
            EXPECT_EQ(out.dependency->deprels[i], "punct") << i;
            EXPECT_EQ(tags[i], out.tokens[i].text) << i;
            const int h = out.dependency->heads[i] - 1;
            ASSERT_GE(h, 0);
            EXPECT_FALSE(isPunct(out.tokens[static_cast<std::size_t>(h)].text)) << i;
        }
    }
    EXPECT_EQ(headOf(out, at(out, ".")), at(out, "left"));
}

TEST_F(LinkGrammar, SameInputSameTrees)
{
    const Sentence in = tokens("det", "Pierre Vinken , 61 years old , will join the board as a nonexecutive director Nov. 29 .");
    const Sentence a = parseOk(in);
    const Sentence b = parseOk(in);
    ASSERT_TRUE(a.dependency && b.dependency && a.constituency && b.constituency);
    EXPECT_EQ(*a.dependency, *b.dependency);
    EXPECT_TRUE(*a.constituency == *b.constituency);
}

TEST_F(LinkGrammar, RejectsEmptyInputAndBadConfig)
{
    Sentence empty;
    empty.id = "e1";
    auto r = s_parser->parse(empty);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.message().find("no tokens"), std::string::npos) << r.message();

    ParserConfig c;
    c.backend = "link-grammar";
    c.language = "de";
    auto p = createParser(c);
    ASSERT_FALSE(p.ok());
    EXPECT_NE(p.message().find("English"), std::string::npos) << p.message();
}
