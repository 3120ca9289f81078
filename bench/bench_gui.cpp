// End-to-end GUI latency of the real main window (offscreen) with the shipped
// default model (or --model M, in --precision P): from a sentence submitted to every view updated and painted,
// for sentences of 10, 40 and 200 words, and the worst GUI-thread stall
// (LatencyProbe) while a whole corpus (UD EWT dev, 2,001 sentences) is scored in
// the background. Prints one JSON object. See docs/performance.md.
//
//   bench_gui [--runs N] [--corpus FILE.conllu] [--model M] [--precision fp32|int8|bf16|auto]
//
// Two paths per length: "typed" (the sentence's text: tokenise + parse with the
// configured parser + encoder + views) and "preparsed" (the same words with
// both trees given, as for a corpus sentence with gold trees: encoder + views).
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include <QApplication>
#include <QElapsedTimer>
#include <QTabWidget>

#include <nlohmann/json.hpp>

#include "core/encoders/encoder.h"
#include "core/formats/conllu.h"
#include "core/formats/corpus.h"
#include "core/parsing/headrules.h"
#include "ui/corpuspanel.h"
#include "ui/mainwindow.h"
#include "viz/constituencyview.h"
#include "ui/session/latencyprobe.h"
#include "bench/benchpaths.h"

using namespace treelens;

namespace {

template <class F>
bool waitFor(F done, int ms)
{
    QElapsedTimer t;
    t.start();
    while (!done() && t.elapsed() < ms)
        QApplication::processEvents(QEventLoop::AllEvents, 1);
    return done();
}

void copySubtree(const ConstituencyTree &from, int node, ConstituencyTree &to, int parent)
{
    const ConstituencyNode &n = from.node(node);
    const int copy = to.addNode(n.label, parent, n.terminal);
    for (int c : n.children)
        copySubtree(from, c, to, copy);
}

/// A pre-parsed sentence of exactly `words` words: whole PTB trees (traces
/// stripped) under one S, the last one chosen so the total is exact, with
/// dependencies from the Collins head rules. Both trees are given, so showing
/// it needs no parser: encoder and views only.
Result<Sentence> preparsedSentence(const std::vector<Sentence> &trees, int words)
{
    ConstituencyTree combined;
    const int root = combined.addNode("S", -1);
    int total = 0;
    std::vector<bool> used(trees.size(), false);
    while (total < words) {
        const int need = words - total;
        int pick = -1;
        for (std::size_t i = 0; i < trees.size() && pick < 0; ++i) // an exact fit first
            if (!used[i] && trees[i].constituency && static_cast<int>(trees[i].tokens.size()) == need)
                pick = static_cast<int>(i);
        for (std::size_t i = 0; i < trees.size() && pick < 0; ++i) // else any that leaves room for 3+ more
            if (!used[i] && trees[i].constituency && static_cast<int>(trees[i].tokens.size()) + 3 <= need)
                pick = static_cast<int>(i);
        if (pick < 0)
            return Error{"no PTB sentence fits the remaining " + std::to_string(need) + " words"};
        used[static_cast<std::size_t>(pick)] = true;
        const ConstituencyTree &t = *trees[static_cast<std::size_t>(pick)].constituency;
        copySubtree(t, t.contentRoot(), combined, root);
        total += static_cast<int>(trees[static_cast<std::size_t>(pick)].tokens.size());
    }
    combined.renumberWords();
    Sentence out;
    out.id = "preparsed-" + std::to_string(words);
    const auto w = combined.words();
    const auto tags = combined.tags();
    for (std::size_t i = 0; i < w.size(); ++i) {
        Token tok;
        tok.text = w[i];
        tok.xpos = tags[i];
        out.tokens.push_back(tok);
        out.text += (i ? " " : "") + w[i];
    }
    auto dep = toDependencies(combined);
    if (!dep)
        return Error{dep.message()};
    out.dependency = std::move(*dep);
    out.constituency = std::move(combined);
    return out;
}

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v.empty() ? 0.0 : v[v.size() / 2];
}

} // namespace

