// Tokenizer, sentence splitter and their evaluation. Golden cases are
// hand-written from the UD English EWT / PTB conventions in
// tests/data/tokenizer/*.tsv (see the comments at the top of each file).
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "core/base/fileio.h"
#include "core/eval/tokeneval.h"
#include "core/formats/conllu.h"
#include "core/text/tokenizer.h"
#include "testutil.h"

using namespace treelens;

namespace {

std::string unescape(const std::string &s)
{
    std::string out;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '\\' && i + 1 < s.size()) {
            const char c = s[++i];
            out.push_back(c == 'n' ? '\n' : c == 't' ? '\t' : c == 'r' ? '\r' : c);
        } else {
            out.push_back(s[i]);
        }
    }
    return out;
}

std::vector<std::vector<std::string>> readTsv(const std::string &name)
{
    std::ifstream in(test::testData("tokenizer/" + name));
    EXPECT_TRUE(in.good()) << "missing tests/data/tokenizer/" << name;
    std::vector<std::vector<std::string>> rows;
    std::string line;
    while (std::getline(in, line)) {
        if (line.empty() || line[0] == '#')
            continue;
        std::vector<std::string> cols;
        std::size_t b = 0;
        for (;;) {
            const std::size_t e = line.find('\t', b);
            cols.push_back(line.substr(b, e == std::string::npos ? std::string::npos : e - b));
            if (e == std::string::npos)
                break;
            b = e + 1;
        }
        rows.push_back(cols);
    }
    return rows;
}

// Surface tokens separated by spaces, words of a multiword token joined by '|'.
std::string render(const Tokenization &t)
{
    std::string out;
    for (const SurfaceToken &s : t.surface) {
        if (!out.empty())
            out += ' ';
        for (int w = s.firstWord; w <= s.lastWord; ++w) {
            if (w > s.firstWord)
                out += '|';
            out += t.words[static_cast<std::size_t>(w)].text;
        }
    }
    return out;
}

// Checks the offset invariants every tokenization must satisfy.
void expectWellFormed(const std::string &text, const Tokenization &t)
{
    int prev = 0;
    for (const Token &w : t.words) {
        ASSERT_GE(w.charStart, prev) << "tokens overlap or are out of order";
        ASSERT_GT(w.charEnd, w.charStart);
        ASSERT_LE(w.charEnd, static_cast<int>(text.size()));
        ASSERT_EQ(text.substr(static_cast<std::size_t>(w.charStart), static_cast<std::size_t>(w.charEnd - w.charStart)),
                  w.text);
        prev = w.charEnd;
    }
    int next = 0;
    for (const SurfaceToken &s : t.surface) {
        ASSERT_EQ(s.firstWord, next);
        ASSERT_GE(s.lastWord, s.firstWord);
        ASSERT_EQ(s.charStart, t.words[static_cast<std::size_t>(s.firstWord)].charStart);
        ASSERT_EQ(s.charEnd, t.words[static_cast<std::size_t>(s.lastWord)].charEnd);
        next = s.lastWord + 1;
    }
    ASSERT_EQ(next, static_cast<int>(t.words.size()));
}

std::string joinSentences(const std::string &text, const std::vector<std::pair<int, int>> &spans)
{
    std::string out;
    for (const auto &[b, e] : spans) {
        if (!out.empty())
            out += " || ";
        out += text.substr(static_cast<std::size_t>(b), static_cast<std::size_t>(e - b));
    }
    return out;
}

} // namespace

TEST(Tokenizer, HandWrittenGoldenCases)
{
    const auto rows = readTsv("tokens.tsv");
    ASSERT_GE(rows.size(), 60u);
    const Tokenizer tok;
    for (const auto &r : rows) {
        ASSERT_EQ(r.size(), 3u);
        const std::string text = unescape(r[1]);
        const Tokenization t = tok.tokenizeDetailed(text);
        EXPECT_EQ(render(t), r[2]) << "[" << r[0] << "] input: " << r[1];
        expectWellFormed(text, t);
        // tokenize() returns the same words.
        const std::vector<Token> words = tok.tokenize(text);
        ASSERT_EQ(words.size(), t.words.size());
        for (std::size_t k = 0; k < words.size(); ++k)
            EXPECT_EQ(words[k], t.words[k]);
    }
}

