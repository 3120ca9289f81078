#include "core/encoders/pretrained/wordpieces.h"

#include <algorithm>
#include <numeric>

#include "core/base/utf8.h"

namespace treelens {

namespace {

int codePoints(const std::string &s)
{
    int n = 0;
    for (std::size_t pos = 0; pos < s.size();) {
        int len = 1;
        decodeUtf8(s, pos, len);
        pos += static_cast<std::size_t>(std::max(1, len));
        ++n;
    }
    return n;
}

} // namespace

std::string joinWords(const std::vector<std::string> &words, std::vector<std::pair<int, int>> &spans)
{
    std::string text;
    spans.clear();
    int at = 0;
    for (std::size_t i = 0; i < words.size(); ++i) {
        if (i > 0) {
            text += ' ';
            ++at;
        }
        const int n = codePoints(words[i]);
        spans.emplace_back(at, at + n);
        text += words[i];
        at += n;
    }
    return text;
}

PieceUnits groupPieces(const TokenEncoding &enc, const std::vector<std::string> *words[2],
                       const std::vector<std::pair<int, int>> *spans[2])
{
    // Each unit gets a sort key: the position of its first piece; a word without pieces
    // sits just after the previous word of its text (or just before the next one).
    struct Unit {
        double key;
        std::string name;
        std::vector<int> pieces;
        bool special;
        int text = -1, word = -1;
    };
    std::vector<Unit> units;
    const int n = static_cast<int>(enc.ids.size());
    std::vector<int> wordUnit[2];
    for (int k = 0; k < 2; ++k)
        wordUnit[k].assign(words[k] ? words[k]->size() : 0, -1);
    for (int p = 0; p < n; ++p) {
        const int seq = p < static_cast<int>(enc.sequence.size()) ? enc.sequence[static_cast<std::size_t>(p)] : -1;
        if (seq < 0 || seq > 1 || !spans[seq]) {
            units.push_back({static_cast<double>(p), enc.tokens[static_cast<std::size_t>(p)], {p}, true});
            continue;
        }
        const int start = enc.offsets[static_cast<std::size_t>(p)].first;
        const auto &sp = *spans[seq];
        if (sp.empty())
            continue;
        // The first word the piece's characters overlap: a byte-level piece whose offsets keep its
        // leading space ("Ġold" over " old", trim_offsets false) belongs to the word after the space.
        // A piece of spaces only (a lone "Ġ", an empty trimmed span) belongs to the word that
        // follows it (the last word when none does). The spans are in order.
        const auto next = std::lower_bound(sp.begin(), sp.end(), start,
                                           [](const std::pair<int, int> &span, int s) { return span.second <= s; });
        const int w = next == sp.end() ? static_cast<int>(sp.size()) - 1 : static_cast<int>(next - sp.begin());
        int &u = wordUnit[seq][static_cast<std::size_t>(w)];
        if (u < 0) {
            u = static_cast<int>(units.size());
            units.push_back({static_cast<double>(p), (*words[seq])[static_cast<std::size_t>(w)], {}, false, seq, w});
        }
        units[static_cast<std::size_t>(u)].pieces.push_back(p);
    }
    PieceUnits out;
    for (int k = 0; k < 2; ++k) {
        const int count = static_cast<int>(wordUnit[k].size());
        for (int w = 0; w < count; ++w) {
            if (wordUnit[k][static_cast<std::size_t>(w)] >= 0)
                continue;
            out.pieceless[k].push_back(w);
            double key = -1;
            for (int v = w - 1; v >= 0 && key < 0; --v)
                if (wordUnit[k][static_cast<std::size_t>(v)] >= 0)
                    key = units[static_cast<std::size_t>(wordUnit[k][static_cast<std::size_t>(v)])].key + 0.001 * (w - v);
            for (int v = w + 1; v < count && key < 0; ++v)
                if (wordUnit[k][static_cast<std::size_t>(v)] >= 0)
                    key = units[static_cast<std::size_t>(wordUnit[k][static_cast<std::size_t>(v)])].key - 0.001 * (v - w);
            if (key < 0) // no word of this text has a piece: after the first special token, or before the last
                key = k == 0 ? 0.5 + 0.001 * w : n - 1.5 + 0.001 * w;
            units.push_back({key, (*words[k])[static_cast<std::size_t>(w)], {}, false, k, w});
        }
    }
    std::vector<int> order(units.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
        return units[static_cast<std::size_t>(a)].key < units[static_cast<std::size_t>(b)].key;
    });
    for (int k = 0; k < 2; ++k)
        out.unitOfWord[k].assign(wordUnit[k].size(), -1);
    for (int i : order) {
        const Unit &u = units[static_cast<std::size_t>(i)];
        if (u.text >= 0)
            out.unitOfWord[u.text][static_cast<std::size_t>(u.word)] = static_cast<int>(out.names.size());
        out.names.push_back(u.name);
        out.pieces.push_back(u.pieces);
        out.special.push_back(u.special);
    }
    return out;
}

} // namespace treelens