int main(int argc, char **argv)
{
    qputenv("QT_QPA_PLATFORM", qgetenv("QT_QPA_PLATFORM").isEmpty() ? QByteArray("offscreen") : qgetenv("QT_QPA_PLATFORM"));
    qputenv("XDG_CONFIG_HOME", "/tmp/treelens-bench-gui-config");
    QApplication app(argc, argv);
    int runs = 5;
    std::string modelArg, precision = "fp32";
    std::string corpusPath = std::string(TREELENS_DEFAULT_SHARED_DIR) + "/data/ud-english-ewt/en_ewt-ud-dev.conllu";
    for (int i = 1; i + 1 < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--runs")
            runs = std::max(1, std::atoi(argv[++i]));
        else if (a == "--corpus")
            corpusPath = argv[++i];
        else if (a == "--model")
            modelArg = argv[++i];
        else if (a == "--precision")
            precision = argv[++i];
    }
    const std::string model = modelArg.empty() ? defaultModelPath() : modelArg;
    if (model.empty()) {
        std::fprintf(stderr, "bench_gui: the default model was not found\n");
        return 1;
    }
    // Pre-parsed sentences come from the PTB sample's training files (never the 0180-0199 test files).
    std::vector<Sentence> trees;
    CorpusReadOptions ptbOptions;
    ptbOptions.stripTraces = true;
    ptbOptions.stripFunctionTags = true;
    for (int f = 1; f <= 40; ++f) {
        char name[64];
        std::snprintf(name, sizeof name, "/data/ptb-sample/wsj_%04d.mrg", f);
        auto r = readCorpusFile(std::string(TREELENS_DEFAULT_SHARED_DIR) + name, CorpusFormat::Ptb, ptbOptions);
        if (r)
            trees.insert(trees.end(), r->begin(), r->end());
    }
    if (trees.empty()) {
        std::fprintf(stderr, "bench_gui: the PTB sample (../shared/data/ptb-sample) was not found\n");
        return 1;
    }

    MainWindow w;
    w.resize(1600, 1000);
    w.setPrecision(QString::fromStdString(precision), /*remember=*/false);
    w.setModelPath(QString::fromStdString(model));
    w.show();
    bool shown = false, ok = false;
    QObject::connect(&w, &MainWindow::analysisShown, [&](bool r) {
        shown = true;
        ok = r;
    });
    // Warm-up: parser dictionaries, model load, first layouts.
    w.analyse(QStringLiteral("A warm-up sentence loads the parser and the model."));
    waitFor([&] { return shown; }, 60000);

    nlohmann::json out;
    out["benchmark"] = "gui_end_to_end";
    out["model"] = model;
    out["precision"] = precision;
    out["runs"] = runs;
    out["qpa_platform"] = qgetenv("QT_QPA_PLATFORM").toStdString();
    LatencyProbe probe(5);
    for (int words : {10, 40, 200}) {
        auto pre = preparsedSentence(trees, words);
        if (!pre) {
            std::fprintf(stderr, "bench_gui: %s\n", pre.message().c_str());
            return 1;
        }
        const Sentence &s = *pre;
        for (const char *path : {"typed", "preparsed"}) {
            std::vector<double> toViews, toPaint, parseMs, encoderMs, viewsMs;
            bool allOk = true;
            probe.start();
            for (int r = 0; r < runs; ++r) {
                shown = false;
                QElapsedTimer t;
                t.start();
                if (std::string(path) == "typed")
                    w.analyse(QString::fromStdString(s.text));
                else
                    w.analyseSentence(std::make_shared<const Sentence>(s));
                if (!waitFor([&] { return shown; }, 120000)) {
                    std::fprintf(stderr, "bench_gui: no result for %d words\n", words);
                    return 1;
                }
                // Long trees are laid out on a worker thread: "views updated" is when
                // the tree is drawn too.
                waitFor([&] { return !w.constituencyView()->layoutPending(); }, 60000);
                toViews.push_back(static_cast<double>(t.nsecsElapsed()) / 1e6);
                allOk = allOk && ok && w.document()->analysis() != nullptr;
                if (const auto shownSentence = w.document()->sentence()) {
                    parseMs.push_back(std::atof(shownSentence->metadataValue("timing.parse_ms").c_str()));
                    encoderMs.push_back(std::atof(shownSentence->metadataValue("timing.encoder_ms").c_str()));
                }
                viewsMs.push_back(w.lastViewUpdateMs());
                // Paint what is on screen (the tree and the plot tabs) as the user would see it.
                w.repaint();
                QApplication::processEvents();
                toPaint.push_back(static_cast<double>(t.nsecsElapsed()) / 1e6);
            }
            probe.stop();
            out["latency"].push_back({{"words", words},
                                      {"path", path},
                                      {"submitted_to_views_updated_ms_median", median(toViews)},
                                      {"submitted_to_painted_ms_median", median(toPaint)},
                                      {"submitted_to_painted_ms_max", *std::max_element(toPaint.begin(), toPaint.end())},
                                      {"parse_ms_median", median(parseMs)},
                                      {"encoder_ms_median", median(encoderMs)},
                                      {"views_update_ms_median", median(viewsMs)},
                                      {"ok", allOk},
                                      {"parser", w.document()->sentence() ? w.document()->sentence()->metadataValue("parser") : ""},
                                      {"gui_max_stall_ms", probe.maxStallMs()}});
            std::fprintf(stderr,
                         "%3d words %-6s: views %.1f ms, painted %.1f ms (median of %d; parse %.1f, encoder %.1f, "
                         "view update %.1f), stall %.1f ms%s\n",
                         words, path, median(toViews), median(toPaint), runs, median(parseMs), median(encoderMs),
                         median(viewsMs), probe.maxStallMs(), allOk ? "" : " [NOT OK]");
        }
    }

    // The worst stall while the whole corpus is scored off the GUI thread.
    QString error;
    if (!w.openCorpus(QString::fromStdString(corpusPath), &error)) {
        std::fprintf(stderr, "bench_gui: %s\n", error.toUtf8().constData());
        return 1;
    }
    bool scored = false;
    QObject::connect(&w, &MainWindow::corpusScored, [&] { scored = true; });
    probe.start();
    QElapsedTimer t;
    t.start();
    w.scoreCorpus();
    waitFor([&] { return scored; }, 3600000);
    probe.stop();
    const auto result = w.corpusPanel()->model()->analysis();
    out["corpus"] = {{"file", corpusPath},
                     {"sentences", w.corpusPanel()->model()->rowCount()},
                     {"seconds", static_cast<double>(t.elapsed()) / 1000.0},
                     {"mean_sentence_f1", result ? result->meanF1 : -1.0},
                     {"reference", result ? result->reference.toStdString() : std::string()},
                     {"gui_max_stall_ms", probe.maxStallMs()},
                     {"gui_stalls_over_100ms", probe.stallsOver100ms()},
                     {"probe_samples", probe.samples()}};
    std::printf("%s\n", out.dump(1).c_str());
    return 0;
}
