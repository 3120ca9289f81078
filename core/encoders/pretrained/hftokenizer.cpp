// Running a Hugging Face tokenizer (hftokenizer.h): the `tokenizers` library's
// pipeline on one text (added tokens split off on the original text, then each
// remaining piece normalised and split on the normalised added tokens,
// pre-tokenised, tokenised by the model), the post-processors, and the API.
#include "core/encoders/pretrained/hftokenizer.h"

#include <algorithm>
#include <filesystem>

#include "core/base/inputlimits.h"
#include "core/base/utf8.h"
#include "core/encoders/pretrained/hftokenizerimpl.h"

namespace treelens {

namespace hf {

void AddedMatcher::add(const std::string &pattern, int token)
{
    if (nodes.empty())
        nodes.emplace_back();
    int node = 0;
    for (char ch : pattern) {
        const auto b = static_cast<unsigned char>(ch);
        auto it = nodes[static_cast<std::size_t>(node)].next.find(b);
        if (it == nodes[static_cast<std::size_t>(node)].next.end()) {
            nodes.emplace_back();
            const int created = static_cast<int>(nodes.size()) - 1;
            nodes[static_cast<std::size_t>(node)].next.emplace(b, created);
            node = created;
        } else {
            node = it->second;
        }
    }
    nodes[static_cast<std::size_t>(node)].token = token;
}

namespace {

bool isContinuation(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

/// The character before byte `pos` of `s` (valid UTF-8), and where it starts.
char32_t charBefore(const std::string &s, std::size_t pos, std::size_t &start)
{
    start = pos;
    do {
        --start;
    } while (start > 0 && isContinuation(s[start]));
    int len = 1;
    return decodeUtf8(s, start, len);
}

/// Whitespace at the end of s[0, pos): where it starts.
std::size_t trailingSpaceStart(const std::string &s, std::size_t pos)
{
    while (pos > 0) {
        std::size_t start = 0;
        if (!isWhitespace(charBefore(s, pos, start)))
            break;
        pos = start;
    }
    return pos;
}

/// Whitespace at the start of s[pos, end): where it ends.
std::size_t leadingSpaceEnd(const std::string &s, std::size_t pos)
{
    while (pos < s.size()) {
        int len = 1;
        if (!isWhitespace(decodeUtf8(s, pos, len)))
            break;
        pos += static_cast<std::size_t>(std::max(1, len));
    }
    return pos;
}

struct Match {
    int token;   ///< index into Impl::added, -1 for text between matches
    std::size_t start, end;
};

/// The library's AddedVocabulary::find_matches: leftmost-longest matches in bytes,
/// filtered by single_word and widened by lstrip / rstrip; covers the whole string.
std::vector<Match> findAdded(const std::string &s, const AddedMatcher &m, const std::vector<AddedToken> &added)
{
    std::vector<Match> out;
    std::size_t startOffset = 0, pos = 0;
    while (pos < s.size()) {
        int node = 0, best = -1;
        std::size_t bestEnd = pos;
        for (std::size_t i = pos; i < s.size(); ++i) {
            const auto &next = m.nodes[static_cast<std::size_t>(node)].next;
            auto it = next.find(static_cast<unsigned char>(s[i]));
            if (it == next.end())
                break;
            node = it->second;
            if (m.nodes[static_cast<std::size_t>(node)].token >= 0) {
                best = m.nodes[static_cast<std::size_t>(node)].token;
                bestEnd = i + 1;
            }
        }
        if (best < 0) {
            ++pos;
            continue;
        }
        std::size_t start = pos, stop = bestEnd;
        pos = bestEnd;   // matches do not overlap, even a refused one
        const AddedToken &tok = added[static_cast<std::size_t>(best)];
        if (tok.singleWord) {
            std::size_t before = 0;
            int len = 1;
            const bool startSpace = start == 0 || !isWordChar(charBefore(s, start, before));
            const bool stopSpace = stop == s.size() || !isWordChar(decodeUtf8(s, stop, len));
            if (!startSpace || !stopSpace)
                continue;
        }
        if (tok.lstrip)
            start = std::max(trailingSpaceStart(s, start), startOffset);
        if (tok.rstrip)
            stop = leadingSpaceEnd(s, stop);
        // (Where the library would cut overlapping or reversed pieces, after an rstrip
        // token followed by a token of whitespace, the match is left out instead.)
        start = std::max(start, startOffset);
        if (stop <= start)
            continue;
        if (startOffset < start)
            out.push_back({-1, startOffset, start});
        out.push_back({best, start, stop});
        startOffset = stop;
    }
    if (startOffset < s.size())
        out.push_back({-1, startOffset, s.size()});
    return out;
}

/// Byte -> index of the character holding it, for a piece's UTF-8 text (one more
/// entry for the end).
std::vector<std::size_t> charOfByte(const std::string &bytes)
{
    std::vector<std::size_t> at(bytes.size() + 1, 0);
    std::size_t ch = 0;
    for (std::size_t i = 0; i < bytes.size(); ++i) {
        if (i > 0 && !isContinuation(bytes[i]))
            ++ch;
        at[i] = ch;
    }
    at[bytes.size()] = bytes.empty() ? 0 : ch + 1;
    return at;
}

void splitOnAdded(std::vector<Split> &splits, const AddedMatcher &matcher, const std::vector<AddedToken> &added,
                  const NormalizerSpec *normalizer)
{
    forEachUntokenized(splits, [&](Split &split, std::vector<Split> &out) {
        if (normalizer)
            normalize(*normalizer, split.text);
        if (matcher.empty()) {
            if (!split.text.empty())
                out.push_back(std::move(split));
            return;
        }
        const std::string bytes = split.text.utf8();
        const std::vector<std::size_t> charAt = charOfByte(bytes);
        for (const Match &m : findAdded(bytes, matcher, added)) {
            Split piece{split.text.slice(charAt[m.start], charAt[m.end]), false, {}};
            if (piece.text.empty())
                continue;
            if (m.token >= 0) {
                const std::string value = bytes.substr(m.start, m.end - m.start);
                piece.hasTokens = true;
                piece.tokens.push_back(Token{added[static_cast<std::size_t>(m.token)].id, value, 0, value.size()});
            }
            out.push_back(std::move(piece));
        }
    });
}

std::string withThousands(std::int64_t n)
{
    std::string digits = std::to_string(n), out;
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0 && digits[i - 1] != '-')
            out += ',';
        out += digits[i];
    }
    return out;
}

// ---- Post-processing ----

/// The library's byte-level offset trimming: leading and trailing spaces (and 'Ġ')
/// of a piece are not part of its offsets, except the one space the pre-tokenizer
/// added in front of the first piece.
void trimOffsets(TokenEncoding &enc, bool addPrefixSpace)
{
    const char32_t spaceChar = byteLevelChar(' ');
    auto isSpace = [&](char32_t c) { return c == spaceChar || isWhitespace(c); };
    for (std::size_t i = 0; i < enc.tokens.size(); ++i) {
        const std::u32string t = toU32(enc.tokens[i]);
        int leading = 0, trailing = 0;
        while (leading < static_cast<int>(t.size()) && isSpace(t[static_cast<std::size_t>(leading)]))
            ++leading;
        while (trailing < static_cast<int>(t.size()) && isSpace(t[t.size() - 1 - static_cast<std::size_t>(trailing)]))
            ++trailing;
        auto &off = enc.offsets[i];
        if (leading > 0) {
            const bool isFirst = i == 0 || off.first == 0;
            if (isFirst && addPrefixSpace && leading == 1)
                leading = 0;
            off.first = std::min(off.first + leading, off.second);
        }
        if (trailing > 0 && off.second >= trailing)
            off.second = std::max(off.second - trailing, off.first);
    }
}

TokenEncoding specialTokens(const std::vector<std::int64_t> &ids, const std::vector<std::string> &tokens, int typeId)
{
    TokenEncoding e;
    e.ids = ids;
    e.tokens = tokens;
    e.offsets.assign(ids.size(), {0, 0});
    e.typeIds.assign(ids.size(), typeId);
    e.sequence.assign(ids.size(), -1);
    return e;
}

void append(TokenEncoding &to, const TokenEncoding &from)
{
    to.ids.insert(to.ids.end(), from.ids.begin(), from.ids.end());
    to.tokens.insert(to.tokens.end(), from.tokens.begin(), from.tokens.end());
    to.offsets.insert(to.offsets.end(), from.offsets.begin(), from.offsets.end());
    to.typeIds.insert(to.typeIds.end(), from.typeIds.begin(), from.typeIds.end());
    to.sequence.insert(to.sequence.end(), from.sequence.begin(), from.sequence.end());
}

TokenEncoding surround(const TokenEncoding *before, const TokenEncoding &middle, const TokenEncoding *after)
{
    TokenEncoding e;
    if (before)
        append(e, *before);
    append(e, middle);
    if (after)
        append(e, *after);
    return e;
}

std::vector<TokenEncoding> process(const PostProcessorSpec &spec, std::vector<TokenEncoding> encs)
{
    using K = PostProcessorSpec::Kind;
    switch (spec.kind) {
    case K::ByteLevel:
        if (spec.trimOffsets)
            for (auto &e : encs)
                trimOffsets(e, spec.addPrefixSpace);
        return encs;
    case K::Roberta: {
        if (spec.trimOffsets)
            for (auto &e : encs)
                trimOffsets(e, spec.addPrefixSpace);
        const TokenEncoding cls = specialTokens({spec.cls.second}, {spec.cls.first}, 0);
        const TokenEncoding sep = specialTokens({spec.sep.second}, {spec.sep.first}, 0);
        for (std::size_t i = 0; i < encs.size(); ++i) {
            std::fill(encs[i].typeIds.begin(), encs[i].typeIds.end(), 0);   // every RoBERTa token type is 0
            encs[i] = surround(i == 0 ? &cls : &sep, encs[i], &sep);
        }
        return encs;
    }
    case K::Bert: {
        const TokenEncoding cls = specialTokens({spec.cls.second}, {spec.cls.first}, 0);
        for (std::size_t i = 0; i < encs.size(); ++i) {
            const TokenEncoding sep = specialTokens({spec.sep.second}, {spec.sep.first}, i == 0 ? 0 : 1);
            encs[i] = surround(i == 0 ? &cls : nullptr, encs[i], &sep);
        }
        return encs;
    }
    case K::Template: {
        const auto &pieces = encs.size() >= 2 ? spec.pair : spec.single;
        std::vector<TokenEncoding> out;
        for (const TemplatePiece &p : pieces) {
            if (p.special) {
                auto it = spec.specialTokens.find(p.id);
                if (it != spec.specialTokens.end())
                    out.push_back(specialTokens(it->second.ids, it->second.tokens, p.typeId));
                continue;
            }
            const std::size_t i = p.id == "B" ? 1 : 0;
            if (i >= encs.size())
                continue;
            TokenEncoding e = encs[i];
            std::fill(e.typeIds.begin(), e.typeIds.end(), p.typeId);
            out.push_back(std::move(e));
        }
        return out;
    }
    case K::Sequence:
        for (const auto &child : spec.children)
            encs = process(child, std::move(encs));
        return encs;
    }
    return encs;
}

} // namespace

} // namespace hf

