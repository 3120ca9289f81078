// The two models of a Hugging Face tokenizer this build runs (see hftokenizerimpl.h):
// WordPiece (greedy longest match with a continuation prefix, the unknown token for
// a word without a match or over max_input_chars_per_word) and BPE (merges by rank,
// lowest first and leftmost among equals, as the library's priority queue does; a
// character outside the vocabulary as its UTF-8 bytes with byte_fallback).
// Token offsets are bytes of the word's UTF-8 text, as the library's are.
#include "core/encoders/pretrained/hftokenizerimpl.h"

#include <algorithm>
#include <functional>
#include <queue>

namespace treelens::hf {

namespace {

bool isContinuation(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

std::size_t codePointCount(const std::string &s)
{
    std::size_t n = 0;
    for (char c : s)
        n += isContinuation(c) ? 0 : 1;
    return n;
}

/// The start of the character that ends at byte `end` (exclusive).
std::size_t previousBoundary(const std::string &s, std::size_t end)
{
    std::size_t i = end;
    while (i > 0) {
        --i;
        if (!isContinuation(s[i]))
            return i;
    }
    return 0;
}

} // namespace

std::vector<Token> WordPieceModel::tokenize(const std::string &word) const
{
    const Token unk{unkId, unkToken, 0, word.size()};
    if (codePointCount(word) > maxInputCharsPerWord)
        return {unk};
    // No vocabulary entry is longer than `longest` bytes: longer candidates cannot
    // match, so the search starts there (the same longest match, without quadratic
    // work on a long word).
    std::vector<Token> pieces;
    std::size_t start = 0;
    std::string candidate;
    while (start < word.size()) {
        const std::size_t room = start > 0 ? (longest > prefix.size() ? longest - prefix.size() : 0) : longest;
        std::size_t end = word.size();
        if (end - start > room) {
            end = start + room;
            while (end > start && isContinuation(word[end]))
                --end;
        }
        bool found = false;
        while (start < end) {
            candidate.assign(start > 0 ? prefix : std::string());
            candidate.append(word, start, end - start);
            auto it = vocab.find(candidate);
            if (it != vocab.end()) {
                pieces.push_back(Token{it->second, candidate, start, end});
                found = true;
                break;
            }
            end = previousBoundary(word, end);
        }
        if (!found)
            return {unk};
        start = end;
    }
    return pieces;
}

bool BpeModel::byteFallbackFits(const std::string &symbol) const
{
    if (byteIds.empty())
        return false;
    for (char b : symbol)
        if (byteIds[static_cast<unsigned char>(b)] < 0)
            return false;
    return true;
}

std::vector<Token> BpeModel::tokenize(const std::string &word) const
{
    if (word.empty())
        return {};
    if (ignoreMerges) {
        auto it = vocab.find(word);
        if (it != vocab.end())
            return {Token{it->second, word, 0, word.size()}};
    }
    struct Symbol {
        std::int64_t id;
        long prev, next;
        std::size_t len;
    };
    std::vector<Symbol> symbols;
    symbols.reserve(word.size());
    auto add = [&](std::int64_t id, std::size_t len) {
        const long n = static_cast<long>(symbols.size());
        if (!symbols.empty())
            symbols.back().next = n;
        symbols.push_back(Symbol{id, n - 1, -1, len});
    };
    bool pending = false;   // an unknown run not yet added (fused when fuse_unk)
    std::size_t pendingLen = 0;
    std::string s;
    for (std::size_t i = 0; i < word.size();) {
        std::size_t j = i + 1;
        while (j < word.size() && isContinuation(word[j]))
            ++j;
        const std::size_t byteLen = j - i;
        s.assign(i > 0 ? prefix : std::string());
        s.append(word, i, byteLen);
        if (j == word.size())
            s += suffix;
        auto it = vocab.find(s);
        if (it != vocab.end()) {
            if (pending) {
                add(unkId, pendingLen);
                pending = false;
            }
            add(it->second, byteLen);
        } else if (byteFallbackFits(s)) {
            // One "<0xXX>" per byte, each one byte long (so each takes the character's
            // span). As in the library, a pending unknown run is not closed first.
            for (char b : s)
                add(byteIds[static_cast<unsigned char>(b)], 1);
        } else if (unkToken) {
            if (pending && fuseUnk) {
                pendingLen += byteLen;
            } else {
                if (pending)
                    add(unkId, pendingLen);
                pending = true;
                pendingLen = byteLen;
            }
        }
        // Without an unknown token the character is dropped (the library's behaviour;
        // the offsets of the pieces after it then count only the kept characters).
        i = j;
    }
    if (pending)
        add(unkId, pendingLen);

    struct Candidate {
        std::size_t pos;
        std::uint32_t rank;
        std::int64_t newId;
        bool operator>(const Candidate &o) const { return rank != o.rank ? rank > o.rank : pos > o.pos; }
    };
    std::priority_queue<Candidate, std::vector<Candidate>, std::greater<Candidate>> queue;
    auto mergeOf = [&](std::int64_t a, std::int64_t b) -> const Merge * {
        auto it = merges.find(key(a, b));
        return it == merges.end() ? nullptr : &it->second;
    };
    for (std::size_t i = 0; i + 1 < symbols.size(); ++i)
        if (const Merge *m = mergeOf(symbols[i].id, symbols[i + 1].id))
            queue.push(Candidate{i, m->rank, m->newId});
    while (!queue.empty()) {
        const Candidate top = queue.top();
        queue.pop();
        Symbol &cur = symbols[top.pos];
        if (cur.len == 0 || cur.next < 0)
            continue;
        const std::size_t nextPos = static_cast<std::size_t>(cur.next);
        const Symbol right = symbols[nextPos];
        const Merge *m = mergeOf(cur.id, right.id);
        if (!m || m->newId != top.newId)
            continue;   // an entry that no longer applies
        cur.id = top.newId;
        cur.len += right.len;
        cur.next = right.next;
        symbols[nextPos].len = 0;
        if (right.next >= 0 && static_cast<std::size_t>(right.next) < symbols.size())
            symbols[static_cast<std::size_t>(right.next)].prev = static_cast<long>(top.pos);
        const Symbol now = symbols[top.pos];
        if (now.prev >= 0)
            if (const Merge *pm = mergeOf(symbols[static_cast<std::size_t>(now.prev)].id, now.id))
                queue.push(Candidate{static_cast<std::size_t>(now.prev), pm->rank, pm->newId});
        if (now.next >= 0 && static_cast<std::size_t>(now.next) < symbols.size())
            if (const Merge *nm = mergeOf(now.id, symbols[static_cast<std::size_t>(now.next)].id))
                queue.push(Candidate{top.pos, nm->rank, nm->newId});
    }

    std::vector<Token> tokens;
    std::size_t pos = 0;
    for (const Symbol &sym : symbols) {
        if (sym.len == 0)
            continue;
        auto it = tokenOf.find(sym.id);
        tokens.push_back(Token{sym.id, it == tokenOf.end() ? std::string() : it->second, pos, pos + sym.len});
        pos += sym.len;
    }
    return tokens;
}

} // namespace treelens::hf
