// Fuzzes the Hugging Face tokenizer reader (tokenizer.json, and vocab.txt with
// tokenizer_config.json) and encode() on arbitrary bytes. The first byte chooses:
//   0: the rest is a tokenizer.json; if it reads, it encodes fixed texts and the input;
//   1: a tokenizer.json, a NUL, then a text to encode (alone and as a pair);
//   2: a text for the built-in tokenizers (WordPiece with BERT's normaliser, byte-level
//      BPE with merges, NFKC + Whitespace with an lstrip/rstrip/single_word added token,
//      Llama-3's regex Split + ByteLevel with ignore_merges, Llama-2's Prepend/Replace with
//      byte fallback (some byte tokens missing), Split behaviours + Metaspace);
//   3: a vocab.txt, a NUL, a tokenizer_config.json, a NUL, a text.
// Whatever the bytes: no crash, and every encoding is consistent: one id, piece,
// offset, type id and sequence per piece; ids inside the vocabulary; offsets inside the
// text (code points, an invalid byte counting one); special pieces at [0,0]; one readable
// piece per piece, valid UTF-8.
#include <cstdlib>
#include <string>
#include <vector>

#include "core/base/utf8.h"
#include "core/encoders/pretrained/hftokenizer.h"

namespace {

using treelens::HfTokenizer;
using treelens::TokenEncoding;

void check(const HfTokenizer &tok, const TokenEncoding &e, const std::vector<int> &lengths)
{
    const std::size_t n = e.ids.size();
    if (e.tokens.size() != n || e.offsets.size() != n || e.typeIds.size() != n || e.sequence.size() != n)
        std::abort();
    for (std::size_t i = 0; i < n; ++i) {
        if (e.ids[i] < 0 || e.ids[i] >= tok.vocabSize())
            std::abort();
        const int seq = e.sequence[i];
        if (seq < -1 || seq >= static_cast<int>(lengths.size()))
            std::abort();
        const auto [a, b] = e.offsets[i];
        if (seq == -1 && (a != 0 || b != 0))
            std::abort();
        if (seq >= 0 && (a < 0 || b < a || b > lengths[static_cast<std::size_t>(seq)]))
            std::abort();
        if (treelens::findInvalidUtf8(e.tokens[i]) >= 0)
            std::abort();
    }
    const std::vector<std::string> readable = tok.readablePieces(e);
    if (readable.size() != n)
        std::abort();
    for (const std::string &r : readable)
        if (treelens::findInvalidUtf8(r) >= 0)
            std::abort();
}

int codePoints(const std::string &text) { return static_cast<int>(treelens::codePointByteOffsets(text).size()) - 1; }

void run(const HfTokenizer &tok, const std::string &text)
{
    check(tok, tok.encode(text), {codePoints(text)});
    check(tok, tok.encodePair(text, "b"), {codePoints(text), 1});
    (void)tok.describe();
}

const char *kWordPiece = R"({"added_tokens": [{"id": 1, "content": "[UNK]", "special": true, "normalized": false},
  {"id": 2, "content": "[CLS]", "special": true}, {"id": 3, "content": "[SEP]", "special": true},
  {"id": 4, "content": "[MASK]", "special": true, "lstrip": true}],
 "normalizer": {"type": "BertNormalizer", "clean_text": true, "handle_chinese_chars": true, "strip_accents": null, "lowercase": true},
 "pre_tokenizer": {"type": "BertPreTokenizer"},
 "post_processor": {"type": "BertProcessing", "sep": ["[SEP]", 3], "cls": ["[CLS]", 2]},
 "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##", "max_input_chars_per_word": 20,
   "vocab": {"[PAD]": 0, "[UNK]": 1, "[CLS]": 2, "[SEP]": 3, "[MASK]": 4, "a": 5, "##a": 6, "b": 7, "##b": 8, "ab": 9,
             "e": 10, "##e": 11, "\u00e9": 12, ".": 13, "\u6211": 14, "i": 15, "##\u0307": 16}}})";

