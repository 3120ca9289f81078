// The Hugging Face tokenizer reader against independent references: the ids, pieces
// and offsets the `transformers` library wrote for the two reference folders
// (../shared/fixtures/hf-transformers-reference), the same folder read through its
// vocab.txt, small tokenizers whose pieces are worked out by hand below, and one
// whose expected output was produced by the `tokenizers` library itself (0.22.2,
// through its Node binding). Torch-free.
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/encoders/pretrained/hftokenizer.h"
#include "testutil.h"

using namespace treelens;

namespace {

using Offsets = std::vector<std::pair<int, int>>;

const std::string kFixtures = "fixtures/hf-transformers-reference";

std::string slurp(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

HfTokenizer load(const std::string &json)
{
    auto t = HfTokenizer::fromJson(json, "tokenizer.json");
    EXPECT_TRUE(t) << t.message();
    if (!t)
        throw std::runtime_error(t.message());
    return std::move(t).value();
}

std::string fails(const std::string &json)
{
    auto t = HfTokenizer::fromJson(json, "tokenizer.json");
    EXPECT_FALSE(t);
    return t ? std::string() : t.message();
}

/// Every sentence of `folder`'s expected.json: input_ids, tokens and offsets.
void expectFixture(const HfTokenizer &tok, const std::string &folder)
{
    const auto expected = nlohmann::json::parse(slurp(folder + "/expected.json"));
    ASSERT_FALSE(expected.at("sentences").empty());
    for (const auto &s : expected.at("sentences")) {
        const std::string text = s.at("text").get<std::string>();
        const TokenEncoding e = tok.encode(text);
        EXPECT_EQ(e.ids, s.at("input_ids").get<std::vector<std::int64_t>>()) << text;
        EXPECT_EQ(e.tokens, s.at("tokens").get<std::vector<std::string>>()) << text;
        Offsets offsets;
        for (const auto &o : s.at("offsets"))
            offsets.emplace_back(o.at(0).get<int>(), o.at(1).get<int>());
        EXPECT_EQ(e.offsets, offsets) << text;
        ASSERT_EQ(e.typeIds.size(), e.ids.size());
        ASSERT_EQ(e.sequence.size(), e.ids.size());
        EXPECT_EQ(e.sequence.front(), -1);
        EXPECT_EQ(e.sequence.back(), -1);
    }
}

/// A BERT tokenizer.json over a small vocabulary.
std::string bertJson(bool lowercase, const std::string &stripAccents = "null", int maxChars = 100)
{
    return R"({"version": "1.0", "added_tokens": [
      {"id": 0, "content": "[PAD]", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true},
      {"id": 1, "content": "[UNK]", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true},
      {"id": 2, "content": "[CLS]", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true},
      {"id": 3, "content": "[SEP]", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true},
      {"id": 4, "content": "[MASK]", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true}],
     "normalizer": {"type": "BertNormalizer", "clean_text": true, "handle_chinese_chars": true, "strip_accents": )" +
           stripAccents + R"(, "lowercase": )" + (lowercase ? "true" : "false") + R"(},
     "pre_tokenizer": {"type": "BertPreTokenizer"},
     "post_processor": {"type": "TemplateProcessing",
       "single": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}, {"SpecialToken": {"id": "[SEP]", "type_id": 0}}],
       "pair": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}, {"SpecialToken": {"id": "[SEP]", "type_id": 0}},
                {"Sequence": {"id": "B", "type_id": 1}}, {"SpecialToken": {"id": "[SEP]", "type_id": 1}}],
       "special_tokens": {"[CLS]": {"id": "[CLS]", "ids": [2], "tokens": ["[CLS]"]}, "[SEP]": {"id": "[SEP]", "ids": [3], "tokens": ["[SEP]"]}}},
     "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": true},
     "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##", "max_input_chars_per_word": )" +
           std::to_string(maxChars) + R"(,
       "vocab": {"[PAD]": 0, "[UNK]": 1, "[CLS]": 2, "[SEP]": 3, "[MASK]": 4, "the": 5, "cafe": 6, "caf\u00e9": 7, "Caf\u00e9": 8,
                 "hello": 9, "Hello": 10, ",": 11, "!": 12, "\u6211": 13, "\u7231": 14, "\u4f60": 15, "re": 16, "-": 17,
                 "tweet": 18, "##ed": 19, "x": 20, "##x": 21, "Cafe": 22}}})";
}

