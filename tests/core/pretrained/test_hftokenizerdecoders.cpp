// The tokenizers of the decoder-only models (GPT-2, GPT-NeoX, Llama 2/3, Qwen, Gemma)
// against independent references: the ids, tokens and offsets the `tokenizers` library
// (0.23.2) returned for the seven folders of ../shared/fixtures/hf-decoders-reference,
// and small tokenizers whose pieces are worked out by hand below (Split behaviours,
// the regular expressions' semantics, Metaspace's prepend schemes, Prepend/Replace
// alignment, byte fallback, trimmed offsets), and the readable pieces. Torch-free.
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
using Strings = std::vector<std::string>;
using nlohmann::json;

const std::string kDecoders = "fixtures/hf-decoders-reference";

std::string slurp(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

HfTokenizer load(const json &j)
{
    auto t = HfTokenizer::fromJson(j.dump(), "tokenizer.json");
    EXPECT_TRUE(t) << t.message();
    if (!t)
        throw std::runtime_error(t.message());
    return std::move(t).value();
}

std::string fails(const json &j)
{
    auto t = HfTokenizer::fromJson(j.dump(), "tokenizer.json");
    EXPECT_FALSE(t);
    return t ? std::string() : t.message();
}

/// A BPE over `vocab` (ids in order) with `ignore_merges`: a piece that is a vocabulary
/// entry is one token, any other piece is its characters. So the tokens show the pieces
/// the pre-tokenizer made.
json piecesTokenizer(const Strings &vocab, const json &preTokenizer, const json &normalizer = nullptr)
{
    json v = json::object();
    for (std::size_t i = 0; i < vocab.size(); ++i)
        v[vocab[i]] = i;
    return {{"version", "1.0"},
            {"added_tokens", json::array()},
            {"normalizer", normalizer},
            {"pre_tokenizer", preTokenizer},
            {"post_processor", nullptr},
            {"model",
             {{"type", "BPE"}, {"dropout", nullptr}, {"unk_token", nullptr}, {"continuing_subword_prefix", nullptr},
              {"end_of_word_suffix", nullptr}, {"fuse_unk", false}, {"byte_fallback", false}, {"ignore_merges", true},
              {"vocab", v}, {"merges", json::array()}}}};
}

json split(const json &pattern, const std::string &behavior, bool invert = false)
{
    return {{"type", "Split"}, {"pattern", pattern}, {"behavior", behavior}, {"invert", invert}};
}

json metaspace(const std::string &scheme, bool splitPieces)
{
    return {{"type", "Metaspace"}, {"replacement", "\u2581"}, {"prepend_scheme", scheme}, {"split", splitPieces}};
}

/// Llama-2's layout: SentencePiece-style BPE with byte fallback, <unk> and BOS <s>.
json byteFallbackTokenizer(const Strings &pieces, const json &merges, const json &normalizer)
{
    json v = json::object();
    v["<unk>"] = 0;
    v["<s>"] = 1;
    for (int b = 0; b < 256; ++b) {
        char name[8];
        std::snprintf(name, sizeof name, "<0x%02X>", b);
        v[name] = 2 + b;
    }
    for (std::size_t i = 0; i < pieces.size(); ++i)
        v[pieces[i]] = 258 + i;
    return {{"version", "1.0"},
            {"added_tokens", json::array({{{"id", 0}, {"content", "<unk>"}, {"special", true}, {"normalized", false}},
                                          {{"id", 1}, {"content", "<s>"}, {"special", true}, {"normalized", false}}})},
            {"normalizer", normalizer},
            {"pre_tokenizer", nullptr},
            {"post_processor",
             {{"type", "TemplateProcessing"},
              {"single", json::array({{{"SpecialToken", {{"id", "<s>"}, {"type_id", 0}}}}, {{"Sequence", {{"id", "A"}, {"type_id", 0}}}}})},
              {"pair", json::array({{{"Sequence", {{"id", "A"}, {"type_id", 0}}}}, {{"Sequence", {{"id", "B"}, {"type_id", 1}}}}})},
              {"special_tokens", {{"<s>", {{"id", "<s>"}, {"ids", {1}}, {"tokens", {"<s>"}}}}}}}},
            {"model",
             {{"type", "BPE"}, {"dropout", nullptr}, {"unk_token", "<unk>"}, {"continuing_subword_prefix", nullptr},
              {"end_of_word_suffix", nullptr}, {"fuse_unk", true}, {"byte_fallback", true}, {"ignore_merges", false},
              {"vocab", v}, {"merges", merges}}}};
}

const json kLlama2Normalizer = {{"type", "Sequence"},
                                {"normalizers", json::array({{{"type", "Prepend"}, {"prepend", "\u2581"}},
                                                             {{"type", "Replace"}, {"pattern", {{"String", " "}}}, {"content", "\u2581"}}})}};

/// GPT-2's byte-level BPE over a few bytes, post-processed with `trimOffsets`.
json byteLevelTokenizer(bool trimOffsets)
{
    json v = {{"a", 0}, {"b", 1}, {"\u0120", 2}, {"\u0120b", 3}, {"\u00c3", 4}, {"\u00a9", 5}};
    return {{"version", "1.0"},
            {"added_tokens", json::array()},
            {"normalizer", nullptr},
            {"pre_tokenizer", {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"trim_offsets", true}, {"use_regex", true}}},
            {"post_processor", {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"trim_offsets", trimOffsets}, {"use_regex", true}}},
            {"model",
             {{"type", "BPE"}, {"dropout", nullptr}, {"unk_token", nullptr}, {"continuing_subword_prefix", ""},
              {"end_of_word_suffix", ""}, {"fuse_unk", false}, {"byte_fallback", false}, {"ignore_merges", false},
              {"vocab", v}, {"merges", json::array({"\u0120 b"})}}}};
}

} // namespace