TEST(Tokenizer, WordsOfAMultiwordTokenAreItsSurfacePieces)
{
    const std::string text = "I don't know.";
    const Tokenization t = Tokenizer().tokenizeDetailed(text);
    ASSERT_EQ(t.words.size(), 5u);
    EXPECT_EQ(t.words[1].text, "do");
    EXPECT_EQ(t.words[1].charStart, 2);
    EXPECT_EQ(t.words[1].charEnd, 4);
    EXPECT_EQ(t.words[2].text, "n't");
    EXPECT_EQ(t.words[2].charStart, 4);
    EXPECT_EQ(t.words[2].charEnd, 7);
    ASSERT_EQ(t.surface.size(), 4u);
    EXPECT_EQ(t.surface[1].charStart, 2);
    EXPECT_EQ(t.surface[1].charEnd, 7);
    EXPECT_EQ(t.surface[1].firstWord, 1);
    EXPECT_EQ(t.surface[1].lastWord, 2);
}

TEST(Tokenizer, OptionsTurnOffEwtSpecificSplits)
{
    TokenizerOptions opt;
    opt.splitClitics = false;
    opt.splitFinalAbbreviationPeriod = false;
    const Tokenizer tok(opt);
    EXPECT_EQ(render(tok.tokenizeDetailed("I can't go, kids' toys, gonna, etc.")),
              "I can't go , kids' toys , gonna , etc.");
}

TEST(Tokenizer, OffsetsAreBytesIntoUtf8Text)
{
    const std::string text = "Café “naïve” — 日本語!";
    const Tokenization t = Tokenizer().tokenizeDetailed(text);
    expectWellFormed(text, t);
    EXPECT_EQ(render(t), "Café “ naïve ” — 日本語 !");
    EXPECT_EQ(t.words[0].charEnd, 5); // "Café" is 5 bytes
}

TEST(Tokenizer, InvalidUtf8BytesBecomeSymbols)
{
    const std::string text = std::string("ab\xff" "cd \xc3 \xe2\x80") + "x";
    const Tokenization t = Tokenizer().tokenizeDetailed(text);
    expectWellFormed(text, t);
    EXPECT_EQ(render(t), std::string("ab \xff cd \xc3 \xe2 \x80 x"));
}

TEST(Tokenizer, RandomBytesKeepOffsetInvariants)
{
    // Random strings over bytes and fragments that exercise every matcher.
    const std::vector<std::string> atoms = {
        "a", "Z", "s", "t", "n", "'", "’", "‘", "`", "\"", ".", "..", "!", "?", ",", ";", ":", "-", "/", "@",
        "#", "$", "%", "&", "*", "_", "(", ")", "<", ">", "=", "+", "0", "1", "9", " ", "\n", "\n\n", "\t",
        "\xc2\xa0", "é", "日本", "😀", "\xe2\x80\x8d", "\xff", "\xc3", "\x00", "http://", "www.", "don't",
        "U.S.", "Mr.", "e-mail", ".com", ".doc", ":)", "<3", "its", "etc.", "No.", "gonna", "x@y", "1,000"};
    std::mt19937 rng(1234);
    const Tokenizer tok;
    std::string text;
    for (int iter = 0; iter < 10000; ++iter) {
        text.clear();
        const int n = static_cast<int>(rng() % 30);
        for (int k = 0; k < n; ++k) {
            if (rng() % 4 == 0)
                text.push_back(static_cast<char>(rng() % 256));
            else
                text += atoms[rng() % atoms.size()];
        }
        const Tokenization t = tok.tokenizeDetailed(text);
        expectWellFormed(text, t);
        int prev = 0;
        for (const auto &[b, e] : tok.splitSentences(text)) {
            ASSERT_GE(b, prev);
            ASSERT_GT(e, b);
            ASSERT_LE(e, static_cast<int>(text.size()));
            prev = e;
        }
        for (const Sentence &s : tok.splitAndTokenize(text))
            for (const Token &w : s.tokens)
                ASSERT_EQ(s.text.substr(static_cast<std::size_t>(w.charStart),
                                        static_cast<std::size_t>(w.charEnd - w.charStart)),
                          w.text);
        if (HasFatalFailure()) {
            ADD_FAILURE() << "input bytes: " << ::testing::PrintToString(text);
            return;
        }
    }
}

TEST(Tokenizer, LongInputs)
{
    // Timing is measured by bench/bench_text (linear scaling); here only results.
    const Tokenizer tok;
    std::string sentence; // one 2,750-token sentence
    for (int k = 0; k < 250; ++k)
        sentence += "Mr. O'Neil's e-mail, don't (see U.S.) ";
    const std::vector<Token> words = tok.tokenize(sentence);
    // Mr. | O'Neil | 's | e-mail | , | do | n't | ( | see | U.S. | ) : 11 tokens per repetition
    EXPECT_EQ(words.size(), 250u * 11u);
    // Running text and text without a single space (worst case for look-ahead matchers).
    for (const std::string unit : {"The U.S. isn't here, Mr. Smith said. Visit www.example.com today! ", "a.b@c-d'e:"}) {
        std::string text;
        while (text.size() < 2000u * 1000u)
            text += unit;
        const auto ranges = tok.splitSentences(text);
        ASSERT_FALSE(ranges.empty());
        int last = 0;
        for (const auto &[b, e] : ranges) {
            ASSERT_LE(last, b);
            ASSERT_LT(b, e);
            last = e;
        }
        ASSERT_LE(last, static_cast<int>(text.size()));
    }
}