/// A byte-level BPE (RoBERTa's pipeline) over the bytes of "hello café".
std::string byteLevelJson(bool addPrefixSpace, const std::string &merges)
{
    const std::string aps = addPrefixSpace ? "true" : "false";
    return R"({"version": "1.0", "added_tokens": [
      {"id": 0, "content": "<s>", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true},
      {"id": 1, "content": "<pad>", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true},
      {"id": 2, "content": "</s>", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true}],
     "normalizer": null,
     "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": )" + aps + R"(, "trim_offsets": true, "use_regex": true},
     "post_processor": {"type": "RobertaProcessing", "sep": ["</s>", 2], "cls": ["<s>", 0], "trim_offsets": true, "add_prefix_space": )" + aps + R"(},
     "model": {"type": "BPE", "dropout": null, "unk_token": null, "continuing_subword_prefix": "", "end_of_word_suffix": "",
       "fuse_unk": false, "byte_fallback": false, "ignore_merges": false,
       "vocab": {"<s>": 0, "<pad>": 1, "</s>": 2, "h": 3, "e": 4, "l": 5, "o": 6, "\u0120": 7, "c": 8, "a": 9, "f": 10,
                 "\u00c3": 11, "\u00a9": 12, "he": 13, "hel": 14, "hell": 15, "hello": 16, "\u0120c": 17, "\u00c3\u00a9": 18},
       "merges": )" + merges + "}}";
}

const std::string kByteMerges = R"(["h e", "he l", "hel l", "hell o", "\u0120 c", "\u00c3 \u00a9"])";

/// A BPE over plain characters with the merges of the hand-worked cases.
std::string bpeJson(const std::string &merges)
{
    return R"({"version": "1.0", "added_tokens": [], "normalizer": null, "pre_tokenizer": {"type": "WhitespaceSplit"},
     "post_processor": null,
     "model": {"type": "BPE", "dropout": null, "unk_token": "<unk>", "continuing_subword_prefix": null, "end_of_word_suffix": null,
       "fuse_unk": false, "byte_fallback": false,
       "vocab": {"<unk>": 0, "l": 1, "o": 2, "w": 3, "e": 4, "r": 5, "s": 6, "t": 7, "n": 8,
                 "lo": 9, "low": 10, "er": 11, "lower": 12, "we": 13},
       "merges": )" + merges + "}}";
}

} // namespace

TEST(HfTokenizer, BertFixtureMatchesTransformers)
{
    TREELENS_REQUIRE_SHARED(kFixtures + "/bert-tiny-random/tokenizer.json");
    const std::string dir = test::sharedPath(kFixtures + "/bert-tiny-random");
    auto tok = HfTokenizer::fromFolder(dir);
    ASSERT_TRUE(tok) << tok.message();
    expectFixture(*tok, dir);
    EXPECT_EQ(tok->describe(), "WordPiece (BertNormalizer lower-case, BertPreTokenizer), 3,042 tokens");
    EXPECT_EQ(tok->vocabSize(), 3042);
    EXPECT_EQ(tok->tokenId("[CLS]"), 2);
    EXPECT_EQ(tok->tokenId("##ed"), 3006);
    EXPECT_FALSE(tok->tokenId("not-a-token"));
}

