#include "core/eval/inductioneval.h"
#include "core/encoders/headablation.h"

#include <algorithm>
#include <cstdio>
#include <set>

#include <nlohmann/json.hpp>

#include "core/base/fileio.h"
#include "core/data/induction.h"
#include "core/formats/ptb.h"

namespace treelens {

bool isInductionPunctuationTag(const std::string &tag)
{
    static const std::set<std::string> tags = {".", ",", ":", "-LRB-", "-RRB-", "''", "``"};
    return tags.count(tag) > 0;
}

namespace {

bool isPunctuationTag(const std::string &tag) { return isInductionPunctuationTag(tag); }

double f1(double p, double r) { return p + r > 0 ? 2 * p * r / (p + r) : 0.0; }

} // namespace

Result<std::vector<InductionGold>> readInductionGold(const std::string &text, const std::string &source)
{
    PtbReadOptions opt;
    opt.stripTraces = true;
    opt.stripFunctionTags = true;
    auto trees = readPtb(text, source, opt);
    if (!trees)
        return trees.error();
    std::vector<InductionGold> out;
    for (const auto &tree : *trees)
        out.push_back(inductionGold(tree));
    return out;
}

std::vector<int> inductionKeptWords(const ConstituencyTree &tree)
{
    const auto tags = tree.tags();
    std::vector<int> kept;
    for (std::size_t i = 0; i < tags.size(); ++i)
        if (!isPunctuationTag(tags[i]))
            kept.push_back(static_cast<int>(i));
    return kept;
}

namespace {

/// Spans over all `words` words → informative spans over the kept ones (sorted, unique).
std::vector<std::pair<int, int>> keptSpans(const std::vector<int> &kept, std::size_t words,
                                           const std::vector<std::pair<int, int>> &spans)
{
    // Old word index -> number of kept words before it.
    std::vector<int> newIndex(words + 1, 0);
    for (std::size_t i = 0, k = 0; i <= words; ++i) {
        while (k < kept.size() && static_cast<std::size_t>(kept[k]) < i)
            ++k;
        newIndex[i] = static_cast<int>(k);
    }
    const int n = static_cast<int>(kept.size());
    std::set<std::pair<int, int>> out;
    for (const auto &[s, e] : spans) {
        if (s < 0 || e > static_cast<int>(words) || s >= e)
            continue;
        const int a = newIndex[static_cast<std::size_t>(s)];
        const int b = newIndex[static_cast<std::size_t>(e)];
        if (b - a >= 2 && !(a == 0 && b == n))
            out.insert({a, b});
    }
    return {out.begin(), out.end()};
}

} // namespace

InductionGold inductionGold(const ConstituencyTree &tree)
{
    const auto words = tree.words();
    InductionGold g;
    const auto kept = inductionKeptWords(tree);
    for (int i : kept)
        g.words.push_back(ptbUnescape(words[static_cast<std::size_t>(i)]));
    std::vector<std::pair<int, int>> spans;
    for (const auto &s : tree.spans(true))
        spans.emplace_back(s.start, s.end);
    g.brackets = keptSpans(kept, words.size(), spans);
    return g;
}

PunctuationFreeParse removePunctuation(const ConstituencyTree &tree, const std::vector<std::pair<int, int>> &brackets)
{
    PunctuationFreeParse p;
    p.words = inductionKeptWords(tree);
    p.brackets = keptSpans(p.words, static_cast<std::size_t>(tree.wordCount()), brackets);
    return p;
}

Result<PunctuationFreeParse> induceWithoutPunctuation(Encoder &encoder, const ConstituencyTree &tree, const Analysis &whole,
                                                      const RunControl *control)
{
    if (static_cast<std::size_t>(tree.wordCount()) != whole.words.size())
        return Error{"the constituency tree has " + std::to_string(tree.wordCount()) + " words, the analysis "
                     + std::to_string(whole.words.size())};
    PunctuationFreeParse p = removePunctuation(tree, whole.inducedBrackets);
    p.rerun = true;
    if (p.words.size() == whole.words.size() || p.words.size() < 2) {
        // Nothing to take out (the same input gives the same brackets), or nothing to bracket.
        if (p.words.size() < 2)
            p.brackets.clear();
        return p;
    }
    std::vector<std::string> words;
    for (int i : p.words)
        words.push_back(whole.words[static_cast<std::size_t>(i)]);
    AnalyzeOptions options;
    options.attention = false;
    options.induction = whole.induction;
    for (const auto &[layer, head] : whole.ablated) // the heads `whole` was made without
        options.ablate.push_back(HeadAblation{layer, head});
    auto r = encoder.analyze({EncoderInput{words, std::nullopt, std::nullopt, {}, {}, {}}}, options, control);
    if (!r)
        return r.error();
    p.brackets = r->front().inducedBrackets;
    return p;
}

InductionScore scoreInducedSentence(const ConstituencyTree &tree, const PunctuationFreeParse &parse)
{
    const InductionGold g = inductionGold(tree);
    return scoreBrackets({g.brackets}, {parse.brackets}, {static_cast<int>(g.words.size())});
}

InductionScore scoreBrackets(const std::vector<std::vector<std::pair<int, int>>> &gold,
                             const std::vector<std::vector<std::pair<int, int>>> &predicted,
                             const std::vector<int> &lengths)
{
    InductionScore s;
    double matched = 0, goldN = 0, predN = 0, sentSum = 0;
    for (std::size_t i = 0; i < gold.size(); ++i) {
        const int n = lengths[i];
        std::set<std::pair<int, int>> g, p;
        for (const auto &b : gold[i])
            if (b.second - b.first >= 2 && !(b.first == 0 && b.second == n))
                g.insert(b);
        for (const auto &b : predicted[i])
            if (b.second - b.first >= 2 && !(b.first == 0 && b.second == n))
                p.insert(b);
        double m = 0;
        for (const auto &b : p)
            m += g.count(b);
        matched += m;
        goldN += static_cast<double>(g.size());
        predN += static_cast<double>(p.size());
        double sf = 1.0;
        if (!(g.empty() && p.empty())) {
            const double pr = p.empty() ? 0 : m / static_cast<double>(p.size());
            const double rc = g.empty() ? 0 : m / static_cast<double>(g.size());
            sf = f1(pr, rc);
        }
        sentSum += sf;
        s.perSentence.push_back(100.0 * sf);
    }
    s.sentences = gold.size();
    s.precision = predN > 0 ? 100.0 * matched / predN : 0.0;
    s.recall = goldN > 0 ? 100.0 * matched / goldN : 0.0;
    s.corpusF1 = f1(s.precision, s.recall);
    s.sentenceF1 = gold.empty() ? 0.0 : 100.0 * sentSum / static_cast<double>(gold.size());
    return s;
}

Result<std::vector<InductionGold>> readInductionGoldFiles(const std::vector<std::string> &goldFiles, int maxWords,
                                                          std::size_t *skipped)
{
    std::vector<InductionGold> gold;
    for (const auto &f : goldFiles) {
        auto text = readFile(f);
        if (!text)
            return text.error();
        auto g = readInductionGold(*text, f);
        if (!g)
            return g.error();
        for (auto &x : *g) {
            if (x.words.size() < 2 || (maxWords > 0 && static_cast<int>(x.words.size()) > maxWords)) {
                if (skipped)
                    ++*skipped;
                continue;
            }
            gold.push_back(std::move(x));
        }
    }
    if (gold.empty())
        return makeError(goldFiles.empty() ? "eval-induction" : goldFiles.front(), "no gold sentences with 2 or more words");
    return gold;
}

Result<InductionReport> evaluateInduction(Encoder &encoder, const std::vector<std::string> &goldFiles,
                                          const InductionConfig &config, const RunControl *control)
{
    if (auto s = config.validate(encoder.info().layers); !s)
        return s.error();
    std::size_t skipped = 0;
    auto gold = readInductionGoldFiles(goldFiles, encoder.info().maxTokens > 0 ? encoder.info().maxTokens - 1 : 0, &skipped);
    if (!gold)
        return gold.error();
    auto report = evaluateInductionGold(&encoder, *gold, config, control);
    if (!report)
        return report;
    report->files = goldFiles;
    report->skipped = skipped;
    return report;
}

Result<std::vector<std::vector<std::vector<float>>>> inductionWordLinks(Encoder &encoder, const std::vector<InductionGold> &gold,
                                                                        const InductionConfig &config, const RunControl *control,
                                                                        std::size_t block, std::size_t firstIndex)
{
    AnalyzeOptions ao;
    ao.attention = false;
    ao.induction = config;
    block = std::max<std::size_t>(1, block);
    std::vector<std::vector<std::vector<float>>> wordLinks; // [sentence][layer][gap]
    for (std::size_t start = 0; start < gold.size();) {
        // Up to the next multiple of `block` in the whole gold.
        const std::size_t end = std::min(gold.size(), ((firstIndex + start) / block + 1) * block - firstIndex);
        std::vector<EncoderInput> inputs;
        for (std::size_t i = start; i < end; ++i)
            inputs.push_back(EncoderInput{gold[i].words, {}, {}, {}, {}, {}});
        // The block's progress as the whole list's.
        RunControl blockControl;
        if (control) {
            blockControl.cancelled = control->cancelled;
            if (control->progress)
                blockControl.progress = [control, start, total = gold.size()](std::size_t done, std::size_t, const std::string &stage) {
                    control->progress(start + done, total, stage);
                };
        }
        auto r = encoder.analyze(inputs, ao, control ? &blockControl : nullptr);
        if (!r)
            return r.error();
        for (const auto &a : *r) {
            std::vector<std::vector<float>> links;
            for (const auto &l : a.linkProbs) {
                const int first = a.wordToken.empty() ? 0 : a.wordToken.front();
                links.emplace_back(l.begin() + first, l.end());
            }
            wordLinks.push_back(std::move(links));
        }
        start = end;
    }
    return wordLinks;
}

Result<InductionTuning> tuneInduction(Encoder &encoder, const std::vector<InductionGold> &gold, const InductionConfig &start,
                                      const RunControl *control)
{
    const int layers = encoder.info().layers;
    if (auto s = start.validate(layers); !s)
        return s.error();
    if (gold.empty())
        return Error{"no gold sentences with 2 or more words"};
    auto links = inductionWordLinks(encoder, gold, start, control);
    if (!links)
        return links.error();
    std::vector<std::vector<std::pair<int, int>>> g;
    std::vector<int> lengths;
    for (const auto &x : gold) {
        g.push_back(x.brackets);
        lengths.push_back(static_cast<int>(x.words.size()));
    }
    auto score = [&](const InductionConfig &c) {
        std::vector<std::vector<std::pair<int, int>>> p;
        for (const auto &l : *links)
            p.push_back(induceBrackets(l, c));
        return scoreBrackets(g, p, lengths);
    };
    InductionTuning t;
    t.sentences = gold.size();
    t.startScore = score(start);
    t.best = start;
    t.bestScore = t.startScore;
    // Top layer first, then downwards: among equal scores the higher start wins.
    for (int sl = layers - 1; sl >= 0; --sl)
        for (int ml = std::min(sl, layers - 1); ml >= 0; --ml)
            for (int k = 10; k <= 19; ++k) // thresholds 0.50 .. 0.95
                for (int drop : {2, 0}) { // descent rule 0.1 below the threshold, or equal to it
                    if (control && control->isCancelled())
                        return cancelledError();
                    InductionConfig c = start;
                    c.startLayer = sl;
                    c.minLayer = ml;
                    c.threshold = k / 20.0;
                    c.descend = (k - drop) / 20.0;
                    const InductionScore s = score(c);
                    t.tried.push_back({c, s.sentenceF1, s.corpusF1});
                    if (s.sentenceF1 > t.bestScore.sentenceF1 + 1e-9) {
                        t.best = c;
                        t.bestScore = s;
                    }
                }
    return t;
}

Result<InductionReport> evaluateInductionGold(Encoder *encoder, const std::vector<InductionGold> &gold,
                                              const InductionConfig &config, const RunControl *control,
                                              std::vector<std::vector<std::pair<int, int>>> *predicted)
{
    const int layers = encoder ? encoder->info().layers : 0;
    if (encoder)
        if (auto s = config.validate(layers); !s)
            return s.error();
    if (gold.empty())
        return Error{"no gold sentences with 2 or more words"};
    std::vector<std::vector<std::vector<float>>> wordLinks; // [sentence][layer][gap]
    if (encoder) {
        auto links = inductionWordLinks(*encoder, gold, config, control);
        if (!links)
            return links.error();
        wordLinks = std::move(*links);
    }
    return evaluateInductionLinks(wordLinks, layers, gold, config, predicted);
}

Result<InductionReport> evaluateInductionLinks(const std::vector<std::vector<std::vector<float>>> &wordLinks, int layers,
                                               const std::vector<InductionGold> &gold, const InductionConfig &config,
                                               std::vector<std::vector<std::pair<int, int>>> *predicted)
{
    const bool model = layers > 0;
    if (gold.empty())
        return Error{"no gold sentences with 2 or more words"};
    if (model && wordLinks.size() != gold.size())
        return Error{std::to_string(wordLinks.size()) + " sentences' link probabilities for " + std::to_string(gold.size()) +
                     " gold sentences"};
    for (std::size_t i = 0; model && i < wordLinks.size(); ++i)
        if (static_cast<int>(wordLinks[i].size()) != layers)
            return Error{"sentence " + std::to_string(i + 1) + " has link probabilities of " + std::to_string(wordLinks[i].size()) +
                         " layers, the model " + std::to_string(layers)};
    InductionReport report;
    report.config = config;
    report.layers = layers;

    auto evaluate = [&](const std::function<std::vector<std::pair<int, int>>(std::size_t)> &produce, bool short10) {
        std::vector<std::vector<std::pair<int, int>>> g, p;
        std::vector<int> lengths;
        for (std::size_t i = 0; i < gold.size(); ++i) {
            if (short10 && gold[i].words.size() > 10)
                continue;
            g.push_back(gold[i].brackets);
            p.push_back(produce(i));
            lengths.push_back(static_cast<int>(gold[i].words.size()));
        }
        return scoreBrackets(g, p, lengths);
    };
    auto modelAt = [&](const InductionConfig &c) {
        return [&, c](std::size_t i) { return induceBrackets(wordLinks[i], c); };
    };
    auto n = [&](std::size_t i) { return static_cast<int>(gold[i].words.size()); };
    for (bool short10 : {false, true}) {
        InductionSplit &sp = short10 ? report.upTo10 : report.all;
        if (model)
            sp.model = evaluate(modelAt(config), short10);
        sp.left = evaluate([&](std::size_t i) { return leftBranchingBrackets(n(i)); }, short10);
        sp.right = evaluate([&](std::size_t i) { return rightBranchingBrackets(n(i)); }, short10);
        sp.random = evaluate([&](std::size_t i) { return randomBinaryBrackets(n(i), static_cast<unsigned>(i) * 2654435761u + 1); }, short10);
    }
    if (!model)
        return report;
    if (predicted) {
        predicted->clear();
        for (std::size_t i = 0; i < gold.size(); ++i)
            predicted->push_back(induceBrackets(wordLinks[i], config));
    }
    // Every start layer; below the configured minimum layer the minimum moves
    // down with it (the parse then uses that single layer).
    for (int start = 0; start < layers; ++start) {
        InductionConfig c = config;
        c.startLayer = start;
        c.minLayer = std::min(config.minLayer, start);
        InductionReport::StartLayer s;
        s.layer = start;
        s.all = evaluate(modelAt(c), false);
        s.upTo10 = evaluate(modelAt(c), true);
        report.byStartLayer.push_back(s);
    }
    return report;
}

namespace {
nlohmann::json scoreJson(const InductionScore &s)
{
    auto r = [](double v) { return static_cast<double>(static_cast<long long>(v * 100 + 0.5)) / 100; };
    return {{"sentences", s.sentences}, {"sentence_f1", r(s.sentenceF1)}, {"corpus_f1", r(s.corpusF1)},
            {"precision", r(s.precision)}, {"recall", r(s.recall)}};
}
nlohmann::json splitJson(const InductionSplit &s)
{
    return {{"model", scoreJson(s.model)}, {"left_branching", scoreJson(s.left)},
            {"right_branching", scoreJson(s.right)}, {"random", scoreJson(s.random)}};
}
} // namespace

std::string inductionReportJson(const InductionReport &r)
{
    nlohmann::json j;
    j["files"] = r.files;
    j["layer_numbering"] = "1-based";
    if (r.layers > 0)
        j["config"] = nlohmann::json::parse(r.config.toNumberedJson(r.layers));
    j["all"] = splitJson(r.all);
    j["length_10"] = splitJson(r.upTo10);
    j["skipped"] = r.skipped;
    nlohmann::json layers = nlohmann::json::array();
    for (const auto &s : r.byStartLayer)
        layers.push_back({{"start_layer", s.layer + 1}, {"all", scoreJson(s.all)}, {"length_10", scoreJson(s.upTo10)}});
    j["by_start_layer"] = layers;
    return j.dump();
}

std::string inductionReportText(const InductionReport &r)
{
    std::string out;
    char buf[256];
    std::snprintf(buf, sizeof buf, "%-18s %12s %12s %12s %12s\n", "", "F1 (sent)", "F1 (corpus)", "F1<=10 sent", "F1<=10 corp");
    out += buf;
    auto row = [&](const char *name, const InductionScore &a, const InductionScore &b) {
        std::snprintf(buf, sizeof buf, "%-18s %12.2f %12.2f %12.2f %12.2f\n", name, a.sentenceF1, a.corpusF1, b.sentenceF1, b.corpusF1);
        out += buf;
    };
    if (r.all.model.sentences > 0)
        row("model", r.all.model, r.upTo10.model);
    row("left-branching", r.all.left, r.upTo10.left);
    row("right-branching", r.all.right, r.upTo10.right);
    row("random binary", r.all.random, r.upTo10.random);
    std::snprintf(buf, sizeof buf, "sentences: %zu (%zu of at most 10 words), skipped %zu\n", r.all.left.sentences,
                  r.upTo10.left.sentences, r.skipped);
    out += buf;
    if (r.layers > 0)
        out += "model: " + r.config.text(r.layers) + "\n";
    if (!r.byStartLayer.empty())
        out += "start layer (numbered from 1):\n";
    for (const auto &s : r.byStartLayer)
        row(("  layer " + std::to_string(s.layer + 1)).c_str(), s.all, s.upTo10);
    return out;
}

} // namespace treelens
