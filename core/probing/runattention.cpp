// runattention: stage 5 of a probing run, attention-tree agreement and
// unsupervised parsing; see runattention.h.
#include "core/probing/runattention.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "core/encoders/encoder.h"
#include "core/probing/runwhere.h"

namespace treelens {

namespace {

// ---------------------------------------------------------------------------
// The sentences a metric can score

/// The sentences (and their analyses) a metric can score; `excluded` counts the others.
struct Subset {
    std::vector<Sentence> sentences;
    std::vector<Analysis> analyses;
    std::map<std::string, long> excluded;
    bool all = true; ///< every sentence of the corpus: use the corpus's vectors

    const std::vector<Sentence> &sentencesOf(const AttentionCorpus &c) const { return all ? c.sentences : sentences; }
    const std::vector<Analysis> &analysesOf(const AttentionCorpus &c) const { return all ? c.analyses : analyses; }
};

/// `keep` returns "" for a sentence the metric scores, else the reason it cannot.
template <class Keep>
Subset subset(const AttentionCorpus &c, Keep keep)
{
    Subset s;
    std::vector<char> ok(c.sentences.size(), 1);
    for (std::size_t i = 0; i < c.sentences.size(); ++i) {
        const std::string why = keep(c.sentences[i]);
        if (!why.empty()) {
            ok[i] = 0;
            s.excluded[why] += 1;
            s.all = false;
        }
    }
    if (!s.all)
        for (std::size_t i = 0; i < c.sentences.size(); ++i)
            if (ok[i]) {
                s.sentences.push_back(c.sentences[i]);
                s.analyses.push_back(c.analyses[i]);
            }
    return s;
}

std::string dependencyProblem(const Sentence &s)
{
    if (!s.dependency)
        return "no-dependency-tree";
    if (s.dependency->size() != s.tokens.size() || !s.dependency->validate())
        return "invalid-dependency-tree";
    return {};
}

std::string spanProblem(const Sentence &s, const std::string &tree)
{
    if (tree == "dependency")
        return dependencyProblem(s);
    if (!s.constituency)
        return "no-constituency-tree";
    if (s.constituency->wordCount() != static_cast<int>(s.tokens.size()))
        return "constituency-word-count-mismatch";
    return {};
}

std::vector<std::string> idsOf(const std::vector<Sentence> &sentences)
{
    std::vector<std::string> ids;
    ids.reserve(sentences.size());
    for (const auto &s : sentences)
        ids.push_back(s.id);
    return ids;
}

/// Ids of the first sentences of a worst-first list (what a viewer lists for a cell).
std::vector<std::string> worstIds(const std::vector<int> &order, const std::vector<Sentence> &sentences,
                                  std::size_t count = 5)
{
    std::vector<std::string> ids;
    for (std::size_t k = 0; k < order.size() && k < count; ++k)
        ids.push_back(sentences[static_cast<std::size_t>(order[k])].id);
    return ids;
}

/// Best cell of a grid: highest value, ties to the lower layer then head.
BestCell bestOf(const LayerHeadGrid &g)
{
    BestCell b;
    for (int l = 0; l < g.layers; ++l)
        for (int h = 0; h < g.heads; ++h)
            if (std::isfinite(g.at(l, h)) && (b.layer < 0 || g.at(l, h) > b.accuracy)) {
                b.layer = l;
                b.head = h;
                b.accuracy = g.at(l, h);
            }
    return b;
}

// ---------------------------------------------------------------------------
// The four grids

/// What the four tasks share: the corpus, the options, the words for the report.
struct AttentionJob {
    const AttentionCorpus &corpus;
    const ProbeTrees &trees;
    AttentionTreeOptions options;
    std::string which; ///< which attention, in words