TEST(HfTokenizer, RobertaFixtureMatchesTransformers)
{
    TREELENS_REQUIRE_SHARED(kFixtures + "/roberta-tiny-random/tokenizer.json");
    const std::string dir = test::sharedPath(kFixtures + "/roberta-tiny-random");
    auto tok = HfTokenizer::fromFolder(dir);
    ASSERT_TRUE(tok) << tok.message();
    // Five tokens and no merges, no unknown token: every ordinary character is dropped.
    expectFixture(*tok, dir);
    EXPECT_EQ(tok->describe(), "BPE (ByteLevel), 5 tokens");
    const TokenEncoding pair = tok->encodePair("a", "b");
    EXPECT_EQ(pair.tokens, (std::vector<std::string>{"<s>", "</s>", "</s>", "</s>"}));
}

TEST(HfTokenizer, VocabTxtFallbackGivesTheSameAsTokenizerJson)
{
    TREELENS_REQUIRE_SHARED(kFixtures + "/bert-tiny-random/vocab.txt");
    const std::string src = test::sharedPath(kFixtures + "/bert-tiny-random");
    const std::string tmp = (std::filesystem::temp_directory_path() / "treelens-hftokenizer-vocab").string();
    std::filesystem::remove_all(tmp);
    std::filesystem::create_directories(tmp);
    std::filesystem::copy_file(src + "/vocab.txt", tmp + "/vocab.txt");
    std::filesystem::copy_file(src + "/tokenizer_config.json", tmp + "/tokenizer_config.json");
    auto fallback = HfTokenizer::fromFolder(tmp);
    ASSERT_TRUE(fallback) << fallback.message();
    EXPECT_EQ(fallback->describe(), "WordPiece from vocab.txt (BertNormalizer lower-case, BertPreTokenizer), 3,042 tokens");
    expectFixture(*fallback, src);
    auto json = HfTokenizer::fromFolder(src);
    ASSERT_TRUE(json) << json.message();
    for (const std::string text : {"Caf\u00e9 na\u00efve \u6211\u7231\u4f60 [MASK] x[SEP]y", "  tabs\tand\nnewlines  ", ""}) {
        const TokenEncoding a = fallback->encodePair(text, "second [CLS] text"), b = json->encodePair(text, "second [CLS] text");
        EXPECT_EQ(a.ids, b.ids) << text;
        EXPECT_EQ(a.tokens, b.tokens) << text;
        EXPECT_EQ(a.offsets, b.offsets) << text;
        EXPECT_EQ(a.typeIds, b.typeIds) << text;
    }
    std::filesystem::remove_all(tmp);
}

TEST(HfTokenizer, CasingAndAccents)
{
    // Uncased: lower-cased, accents stripped (strip_accents null follows lowercase).
    auto uncased = load(bertJson(true));
    TokenEncoding e = uncased.encode("Caf\u00e9");
    EXPECT_EQ(e.tokens, (std::vector<std::string>{"[CLS]", "cafe", "[SEP]"}));
    EXPECT_EQ(e.ids, (std::vector<std::int64_t>{2, 6, 3}));
    EXPECT_EQ(e.offsets, (Offsets{{0, 0}, {0, 4}, {0, 0}}));
    // The same word with a combining accent (5 code points): the accent removed after
    // the "e" is not part of the piece's characters (the library's filter keeps the
    // alignment of the "e" alone).
    e = uncased.encode("Cafe\u0301");
    EXPECT_EQ(e.tokens[1], "cafe");
    EXPECT_EQ(e.offsets[1], (std::pair<int, int>{0, 4}));
    EXPECT_EQ(uncased.encode("HELLO").tokens[1], "hello");
    // Cased: neither lower-casing nor accent stripping.
    auto cased = load(bertJson(false));
    EXPECT_EQ(cased.encode("Caf\u00e9").tokens[1], "Caf\u00e9");
    EXPECT_EQ(cased.encode("Hello hello").tokens, (std::vector<std::string>{"[CLS]", "Hello", "hello", "[SEP]"}));
    EXPECT_EQ(cased.encode("HELLO").tokens[1], "[UNK]");
    // Lower-cased but accents kept; cased with accents stripped.
    EXPECT_EQ(load(bertJson(true, "false")).encode("Caf\u00e9").tokens[1], "caf\u00e9");
    EXPECT_EQ(load(bertJson(false, "true")).encode("Caf\u00e9").tokens[1], "Cafe");
}

