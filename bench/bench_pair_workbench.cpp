// The pair workbench on a whole corpus (default: WikiQA test, 2,351 pairs):
// seconds from "open" until every pair is parsed, scored by two systems and the
// worst question's first pair is shown, and the worst GUI-thread stall meanwhile
// (LatencyProbe). Prints one JSON object. See docs/pairs.md.
//   bench_pair_workbench [PAIRS] [SYSTEM_A] [SYSTEM_B]   (systems: model files or "idf")
#include <cstdio>

#include <QApplication>
#include <QElapsedTimer>
#include <QTimer>

#include <nlohmann/json.hpp>

#include "core/encoders/encoder.h"
#include "ui/pairworkbench.h"
#include "ui/session/jobrunner.h"
#include "ui/session/latencyprobe.h"
#include "bench/benchpaths.h"

int main(int argc, char **argv)
{
    qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    const QStringList args = app.arguments();
    const QString pairs = args.value(1, QString::fromUtf8(TREELENS_DEFAULT_SHARED_DIR) + QStringLiteral("/data/wikiqa/test"));
    const QString a = args.value(2, QString::fromStdString(treelens::findShippedModel("iggsa-en-wikiqa.safetensors")));
    const QString b = args.value(3, QString::fromStdString(treelens::findShippedModel("ggsa-en-wikiqa.safetensors")));
    treelens::JobRunner jobs;
    treelens::PairWorkbench wb(jobs);
    wb.setSystems(a, b);
    wb.show();
    treelens::LatencyProbe probe(5);
    QElapsedTimer t;
    double parsedS = -1, scoredS = -1, shownS = -1;
    int rc = 0;
    QObject::connect(&wb, &treelens::PairWorkbench::corpusReady, [&] { parsedS = t.elapsed() / 1000.0; });
    QObject::connect(&wb, &treelens::PairWorkbench::scoresReady, [&] { scoredS = t.elapsed() / 1000.0; });
    QObject::connect(&wb, &treelens::PairWorkbench::pairReady, [&] {
        if (shownS < 0) {
            shownS = t.elapsed() / 1000.0;
            QTimer::singleShot(200, &app, &QApplication::quit);
        }
    });
    QObject::connect(&wb, &treelens::PairWorkbench::failed, [&](const QString &m) {
        std::fprintf(stderr, "bench_pair_workbench: %s\n", m.toUtf8().constData());
        rc = 1;
        QApplication::quit();
    });
    QTimer::singleShot(0, &app, [&] {
        probe.start();
        t.start();
        wb.openCorpus(pairs);
    });
    app.exec();
    probe.stop();
    nlohmann::json out = {{"benchmark", "pair_workbench"},
                          {"input", pairs.toStdString()},
                          {"pairs", wb.corpus() ? wb.corpus()->pairs.size() : 0},
                          {"system_a", a.toStdString()},
                          {"system_b", b.toStdString()},
                          {"parsed_s", parsedS},
                          {"scored_s", scoredS},
                          {"shown_s", shownS},
                          {"gui_max_stall_ms", probe.maxStallMs()},
                          {"gui_stalls_over_100ms", probe.stallsOver100ms()}};
    std::printf("%s\n", out.dump().c_str());
    return rc;
}