TEST(HfDecoderTokenizers, FixtureFoldersMatchTheTokenizersLibrary)
{
    TREELENS_REQUIRE_SHARED(kDecoders + "/README.md");
    const std::string root = test::sharedPath(kDecoders);
    int folders = 0;
    for (const auto &entry : std::filesystem::directory_iterator(root)) {
        const std::string dir = entry.path().string();
        if (!std::filesystem::exists(dir + "/tokenizer.json") || !std::filesystem::exists(dir + "/expected.json"))
            continue;
        ++folders;
        SCOPED_TRACE(dir);
        auto tok = HfTokenizer::fromFolder(dir);
        ASSERT_TRUE(tok) << tok.message();
        const json expected = json::parse(slurp(dir + "/expected.json"));
        ASSERT_FALSE(expected.at("sentences").empty());
        for (const auto &s : expected.at("sentences")) {
            const std::string text = s.at("text").get<std::string>();
            const TokenEncoding e = tok->encode(text);
            EXPECT_EQ(e.ids, s.at("input_ids").get<std::vector<std::int64_t>>()) << text;
            EXPECT_EQ(e.tokens, s.at("tokens").get<Strings>()) << text;
            Offsets offsets;
            for (const auto &o : s.at("offsets"))
                offsets.emplace_back(o.at(0).get<int>(), o.at(1).get<int>());
            EXPECT_EQ(e.offsets, offsets) << text;
            // The readable pieces of the text's own tokens spell the text again (after
            // the "▁" a Prepend normalizer put in front).
            const Strings readable = tok->readablePieces(e);
            ASSERT_EQ(readable.size(), e.tokens.size());
            std::string joined;
            for (std::size_t i = 0; i < readable.size(); ++i)
                if (e.sequence[i] >= 0 && readable[i] != HfTokenizer::kContinuedPiece)
                    joined += readable[i];
            EXPECT_TRUE(joined == text || joined == " " + text) << joined;
        }
    }
    EXPECT_EQ(folders, 7);
}

