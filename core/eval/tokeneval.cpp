#include "core/eval/tokeneval.h"

#include <algorithm>
#include <chrono>
#include <utility>

#include "core/eval/textspans.h"

namespace treelens {
namespace {

using Span = TextSpan;

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
    score.sentences.correct += countCommonSpans(goldSorted, pred);

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
    score.boundaries.correct += countCommonSpans(goldEnds, predEnds);
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
        const SentenceSpans g = sentenceSpans(s);
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
        score.tokens.correct += countCommonSpans(g.surface, predSurface);
        if (static_cast<int>(score.mismatches.size()) < maxMismatches)
            collectMismatches(s, g.surface, predSurface, maxMismatches, score.mismatches);

        std::vector<Span> goldWords = g.words;
        std::sort(goldWords.begin(), goldWords.end());
        std::sort(predWords.begin(), predWords.end());
        score.words.gold += static_cast<long long>(goldWords.size());
        score.words.predicted += static_cast<long long>(predWords.size());
        score.words.correct += countCommonSpans(goldWords, predWords);
    }
    score.seconds = seconds;
    return score;
}

SegmentationScore evaluateSentenceSplitter(const std::vector<Sentence> &gold, const Tokenizer &tokenizer)
{
    SegmentationScore score;
    for (const TextParagraph &p : textParagraphs(gold))
        scoreParagraph(p.text, p.spans, tokenizer, score);
    return score;
}

} // namespace treelens