const char *kByteLevel = R"({"added_tokens": [{"id": 0, "content": "<s>", "special": true, "normalized": false},
  {"id": 2, "content": "</s>", "special": true, "normalized": false},
  {"id": 3, "content": "<mask>", "special": true, "normalized": false, "lstrip": true}],
 "normalizer": null,
 "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": true, "trim_offsets": true, "use_regex": true},
 "post_processor": {"type": "RobertaProcessing", "sep": ["</s>", 2], "cls": ["<s>", 0], "trim_offsets": true, "add_prefix_space": true},
 "model": {"type": "BPE", "unk_token": "<unk>", "fuse_unk": true,
   "vocab": {"<s>": 0, "<unk>": 1, "</s>": 2, "<mask>": 3, "a": 4, "b": 5, "\u0120": 6, "\u0120a": 7, "ab": 8, "\u0120ab": 9,
             "\u00c3": 10, "\u00a9": 11, "\u00c3\u00a9": 12},
   "merges": ["\u0120 a", "a b", "\u0120a b", "\u00c3 \u00a9"]}})";

const char *kWhitespace = R"({"added_tokens": [{"id": 3, "content": "<x>", "special": false, "normalized": true,
   "lstrip": true, "rstrip": true, "single_word": true}],
 "normalizer": {"type": "Sequence", "normalizers": [{"type": "NFKC"}, {"type": "NFD"}, {"type": "StripAccents"}, {"type": "NFC"}, {"type": "Lowercase"}]},
 "pre_tokenizer": {"type": "Sequence", "pretokenizers": [{"type": "Whitespace"}, {"type": "WhitespaceSplit"}]},
 "post_processor": {"type": "Sequence", "processors": [{"type": "ByteLevel", "trim_offsets": true},
   {"type": "TemplateProcessing", "single": "[CLS] $A [SEP]", "pair": "[CLS] $A [SEP] $B:1 [SEP]:1",
    "special_tokens": {"[CLS]": {"id": "[CLS]", "ids": [0], "tokens": ["[CLS]"]}, "[SEP]": {"id": "[SEP]", "ids": [1], "tokens": ["[SEP]"]}}}]},
 "model": {"type": "BPE", "unk_token": "[UNK]", "continuing_subword_prefix": "##", "end_of_word_suffix": "</w>",
   "vocab": {"[CLS]": 0, "[SEP]": 1, "[UNK]": 2, "<x>": 3, "a": 4, "##a": 5, "a</w>": 6, "##a</w>": 7, "aa</w>": 8},
   "merges": [["a", "##a</w>"]]}})";

const char *kSplitByteLevel = R"json({"added_tokens": [{"id": 9, "content": "<|bos|>", "special": true, "normalized": false}],
 "normalizer": {"type": "NFC"},
 "pre_tokenizer": {"type": "Sequence", "pretokenizers": [
   {"type": "Split", "pattern": {"Regex": "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"},
    "behavior": "Isolated", "invert": false},
   {"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": true, "use_regex": false}]},
 "post_processor": {"type": "Sequence", "processors": [{"type": "ByteLevel", "trim_offsets": true, "add_prefix_space": false},
   {"type": "TemplateProcessing", "single": "<|bos|> $A", "pair": "<|bos|> $A <|bos|>:1 $B:1",
    "special_tokens": {"<|bos|>": {"id": "<|bos|>", "ids": [9], "tokens": ["<|bos|>"]}}}]},
 "model": {"type": "BPE", "unk_token": null, "ignore_merges": true, "continuing_subword_prefix": null,
   "vocab": {"a": 0, "b": 1, "\u0120": 2, "\u0120a": 3, "ab": 4, "\u00c3": 5, "\u00a9": 6, "1": 7, "\u0120ab": 8},
   "merges": [["\u0120", "a"], ["a", "b"], ["\u0120a", "b"]]}})json";