TEST(HfDecoderTokenizers, DescribeNamesTheComponents)
{
    TREELENS_REQUIRE_SHARED(kDecoders + "/llama2-tiny-random/tokenizer.json");
    const std::string root = test::sharedPath(kDecoders);
    auto describe = [&](const std::string &folder) {
        auto tok = HfTokenizer::fromFolder(root + "/" + folder);
        return tok ? tok->describe() : tok.message();
    };
    EXPECT_EQ(describe("llama2-tiny-random"), "BPE (Prepend \"\u2581\" + Replace \" \" by \"\u2581\"), 616 tokens");
    EXPECT_EQ(describe("llama3-tiny-random"), "BPE (Split on a regex + ByteLevel), 576 tokens");
    EXPECT_EQ(describe("gemma-tiny-random"), "BPE (Replace \" \" by \"\u2581\"), 620 tokens");
}

TEST(HfDecoderTokenizers, SplitBehaviours)
{
    // "a-b--c" split on the string "-": the matches are "-", "-", "-" (each its own), the
    // rest "a", "b", "c". The vocabulary holds every piece a behaviour makes.
    const Strings vocab = {"a", "b", "c", "-", "a-", "b-", "-b", "-c", "--"};
    auto pieces = [&](const std::string &behavior, bool invert = false) {
        const TokenEncoding e = load(piecesTokenizer(vocab, split({{"String", "-"}}, behavior, invert))).encode("a-b--c");
        return std::make_pair(e.tokens, e.offsets);
    };
    EXPECT_EQ(pieces("Removed"), std::make_pair(Strings{"a", "b", "c"}, Offsets{{0, 1}, {2, 3}, {5, 6}}));
    EXPECT_EQ(pieces("Isolated").first, (Strings{"a", "-", "b", "-", "-", "c"}));
    EXPECT_EQ(pieces("MergedWithPrevious"), std::make_pair(Strings{"a-", "b-", "-", "c"}, Offsets{{0, 2}, {2, 4}, {4, 5}, {5, 6}}));
    EXPECT_EQ(pieces("MergedWithNext"), std::make_pair(Strings{"a", "-b", "-", "-c"}, Offsets{{0, 1}, {1, 3}, {3, 4}, {4, 6}}));
    EXPECT_EQ(pieces("Contiguous").first, (Strings{"a", "-", "b", "--", "c"}));
    // Inverted: the letters are the matches, so Removed keeps the dashes, one piece each.
    EXPECT_EQ(pieces("Removed", true), std::make_pair(Strings{"-", "-", "-"}, Offsets{{1, 2}, {3, 4}, {4, 5}}));
    EXPECT_EQ(pieces("MergedWithPrevious", true).first, (Strings{"a", "-b", "-", "-c"}));
}

TEST(HfDecoderTokenizers, RegexSplitFollowsTheLibrarysEngine)
{
    // Llama-3's pattern: (?i:...) takes "'M" and "'S"; \p{N}{1,3} cuts numbers in threes;
    // \s+(?!\S) leaves the last space of a run to the word after it; \s is Unicode's
    // White_Space (U+3000 too), not ICU's [\t\n\f\r\p{Z}] (which lacks U+0085).
    const std::string llama3 = "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|"
                               "\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
    const Strings vocab = {"I", "'M", " ", "  ", "123", "45", " b", "a", "\u0085", "\u0085x", "x", "IT", "'S", "!", "\n"};
    HfTokenizer tok = load(piecesTokenizer(vocab, split({{"Regex", llama3}}, "Isolated")));
    TokenEncoding e = tok.encode("I'M 12345");
    EXPECT_EQ(e.tokens, (Strings{"I", "'M", " ", "123", "45"}));
    EXPECT_EQ(e.offsets, (Offsets{{0, 1}, {1, 3}, {3, 4}, {4, 7}, {7, 9}}));
    EXPECT_EQ(tok.encode("a   b").tokens, (Strings{"a", "  ", " b"}));
    EXPECT_EQ(tok.encode("IT'S!!\n").tokens, (Strings{"IT", "'S", "!", "!", "\n"}));   // "!!\n" is one piece, not in the vocabulary
    // U+0085 is \s: the first of two is a space run of its own, the second goes with the
    // letter after it (with ICU's \s, which lacks it, "\u0085\u0085" would be one piece).
    EXPECT_EQ(tok.encode("x\u0085\u0085x").tokens, (Strings{"x", "\u0085", "\u0085x"}));
    // Oniguruma's \w is Alphabetic, M, Nd, Pc (Ⅰ, _ and 1 too) and, outside a class, ²;
    // `.` is anything but \n; a Ruby (?m) lets it take \n.
    HfTokenizer word = load(piecesTokenizer({" ", "ab"}, split({{"Regex", "\\w+"}}, "Removed")));
    EXPECT_EQ(word.encode("ab _1 \u2160\u00b2").tokens, (Strings{" ", " "}));
    EXPECT_EQ(load(piecesTokenizer({" ", "ab"}, split({{"Regex", "\\w+"}}, "Removed", true))).encode("ab _1").tokens,
              (Strings{"ab"}));   // inverted: the words are kept, "_1" is not in the vocabulary
    HfTokenizer dot = load(piecesTokenizer({"a", "\n", "x"}, split({{"Regex", "a."}}, "Removed")));
    EXPECT_EQ(dot.encode("a\nax").tokens, (Strings{"a", "\n"}));
    HfTokenizer dotAll = load(piecesTokenizer({"a", "\n", "x"}, split({{"Regex", "(?m:a.)"}}, "Removed")));
    EXPECT_TRUE(dotAll.encode("a\nax").tokens.empty());
    // A pattern that matches the empty string: the empty matches split nothing off.
    HfTokenizer empty = load(piecesTokenizer({"ab", "a", "b"}, split({{"Regex", "x*"}}, "Isolated")));
    EXPECT_EQ(empty.encode("ab").tokens, (Strings{"a", "b"}));
}