// ---------------------------------------------------------------- Impl

void HfTokenizer::Impl::finish()
{
    std::int64_t maxId = -1;
    for (const auto &entry : vocab())
        maxId = std::max(maxId, entry.second);
    wordPiece.longest = 0;
    for (const auto &entry : wordPiece.vocab)
        wordPiece.longest = std::max(wordPiece.longest, entry.first.size());
    rawMatcher = {};
    normalizedMatcher = {};
    addedIds.clear();
    for (std::size_t i = 0; i < added.size(); ++i) {
        hf::AddedToken &t = added[i];
        maxId = std::max(maxId, t.id);
        addedIds[t.content] = t.id;
        t.pattern = t.content;
        if (t.normalized && normalizer) {
            hf::NormString s = hf::NormString::fromOriginal(hf::toU32(t.content));
            hf::normalize(*normalizer, s);
            t.pattern = s.utf8();
        }
        if (!t.pattern.empty())
            (t.normalized ? normalizedMatcher : rawMatcher).add(t.pattern, static_cast<int>(i));
    }
    vocabSize = maxId + 1;
}

TokenEncoding HfTokenizer::Impl::encodeText(const std::string &text, int sequence) const
{
    std::vector<hf::Split> splits;
    splits.push_back(hf::Split{hf::NormString::fromOriginal(hf::toU32(text)), false, {}});
    // Added tokens are split off the original text first, then each remaining piece is
    // normalised and split on the normalised ones.
    hf::splitOnAdded(splits, rawMatcher, added, nullptr);
    hf::splitOnAdded(splits, normalizedMatcher, added, normalizer ? &*normalizer : nullptr);
    if (preTokenizer)
        hf::preTokenize(*preTokenizer, splits);
    TokenEncoding enc;
    for (hf::Split &split : splits) {
        const std::string bytes = split.text.utf8();
        if (!split.hasTokens) {
            split.tokens = modelKind == ModelKind::WordPiece ? wordPiece.tokenize(bytes) : bpe.tokenize(bytes);
            split.hasTokens = true;
        }
        const std::vector<std::size_t> charAt = hf::charOfByte(bytes);
        const auto &align = split.text.align;
        for (hf::Token &t : split.tokens) {
            // Offsets: from the first byte's character to the last byte's, in the original.
            std::pair<int, int> off{split.text.shift, split.text.shift};
            if (t.start < t.end && t.end <= bytes.size() && !align.empty()) {
                const std::size_t a = std::min(charAt[t.start], align.size() - 1);
                const std::size_t b = std::min(charAt[t.end - 1], align.size() - 1);
                off = {align[a].first, align[b].second};
            }
            enc.ids.push_back(t.id);
            enc.tokens.push_back(std::move(t.value));
            enc.offsets.push_back(off);
            enc.typeIds.push_back(sequence);
            enc.sequence.push_back(sequence);
        }
    }
    return enc;
}

