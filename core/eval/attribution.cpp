#include "core/eval/attribution.h"

#include <algorithm>
#include <cmath>

namespace treelens {

namespace {

/// Rollout of one analysis' attention over its tokens: R (n x n, row-major).
std::vector<double> rollout(const std::vector<std::vector<Matrix>> &attention, int n)
{
    std::vector<double> r(static_cast<std::size_t>(n) * n, 0.0);
    for (int i = 0; i < n; ++i)
        r[static_cast<std::size_t>(i) * n + i] = 1.0;
    std::vector<double> a(r.size()), next(r.size());
    for (const auto &layer : attention) {
        std::fill(a.begin(), a.end(), 0.0);
        int heads = 0;
        for (const Matrix &m : layer) {
            if (m.rows != n || m.cols != n)
                continue;
            ++heads;
            for (int i = 0; i < n; ++i)
                for (int j = 0; j < n; ++j)
                    a[static_cast<std::size_t>(i) * n + j] += m.at(i, j);
        }
        if (heads == 0)
            continue;
        for (int i = 0; i < n; ++i) {
            double sum = 0.0;
            for (int j = 0; j < n; ++j) {
                double &v = a[static_cast<std::size_t>(i) * n + j];
                v = 0.5 * v / heads + (i == j ? 0.5 : 0.0);
                sum += v;
            }
            for (int j = 0; j < n && sum > 0; ++j)
                a[static_cast<std::size_t>(i) * n + j] /= sum;
        }
        // R <- Â R (the new layer on the left: R maps layer-0 tokens to the top's).
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < n; ++j) {
                double s = 0.0;
                for (int k = 0; k < n; ++k)
                    s += a[static_cast<std::size_t>(i) * n + k] * r[static_cast<std::size_t>(k) * n + j];
                next[static_cast<std::size_t>(i) * n + j] = s;
            }
        r.swap(next);
    }
    return r;
}

SideAttribution rolloutSide(const Analysis &a, bool clsToken)
{
    SideAttribution side;
    side.tokens = a.tokens;
    side.words = a.words;
    const int n = static_cast<int>(a.tokens.size());
    const auto r = rollout(a.attention, n);
    side.token.assign(static_cast<std::size_t>(n), 0.0);
    if (clsToken) {
        for (int j = 0; j < n; ++j)
            side.token[static_cast<std::size_t>(j)] = r[static_cast<std::size_t>(j)];
    } else if (!a.wordToken.empty()) {
        for (int w : a.wordToken)
            for (int j = 0; j < n; ++j)
                side.token[static_cast<std::size_t>(j)] += r[static_cast<std::size_t>(w) * n + j] / static_cast<double>(a.wordToken.size());
    }
    std::vector<bool> isWord(static_cast<std::size_t>(n), false);
    for (int t : a.wordToken) {
        side.word.push_back(t >= 0 && t < n ? side.token[static_cast<std::size_t>(t)] : 0.0);
        if (t >= 0 && t < n)
            isWord[static_cast<std::size_t>(t)] = true;
    }
    for (int j = 0; j < n; ++j)
        if (!isWord[static_cast<std::size_t>(j)])
            side.specials += side.token[static_cast<std::size_t>(j)];
    if (!a.pieceToken.empty())
        for (int t : a.wordToken)
            side.pieces.push_back(static_cast<int>(std::count(a.pieceToken.begin(), a.pieceToken.end(), t)));
    return side;
}

} // namespace

Result<Attribution> attentionRollout(const Analysis &analysis, bool clsToken)
{
    if (analysis.attention.empty())
        return Error{"attention rollout needs the model's attention matrices, and this analysis has none"};
    Attribution out;
    out.method = "rollout";
    out.target = "attention";
    out.quantity = clsToken ? "attention rolled out from the " + (analysis.tokens.empty() ? std::string("first") : "'" + analysis.tokens.front() + "'") + " token"
                            : "attention rolled out, mean over the words";
    out.sides.push_back(rolloutSide(analysis, clsToken));
    for (const Analysis &second : analysis.second)
        if (!second.attention.empty())
            out.sides.push_back(rolloutSide(second, clsToken));
    return out;
}