TEST(SentenceSplitter, HandWrittenGoldenCases)
{
    const auto rows = readTsv("sentences.tsv");
    ASSERT_GE(rows.size(), 15u);
    const Tokenizer tok;
    for (const auto &r : rows) {
        const std::string text = unescape(r[0]);
        const std::string expected = r.size() > 1 ? unescape(r[1]) : std::string();
        EXPECT_EQ(joinSentences(text, tok.splitSentences(text)), expected) << "input: " << r[0];
    }
}

TEST(SentenceSplitter, SplitAndTokenizeGivesTrimmedSentencesWithRelativeOffsets)
{
    const std::string text = "  Hello there.  I don't know!\n\nNew paragraph";
    const std::vector<Sentence> s = Tokenizer().splitAndTokenize(text);
    ASSERT_EQ(s.size(), 3u);
    EXPECT_EQ(s[0].id, "s1");
    EXPECT_EQ(s[1].id, "s2");
    EXPECT_EQ(s[2].id, "s3");
    EXPECT_EQ(s[0].text, "Hello there.");
    EXPECT_EQ(s[1].text, "I don't know!");
    EXPECT_EQ(s[2].text, "New paragraph");
    ASSERT_EQ(s[1].tokens.size(), 5u);
    EXPECT_EQ(s[1].tokens[1].text, "do");
    EXPECT_EQ(s[1].tokens[1].charStart, 2);
    EXPECT_EQ(s[1].tokens[4].charStart, 12);
    // The multiword token and SpaceAfter=No make it valid CoNLL-U.
    ASSERT_EQ(s[1].multiwordTokens.size(), 1u);
    EXPECT_EQ(s[1].multiwordTokens[0].first, 2);
    EXPECT_EQ(s[1].multiwordTokens[0].last, 3);
    EXPECT_EQ(s[1].multiwordTokens[0].columns[1], "don't");
    EXPECT_EQ(s[1].tokens[3].misc, "SpaceAfter=No");
    EXPECT_EQ(s[1].tokens[4].misc, "");
    const std::string conllu = writeConllu(s);
    auto back = readConllu(conllu, "roundtrip.conllu");
    ASSERT_TRUE(back.ok()) << back.message();
    ASSERT_EQ(back->size(), 3u);
    EXPECT_EQ((*back)[1].tokens[4].charStart, 12);
    EXPECT_EQ((*back)[1].multiwordTokens.size(), 1u);
}

TEST(SentenceSplitter, EmptyAndBlankInputGiveNoSentences)
{
    const Tokenizer tok;
    EXPECT_TRUE(tok.splitSentences("").empty());
    EXPECT_TRUE(tok.splitSentences(" \n\n\t ").empty());
    EXPECT_TRUE(tok.splitAndTokenize("\xc2\xa0").empty());
}

namespace {

// Two sentences in one paragraph, a multiword token and a new paragraph.
const char *kGold =
    "# newdoc id = d1\n"
    "# sent_id = a\n"
    "# text = I don't know.\n"
    "1\tI\tI\tPRON\tPRP\t_\t4\tnsubj\t_\t_\n"
    "2-3\tdon't\t_\t_\t_\t_\t_\t_\t_\t_\n"
    "2\tdo\tdo\tAUX\tVBP\t_\t4\taux\t_\t_\n"
    "3\tn't\tnot\tPART\tRB\t_\t4\tadvmod\t_\t_\n"
    "4\tknow\tknow\tVERB\tVB\t_\t0\troot\t_\tSpaceAfter=No\n"
    "5\t.\t.\tPUNCT\t.\t_\t4\tpunct\t_\t_\n"
    "\n"
    "# sent_id = b\n"
    "# text = Ask Al-Zaman\n"
    "1\tAsk\task\tVERB\tVB\t_\t0\troot\t_\t_\n"
    "2\tAl-Zaman\tAl-Zaman\tPROPN\tNNP\t_\t1\tobj\t_\t_\n"
    "\n"
    "# newpar\n"
    "# sent_id = c\n"
    "# text = Yes.\n"
    "1\tYes\tyes\tINTJ\tUH\t_\t0\troot\t_\tSpaceAfter=No\n"
    "2\t.\t.\tPUNCT\t.\t_\t1\tpunct\t_\t_\n"
    "\n";

} // namespace