const char *kByteFallback = R"json({"added_tokens": [{"id": 0, "content": "<unk>", "special": true, "normalized": false},
  {"id": 1, "content": "<s>", "special": true, "normalized": false}],
 "normalizer": {"type": "Sequence", "normalizers": [{"type": "Prepend", "prepend": "\u2581"},
   {"type": "Replace", "pattern": {"String": " "}, "content": "\u2581"},
   {"type": "Replace", "pattern": {"Regex": "\u2581{2,}|(?m:x.)|y*"}, "content": "\u2581"}]},
 "pre_tokenizer": null,
 "post_processor": {"type": "TemplateProcessing", "single": "<s> $A", "pair": "<s> $A $B:1",
   "special_tokens": {"<s>": {"id": "<s>", "ids": [1], "tokens": ["<s>"]}}},
 "model": {"type": "BPE", "unk_token": "<unk>", "fuse_unk": true, "byte_fallback": true,
   "vocab": {"<unk>": 0, "<s>": 1, "<0x00>": 2, "<0x41>": 3, "<0xC3>": 4, "<0xA9>": 5, "<0xE6>": 6, "<0x9D>": 7, "<0xF0>": 8,
             "<0x9F>": 9, "<0x8D>": 10, "\u2581": 11, "a": 12, "\u2581a": 13, "b": 14},
   "merges": ["\u2581 a"]}})json";

const char *kMetaspace = R"json({"added_tokens": [{"id": 4, "content": "<x>", "special": false, "normalized": true}],
 "normalizer": null,
 "pre_tokenizer": {"type": "Sequence", "pretokenizers": [
   {"type": "Split", "pattern": {"String": "-"}, "behavior": "MergedWithNext", "invert": false},
   {"type": "Split", "pattern": {"Regex": "\\d+|\\W"}, "behavior": "Contiguous", "invert": true},
   {"type": "Split", "pattern": {"Regex": "^.|$"}, "behavior": "MergedWithPrevious", "invert": false},
   {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "first", "split": true}]},
 "post_processor": null,
 "model": {"type": "BPE", "unk_token": "<unk>", "fuse_unk": false,
   "vocab": {"<unk>": 0, "\u2581": 1, "a": 2, "\u2581a": 3, "<x>": 4, "-": 5},
   "merges": ["\u2581 a"]}})json";

const std::vector<HfTokenizer> &builtIn()
{
    static const std::vector<HfTokenizer> all = [] {
        std::vector<HfTokenizer> v;
        for (const char *json : {kWordPiece, kByteLevel, kWhitespace, kSplitByteLevel, kByteFallback, kMetaspace}) {
            auto t = HfTokenizer::fromJson(json, "builtin.json");
            if (!t)
                std::abort();   // a built-in tokenizer must read
            v.push_back(std::move(t).value());
        }
        return v;
    }();
    return all;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    const int mode = data[0] % 4;
    const std::string rest(reinterpret_cast<const char *>(data) + 1, size - 1);
    const std::size_t nul = rest.find('\0');
    if (mode == 0) {
        auto t = HfTokenizer::fromJson(rest, "fuzz.json");
        if (!t)
            return 0;
        for (const char *text : {"Hello, world! Caf\u00e9 \u6211\u7231\u4f60 don't 3.14", "", " \t\n "})
            run(*t, text);
        run(*t, rest.substr(0, 256));
    } else if (mode == 1) {
        auto t = HfTokenizer::fromJson(rest.substr(0, nul), "fuzz.json");
        if (t && nul != std::string::npos)
            run(*t, rest.substr(nul + 1));
    } else if (mode == 2) {
        for (const HfTokenizer &t : builtIn())
            run(t, rest);
    } else {
        const std::string vocab = rest.substr(0, nul);
        std::string config, text;
        if (nul != std::string::npos) {
            const std::size_t nul2 = rest.find('\0', nul + 1);
            config = rest.substr(nul + 1, nul2 == std::string::npos ? std::string::npos : nul2 - nul - 1);
            if (nul2 != std::string::npos)
                text = rest.substr(nul2 + 1);
        }
        auto t = HfTokenizer::fromBertVocab(vocab, config, "fuzz/vocab.txt");
        if (t)
            run(*t, text);
    }
    return 0;
}