Result<std::vector<SubtreeAttribution>> subtreeAttributions(const Sentence &sentence, const std::vector<double> &wordAttribution)
{
    const int n = static_cast<int>(wordAttribution.size());
    std::vector<SubtreeAttribution> out;
    if (sentence.dependency) {
        const DependencyTree &t = *sentence.dependency;
        if (static_cast<int>(t.size()) != n)
            return Error{"the dependency tree has " + std::to_string(t.size()) + " words but there are " + std::to_string(n) +
                         " attributions"};
        for (int h = 0; h < n; ++h) {
            std::vector<int> words;
            for (int w = 0; w < n; ++w) {
                // w is in h's subtree when h is on its path to the root.
                int cur = w, guard = 0;
                while (cur >= 0 && cur != h && guard++ <= n)
                    cur = t.heads[static_cast<std::size_t>(cur)] - 1;
                if (cur == h)
                    words.push_back(w);
            }
            if (words.size() < 2)
                continue;
            SubtreeAttribution s;
            s.kind = "dependency";
            s.head = h;
            s.label = h < static_cast<int>(t.deprels.size()) ? t.deprels[static_cast<std::size_t>(h)] : "";
            s.start = words.front();
            s.end = words.back() + 1;
            s.wholeSentence = static_cast<int>(words.size()) == n;
            for (int w : words)
                s.attribution += wordAttribution[static_cast<std::size_t>(w)];
            s.words = std::move(words);
            out.push_back(std::move(s));
        }
    }
    if (sentence.constituency && !sentence.constituency->empty()) {
        const ConstituencyTree &t = *sentence.constituency;
        if (t.wordCount() != n)
            return Error{"the constituency tree has " + std::to_string(t.wordCount()) + " words but there are " +
                         std::to_string(n) + " attributions"};
        for (const LabeledSpan &span : t.spans(true)) {
            if (span.end - span.start < 2)
                continue;
            SubtreeAttribution s;
            s.kind = "constituent";
            s.label = span.label;
            s.start = span.start;
            s.end = span.end;
            s.wholeSentence = span.start == 0 && span.end == n;
            for (int w = span.start; w < span.end; ++w) {
                s.words.push_back(w);
                s.attribution += wordAttribution[static_cast<std::size_t>(w)];
            }
            out.push_back(std::move(s));
        }
    }
    return out;
}

std::string rolloutWordRule(const SideAttribution &side)
{
    if (std::none_of(side.pieces.begin(), side.pieces.end(), [](int k) { return k > 1; }))
        return {};
    return "rollout runs on the word-level attention the views draw (Clark et al. 2019: attention to a word is the "
           "sum over its pieces, from a word the mean over its pieces), so a word of k pieces gathers the attention "
           "of k pieces - about k times a one-piece word's share when attention is spread evenly; the words of "
           "more than one piece are marked with their count";
}

RankedSubtrees rankedSubtrees(const std::vector<SubtreeAttribution> &subtrees)
{
    RankedSubtrees out;
    for (const SubtreeAttribution &s : subtrees) {
        if (s.wholeSentence) {
            out.hasWholeSentence = true;
            out.wholeSentence = s.attribution; // every whole-sentence unit sums the same words
            out.wholeNames.push_back(s.kind + " " + s.label);
            continue;
        }
        auto same = std::find_if(out.subtrees.begin(), out.subtrees.end(),
                                 [&](const SubtreeAttribution &t) { return t.words == s.words; });
        if (same == out.subtrees.end()) {
            out.subtrees.push_back(s);
        } else if (same->kind != s.kind || same->label != s.label) {
            if (same->kind != s.kind && same->kind.find(" + ") == std::string::npos)
                same->kind += " + " + s.kind;
            same->label += " / " + s.label;
            if (same->head < 0)
                same->head = s.head;
        }
    }
    return out;
}

std::vector<SubtreeAttribution> unitAttributions(const Sentence &sentence, const std::vector<double> &wordAttribution)
{
    std::vector<SubtreeAttribution> units;
    const auto words = sentence.words();
    for (std::size_t k = 0; k < wordAttribution.size() && k < words.size(); ++k) {
        const int w = static_cast<int>(k);
        units.push_back({"word", "", w, w, w + 1, {w}, wordAttribution[k]});
    }
    if (auto subtrees = subtreeAttributions(sentence, wordAttribution)) {
        const RankedSubtrees ranked = rankedSubtrees(*subtrees);
        units.insert(units.end(), ranked.subtrees.begin(), ranked.subtrees.end());
    }
    return units;
}

} // namespace treelens