    AttentionTaskSummary summary(const Subset &sub, std::size_t scored) const
    {
        AttentionTaskSummary s;
        s.scope = corpus.scope;
        s.attention = which;
        s.sentences = scored;
        s.excluded = sub.excluded;
        if (corpus.emptySkipped > 0)
            s.excluded["empty-sentence"] = corpus.emptySkipped;
        return s;
    }
};

/// The sentences one task scores: with a valid dependency tree, or (`spans`) with
/// the tree of the run's constituents; and the task's summary so far.
struct Scored {
    Subset subset;
    AttentionTaskSummary summary;
    const std::vector<Sentence> &sentences(const AttentionJob &job) const { return subset.sentencesOf(job.corpus); }
    const std::vector<Analysis> &analyses(const AttentionJob &job) const { return subset.analysesOf(job.corpus); }
};

Result<Scored> scored(const AttentionJob &job, bool spans)
{
    const std::string &tree = job.trees.tree;
    Scored s;
    s.subset = spans ? subset(job.corpus, [&](const Sentence &x) { return spanProblem(x, tree); })
                     : subset(job.corpus, dependencyProblem);
    const std::size_t n = s.sentences(job).size();
    if (n == 0)
        return Error{spans ? "no sentence with a " + tree + " tree" : std::string("no sentence with a valid dependency tree")};
    s.summary = job.summary(s.subset, n);
    if (spans) {
        s.summary.tree = tree;
        s.summary.trees = tree == "dependency" ? job.trees.dependencyText() : job.trees.constituencyText();
    } else {
        s.summary.trees = job.trees.dependencyText();
    }
    return s;
}

/// One grid task: the sentences it can score, its report (`compute`), what
/// `summarise` adds to its summary (the best head and its worst sentences), all
/// stored under `name` and in `slot`.
template <class Report, class Summarise>
Status gridTask(const AttentionJob &job, const std::string &name, bool spans,
                Result<Report> (*compute)(const std::vector<Sentence> &, const std::vector<Analysis> &,
                                          const AttentionTreeOptions &),
                std::optional<Report> ProbeRunAttention::*slot, Summarise summarise, ProbeRunAttention &out)
{
    auto s = scored(job, spans);
    if (!s)
        return s.error();
    const auto &S = s->sentences(job);
    auto rep = compute(S, s->analyses(job), job.options);
    if (!rep)
        return rep.error();
    summarise(*rep, S, s->summary);
    out.*slot = std::move(*rep);
    out.sentenceIds[name] = idsOf(S);
    out.summaries[name] = std::move(s->summary);
    return {};
}

/// The best head of `grid` and the ids of its five worst sentences.
template <class Report>
void bestHead(const Report &rep, const LayerHeadGrid &grid, const std::vector<Sentence> &S, AttentionTaskSummary &s)
{
    s.best = bestOf(grid);
    if (s.best.layer >= 0)
        s.worstSentences = worstIds(sentencesForCell(rep, s.best.layer, s.best.head), S);
}

Status gridTask(const AttentionJob &job, const std::string &name, ProbeRunAttention &out)
{
    using S = std::vector<Sentence>;
    if (name == "head-accuracy")
        return gridTask(job, name, false, &headAccuracy, &ProbeRunAttention::headAccuracy,
                        [](const HeadAccuracyReport &rep, const S &sentences, AttentionTaskSummary &s) {
                            const auto *all = rep.find("all");
                            if (all && all->bestDepToHead.layer >= 0)
                                s.worstSentences = worstIds(
                                    sentencesForCell(rep, all->bestDepToHead.layer, all->bestDepToHead.head), sentences);
                        },
                        out);
    if (name == "attention-mst")
        return gridTask(job, name, false, &attentionMstUuas, &ProbeRunAttention::attentionMst,
                        [](const UuasReport &rep, const S &sentences, AttentionTaskSummary &s) {
                            bestHead(rep, rep.uuas, sentences, s);
                        },
                        out);
    if (name == "constituent-mass")
        return gridTask(job, name, true, &constituentMass, &ProbeRunAttention::constituentMass,
                        [](const ConstituentMassReport &rep, const S &sentences, AttentionTaskSummary &s) {
                            bestHead(rep, rep.difference, sentences, s);
                        },
                        out);
    return gridTask(job, name, true, &linkProbabilityStats, &ProbeRunAttention::linkProbs,
                    [](const LinkProbabilityReport &, const S &, AttentionTaskSummary &) {}, out);
}

// ---------------------------------------------------------------------------
// Unsupervised parsing

/// The gold trees the induction scores, with the ids and words of their sentences.
void inductionGoldOf(const std::vector<const Sentence *> &scope, int maxWords, ProbeRunInduction &out,
                     std::vector<InductionGold> &gold)
{
    for (const Sentence *s : scope) {
        if (!s->constituency || s->constituency->wordCount() != static_cast<int>(s->tokens.size())) {
            out.excluded["no-constituency-tree"] += 1;
            continue;
        }
        InductionGold g = inductionGold(*s->constituency);
        if (g.words.size() < 2) {
            out.excluded["fewer-than-2-words-without-punctuation"] += 1;
            continue;
        }
        if (static_cast<int>(g.words.size()) > maxWords) {
            out.excluded["longer-than-the-model"] += 1;
            continue;
        }
        out.sentenceIds.push_back(s->id);
        out.words.push_back(g.words);
        out.gold.push_back(g.brackets);
        gold.push_back(std::move(g));
    }
}

/// The five worst sentences at the configured start layer (lowest F1; ties in corpus order).
std::vector<std::pair<std::string, double>> worstInduced(const ProbeRunInduction &r)
{
    const auto &per = r.report.all.model.perSentence;
    std::vector<std::size_t> order(per.size());
    for (std::size_t i = 0; i < order.size(); ++i)
        order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return per[a] < per[b]; });
    std::vector<std::pair<std::string, double>> worst;
    for (std::size_t k = 0; k < std::min<std::size_t>(5, order.size()); ++k)
        worst.emplace_back(r.sentenceIds[order[k]], per[order[k]]);
    return worst;
}

} // namespace