TEST(HfDecoderTokenizers, MetaspacePrependSchemes)
{
    const Strings vocab = {"\u2581Hi", "\u2581you", "Hi", "\u2581Hi\u2581you", "Hi\u2581you", "<x>", "you"};
    auto encode = [&](const std::string &scheme, bool splitPieces, const std::string &text) {
        json j = piecesTokenizer(vocab, metaspace(scheme, splitPieces));
        j["added_tokens"] = json::array({{{"id", 5}, {"content", "<x>"}, {"special", true}, {"normalized", false}}});
        const TokenEncoding e = load(j).encode(text);
        return std::make_pair(e.tokens, e.offsets);
    };
    // The "▁" put in front shares the first character's span; one made from a space covers it.
    EXPECT_EQ(encode("always", true, "Hi you"), std::make_pair(Strings{"\u2581Hi", "\u2581you"}, Offsets{{0, 2}, {2, 6}}));
    EXPECT_EQ(encode("always", false, "Hi you"), std::make_pair(Strings{"\u2581Hi\u2581you"}, Offsets{{0, 6}}));
    EXPECT_EQ(encode("never", true, "Hi you"), std::make_pair(Strings{"Hi", "\u2581you"}, Offsets{{0, 2}, {2, 6}}));
    EXPECT_EQ(encode("never", false, "Hi you").first, (Strings{"Hi\u2581you"}));
    // "first": only the piece at the start of the text gets one; after an added token none.
    EXPECT_EQ(encode("first", true, "Hi you").first, (Strings{"\u2581Hi", "\u2581you"}));
    EXPECT_EQ(encode("first", true, "<x>you").first, (Strings{"<x>", "you"}));
    EXPECT_EQ(encode("always", true, "<x>you").first, (Strings{"<x>", "\u2581you"}));
    // A text that starts with a space gets no second "▁".
    EXPECT_EQ(encode("always", true, " you"), std::make_pair(Strings{"\u2581you"}, Offsets{{0, 4}}));
}