TokenEncoding HfTokenizer::Impl::postProcess(std::vector<TokenEncoding> encodings) const
{
    if (postProcessor)
        encodings = hf::process(*postProcessor, std::move(encodings));
    TokenEncoding out;
    for (const auto &e : encodings)
        hf::append(out, e);
    return out;
}

// ---------------------------------------------------------------- API

HfTokenizer::HfTokenizer(std::shared_ptr<const Impl> impl) : m_impl(std::move(impl)) {}

Result<HfTokenizer> HfTokenizer::fromJson(const std::string &jsonText, const std::string &where)
{
    auto impl = hf::readTokenizerJson(jsonText, where);
    if (!impl)
        return impl.error();
    return HfTokenizer(std::move(*impl));
}

Result<HfTokenizer> HfTokenizer::fromBertVocab(const std::string &vocabText, const std::string &configJson,
                                               const std::string &where)
{
    auto impl = hf::readBertVocab(vocabText, configJson, where);
    if (!impl)
        return impl.error();
    return HfTokenizer(std::move(*impl));
}

Result<HfTokenizer> HfTokenizer::fromFolder(const std::string &dir)
{
    namespace fs = std::filesystem;
    std::error_code ec;
    const std::string json = (fs::path(dir) / "tokenizer.json").string();
    const std::uint64_t limit = inputLimits().maxSideFileBytes;
    if (fs::exists(json, ec)) {
        auto text = readFileLimited(json, limit);
        if (!text)
            return text.error();
        return fromJson(*text, json);
    }
    const std::string vocab = (fs::path(dir) / "vocab.txt").string();
    if (!fs::exists(vocab, ec))
        return makeError(dir, "no tokenizer.json or vocab.txt in this folder");
    auto vocabText = readFileLimited(vocab, limit);
    if (!vocabText)
        return vocabText.error();
    std::string config;
    const std::string configPath = (fs::path(dir) / "tokenizer_config.json").string();
    if (fs::exists(configPath, ec)) {
        auto text = readFileLimited(configPath, limit);
        if (!text)
            return text.error();
        config = std::move(*text);
    }
    return fromBertVocab(*vocabText, config, vocab);
}