Result<AttentionCorpus> analyzeAttentionCorpus(const ProbeRunContext &ctx, Encoder &encoder, const ProbeData &data,
                                               const ProbeRunConfig &config, bool keepLinks)
{
    AttentionCorpus out;
    auto add = [&](const Sentence &s) {
        if (s.tokens.empty())
            ++out.emptySkipped;
        else
            out.sentences.push_back(s);
    };
    if (config.attentionOn == "test") {
        for (const Sentence *s : data.testSentences())
            add(*s);
        out.scope = "test split";
    } else {
        data.forEach(add);
        out.scope = data.oneCorpus ? "whole corpus (all splits)" : "whole corpus (train, dev and test)";
    }
    const EncoderInfo &info = encoder.info();
    AnalyzeOptions ao;
    ao.attention = true;
    ao.layerStates = false;
    RunControl rc = ctx.progressControl("attention");
    const std::size_t chunk = 256;
    for (std::size_t b = 0; b < out.sentences.size(); b += chunk) {
        if (ctx.cancelled())
            return cancelledError();
        const std::size_t e = std::min(out.sentences.size(), b + chunk);
        std::vector<EncoderInput> batch;
        for (std::size_t i = b; i < e; ++i) {
            const Sentence &s = out.sentences[i];
            EncoderInput in;
            in.words = s.words();
            if (readsTree(info.input, TreeKind::Dependency))
                in.dependency = s.dependency;
            if (readsTree(info.input, TreeKind::Constituency))
                in.constituency = s.constituency;
            batch.push_back(std::move(in));
        }
        auto r = encoder.analyze(batch, ao);
        if (!r)
            return Error{"attention (sentences " + std::to_string(b + 1) + " to " + std::to_string(e) + "): " + r.message(), r.code()};
        for (auto &a : *r) {
            // Keep only what the metrics read.
            if (!config.rawAttention)
                a.attentionRaw.clear();
            if (!keepLinks)
                a.linkProbs.clear();
            a.constituentPrior.clear();
            a.layerStates.clear();
            a.embedding.clear();
            a.meanEmbedding.clear();
            a.inducedTree.reset();
            a.inducedBrackets.clear();
            out.analyses.push_back(std::move(a));
        }
        rc.report(e, out.sentences.size(), "sentences analysed");
    }
    return out;
}

