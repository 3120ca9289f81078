// The main window's behaviour (see mainwindow.h): what it does with the jobs' results,
// the document's changes, models, corpora, parsers, drops and the pair workbench.
// Building it (views, docks, menus, first-run placement) is in mainwindowsetup.cpp.
#include "ui/mainwindow.h"

#include <algorithm>

#include <QCloseEvent>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QMessageBox>
#include <QMimeData>
#include <QSignalBlocker>
#include <QStatusBar>
#include <QTabWidget>
#include <QThread>

#include "core/parsing/parser.h"
#include "ui/controlpanel.h"
#include "ui/ablationcontrol.h"
#include "ui/corpuspanel.h"
#include "ui/exportservice.h"
#include "ui/minimalpairspanel.h"
#include "ui/modelfiledialog.h"
#include "ui/modelpanel.h"
#include "ui/pairworkbench.h"
#include "ui/parserchoice.h"
#include "ui/probingpanel.h"
#include "ui/sentencepanel.h"
#include "ui/session/settings.h"
#include "ui/statusline.h"
#include "ui/viewhost.h"
#include "ui/viewtabs.h"
#include "viz/constituencyview.h"
#include "viz/dependencyview.h"
#include "viz/linkstripview.h"
#include "viz/treetextview.h"

namespace treelens {

MainWindow::MainWindow(QWidget *parent) : QMainWindow(parent)
{
    setWindowTitle(QStringLiteral("TreeLens"));
    setAcceptDrops(true);
    setDockOptions(QMainWindow::AnimatedDocks | QMainWindow::AllowTabbedDocks);
    createViews();
    createDocks();
    createActions();

    m_status = new StatusLine(statusBar());
    connect(m_status, &StatusLine::cancelRequested, this, &MainWindow::cancel);

    connect(&m_jobs, &JobRunner::busyChanged, &m_document, &AnalysisDocument::setBusy);
    connect(&m_jobs, &JobRunner::resultAvailable, this,
            [this](quint64, std::shared_ptr<const Sentence> s, std::shared_ptr<const Analysis> a, const QString &modelError) {
                m_document.setResult(std::move(s), std::move(a), modelError);
            });
    connect(&m_jobs, &JobRunner::jobFailed, this, [this](quint64, const QString &msg) { m_document.setError(msg); });
    connect(&m_jobs, &JobRunner::progressChanged, this,
            [this](quint64, int done, int total, const QString &stage) { m_status->showProgress(done, total, stage); });
    connect(&m_jobs, &JobRunner::modelLoaded, this, [this](const QString &path, std::shared_ptr<const EncoderInfo> info) {
        m_model->setModel(path, *info);
    });
    connect(&m_jobs, &JobRunner::modelFailed, this, [this](quint64 generation, const QString &msg) {
        if (generation == 0) // the eager load at setModelPath
            m_model->setError(m_jobs.modelPath(), msg);
    });
    connect(&m_jobs, &JobRunner::corpusAnalysisAvailable, this, [this](quint64, std::shared_ptr<const CorpusAnalysis> r) {
        m_corpus->setAnalysis(r);
        m_status->setText(tr("Scored %n sentence(s) in %1 s", nullptr, r->scored).arg(r->seconds, 0, 'f', 1));
        Q_EMIT corpusScored();
    });
    // After the view host's connection (createViews): the views are up to date when analysisShown() goes out.
    connect(&m_document, &AnalysisDocument::changed, this, &MainWindow::onDocumentChanged);

    {
        const QString saved = Settings::value(QStringLiteral("model/precision"), QStringLiteral("fp32")).toString();
        const bool known = QStringList{QStringLiteral("fp32"), QStringLiteral("int8"), QStringLiteral("bf16"),
                                       QStringLiteral("auto")}.contains(saved);
        m_jobs.encoders().setPrecision(known ? saved.toStdString() : std::string("fp32"));
        // Encoders run on worker threads; on a small machine every core for them leaves the
        // GUI thread fighting their spinning pools (docs/performance.md, "GUI").
        m_jobs.encoders().setThreads(std::max(1, QThread::idealThreadCount() - 1));
    }
    const ParserConfig config = savedParserConfig();
    m_jobs.setParserConfig(config);
    for (const auto &p : availableParsers())
        m_parserNames << QString::fromStdString(p.name);
    m_controls->setParsers(m_parserNames, QString::fromStdString(config.backend));

    if (!restoreGeometry(Settings::windowGeometry()))
        placeOnFirstRun();
    restoreState(Settings::windowState());
}

MainWindow::~MainWindow() = default;

QStringList MainWindow::exportableViewNames()
{
    return ViewHost::exportableViewNames();
}

ExportableView *MainWindow::exportableView(const QString &name)
{
    return m_views->exportableView(name);
}

void MainWindow::setPrecision(const QString &precision, bool remember)
{
    if (remember)
        Settings::setValue(QStringLiteral("model/precision"), precision);
    if (precision.toStdString() == m_jobs.encoders().precision())
        return;
    m_jobs.encoders().setPrecision(precision.toStdString());
    if (!m_jobs.modelPath().isEmpty()) {
        setModelPath(m_jobs.modelPath());
        if (m_document.sentence())
            analyseSentence(m_document.sentence());
    }
}

QString MainWindow::precision() const { return QString::fromStdString(m_jobs.encoders().precision()); }

void MainWindow::setModelPath(const QString &path)
{
    // The probing dock follows the window's model unless it has models of its own:
    // none checked, or only the window's model, is not a choice of its own.
    if (m_probing) {
        const QStringList own = m_probing->modelPaths();
        if (own.isEmpty() || (own.size() == 1 && own.front() == m_jobs.modelPath()))
            m_probing->setModelPath(path);
    }
    if (path != m_jobs.modelPath()) { // the heads switched off were another model's
        const QSignalBlocker quiet(m_ablation); // no analysis with the old model: the new one follows
        m_ablation->reset();
        m_jobs.setAblation({});
        m_ablationBadge->hide();
    }
    m_jobs.setModelPath(path);
    m_minimalPairs->setModelPath(path);
    if (!path.isEmpty()) {
        m_model->setLoading(path);
        Settings::addRecentModel(path);
        m_model->setRecent(Settings::recentModels());
    }
    setWindowTitle(path.isEmpty() ? QStringLiteral("TreeLens")
                                  : QStringLiteral("TreeLens — %1").arg(QFileInfo(path).fileName()));
}

void MainWindow::openProbedSentence(const QString &sentenceId, int layer, int head,
                                    std::shared_ptr<const Sentence> sentence)
{
    const int row = m_corpus->model()->findSentence(sentenceId.toStdString(), sentence.get());
    if (row < 0 && (!sentence || sentence->id != sentenceId.toStdString())) {
        m_status->setText(tr("Sentence %1 is neither in the open corpus nor in the probed files.").arg(sentenceId));
        return;
    }
    // The layer/head are applied once the analysis has the shape.
    m_document.setPendingSelection(sentenceId.toStdString(), layer, head);
    if (row >= 0)
        m_corpus->activateRow(row);
    else // not in the open corpus: the run's copy, analysed as a corpus sentence (gold trees kept)
        analyseSentence(std::move(sentence));
    ViewState s = m_document.selection();
    s.layer = layer;
    s.head = head;
    setViewState(s);
    // Numbered as the View dock shows them.
    m_status->setText((row >= 0 ? tr("Sentence %1 at layer %2, head %3")
                                : tr("Sentence %1 (from the probed files, not in the open corpus) at layer %2, head %3"))
                          .arg(sentenceId)
                          .arg(layer + 1)
                          .arg(head + 1));
}

void MainWindow::ablationChanged()
{
    m_jobs.setAblation(m_ablation->heads());
    const QString badge = m_ablation->badge();
    m_ablationBadge->setText(badge);
    m_ablationBadge->setVisible(!badge.isEmpty());
    if (m_document.sentence() && !m_jobs.modelPath().isEmpty())
        analyseSentence(m_document.sentence()); // its trees kept; the model runs without those heads
}

void MainWindow::analyse(const QString &text)
{
    const QString t = text.trimmed();
    if (t.isEmpty())
        return;
    m_sentence->setText(t);
    Settings::setLastSentence(t);
    m_sentence->remember(t);
    m_status->setText(tr("Parsing…"));
    m_waitingForAnalysis = true;
    m_jobs.requestParse(t);
}

void MainWindow::analyseSentence(std::shared_ptr<const Sentence> sentence)
{
    if (!sentence)
        return;
    m_sentence->setText(sentenceDisplayText(*sentence));
    m_status->setText(tr("Analysing %1…").arg(QString::fromStdString(sentence->id)));
    m_waitingForAnalysis = true;
    m_jobs.requestSentence(std::move(sentence));
}

bool MainWindow::openCorpus(const QString &path, QString *error)
{
    auto r = readCorpusAsShown(path);
    if (!r) {
        if (error)
            *error = QString::fromStdString(r.message());
        m_status->setText(QString::fromStdString(r.message()));
        return false;
    }
    const auto corpus = *r;
    m_corpus->setCorpus(corpus, path);
    Settings::addRecentFile(path);
    // A corpus opens on its first sentence, not on whatever was typed last.
    if (!corpus->empty())
        m_corpus->activateRow(0);
    m_status->setText(tr("Opened %1: %n sentence(s)", nullptr, static_cast<int>(corpus->size())).arg(QFileInfo(path).fileName()));
    return true;
}

void MainWindow::scoreCorpus()
{
    if (const auto c = m_corpus->model()->corpus()) {
        m_status->setText(tr("Scoring the corpus…"));
        m_jobs.requestCorpusAnalysis(c);
    }
}

void MainWindow::cancel()
{
    if (!m_jobs.isBusy())
        return;
    m_jobs.cancel();
    if (auto *links = qobject_cast<LinkStripView *>(m_views->widget(QStringLiteral("links"))))
        links->stop();
    m_waitingForAnalysis = false;
    m_status->setText(tr("Cancelled."));
}

void MainWindow::setParser(const QString &name)
{
    const auto config = askParserConfig(this, m_jobs.parserConfig(), name);
    if (!config) { // cancelled: the dock shows the parser in use again
        m_controls->setParsers(m_parserNames, QString::fromStdString(m_jobs.parserConfig().backend));
        return;
    }
    m_jobs.setParserConfig(*config);
    Settings::setParserBackend(name);
    // Re-parse what is on screen with the new parser (typed text only: corpus sentences keep their gold trees).
    if (const auto s = m_document.sentence(); s && s->id == "input")
        analyse(QString::fromStdString(s->text));
}

void MainWindow::setViewState(const ViewState &state)
{
    m_document.setSelection(state);
    m_views->syncVisibleViews(); // also when the selection was already this one
}

TreeTextView *MainWindow::treeTextView() { return m_views->textView(); }
ConstituencyView *MainWindow::constituencyView() { return m_views->constituencyView(); }
DependencyView *MainWindow::dependencyView() { return m_views->dependencyView(); }
PriorHeatmap *MainWindow::priorView() { return m_views->priorView(); }
AttentionHeatmap *MainWindow::attentionView() { return m_views->attentionView(); }
AttentionOverview *MainWindow::overviewView() { return m_views->overviewView(); }
QTabWidget *MainWindow::plotTabs() { return m_tabs->plotTabs(); }
QTabWidget *MainWindow::treeTabs() { return m_tabs->treeTabs(); }
LinkStripView *MainWindow::linkView() { return m_views->linkView(); }
double MainWindow::lastViewUpdateMs() const { return m_views->lastUpdateMs(); }

void MainWindow::onDocumentChanged(AnalysisDocument::Changes what)
{
    if (what & AnalysisDocument::BusyChanged)
        m_status->setBusy(m_document.isBusy());
    showSelection(what);
    if (what & (AnalysisDocument::SentenceChanged | AnalysisDocument::AnalysisChanged)) {
        m_model->setPrediction(m_document.analysisFits() ? m_document.analysis().get() : nullptr);
        if (const auto s = m_document.sentence()) {
            m_status->setText(StatusLine::describe(*s, m_document.modelMessage()));
            if (m_waitingForAnalysis) {
                m_waitingForAnalysis = false;
                Q_EMIT analysisShown(true);
            }
        }
    } else if ((what & AnalysisDocument::ErrorChanged) && !m_document.lastError().isEmpty()) {
        m_status->setText(tr("Error: %1").arg(m_document.lastError()));
        if (m_waitingForAnalysis) {
            m_waitingForAnalysis = false;
            Q_EMIT analysisShown(false);
        }
    }
}

void MainWindow::showSelection(AnalysisDocument::Changes what)
{
    // The dock mirrors the document here; it reports only what the user changes.
    const QSignalBlocker block(m_controls);
    const auto s = m_document.sentence();
    if ((what & (AnalysisDocument::SentenceChanged | AnalysisDocument::AnalysisChanged)) && s) {
        const auto a = m_document.analysisFits() ? m_document.analysis() : nullptr;
        m_controls->setShape(a ? a->layers : 0, a ? a->heads : 0, s->words());
        m_tabs->updateOptionalTabs(a.get());
        if (a)
            m_controls->setAttentionKinds(!a->attentionRelation.empty() ? ControlPanel::AttentionKinds::Relation
                                          : !a->attentionRaw.empty()    ? ControlPanel::AttentionKinds::Prior
                                                                        : ControlPanel::AttentionKinds::Single);
    }
    if (what & AnalysisDocument::SelectionChanged || (what & (AnalysisDocument::SentenceChanged | AnalysisDocument::AnalysisChanged) && s))
        m_controls->setState(m_document.selection());
}

void MainWindow::openFileDialog()
{
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Open corpus"), QFileInfo(Settings::recentFiles().value(0)).absolutePath(),
        tr("Corpora (*.conllu *.mrg *.ptb *.json *.jsonl *.txt);;All files (*)"));
    if (path.isEmpty())
        return;
    QString error;
    if (!openCorpus(path, &error))
        QMessageBox::warning(this, tr("Open corpus"), error);
}

