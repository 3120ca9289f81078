#include "core/eval/paireval.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <unordered_set>

#include "core/base/strings.h"
#include "core/base/utf8.h"

namespace treelens {

// ------------------------------------------------------------------ ranking

GroupRanking rankGroup(const std::vector<bool> &correct, const std::vector<double> &scores)
{
    GroupRanking g;
    const int n = static_cast<int>(std::min(correct.size(), scores.size()));
    g.candidates = n;
    g.ranked.resize(static_cast<std::size_t>(n));
    std::iota(g.ranked.begin(), g.ranked.end(), 0);
    // Stable: equal scores keep input order (the documented tie rule).
    std::stable_sort(g.ranked.begin(), g.ranked.end(),
                     [&](int a, int b) { return scores[static_cast<std::size_t>(a)] > scores[static_cast<std::size_t>(b)]; });
    double precisionSum = 0;
    for (int r = 0; r < n; ++r) {
        if (!correct[static_cast<std::size_t>(g.ranked[static_cast<std::size_t>(r)])])
            continue;
        ++g.correct;
        if (g.firstCorrectRank == 0)
            g.firstCorrectRank = r + 1;
        precisionSum += static_cast<double>(g.correct) / static_cast<double>(r + 1);
    }
    if (g.correct > 0) {
        g.averagePrecision = precisionSum / static_cast<double>(g.correct);
        g.reciprocalRank = 1.0 / static_cast<double>(g.firstCorrectRank);
        g.precisionAt1 = g.firstCorrectRank == 1 ? 1.0 : 0.0;
    }
    return g;
}

namespace {

// Ranks the groups formed by the pairs `indices` (corpus indices) and averages
// under the protocol; the shared body of evaluateRanking and its slice variant.
Result<RankingEval> rankIndices(const PairCorpus &corpus, const std::vector<double> &scores, const std::vector<int> &indices,
                                RankingProtocol protocol)
{
    if (corpus.task != kRankingTask)
        return makeError(corpus.source, "ranking metrics need a ranking corpus (this one is '" + corpus.task + "')");
    if (scores.size() != corpus.pairs.size())
        return makeError(corpus.source, std::to_string(scores.size()) + " scores for " + std::to_string(corpus.pairs.size()) + " pairs");
    RankingEval eval;
    eval.protocol = protocol;
    std::unordered_map<std::string, std::size_t> groupOf;
    std::vector<std::vector<int>> members;
    for (const int i : indices) {
        const std::size_t k = static_cast<std::size_t>(i);
        if (std::isnan(scores[k]))
            return makeError(corpus.source, "the score of pair " + std::to_string(i + 1) + " is NaN");
        const auto [it, inserted] = groupOf.emplace(corpus.pairs[k].group, members.size());
        if (inserted)
            members.emplace_back();
        members[it->second].push_back(i);
    }
    double sumAp = 0, sumRr = 0, sumP1 = 0;
    for (const auto &m : members) {
        std::vector<bool> correct;
        std::vector<double> groupScores;
        for (const int i : m) {
            correct.push_back(corpus.pairs[static_cast<std::size_t>(i)].label == "1");
            groupScores.push_back(scores[static_cast<std::size_t>(i)]);
        }
        GroupRanking g = rankGroup(correct, groupScores);
        g.group = corpus.pairs[static_cast<std::size_t>(m.front())].group;
        for (auto &r : g.ranked)
            r = m[static_cast<std::size_t>(r)];
        // (Under All, rankGroup's values are already 0 for a group without a
        // correct candidate and 1 for one with only correct ones.)
        g.used = protocol == RankingProtocol::All || (g.correct > 0 && g.correct < g.candidates);
        if (g.used) {
            ++eval.groupsUsed;
            sumAp += g.averagePrecision;
            sumRr += g.reciprocalRank;
            sumP1 += g.precisionAt1;
        } else if (g.correct == 0) {
            ++eval.droppedNoCorrect;
        } else {
            ++eval.droppedAllCorrect;
        }
        eval.groups.push_back(std::move(g));
    }
    if (eval.groupsUsed > 0) {
        const double n = static_cast<double>(eval.groupsUsed);
        eval.map = sumAp / n;
        eval.mrr = sumRr / n;
        eval.precisionAt1 = sumP1 / n;
    }
    return eval;
}

std::vector<int> allIndices(const PairCorpus &corpus)
{
    std::vector<int> out(corpus.pairs.size());
    std::iota(out.begin(), out.end(), 0);
    return out;
}

} // namespace

Result<RankingEval> evaluateRanking(const PairCorpus &corpus, const std::vector<double> &scores, RankingProtocol protocol)
{
    return rankIndices(corpus, scores, allIndices(corpus), protocol);
}

Result<RankingEval> evaluateRankingSlice(const PairCorpus &corpus, const std::vector<double> &scores, const PairSlice &slice,
                                         RankingProtocol protocol)
{
    for (const int i : slice.pairs)
        if (i < 0 || static_cast<std::size_t>(i) >= corpus.pairs.size())
            return Error{"slice '" + slice.name + "' names pair " + std::to_string(i + 1) + " of a corpus of " +
                         std::to_string(corpus.pairs.size())};
    return rankIndices(corpus, scores, slice.pairs, protocol);
}

// ----------------------------------------------------------- classification

Result<ClassificationEval> evaluateClassification(const std::vector<std::string> &labels, const std::vector<std::string> &gold,
                                                  const std::vector<std::string> &predicted)
{
    if (gold.size() != predicted.size())
        return Error{std::to_string(predicted.size()) + " predictions for " + std::to_string(gold.size()) + " gold labels"};
    ClassificationEval e;
    e.labels = labels;
    const std::size_t n = labels.size();
    std::unordered_map<std::string, std::size_t> index;
    for (std::size_t k = 0; k < n; ++k)
        index.emplace(labels[k], k);
    e.confusion.assign(n, std::vector<long>(n, 0));
    for (std::size_t i = 0; i < gold.size(); ++i) {
        const auto g = index.find(gold[i]), p = index.find(predicted[i]);
        if (g == index.end())
            return Error{"item " + std::to_string(i + 1) + ": gold label '" + gold[i] + "' is not in the label set"};
        if (p == index.end())
            return Error{"item " + std::to_string(i + 1) + ": predicted label '" + predicted[i] + "' is not in the label set"};
        ++e.confusion[g->second][p->second];
    }
    e.total = static_cast<long>(gold.size());
    double f1Sum = 0;
    int f1Count = 0;
    for (std::size_t k = 0; k < n; ++k) {
        LabelMetrics m;
        m.label = labels[k];
        m.correct = e.confusion[k][k];
        for (std::size_t j = 0; j < n; ++j) {
            m.gold += e.confusion[k][j];
            m.predicted += e.confusion[j][k];
        }
        m.precision = m.predicted ? static_cast<double>(m.correct) / static_cast<double>(m.predicted) : 0.0;
        m.recall = m.gold ? static_cast<double>(m.correct) / static_cast<double>(m.gold) : 0.0;
        m.f1 = m.precision + m.recall > 0 ? 2 * m.precision * m.recall / (m.precision + m.recall) : 0.0;
        if (m.gold > 0 || m.predicted > 0) {
            f1Sum += m.f1;
            ++f1Count;
        }
        e.correct += m.correct;
        e.perLabel.push_back(std::move(m));
    }
    e.accuracy = e.total ? static_cast<double>(e.correct) / static_cast<double>(e.total) : 0.0;
    e.macroF1 = f1Count ? f1Sum / f1Count : 0.0;
    return e;
}

Result<ClassificationEval> evaluateClassification(const PairCorpus &corpus, const std::vector<std::string> &predicted)
{
    std::vector<std::string> gold;
    gold.reserve(corpus.pairs.size());
    for (const auto &p : corpus.pairs)
        gold.push_back(p.label);
    auto e = evaluateClassification(corpus.labels, gold, predicted);
    if (!e)
        return makeError(corpus.source, e.error());
    return e;
}

Result<ClassificationEval> evaluateClassificationSlice(const PairCorpus &corpus, const std::vector<std::string> &predicted,
                                                       const PairSlice &slice)
{
    if (predicted.size() != corpus.pairs.size())
        return makeError(corpus.source, std::to_string(predicted.size()) + " predictions for " + std::to_string(corpus.pairs.size()) + " pairs");
    for (const int i : slice.pairs)
        if (i < 0 || static_cast<std::size_t>(i) >= corpus.pairs.size())
            return Error{"slice '" + slice.name + "' names pair " + std::to_string(i + 1) + " of a corpus of " +
                         std::to_string(corpus.pairs.size())};
    return evaluateClassification(slicedCorpus(corpus, slice), slicedValues(predicted, slice));
}

// -------------------------------------------------------------------- words

namespace {

const std::unordered_set<std::string> &stopwords()
{
    static const std::unordered_set<std::string> words = {
        "a", "an", "the", "of", "in", "on", "at", "to", "for", "from", "by", "with", "about", "as", "into", "over", "after",
        "before", "during", "and", "or", "but", "if", "than", "then", "so", "not", "no", "nor", "is", "are", "was", "were",
        "be", "been", "being", "am", "do", "does", "did", "has", "have", "had", "having", "will", "would", "can", "could",
        "should", "may", "might", "shall", "must", "it", "its", "this", "that", "these", "those", "there", "here", "he", "she",
        "they", "them", "his", "her", "hers", "their", "theirs", "we", "us", "our", "you", "your", "i", "me", "my", "him",
        "what", "who", "whom", "whose", "when", "where", "why", "how", "which", "'s", "'re", "'m", "'ve", "'d", "'ll", "n't",
        "s"};
    return words;
}

std::vector<std::string> lowerWords(const Sentence &s)
{
    std::vector<std::string> out;
    out.reserve(s.tokens.size());
    for (const auto &t : s.tokens)
        out.push_back(toLowerAscii(t.text));
    return out;
}

// Index of the bin whose upper edge (inclusive) first holds `value`; the last bin
// is open.
std::size_t binOf(int value, const std::vector<int> &upperEdges)
{
    for (std::size_t k = 0; k < upperEdges.size(); ++k)
        if (value <= upperEdges[k])
            return k;
    return upperEdges.size();
}

std::vector<PairSlice> namedSlices(const std::vector<std::string> &names)
{
    std::vector<PairSlice> out;
    for (const auto &n : names)
        out.push_back(PairSlice{n, {}});
    return out;
}

bool containsIgnoringCase(const std::string &haystackLower, const std::string &needleLower)
{
    return haystackLower.find(needleLower) != std::string::npos;
}

} // namespace

bool isStopword(std::string_view word)
{
    return stopwords().count(std::string(word)) > 0;
}

bool isPunctuationWord(std::string_view word)
{
    for (std::size_t pos = 0; pos < word.size();) {
        int len = 1;
        const char32_t c = decodeUtf8(word, pos, len);
        pos += static_cast<std::size_t>(len);
        const bool asciiAlnum = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
        const bool letterLike = c >= 0xC0 && c != 0xFFFD && !(c >= 0x2000 && c <= 0x206F) && !(c >= 0x3000 && c <= 0x303F);
        if (asciiAlnum || letterLike)
            return false;
    }
    return true;
}

std::string questionWord(const Sentence &question)
{
    const std::size_t n = std::min<std::size_t>(question.tokens.size(), kQuestionWordWindow);
    for (std::size_t i = 0; i < n; ++i) {
        const std::string w = toLowerAscii(question.tokens[i].text);
        if (w == "who" || w == "whom" || w == "whose")
            return "who";
        for (const char *q : {"what", "when", "where", "why", "how", "which"})
            if (w == q)
                return q;
    }
    return "other";
}

std::vector<std::string> contentWords(const Sentence &sentence)
{
    std::vector<std::string> out;
    for (auto &w : lowerWords(sentence))
        if (!isPunctuationWord(w) && !isStopword(w))
            out.push_back(std::move(w));
    return out;
}

double lexicalOverlap(const Sentence &question, const Sentence &candidate)
{
    const std::vector<std::string> q = contentWords(question);
    const std::unordered_set<std::string> distinct(q.begin(), q.end());
    if (distinct.empty())
        return -1;
    const std::vector<std::string> c = lowerWords(candidate);
    const std::unordered_set<std::string> have(c.begin(), c.end());
    std::size_t found = 0;
    for (const auto &w : distinct)
        found += have.count(w);
    return static_cast<double>(found) / static_cast<double>(distinct.size());
}

// ------------------------------------------------------------------- slices

bool sliceSplitsQuestions(SliceKind kind)
{
    return kind == SliceKind::CandidateLength || kind == SliceKind::Overlap || kind == SliceKind::Text;
}

std::string sliceProtocolNote(SliceKind kind, int questionSlices, int questions)
{
    if (!sliceSplitsQuestions(kind))
        return {};
    return "each question is ranked among its candidates in the slice only, and counts only in the slices where it has "
           "a correct and a wrong candidate (" + std::to_string(questionSlices) + " question-slices here, of " +
           std::to_string(questions) + " questions in all): fewer candidates make the ranking easier, so these figures "
           "run above the whole set's and compare slices with each other, not with 'all'";
}

std::string sliceKindName(SliceKind kind)
{
    switch (kind) {
    case SliceKind::QuestionWord: return "question-word";
    case SliceKind::QuestionLength: return "question-length";
    case SliceKind::CandidateLength: return "candidate-length";
    case SliceKind::Overlap: return "overlap";
    case SliceKind::TreeDepth: return "tree-depth";
    case SliceKind::Text: return "text";
    }
    return "text";
}

Result<SliceKind> parseSliceKind(const std::string &name)
{
    for (SliceKind k : {SliceKind::QuestionWord, SliceKind::QuestionLength, SliceKind::CandidateLength, SliceKind::Overlap,
                        SliceKind::TreeDepth, SliceKind::Text})
        if (sliceKindName(k) == name)
            return k;
    return Error{"unknown slice '" + name + "' (known: question-word, question-length, candidate-length, overlap, tree-depth, text)"};
}

std::vector<PairSlice> slicePairs(const PairCorpus &corpus, SliceKind kind, const std::string &text)
{
    std::vector<PairSlice> out;
    const int n = static_cast<int>(corpus.pairs.size());
    auto pair = [&](int i) -> const SentencePair & { return corpus.pairs[static_cast<std::size_t>(i)]; };
    switch (kind) {
    case SliceKind::QuestionWord: {
        const std::vector<std::string> names = {"what", "who", "when", "where", "why", "how", "which", "other"};
        out = namedSlices(names);
        for (int i = 0; i < n; ++i) {
            const std::string w = questionWord(pair(i).first);
            out[static_cast<std::size_t>(std::find(names.begin(), names.end(), w) - names.begin())].pairs.push_back(i);
        }
        break;
    }
    case SliceKind::QuestionLength:
        out = namedSlices({"<=5", "6-10", "11-15", "16+"});
        for (int i = 0; i < n; ++i)
            out[binOf(static_cast<int>(pair(i).first.tokens.size()), {5, 10, 15})].pairs.push_back(i);
        break;
    case SliceKind::CandidateLength:
        out = namedSlices({"<=10", "11-20", "21-30", "31-40", "41+"});
        for (int i = 0; i < n; ++i)
            out[binOf(static_cast<int>(pair(i).second.tokens.size()), {10, 20, 30, 40})].pairs.push_back(i);
        break;
    case SliceKind::Overlap:
        out = namedSlices({"0", "(0,0.25]", "(0.25,0.5]", "(0.5,0.75]", "(0.75,1]", "no content words"});
        for (int i = 0; i < n; ++i) {
            const double f = lexicalOverlap(pair(i).first, pair(i).second);
            // Quarters are exact in binary and division rounds correctly, so a
            // fraction found/total equal to k/4 lands on the edge exactly.
            const std::size_t bin = f < 0 ? 5 : f == 0 ? 0 : f * 4 <= 1 ? 1 : f * 4 <= 2 ? 2 : f * 4 <= 3 ? 3 : 4;
            out[bin].pairs.push_back(i);
        }
        break;
    case SliceKind::TreeDepth:
        out = namedSlices({"0-2", "3-4", "5-6", "7+", "unknown"});
        for (int i = 0; i < n; ++i) {
            const auto &tree = pair(i).first.dependency;
            const bool known = tree && !tree->heads.empty() && tree->validate().ok();
            out[known ? binOf(tree->depth(), {2, 4, 6}) : 4].pairs.push_back(i);
        }
        break;
    case SliceKind::Text: {
        const std::string needle = toLowerAscii(text);
        out = namedSlices({"text: '" + text + "'"});
        for (int i = 0; i < n; ++i)
            if (containsIgnoringCase(toLowerAscii(pair(i).first.text), needle) ||
                containsIgnoringCase(toLowerAscii(pair(i).second.text), needle))
                out[0].pairs.push_back(i);
        break;
    }
    }
    return out;
}

PairCorpus slicedCorpus(const PairCorpus &corpus, const PairSlice &slice)
{
    PairCorpus c;
    c.task = corpus.task;
    c.labels = corpus.labels;
    c.source = corpus.source;
    c.pairs = slicedValues(corpus.pairs, slice);
    return c;
}

// ------------------------------------------------------------ IDF baseline

double IdfTable::of(const std::string &word) const
{
    const auto it = idf.find(word);
    if (it != idf.end())
        return it->second;
    return documents > 0 ? std::log(static_cast<double>(documents)) : 0.0;
}

IdfTable buildIdf(const std::vector<std::vector<std::string>> &documents)
{
    IdfTable t;
    t.documents = static_cast<long>(documents.size());
    std::unordered_map<std::string, long> df;
    for (const auto &doc : documents) {
        std::unordered_set<std::string> seen;
        for (const auto &w : doc) {
            std::string lower = toLowerAscii(w);
            if (seen.insert(lower).second)
                ++df[std::move(lower)];
        }
    }
    for (const auto &[w, n] : df)
        t.idf.emplace(w, std::log(static_cast<double>(t.documents) / static_cast<double>(n)));
    return t;
}

IdfTable buildIdf(const std::vector<Sentence> &documents)
{
    std::vector<std::vector<std::string>> words;
    words.reserve(documents.size());
    for (const auto &s : documents)
        words.push_back(s.words());
    return buildIdf(words);
}

IdfTable candidateIdf(const PairCorpus &corpus)
{
    std::vector<std::vector<std::string>> words;
    words.reserve(corpus.pairs.size());
    for (const auto &p : corpus.pairs)
        words.push_back(p.second.words());
    return buildIdf(words);
}

std::vector<double> idfOverlapScores(const PairCorpus &corpus, const IdfTable &idf)
{
    std::vector<double> scores;
    scores.reserve(corpus.pairs.size());
    for (const auto &p : corpus.pairs) {
        const std::vector<std::string> q = contentWords(p.first);
        const std::vector<std::string> c = lowerWords(p.second);
        const std::unordered_set<std::string> have(c.begin(), c.end());
        std::unordered_set<std::string> counted;
        double score = 0;
        for (const auto &w : q)
            if (have.count(w) && counted.insert(w).second)
                score += idf.of(w);
        scores.push_back(score);
    }
    return scores;
}

} // namespace treelens
