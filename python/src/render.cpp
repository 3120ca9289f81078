// The views drawn offscreen for Python (see render.h): an AnalysisDocument holding the
// sentence and its analysis, the named view in a ViewHost (never shown), the export
// service writing it to a temporary file whose bytes are returned — what
// `treelens --export-view` does for one sentence, without a parser or a model.
#include "python/src/render.h"

#include <cstdlib>

#include <QApplication>
#include <QFile>
#include <QTemporaryDir>
#include <QThread>
#include <QWidget>

#include "ui/exportservice.h"
#include "ui/session/analysisdocument.h"
#include "ui/viewhost.h"
#include "ui/viewregistry.h"

namespace treelens {

namespace {

/// The process' QApplication: the offscreen platform unless QT_QPA_PLATFORM names one.
void ensureApplication()
{
    if (QApplication::instance())
        return;
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    // Without a runtime folder Qt warns on every first use (a notebook cell's output): a
    // private one (0700), removed when the process ends.
    if (qEnvironmentVariableIsEmpty("XDG_RUNTIME_DIR")) {
        static QTemporaryDir runtime;
        if (runtime.isValid())
            qputenv("XDG_RUNTIME_DIR", QFile::encodeName(runtime.path()));
    }
    static int argc = 1;
    static char name[] = "treelens-python";
    static char *argv[] = {name, nullptr};
    static QApplication *app = new QApplication(argc, argv); // lives as long as the process
    (void)app;
}

} // namespace

Result<std::string> renderAnalysisView(const Sentence &sentence, std::shared_ptr<const Analysis> analysis,
                                       const std::string &viewName, int layer, int head, const std::string &format,
                                       int dpi, const std::string &attention)
{
    if (format != "svg" && format != "png" && format != "pdf")
        return Error{"format '" + format + "': svg, png or pdf"};
    if (attention != "model" && attention != "plain" && attention != "relation")
        return Error{"attention '" + attention + "': model (after the structural weighting), plain or relation"};
    if (dpi < 10 || dpi > 2400)
        return Error{"dpi " + std::to_string(dpi) + " is outside 10..2400"};
    ensureApplication();
    // Qt's widgets live on the thread that made the QApplication: from any other the figure
    // would come out blank (timers refused), so that is an error, said once here.
    if (QThread::currentThread() != QApplication::instance()->thread())
        return Error{"render runs on the thread that rendered first (Qt's widgets belong to it); this is another thread"};
    const QString view = QString::fromStdString(viewName);
    if (!ViewHost::exportableViewNames().contains(view))
        return Error{"unknown view '" + viewName + "' (expected one of: " +
                     ViewHost::exportableViewNames().join(QStringLiteral(", ")).toStdString() + ")"};
    if (analysis) {
        if (layer < -1 || layer >= analysis->layers)
            return Error{"layer " + std::to_string(layer) + " is not among the model's " + std::to_string(analysis->layers) +
                         " (0-based)"};
        if (head < -1 || head >= analysis->heads)
            return Error{"head " + std::to_string(head) + " is not among the model's " + std::to_string(analysis->heads) +
                         " (0-based)"};
    }
    auto shownSentence = std::make_shared<const Sentence>(sentence);
    if (const QString why = ViewHost::viewRefusal(view, shownSentence.get(), analysis.get()); !why.isEmpty())
        return Error{why.toStdString()};

    AnalysisDocument document;
    QWidget parent; // owns the view; never shown
    ViewHost host(&document, &parent, {view});
    ExportService service(document, host);
    document.setSentence(shownSentence);
    if (analysis)
        document.setAnalysis(std::move(analysis));
    ViewState s = document.selection();
    if (layer >= 0)
        s.layer = layer;
    if (head >= 0)
        s.head = head;
    s.weightedAttention = attention != "plain";
    s.relationAttention = attention == "relation";
    document.setSelection(s);

    QTemporaryDir dir;
    if (!dir.isValid())
        return Error{"cannot create a temporary folder for the figure"};
    const QString path = dir.filePath(QStringLiteral("view.") + QString::fromStdString(format));
    if (auto st = service.exportView(view, path, dpi); !st)
        return st.error();
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return Error{"the figure was not written"};
    const QByteArray bytes = file.readAll();
    return std::string(bytes.constData(), static_cast<std::size_t>(bytes.size()));
}

std::string defaultAnalysisView(const Sentence &sentence, const Analysis *analysis)
{
    for (const ViewSpec &spec : viewRegistry()) {
        if (!inMainWindow(spec) || !spec.exportable)
            continue;
        if (spec.tabShown && !spec.tabShown(analysis))
            continue;
        if (spec.refusal && !spec.refusal(&sentence, analysis).isEmpty())
            continue;
        return spec.name.toStdString();
    }
    return {};
}

std::vector<std::string> renderableViews()
{
    std::vector<std::string> out;
    for (const QString &v : ViewHost::exportableViewNames())
        out.push_back(v.toStdString());
    return out;
}

} // namespace treelens