TEST(TokenEval, ScoresSurfaceTokensAndWordsBySpan)
{
    auto gold = readConllu(kGold, "gold.conllu");
    ASSERT_TRUE(gold.ok()) << gold.message();
    const TokenizationScore s = evaluateTokenizer(*gold, Tokenizer(), 10);
    EXPECT_EQ(s.sentences, 3);
    EXPECT_EQ(s.skippedSentences, 0);
    // Gold surface tokens: I don't know . | Ask Al-Zaman | Yes .  = 4 + 2 + 2.
    // Predicted: the same except "Al - Zaman" (3 tokens).
    EXPECT_EQ(s.tokens.gold, 8);
    EXPECT_EQ(s.tokens.predicted, 10);
    EXPECT_EQ(s.tokens.correct, 7);
    // Words: "do" and "n't" count separately (5 + 2 + 2 gold words).
    EXPECT_EQ(s.words.gold, 9);
    EXPECT_EQ(s.words.predicted, 11);
    EXPECT_EQ(s.words.correct, 8);
    EXPECT_NEAR(s.tokens.precision(), 0.7, 1e-9);
    EXPECT_NEAR(s.tokens.recall(), 7.0 / 8.0, 1e-9);
    EXPECT_NEAR(s.tokens.f1(), 14.0 / 18.0, 1e-9);
    ASSERT_EQ(s.mismatches.size(), 1u);
    EXPECT_EQ(s.mismatches[0].sentenceId, "b");
    EXPECT_EQ(s.mismatches[0].gold, (std::vector<std::string>{"Al-Zaman"}));
    EXPECT_EQ(s.mismatches[0].predicted, (std::vector<std::string>{"Al", "-", "Zaman"}));
}

TEST(TokenEval, ScoresSentenceSpansAndBoundariesPerParagraph)
{
    auto gold = readConllu(kGold, "gold.conllu");
    ASSERT_TRUE(gold.ok()) << gold.message();
    // Paragraph 1 is "I don't know. Ask Al-Zaman" (one inner boundary, found);
    // paragraph 2 is "Yes." (no inner boundary).
    const SegmentationScore s = evaluateSentenceSplitter(*gold, Tokenizer());
    EXPECT_EQ(s.paragraphs, 2);
    EXPECT_EQ(s.sentences.gold, 3);
    EXPECT_EQ(s.sentences.predicted, 3);
    EXPECT_EQ(s.sentences.correct, 3);
    EXPECT_EQ(s.boundaries.gold, 1);
    EXPECT_EQ(s.boundaries.correct, 1);
    EXPECT_DOUBLE_EQ(s.sentences.f1(), 1.0);
}

TEST(TokenEval, EmptyGoldGivesZeroScores)
{
    const TokenizationScore t = evaluateTokenizer({}, Tokenizer());
    EXPECT_EQ(t.tokens.gold, 0);
    EXPECT_EQ(t.tokens.f1(), 0.0);
    const SegmentationScore s = evaluateSentenceSplitter({}, Tokenizer());
    EXPECT_EQ(s.paragraphs, 0);
}

TEST(TokenEval, EwtTestTokenF1AtLeast097)
{
    TREELENS_REQUIRE_SHARED("data/ud-english-ewt/en_ewt-ud-test.conllu");
    const std::string path = test::sharedPath("data/ud-english-ewt/en_ewt-ud-test.conllu");
    auto text = readFile(path);
    ASSERT_TRUE(text.ok()) << text.message();
    auto gold = readConllu(*text, path);
    ASSERT_TRUE(gold.ok()) << gold.message();
    const Tokenizer tok;
    const TokenizationScore s = evaluateTokenizer(*gold, tok);
    EXPECT_EQ(s.skippedSentences, 0);
    EXPECT_GT(s.sentences, 2000);
    EXPECT_GE(s.tokens.f1(), 0.97) << "P " << s.tokens.precision() << " R " << s.tokens.recall();
    EXPECT_GE(s.words.f1(), 0.97);
    // The splitter only sees running text (no line breaks); titles and
    // sign-offs without punctuation are out of its reach.
    const SegmentationScore seg = evaluateSentenceSplitter(*gold, tok);
    EXPECT_GE(seg.sentences.f1(), 0.75);
    std::cout << "EWT test: token F1 " << s.tokens.f1() << ", word F1 " << s.words.f1() << ", sentence F1 "
              << seg.sentences.f1() << "\n";
}