TEST(HfDecoderTokenizers, PrependAndReplaceAlignment)
{
    // Llama-2's normalizer: "The old" -> "▁The▁old"; the prepended "▁" belongs to "T".
    const json merges = json::array({"\u2581 T", "\u2581T h", "\u2581Th e", "\u2581 o", "\u2581o l", "\u2581ol d"});
    HfTokenizer tok = load(byteFallbackTokenizer({"\u2581", "T", "h", "e", "o", "l", "d", "\u2581T", "\u2581Th", "\u2581The",
                                                  "\u2581o", "\u2581ol", "\u2581old"},
                                                 merges, kLlama2Normalizer));
    const TokenEncoding e = tok.encode("The old");
    EXPECT_EQ(e.tokens, (Strings{"<s>", "\u2581The", "\u2581old"}));
    EXPECT_EQ(e.offsets, (Offsets{{0, 0}, {0, 3}, {3, 7}}));
    // Replace "ab" by "X": the new character takes the alignment of the last one replaced.
    json replace = piecesTokenizer({"c", "X", "d"}, nullptr,
                                   {{"type", "Replace"}, {"pattern", {{"String", "ab"}}}, {"content", "X"}});
    const TokenEncoding r = load(replace).encode("cabd");
    EXPECT_EQ(r.tokens, (Strings{"c", "X", "d"}));
    EXPECT_EQ(r.offsets, (Offsets{{0, 1}, {2, 3}, {3, 4}}));
    // A regular expression: runs of spaces become one "_", aligned with the run's last space.
    json runs = piecesTokenizer({"a", "_", "b"}, nullptr, {{"type", "Replace"}, {"pattern", {{"Regex", " +"}}}, {"content", "_"}});
    EXPECT_EQ(load(runs).encode("a   b").offsets, (Offsets{{0, 1}, {3, 4}, {4, 5}}));
}

TEST(HfDecoderTokenizers, ByteFallbackSplitsAnUnknownCharacterIntoBytes)
{
    // "🍜" (F0 9F 8D 9C) is not in the vocabulary: four byte tokens, each with its span.
    HfTokenizer tok = load(byteFallbackTokenizer({"\u2581", "a"}, json::array(), kLlama2Normalizer));
    TokenEncoding e = tok.encode("a\U0001F35C");
    EXPECT_EQ(e.tokens, (Strings{"<s>", "\u2581", "a", "<0xF0>", "<0x9F>", "<0x8D>", "<0x9C>"}));
    EXPECT_EQ(e.ids, (std::vector<std::int64_t>{1, 258, 259, 2 + 0xF0, 2 + 0x9F, 2 + 0x8D, 2 + 0x9C}));
    EXPECT_EQ(e.offsets, (Offsets{{0, 0}, {0, 1}, {0, 1}, {1, 2}, {1, 2}, {1, 2}, {1, 2}}));
    EXPECT_EQ(tok.readablePieces(e), (Strings{"<s>", " ", "a", "\U0001F35C", "\u00b7", "\u00b7", "\u00b7"}));
    // Without a byte's token the character is <unk> (fused with the next unknown one).
    json j = byteFallbackTokenizer({"\u2581", "a"}, json::array(), kLlama2Normalizer);
    j["model"]["vocab"].erase("<0x9C>");
    e = load(j).encode("a\U0001F35C\U0001F35C");
    EXPECT_EQ(e.tokens, (Strings{"<s>", "\u2581", "a", "<unk>"}));
    EXPECT_EQ(e.offsets[3], (std::pair<int, int>{1, 3}));
}

TEST(HfDecoderTokenizers, ByteLevelTrimOffsets)
{
    // "a  b": GPT-2's pattern gives "a", " " (the run's first space) and " b".
    TokenEncoding e = load(byteLevelTokenizer(false)).encode("a  b");
    EXPECT_EQ(e.tokens, (Strings{"a", "\u0120", "\u0120b"}));
    EXPECT_EQ(e.offsets, (Offsets{{0, 1}, {1, 2}, {2, 4}}));
    // Trimmed: the lone space keeps the empty span at its end, "Ġb" loses its space.
    e = load(byteLevelTokenizer(true)).encode("a  b");
    EXPECT_EQ(e.offsets, (Offsets{{0, 1}, {2, 2}, {3, 4}}));
}