Result<ProbeRunInduction> runUnsupervisedParsing(const ProbeRunContext &ctx, Encoder &encoder, const ProbeData &data,
                                                 const ProbeRunConfig &config, const ProbeTrees &trees)
{
    std::vector<const Sentence *> scope;
    ProbeRunInduction out;
    if (config.attentionOn == "test") {
        scope = data.testSentences();
        out.scope = "test split";
    } else {
        data.forEach([&](const Sentence &s) { scope.push_back(&s); });
        out.scope = data.oneCorpus ? "whole corpus (all splits)" : "whole corpus (train, dev and test)";
    }
    const EncoderInfo &info = encoder.info();
    const int maxWords = info.maxTokens > 0 ? info.maxTokens - (info.hasClsToken ? 1 : 0) : 1 << 30;
    std::vector<InductionGold> gold;
    inductionGoldOf(scope, maxWords, out, gold);
    if (gold.empty())
        return Error{"no sentence with a constituency tree of 2 or more words (punctuation removed)"};
    out.sentences = gold.size();
    out.constituencyTrees = trees.constituencyText();
    out.applicable = info.outputs.inducedTree;
    if (!out.applicable)
        out.reason = "this model (" + info.family + (info.architecture.empty() ? "" : ": " + info.architecture) +
                     ") induces no trees, so only the baselines are scored";
    ProgressLine(ctx) << "unsupervised parsing of " << gold.size() << " sentences";
    // The model's own parse settings (EncoderInfo::induction: chosen on development
    // trees by tune-induction, or the official ones fitted to its layers), as
    // eval-induction and the app use them; the report records them ("config").
    const InductionConfig induction = info.induction;
    auto report = evaluateInductionGold(out.applicable ? &encoder : nullptr, gold, induction, ctx.control(),
                                        out.applicable ? &out.predicted : nullptr);
    if (!report)
        return report.error();
    out.report = std::move(*report);
    if (out.applicable)
        out.worstSentences = worstInduced(out);
    return out;
}

Result<AttentionStageResult> runAttentionTasks(const ProbeRunContext &ctx, Encoder &encoder, const ProbeData &data,
                                               const ProbeTrees &trees, const ProbeRunConfig &config,
                                               const std::vector<std::string> &tasks, ProbeRunTiming &timing)
{
    AttentionStageResult out;
    AttentionCorpus corpus;
    const bool needAttention =
        std::any_of(tasks.begin(), tasks.end(), [](const std::string &t) { return t != "unsupervised-parsing"; });
    if (needAttention) {
        const auto t0 = ProbeClock::now();
        const bool keepLinks = std::find(tasks.begin(), tasks.end(), "link-probs") != tasks.end() &&
                               encoder.info().outputs.linkProbs;
        auto c = analyzeAttentionCorpus(ctx, encoder, data, config, keepLinks);
        if (!c)
            return c.error();
        corpus = std::move(*c);
        timing.attention["analysis"] = secondsSince(t0);
        ProgressLine(ctx) << "attention of " << corpus.sentences.size() << " sentences in "
                          << probeFixed(timing.attention["analysis"], 1) << " s";
    }
    // Which attention, in words: only a model with a constituent prior (C, or the link
    // probabilities it is made of) has a second one.
    const bool prior = encoder.info().outputs.constituentPrior || encoder.info().outputs.linkProbs;
    const bool twoKinds = encoder.info().outputs.attentionRaw; // the Dependency-Transformer's gated and plain softmax
    AttentionJob job{corpus, trees, {},
                     prior       ? (config.rawAttention ? "raw softmax attention (before the constituent prior)"
                                                        : "attention after the constituent prior (softmax x C)")
                     : twoKinds ? (config.rawAttention ? "plain softmax attention (before the model's relation weighting)"
                                                        : "the model's attention (after its relation weighting)")
                                 : "softmax attention"};
    job.options.raw = config.rawAttention;
    job.options.keepRelationSubtypes = config.keepRelationSubtypes;
    if (config.where) // head-accuracy on the arcs the pattern binds (runwhere.h)
        job.options.arcsMetadata = kProbeWhereArcs;
    job.options.spans = trees.tree == "dependency" ? AttentionTreeOptions::Spans::Dependency
                                                   : AttentionTreeOptions::Spans::Constituency;
    for (const auto &name : tasks) {
        const auto t0 = ProbeClock::now();
        Status status;
        if (name == "unsupervised-parsing") {
            auto r = runUnsupervisedParsing(ctx, encoder, data, config, trees);
            if (r)
                out.induction = std::move(*r);
            else
                status = r.error();
        } else if (name == "link-probs" && !encoder.info().outputs.linkProbs) {
            // A model without a constituent prior has no link probabilities: the task has
            // nothing to score for it (a comparison shows "—"), which is said, not faked.
            ProgressLine(ctx) << "link-probs: not scored: this model (" << encoder.info().family
                              << ") has no constituent prior, so no link probabilities";
            ctx.finished(name);
            continue;
        } else {
            status = gridTask(job, name, out.attention);
        }
        if (!status)
            return Error{name + ": " + status.message(), status.code()};
        timing.attention[name] = secondsSince(t0);
        ctx.finished(name);
    }
    return out;
}

} // namespace treelens
