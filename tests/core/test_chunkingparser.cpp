// Long sentences parsed in pieces: the cuts, and the joined trees.
#include <chrono>

#include "core/formats/ptb.h"
#include "core/parsing/chunkingparser.h"
#include "core/text/tokenizer.h"
#include "testutil.h"

using namespace treelens;

namespace {

std::vector<Token> tokens(const std::string &text) { return Tokenizer().tokenize(text); }

/// A stand-in backend: each piece becomes a left-to-right chain (word i+1 depends
/// on word i, the first word is the root) under a flat (X ...) constituent.
class ChainParser : public Parser {
public:
    ParserInfo info() const override { return {"chain", true, true, "test"}; }
    Result<Sentence> parse(const Sentence &input) override
    {
        ++calls;
        longest = std::max(longest, static_cast<int>(input.tokens.size()));
        Sentence s = input;
        DependencyTree d;
        for (std::size_t i = 0; i < s.tokens.size(); ++i) {
            d.heads.push_back(static_cast<int>(i)); // 0 for the first word: the root
            d.deprels.push_back(i == 0 ? "root" : "dep");
        }
        s.dependency = d;
        std::string ptb = "(X";
        for (const auto &t : s.tokens)
            ptb += " (NN " + t.text + ")";
        ptb += ")";
        auto trees = readPtbSentences(ptb, "chain");
        s.constituency = (*trees)[0].constituency;
        s.setMetadata("parser", "chain");
        return s;
    }
    int calls = 0;
    int longest = 0;
};

const std::string kLong =
    "When the first settlers arrived in the narrow valley more than two hundred years ago, they found a wide river "
    "that flooded every spring, dense forests full of deer and wolves, and a small village of farmers who had grown "
    "barley and beans on the terraced hills for generations; the newcomers, who had travelled for months across the "
    "mountains with their cattle and their tools, built wooden houses along the river bank, cleared the nearest "
    "forests for fields, and learned from their neighbours which slopes stayed dry in the wet season.";

} // namespace

TEST(ChunkRanges, CoverEverythingInOrderAndCutAtPunctuation)
{
    const auto toks = tokens(kLong);
    ASSERT_GT(toks.size(), 80u);
    const auto ranges = chunkRanges(toks, 30);
    ASSERT_FALSE(ranges.empty());
    EXPECT_EQ(ranges.front().first, 0);
    EXPECT_EQ(ranges.back().second, static_cast<int>(toks.size()));
    for (std::size_t i = 0; i < ranges.size(); ++i) {
        EXPECT_LE(ranges[i].second - ranges[i].first, 30);
        EXPECT_GT(ranges[i].second, ranges[i].first);
        if (i > 0) {
            EXPECT_EQ(ranges[i].first, ranges[i - 1].second);
        }
        if (i + 1 < ranges.size()) { // every cut here falls after a comma or a semicolon
            const std::string &last = toks[static_cast<std::size_t>(ranges[i].second - 1)].text;
            EXPECT_TRUE(last == "," || last == ";") << "cut after '" << last << "'";
        }
    }
    // The semicolon is preferred to a later comma within reach.
    bool cutAtSemicolon = false;
    for (const auto &r : ranges)
        cutAtSemicolon = cutAtSemicolon || toks[static_cast<std::size_t>(r.second - 1)].text == ";";
    EXPECT_TRUE(cutAtSemicolon);
    // No punctuation at all: hard cuts of maxPiece.
    std::vector<Token> plain(70);
    for (auto &t : plain)
        t.text = "w";
    EXPECT_EQ(chunkRanges(plain, 30), (std::vector<std::pair<int, int>>{{0, 30}, {30, 60}, {60, 70}}));
}

TEST(ChunkingParser, JoinsThePiecesIntoOneTree)
{
    auto inner = std::make_unique<ChainParser>();
    ChainParser *chain = inner.get();
    auto parser = makeChunkingParser(std::move(inner), 60, 30);
    Sentence s;
    s.id = "long";
    s.tokens = tokens(kLong);
    const int n = static_cast<int>(s.tokens.size());
    auto r = parser->parse(s);
    ASSERT_TRUE(r.ok()) << r.message();
    EXPECT_GT(chain->calls, 2);
    EXPECT_LE(chain->longest, 30);
    ASSERT_TRUE(r->dependency);
    EXPECT_TRUE(r->dependency->validate().ok()) << r->dependency->validate().message();
    EXPECT_EQ(r->dependency->heads[0], 0); // the first piece's root is the root
    const auto ranges = chunkRanges(s.tokens, 30);
    for (std::size_t k = 1; k < ranges.size(); ++k) { // the other pieces' roots attach to it
        const auto first = static_cast<std::size_t>(ranges[k].first);
        EXPECT_EQ(r->dependency->heads[first], 1);
        EXPECT_EQ(r->dependency->deprels[first], "parataxis");
    }
    ASSERT_TRUE(r->constituency);
    EXPECT_EQ(r->constituency->wordCount(), n);
    std::vector<std::string> words;
    for (const auto &t : s.tokens)
        words.push_back(t.text);
    EXPECT_EQ(r->constituency->words(), words);
    EXPECT_EQ(r->metadataValue("chunked"), std::to_string(ranges.size()));
    // Short sentences pass straight through.
    Sentence shortOne;
    shortOne.tokens = tokens("The cat sat.");
    chain->calls = 0;
    auto r2 = parser->parse(shortOne);
    ASSERT_TRUE(r2.ok());
    EXPECT_EQ(chain->calls, 1);
    EXPECT_TRUE(r2->metadataValue("chunked").empty());
}


TEST(ChunkingParser, LinkGrammarParsesALongSentenceThatWouldTimeOut)
{
    ParserConfig config;
    config.backend = "link-grammar";
    config.chunkLongerThan = 60;
    auto parser = createParser(config);
    if (!parser)
        GTEST_SKIP() << "SKIPPED: Link Grammar is not available: " << parser.message();
    Sentence s;
    s.id = "long";
    s.tokens = tokens(kLong + " " + kLong);
    const auto t0 = std::chrono::steady_clock::now();
    auto r = (*parser)->parse(s);
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    ASSERT_TRUE(r.ok()) << r.message();
    ASSERT_TRUE(r->dependency);
    EXPECT_TRUE(r->dependency->validate().ok());
    ASSERT_TRUE(r->constituency);
    EXPECT_EQ(r->constituency->wordCount(), static_cast<int>(s.tokens.size()));
    std::printf("[ info ] Link Grammar, %zu words in %s pieces: %.0f ms\n", s.tokens.size(),
                r->metadataValue("chunked").c_str(), ms);
}