TEST(HfTokenizer, ChineseCharactersAreSplit)
{
    auto tok = load(bertJson(true));
    const TokenEncoding e = tok.encode("\u6211\u7231\u4f60");
    EXPECT_EQ(e.tokens, (std::vector<std::string>{"[CLS]", "\u6211", "\u7231", "\u4f60", "[SEP]"}));
    EXPECT_EQ(e.ids, (std::vector<std::int64_t>{2, 13, 14, 15, 3}));
    EXPECT_EQ(e.offsets, (Offsets{{0, 0}, {0, 1}, {1, 2}, {2, 3}, {0, 0}}));
}

TEST(HfTokenizer, PunctuationAndWordPieces)
{
    auto tok = load(bertJson(true));
    const TokenEncoding e = tok.encode("Hello, re-tweeted!");
    EXPECT_EQ(e.tokens, (std::vector<std::string>{"[CLS]", "hello", ",", "re", "-", "tweet", "##ed", "!", "[SEP]"}));
    EXPECT_EQ(e.offsets, (Offsets{{0, 0}, {0, 5}, {5, 6}, {7, 9}, {9, 10}, {10, 15}, {15, 17}, {17, 18}, {0, 0}}));
    EXPECT_EQ(e.typeIds, std::vector<int>(9, 0));
    // A word without a match is one [UNK] over the whole word.
    const TokenEncoding unk = tok.encode("the zebra");
    EXPECT_EQ(unk.tokens, (std::vector<std::string>{"[CLS]", "the", "[UNK]", "[SEP]"}));
    EXPECT_EQ(unk.offsets[2], (std::pair<int, int>{4, 9}));
}

TEST(HfTokenizer, WordOverMaxInputCharsIsUnknown)
{
    auto tok = load(bertJson(true, "null", 5));
    const TokenEncoding five = tok.encode("xxxxx");
    EXPECT_EQ(five.tokens, (std::vector<std::string>{"[CLS]", "x", "##x", "##x", "##x", "##x", "[SEP]"}));
    const TokenEncoding six = tok.encode("xxxxxx x");
    EXPECT_EQ(six.tokens, (std::vector<std::string>{"[CLS]", "[UNK]", "x", "[SEP]"}));
    EXPECT_EQ(six.offsets, (Offsets{{0, 0}, {0, 6}, {7, 8}, {0, 0}}));
}

TEST(HfTokenizer, SpecialTokensInTheTextStayWhole)
{
    auto tok = load(bertJson(true));
    const TokenEncoding e = tok.encode("the [MASK] x[SEP]x");
    EXPECT_EQ(e.tokens, (std::vector<std::string>{"[CLS]", "the", "[MASK]", "x", "[SEP]", "x", "[SEP]"}));
    EXPECT_EQ(e.ids, (std::vector<std::int64_t>{2, 5, 4, 20, 3, 20, 3}));
    EXPECT_EQ(e.offsets, (Offsets{{0, 0}, {0, 3}, {4, 10}, {11, 12}, {12, 17}, {17, 18}, {0, 0}}));
    // Part of the text, not of the template.
    EXPECT_EQ(e.sequence, (std::vector<int>{-1, 0, 0, 0, 0, 0, -1}));
    // Not normalised: a lower-case "[mask]" is ordinary text.
    EXPECT_EQ(tok.encode("[mask]").tokens, (std::vector<std::string>{"[CLS]", "[UNK]", "[UNK]", "[UNK]", "[SEP]"}));
}

TEST(HfTokenizer, BertPairTemplate)
{
    auto tok = load(bertJson(true));
    const TokenEncoding e = tok.encodePair("Hello!", "the cafe");
    EXPECT_EQ(e.tokens, (std::vector<std::string>{"[CLS]", "hello", "!", "[SEP]", "the", "cafe", "[SEP]"}));
    EXPECT_EQ(e.typeIds, (std::vector<int>{0, 0, 0, 0, 1, 1, 1}));
    EXPECT_EQ(e.sequence, (std::vector<int>{-1, 0, 0, -1, 1, 1, -1}));
    // Offsets of the second text count in the second text.
    EXPECT_EQ(e.offsets, (Offsets{{0, 0}, {0, 5}, {5, 6}, {0, 0}, {0, 3}, {4, 8}, {0, 0}}));
}