void MainWindow::loadModelDialog()
{
    const QString path = chooseEncoderFile(this, tr("Load model"), QFileInfo(m_jobs.modelPath()).absolutePath());
    if (path.isEmpty())
        return;
    setModelPath(path);
    Settings::setLastModel(path);
    if (const auto s = m_document.sentence())
        analyseSentence(s);
}

Status MainWindow::exportCurrent(const QString &viewName, const QString &path, int dpi)
{
    return m_export->exportView(viewName, path, dpi);
}

void MainWindow::closeEvent(QCloseEvent *event)
{
    Settings::setWindowGeometry(saveGeometry(), saveState());
    m_jobs.cancel();
    QMainWindow::closeEvent(event);
}

void MainWindow::dragEnterEvent(QDragEnterEvent *event)
{
    if (event->mimeData()->hasUrls() || event->mimeData()->hasText())
        event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent *event)
{
    const QMimeData *mime = event->mimeData();
    if (mime->hasUrls()) {
        for (const QUrl &url : mime->urls()) {
            const QString path = url.toLocalFile();
            if (path.isEmpty())
                continue;
            if (path.endsWith(QLatin1String(".safetensors"), Qt::CaseInsensitive)) {
                setModelPath(path);
                if (const auto s = m_document.sentence())
                    analyseSentence(s);
            } else {
                QString error;
                if (!openCorpus(path, &error))
                    QMessageBox::warning(this, tr("Open corpus"), error);
            }
        }
        event->acceptProposedAction();
    } else if (mime->hasText()) {
        analyse(mime->text());
        event->acceptProposedAction();
    }
}

PairWorkbench *MainWindow::pairWorkbench()
{
    if (!m_pairs) {
        m_pairs = new PairWorkbench(m_jobs, this);
        m_pairs->setWindowFlag(Qt::Window);
        m_pairs->setAttribute(Qt::WA_DeleteOnClose, false);
    }
    m_pairs->show();
    m_pairs->raise();
    m_pairs->activateWindow();
    return m_pairs;
}

} // namespace treelens
