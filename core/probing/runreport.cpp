// runreport: stage 6 of a probing run, the report and its text; see runreport.h.
#include "core/probing/runreport.h"

#include <algorithm>
#include <cstdio>

#include "core/base/numbering.h"
#include "core/probing/probecompare.h"
#include "core/probing/probenotes.h"
#include "core/probing/runcontext.h"

namespace treelens {

namespace {

const char *kNoDevNote = "no dev split: the probes keep their last epoch (no model selection, no early stopping)";

std::string padRight(const std::string &s, std::size_t w) { return s.size() >= w ? s : s + std::string(w - s.size(), ' '); }
std::string padLeft(const std::string &s, std::size_t w) { return s.size() >= w ? s : std::string(w - s.size(), ' ') + s; }

/// A plain table: header row then rows, right-aligned after the first column.
std::string table(const std::vector<std::string> &header, const std::vector<std::vector<std::string>> &rows)
{
    std::vector<std::size_t> w(header.size(), 0);
    for (std::size_t c = 0; c < header.size(); ++c) {
        w[c] = header[c].size();
        for (const auto &r : rows)
            if (c < r.size())
                w[c] = std::max(w[c], r[c].size());
    }
    auto line = [&](const std::vector<std::string> &cells) {
        std::string t = "  ";
        for (std::size_t c = 0; c < header.size(); ++c) {
            const std::string cell = c < cells.size() ? cells[c] : "";
            t += (c ? "  " : "") + (c == 0 ? padRight(cell, w[c]) : padLeft(cell, w[c]));
        }
        while (!t.empty() && t.back() == ' ')
            t.pop_back();
        return t + "\n";
    };
    std::string t = line(header);
    for (const auto &r : rows)
        t += line(r);
    return t;
}

std::string gridText(const LayerHeadGrid &g, int digits, const std::string &title)
{
    std::string t = "  " + title + "\n  layer";
    char buf[64];
    for (int h = 0; h < g.heads; ++h) {
        std::snprintf(buf, sizeof buf, " %7s", ("h" + std::to_string(h + 1)).c_str());
        t += buf;
    }
    t += "\n";
    for (int l = 0; l < g.layers; ++l) {
        std::snprintf(buf, sizeof buf, "  %5d", l + 1);
        t += buf;
        for (int h = 0; h < g.heads; ++h) {
            std::snprintf(buf, sizeof buf, " %7s", probeFixed(g.at(l, h), digits).c_str());
            t += buf;
        }
        t += "\n";
    }
    return t;
}

std::string headerText(const ProbeRunReport &r)
{
    const ProbeRunData &d = r.data;
    std::string text = "probe: " + r.model.name + " (" + r.model.family + ", " + std::to_string(r.model.layers) +
                       " layers, d_model " + std::to_string(r.model.dModel) + ", " + std::to_string(r.model.heads) +
                       " heads)\n";
    if (d.oneCorpus)
        text += "data: " + probeFileList(d.trainFiles) + ", " + std::to_string(d.corpus) + " sentences; split " + d.split +
                ": train " + std::to_string(d.train) + ", dev " + std::to_string(d.dev) + ", test " +
                std::to_string(d.test) + "\n";
    else
        text += "data: train " + probeFileList(d.trainFiles) + " (" + std::to_string(d.train) + " sentences), dev " +
                (d.devFiles.empty() ? std::string("none")
                                    : probeFileList(d.devFiles) + " (" + std::to_string(d.dev) + " sentences)") +
                ", test " + probeFileList(d.testFiles) + " (" + std::to_string(d.test) + " sentences)\n";
    if (d.noDev)
        text += "note: " + std::string(kNoDevNote) + "\n";
    text += "constituency trees: " + d.constituencyTrees + "\n";
    text += "dependency trees: " + d.dependencyTrees + "\n";
    for (const auto &[k, n] : d.excluded)
        text += "excluded: " + k + " " + std::to_string(n) + "\n";
    if (r.where) {
        const ProbeRunWhere &w = *r.where;
        std::string pattern = w.pattern;
        std::replace_if(pattern.begin(), pattern.end(), [](char c) { return c == '\n' || c == '\r' || c == '\t'; }, ' ');
        text += "where: " + std::string(w.syntax == "grew" ? "Grew request " : "Tregex pattern ") + pattern + ": " +
                std::to_string(w.sentencesMatched) + " of " + std::to_string(w.sentences) + " sentences have an occurrence (" +
                std::to_string(w.occurrences) + " occurrences; trees " + w.trees + "); only they are probed; head-accuracy "
                "scores the arcs " + w.arcs + " (" + std::to_string(w.arcCount) + ")\n";
    }
    text += "layers: embeddings, and k = the output of encoder layer k (layers and heads numbered from 1); probe " +
            r.settings.probe + ", seed " +
            std::to_string(r.settings.seed) + "\n";
    return text;
}

std::vector<std::string> sentenceHeader(const SentenceProbeTask &t, const std::vector<std::string> &poolings)
{
    const bool reg = t.regression;
    std::vector<std::string> header = {"layer"};
    for (const auto &p : poolings) {
        header.push_back(p + (reg ? " R2" : " acc"));
        if (!reg)
            header.push_back(p + " 95% CI");
        header.push_back(p + (reg ? " MSE" : " F1"));
        if (t.control) {
            header.push_back(p + (reg ? " ctl R2" : " ctl acc"));
            header.push_back(p + " select");
        }
        if (t.randomInit)
            header.push_back(p + (reg ? " rand R2" : " rand acc"));
    }
    return header;
}

std::string sentenceTaskText(const SentenceProbeTask &t, const std::vector<std::string> &poolings)
{
    const bool reg = t.regression;
    std::vector<std::vector<std::string>> rows;
    for (std::size_t i = 0; i < t.layers.size(); ++i) {
        const SentenceProbeLayer &layer = t.layers[i];
        std::vector<std::string> row = {probedLayerName(layer.layer)};
        for (const auto &p : poolings) {
            const SentenceProbeCell &c = layer.pooling.at(p);
            const ProbeResult &m = c.result;
            row.push_back(reg ? probeFixed(m.test.r2, 4) : probeFixed(100 * m.test.accuracy, 2));
            if (!reg) {
                const auto [lo, hi] = accuracyInterval(m.test.accuracy, t.examples[2]);
                row.push_back(probeFixed(100 * lo, 1) + "-" + probeFixed(100 * hi, 1));
            }
            row.push_back(reg ? probeFixed(m.test.mse, 3) : probeFixed(100 * m.test.macroF1, 2));
            if (t.control) {
                row.push_back(reg ? probeFixed(c.control->test.r2, 4) : probeFixed(100 * c.control->test.accuracy, 2));
                row.push_back(probeFixed(c.selectivity, reg ? 4 : 2));
            }
            if (t.randomInit) {
                const ProbeResult &x = t.randomInitLayers.at(i).pooling.at(p).result;
                row.push_back(reg ? probeFixed(x.test.r2, 4) : probeFixed(100 * x.test.accuracy, 2));
            }
        }
        rows.push_back(row);
    }
    std::string text = "\n" + t.name + " (" +
                       (reg ? std::string("regression on the word count; test R2 and MSE")
                            : std::to_string(t.labels.size()) + " classes; test accuracy and macro-F1, percent") +
                       "; examples train " + std::to_string(t.examples[0]) + ", dev " + std::to_string(t.examples[1]) +
                       ", test " + std::to_string(t.examples[2]) + ")\n";
    if (!t.tree.empty())
        text += "  tree: " + t.tree + "\n";
    if (!t.excluded.empty()) {
        text += "  excluded:";
        for (const auto &[k, n] : t.excluded)
            text += " " + k + " " + std::to_string(n) + ";";
        text += "\n";
    }
    text += table(sentenceHeader(t, poolings), rows);
    const SentenceProbeBaseline &b = t.baseline;
    if (reg)
        text += "  baseline: predict the train mean " + probeFixed(b.meanPrediction, 2) + ": R2 " + probeFixed(b.meanR2, 4) +
                ", MSE " + probeFixed(b.meanMse, 3) + "\n";
    else
        text += "  baseline: majority class \"" + b.majorityLabel + "\": accuracy " +
                probeFixed(100 * b.majorityAccuracy, 2) + ", macro-F1 " + probeFixed(100 * b.majorityMacroF1, 2) + "\n";
    if (!reg)
        text += "  95% CI: Wilson interval of the test accuracy over its " + std::to_string(t.examples[2]) +
                " examples\n";
    for (const auto &note : sentenceTaskNotes(t, poolings))
        text += "  " + note + "\n";
    return text;
}

std::string structuralTaskText(const StructuralProbeTask &t, int rank)
{
    const bool dist = t.kind == StructuralProbeKind::Distance;
    std::vector<std::vector<std::string>> rows;
    for (std::size_t i = 0; i < t.layers.size(); ++i) {
        const StructuralProbeResult &m = t.layers[i].result;
        std::vector<std::string> row = {probedLayerName(t.layers[i].layer)};
        row.push_back(dist ? probeFixed(100 * m.test.uuas, 2) : probeFixed(100 * m.test.rootAccuracy, 2));
        row.push_back(dist ? probeFixed(m.test.dspr, 4) : probeFixed(m.test.nspr, 4));
        row.push_back(std::to_string(m.bestEpoch) + "/" + std::to_string(m.curve.size()));
        if (t.randomInit) {
            const StructuralProbeResult &x = t.randomInitLayers.at(i).result;
            row.push_back(dist ? probeFixed(100 * x.test.uuas, 2) : probeFixed(100 * x.test.rootAccuracy, 2));
            row.push_back(dist ? probeFixed(x.test.dspr, 4) : probeFixed(x.test.nspr, 4));
        }
        rows.push_back(row);
    }
    std::string text = "\n" + t.name + " (Hewitt & Manning, rank " + std::to_string(rank) + "; sentences train " +
                       std::to_string(t.examples[0]) + ", dev " + std::to_string(t.examples[1]) + ", test " +
                       std::to_string(t.examples[2]) + "; " +
                       (dist ? "test UUAS percent and DSpr" : "test root accuracy percent and NSpr") + ")\n";
    std::vector<std::string> header = {"layer", dist ? "UUAS" : "root acc", dist ? "DSpr" : "NSpr", "best epoch"};
    if (t.randomInit) {
        header.push_back(dist ? "rand UUAS" : "rand root");
        header.push_back(dist ? "rand DSpr" : "rand NSpr");
    }
    return text + table(header, rows);
}

std::string headAccuracyText(const HeadAccuracyReport &rep, const AttentionTaskSummary &s)
{
    auto cellText = [](const BestCell &b) {
        return b.layer < 0 ? std::string("-")
                           : probeFixed(b.accuracy, 2) + " (" + std::to_string(b.layer + 1) + "-" +
                                 std::to_string(b.head + 1) + ")";
    };
    std::vector<std::vector<std::string>> rows;
    for (const auto &rel : rep.relations)
        rows.push_back({rel.relation, std::to_string(rel.count), cellText(rel.bestDepToHead), cellText(rel.bestHeadToDep),
                        probeFixed(rel.bestOffset.accuracy, 2) + " (" + (rel.bestOffset.offset > 0 ? "+" : "") +
                            std::to_string(rel.bestOffset.offset) + ")"});
    std::string text = "\nhead-accuracy (" + std::to_string(s.sentences) + " sentences, " + s.attention +
                       "; percent; best head as layer-head, numbered from 1)\n";
    text += rep.subtypesKept ? "relations with their UD subtypes kept (nsubj:pass apart from nsubj)\n"
                             : "relations with their UD subtypes folded (nsubj:pass counted as nsubj; "
                               "--relation-subtypes keep keeps them)\n";
    if (const auto *all = rep.find("all")) {
        text += gridText(all->depToHead, 2, "all relations, dependent -> head:");
        text += gridText(all->headToDep, 2, "all relations, head -> dependent:");
    }
    return text + table({"relation", "arcs", "best dep->head", "best head->dep", "best offset"}, rows);
}

std::string attentionMstText(const UuasReport &rep, const AttentionTaskSummary &s)
{
    std::string text = "\nattention-mst (" + std::to_string(s.sentences) + " sentences, " + s.attention +
                       "): UUAS of the maximum spanning tree of (A + A^T)/2, percent\n";
    text += gridText(rep.uuas, 2, "layers x heads:");
    std::string means;
    for (double m : rep.layerMean)
        means += " " + probeFixed(m, 2);
    return text + "  layer mean:" + means + "\n  best head: layer " + std::to_string(s.best.layer + 1) + " head " +
           std::to_string(s.best.head + 1) + ", UUAS " + probeFixed(s.best.accuracy, 2) + "\n";
}

std::string constituentMassText(const ConstituentMassReport &rep, const AttentionTaskSummary &s)
{
    std::string text = "\nconstituent-mass (" + std::to_string(s.sentences) + " sentences, " + s.tree +
                       " constituents, " + s.attention +
                       "): share of a word's attention inside its smallest constituent vs the distance-matched baseline\n";
    text += gridText(rep.mass, 4, "mass:");
    text += gridText(rep.baseline, 4, "baseline:");
    text += gridText(rep.difference, 4, "mass - baseline:");
    if (s.best.layer >= 0)
        text += "  best head: layer " + std::to_string(s.best.layer + 1) + " head " + std::to_string(s.best.head + 1) +
                ", mass - baseline " + probeFixed(s.best.accuracy, 4) + "\n";
    return text;
}

std::string linkProbsText(const LinkProbabilityReport &rep, const AttentionTaskSummary &s)
{
    std::vector<std::vector<std::string>> rows;
    for (int l = 0; l < rep.layers; ++l) {
        const auto &st = rep.perLayer[static_cast<std::size_t>(l)];
        std::vector<std::string> row = {std::to_string(l + 1), std::to_string(st.gaps), probeFixed(st.mean, 4),
                                        probeFixed(st.stddev, 4), probeFixed(st.spearman, 4)};
        for (int k = 0; k < LinkBucketCount; ++k)
            row.push_back(st.bucketCount[static_cast<std::size_t>(k)] ? probeFixed(st.bucketMean[static_cast<std::size_t>(k)], 4)
                                                                      : std::string("-"));
        rows.push_back(row);
    }
    std::vector<std::string> header = {"layer", "gaps", "mean", "sd", "spearman"};
    for (int k = 0; k < LinkBucketCount; ++k)
        header.push_back(std::string("size ") + linkBucketName(k));
    return "\nlink-probs (" + std::to_string(s.sentences) + " sentences, " + s.tree +
           " constituents): link probability between adjacent words by the size of the smallest gold constituent "
           "holding both\n" +
           table(header, rows);
}

std::string inductionText(const ProbeRunInduction &r)
{
    std::string text = "\nunsupervised-parsing (" + std::to_string(r.sentences) + " sentences, " + r.scope +
                       "; constituency trees " + r.constituencyTrees + ")\n";
    if (!r.applicable)
        text += "  " + r.reason + "\n";
    return text + inductionReportText(r.report);
}

std::string attentionTaskText(const ProbeRunReport &r, const std::string &name)
{
    const ProbeRunAttention &a = r.attention;
    const auto s = a.summaries.find(name);
    if (name == "unsupervised-parsing")
        return r.induction ? inductionText(*r.induction) : std::string();
    if (s == a.summaries.end())
        return {};
    if (name == "head-accuracy" && a.headAccuracy)
        return headAccuracyText(*a.headAccuracy, s->second);
    if (name == "attention-mst" && a.attentionMst)
        return attentionMstText(*a.attentionMst, s->second);
    if (name == "constituent-mass" && a.constituentMass)
        return constituentMassText(*a.constituentMass, s->second);
    if (name == "link-probs" && a.linkProbs)
        return linkProbsText(*a.linkProbs, s->second);
    return {};
}

ProbeTrainingSettings trainingSettings(int maxEpochs, int patience, double learningRate, int batchSize, int threads)
{
    return ProbeTrainingSettings{maxEpochs, patience, learningRate, batchSize, threads};
}

} // namespace

ProbeRunModel probeRunModel(const std::string &path, const EncoderInfo &info)
{
    return ProbeRunModel{path, info.name, info.family, info.layers, info.heads, info.dModel, info.parameters, info.device};
}

ProbeRunSettings probeRunSettings(const ProbeRunConfig &config, const ProbeRunPlan &plan, const ProbeTrees &trees,
                                  int dModel)
{
    ProbeRunSettings s;
    s.tasks = plan.tasks;
    s.layers = plan.layers;
    s.poolings = plan.poolings;
    s.probe = config.probe;
    s.seed = config.seed;
    s.splitSeed = config.splitSeed;
    s.control = config.runsControl();
    s.randomInit = config.runsRandomInit();
    s.rawAttention = config.rawAttention;
    s.treeSource = config.treeSource;
    s.tree = trees.tree;
    s.treeReason = trees.treeWhy;
    s.depthMinCount = config.depthMinCount;
    s.attentionOn = config.attentionOn;
    s.probeDevice = config.probeDevice;
    const ProbeTrainOptions po = sentenceProbeOptions(config);
    const StructuralProbeOptions so = structuralProbeOptions(config);
    s.sentenceProbe = trainingSettings(po.maxEpochs, po.patience, po.learningRate, po.batchSize, po.threads);
    s.structuralProbe = trainingSettings(so.maxEpochs, so.patience, so.learningRate, so.batchSize, so.threads);
    s.structuralRank = so.rank == 0 ? dModel : so.rank;
    s.poolingNote = plan.poolingNote;
    return s;
}

ProbeRunData probeRunData(const ProbeRunConfig &config, const ProbeData &data, const ProbeTrees &trees, bool probesTrain)
{
    ProbeRunData d;
    d.trainFiles = config.train;
    d.devFiles = config.dev;
    d.testFiles = config.test;
    d.oneCorpus = data.oneCorpus;
    d.split = data.splitText;
    if (data.oneCorpus) {
        d.corpus = data.corpus.size();
        d.train = data.split.train.size();
        d.dev = data.split.dev.size();
        d.test = data.split.test.size();
    } else {
        d.train = data.train.size();
        d.dev = data.dev.size();
        d.test = data.test.size();
    }
    d.constituencyTrees = trees.constituencyText();
    d.dependencyTrees = trees.dependencyText();
    d.excluded = data.excluded;
    d.parseFailures = static_cast<long>(trees.parseFailures.size());
    d.parseFailureExamples.assign(trees.parseFailures.begin(),
                                  trees.parseFailures.begin() +
                                      static_cast<std::ptrdiff_t>(std::min<std::size_t>(3, trees.parseFailures.size())));
    d.noDev = !data.oneCorpus && data.dev.empty() && probesTrain;
    return d;
}

void finishProbeReport(ProbeRunReport &report)
{
    for (auto &[name, viewer] : report.structural)
        if (const StructuralProbeTask *task = report.structuralTask(name)) {
            const int best = bestStructuralProbeLayer(task->layers);
            viewer.bestLayer = best >= 0 ? task->layers[static_cast<std::size_t>(best)].layer : -1;
        }
}

std::string probeReportText(const ProbeRunReport &r)
{
    std::string text = headerText(r);
    for (const auto &t : r.sentenceTasks)
        text += sentenceTaskText(t, r.settings.poolings);
    for (const auto &t : r.structuralTasks)
        text += structuralTaskText(t, r.settings.structuralRank);
    for (const auto &name : r.settings.tasks)
        text += attentionTaskText(r, name);
    return text + "\ntime: " + probeFixed(r.timing.total, 1) + " s\n";
}

} // namespace treelens
