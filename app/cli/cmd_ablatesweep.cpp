// treelens-cli ablate-sweep: every head (and every whole layer) of a language model switched
// off in turn over a minimal-pair file; per cell the change of accuracy and of the mean margin
// log p(good) - log p(bad) against the unablated model, with paired 95 % intervals, the pairs
// it flips, a layers x heads table and an SVG heatmap (docs/minimal-pairs.md, "Sweep").
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>

#include <nlohmann/json.hpp>

#include "app/cli/command.h"
#include "app/cli/minimalpairsrun.h"
#include "core/base/fileio.h"
#include "core/base/strings.h"
#include "core/eval/minimalpairs.h"
#include "core/eval/minimalpairscoring.h"
#include "core/formats/shard.h"

namespace treelens::cli {

namespace {

using ojson = nlohmann::ordered_json;

struct SweepSpec {
    DeviceSpec dev;
    std::string input, out, figure;
    bool json = false;
    bool prependBos = false;
    ShardOptions shard;
};

/// The baseline over the pairs it read: accuracy and mean margin.
ojson baselineJson(const PairOutcomes &b)
{
    int hits = 0, n = 0;
    double margin = 0.0;
    for (std::size_t i = 0; i < b.correct.size(); ++i)
        if (b.correct[i] >= 0) {
            hits += b.correct[i];
            margin += b.margin[i];
            ++n;
        }
    const Proportion p = wilsonInterval(hits, n);
    return {{"pairs", n}, {"accuracy", p.value}, {"ci95", {p.low, p.high}}, {"mean_margin", n ? margin / n : 0.0},
            {"skipped", b.correct.size() - static_cast<std::size_t>(n)}};
}

ojson changeJson(const PairedChange &c) { return c.valid ? ojson(c.change) : ojson(nullptr); }
ojson intervalJson(const PairedChange &c) { return c.valid ? ojson{c.low, c.high} : ojson(nullptr); }

/// One cell: a head (or a whole layer, head null) against the baseline.
ojson cellJson(int layer, int head, const PairOutcomes &base, const PairOutcomes &ablated, const std::vector<MinimalPair> &pairs)
{
    const SweepCell c = sweepCell(layer, head, base, ablated);
    ojson toWrong = ojson::array(), toRight = ojson::array();
    for (std::size_t i : c.flippedToWrong)
        toWrong.push_back(pairs[i].id);
    for (std::size_t i : c.flippedToRight)
        toRight.push_back(pairs[i].id);
    return {{"layer", layer + 1},
            {"head", head < 0 ? ojson(nullptr) : ojson(head + 1)},
            {"pairs", c.pairs},
            {"accuracy", c.accuracy},
            {"accuracy_change", changeJson(c.accuracyChange)},
            {"accuracy_change_ci95", intervalJson(c.accuracyChange)},
            {"mean_margin_change", changeJson(c.marginChange)},
            {"mean_margin_change_ci95", intervalJson(c.marginChange)},
            {"flipped_to_wrong", toWrong},
            {"flipped_to_right", toRight}};
}

double valueOr0(const ojson &v) { return v.is_number() ? v.get<double>() : 0.0; }

/// The layers x heads table of accuracy change, in points (and each layer's whole-layer cell).
std::string sweepText(const ojson &settings, const std::vector<ojson> &cells)
{
    const int layers = settings.at("layers").get<int>(), heads = settings.at("heads").get<int>();
    const ojson &b = settings.at("baseline");
    char buf[256];
    std::snprintf(buf, sizeof buf, "ablate-sweep: %s; %d pairs, baseline accuracy %.4f, mean margin %.4f nats\n",
                  settings.at("model").get<std::string>().c_str(), b.at("pairs").get<int>(), b.at("accuracy").get<double>(),
                  b.at("mean_margin").get<double>());
    std::string out = buf;
    out += "accuracy change in points when the head (column) of the layer (row) is switched off; all: the whole layer\n";
    out += "layer";
    for (int h = 0; h < heads; ++h) {
        std::snprintf(buf, sizeof buf, " %7s", ("H" + std::to_string(h + 1)).c_str());
        out += buf;
    }
    out += "     all\n";
    std::vector<std::vector<std::string>> grid(static_cast<std::size_t>(layers),
                                               std::vector<std::string>(static_cast<std::size_t>(heads + 1), "      ."));
    for (const ojson &c : cells) {
        const int l = c.at("layer").get<int>() - 1, h = c.at("head").is_null() ? heads : c.at("head").get<int>() - 1;
        const double v = valueOr0(c.at("accuracy_change"));
        std::snprintf(buf, sizeof buf, "%+7.1f", std::abs(v) < 5e-4 ? 0.0 : 100.0 * v);
        if (l >= 0 && l < layers && h >= 0 && h <= heads)
            grid[static_cast<std::size_t>(l)][static_cast<std::size_t>(h)] = buf;
    }
    for (int l = 0; l < layers; ++l) {
        std::snprintf(buf, sizeof buf, "L%-4d", l + 1);
        out += buf;
        for (const std::string &cell : grid[static_cast<std::size_t>(l)])
            out += " " + cell;
        out += "\n";
    }
    return out;
}

/// The heatmap: a row per layer, a column per head and one for the whole layer; red where
/// switching off lowers the accuracy, blue where it raises it, white at no change, the scale
/// symmetric around 0 up to the largest change; each cell's value in points.
std::string sweepSvg(const ojson &settings, const std::vector<ojson> &cells)
{
    const int layers = settings.at("layers").get<int>(), heads = settings.at("heads").get<int>();
    double top = 1e-9;
    for (const ojson &c : cells)
        top = std::max(top, std::abs(valueOr0(c.at("accuracy_change"))));
    const int cw = 46, ch = 26, left = 56, topY = 58, cols = heads + 1;
    const ojson &b = settings.at("baseline");
    char buf[512];
    std::snprintf(buf, sizeof buf, "%s: accuracy change when a head is switched off (baseline %.1f %% of %d pairs)",
                  settings.at("model").get<std::string>().c_str(), 100.0 * b.at("accuracy").get<double>(), b.at("pairs").get<int>());
    const std::string title = buf;
    const std::string subtitle = settings.at("input").get<std::string>() + "; points; red: worse without the head, blue: better";
    // Wide enough for the grid and its legend, and for the title and subtitle (about 7 px a character).
    const int width = std::max(left + cols * cw + 120, 16 + 7 * static_cast<int>(std::max(title.size(), subtitle.size())));
    const int height = topY + layers * ch + 50;
    std::string svg;
    std::snprintf(buf, sizeof buf,
                  "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" font-family=\"sans-serif\" "
                  "font-size=\"11\">\n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
                  width, height);
    svg += buf;
    svg += "<text x=\"8\" y=\"18\" font-size=\"13\">" + xmlEscaped(title) + "</text>\n";
    svg += "<text x=\"8\" y=\"36\" fill=\"#555\">" + xmlEscaped(subtitle) + "</text>\n";
    for (int h = 0; h <= heads; ++h) {
        std::snprintf(buf, sizeof buf, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%s</text>\n", left + h * cw + cw / 2, topY - 6,
                      h < heads ? ("H" + std::to_string(h + 1)).c_str() : "all");
        svg += buf;
    }
    for (int l = 0; l < layers; ++l) {
        std::snprintf(buf, sizeof buf, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">L%d</text>\n", left - 6, topY + l * ch + ch / 2 + 4,
                      l + 1);
        svg += buf;
    }
    for (const ojson &c : cells) {
        const int l = c.at("layer").get<int>() - 1, h = c.at("head").is_null() ? heads : c.at("head").get<int>() - 1;
        double v = valueOr0(c.at("accuracy_change"));
        if (std::abs(v) < 5e-4) // below the 0.1 points shown: no change, not "-0.0"
            v = 0.0;
        const double t = std::min(1.0, std::abs(v) / top);
        const int fade = static_cast<int>(std::lround(255 * (1.0 - t)));
        const int r = v < 0 ? 255 : fade, g = fade, bl = v < 0 ? fade : 255;
        std::snprintf(buf, sizeof buf,
                      "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"rgb(%d,%d,%d)\" stroke=\"#ccc\"><title>L%d %s: "
                      "%+.2f points, margin %+.3f nats</title></rect>\n<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" "
                      "fill=\"%s\">%+.1f</text>\n",
                      left + h * cw, topY + l * ch, cw, ch, r, g, bl, l + 1,
                      h < heads ? ("H" + std::to_string(h + 1)).c_str() : "(every head)", 100.0 * v,
                      valueOr0(c.at("mean_margin_change")), left + h * cw + cw / 2, topY + l * ch + ch / 2 + 4,
                      t > 0.55 ? "white" : "black", 100.0 * v);
        svg += buf;
    }
    const int lx = left + cols * cw + 20;
    std::snprintf(buf, sizeof buf,
                  "<rect x=\"%d\" y=\"%d\" width=\"14\" height=\"14\" fill=\"rgb(255,0,0)\"/><text x=\"%d\" y=\"%d\">%+.1f</text>\n"
                  "<rect x=\"%d\" y=\"%d\" width=\"14\" height=\"14\" fill=\"white\" stroke=\"#ccc\"/><text x=\"%d\" y=\"%d\">0</text>\n"
                  "<rect x=\"%d\" y=\"%d\" width=\"14\" height=\"14\" fill=\"rgb(0,0,255)\"/><text x=\"%d\" y=\"%d\">%+.1f</text>\n",
                  lx, topY, lx + 20, topY + 11, -100.0 * top, lx, topY + 20, lx + 20, topY + 31, lx, topY + 40, lx + 20, topY + 51,
                  100.0 * top);
    svg += buf;
    svg += "</svg>\n";
    return svg;
}

/// The whole run's output from its settings and cells (also the merge's).
Result<std::string> sweepOutput(const ojson &settings, const std::vector<ojson> &cells)
{
    const std::string figure = settings.at("figure").get<std::string>();
    if (!figure.empty())
        if (int rc = writeOutput(figure, sweepSvg(settings, cells)); rc != 0)
            return makeError(figure, "the heatmap could not be written");
    if (!settings.at("json").get<bool>())
        return sweepText(settings, cells);
    ojson all = {{"model", settings.at("model")}, {"input", settings.at("input")}, {"baseline", settings.at("baseline")},
                 {"layers", settings.at("layers")}, {"heads", settings.at("heads")}, {"cells", cells},
                 {"intervals", "paired differences, mean +- 1.96 sd / sqrt(n)"}};
    return all.dump() + "\n";
}

int runSweep(const SweepSpec &spec)
{
    if (!spec.figure.empty() && !endsWith(spec.figure, ".svg"))
        return fail("--figure " + spec.figure + ": treelens-cli writes the heatmap as SVG (name it .svg); for PNG or PDF "
                    "draw the --json result with the app: treelens --sweep-figure SWEEP.json --out FILE.png|.pdf");
    auto run = openPairRun("ablate-sweep", spec.input, spec.out, spec.shard, spec.dev);
    if (!run)
        return fail(run.message());
    if (run->done)
        return 0;
    const EncoderInfo &info = run->encoder->info();
    const std::string &model = run->model;
    const std::vector<MinimalPair> *pairs = &run->pairs;
    auto &enc = run->encoder;
    if (info.layers <= 0 || info.heads <= 0)
        return fail(model + " has no attention heads to switch off");
    // The cells: each layer's heads, then the whole layer.
    std::vector<HeadAblation> cells;
    for (int l = 0; l < info.layers; ++l) {
        for (int h = 0; h < info.heads; ++h)
            cells.push_back(HeadAblation{l, h});
        cells.push_back(HeadAblation{l, -1});
    }
    const ShardRange range = shardItems(run->header, cells.size(), 1);
    AnalyzeOptions opt;
    opt.attention = false;
    opt.prependBos = spec.prependBos;
    auto base = pairOutcomes(*enc, *pairs, opt, spec.input, model);
    if (!base)
        return fail(base.message());
    const ojson settings = {{"json", spec.json},     {"figure", spec.figure},       {"model", model},
                            {"input", spec.input},   {"baseline", baselineJson(*base)}, {"layers", info.layers},
                            {"heads", info.heads}};
    std::vector<ojson> done;
    ProgressLine progress("ablate-sweep cells");
    for (std::size_t k = range.begin; k < range.end; ++k) {
        opt.ablate = {cells[k]};
        auto ablated = pairOutcomes(*enc, *pairs, opt, spec.input, model);
        if (!ablated)
            return fail(ablated.message());
        done.push_back(cellJson(cells[k].layer, cells[k].head, *base, *ablated, *pairs));
        progress.update(k + 1 - range.begin);
    }
    progress.finish();
    std::string out;
    if (run->header) {
        out = shardHeaderLine(*run->header) + settings.dump() + "\n";
        for (const ojson &c : done)
            out += c.dump() + "\n";
        out += shardEndLine(done.size());
    } else {
        auto whole = sweepOutput(settings, done);
        if (!whole)
            return fail(whole.message());
        out = *whole;
    }
    return writeOutput(spec.out, out);
}

} // namespace

void addAblateSweepCommand(CLI::App &app, Action &action)
{
    auto *cmd = app.add_subcommand("ablate-sweep", "Every head and every layer of a language model switched off in turn "
                                                   "over minimal pairs: the change of accuracy and margin per head, a heatmap");
    auto spec = std::make_shared<SweepSpec>();
    cmd->add_option("--input,-i", spec->input, "Minimal pairs: BLiMP JSON Lines or a good/bad TSV (as minimal-pairs reads them)")
        ->required()
        ->type_name("FILE");
    addModelOptions(cmd, spec->dev);
    cmd->add_flag("--prepend-bos", spec->prependBos, "Put the model's BOS in front (tokenizers that add none)");
    cmd->add_flag("--json", spec->json, "One JSON object: baseline and one cell per head and layer (keys in docs/minimal-pairs.md)");
    cmd->add_option("--figure", spec->figure, "Write the layers x heads heatmap of accuracy change here (SVG)")->type_name("FILE.svg");
    cmd->add_option("-o,--output", spec->out, "Write to OUT (atomically) instead of stdout")->type_name("OUT");
    addShardOptions(cmd, spec->shard, "the cells (heads and layers), one at a time; merge prints the table");
    cmd->callback([&action, spec]() { action = [spec]() { return runSweep(*spec); }; });
}

Result<std::string> mergedAblateSweep(const MergedShards &merged, std::string *)
{
    const std::string &body = merged.body;
    const std::size_t eol = body.find('\n');
    if (eol == std::string::npos)
        return makeError("merge", "the ablate-sweep shards hold no settings line");
    try {
        const ojson settings = ojson::parse(body.substr(0, eol));
        std::vector<ojson> cells;
        for (std::string_view line : linesAfterSettings(body))
            cells.push_back(ojson::parse(line));
        return sweepOutput(settings, cells);
    } catch (const std::exception &e) {
        return makeError("merge", std::string("an ablate-sweep shard is not what ablate-sweep writes: ") + e.what());
    }
}

} // namespace treelens::cli
