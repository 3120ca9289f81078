// Wall time of a probing run in the GUI's Probing dock (offscreen), as a user
// starts it: UD EWT dev (2,001 sentences) cut 0.8/0.1/0.1, every task, layers
// all, both poolings, with or without the baselines; and how responsive the GUI
// thread stays meanwhile (LatencyProbe: the worst stall and the stalls over
// 100 ms while the live curves are drawn). Prints one JSON object. See
// docs/probing.md#speed.
//
//   bench_probe_gui [--corpus FILE] [--model M [--model M2 ...]] [--tasks all|T,...] [--baselines] [--screenshots DIR]
//
// --screenshots DIR: after the run, grabs the dock with each result tab shown
// (DIR/probing-<tab>.png; docs/screenshots/ holds the ones of EWT dev).
#include <cstdio>
#include <cstdlib>
#include <string>

#include <QApplication>
#include <QDir>
#include <QTabWidget>
#include <QElapsedTimer>

#include <nlohmann/json.hpp>

#include "core/encoders/encoder.h"
#include "ui/probingpanel.h"
#include "ui/session/latencyprobe.h"
#include "bench/benchpaths.h"

using namespace treelens;

int main(int argc, char **argv)
{
    qputenv("QT_QPA_PLATFORM", qgetenv("QT_QPA_PLATFORM").isEmpty() ? QByteArray("offscreen") : qgetenv("QT_QPA_PLATFORM"));
    QApplication app(argc, argv);
    std::string corpus = std::string(TREELENS_DEFAULT_SHARED_DIR) + "/data/ud-english-ewt/en_ewt-ud-dev.conllu";
    std::string model = findShippedModel("tree-transformer-en-small.safetensors");
    QStringList models; // --model given more than once: the dock runs them one after another
    std::string tasks = "all";
    bool baselines = false;
    QString shots;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) {
                std::fprintf(stderr, "bench_probe_gui: %s needs a value\n", a.c_str());
                std::exit(2);
            }
            return argv[++i];
        };
        if (a == "--corpus")
            corpus = value();
        else if (a == "--model") {
            model = value();
            models << QString::fromStdString(model);
        }
        else if (a == "--tasks")
            tasks = value();
        else if (a == "--baselines")
            baselines = true;
        else if (a == "--screenshots")
            shots = QString::fromStdString(value());
        else {
            std::fprintf(stderr, "usage: bench_probe_gui [--corpus FILE] [--model M] [--tasks all|T,...] [--baselines] [--screenshots DIR]\n");
            return 2;
        }
    }
    if (model.empty()) {
        std::fprintf(stderr, "bench_probe_gui: the shipped model is not installed (give --model)\n");
        return 1;
    }

    ProbingPanel panel;
    panel.resize(1400, 900);
    panel.show();
    if (models.size() > 1)
        panel.setModelPaths(models);
    else
        panel.setModelPath(QString::fromStdString(model));
    panel.setFiles(QString::fromStdString(corpus), QString(), QString());
    if (tasks == "all") {
        QStringList all;
        for (const auto *list : {&probeRunSentenceTasks(), &probeRunStructuralTasks(), &probeRunAttentionTasks()})
            for (const auto &t : *list)
                all << QString::fromStdString(t);
        panel.setTasks(all);
    } else {
        panel.setTasks(QString::fromStdString(tasks).split(QLatin1Char(',')));
    }
    panel.setLayers(QStringLiteral("all"));
    panel.setPooling(QStringLiteral("both"));
    panel.setControl(baselines);
    panel.setRandomInit(baselines);

    bool done = false, ok = false;
    QString message;
    QObject::connect(&panel, &ProbingPanel::finished, [&](bool success, const QString &m) {
        done = true;
        ok = success;
        message = m;
    });
    LatencyProbe probe(5);
    QElapsedTimer clock;
    clock.start();
    probe.start();
    panel.run();
    while (!done)
        QApplication::processEvents(QEventLoop::AllEvents, 50);
    const double seconds = clock.elapsed() / 1000.0;
    probe.stop();
    if (!ok) {
        std::fprintf(stderr, "bench_probe_gui: the run failed: %s\n", message.toStdString().c_str());
        return 1;
    }
    nlohmann::json out = {{"benchmark", "probe_gui"},
                          {"corpus", corpus},
                          {"models", panel.modelPaths().join(QLatin1Char(',')).toStdString()},
                          {"tasks", panel.checkedTasks().join(QLatin1Char(',')).toStdString()},
                          {"baselines", baselines},
                          {"wall_seconds", seconds},
                          {"curve_points", panel.curvePointCount()},
                          {"gui_max_stall_ms", probe.maxStallMs()},
                          {"gui_stalls_over_100ms", probe.stallsOver100ms()},
                          {"gui_samples", probe.samples()}};
    std::printf("%s\n", out.dump().c_str());
    if (!shots.isEmpty()) {
        auto *tabs = panel.findChild<QTabWidget *>(QStringLiteral("probingTabs"));
        for (int i = 0; tabs && i < tabs->count(); ++i) {
            tabs->setCurrentIndex(i);
            for (int k = 0; k < 5; ++k)
                QApplication::processEvents();
            const QString name = tabs->tabText(i).toLower().replace(QLatin1Char(' '), QLatin1Char('-'));
            panel.grab().save(QDir(shots).filePath(QStringLiteral("probing-%1.png").arg(name)));
        }
    }
    return 0;
}
