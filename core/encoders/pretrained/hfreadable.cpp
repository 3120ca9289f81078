// The pieces of an encoding as a person reads them (HfTokenizer::readablePieces): what
// the tokenizer's decoder would make of each piece on its own, the byte-level mapping
// and byte-fallback tokens undone, a space stand-in ("▁") shown as the space.
#include <array>
#include <string_view>

#include "core/base/utf8.h"
#include "core/encoders/pretrained/hftokenizer.h"
#include "core/encoders/pretrained/hftokenizerimpl.h"

namespace treelens {

namespace {

bool hasByteLevel(const hf::PreTokenizerSpec &spec)
{
    if (spec.kind == hf::PreTokenizerSpec::Kind::ByteLevel)
        return true;
    for (const auto &child : spec.children)
        if (hasByteLevel(child))
            return true;
    return false;
}

/// The characters that stand for a space: Metaspace's replacement, and what a Replace
/// normalizer writes for " " (one character).
void spaceStandIns(const hf::PreTokenizerSpec &spec, std::u32string &out)
{
    if (spec.kind == hf::PreTokenizerSpec::Kind::Metaspace)
        out.push_back(spec.replacement);
    for (const auto &child : spec.children)
        spaceStandIns(child, out);
}

void spaceStandIns(const hf::NormalizerSpec &spec, std::u32string &out)
{
    if (spec.kind == hf::NormalizerSpec::Kind::Replace && !spec.pattern.isRegex() && spec.pattern.source() == " " &&
        spec.text.size() == 1)
        out.push_back(spec.text.front());
    for (const auto &child : spec.children)
        spaceStandIns(child, out);
}

/// GPT-2's character -> byte table, the inverse of byteLevelChar (-1: not a byte's character).
int byteOfChar(char32_t c)
{
    static const std::array<int, 512> table = [] {
        std::array<int, 512> t{};
        t.fill(-1);
        for (int b = 0; b < 256; ++b)
            t[static_cast<std::size_t>(hf::byteLevelChar(static_cast<unsigned char>(b)))] = b;
        return t;
    }();
    return c < table.size() ? table[c] : -1;
}

/// The bytes a byte-level piece stands for; the piece itself when one of its characters
/// is not in the table (as the library's ByteLevel decoder does).
std::string byteLevelBytes(const std::string &token)
{
    std::string bytes;
    for (char32_t c : hf::toU32(token)) {
        const int b = byteOfChar(c);
        if (b < 0)
            return token;
        bytes.push_back(static_cast<char>(b));
    }
    return bytes;
}

/// The byte of "<0xXX>" when it is the model's byte-fallback token `id`, else -1.
int fallbackByte(const hf::BpeModel &bpe, const std::string &token, std::int64_t id)
{
    if (bpe.byteIds.empty() || token.size() != 6 || token.compare(0, 3, "<0x") != 0 || token[5] != '>')
        return -1;
    auto hex = [](char c) { return c >= '0' && c <= '9' ? c - '0' : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1; };
    const int hi = hex(token[3]), lo = hex(token[4]);
    if (hi < 0 || lo < 0)
        return -1;
    const int b = hi * 16 + lo;
    return bpe.byteIds[static_cast<std::size_t>(b)] == id ? b : -1;
}

std::string withSpaces(const std::string &token, const std::u32string &standIns)
{
    if (standIns.empty())
        return token;
    std::u32string s = hf::toU32(token);
    for (char32_t &c : s)
        if (standIns.find(c) != std::u32string::npos)
            c = U' ';
    return hf::toUtf8(s);
}

/// Decodes the bytes of a run of pieces: each character goes to the piece that holds its
/// first byte; a piece whose bytes only continue an earlier piece's character is marked
/// continued; one with a byte that starts no valid character keeps its spelling.
void decodeRun(const std::string &bytes, const std::vector<std::size_t> &owner, const TokenEncoding &enc,
               std::vector<std::string> &out)
{
    std::vector<char> broken(enc.tokens.size(), 0), continued(enc.tokens.size(), 0), text(enc.tokens.size(), 0);
    for (std::size_t p = 0; p < bytes.size();) {
        int len = 1;
        const char32_t c = decodeUtf8(bytes, p, len);
        const std::size_t o = owner[p];
        if (c == 0xFFFD && len <= 1) {
            broken[o] = 1;
            ++p;
            continue;
        }
        out[o].append(bytes, p, static_cast<std::size_t>(len));
        text[o] = 1;
        for (std::size_t k = p + 1; k < p + static_cast<std::size_t>(len); ++k)
            if (owner[k] != o)
                continued[owner[k]] = 1;
        p += static_cast<std::size_t>(len);
    }
    for (std::size_t p = 0; p < bytes.size(); ++p) {
        const std::size_t o = owner[p];
        if (broken[o])
            out[o] = enc.tokens[o];
        else if (!text[o] && continued[o])
            out[o] = HfTokenizer::kContinuedPiece;
    }
}

} // namespace

std::vector<std::string> HfTokenizer::readablePieces(const TokenEncoding &enc) const
{
    const Impl &impl = *m_impl;
    const bool byteLevel = impl.preTokenizer && hasByteLevel(*impl.preTokenizer);
    std::u32string standIns;
    if (impl.preTokenizer)
        spaceStandIns(*impl.preTokenizer, standIns);
    if (impl.normalizer)
        spaceStandIns(*impl.normalizer, standIns);
    const bool bpe = impl.modelKind == Impl::ModelKind::Bpe;

    const std::size_t n = enc.tokens.size();
    std::vector<std::string> out(n);
    std::string bytes;                 // the bytes of the current run of ordinary pieces
    std::vector<std::size_t> owner;    // per byte: its piece
    auto flush = [&] {
        decodeRun(bytes, owner, enc, out);
        bytes.clear();
        owner.clear();
    };
    for (std::size_t i = 0; i < n; ++i) {
        const std::string &token = enc.tokens[i];
        const std::int64_t id = i < enc.ids.size() ? enc.ids[i] : -1;
        const bool special = i < enc.sequence.size() && enc.sequence[i] < 0;
        auto added = impl.addedIds.find(token);
        if (special || (added != impl.addedIds.end() && added->second == id)) {
            flush();
            out[i] = token;   // special and added tokens are shown as they are spelled
            continue;
        }
        std::string b;
        const int fallback = bpe ? fallbackByte(impl.bpe, token, id) : -1;
        if (fallback >= 0)
            b.assign(1, static_cast<char>(fallback));
        else if (byteLevel)
            b = byteLevelBytes(token);
        else
            b = withSpaces(token, standIns);
        if (b.empty())
            out[i] = token;
        bytes += b;
        owner.insert(owner.end(), b.size(), i);
    }
    flush();
    return out;
}

} // namespace treelens