TokenEncoding HfTokenizer::encode(const std::string &text) const
{
    std::vector<TokenEncoding> encs;
    encs.push_back(m_impl->encodeText(text, 0));
    return m_impl->postProcess(std::move(encs));
}

TokenEncoding HfTokenizer::encodePair(const std::string &a, const std::string &b) const
{
    std::vector<TokenEncoding> encs;
    encs.push_back(m_impl->encodeText(a, 0));
    encs.push_back(m_impl->encodeText(b, 1));
    return m_impl->postProcess(std::move(encs));
}

std::int64_t HfTokenizer::vocabSize() const { return m_impl->vocabSize; }

std::optional<std::int64_t> HfTokenizer::tokenId(const std::string &token) const
{
    if (auto it = m_impl->addedIds.find(token); it != m_impl->addedIds.end())
        return it->second;
    if (auto it = m_impl->vocab().find(token); it != m_impl->vocab().end())
        return it->second;
    return std::nullopt;
}

std::string HfTokenizer::tokenText(std::int64_t id) const
{
    for (const hf::AddedToken &t : m_impl->added)
        if (t.id == id)
            return t.content;
    for (const auto &[token, i] : m_impl->vocab())
        if (i == id)
            return token;
    return {};
}

std::string HfTokenizer::describe() const
{
    std::string d = m_impl->modelKind == Impl::ModelKind::WordPiece ? "WordPiece" : "BPE";
    if (m_impl->source == "vocab.txt")
        d += " from vocab.txt";
    std::string parts;
    if (m_impl->normalizer)
        parts = hf::describeNormalizer(*m_impl->normalizer);
    if (m_impl->preTokenizer)
        parts += (parts.empty() ? "" : ", ") + hf::describePreTokenizer(*m_impl->preTokenizer);
    if (!parts.empty())
        d += " (" + parts + ")";
    return d + ", " + hf::withThousands(m_impl->vocabSize) + " tokens";
}

std::vector<std::size_t> codePointByteOffsets(const std::string &text)
{
    std::vector<std::size_t> out;
    out.reserve(text.size() + 1);
    for (std::size_t pos = 0; pos < text.size();) {
        out.push_back(pos);
        int len = 1;
        decodeUtf8(text, pos, len);
        pos += static_cast<std::size_t>(std::max(1, len));
    }
    out.push_back(text.size());
    return out;
}

} // namespace treelens
