#include "core/eval/tokeneval.h"

#include <algorithm>
#include <chrono>
#include <utility>

namespace treelens {
namespace {

using Span = std::pair<int, int>;

// Number of spans present in both sorted lists, counting repeats (multiset).
long long countCommon(const std::vector<Span> &a, const std::vector<Span> &b)
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

struct GoldSpans {
    std::vector<Span> surface;
    std::vector<Span> words;
    bool ok = true;
};

// Surface tokens and word spans of a gold sentence (see tokeneval.h).
GoldSpans goldSpans(const Sentence &s)
{
    GoldSpans g;
    const int n = static_cast<int>(s.tokens.size());
    std::size_t mwt = 0;
    for (int i = 0; i < n;) {
        while (mwt < s.multiwordTokens.size() && s.multiwordTokens[mwt].last < i + 1)
            ++mwt;
        const Token &t = s.tokens[static_cast<std::size_t>(i)];
        if (t.charStart < 0 || t.charEnd < t.charStart) {
            g.ok = false;
            return g;
        }
        const Span span{t.charStart, t.charEnd};
        g.surface.push_back(span);
        const bool inMwt = mwt < s.multiwordTokens.size() && s.multiwordTokens[mwt].first == i + 1;
        if (!inMwt) {
            g.words.push_back(span);
            ++i;
            continue;
        }
        const int last = std::min(s.multiwordTokens[mwt].last, n);
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
                b += len;
            }
        } else {
            g.words.push_back(span);
        }
        i = last;
    }
    return g;
}

std::string spanText(const std::string &text, const Span &s)
{
    return text.substr(static_cast<std::size_t>(s.first), static_cast<std::size_t>(s.second - s.first));
}

// Collects the stretches where the two tokenizations disagree.
void collectMismatches(const Sentence &s, const std::vector<Span> &gold, const std::vector<Span> &pred,
                       int maxMismatches, std::vector<TokenMismatch> &out)
{
    std::size_t gi = 0;
    std::size_t pi = 0;
    while ((gi < gold.size() || pi < pred.size()) && static_cast<int>(out.size()) < maxMismatches) {
        if (gi < gold.size() && pi < pred.size() && gold[gi] == pred[pi]) {
            ++gi;
            ++pi;
            continue;
        }
        TokenMismatch m;
        m.sentenceId = s.id;
        int end = std::max(gi < gold.size() ? gold[gi].second : 0, pi < pred.size() ? pred[pi].second : 0);
        bool grew = true;
        while (grew) {
            grew = false;
            if (gi < gold.size() && (gold[gi].first < end || pi >= pred.size())) {
                end = std::max(end, gold[gi].second);
                m.gold.push_back(spanText(s.text, gold[gi++]));
                grew = true;
            }
            if (pi < pred.size() && (pred[pi].first < end || gi >= gold.size())) {
                end = std::max(end, pred[pi].second);
                m.predicted.push_back(spanText(s.text, pred[pi++]));
                grew = true;
            }
        }
        out.push_back(std::move(m));
    }
}

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

std::string trimmed(const std::string &s)
{
    const std::size_t b = s.find_first_not_of(" \t\r\n");
    if (b == std::string::npos)
        return std::string();
    const std::size_t e = s.find_last_not_of(" \t\r\n");
    return s.substr(b, e - b + 1);
}

void scoreParagraph(const std::string &text, const std::vector<Span> &gold, const Tokenizer &tokenizer,
                    SegmentationScore &score)
{
    if (gold.empty())
        return;
    ++score.paragraphs;
    std::vector<Span> pred = tokenizer.splitSentences(text);
    std::vector<Span> goldSorted = gold;
    std::sort(goldSorted.begin(), goldSorted.end());
    std::sort(pred.begin(), pred.end());
    score.sentences.gold += static_cast<long long>(goldSorted.size());
    score.sentences.predicted += static_cast<long long>(pred.size());
    score.sentences.correct += countCommon(goldSorted, pred);

    auto inner = [](const std::vector<Span> &spans) {
        std::vector<Span> ends;
        for (std::size_t k = 0; k + 1 < spans.size(); ++k)
            ends.emplace_back(spans[k].second, 0);
        return ends;
    };
    const std::vector<Span> goldEnds = inner(goldSorted);
    const std::vector<Span> predEnds = inner(pred);
    score.boundaries.gold += static_cast<long long>(goldEnds.size());
    score.boundaries.predicted += static_cast<long long>(predEnds.size());
    score.boundaries.correct += countCommon(goldEnds, predEnds);
}

} // namespace

TokenizationScore evaluateTokenizer(const std::vector<Sentence> &gold, const Tokenizer &tokenizer, int maxMismatches)
{
    TokenizationScore score;
    double seconds = 0.0;
    for (const Sentence &s : gold) {
        if (s.text.empty()) {
            ++score.skippedSentences;
            continue;
        }
        const GoldSpans g = goldSpans(s);
        if (!g.ok) {
            ++score.skippedSentences;
            continue;
        }
        const auto t0 = std::chrono::steady_clock::now();
        const Tokenization t = tokenizer.tokenizeDetailed(s.text);
        seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        ++score.sentences;
        score.bytes += static_cast<long long>(s.text.size());

        std::vector<Span> predSurface;
        predSurface.reserve(t.surface.size());
        for (const SurfaceToken &st : t.surface)
            predSurface.emplace_back(st.charStart, st.charEnd);
        std::vector<Span> predWords;
        predWords.reserve(t.words.size());
        for (const Token &w : t.words)
            predWords.emplace_back(w.charStart, w.charEnd);

        score.tokens.gold += static_cast<long long>(g.surface.size());
        score.tokens.predicted += static_cast<long long>(predSurface.size());
        score.tokens.correct += countCommon(g.surface, predSurface);
        if (static_cast<int>(score.mismatches.size()) < maxMismatches)
            collectMismatches(s, g.surface, predSurface, maxMismatches, score.mismatches);

        std::vector<Span> goldWords = g.words;
        std::sort(goldWords.begin(), goldWords.end());
        std::sort(predWords.begin(), predWords.end());
        score.words.gold += static_cast<long long>(goldWords.size());
        score.words.predicted += static_cast<long long>(predWords.size());
        score.words.correct += countCommon(goldWords, predWords);
    }
    score.seconds = seconds;
    return score;
}

SegmentationScore evaluateSentenceSplitter(const std::vector<Sentence> &gold, const Tokenizer &tokenizer)
{
    SegmentationScore score;
    std::string text;
    std::vector<Span> spans;
    for (const Sentence &s : gold) {
        if (startsParagraph(s) && !spans.empty()) {
            scoreParagraph(text, spans, tokenizer, score);
            text.clear();
            spans.clear();
        }
        const std::string t = trimmed(s.text);
        if (t.empty())
            continue;
        if (!text.empty())
            text += ' ';
        const int b = static_cast<int>(text.size());
        text += t;
        spans.emplace_back(b, static_cast<int>(text.size()));
    }
    scoreParagraph(text, spans, tokenizer, score);
    return score;
}

} // namespace treelens
