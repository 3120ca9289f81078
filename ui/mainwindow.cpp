#include "ui/mainwindow.h"

#include "ui/backgroundjobs.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QComboBox>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QElapsedTimer>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QInputDialog>
#include <QKeySequence>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressBar>
#include <QPushButton>
#include <QSaveFile>
#include <QSplitter>
#include <QStatusBar>
#include <QTabWidget>
#include <QTextBrowser>
#include <QVBoxLayout>

#include "core/formats/analysisjson.h"
#include "core/formats/corpus.h"
#include "core/formats/latex.h"
#include "core/parsing/parser.h"
#include "core/runtime/torchinfo.h"
#include "ui/controlpanel.h"
#include "ui/corpuspanel.h"
#include "ui/modelpanel.h"
#include "ui/probingpanel.h"
#include "ui/session/settings.h"
#include "viz/constituencyview.h"
#include "viz/dependencyview.h"
#include "viz/graphlayout.h"
#include "viz/heatmapview.h"
#include "viz/linkstripview.h"
#include "viz/treetextview.h"
#include "viz/viewexport.h"

namespace treelens {

namespace {

/// Writes `text` atomically; the error names the path.
Status writeTextFile(const QString &path, const std::string &text)
{
    QSaveFile f(path);
    if (!f.open(QIODevice::WriteOnly) || f.write(text.data(), static_cast<qint64>(text.size())) != static_cast<qint64>(text.size())
        || !f.commit())
        return Error{path.toStdString() + ": " + f.errorString().toStdString()};
    return {};
}

/// Attention arcs for the LaTeX dependency export: the selected head's
/// attention between words at or above the threshold (focus word only, when set).
std::vector<LatexArc> latexAttentionArcs(const Sentence &s, const Analysis *a, const ViewState &state)
{
    std::vector<LatexArc> arcs;
    if (!a || a->words.size() != s.tokens.size())
        return arcs;
    const int n = static_cast<int>(s.tokens.size());
    for (int i = 0; i < n; ++i) {
        if (state.focusWord >= 0 && i != state.focusWord)
            continue;
        for (int j = 0; j < n; ++j) {
            const float w = wordAttention(*a, state, i, j);
            if (i != j && w >= state.threshold)
                arcs.push_back(LatexArc{i, j, w});
        }
    }
    return arcs;
}

} // namespace

MainWindow::MainWindow(QWidget *parent) : QMainWindow(parent)
{
    setWindowTitle(QStringLiteral("TreeLens"));
    setAcceptDrops(true);
    setDockOptions(QMainWindow::AnimatedDocks | QMainWindow::AllowTabbedDocks);
    createViews();
    createDocks();
    createActions();

    m_status = new QLabel(this);
    m_progress = new QProgressBar(this);
    m_progress->setRange(0, 0);
    m_progress->setMaximumWidth(180);
    m_progress->setVisible(false);
    m_cancel = new QPushButton(tr("Cancel"), this);
    m_cancel->setEnabled(false);
    m_cancel->setToolTip(tr("Stop the running analysis (Esc)"));
    statusBar()->addWidget(m_status, 1);
    statusBar()->addPermanentWidget(m_progress);
    statusBar()->addPermanentWidget(m_cancel);
    connect(m_cancel, &QPushButton::clicked, this, &MainWindow::cancel);

    connect(&m_jobs, &JobRunner::busyChanged, &m_document, &AnalysisDocument::setBusy);
    connect(&m_jobs, &JobRunner::resultAvailable, this,
            [this](quint64, std::shared_ptr<const Sentence> s, std::shared_ptr<const Analysis> a, const QString &modelError) {
                m_document.setResult(std::move(s), std::move(a), modelError);
            });
    connect(&m_jobs, &JobRunner::jobFailed, this, [this](quint64, const QString &msg) { m_document.setError(msg); });
    connect(&m_jobs, &JobRunner::progressChanged, this, [this](quint64, int done, int total, const QString &stage) {
        m_progress->setRange(0, total);
        m_progress->setValue(done);
        m_status->setText(total > 0 ? tr("%1… %2 of %3").arg(stage).arg(done).arg(total) : stage + QStringLiteral("…"));
    });
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
    connect(&m_document, &AnalysisDocument::changed, this, &MainWindow::onDocumentChanged);

    ParserConfig config;
    config.backend = Settings::parserBackend().toStdString();
    config.command = Settings::value(QStringLiteral("parser/command")).toString().toStdString();
    config.treeFile = Settings::value(QStringLiteral("parser/treeFile")).toString().toStdString();
    // Link Grammar's time grows steeply with length: long typed sentences are parsed
    // in clause-sized pieces (core/parsing/chunkingparser.h) so the app stays interactive.
    config.chunkLongerThan = 60;
    config.chunkMaxPiece = 30;
    if (!createParser(config)) { // unknown backend in old settings: fall back to the default
        config.backend = ParserConfig().backend;
    }
    m_jobs.setParserConfig(config);
    for (const auto &p : availableParsers())
        m_parserNames << QString::fromStdString(p.name);
    m_controls->setParsers(m_parserNames, QString::fromStdString(config.backend));

    resize(1280, 820);
    restoreGeometry(Settings::windowGeometry());
    restoreState(Settings::windowState());
}

MainWindow::~MainWindow() = default;

void MainWindow::createViews()
{
    m_constituency = new ConstituencyView(this);
    m_constituency->setBackgroundWork(backgroundWorkOf(m_jobs, JobRunner::Lane::Layout)); // long trees' dot layout
    m_dependency = new DependencyView(this);
    m_textView = new TreeTextView(this);
    m_prior = new HeatmapView(HeatmapView::Kind::Prior, this);
    m_attention = new HeatmapView(HeatmapView::Kind::Attention, this);
    m_overview = new AttentionOverview(this);
    m_links = new LinkStripView(this);

    m_treeTabs = new QTabWidget(this);
    m_treeTabs->setDocumentMode(true);
    m_treeTabs->addTab(m_constituency, tr("&Constituency"));
    m_treeTabs->addTab(m_dependency, tr("&Dependency"));
    m_treeTabs->addTab(m_textView, tr("Te&xt"));
    m_plotTabs = new QTabWidget(this);
    m_plotTabs->setDocumentMode(true);
    m_plotTabs->addTab(m_prior, tr("&Prior C"));
    m_plotTabs->addTab(m_attention, tr("&Attention"));
    m_plotTabs->addTab(m_overview, tr("&Heads overview"));
    m_plotTabs->addTab(m_links, tr("&Link strip"));
    auto slot = [this](auto *view) {
        ViewSlot v;
        v.widget = view;
        v.setData = [view](const ViewData &d) { view->setData(d); };
        v.setState = [view](const ViewState &s) { view->setState(s); };
        m_slots.push_back(std::move(v));
    };
    slot(m_constituency);
    slot(m_dependency);
    slot(m_prior);
    slot(m_attention);
    slot(m_overview);
    slot(m_links);
    connect(m_treeTabs, &QTabWidget::currentChanged, this, &MainWindow::syncVisibleViews);
    connect(m_plotTabs, &QTabWidget::currentChanged, this, &MainWindow::syncVisibleViews);

    auto *split = new QSplitter(Qt::Vertical, this);
    split->addWidget(m_treeTabs);
    split->addWidget(m_plotTabs);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    setCentralWidget(split);
}

void MainWindow::createDocks()
{
    // Sentence input with its history.
    auto *inputDock = new QDockWidget(tr("Sentence"), this);
    inputDock->setObjectName(QStringLiteral("sentenceDock"));
    auto *inputWidget = new QWidget(inputDock);
    auto *inputLayout = new QVBoxLayout(inputWidget);
    inputLayout->setContentsMargins(4, 4, 4, 4);
    auto *row = new QHBoxLayout;
    m_input = new QComboBox(inputWidget);
    m_input->setEditable(true);
    m_input->setInsertPolicy(QComboBox::NoInsert);
    m_input->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    m_input->lineEdit()->setPlaceholderText(tr("Type or paste a sentence and press Enter"));
    auto *analyseButton = new QPushButton(tr("&Analyse"), inputWidget);
    row->addWidget(m_input, 1);
    row->addWidget(analyseButton);
    inputLayout->addLayout(row);
    m_history = new QListWidget(inputWidget);
    m_history->addItems(Settings::sentenceHistory());
    m_history->setToolTip(tr("Recent sentences: click to analyse again"));
    inputLayout->addWidget(m_history, 1);
    inputDock->setWidget(inputWidget);
    addDockWidget(Qt::LeftDockWidgetArea, inputDock);
    connect(analyseButton, &QPushButton::clicked, this, [this] { analyse(m_input->currentText()); });
    connect(m_input->lineEdit(), &QLineEdit::returnPressed, this, [this] { analyse(m_input->currentText()); });
    connect(m_history, &QListWidget::itemActivated, this, [this](QListWidgetItem *item) { analyse(item->text()); });
    connect(m_history, &QListWidget::itemClicked, this, [this](QListWidgetItem *item) { analyse(item->text()); });

    auto *corpusDock = new QDockWidget(tr("Corpus"), this);
    corpusDock->setObjectName(QStringLiteral("corpusDock"));
    m_corpus = new CorpusPanel(corpusDock);
    corpusDock->setWidget(m_corpus);
    addDockWidget(Qt::LeftDockWidgetArea, corpusDock);
    connect(m_corpus, &CorpusPanel::openRequested, this, &MainWindow::openFileDialog);
    connect(m_corpus, &CorpusPanel::scoreRequested, this, &MainWindow::scoreCorpus);
    connect(m_corpus, &CorpusPanel::sentenceActivated, this,
            [this](std::shared_ptr<const Sentence> s, int) { analyseSentence(std::move(s)); });

    auto *controlsDock = new QDockWidget(tr("View"), this);
    controlsDock->setObjectName(QStringLiteral("viewDock"));
    m_controls = new ControlPanel(controlsDock);
    controlsDock->setWidget(m_controls);
    addDockWidget(Qt::RightDockWidgetArea, controlsDock);
    connect(m_controls, &ControlPanel::stateChanged, this, &MainWindow::applyState);
    connect(m_controls, &ControlPanel::parserChosen, this, &MainWindow::setParser);
    connect(m_controls, &ControlPanel::constituencyModeChanged, this, [this](int m) {
        m_constituency->setMode(static_cast<ConstituencyView::Mode>(m));
        Settings::setValue(QStringLiteral("view/constituencyMode"), m);
    });
    connect(m_controls, &ControlPanel::constituencyOverlayChanged, this, [this](int o) {
        m_constituency->setOverlay(static_cast<ConstituencyView::Overlay>(o));
        Settings::setValue(QStringLiteral("view/constituencyOverlay"), o);
    });
    connect(m_controls, &ControlPanel::dependencyLayoutChanged, this, [this](int l) {
        m_dependency->setLayout(static_cast<DependencyView::Layout>(l));
        Settings::setValue(QStringLiteral("view/dependencyLayout"), l);
    });
    m_controls->setConstituencyMode(Settings::value(QStringLiteral("view/constituencyMode"), 3).toInt());
    m_controls->setConstituencyOverlay(Settings::value(QStringLiteral("view/constituencyOverlay"), 1).toInt());
    m_controls->setDependencyLayout(Settings::value(QStringLiteral("view/dependencyLayout"), 0).toInt());
    m_constituency->setMode(static_cast<ConstituencyView::Mode>(m_controls->constituencyMode()));
    m_constituency->setOverlay(static_cast<ConstituencyView::Overlay>(m_controls->constituencyOverlay()));
    m_dependency->setLayout(static_cast<DependencyView::Layout>(m_controls->dependencyLayout()));

    auto *modelDock = new QDockWidget(tr("Model"), this);
    modelDock->setObjectName(QStringLiteral("modelDock"));
    m_model = new ModelPanel(modelDock);
    m_model->setRecent(Settings::recentModels());
    modelDock->setWidget(m_model);
    addDockWidget(Qt::RightDockWidgetArea, modelDock);
    connect(m_model, &ModelPanel::loadRequested, this, &MainWindow::loadModelDialog);
    connect(m_model, &ModelPanel::modelChosen, this, [this](const QString &p) {
        setModelPath(p);
        if (const auto s = m_document.sentence())
            analyseSentence(s);
    });

    auto *inspectorDock = new QDockWidget(tr("Inspector"), this);
    inspectorDock->setObjectName(QStringLiteral("inspectorDock"));
    m_inspector = new QTextBrowser(inspectorDock);
    m_inspector->setPlaceholderText(tr("Move the mouse over a tree node, an arc or a heatmap cell to see its exact values."));
    inspectorDock->setWidget(m_inspector);
    addDockWidget(Qt::RightDockWidgetArea, inspectorDock);
    tabifyDockWidget(modelDock, inspectorDock);
    inspectorDock->raise();

    // Probing over whole corpora (issue 6): hidden until asked for from the Window menu.
    auto *probingDock = new QDockWidget(tr("Probing"), this);
    probingDock->setObjectName(QStringLiteral("probingDock"));
    m_probing = new ProbingPanel(probingDock);
    probingDock->setWidget(m_probing);
    addDockWidget(Qt::BottomDockWidgetArea, probingDock);
    probingDock->hide();
    m_probing->setCorpusSource([this] { return m_corpus->model()->corpus(); });
    if (m_probing->modelPaths().isEmpty()) // else the dock's own models, restored from the settings
        m_probing->setModelPath(m_jobs.modelPath());
    connect(m_probing, &ProbingPanel::openSentence, this, &MainWindow::openProbedSentence);

    // Views → inspector and selection.
    connect(m_constituency, &ConstituencyView::hovered, this, &MainWindow::showHover);
    connect(m_dependency, &DependencyView::hovered, this, &MainWindow::showHover);
    connect(m_prior, &HeatmapView::hovered, this, &MainWindow::showHover);
    connect(m_attention, &HeatmapView::hovered, this, &MainWindow::showHover);
    connect(m_overview, &AttentionOverview::hovered, this, &MainWindow::showHover);
    connect(m_links, &LinkStripView::hovered, this, &MainWindow::showHover);
    auto focusWord = [this](int word) {
        ViewState s = m_state;
        s.focusWord = (word == m_state.focusWord) ? -1 : word; // clicking the focus word again clears it
        setViewState(s);
    };
    connect(m_constituency, &ConstituencyView::wordClicked, this, focusWord);
    connect(m_dependency, &DependencyView::wordClicked, this, focusWord);
    connect(m_overview, &AttentionOverview::cellActivated, this, [this](int layer, int head) {
        ViewState s = m_state;
        s.layer = layer;
        s.head = head;
        setViewState(s);
        m_plotTabs->setCurrentWidget(m_attention);
    });
    connect(m_links, &LinkStripView::layerChanged, this, [this](int layer) {
        if (layer == m_state.layer)
            return;
        ViewState s = m_state;
        s.layer = layer;
        setViewState(s);
    });
}

void MainWindow::createActions()
{
    auto *fileMenu = menuBar()->addMenu(tr("&File"));
    fileMenu->addAction(tr("&Open corpus…"), QKeySequence::Open, this, &MainWindow::openFileDialog);
    auto *recent = fileMenu->addMenu(tr("Open &recent"));
    connect(recent, &QMenu::aboutToShow, this, [this, recent] {
        recent->clear();
        for (const QString &p : Settings::recentFiles())
            recent->addAction(QFileInfo(p).fileName(), this, [this, p] {
                QString error;
                if (!openCorpus(p, &error))
                    QMessageBox::warning(this, tr("Open corpus"), error);
            })->setToolTip(p);
        recent->setEnabled(!recent->isEmpty());
    });
    fileMenu->addAction(tr("Load &model…"), QKeySequence(tr("Ctrl+M")), this, &MainWindow::loadModelDialog);
    fileMenu->addSeparator();
    auto *exportMenu = fileMenu->addMenu(tr("&Export"));
    exportMenu->addAction(tr("Current &tree view…"), QKeySequence(tr("Ctrl+E")), this, &MainWindow::exportDialog);
    for (const QString &name : exportableViewNames())
        exportMenu->addAction(tr("View “%1”…").arg(name), this, [this, name] {
            const QString path = QFileDialog::getSaveFileName(
                this, tr("Export %1").arg(name), name + QStringLiteral(".svg"),
                tr("SVG (*.svg);;PDF (*.pdf);;PNG (*.png);;LaTeX (*.tex)"));
            if (path.isEmpty())
                return;
            if (const Status st = exportCurrent(name, path); !st)
                QMessageBox::warning(this, tr("Export"), QString::fromStdString(st.message()));
        });
    exportMenu->addSeparator();
    exportMenu->addAction(tr("Analysis as &JSON…"), this, [this] { exportData(true); });
    exportMenu->addAction(tr("Matrices as &CSV…"), this, [this] { exportData(false); });
    fileMenu->addSeparator();
    fileMenu->addAction(tr("&Quit"), QKeySequence::Quit, qApp, &QApplication::closeAllWindows);

    auto *nav = menuBar()->addMenu(tr("&Navigate"));
    nav->addAction(tr("&Next sentence"), QKeySequence(tr("Alt+Down")), this, [this] { m_corpus->step(+1); });
    nav->addAction(tr("&Previous sentence"), QKeySequence(tr("Alt+Up")), this, [this] { m_corpus->step(-1); });
    nav->addSeparator();
    nav->addAction(tr("Layer &up"), QKeySequence(tr("Ctrl+Up")), this, [this] { m_controls->stepLayer(+1); });
    nav->addAction(tr("Layer &down"), QKeySequence(tr("Ctrl+Down")), this, [this] { m_controls->stepLayer(-1); });
    nav->addAction(tr("Next &head"), QKeySequence(tr("Ctrl+Right")), this, [this] { m_controls->stepHead(+1); });
    nav->addAction(tr("Previous h&ead"), QKeySequence(tr("Ctrl+Left")), this, [this] { m_controls->stepHead(-1); });
    nav->addSeparator();
    nav->addAction(tr("Play layer &animation"), QKeySequence(tr("Ctrl+P")), this, [this] {
        m_plotTabs->setCurrentWidget(m_links);
        linkView()->play();
    });
    nav->addAction(tr("&Focus the input"), QKeySequence(tr("Ctrl+L")), this, [this] {
        m_input->setFocus();
        m_input->lineEdit()->selectAll();
    });
    nav->addAction(tr("&Cancel"), QKeySequence(Qt::Key_Escape), this, &MainWindow::cancel);

    auto *viewMenu = menuBar()->addMenu(tr("&Window"));
    for (auto *dock : findChildren<QDockWidget *>())
        viewMenu->addAction(dock->toggleViewAction());

    auto *helpMenu = menuBar()->addMenu(tr("&Help"));
    helpMenu->addAction(tr("&About TreeLens"), this, &MainWindow::showAbout);
}

QStringList MainWindow::exportableViewNames()
{
    return {QStringLiteral("constituency"), QStringLiteral("dependency"), QStringLiteral("prior"),
            QStringLiteral("attention"),    QStringLiteral("overview"),   QStringLiteral("links")};
}

ExportableView *MainWindow::exportableView(const QString &name)
{
    if (name == QLatin1String("constituency")) return m_constituency;
    if (name == QLatin1String("dependency")) return m_dependency;
    if (name == QLatin1String("prior")) return m_prior;
    if (name == QLatin1String("attention")) return m_attention;
    if (name == QLatin1String("overview")) return m_overview;
    if (name == QLatin1String("links")) return m_links;
    return nullptr;
}

void MainWindow::setModelPath(const QString &path)
{
    // The probing dock follows the window's model unless it has models of its own:
    // none checked, or only the window's model, is not a choice of its own.
    if (m_probing) {
        const QStringList own = m_probing->modelPaths();
        if (own.isEmpty() || (own.size() == 1 && own.front() == m_jobs.modelPath()))
            m_probing->setModelPath(path);
    }
    m_jobs.setModelPath(path);
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
    const auto corpus = m_corpus->model()->corpus();
    int row = -1;
    if (corpus) {
        const std::string id = sentenceId.toStdString();
        // The same id with other words is another sentence (files without
        // sent_id number their sentences s1, s2, ... each): not this one.
        for (std::size_t i = 0; i < corpus->size(); ++i)
            if ((*corpus)[i].id == id && (!sentence || (*corpus)[i].words() == sentence->words())) {
                row = static_cast<int>(i);
                break;
            }
    }
    if (row < 0 && (!sentence || sentence->id != sentenceId.toStdString())) {
        m_status->setText(tr("Sentence %1 is neither in the open corpus nor in the probed files.").arg(sentenceId));
        return;
    }
    // The layer/head are applied once the analysis has the shape (updateViews).
    m_pendingProbeSentence = sentenceId.toStdString();
    m_pendingProbeLayer = layer;
    m_pendingProbeHead = head;
    if (row >= 0)
        m_corpus->activateRow(row);
    else // not in the open corpus: the run's copy, analysed as a corpus sentence (gold trees kept)
        analyseSentence(std::move(sentence));
    ViewState s = m_state;
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

void MainWindow::analyse(const QString &text)
{
    const QString t = text.trimmed();
    if (t.isEmpty())
        return;
    m_input->setCurrentText(t);
    Settings::setLastSentence(t);
    Settings::addToHistory(t);
    if (m_history->count() == 0 || m_history->item(0)->text() != t) {
        for (auto *item : m_history->findItems(t, Qt::MatchExactly))
            delete m_history->takeItem(m_history->row(item));
        m_history->insertItem(0, t);
    }
    m_status->setText(tr("Parsing…"));
    m_waitingForAnalysis = true;
    m_jobs.requestParse(t);
}

void MainWindow::analyseSentence(std::shared_ptr<const Sentence> sentence)
{
    if (!sentence)
        return;
    m_input->setCurrentText(sentenceDisplayText(*sentence));
    m_status->setText(tr("Analysing %1…").arg(QString::fromStdString(sentence->id)));
    m_waitingForAnalysis = true;
    m_jobs.requestSentence(std::move(sentence));
}

bool MainWindow::openCorpus(const QString &path, QString *error)
{
    const auto format = formatFromPath(path.toStdString());
    CorpusReadOptions options;
    options.stripTraces = true; // the views show words; traces are not tokens
    options.stripFunctionTags = true;
    auto r = readCorpusFile(path.toStdString(), format, options);
    if (!r) {
        if (error)
            *error = QString::fromStdString(r.message());
        m_status->setText(QString::fromStdString(r.message()));
        return false;
    }
    auto corpus = std::make_shared<const std::vector<Sentence>>(std::move(*r));
    m_corpus->setCorpus(corpus, path);
    Settings::addRecentFile(path);
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
    m_links->stop();
    m_waitingForAnalysis = false;
    m_status->setText(tr("Cancelled."));
}

void MainWindow::setParser(const QString &name)
{
    ParserConfig config = m_jobs.parserConfig();
    if (name == QLatin1String("external")) {
        // The external backend runs the user's own parser: ask for its command line once.
        bool ok = false;
        const QString command = QInputDialog::getText(
            this, tr("External parser"),
            tr("Command that reads one line of space-separated tokens on stdin and writes one CoNLL-U sentence on "
               "stdout (for example a UDPipe, spaCy or Stanza wrapper script):"),
            QLineEdit::Normal, Settings::value(QStringLiteral("parser/command")).toString(), &ok);
        if (!ok || command.trimmed().isEmpty()) {
            m_controls->setParsers(m_parserNames, QString::fromStdString(config.backend));
            return;
        }
        Settings::setValue(QStringLiteral("parser/command"), command.trimmed());
        config.command = command.trimmed().toStdString();
    } else if (name == QLatin1String("file")) {
        // Trees parsed elsewhere (or gold): typed sentences are looked up in this file by their words.
        const QString path = QFileDialog::getOpenFileName(
            this, tr("Parsed file to take trees from"), Settings::value(QStringLiteral("parser/treeFile")).toString(),
            tr("Parsed files (*.conllu *.conll *.mrg *.ptb *.json);;All files (*)"));
        ParserConfig probe = config;
        probe.backend = "file";
        probe.treeFile = path.toStdString();
        const auto parser = path.isEmpty() ? Result<std::unique_ptr<Parser>>(Error{"no file"}) : createParser(probe);
        if (!parser) {
            if (!path.isEmpty())
                QMessageBox::warning(this, tr("File parser"), QString::fromStdString(parser.message()));
            m_controls->setParsers(m_parserNames, QString::fromStdString(config.backend));
            return;
        }
        Settings::setValue(QStringLiteral("parser/treeFile"), path);
        config.treeFile = probe.treeFile;
    }
    config.backend = name.toStdString();
    m_jobs.setParserConfig(config);
    Settings::setParserBackend(name);
    // Re-parse what is on screen with the new parser (typed text only: corpus sentences keep their gold trees).
    if (const auto s = m_document.sentence(); s && s->id == "input")
        analyse(QString::fromStdString(s->text));
}

void MainWindow::setViewState(const ViewState &state)
{
    m_controls->setState(state); // emits stateChanged → applyState when anything changed
    if (m_controls->state().layer == state.layer && m_controls->state().head == state.head)
        applyState(m_controls->state());
}

void MainWindow::applyState(const ViewState &state)
{
    m_state = state;
    syncVisibleViews();
}

void MainWindow::syncView(QWidget *view)
{
    for (ViewSlot &v : m_slots) {
        if (v.widget != view)
            continue;
        // Data first, with the view's previous state; a second rebuild only when the state differs too.
        if (v.dataGeneration != m_dataGeneration) {
            v.setData(m_viewData);
            v.dataGeneration = m_dataGeneration;
        }
        if (!v.hasState || v.state != m_state) {
            v.setState(m_state);
            v.state = m_state;
            v.hasState = true;
        }
    }
}

void MainWindow::syncVisibleViews()
{
    for (ViewSlot &v : m_slots)
        if (v.widget->isVisible())
            syncView(v.widget);
}

ConstituencyView *MainWindow::constituencyView()
{
    syncView(m_constituency);
    return m_constituency;
}
DependencyView *MainWindow::dependencyView()
{
    syncView(m_dependency);
    return m_dependency;
}
HeatmapView *MainWindow::priorView()
{
    syncView(m_prior);
    return m_prior;
}
HeatmapView *MainWindow::attentionView()
{
    syncView(m_attention);
    return m_attention;
}
AttentionOverview *MainWindow::overviewView()
{
    syncView(m_overview);
    return m_overview;
}
LinkStripView *MainWindow::linkView()
{
    syncView(m_links);
    return m_links;
}

void MainWindow::onDocumentChanged(AnalysisDocument::Changes what)
{
    if (what & AnalysisDocument::BusyChanged) {
        m_progress->setVisible(m_document.isBusy());
        if (m_document.isBusy())
            m_progress->setRange(0, 0);
        m_cancel->setEnabled(m_document.isBusy());
    }
    if (what & (AnalysisDocument::SentenceChanged | AnalysisDocument::AnalysisChanged)) {
        if (const auto s = m_document.sentence()) {
            updateViews();
            QString status = tr("%n word(s)", nullptr, static_cast<int>(s->tokens.size()));
            const std::string parser = s->metadataValue("parser");
            if (!parser.empty())
                status += tr(", parsed by %1").arg(QString::fromStdString(parser));
            if (s->metadataValue("dependency_source") == "gold" || s->metadataValue("constituency_source") == "gold")
                status += tr(", gold trees from the corpus");
            if (const std::string e = s->metadataValue("parse_error"); !e.empty())
                status += tr(" — parser failed: %1").arg(QString::fromStdString(e));
            if (!m_document.modelMessage().isEmpty())
                status += tr(" — model: %1").arg(m_document.modelMessage());
            m_status->setText(status);
            if (m_waitingForAnalysis) {
                m_waitingForAnalysis = false;
                Q_EMIT analysisShown(true);
            }
        }
    } else if ((what & AnalysisDocument::ErrorChanged) && !m_document.lastError().isEmpty()) {
        m_textView->showMessage(m_document.lastError());
        m_status->setText(tr("Error: %1").arg(m_document.lastError()));
        if (m_waitingForAnalysis) {
            m_waitingForAnalysis = false;
            Q_EMIT analysisShown(false);
        }
    }
}

void MainWindow::updateViews()
{
    QElapsedTimer clock;
    clock.start();
    ViewData data{m_document.sentence(), m_document.analysis()};
    // An analysis always belongs to its sentence (AnalysisDocument::setResult); a
    // mismatch would be a bug upstream, and views must not index out of range.
    if (data.sentence && data.analysis && data.analysis->words.size() != data.sentence->tokens.size())
        data.analysis.reset();
    const Analysis *a = data.analysis.get();
    m_viewData = data;
    ++m_dataGeneration;
    // The new shape may clamp the layer, head or focus word: take the state from
    // the controls before any view is rebuilt (applyState syncs visible views).
    m_controls->setShape(a ? a->layers : 0, a ? a->heads : 0, data.sentence ? data.sentence->words() : std::vector<std::string>{});
    m_state = m_controls->state();
    // A sentence opened from the probing panel: its layer/head, now that the shape allows them.
    if (!m_pendingProbeSentence.empty() && data.sentence && data.sentence->id == m_pendingProbeSentence && a) {
        ViewState s = m_state;
        s.layer = m_pendingProbeLayer;
        s.head = m_pendingProbeHead;
        m_controls->setState(s);
        m_state = m_controls->state();
        m_pendingProbeSentence.clear();
    }
    if (data.sentence)
        m_textView->setSentence(*data.sentence, a);
    syncVisibleViews();
    m_lastViewUpdateMs = static_cast<double>(clock.nsecsElapsed()) / 1e6;
    Q_EMIT viewsUpdated();
}

void MainWindow::showHover(const QString &text)
{
    if (!text.isEmpty())
        m_inspector->setPlainText(text);
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
    const QString path = QFileDialog::getOpenFileName(this, tr("Load model"), QFileInfo(m_jobs.modelPath()).absolutePath(),
                                                      tr("Model files (*.safetensors);;All files (*)"));
    if (path.isEmpty())
        return;
    setModelPath(path);
    Settings::setLastModel(path);
    if (const auto s = m_document.sentence())
        analyseSentence(s);
}

void MainWindow::exportDialog()
{
    const QString name = m_treeTabs->currentWidget() == m_dependency ? QStringLiteral("dependency")
                                                                      : QStringLiteral("constituency");
    const QString path = QFileDialog::getSaveFileName(this, tr("Export %1 tree").arg(name), name + QStringLiteral(".pdf"),
                                                      tr("PDF (*.pdf);;SVG (*.svg);;PNG (*.png);;LaTeX (*.tex)"));
    if (path.isEmpty())
        return;
    if (const Status st = exportCurrent(name, path); !st)
        QMessageBox::warning(this, tr("Export"), QString::fromStdString(st.message()));
}

Status MainWindow::exportCurrent(const QString &viewName, const QString &path, int dpi)
{
    const auto sentence = m_document.sentence();
    if (path.endsWith(QLatin1String(".tex"), Qt::CaseInsensitive)) {
        if (!sentence)
            return Error{"nothing to export: no sentence analysed"};
        LatexOptions opt;
        if (viewName == QLatin1String("constituency")) {
            const auto a = m_document.analysis();
            const bool induced = m_constituency->mode() == ConstituencyView::Mode::Induced && a && a->inducedTree;
            const ConstituencyTree *tree = induced ? &*a->inducedTree : (sentence->constituency ? &*sentence->constituency : nullptr);
            if (!tree)
                return Error{"the sentence has no constituency tree"};
            return writeTextFile(path, constituencyToForest(*tree, opt));
        }
        if (viewName == QLatin1String("dependency")) {
            if (!sentence->dependency)
                return Error{"the sentence has no dependency tree"};
            const auto arcs = latexAttentionArcs(*sentence, m_document.analysis().get(), m_state);
            return writeTextFile(path, dependencyToTikzDependency(*sentence, opt, arcs.empty() ? nullptr : &arcs));
        }
        return Error{"LaTeX export is for the constituency and dependency views; use .pdf, .svg or .png for " + viewName.toStdString()};
    }
    ExportableView *view = exportableView(viewName);
    if (view)
        syncView(dynamic_cast<QWidget *>(view));
    if (!view)
        return Error{"unknown view '" + viewName.toStdString() + "' (expected one of: "
                     + exportableViewNames().join(QStringLiteral(", ")).toStdString() + ")"};
    return exportView(*view, path, dpi);
}

void MainWindow::exportData(bool json)
{
    const auto a = m_document.analysis();
    if (!a) {
        QMessageBox::information(this, tr("Export"), tr("There is no analysis to export (no model output)."));
        return;
    }
    if (json) {
        const QString path = QFileDialog::getSaveFileName(this, tr("Export analysis"), QStringLiteral("analysis.json"),
                                                          tr("JSON (*.json)"));
        if (path.isEmpty())
            return;
        if (const Status st = writeTextFile(path, analysisToJson(*a, true, 1) + "\n"); !st)
            QMessageBox::warning(this, tr("Export"), QString::fromStdString(st.message()));
        return;
    }
    const QString dir = QFileDialog::getExistingDirectory(this, tr("Export matrices as CSV into"));
    if (dir.isEmpty())
        return;
    const int l = m_state.layer, h = m_state.head;
    Status st;
    if (l < static_cast<int>(a->constituentPrior.size()))
        st = writeTextFile(dir + QStringLiteral("/prior-layer%1.csv").arg(l + 1),
                           matrixToCsv(a->constituentPrior[static_cast<std::size_t>(l)], a->tokens, a->tokens));
    if (const Matrix *m = selectedAttention(*a, m_state); st && m)
        st = writeTextFile(dir + QStringLiteral("/attention-layer%1-head%2%3.csv").arg(l + 1).arg(h + 1)
                                     .arg(m_state.weightedAttention ? QString() : QStringLiteral("-raw")),
                           matrixToCsv(*m, a->tokens, a->tokens));
    if (st && !a->linkProbs.empty())
        st = writeTextFile(dir + QStringLiteral("/link-probs.csv"), linkProbsToCsv(*a));
    if (!st)
        QMessageBox::warning(this, tr("Export"), QString::fromStdString(st.message()));
    else
        m_status->setText(tr("Matrices of layer %1, head %2 written to %3").arg(l + 1).arg(h + 1).arg(dir));
}

void MainWindow::showAbout()
{
    const TorchInfo t = torchInfo();
    QString parsers;
    for (const auto &p : availableParsers())
        parsers += QStringLiteral("<br>%1").arg(QString::fromStdString(p.description).toHtmlEscaped());
    QMessageBox::about(this, tr("About TreeLens"),
                       tr("<h3>TreeLens %1</h3><p>See what tree-structured attention encoders do.</p>"
                          "<p>Qt %2<br>LibTorch %3 (%4)<br>Graphviz %5<br>QCustomPlot %6%7</p>")
                           .arg(QStringLiteral(TREELENS_VERSION), QString::fromLatin1(qVersion()),
                                QString::fromStdString(t.version),
                                QString::fromStdString(t.cudaAvailable ? "CUDA available" : "CPU only"),
                                graphvizVersion(), qcustomplotVersion(), parsers));
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

} // namespace treelens