TEST(HfTokenizer, InvalidUtf8BecomesReplacementCharacters)
{
    auto tok = load(bertJson(true));
    // "x\xFFx": the invalid byte is one U+FFFD, which BERT's clean-up removes: one word "xx".
    const TokenEncoding e = tok.encode("x\xffx");
    EXPECT_EQ(e.tokens, (std::vector<std::string>{"[CLS]", "x", "##x", "[SEP]"}));
    EXPECT_EQ(e.offsets, (Offsets{{0, 0}, {0, 1}, {2, 3}, {0, 0}}));
    EXPECT_EQ(codePointByteOffsets("a\xc3\xa9\xff"), (std::vector<std::size_t>{0, 1, 3, 4}));
    EXPECT_EQ(codePointByteOffsets(""), (std::vector<std::size_t>{0}));
}

TEST(HfTokenizer, CharacterClassesFollowTheLibrarysUnicodeTables)
{
    // The library's punctuation, control and non-spacing-mark classes are Unicode 8.0's
    // (as the `tokenizers` library 0.22.2 splits and drops them): U+2E42 (Unicode 8) is
    // punctuation, U+2E45 (Unicode 10) is not; U+200B (format) is dropped, the
    // unassigned U+0378 is kept; U+1DF5 (a mark of Unicode 8) is stripped, U+1DF6
    // (Unicode 10) is not.
    auto tok = load(bertJson(true));
    EXPECT_EQ(tok.encode("x\u2e42x").tokens, (std::vector<std::string>{"[CLS]", "x", "[UNK]", "x", "[SEP]"}));
    TokenEncoding e = tok.encode("x\u2e45x");
    EXPECT_EQ(e.tokens, (std::vector<std::string>{"[CLS]", "[UNK]", "[SEP]"}));
    EXPECT_EQ(e.offsets[1], (std::pair<int, int>{0, 3}));
    e = tok.encode("x\u200bx");
    EXPECT_EQ(e.tokens, (std::vector<std::string>{"[CLS]", "x", "##x", "[SEP]"}));
    EXPECT_EQ(e.offsets, (Offsets{{0, 0}, {0, 1}, {2, 3}, {0, 0}}));
    EXPECT_EQ(tok.encode("x\u0378x").tokens, (std::vector<std::string>{"[CLS]", "[UNK]", "[SEP]"}));
    EXPECT_EQ(tok.encode("x\u1df5x").tokens, (std::vector<std::string>{"[CLS]", "x", "##x", "[SEP]"}));
    EXPECT_EQ(tok.encode("x\u1df6x").tokens, (std::vector<std::string>{"[CLS]", "[UNK]", "[SEP]"}));
}

