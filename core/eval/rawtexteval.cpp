#include "core/eval/rawtexteval.h"

#include <algorithm>
#include <chrono>
#include <numeric>
#include <string>
#include <utility>

#include "core/base/utf8.h"
#include "core/eval/depeval.h"
#include "core/eval/morpheval.h"
#include "core/eval/textspans.h"

namespace treelens {
namespace {

constexpr int kRoot = -1;   // head is the root
constexpr int kNoHead = -2; // head missing or out of range

// One scored word (see rawtexteval.h), spans in document coordinates.
struct Unit {
    TextSpan span;
    std::string upos;
    std::string xpos;
    std::string ufeats; // universal features only (morpheval.h)
    std::string lemma;
    std::string deprel; // universal part
    int head = kNoHead; // index of the head unit on the same side, or kRoot / kNoHead
    bool punct = false;
};

struct Side {
    std::vector<Unit> words;
    std::vector<TextSpan> tokens;
    std::vector<TextSpan> sentences;
    long long unparsed = 0; // sentences without a dependency tree
};

bool hasValue(const std::string &column) { return !column.empty() && column != "_"; }

// Punctuation code points: ASCII punctuation and symbols, Latin-1 punctuation,
// General Punctuation, CJK punctuation, fullwidth ASCII punctuation.
bool isPunctuationCodePoint(char32_t c)
{
    if (c < 0x80)
        return (c >= 0x21 && c <= 0x2F) || (c >= 0x3A && c <= 0x40) || (c >= 0x5B && c <= 0x60) || (c >= 0x7B && c <= 0x7E);
    return (c >= 0xA1 && c <= 0xBF && c != 0xAA && c != 0xB2 && c != 0xB3 && c != 0xB5 && c != 0xB9 && c != 0xBA
            && c != 0xBC && c != 0xBD && c != 0xBE)
        || (c >= 0x2010 && c <= 0x205E) || (c >= 0x3001 && c <= 0x3003) || (c >= 0x3008 && c <= 0x3011)
        || (c >= 0xFF01 && c <= 0xFF0F);
}

// The system side's own punctuation decision, for words not aligned to gold.
bool systemPunctuation(const Token &t)
{
    if (hasValue(t.upos))
        return t.upos == "PUNCT";
    if (hasValue(t.xpos))
        return isPunctuation(t);
    if (t.text.empty())
        return false;
    for (std::size_t pos = 0; pos < t.text.size();) {
        int len = 1;
        const char32_t c = decodeUtf8(t.text, pos, len);
        if (!isPunctuationCodePoint(c))
            return false;
        pos += static_cast<std::size_t>(len);
    }
    return true;
}

Result<Side> buildSide(const std::vector<Sentence> &sentences, const std::vector<int> &offsets, bool gold)
{
    const std::string name = gold ? "gold" : "system";
    if (!offsets.empty() && offsets.size() != sentences.size())
        return Error{name + ": " + std::to_string(offsets.size()) + " offsets for " + std::to_string(sentences.size())
                     + " sentences"};
    Side side;
    for (std::size_t i = 0; i < sentences.size(); ++i) {
        const Sentence &s = sentences[i];
        if (s.tokens.empty())
            continue;
        const std::string where = name + " sentence " + std::to_string(i + 1) + " ('" + s.id + "')";
        const int n = static_cast<int>(s.tokens.size());
        if (!s.dependency) {
            if (gold)
                return Error{where + " has no dependency tree"};
            ++side.unparsed; // its words get no heads
        } else if (static_cast<int>(s.dependency->heads.size()) != n
                   || static_cast<int>(s.dependency->deprels.size()) != n) {
            return Error{where + ": the dependency tree has " + std::to_string(s.dependency->heads.size())
                         + " heads for " + std::to_string(n) + " words"};
        }
        const SentenceSpans spans = sentenceSpans(s);
        if (!spans.ok)
            return Error{where + ": its words are not aligned to its text (no character offsets)"};
        const int off = offsets.empty() ? 0 : offsets[i];
        const std::vector<int> noHeads(static_cast<std::size_t>(n), -1);
        const std::vector<int> &heads = s.dependency ? s.dependency->heads : noHeads;

        const int base = static_cast<int>(side.words.size());
        std::vector<int> unitOf(static_cast<std::size_t>(n), kNoHead);
        std::vector<int> representative;
        representative.reserve(spans.words.size());
        for (std::size_t k = 0; k < spans.words.size(); ++k) {
            const auto [first, last] = spans.wordTokens[k];
            // A multiword token counted as one word stands for its syntactic head.
            int rep = first;
            if (first < last) {
                for (int r = first; r <= last; ++r) {
                    const int h = heads[static_cast<std::size_t>(r)];
                    if (h == 0 || h < first + 1 || h > last + 1) {
                        rep = r;
                        break;
                    }
                }
            }
            for (int r = first; r <= last; ++r)
                unitOf[static_cast<std::size_t>(r)] = base + static_cast<int>(k);
            representative.push_back(rep);
            const Token &t = s.tokens[static_cast<std::size_t>(rep)];
            Unit u;
            u.span = {spans.words[k].first + off, spans.words[k].second + off};
            u.upos = t.upos;
            u.xpos = t.xpos;
            u.ufeats = universalFeatures(t.feats);
            u.lemma = t.lemma.empty() ? "_" : t.lemma;
            if (s.dependency)
                u.deprel = universalRelation(s.dependency->deprels[static_cast<std::size_t>(rep)]);
            u.punct = gold ? isPunctuation(t) : systemPunctuation(t);
            side.words.push_back(std::move(u));
        }
        for (std::size_t k = 0; k < representative.size(); ++k) {
            const int h = heads[static_cast<std::size_t>(representative[k])];
            Unit &u = side.words[static_cast<std::size_t>(base) + k];
            u.head = h == 0 ? kRoot : (h >= 1 && h <= n ? unitOf[static_cast<std::size_t>(h - 1)] : kNoHead);
        }
        int sentenceStart = spans.surface.front().first;
        int sentenceEnd = spans.surface.front().second;
        for (const TextSpan &t : spans.surface) {
            side.tokens.emplace_back(t.first + off, t.second + off);
            sentenceStart = std::min(sentenceStart, t.first);
            sentenceEnd = std::max(sentenceEnd, t.second);
        }
        side.sentences.emplace_back(sentenceStart + off, sentenceEnd + off);
    }
    return side;
}

PrfCounts spanCounts(std::vector<TextSpan> gold, std::vector<TextSpan> system)
{
    std::sort(gold.begin(), gold.end());
    std::sort(system.begin(), system.end());
    PrfCounts c;
    c.gold = static_cast<long long>(gold.size());
    c.predicted = static_cast<long long>(system.size());
    c.correct = countCommonSpans(gold, system);
    return c;
}

// For each system word: the index of the gold word with the same span, or -1.
std::vector<int> alignWords(const std::vector<Unit> &gold, const std::vector<Unit> &system)
{
    auto order = [](const std::vector<Unit> &v) {
        std::vector<int> idx(v.size());
        std::iota(idx.begin(), idx.end(), 0);
        std::stable_sort(idx.begin(), idx.end(), [&](int a, int b) {
            return v[static_cast<std::size_t>(a)].span < v[static_cast<std::size_t>(b)].span;
        });
        return idx;
    };
    const std::vector<int> g = order(gold);
    const std::vector<int> s = order(system);
    std::vector<int> goldOf(system.size(), -1);
    std::size_t i = 0;
    std::size_t j = 0;
    while (i < g.size() && j < s.size()) {
        const TextSpan &a = gold[static_cast<std::size_t>(g[i])].span;
        const TextSpan &b = system[static_cast<std::size_t>(s[j])].span;
        if (a == b) {
            goldOf[static_cast<std::size_t>(s[j])] = g[i];
            ++i;
            ++j;
        } else if (a < b) {
            ++i;
        } else {
            ++j;
        }
    }
    return goldOf;
}

} // namespace

Result<RawTextScore> scoreRawText(const std::vector<Sentence> &gold, const std::vector<int> &goldOffsets,
                                  const std::vector<Sentence> &system, const std::vector<int> &systemOffsets)
{
    auto g = buildSide(gold, goldOffsets, true);
    if (!g)
        return g.error();
    auto s = buildSide(system, systemOffsets, false);
    if (!s)
        return s.error();

    RawTextScore score;
    score.unparsedSentences = s->unparsed;
    score.tokens = spanCounts(g->tokens, s->tokens);
    score.sentences = spanCounts(g->sentences, s->sentences);

    const std::vector<int> goldOf = alignWords(g->words, s->words);
    const long long nGold = static_cast<long long>(g->words.size());
    const long long nSystem = static_cast<long long>(s->words.size());
    for (PrfCounts *c : {&score.words, &score.upos, &score.xpos, &score.ufeats, &score.lemmas, &score.uas, &score.las}) {
        c->gold = nGold;
        c->predicted = nSystem;
    }
    for (const Unit &u : g->words) {
        if (!u.punct) {
            ++score.uasNoPunct.gold;
            ++score.lasNoPunct.gold;
        }
    }
    for (std::size_t k = 0; k < s->words.size(); ++k) {
        const Unit &su = s->words[k];
        const int gi = goldOf[k];
        const bool punct = gi >= 0 ? g->words[static_cast<std::size_t>(gi)].punct : su.punct;
        if (!punct) {
            ++score.uasNoPunct.predicted;
            ++score.lasNoPunct.predicted;
        }
        if (gi < 0)
            continue;
        const Unit &gu = g->words[static_cast<std::size_t>(gi)];
        ++score.words.correct;
        score.upos.correct += gu.upos == su.upos;
        score.xpos.correct += gu.xpos == su.xpos;
        score.ufeats.correct += gu.ufeats == su.ufeats;
        score.lemmas.correct += lemmaMatches(gu.lemma, su.lemma);
        const bool head = (gu.head == kRoot && su.head == kRoot)
            || (gu.head >= 0 && su.head >= 0 && goldOf[static_cast<std::size_t>(su.head)] == gu.head);
        const bool label = head && gu.deprel == su.deprel;
        score.uas.correct += head;
        score.las.correct += label;
        if (!punct) {
            score.uasNoPunct.correct += head;
            score.lasNoPunct.correct += label;
        }
    }
    return score;
}

Result<RawTextScore> evaluateRawText(const std::vector<Sentence> &gold, const Tokenizer &tokenizer,
                                     const ParseSentences &parse)
{
    using Clock = std::chrono::steady_clock;
    const std::vector<TextParagraph> paragraphs = textParagraphs(gold);
    std::vector<int> goldOffsets(gold.size(), 0);
    std::vector<char> placed(gold.size(), 0);
    std::vector<Sentence> system;
    std::vector<int> systemOffsets;
    int base = 0; // paragraphs laid end to end, one byte apart
    const auto t0 = Clock::now();
    for (const TextParagraph &p : paragraphs) {
        for (std::size_t k = 0; k < p.sentences.size(); ++k) {
            goldOffsets[static_cast<std::size_t>(p.sentences[k])] = base + p.shifts[k];
            placed[static_cast<std::size_t>(p.sentences[k])] = 1;
        }
        std::vector<Sentence> sentences = tokenizer.splitAndTokenize(p.text);
        // Each sentence's text is the paragraph's bytes it was split from: find
        // them in order to place its tokens in the paragraph.
        std::size_t cursor = 0;
        for (Sentence &s : sentences) {
            const std::size_t pos = p.text.find(s.text, cursor);
            if (pos == std::string::npos)
                return Error{"internal error: tokenized sentence '" + s.text.substr(0, 60) + "' not found in its paragraph"};
            cursor = pos + s.text.size();
            if (s.tokens.empty())
                continue;
            s.id = "s" + std::to_string(system.size() + 1);
            systemOffsets.push_back(base + static_cast<int>(pos));
            system.push_back(std::move(s));
        }
        base += static_cast<int>(p.text.size()) + 1;
    }
    const auto t1 = Clock::now();
    for (std::size_t i = 0; i < gold.size(); ++i)
        if (!placed[i] && !gold[i].tokens.empty())
            return Error{"gold sentence " + std::to_string(i + 1) + " ('" + gold[i].id + "') has no '# text'"};

    const std::vector<Sentence> input = system;
    if (Status st = parse(system); !st)
        return st.error();
    const auto t2 = Clock::now();
    if (system.size() != input.size())
        return Error{"the parser returned " + std::to_string(system.size()) + " sentences for "
                     + std::to_string(input.size())};
    for (std::size_t i = 0; i < system.size(); ++i) {
        Sentence &s = system[i];
        const Sentence &in = input[i];
        if (s.tokens.size() != in.tokens.size())
            return Error{"the parser returned " + std::to_string(s.tokens.size()) + " words for the "
                         + std::to_string(in.tokens.size()) + " of sentence '" + in.id + "'"};
        // The spans are the tokenizer's, whatever the parser did with them.
        s.text = in.text;
        s.multiwordTokens = in.multiwordTokens;
        for (std::size_t k = 0; k < s.tokens.size(); ++k) {
            s.tokens[k].text = in.tokens[k].text;
            s.tokens[k].charStart = in.tokens[k].charStart;
            s.tokens[k].charEnd = in.tokens[k].charEnd;
        }
    }

    auto score = scoreRawText(gold, goldOffsets, system, systemOffsets);
    if (!score)
        return score.error();
    score->paragraphs = static_cast<long long>(paragraphs.size());
    score->tokenizeSeconds = std::chrono::duration<double>(t1 - t0).count();
    score->parseSeconds = std::chrono::duration<double>(t2 - t1).count();
    return score;
}

} // namespace treelens
