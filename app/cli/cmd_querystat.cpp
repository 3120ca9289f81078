// treelens-cli query --stat (querystatcmd.h; docs/query.md, "Statistics"): the sentences
// where a Grew request matches are analysed by the model, a block at a time, and each
// occurrence adds its words' attention (or surprisal) to the statistic.
#include "app/cli/querystatcmd.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "core/base/fileio.h"
#include "core/base/strings.h"
#include "core/encoders/encoder.h"
#include "core/parsing/parser.h"
#include "core/query/deppattern.h"
#include "core/query/querystat.h"

namespace treelens::cli {

namespace {

using ojson = nlohmann::ordered_json;

constexpr std::size_t kStatBlock = 256;

/// Where an occurrence came from, to list the ones behind a cell.
struct OccurrenceRef {
    std::string sentId;
    int from = 0, to = 0;
};

ojson meanJson(const std::vector<std::vector<MeanCi>> &cells, bool ci)
{
    ojson out = ojson::array();
    for (const auto &layer : cells) {
        ojson row = ojson::array();
        for (const MeanCi &c : layer)
            row.push_back(ci ? ojson::array({c.ci95[0], c.ci95[1]}) : ojson(c.mean));
        out.push_back(row);
    }
    return out;
}

ojson meanCiJson(const MeanCi &c) { return {{"occurrences", c.n}, {"mean", c.mean}, {"ci95", {c.ci95[0], c.ci95[1]}}}; }

/// Two layer × head grids side by side: the mean attention X → Y and the baseline's; white
/// at 0, dark blue at the largest mean of either; each cell's mean written in it and its
/// interval in the tooltip.
std::string attentionSvg(const AttentionStat &s, const std::string &model, const std::string &pattern)
{
    const int L = s.layers, H = s.heads, cw = 44, ch = 22, left = 40, top = 96, gap = 60;
    double hi = 1e-9;
    for (const auto *grid : {&s.cells, &s.baseline.cells})
        for (const auto &row : *grid)
            for (const MeanCi &c : row)
                hi = std::max(hi, c.mean);
    const std::string title = "Mean attention " + s.from + " -> " + s.to + " over " + std::to_string(s.occurrences)
                            + " occurrences (" + model + ")";
    const std::string baseline = "baseline: the word at offset " + std::to_string(s.baseline.offset) + " from " + s.from + " ("
                               + std::to_string(s.baseline.hits) + " of " + std::to_string(s.occurrences) + " " + s.to + " there)";
    const int gridW = H * cw;
    const int width = std::max(left + 2 * gridW + gap + 20, 16 + 7 * static_cast<int>(std::max({title.size(), pattern.size(), baseline.size()})));
    const std::string baselineCaption = "baseline (offset " + std::to_string(s.baseline.offset) + ")";
    const int height = top + L * ch + 30;
    char buf[640];
    std::snprintf(buf, sizeof buf,
                  "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" font-family=\"sans-serif\" font-size=\"11\">\n"
                  "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
                  width, height);
    std::string svg = buf;
    svg += "<text x=\"8\" y=\"18\" font-size=\"13\">" + xmlEscaped(title) + "</text>\n";
    svg += "<text x=\"8\" y=\"34\" fill=\"#555\">" + xmlEscaped(pattern) + "</text>\n";
    svg += "<text x=\"8\" y=\"50\" fill=\"#555\">" + xmlEscaped(baseline) + "</text>\n";
    auto grid = [&](const std::vector<std::vector<MeanCi>> &cells, int x0, const std::string &caption) {
        svg += "<text x=\"" + std::to_string(x0) + "\" y=\"" + std::to_string(top - 26) + "\" font-weight=\"bold\">" + xmlEscaped(caption) + "</text>\n";
        for (int h = 0; h < H; ++h) {
            std::snprintf(buf, sizeof buf, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">H%d</text>\n", x0 + h * cw + cw / 2, top - 6, h + 1);
            svg += buf;
        }
        for (int l = 0; l < L; ++l) {
            std::snprintf(buf, sizeof buf, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">L%d</text>\n", x0 - 4, top + l * ch + ch / 2 + 4, l + 1);
            svg += buf;
            for (int h = 0; h < H && static_cast<std::size_t>(l) < cells.size(); ++h) {
                const MeanCi &c = cells[static_cast<std::size_t>(l)][static_cast<std::size_t>(h)];
                const double t = std::clamp(c.mean / hi, 0.0, 1.0);
                const int r = static_cast<int>(std::lround(255 - 225 * t)), g = static_cast<int>(std::lround(255 - 180 * t)),
                          b = static_cast<int>(std::lround(255 - 75 * t));
                std::snprintf(buf, sizeof buf,
                              "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"rgb(%d,%d,%d)\" stroke=\"#ddd\"><title>L%d H%d: "
                              "%.3f [%.3f, %.3f], n=%zu</title></rect>\n<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" fill=\"%s\">%.2f</text>\n",
                              x0 + h * cw, top + l * ch, cw, ch, r, g, b, l + 1, h + 1, c.mean, c.ci95[0], c.ci95[1], c.n,
                              x0 + h * cw + cw / 2, top + l * ch + ch / 2 + 4, t > 0.55 ? "white" : "black", c.mean);
                svg += buf;
            }
        }
    };
    grid(s.cells, left, s.from + " -> " + s.to);
    if (!s.baseline.cells.empty())
        grid(s.baseline.cells, left + gridW + gap, baselineCaption);
    svg += "</svg>\n";
    return svg;
}

std::string attentionText(const AttentionStat &s, const std::string &model, std::size_t sentences)
{
    std::string out = "attention from " + s.from + " to " + s.to + ": " + std::to_string(s.occurrences) + " occurrences in "
                    + std::to_string(sentences) + " sentences, model " + model + "\n";
    if (s.occurrences == 0)
        return out;
    out += "mean per layer x head (rows: layers, columns: heads; 95% intervals in --json)\n";
    char buf[64];
    out += "     ";
    for (int h = 0; h < s.heads; ++h) {
        std::snprintf(buf, sizeof buf, " %6s", ("H" + std::to_string(h + 1)).c_str());
        out += buf;
    }
    out += "\n";
    struct Best {
        double mean;
        int l, h;
    };
    std::vector<Best> best;
    for (int l = 0; l < s.layers; ++l) {
        std::snprintf(buf, sizeof buf, "L%-4d", l + 1);
        out += buf;
        for (int h = 0; h < s.heads; ++h) {
            const MeanCi &c = s.cells[static_cast<std::size_t>(l)][static_cast<std::size_t>(h)];
            std::snprintf(buf, sizeof buf, " %6.3f", c.mean);
            out += buf;
            best.push_back({c.mean, l, h});
        }
        out += "\n";
    }
    std::sort(best.begin(), best.end(), [](const Best &a, const Best &b) { return a.mean > b.mean; });
    out += "baseline: the word at offset " + std::to_string(s.baseline.offset) + " from " + s.from + " (where " + s.to + " is in "
         + std::to_string(s.baseline.hits) + " of " + std::to_string(s.occurrences) + " occurrences)\n";
    out += "highest heads (mean [95% interval], the baseline's mean):\n";
    for (std::size_t k = 0; k < std::min<std::size_t>(5, best.size()); ++k) {
        const auto l = static_cast<std::size_t>(best[k].l), h = static_cast<std::size_t>(best[k].h);
        const MeanCi &c = s.cells[l][h];
        const double base = s.baseline.cells.empty() ? std::nan("") : s.baseline.cells[l][h].mean;
        char line[160];
        std::snprintf(line, sizeof line, "  L%d H%d  %.3f [%.3f, %.3f]  baseline %.3f%s\n", best[k].l + 1, best[k].h + 1, c.mean, c.ci95[0],
                      c.ci95[1], base, base > c.ci95[1] ? "  (the baseline is higher)" : "");
        out += line;
    }
    if (s.causal && s.later > 0)
        out += "note: a causal model: " + std::to_string(s.later) + " occurrences have " + s.to + " after " + s.from
             + ", where attention is not possible (counted as 0)\n";
    return out;
}

std::string surprisalText(const SurprisalStat &s, const std::string &model)
{
    char buf[200];
    std::snprintf(buf, sizeof buf, "surprisal at %s: %zu occurrences, mean %.3f nats [%.3f, %.3f], model %s\n", s.at.c_str(), s.occurrences,
                  s.overall.mean, s.overall.ci95[0], s.overall.ci95[1], model.c_str());
    std::string out = buf;
    if (!s.by.empty()) {
        out += "by " + s.by + ":\n";
        for (const auto &[v, c] : s.bins) {
            std::snprintf(buf, sizeof buf, "  %-8g %6zu occurrences  %.3f [%.3f, %.3f]\n", v, c.n, c.mean, c.ci95[0], c.ci95[1]);
            out += buf;
        }
    }
    return out;
}

/// The statistic's setup from --stat: its kind and the pattern nodes it names.
struct StatKind {
    bool attention = false;
    int a = -1, b = -1; // indices into the pattern's names()
};

Result<StatKind> statKind(const QueryStatSpec &spec, const DepPattern &p)
{
    StatKind k;
    const auto &names = p.names();
    auto index = [&](const std::string &n) -> Result<int> {
        const auto it = std::find(names.begin(), names.end(), n);
        if (it == names.end())
            return Error{"--stat: '" + n + "' is not a node of the pattern (" + join(names, ", ") + ")"};
        return static_cast<int>(it - names.begin());
    };
    if (spec.stat[0] == "attention" && spec.stat.size() == 3) {
        k.attention = true;
        auto a = index(spec.stat[1]), b = index(spec.stat[2]);
        if (!a)
            return a.error();
        if (!b)
            return b.error();
        k.a = *a, k.b = *b;
        if (!spec.by.empty())
            return Error{"--by bins the surprisal statistic (--stat surprisal X --by MEASURE), not attention"};
        return k;
    }
    if (spec.stat[0] == "surprisal" && spec.stat.size() == 2) {
        auto a = index(spec.stat[1]);
        if (!a)
            return a.error();
        k.a = *a;
        return k;
    }
    return Error{"--stat takes 'attention X Y' or 'surprisal X' (X, Y: nodes of the pattern)"};
}

/// What a statistic run found besides the statistic, for its output.
struct StatContext {
    std::string model, pattern, trees;
    std::size_t sentences = 0, matched = 0;
};

/// The attention statistic as JSON or text (and its heatmap with --figure); "" after an error.
std::optional<std::string> attentionOutput(const AttentionStat &s, const StatContext &c, const std::vector<OccurrenceRef> &refs,
                                           const QueryStatSpec &spec, bool json)
{
    if (!spec.figure.empty())
        if (writeOutput(spec.figure, attentionSvg(s, c.model, c.pattern)) != 0)
            return std::nullopt;
    if (!json)
        return attentionText(s, c.model, c.matched);
    ojson j = {{"stat", "attention"}, {"from", s.from}, {"to", s.to}, {"pattern", c.pattern}, {"model", c.model},
               {"trees", c.trees}, {"sentences", c.sentences}, {"sentences_matched", c.matched}, {"occurrences", s.occurrences},
               {"skipped", s.skipped}, {"layers", s.layers}, {"heads", s.heads}, {"causal", s.causal}, {"later", s.later},
               {"mean", meanJson(s.cells, false)}, {"ci95", meanJson(s.cells, true)},
               {"baseline", {{"kind", "fixed offset"}, {"offset", s.baseline.offset}, {"hits", s.baseline.hits},
                             {"occurrences", s.baseline.occurrences}, {"mean", meanJson(s.baseline.cells, false)},
                             {"ci95", meanJson(s.baseline.cells, true)}}},
               {"intervals", "mean +- 1.96 sd / sqrt(n)"}};
    ojson list = ojson::array();
    for (const auto &r : refs)
        list.push_back({{"sent_id", r.sentId}, {"from", r.from}, {"to", r.to}});
    j["list"] = std::move(list);
    return j.dump() + "\n";
}

std::string surprisalOutput(const SurprisalStat &s, const StatContext &c, bool json)
{
    if (!json)
        return surprisalText(s, c.model);
    ojson bins = ojson::array();
    for (const auto &[v, m] : s.bins) {
        ojson b = meanCiJson(m);
        b["value"] = v;
        bins.push_back(b);
    }
    ojson overall = meanCiJson(s.overall);
    return ojson{{"stat", "surprisal"}, {"at", s.at}, {"by", s.by}, {"pattern", c.pattern}, {"model", c.model}, {"trees", c.trees},
                 {"sentences", c.sentences}, {"sentences_matched", c.matched}, {"occurrences", s.occurrences}, {"skipped", s.skipped},
                 {"unit", "nats"}, {"mean", s.overall.mean}, {"ci95", overall["ci95"]}, {"bins", bins},
                 {"intervals", "mean +- 1.96 sd / sqrt(n)"}}
               .dump()
         + "\n";
}

} // namespace

void addQueryStatOptions(CLI::App *cmd, QueryStatSpec &spec)
{
    cmd->add_option("--stat", spec.stat,
                    "A statistic over the occurrences, with --model: 'attention X Y' (mean attention from X's word to Y's per "
                    "layer x head, 95% intervals, fixed-offset baseline) or 'surprisal X' (mean surprisal at X's word)")
        ->expected(2, 3)
        ->type_name("KIND NODE [NODE]");
    cmd->add_option("--by", spec.by,
                    "--stat surprisal: bin by distance(X,Y), count(X,Y,[upos=NOUN, Number=Plur]), depth(X) or X.Feature")
        ->type_name("MEASURE");
    cmd->add_option("--figure", spec.figure, "--stat attention: write the layer x head heatmap here (SVG)")->type_name("FILE.svg");
    addModelOptions(cmd, spec.dev);
}

int runQueryStat(const QueryStatSpec &spec, const std::string &patternText, const std::string &patternSource,
                 const InputSpec &input, const ParserSpec &parserSpec, bool json, const std::string &out)
{
    if (!looksLikeGrewRequest(patternText))
        return fail("--stat needs a Grew request (its nodes are words; a Tregex pattern binds constituents)");
    auto pattern = DepPattern::parse(patternText);
    if (!pattern)
        return fail(patternSource + " (Grew request): " + pattern.message());
    auto kind = statKind(spec, *pattern);
    if (!kind)
        return fail(kind.message());
    if (!spec.figure.empty() && (!kind->attention || !endsWith(spec.figure, ".svg")))
        return fail("--figure " + spec.figure + ": the attention statistic's heatmap, as SVG (name it .svg)");
    std::optional<MatchMeasure> measure;
    if (!spec.by.empty()) {
        auto m = MatchMeasure::parse(spec.by, pattern->names());
        if (!m)
            return fail("--by " + m.message());
        measure = std::move(*m);
    }
    auto chunks = InputChunks::open(input);
    if (!chunks)
        return fail(chunks.message());
    auto enc = openModel(spec.dev);
    if (!enc)
        return fail(enc.message());
    const EncoderInfo &info = (*enc)->info();
    if (const std::string why = singleSentenceRefusal(info); !why.empty())
        return fail(why);
    const int maxWords = info.maxTokens > 0 ? info.maxTokens - (info.hasClsToken ? 1 : 0) : 0;
    const std::string model = spec.dev.model.empty() ? fileName(defaultModelPath()) : spec.dev.model;
    if (kind->attention && !info.outputs.attention)
        return fail("the attention statistic needs the model's attention matrices, and " + model + " has none (it composes tree "
                    "nodes instead)");
    if (!kind->attention && info.sentenceScore == SentenceScore::None)
        return fail(model + " gives no surprisal: the surprisal statistic needs a language model (a decoder folder: GPT-2, Pythia, "
                    "Llama, Qwen, Gemma; or a masked language model with its vocabulary head, by its pseudo-log-likelihood)");
    AnalyzeOptions opt;
    opt.attention = kind->attention;
    opt.pseudoLogLikelihood = !kind->attention && info.sentenceScore == SentenceScore::PseudoLogLikelihood;
    const auto &names = pattern->names();
    AttentionStatAccumulator att(names[static_cast<std::size_t>(kind->a)], kind->attention ? names[static_cast<std::size_t>(kind->b)] : "");
    SurprisalStatAccumulator sur(names[static_cast<std::size_t>(kind->a)], spec.by);
    std::vector<OccurrenceRef> refs;
    std::size_t sentences = 0, matched = 0, predicted = 0, tooLong = 0;
    std::unique_ptr<Parser> parser;
    const std::string source = inputSourceName(input);
    const bool needsConst = readsTree(info.input, TreeKind::Constituency);
    auto body = [&](std::vector<Sentence> &chunk, std::size_t) -> Status {
        sentences += chunk.size();
        std::vector<bool> lacked(chunk.size());
        for (std::size_t k = 0; k < chunk.size(); ++k)
            lacked[k] = !chunk[k].dependency;
        if (auto st = completeTrees(chunk, true, needsConst, source, parserOnDemand(parser)); !st)
            return st;
        std::vector<std::size_t> todo;
        std::vector<std::vector<DepMatch>> found(chunk.size());
        std::vector<DepGraph> graphs(chunk.size());
        for (std::size_t k = 0; k < chunk.size(); ++k) {
            if (!chunk[k].dependency)
                continue;
            graphs[k] = DepGraph::fromSentence(chunk[k]);
            found[k] = pattern->match(graphs[k]);
            if (found[k].empty())
                continue;
            ++matched;
            predicted += lacked[k] ? 1 : 0;
            if (maxWords > 0 && static_cast<int>(chunk[k].tokens.size()) > maxWords) {
                ++tooLong;
                continue;
            }
            todo.push_back(k);
        }
        const std::size_t batchSize = static_cast<std::size_t>(std::max(1, spec.dev.batch));
        for (std::size_t from = 0; from < todo.size(); from += batchSize) {
            std::vector<EncoderInput> batch;
            for (std::size_t j = from; j < std::min(todo.size(), from + batchSize); ++j)
                batch.push_back(EncoderInput{chunk[todo[j]].words(), chunk[todo[j]].dependency, chunk[todo[j]].constituency, {}, {}, {}});
            auto res = (*enc)->analyze(batch, opt);
            if (!res)
                return res.error();
            for (std::size_t j = 0; j < res->size(); ++j) {
                const std::size_t k = todo[from + j];
                const Analysis &a = (*res)[j];
                for (const DepMatch &m : found[k]) {
                    const int x = m.nodes[static_cast<std::size_t>(kind->a)];
                    if (kind->attention) {
                        const int y = m.nodes[static_cast<std::size_t>(kind->b)];
                        auto added = att.add(a, x, y);
                        if (!added)
                            return added.error();
                        if (*added)
                            refs.push_back({chunk[k].id, x, y});
                    } else {
                        sur.add(a, x, measure ? measure->value(graphs[k], m) : std::nullopt, measure.has_value());
                    }
                }
            }
        }
        return {};
    };
    auto done = forEachBlock(*chunks, kStatBlock, 0, std::numeric_limits<std::size_t>::max(), "query", body);
    if (!done)
        return fail(done.message());
    const std::string trees = predicted == 0 ? "gold" : predicted == matched ? "predicted" : "mixed";
    if (predicted > 0)
        std::cerr << "query: the dependency trees of " << predicted << " of " << matched << " matched sentences are predicted (parser "
                  << parserSpec.parser << "), not the input's\n";
    if (tooLong > 0)
        std::cerr << "query: " << tooLong << " matched sentences are longer than the model's " << maxWords << " words (left out)\n";
    const StatContext context{model, patternText, trees, sentences, matched};
    std::string text;
    if (kind->attention) {
        auto o = attentionOutput(att.result(), context, refs, spec, json);
        if (!o)
            return 1;
        text = *o;
    } else {
        text = surprisalOutput(sur.result(), context, json);
    }
    return writeOutput(out.empty() ? std::string("-") : out, text);
}

} // namespace treelens::cli