TEST(HfTokenizer, BpeMergesByRank)
{
    // "lower": l o w e r; ranks l+o (0), lo+w (1), e+r (2), low+er (3) -> one piece.
    // "lowest": l o w e s t -> lo, then low; nothing joins e, s, t.
    // "newer": n e w e r -> only e+r applies (w+e is not a merge here).
    auto tok = load(bpeJson(R"(["l o", "lo w", "e r", "low er"])"));
    TokenEncoding e = tok.encode("lower lowest newer");
    EXPECT_EQ(e.tokens, (std::vector<std::string>{"lower", "low", "e", "s", "t", "n", "e", "w", "er"}));
    EXPECT_EQ(e.ids, (std::vector<std::int64_t>{12, 10, 4, 6, 7, 8, 4, 3, 11}));
    EXPECT_EQ(e.offsets, (Offsets{{0, 5}, {6, 9}, {9, 10}, {10, 11}, {11, 12}, {13, 14}, {14, 15}, {15, 16}, {16, 18}}));
    EXPECT_EQ(e.typeIds, std::vector<int>(9, 0));   // no post-processor
    // "wer": w+e and e+r compete; the lower rank wins.
    EXPECT_EQ(load(bpeJson(R"(["e r", "w e"])")).encode("wer").tokens, (std::vector<std::string>{"w", "er"}));
    EXPECT_EQ(load(bpeJson(R"(["w e", "e r"])")).encode("wer").tokens, (std::vector<std::string>{"we", "r"}));
    // Merges as ["left", "right"] pairs read the same; an unknown character is <unk>.
    auto pairs = load(bpeJson(R"([["l", "o"], ["lo", "w"], ["e", "r"], ["low", "er"]])"));
    e = pairs.encode("lower xlow");
    EXPECT_EQ(e.tokens, (std::vector<std::string>{"lower", "<unk>", "low"}));
    EXPECT_EQ(e.offsets, (Offsets{{0, 5}, {6, 7}, {7, 10}}));
    // No post-processor: a pair is the two texts, type ids 0 and 1.
    e = pairs.encodePair("low", "er");
    EXPECT_EQ(e.tokens, (std::vector<std::string>{"low", "er"}));
    EXPECT_EQ(e.typeIds, (std::vector<int>{0, 1}));
    EXPECT_EQ(e.sequence, (std::vector<int>{0, 1}));
}

TEST(HfTokenizer, ByteLevelSpacesAndNonAsciiCharacters)
{
    // "hello café" -> "hello", "Ġcafé" -> bytes "hello", "ĠcafÃ©"; the space is 'Ġ' (U+0120),
    // é (C3 A9) the two characters "Ã©". Offsets: "Ġc" loses its space (trim_offsets).
    auto tok = load(byteLevelJson(false, kByteMerges));
    TokenEncoding e = tok.encode("hello caf\u00e9");
    EXPECT_EQ(e.tokens, (std::vector<std::string>{"<s>", "hello", "\u0120c", "a", "f", "\u00c3\u00a9", "</s>"}));
    EXPECT_EQ(e.ids, (std::vector<std::int64_t>{0, 16, 17, 9, 10, 18, 2}));
    EXPECT_EQ(e.offsets, (Offsets{{0, 0}, {0, 5}, {6, 7}, {7, 8}, {8, 9}, {9, 10}, {0, 0}}));
    // Without the merge of é's two bytes both pieces map back to the whole é.
    auto split = load(byteLevelJson(false, R"(["h e", "he l", "hel l", "hell o", "\u0120 c"])"));
    e = split.encode("caf\u00e9");
    EXPECT_EQ(e.tokens, (std::vector<std::string>{"<s>", "c", "a", "f", "\u00c3", "\u00a9", "</s>"}));
    EXPECT_EQ(e.offsets, (Offsets{{0, 0}, {0, 1}, {1, 2}, {2, 3}, {3, 4}, {3, 4}, {0, 0}}));
    // add_prefix_space: the first word gets a space too, which its offsets keep out.
    auto prefixed = load(byteLevelJson(true, kByteMerges));
    e = prefixed.encode("caf\u00e9");
    EXPECT_EQ(e.tokens, (std::vector<std::string>{"<s>", "\u0120c", "a", "f", "\u00c3\u00a9", "</s>"}));
    EXPECT_EQ(e.offsets, (Offsets{{0, 0}, {0, 1}, {1, 2}, {2, 3}, {3, 4}, {0, 0}}));
}

TEST(HfTokenizer, RobertaPairTemplate)
{
    auto tok = load(byteLevelJson(false, kByteMerges));
    const TokenEncoding e = tok.encodePair("hello", "caf\u00e9");
    EXPECT_EQ(e.tokens, (std::vector<std::string>{"<s>", "hello", "</s>", "</s>", "c", "a", "f", "\u00c3\u00a9", "</s>"}));
    EXPECT_EQ(e.typeIds, std::vector<int>(9, 0));
    EXPECT_EQ(e.sequence, (std::vector<int>{-1, 0, -1, -1, 1, 1, 1, 1, -1}));
    EXPECT_EQ(e.offsets, (Offsets{{0, 0}, {0, 5}, {0, 0}, {0, 0}, {0, 1}, {1, 2}, {2, 3}, {3, 4}, {0, 0}}));
}

