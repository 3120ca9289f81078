// probecompare: the comparison rules and cells of probing reports; see probecompare.h.
#include "core/probing/probecompare.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>

#include "core/base/numbering.h"

namespace treelens {

const char *const kCompareMissing = "\xE2\x80\x94"; // —

namespace {

constexpr double kNegInf = -std::numeric_limits<double>::infinity();

/// A score to maximise: NaN (JSON null) never wins.
double orNegInf(double v) { return std::isnan(v) ? kNegInf : v; }

/// Unsupervised-parsing scores as inductionReportJson rounds them (2 decimals, half up).
double inductionRounded(double v)
{
    if (!std::isfinite(v))
        return kNoValue;
    return static_cast<double>(static_cast<long long>(v * 100 + 0.5)) / 100;
}

/// "(l/h)": layer and head numbered from 1.
std::string layerHead(int layer, int head) { return "(" + std::to_string(layer + 1) + "/" + std::to_string(head + 1) + ")"; }

double sentenceMetric(const ProbeResult &r, bool regression)
{
    return regression ? reportRounded(r.test.r2, 4) : reportPercent(r.test.accuracy);
}

/// "x (layer)" of a sentence probe's best layer for `pooling`.
std::string sentenceCell(const std::vector<SentenceProbeLayer> &layers, int best, const std::string &pooling,
                         bool regression)
{
    if (best < 0)
        return kCompareMissing;
    const SentenceProbeLayer &l = layers[static_cast<std::size_t>(best)];
    return pythonFixed(sentenceMetric(l.find(pooling)->result, regression), regression ? 3 : 1) + " (" +
           probedLayerName(l.layer) + ")";
}

std::string structuralCell(const std::vector<StructuralProbeLayer> &layers, StructuralProbeKind kind)
{
    const int best = bestStructuralProbeLayer(layers);
    if (best < 0)
        return kCompareMissing;
    const StructuralProbeLayer &l = layers[static_cast<std::size_t>(best)];
    const StructuralMetrics &t = l.result.test;
    const bool dist = kind == StructuralProbeKind::Distance;
    return pythonFixed(reportPercent(dist ? t.uuas : t.rootAccuracy), 1) + " / " +
           pythonFixed(reportRounded(dist ? t.dspr : t.nspr, 4), 3) + " (" + probedLayerName(l.layer) + ")";
}

const InductionScore &inductionScore(const InductionSplit &split, const std::string &parser)
{
    if (parser == "right_branching")
        return split.right;
    if (parser == "left_branching")
        return split.left;
    if (parser == "random")
        return split.random;
    return split.model;
}

std::string f1Cell(const InductionScore &s)
{
    return pythonFixed(inductionRounded(s.sentenceF1), 1) + " / " + pythonFixed(inductionRounded(s.corpusF1), 1);
}

/// "| a | b |" from cells.
std::string markdownRow(const std::vector<std::string> &cells)
{
    std::string line = "|";
    for (const auto &c : cells)
        line += " " + c + " |";
    return line + "\n";
}

std::string repeat(const std::string &s, std::size_t n)
{
    std::string out;
    for (std::size_t i = 0; i < n; ++i)
        out += s;
    return out;
}

std::string sentenceTables(const std::vector<NamedProbeReport> &reports)
{
    const ProbeRunReport &first = reports.front().report;
    std::string md = "| task (test metric) |";
    for (const auto &r : reports)
        md += " " + r.name + ": mean (layer) | " + r.name + ": [CLS] (layer) | " + r.name + ": selectivity | " + r.name +
              ": random-init |";
    md += " majority |\n|---|" + repeat("---|---|---|---|", reports.size()) + "---|\n";
    const std::pair<const char *, const char *> labels[] = {{"sentlen", "SentLen (R²)"},
                                                            {"sentlen-bins", "SentLen, 6 bins (acc.)"},
                                                            {"treedepth", "TreeDepth (acc.)"},
                                                            {"topconst", "TopConst (acc.)"}};
    for (const auto &[task, label] : labels) {
        const SentenceProbeTask *ref = first.sentenceTask(task);
        if (!ref)
            continue;
        std::vector<std::string> cells = {label};
        for (const auto &r : reports) {
            const SentenceProbeTask *t = r.report.sentenceTask(task);
            const SentenceProbeCells c = t ? sentenceProbeCells(*t) : SentenceProbeCells{};
            for (const std::string &cell : {c.mean, c.cls, c.selectivity, c.randomInit})
                cells.push_back(t ? cell : std::string(kCompareMissing));
        }
        cells.push_back(majorityBaselineCell(*ref));
        md += markdownRow(cells);
    }
    md += "\n| structural probe (test) |";
    for (const auto &r : reports)
        md += " " + r.name + " (layer) | " + r.name + " random-init |";
    md += "\n|---|" + repeat("---|---|", reports.size()) + "\n";
    for (const auto &[task, metrics] : {std::make_pair("structural-distance", "uuas / dspr"),
                                        std::make_pair("structural-depth", "root_accuracy / nspr")}) {
        if (!first.structuralTask(task))
            continue;
        std::vector<std::string> cells = {std::string(task) + " (" + metrics + ")"};
        for (const auto &r : reports) {
            const StructuralProbeTask *t = r.report.structuralTask(task);
            const StructuralProbeCells c = t ? structuralProbeCells(*t) : StructuralProbeCells{kCompareMissing, kCompareMissing};
            cells.push_back(c.model);
            cells.push_back(c.randomInit);
        }
        md += markdownRow(cells);
    }
    return md;
}

std::string attentionTable(const std::vector<NamedProbeReport> &reports)
{
    std::string md = "\n| attention (whole corpus; layer/head numbered from 1: layer k = encoder layer k, as above) |";
    for (const auto &r : reports)
        md += " " + r.name + " |";
    md += "\n|---|" + repeat("---|", reports.size()) + "\n";
    // A row per analysis, in the order a report first has it; a report without it adds no cell.
    std::vector<std::pair<std::string, std::vector<std::string>>> rows;
    auto add = [&](const std::string &row, const std::string &cell) {
        for (auto &r : rows)
            if (r.first == row) {
                r.second.push_back(cell);
                return;
            }
        rows.push_back({row, {cell}});
    };
    for (const auto &r : reports) {
        const ProbeRunAttention &a = r.report.attention;
        if (a.headAccuracy)
            if (const auto cells = headAccuracyCells(*a.headAccuracy))
                add("head accuracy, all relations: best head dep→head (layer/head); best fixed offset",
                    cells->first + "; offset " + cells->second);
        if (a.constituentMass && a.summaries.count("constituent-mass"))
            add("constituent mass: best head, mass / distance-matched baseline (layer/head)",
                constituentMassCell(*a.constituentMass, a.summaries.at("constituent-mass")));
        if (a.attentionMst && a.summaries.count("attention-mst"))
            add("UUAS of the MST of symmetrised attention: best head (layer/head)",
                attentionMstCell(a.summaries.at("attention-mst")));
        if (a.linkProbs) {
            std::string joined;
            for (const auto &c : linkProbabilityCells(*a.linkProbs))
                joined += (joined.empty() ? "" : "; ") + c;
            add("link probabilities per layer: mean (Spearman with −constituent size)", joined);
        }
    }
    for (const auto &[row, cells] : rows) {
        std::vector<std::string> line = {row};
        line.insert(line.end(), cells.begin(), cells.end());
        md += markdownRow(line);
    }
    return md;
}

std::string inductionTable(const std::vector<NamedProbeReport> &reports)
{
    const ProbeRunInduction *ref = nullptr;
    for (const auto &r : reports)
        if (r.report.induction && !ref)
            ref = &*r.report.induction;
    if (!ref)
        return {};
    std::string md = "\nUnsupervised parsing (" + std::to_string(ref->sentences) + " sentences, " + ref->scope +
                     "; constituency trees " + ref->constituencyTrees +
                     "); sentence-level F1 (the paper's figure) / corpus-level F1; ≤10 words: sentence-level F1:\n\n";
    md += "| parser |";
    for (const auto &r : reports)
        md += " " + r.name + ": F1 sent / corpus | " + r.name + ": ≤10 words |";
    md += "\n|---|" + repeat("---|---|", reports.size()) + "\n";
    const std::pair<const char *, const char *> parsers[] = {
        {"model (its own parse settings)", "model"},
        {"right-branching", "right_branching"},
        {"left-branching", "left_branching"},
        {"random binary", "random"}};
    for (const auto &[label, parser] : parsers) {
        std::vector<std::string> cells = {label};
        for (const auto &r : reports) {
            const auto c = r.report.induction ? inductionCells(*r.report.induction, parser) : std::nullopt;
            const std::string none = r.report.induction ? "n/a" : kCompareMissing;
            cells.push_back(c ? c->f1 : none);
            cells.push_back(c ? c->short10 : none);
        }
        md += markdownRow(cells);
    }
    std::size_t starts = 0;
    std::vector<std::vector<InductionCells>> byReport;
    for (const auto &r : reports) {
        byReport.push_back(r.report.induction ? inductionStartLayerCells(*r.report.induction) : std::vector<InductionCells>{});
        starts = std::max(starts, byReport.back().size());
    }
    for (std::size_t i = 0; i < starts; ++i) {
        std::vector<std::string> cells = {"model, starting at layer " + std::to_string(i + 1)};
        for (const auto &layers : byReport) {
            cells.push_back(i < layers.size() ? layers[i].f1 : "n/a");
            cells.push_back(i < layers.size() ? layers[i].short10 : "n/a");
        }
        md += markdownRow(cells);
    }
    return md;
}

std::string countText(std::size_t n) { return std::to_string(n); }

} // namespace

std::string pythonFixed(double x, int decimals)
{
    if (std::isnan(x))
        return "n/a";
    char buf[400];
    const auto r = std::to_chars(buf, buf + sizeof buf, x, std::chars_format::fixed, decimals);
    if (r.ec != std::errc()) {
        std::snprintf(buf, sizeof buf, "%.*f", decimals, x);
        return buf;
    }
    return std::string(buf, r.ptr);
}

int bestSentenceProbeLayer(const std::vector<SentenceProbeLayer> &layers, const std::string &pooling, bool regression)
{
    int best = -1;
    double top = 0.0;
    for (std::size_t i = 0; i < layers.size(); ++i) {
        const SentenceProbeCell *cell = layers[i].find(pooling);
        if (!cell)
            continue;
        const ProbeMetrics &dev = cell->result.dev;
        const double score = orNegInf(regression ? -reportRounded(dev.mse, 4) : reportPercent(dev.accuracy));
        if (best < 0 || score > top) {
            best = static_cast<int>(i);
            top = score;
        }
    }
    return best;
}

int bestStructuralProbeLayer(const std::vector<StructuralProbeLayer> &layers)
{
    int best = -1;
    double top = 0.0;
    for (std::size_t i = 0; i < layers.size(); ++i) {
        const double score = orNegInf(-reportRounded(layers[i].result.dev.loss, 4));
        if (best < 0 || score > top) {
            best = static_cast<int>(i);
            top = score;
        }
    }
    return best;
}

SentenceProbeCells sentenceProbeCells(const SentenceProbeTask &task)
{
    const bool reg = task.regression;
    SentenceProbeCells c;
    const int mean = bestSentenceProbeLayer(task.layers, "mean", reg);
    c.mean = sentenceCell(task.layers, mean, "mean", reg);
    c.cls = sentenceCell(task.layers, bestSentenceProbeLayer(task.layers, "cls", reg), "cls", reg);
    c.selectivity = kCompareMissing;
    if (mean >= 0 && task.control) {
        const double sel = task.layers[static_cast<std::size_t>(mean)].find("mean")->selectivity;
        const double shown = reportRounded(sel, reg ? 4 : 2);
        if (!std::isnan(shown))
            c.selectivity = pythonFixed(shown, reg ? 3 : 1);
    }
    c.randomInit = task.randomInit ? sentenceCell(task.randomInitLayers,
                                                  bestSentenceProbeLayer(task.randomInitLayers, "mean", reg), "mean", reg)
                                   : std::string(kCompareMissing);
    return c;
}

std::string majorityBaselineCell(const SentenceProbeTask &task)
{
    if (task.regression)
        return "R² " + pythonFixed(reportRounded(task.baseline.meanR2, 4), 3);
    return pythonFixed(reportPercent(task.baseline.majorityAccuracy), 1);
}

StructuralProbeCells structuralProbeCells(const StructuralProbeTask &task)
{
    StructuralProbeCells c;
    c.model = structuralCell(task.layers, task.kind);
    c.randomInit = task.randomInit ? structuralCell(task.randomInitLayers, task.kind) : std::string(kCompareMissing);
    return c;
}

std::optional<std::pair<std::string, std::string>> headAccuracyCells(const HeadAccuracyReport &report)
{
    const RelationHeadAccuracy *all = report.find("all");
    if (!all)
        return std::nullopt;
    const BestCell &b = all->bestDepToHead;
    const int k = all->bestOffset.offset;
    return std::make_pair(pythonFixed(reportRounded(b.accuracy, 2), 1) + " " + layerHead(b.layer, b.head),
                          (k >= 0 ? "+" : "") + std::to_string(k) + ": " +
                              pythonFixed(reportRounded(all->bestOffset.accuracy, 2), 1));
}

std::string constituentMassCell(const ConstituentMassReport &report, const AttentionTaskSummary &summary)
{
    const BestCell &b = summary.best;
    // No best head (no finite difference): the report has no "best", shown as n/a at (1/1).
    const bool known = b.layer >= 0 && b.layer < report.mass.layers && b.head >= 0 && b.head < report.mass.heads;
    const double mass = known ? reportRounded(report.mass.at(b.layer, b.head), 4) : kNoValue;
    const double baseline = known ? reportRounded(report.baseline.at(b.layer, b.head), 4) : kNoValue;
    return pythonFixed(mass, 3) + " / " + pythonFixed(baseline, 3) + " " +
           layerHead(known ? b.layer : 0, known ? b.head : 0);
}

std::string attentionMstCell(const AttentionTaskSummary &summary)
{
    const BestCell &b = summary.best;
    return pythonFixed(reportRounded(b.accuracy, 2), 1) + " " + layerHead(b.layer, b.head);
}

std::vector<std::string> linkProbabilityCells(const LinkProbabilityReport &report)
{
    std::vector<std::string> cells;
    for (const auto &st : report.perLayer)
        cells.push_back(pythonFixed(reportRounded(st.mean, 4), 2) + " (" + pythonFixed(reportRounded(st.spearman, 4), 2) +
                        ")");
    return cells;
}

std::optional<InductionCells> inductionCells(const ProbeRunInduction &induction, const std::string &parser)
{
    if (parser == "model" && !induction.applicable)
        return std::nullopt;
    return InductionCells{f1Cell(inductionScore(induction.report.all, parser)),
                          pythonFixed(inductionRounded(inductionScore(induction.report.upTo10, parser).sentenceF1), 1)};
}

std::vector<InductionCells> inductionStartLayerCells(const ProbeRunInduction &induction)
{
    std::vector<InductionCells> cells;
    if (!induction.applicable)
        return cells;
    for (const auto &s : induction.report.byStartLayer)
        cells.push_back(InductionCells{f1Cell(s.all), pythonFixed(inductionRounded(s.upTo10.sentenceF1), 1)});
    return cells;
}

void mergeProbeReport(ProbeRunReport &into, const ProbeRunReport &extra)
{
    auto replace = [](auto &tasks, const auto &task) {
        for (auto &t : tasks)
            if (t.name == task.name) {
                t = task;
                return;
            }
        tasks.push_back(task);
    };
    for (const auto &t : extra.sentenceTasks)
        replace(into.sentenceTasks, t);
    for (const auto &t : extra.structuralTasks) {
        replace(into.structuralTasks, t);
        if (extra.structural.count(t.name))
            into.structural[t.name] = extra.structural.at(t.name);
    }
    const ProbeRunAttention &a = extra.attention;
    ProbeRunAttention &b = into.attention;
    for (const auto &[name, summary] : a.summaries) {
        b.summaries[name] = summary;
        if (a.sentenceIds.count(name))
            b.sentenceIds[name] = a.sentenceIds.at(name);
        if (name == "head-accuracy")
            b.headAccuracy = a.headAccuracy;
        else if (name == "constituent-mass")
            b.constituentMass = a.constituentMass;
        else if (name == "attention-mst")
            b.attentionMst = a.attentionMst;
        else if (name == "link-probs")
            b.linkProbs = a.linkProbs;
    }
    if (extra.induction)
        into.induction = extra.induction;
}

std::string probeTablesMarkdown(const std::vector<NamedProbeReport> &reports)
{
    if (reports.empty())
        return {};
    const ProbeRunData &d = reports.front().report.data;
    std::string md = "Data: " + countText(d.train) + " train / " + countText(d.dev) + " dev / " + countText(d.test) +
                     " test sentences (" + d.split + "); trees: dependency " + d.dependencyTrees + ", constituency " +
                     d.constituencyTrees + ".\n\n";
    md += sentenceTables(reports);
    md += attentionTable(reports);
    md += inductionTable(reports);
    return md;
}

} // namespace treelens
