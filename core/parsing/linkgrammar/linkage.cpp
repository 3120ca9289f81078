// linkage: Link Grammar's words and links, and their alignment to our tokens;
// see linkage.h.
#include "core/parsing/linkgrammar/linkage.h"

#include "core/parsing/linkgrammar/wordclasses.h"

namespace treelens::linkgrammar {

void splitLabel(const std::string &label, std::string &major, std::string &sub)
{
    std::size_t i = 0;
    while (i < label.size() && isUpperAscii(label[i]))
        ++i;
    major = label.substr(0, i);
    sub = label.substr(i);
}

namespace {

/// A subscript is what follows the last '.' when it looks like one ("v-d", "n", "ord").
bool looksLikeSubscript(const std::string &s)
{
    if (s.empty() || !isLowerAscii(s[0]) || s.size() > 8)
        return false;
    for (char c : s)
        if (!isLowerAscii(c) && c != '-' && !(c >= '0' && c <= '9'))
            return false;
    return true;
}

} // namespace

void decomposeWord(LgWord &w)
{
    std::string s = w.raw;
    if (w.links == 0 && s.size() >= 3 && s.front() == '[' && s.back() == ']')
        s = s.substr(1, s.size() - 2); // null-linked words are shown as "[word]"
    std::string rest;
    if (!w.surface.empty() && s.size() >= w.surface.size() && equalsIgnoreCase(s.substr(0, w.surface.size()), w.surface)) {
        rest = s.substr(w.surface.size());
    } else {
        // Display differs from the input (should not happen with spell guessing
        // off): the marker starts at the first '[' after the word, the subscript
        // after the last dot.
        const std::size_t m = s.find('[', 1);
        if (m != std::string::npos) {
            rest = s.substr(m);
        } else {
            const std::size_t dot = s.rfind('.');
            if (dot != std::string::npos && dot > 0 && looksLikeSubscript(s.substr(dot + 1)))
                rest = s.substr(dot);
        }
    }
    if (!rest.empty() && rest[0] == '[') {
        const std::size_t close = rest.find(']');
        if (close != std::string::npos) {
            w.marker = rest.substr(1, close - 1);
            rest = rest.substr(close + 1);
        }
    }
    if (rest.size() > 1 && rest[0] == '.' && looksLikeSubscript(rest.substr(1)))
        w.subscript = rest.substr(1);
}

void verifyOffsets(std::vector<LgWord> &words, const std::string &text)
{
    const std::string lowerText = lowerAscii(text);
    const int size = static_cast<int>(text.size());
    int drift = 0;
    int cursor = 0;
    for (LgWord &w : words) {
        if (w.wall || w.end <= w.start)
            continue;
        std::string shown = w.raw;
        if (shown.size() >= 3 && shown.front() == '[' && shown.back() == ']')
            shown = shown.substr(1, shown.size() - 2);
        const int len = w.end - w.start;
        const std::string needle = lowerAscii(shown.substr(0, static_cast<std::size_t>(len)));
        const auto matchesAt = [&](int pos) {
            return pos >= 0 && pos + len <= size && static_cast<int>(needle.size()) == len
                && lowerText.compare(static_cast<std::size_t>(pos), static_cast<std::size_t>(len), needle) == 0;
        };
        int pos = w.start + drift;
        if (!matchesAt(pos)) {
            if (matchesAt(w.start)) {
                pos = w.start;
            } else if (static_cast<int>(needle.size()) == len) {
                const std::size_t found = lowerText.find(needle, static_cast<std::size_t>(cursor));
                if (found != std::string::npos)
                    pos = static_cast<int>(found);
            }
            // Otherwise Link Grammar spelled the word differently: keep the shifted offsets.
        }
        pos = std::clamp(pos, 0, size);
        drift = pos - w.start;
        w.start = pos;
        w.end = std::min(pos + len, size);
        cursor = w.end;
    }
}

Alignment alignWords(std::vector<LgWord> &words, const std::vector<std::pair<int, int>> &ranges)
{
    const int n = static_cast<int>(ranges.size());
    Alignment a;
    a.wordsOf.assign(static_cast<std::size_t>(n), {});
    a.rep.assign(static_cast<std::size_t>(n), -1);
    a.mergedInto.assign(static_cast<std::size_t>(n), -1);
    std::vector<int> coveredBy(static_cast<std::size_t>(n), -1); // word overlapping a token it does not belong to
    for (int wi = 0; wi < static_cast<int>(words.size()); ++wi) {
        LgWord &w = words[static_cast<std::size_t>(wi)];
        if (w.wall || w.end <= w.start)
            continue;
        int best = -1, bestOverlap = 0;
        for (int t = 0; t < n; ++t) {
            const auto [ts, te] = ranges[static_cast<std::size_t>(t)];
            const int overlap = std::min(te, w.end) - std::max(ts, w.start);
            if (overlap <= 0)
                continue;
            if (overlap > bestOverlap) {
                if (best >= 0)
                    coveredBy[static_cast<std::size_t>(best)] = wi;
                best = t;
                bestOverlap = overlap;
            } else {
                coveredBy[static_cast<std::size_t>(t)] = wi;
            }
        }
        w.token = best;
        if (best >= 0)
            a.wordsOf[static_cast<std::size_t>(best)].push_back(wi);
    }
    for (int t = 0; t < n; ++t) {
        const auto &ws = a.wordsOf[static_cast<std::size_t>(t)];
        if (ws.empty()) {
            const int cw = coveredBy[static_cast<std::size_t>(t)];
            if (cw >= 0 && words[static_cast<std::size_t>(cw)].token >= 0) {
                a.mergedInto[static_cast<std::size_t>(t)] = words[static_cast<std::size_t>(cw)].token;
                ++a.merged;
            } else {
                ++a.dropped;
            }
            continue;
        }
        if (ws.size() > 1)
            ++a.split;
        // The longest piece stands for the token ("Nov." -> "Nov.x" + "."): it
        // carries the content, so its subscript gives the POS and its leaf the position.
        int rep = ws.front();
        for (int wi : ws) {
            const auto &w = words[static_cast<std::size_t>(wi)];
            const auto &r = words[static_cast<std::size_t>(rep)];
            if (w.end - w.start > r.end - r.start)
                rep = wi;
        }
        a.rep[static_cast<std::size_t>(t)] = rep;
    }
    return a;
}

} // namespace treelens::linkgrammar