TEST(HfTokenizer, MatchesTheTokenizersLibraryOnNfcLowercaseAndStrippedAddedTokens)
{
    // Expected values produced by the `tokenizers` library 0.22.2 on this file: NFC joins
    // "e" + U+0301 into "é", aligned with the "e" alone; "İ" lower-cases to "i" + U+0307,
    // both from the one original character; "<x>" takes the spaces around it (lstrip,
    // rstrip) into its piece and its offsets.
    auto tok = load(
        R"({"version": "1.0", "added_tokens": [{"id": 4, "content": "<x>", "single_word": false, "lstrip": true, "rstrip": true, "normalized": false, "special": true}],
        "normalizer": {"type": "Sequence", "normalizers": [{"type": "NFC"}, {"type": "Lowercase"}]},
        "pre_tokenizer": {"type": "WhitespaceSplit"}, "post_processor": {"type": "BertProcessing", "sep": ["[SEP]", 6], "cls": ["[CLS]", 5]},
        "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##", "max_input_chars_per_word": 100,
        "vocab": {"[UNK]": 0, "caf": 1, "##\u00e9": 2, "ok": 3, "<x>": 4, "[CLS]": 5, "[SEP]": 6, "i": 7, "##\u0307": 8, "##x": 9}}})");
    TokenEncoding e = tok.encode("Cafe\u0301  <x>  ok");
    EXPECT_EQ(e.tokens, (std::vector<std::string>{"[CLS]", "caf", "##\u00e9", "  <x>  ", "ok", "[SEP]"}));
    EXPECT_EQ(e.ids, (std::vector<std::int64_t>{5, 1, 2, 4, 3, 6}));
    EXPECT_EQ(e.offsets, (Offsets{{0, 0}, {0, 3}, {3, 4}, {5, 12}, {12, 14}, {0, 0}}));
    e = tok.encode("\u0130x caf\u00e9");
    EXPECT_EQ(e.ids, (std::vector<std::int64_t>{5, 7, 8, 9, 1, 2, 6}));
    EXPECT_EQ(e.offsets, (Offsets{{0, 0}, {0, 1}, {0, 1}, {1, 2}, {3, 6}, {6, 7}, {0, 0}}));
    e = tok.encodePair("ok<x>", "\u0130x");
    EXPECT_EQ(e.ids, (std::vector<std::int64_t>{5, 3, 4, 6, 7, 8, 9, 6}));
    EXPECT_EQ(e.offsets, (Offsets{{0, 0}, {0, 2}, {2, 5}, {0, 0}, {0, 1}, {0, 1}, {1, 2}, {0, 0}}));
    EXPECT_EQ(e.typeIds, (std::vector<int>{0, 0, 0, 0, 1, 1, 1, 1}));
    EXPECT_EQ(e.sequence, (std::vector<int>{-1, 0, 0, -1, 1, 1, 1, -1}));
}

