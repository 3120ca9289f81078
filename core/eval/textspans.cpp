#include "core/eval/textspans.h"

#include <algorithm>
#include <string_view>

namespace treelens {
namespace {

bool startsParagraph(const Sentence &s)
{
    for (const std::string &c : s.comments) {
        std::size_t p = c.find_first_not_of(" \t");
        if (p == std::string::npos)
            continue;
        if (c.compare(p, 6, "newdoc") == 0 || c.compare(p, 6, "newpar") == 0)
            return true;
    }
    return false;
}

} // namespace

long long countCommonSpans(const std::vector<TextSpan> &a, const std::vector<TextSpan> &b)
{
    long long n = 0;
    std::size_t i = 0;
    std::size_t j = 0;
    while (i < a.size() && j < b.size()) {
        if (a[i] == b[j]) {
            ++n;
            ++i;
            ++j;
        } else if (a[i] < b[j]) {
            ++i;
        } else {
            ++j;
        }
    }
    return n;
}

SentenceSpans sentenceSpans(const Sentence &s)
{
    SentenceSpans g;
    const int n = static_cast<int>(s.tokens.size());
    const int size = static_cast<int>(s.text.size());
    for (const Token &t : s.tokens) {
        if (t.charStart < 0 || t.charEnd < t.charStart || t.charEnd > size) {
            g.ok = false;
            return g;
        }
    }
    std::size_t mwt = 0;
    for (int i = 0; i < n;) {
        while (mwt < s.multiwordTokens.size() && s.multiwordTokens[mwt].last < i + 1)
            ++mwt;
        const Token &t = s.tokens[static_cast<std::size_t>(i)];
        const bool inMwt = mwt < s.multiwordTokens.size() && s.multiwordTokens[mwt].first == i + 1;
        if (!inMwt) {
            g.surface.emplace_back(t.charStart, t.charEnd);
            g.words.emplace_back(t.charStart, t.charEnd);
            g.wordTokens.emplace_back(i, i);
            ++i;
            continue;
        }
        const int last = std::min(s.multiwordTokens[mwt].last, n); // one past the last word, 0-based
        TextSpan span{t.charStart, t.charEnd};
        for (int k = i; k < last; ++k)
            span.second = std::max(span.second, s.tokens[static_cast<std::size_t>(k)].charEnd);
        g.surface.push_back(span);
        // Words get the spans of their FORMs when the FORMs spell the surface.
        std::string joined;
        for (int k = i; k < last; ++k)
            joined += s.tokens[static_cast<std::size_t>(k)].text;
        const std::string_view surface = std::string_view(s.text).substr(
            static_cast<std::size_t>(span.first), static_cast<std::size_t>(span.second - span.first));
        if (joined == surface) {
            int b = span.first;
            for (int k = i; k < last; ++k) {
                const int len = static_cast<int>(s.tokens[static_cast<std::size_t>(k)].text.size());
                g.words.emplace_back(b, b + len);
                g.wordTokens.emplace_back(k, k);
                b += len;
            }
        } else {
            g.words.push_back(span);
            g.wordTokens.emplace_back(i, last - 1);
        }
        i = last;
    }
    return g;
}

std::vector<TextParagraph> textParagraphs(const std::vector<Sentence> &gold)
{
    std::vector<TextParagraph> out;
    TextParagraph cur;
    auto flush = [&]() {
        if (!cur.sentences.empty())
            out.push_back(std::move(cur));
        cur = TextParagraph();
    };
    for (std::size_t i = 0; i < gold.size(); ++i) {
        const Sentence &s = gold[i];
        if (startsParagraph(s))
            flush();
        const std::size_t b = s.text.find_first_not_of(" \t\r\n");
        if (b == std::string::npos)
            continue;
        const std::size_t e = s.text.find_last_not_of(" \t\r\n") + 1;
        if (!cur.text.empty())
            cur.text += ' ';
        const int start = static_cast<int>(cur.text.size());
        cur.text.append(s.text, b, e - b);
        cur.sentences.push_back(static_cast<int>(i));
        cur.spans.emplace_back(start, static_cast<int>(cur.text.size()));
        cur.shifts.push_back(start - static_cast<int>(b));
    }
    flush();
    return out;
}

} // namespace treelens