TEST(HfDecoderTokenizers, ReadablePieces)
{
    HfTokenizer byteLevel = load(byteLevelTokenizer(false));
    TokenEncoding e = byteLevel.encode("a b\u00e9");
    EXPECT_EQ(e.tokens, (Strings{"a", "\u0120b", "\u00c3", "\u00a9"}));
    EXPECT_EQ(byteLevel.readablePieces(e), (Strings{"a", " b", "\u00e9", "\u00b7"}));
    // A piece whose bytes do not make whole characters is shown as spelled.
    TokenEncoding cut = e;
    cut.tokens.pop_back();
    cut.ids.pop_back();
    cut.offsets.pop_back();
    cut.typeIds.pop_back();
    cut.sequence.pop_back();
    EXPECT_EQ(byteLevel.readablePieces(cut), (Strings{"a", " b", "\u00c3"}));
    // Metaspace: "▁" reads as a space; WordPiece and plain pieces stay as they are.
    HfTokenizer meta = load(piecesTokenizer({"\u2581Hi", "\u2581you"}, metaspace("always", true)));
    EXPECT_EQ(meta.readablePieces(meta.encode("Hi you")), (Strings{" Hi", " you"}));
    EXPECT_TRUE(meta.readablePieces(TokenEncoding{}).empty());
}

TEST(HfDecoderTokenizers, UnsupportedPartsAreRefusedByName)
{
    const json base = piecesTokenizer({"a"}, split({{"Regex", "a"}}, "Isolated"));
    auto with = [&](const json &pre) {
        json j = base;
        j["pre_tokenizer"] = pre;
        return fails(j);
    };
    EXPECT_EQ(with(split({{"Regex", "(a"}}, "Isolated")).rfind("tokenizer.json: pre_tokenizer.pattern: \"(a\": the regular expression "
                                                              "is not supported by this build (ICU: ",
                                                              0),
              0u);
    EXPECT_EQ(with(split({{"Regex", "a\\Kb"}}, "Isolated")),
              "tokenizer.json: pre_tokenizer.pattern: \"a\\Kb\": \\K is not supported by this build");
    EXPECT_EQ(with(split({{"Glob", "a"}}, "Isolated")), "tokenizer.json: pre_tokenizer.pattern: pattern type \"Glob\" is not supported by this build");
    EXPECT_EQ(with(split({{"String", ""}}, "Isolated")),
              "tokenizer.json: pre_tokenizer.pattern: \"\": an empty pattern is not supported by this build");
    EXPECT_EQ(with(split({{"String", "a"}}, "Sideways")), "tokenizer.json: pre_tokenizer.behavior: \"Sideways\" is not supported by this build");
    EXPECT_EQ(with({{"type", "Split"}, {"pattern", {{"String", "a"}}}}), "tokenizer.json: pre_tokenizer.behavior: missing");
    EXPECT_EQ(with(metaspace("sometimes", true)),
              "tokenizer.json: pre_tokenizer.prepend_scheme: expected \"always\", \"first\" or \"never\"");
    EXPECT_EQ(with({{"type", "Metaspace"}, {"replacement", "__"}}), "tokenizer.json: pre_tokenizer.replacement: expected one character");
    EXPECT_EQ(with({{"type", "Metaspace"}, {"replacement", "_"}, {"add_prefix_space", false}}),
              "tokenizer.json: pre_tokenizer.add_prefix_space: false does not match prepend_scheme \"always\"");
    EXPECT_EQ(with({{"type", "Digits"}, {"individual_digits", true}}),
              "tokenizer.json: pre_tokenizer type \"Digits\" is not supported by this build");
    json norm = base;
    norm["normalizer"] = {{"type", "Sequence"}, {"normalizers", json::array({{{"type", "Prepend"}}, {{"type", "Strip"}}})}};
    EXPECT_EQ(fails(norm), "tokenizer.json: normalizer.normalizers[0].prepend: missing");
    norm["normalizer"]["normalizers"][0]["prepend"] = "\u2581";
    EXPECT_EQ(fails(norm), "tokenizer.json: normalizer.normalizers[1] type \"Strip\" is not supported by this build");
    json dropout = base;
    dropout["model"]["dropout"] = 0.1;
    EXPECT_EQ(fails(dropout), "tokenizer.json: model.dropout: BPE dropout (random merges) is not supported by this build");
}