TEST(HfTokenizer, ErrorsNameTheFileAndTheField)
{
    EXPECT_NE(fails("{\"model\": ").find("tokenizer.json: not valid JSON"), std::string::npos);
    std::string json = bertJson(true);
    const std::string bert = R"({"type": "BertNormalizer", "clean_text": true, "handle_chinese_chars": true, "strip_accents": null, "lowercase": true})";
    auto with = [&](const std::string &from, const std::string &to) {
        std::string j = json;
        const auto at = j.find(from);
        EXPECT_NE(at, std::string::npos) << from;
        return at == std::string::npos ? j : j.replace(at, from.size(), to);
    };
    EXPECT_EQ(fails(with(bert, R"({"type": "Precompiled", "precompiled_charsmap": ""})")),
              "tokenizer.json: normalizer type \"Precompiled\" is not supported by this build");
    EXPECT_EQ(fails(with(bert, R"({"type": "Sequence", "normalizers": [{"type": "NFD"}, {"type": "Strip"}]})")),
              "tokenizer.json: normalizer.normalizers[1] type \"Strip\" is not supported by this build");
    EXPECT_EQ(fails(with(R"({"type": "BertPreTokenizer"})", R"({"type": "Punctuation"})")),
              "tokenizer.json: pre_tokenizer type \"Punctuation\" is not supported by this build");
    EXPECT_EQ(fails(with(R"("type": "WordPiece", "unk_token": "[UNK]")", R"("type": "Unigram", "unk_token": "[UNK]")")),
              "tokenizer.json: model type \"Unigram\" is not supported by this build");
    EXPECT_NE(fails(with(R"("unk_token": "[UNK]", "continuing)", R"("unk_token": "<unk>", "continuing)")).find("model.unk_token"),
              std::string::npos);
    EXPECT_NE(fails(with(R"("the": 5)", R"("the": "five")")).find("model.vocab: the id of \"the\""), std::string::npos);
    EXPECT_NE(fails(with(R"("ids": [2], "tokens": ["[CLS]"])", R"("ids": [2], "tokens": ["<cls>"])")).find("post_processor.special_tokens.[CLS]"),
              std::string::npos);
    EXPECT_EQ(fails(with(R"("ids": [2], "tokens": ["[CLS]"])", R"("ids": [99], "tokens": ["[CLS]"])")),
              "tokenizer.json: post_processor.special_tokens.[CLS]: id 99 is outside the vocabulary (23 ids)");
    // (The first occurrence is the single template's.)
    EXPECT_NE(fails(with(R"({"SpecialToken": {"id": "[CLS]", "type_id": 0}})", R"({"SpecialToken": {"id": "[BOS]", "type_id": 0}})"))
                  .find("tokenizer.json: post_processor.single[0]: special token \"[BOS]\" is not in post_processor.special_tokens"),
              std::string::npos);
    // Merges that name a token the vocabulary lacks, or make one it lacks.
    EXPECT_NE(fails(bpeJson(R"(["l o", "lo q"])")).find("tokenizer.json: model.merges[1]: \"q\" is not in model.vocab"), std::string::npos);
    EXPECT_NE(fails(bpeJson(R"(["l o", "o w"])")).find("model.merges[1]: the merged token \"ow\""), std::string::npos);
    EXPECT_NE(fails(bpeJson(R"(["l o x"])")).find("model.merges[0]"), std::string::npos);
    auto dropout = HfTokenizer::fromJson(bpeJson("[]").replace(bpeJson("[]").find("\"dropout\": null"), 15, "\"dropout\": 0.5"), "t.json");
    ASSERT_FALSE(dropout);
    EXPECT_EQ(dropout.message(), "t.json: model.dropout: BPE dropout (random merges) is not supported by this build");
    auto none = HfTokenizer::fromFolder(std::filesystem::temp_directory_path().string() + "/treelens-no-such-folder");
    ASSERT_FALSE(none);
    EXPECT_NE(none.message().find("no tokenizer.json or vocab.txt"), std::string::npos);
    auto emptyVocab = HfTokenizer::fromBertVocab("\n\n", "", "vocab.txt");
    ASSERT_FALSE(emptyVocab);
    EXPECT_EQ(emptyVocab.message(), "vocab.txt: the vocabulary is empty");
    auto noCls = HfTokenizer::fromBertVocab("[UNK]\n[SEP]\nx\n", "", "vocab.txt");
    ASSERT_FALSE(noCls);
    EXPECT_EQ(noCls.message(), "vocab.txt: cls_token \"[CLS]\" is not in the vocabulary");
    auto badConfig = HfTokenizer::fromBertVocab("[UNK]\n[CLS]\n[SEP]\n", "{\"do_lower_case\": 1}", "vocab.txt");
    ASSERT_FALSE(badConfig);
    EXPECT_EQ(badConfig.message(), "vocab.txt: tokenizer_config.json: do_lower_case: expected true or false");
}
